/* Unit tests of sys/proc: exit codes and signals, timeouts and kills that reach the
 * whole process group (grandchildren included), abort within 100 ms, output caps, large
 * output without deadlock, the child's environment (secrets removed), descriptors,
 * signal mask, process group, cwd, EINTR, no zombies, and the child's stdin (what is
 * written arrives; a child that closed it gives an error, never a SIGPIPE). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/redact.h"
#include "check.h"
#include "tmpdir.h"
#include "sys/proc.h"

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}

/* A process is gone when /proc has no entry or only a zombie (an orphan's zombie belongs
 * to init, which may be slow to reap it in a container). */
static bool alive(long pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return false;
    const char *rp = strrchr(line, ')');
    return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* Wait up to ms for pid to be gone. */
static bool gone_within(long pid, long ms)
{
    long long end = ms_now() + ms;
    while (alive(pid)) {
        if (ms_now() > end)
            return false;
        usleep(10000);
    }
    return true;
}

static hew_code sh(const char *script, buf *out, proc_status *st, const proc_opts *extra)
{
    const char *argv[] = { "/bin/sh", "-c", script, NULL };
    proc_opts o = extra ? *extra : (proc_opts){ 0 };
    o.argv = argv;
    return proc_run(&o, out, NULL, st, NULL);
}

static void test_exit_codes(void)
{
    buf out = BUF_INIT(4096);
    proc_status st;
    REQUIRE(sh("echo hello", &out, &st, NULL) == HEW_OK);
    CHECK_INT(st.end, PROC_EXITED);
    CHECK_INT(st.exit_code, 0);
    CHECK_STR(out.data, "hello\n");
    buf_reset(&out);
    REQUIRE(sh("exit 3", &out, &st, NULL) == HEW_OK);
    CHECK_INT(st.end, PROC_EXITED);
    CHECK_INT(st.exit_code, 3);
    CHECK_INT(out.len, 0);
    buf_release(&out);
}

static void test_signal_reported(void)
{
    proc_status st;
    REQUIRE(sh("kill -SEGV $$", NULL, &st, NULL) == HEW_OK);
    CHECK_INT(st.end, PROC_SIGNALED);
    CHECK_INT(st.signal, SIGSEGV);
    CHECK_INT(st.exit_code, -1);
    char tmp[32];
    CHECK_STR(proc_signal_name(SIGSEGV, tmp, sizeof tmp), "SIGSEGV");
    CHECK_STR(proc_signal_name(77, tmp, sizeof tmp), "signal 77");
}

static void test_stderr_merged_and_separate(void)
{
    buf out = BUF_INIT(4096);
    proc_status st;
    REQUIRE(sh("echo a; echo b >&2; echo c", &out, &st, NULL) == HEW_OK);
    CHECK_STR(out.data, "a\nb\nc\n");
    buf_release(&out);
}

struct streams {
    buf out, err;
};

static void collect(void *ud, int stream, const char *data, size_t len)
{
    struct streams *s = ud;
    buf_append(stream == PROC_STDERR ? &s->err : &s->out, data, len);
}

static void test_stderr_separate(void)
{
    struct streams s = { BUF_INIT(4096), BUF_INIT(4096) };
    proc_opts o = { .separate_stderr = true, .on_output = collect, .ud = &s };
    buf out = BUF_INIT(4096);
    proc_status st;
    REQUIRE(sh("echo a; echo b >&2", &out, &st, &o) == HEW_OK);
    CHECK_STR(out.data, "a\n");
    CHECK_STR(s.out.data, "a\n");
    CHECK_STR(s.err.data, "b\n");
    buf_release(&out);
    buf_release(&s.out);
    buf_release(&s.err);
}

static void test_start_errors(void)
{
    hew_err err = HEW_ERR_INIT;
    const char *argv[] = { "/nonexistent/program", NULL };
    proc_opts o = { .argv = argv };
    proc *p = NULL;
    CHECK_INT(proc_start(&o, &p, &err), HEW_E_NOTFOUND);
    CHECK(p == NULL);
    CHECK(strstr(err.msg, "/nonexistent/program") != NULL);
    const char *argv2[] = { "/bin/true", NULL };
    proc_opts o2 = { .argv = argv2, .cwd = "/nonexistent-dir" };
    CHECK_INT(proc_start(&o2, &p, &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "/nonexistent-dir") != NULL);
    proc_opts o3 = { 0 };
    CHECK_INT(proc_start(&o3, &p, &err), HEW_E_INVALID);
}

static void test_cwd(void)
{
    char *dir = tmpdir_make("proc-cwd");
    REQUIRE(dir != NULL);
    buf out = BUF_INIT(4096);
    proc_status st;
    proc_opts o = { .cwd = dir };
    REQUIRE(sh("pwd -P", &out, &st, &o) == HEW_OK);
    buf want = BUF_INIT(0);
    buf_printf(&want, "%s\n", dir);
    CHECK_STR(out.data, want.data);
    buf_release(&want);
    buf_release(&out);
    tmpdir_remove(dir);
    free(dir);
}

/* The timeout kills the leader and its grandchildren. */
static void test_timeout_kills_grandchildren(void)
{
    buf out = BUF_INIT(4096);
    proc_status st;
    proc_opts o = { .timeout_ms = 300, .kill_grace_ms = 500 };
    long long t0 = ms_now();
    REQUIRE(sh("sleep 100 & echo $!; sleep 100", &out, &st, &o) == HEW_OK);
    long long took = ms_now() - t0;
    CHECK_INT(st.end, PROC_TIMED_OUT);
    CHECK_INT(st.signal, SIGTERM);
    CHECK(took >= 300 && took < 1500);
    long gpid = out.data ? strtol(out.data, NULL, 10) : 0;
    REQUIRE(gpid > 0);
    CHECK(gone_within(gpid, 1000));
    buf_release(&out);
}

/* A group that ignores SIGTERM gets SIGKILL after the grace. */
static void test_timeout_then_sigkill(void)
{
    buf out = BUF_INIT(4096);
    proc_status st;
    proc_opts o = { .timeout_ms = 200, .kill_grace_ms = 300 };
    long long t0 = ms_now();
    REQUIRE(sh("trap '' TERM; sleep 100 & echo $!; sleep 100", &out, &st, &o) == HEW_OK);
    long long took = ms_now() - t0;
    CHECK_INT(st.end, PROC_TIMED_OUT);
    CHECK_INT(st.signal, SIGKILL);
    CHECK(took >= 500 && took < 2000);
    long gpid = out.data ? strtol(out.data, NULL, 10) : 0;
    REQUIRE(gpid > 0);
    CHECK(gone_within(gpid, 1000));
    buf_release(&out);
}

/* What a leader leaves behind in its group is stopped when it exits (unless keep_group). */
static void test_leftovers_killed(void)
{
    buf out = BUF_INIT(4096);
    proc_status st;
    long long t0 = ms_now();
    REQUIRE(sh("sleep 100 & echo $!", &out, &st, NULL) == HEW_OK);
    CHECK(ms_now() - t0 < 2000);
    CHECK_INT(st.end, PROC_EXITED);
    CHECK_INT(st.exit_code, 0);
    long gpid = out.data ? strtol(out.data, NULL, 10) : 0;
    REQUIRE(gpid > 0);
    CHECK(gone_within(gpid, 1000));

    /* keep_group: the grandchild survives (and holds the pipe: the drain deadline ends it) */
    buf_reset(&out);
    proc_opts o = { .keep_group = true };
    t0 = ms_now();
    REQUIRE(sh("sleep 100 & echo $!", &out, &st, &o) == HEW_OK);
    CHECK(ms_now() - t0 < 2000);
    gpid = out.data ? strtol(out.data, NULL, 10) : 0;
    REQUIRE(gpid > 0);
    CHECK(alive(gpid));
    kill((pid_t)gpid, SIGKILL);
    CHECK(gone_within(gpid, 1000));
    buf_release(&out);
}

struct trigger {
    hew_abort *abort;
    proc *p;
    long delay_ms;
    long long fired_ms;
};

static void *fire_abort(void *arg)
{
    struct trigger *t = arg;
    usleep((useconds_t)t->delay_ms * 1000);
    t->fired_ms = ms_now();
    if (t->abort)
        abort_trigger(t->abort, "test");
    else
        proc_kill(t->p);
    return NULL;
}

static void test_abort_stops_the_group(void)
{
    hew_abort *a = abort_new();
    const char *argv[] = { "/bin/sh", "-c", "sleep 100 & sleep 100", NULL };
    proc_opts o = { .argv = argv, .abort = a };
    proc *p;
    REQUIRE(proc_start(&o, &p, NULL) == HEW_OK);
    struct trigger t = { a, NULL, 200, 0 };
    pthread_t th;
    pthread_create(&th, NULL, fire_abort, &t);
    proc_status st;
    proc_wait(p, &st);
    long long done = ms_now();
    pthread_join(th, NULL);
    CHECK_INT(st.end, PROC_ABORTED);
    CHECK(done - t.fired_ms < 10000); /* stopped, not the 100 s sleep (the speed: bench/abort) */
    pid_t pid = proc_pid(p);
    proc_free(p);
    CHECK(!alive(pid));
    abort_free(a);
}

static void test_abort_already_set(void)
{
    hew_abort *a = abort_new();
    abort_trigger(a, "before");
    const char *argv[] = { "/bin/sleep", "100", NULL };
    proc_opts o = { .argv = argv, .abort = a };
    proc_status st;
    long long t0 = ms_now();
    REQUIRE(proc_run(&o, NULL, NULL, &st, NULL) == HEW_OK);
    CHECK(ms_now() - t0 < 10000); /* not run: not the 100 s sleep (the speed: bench/abort) */
    CHECK_INT(st.end, PROC_ABORTED);
    abort_free(a);
}

static void test_kill_from_other_thread(void)
{
    const char *argv[] = { "/bin/sleep", "100", NULL };
    proc_opts o = { .argv = argv };
    proc *p;
    REQUIRE(proc_start(&o, &p, NULL) == HEW_OK);
    struct trigger t = { NULL, p, 100, 0 };
    pthread_t th;
    pthread_create(&th, NULL, fire_abort, &t);
    proc_status st;
    proc_wait(p, &st);
    long long done = ms_now();
    pthread_join(th, NULL);
    CHECK_INT(st.end, PROC_KILLED);
    CHECK(done - t.fired_ms < 10000); /* stopped, not the 100 s sleep (the speed: bench/abort) */
    proc_free(p);
}

/* proc_free of a running child kills and reaps it. */
static void test_free_running(void)
{
    const char *argv[] = { "/bin/sleep", "100", NULL };
    proc_opts o = { .argv = argv };
    proc *p;
    REQUIRE(proc_start(&o, &p, NULL) == HEW_OK);
    pid_t pid = proc_pid(p);
    long long t0 = ms_now();
    proc_free(p);
    CHECK(ms_now() - t0 < 500);
    errno = 0;
    CHECK(waitpid(pid, NULL, WNOHANG) == -1 && errno == ECHILD);
}

static void test_output_cap(void)
{
    buf out = BUF_INIT(1000);
    bool trunc = false;
    proc_status st;
    const char *argv[] = { "/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x", NULL };
    proc_opts o = { .argv = argv };
    REQUIRE(proc_run(&o, &out, &trunc, &st, NULL) == HEW_OK);
    CHECK_INT(out.len, 1000);
    CHECK(trunc);
    CHECK_INT(st.output_bytes, 100000);
    CHECK_INT(out.err, HEW_OK);
    buf_release(&out);
}

/* 64 MiB through the pipe with a slow-ish reader: no deadlock, every byte counted. */
static void test_large_output(void)
{
    proc_status st;
    const char *argv[] = { "/bin/sh", "-c",
                           "head -c 67108864 /dev/zero; echo err >&2; head -c 1000 /dev/zero", NULL };
    proc_opts o = { .argv = argv, .separate_stderr = true, .timeout_ms = 60000 };
    buf out = BUF_INIT(4096);
    REQUIRE(proc_run(&o, &out, NULL, &st, NULL) == HEW_OK);
    CHECK_INT(st.end, PROC_EXITED);
    CHECK_INT(st.output_bytes, 67108864ULL + 1000 + 4);
    buf_release(&out);
}

static void test_env_scrubbed(void)
{
    setenv("ANTHROPIC_API_KEY", "sk-ant-secret-1", 1);
    setenv("SOME_SERVICE_API_KEY", "sk-some-secret-2", 1);
    setenv("OPENROUTER_TOKEN", "or-secret-3", 1);
    setenv("ANTHROPIC_AUTH_TOKEN", "tok-secret-4", 1);
    setenv("INNOCENT_NAME", "value-secret-5-long", 1);
    setenv("HEW_KEEP_ME", "visible", 1);
    setenv("GITHUB_USER", "octocat", 1);
    redact_secret_add("value-secret-5-long");
    redact_secret_add("short"); /* too short to count: ignored */
    setenv("SHORT_ONE", "short", 1);

    buf out = BUF_INIT(1 << 20);
    proc_status st;
    const char *argv[] = { "/usr/bin/env", NULL };
    proc_opts o = { .argv = argv };
    REQUIRE(proc_run(&o, &out, NULL, &st, NULL) == HEW_OK);
    REQUIRE(out.data != NULL);
    CHECK(strstr(out.data, "-secret-") == NULL); /* not "secret": a path may hold it */
    CHECK(strstr(out.data, "ANTHROPIC_API_KEY") == NULL);
    CHECK(strstr(out.data, "INNOCENT_NAME") == NULL);
    CHECK(strstr(out.data, "HEW_KEEP_ME=visible\n") != NULL);
    CHECK(strstr(out.data, "GITHUB_USER=octocat\n") != NULL);
    CHECK(strstr(out.data, "SHORT_ONE=short\n") != NULL);

    proc_env e = PROC_ENV_INIT;
    proc_env_for_command(&e, NULL);
    CHECK_STR(proc_env_get(&e, "PAGER"), "cat");
    CHECK_STR(proc_env_get(&e, "GIT_PAGER"), "cat");
    CHECK_STR(proc_env_get(&e, "MANPAGER"), "cat");
    CHECK_STR(proc_env_get(&e, "SYSTEMD_PAGER"), "");
    CHECK_STR(proc_env_get(&e, "TERM"), "xterm-256color");
    CHECK(proc_env_get(&e, "ANTHROPIC_API_KEY") == NULL);
    CHECK(proc_env_get(&e, "EDITOR") != NULL);
    proc_env_unset(&e, "PAGER");
    CHECK(proc_env_get(&e, "PAGER") == NULL);
    CHECK(!e.oom);
    buf_reset(&out);
    proc_opts o2 = { .argv = argv, .envp = proc_env_list(&e) };
    REQUIRE(proc_run(&o2, &out, NULL, &st, NULL) == HEW_OK);
    CHECK(strstr(out.data, "GIT_PAGER=cat\n") != NULL);
    CHECK(strstr(out.data, "\nPAGER=") == NULL);
    proc_env_release(&e);

    CHECK(proc_env_is_secret("X_API_KEY", "v"));
    CHECK(proc_env_is_secret("GEMINI_KEY", "v"));
    CHECK(!proc_env_is_secret("PATH", "/bin"));
    CHECK(!proc_env_is_secret("MONKEY", "v"));
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("SOME_SERVICE_API_KEY");
    unsetenv("OPENROUTER_TOKEN");
    unsetenv("ANTHROPIC_AUTH_TOKEN");
    unsetenv("INNOCENT_NAME");
    buf_release(&out);
}

/* The usual secrets stay out of commands by default; an allow list lets named ones in. */
static void test_env_default_drops_and_allow(void)
{
    setenv("GITHUB_TOKEN", "ghp-value-1", 1);
    setenv("GH_TOKEN", "gh-value-2", 1);
    setenv("NPM_TOKEN", "npm-value-3", 1);
    setenv("FOO_TOKEN", "foo-value-4", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "aws-value-5", 1);
    setenv("AWS_ACCESS_KEY_ID", "aws-value-6", 1);
    setenv("AWS_SESSION_TOKEN", "aws-value-7", 1);
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "aws-value-8", 1);
    setenv("DB_PASSWORD", "db-value-9", 1);
    setenv("MY_SECRET_THING", "my-value-10", 1);
    setenv("UNLABELLED", "sk-proj-abcDEF1234567890ghijKLMN", 1);
    setenv("AWS_REGION", "eu-west-1", 1);
    setenv("AWS_PROFILE", "dev", 1);
    setenv("TOKENIZERS_PARALLELISM", "false", 1);
    setenv("CI_JOB_TOKEN", "ci-value-11", 1);

    proc_env e = PROC_ENV_INIT;
    proc_env_for_command(&e, NULL);
    static const char *const gone[] = { "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "FOO_TOKEN",
                                        "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
                                        "AWS_SESSION_TOKEN", "AWS_WEB_IDENTITY_TOKEN_FILE",
                                        "DB_PASSWORD", "MY_SECRET_THING", "UNLABELLED",
                                        "CI_JOB_TOKEN", NULL };
    for (size_t i = 0; gone[i]; i++) {
        check_count++;
        if (proc_env_get(&e, gone[i]))
            check_fail(__FILE__, __LINE__, "%s reached the command", gone[i]);
    }
    CHECK_STR(proc_env_get(&e, "AWS_REGION"), "eu-west-1");
    CHECK_STR(proc_env_get(&e, "AWS_PROFILE"), "dev");
    CHECK_STR(proc_env_get(&e, "TOKENIZERS_PARALLELISM"), "false");
    proc_env_release(&e);

    /* Allowed by name or by glob; the rest stays out. */
    const char *const allow[] = { "FOO_TOKEN", "CI_*", NULL };
    proc_env_for_command(&e, allow);
    CHECK_STR(proc_env_get(&e, "FOO_TOKEN"), "foo-value-4");
    CHECK_STR(proc_env_get(&e, "CI_JOB_TOKEN"), "ci-value-11");
    CHECK(proc_env_get(&e, "GITHUB_TOKEN") == NULL);
    CHECK(proc_env_get(&e, "AWS_SECRET_ACCESS_KEY") == NULL);
    proc_env_release(&e);
    CHECK(proc_env_allowed("CI_X", allow));
    CHECK(!proc_env_allowed("GITHUB_TOKEN", allow));
    CHECK(!proc_env_allowed("X", NULL));

    static const char *const names[] = { "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "FOO_TOKEN",
        "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN",
        "AWS_WEB_IDENTITY_TOKEN_FILE", "DB_PASSWORD", "MY_SECRET_THING", "UNLABELLED",
        "AWS_REGION", "AWS_PROFILE", "TOKENIZERS_PARALLELISM", "CI_JOB_TOKEN", NULL };
    for (size_t i = 0; names[i]; i++)
        unsetenv(names[i]);
}

/* No descriptor of the parent reaches the child; stdin is /dev/null. */
static void test_no_fd_leak(void)
{
    int fd = open("/dev/null", O_RDONLY); /* deliberately without O_CLOEXEC */
    REQUIRE(fd >= 0);
    REQUIRE(dup2(fd, 47) == 47);
    buf out = BUF_INIT(4096);
    proc_status st;
    REQUIRE(sh("cd /proc/$$/fd && echo *; readlink 0", &out, &st, NULL) == HEW_OK);
    REQUIRE(out.data != NULL);
    /* the shell's own fds only: 0 1 2 (and the one `cd` / glob may hold open) */
    CHECK(strstr(out.data, "47") == NULL);
    CHECK(strncmp(out.data, "0 1 2", 5) == 0);
    CHECK(strstr(out.data, "\n/dev/null\n") != NULL);
    close(47);
    close(fd);
    buf_release(&out);
}

/* Own process group; empty signal mask and default dispositions whatever the parent has. */
static void test_group_and_signals(void)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    struct sigaction ign = { .sa_handler = SIG_IGN }, oldpipe;
    sigaction(SIGPIPE, &ign, &oldpipe);

    buf out = BUF_INIT(4096);
    /* Shell builtins only: a forked grep would read the shell's status while the shell
     * blocks signals around its wait for the child, which made this check flaky. */
    const char *argv[] = { "/bin/sh", "-c",
                           "read -r s < /proc/$$/stat; set -- $s; echo \"$5\"; "
                           "while IFS= read -r l; do case \"$l\" in SigBlk*|SigIgn*) "
                           "printf '%s\\n' \"$l\";; esac; done < /proc/$$/status", NULL };
    proc_opts o = { .argv = argv };
    proc_status st;
    REQUIRE(proc_run(&o, &out, NULL, &st, NULL) == HEW_OK);
    REQUIRE(out.data != NULL);
    long pgid = strtol(out.data, NULL, 10);
    CHECK(pgid > 0 && pgid != (long)getpgrp());
    CHECK(strstr(out.data, "SigBlk:\t0000000000000000") != NULL);
    /* SIGPIPE (bit 13) not ignored */
    const char *ig = strstr(out.data, "SigIgn:\t");
    REQUIRE(ig != NULL);
    unsigned long long mask = strtoull(ig + 8, NULL, 16);
    CHECK((mask & (1ULL << (SIGPIPE - 1))) == 0);

    sigaction(SIGPIPE, &oldpipe, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    buf_release(&out);
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

/* Signals interrupting the waits (no SA_RESTART) change nothing. */
static void test_eintr(void)
{
    struct sigaction sa = { .sa_handler = on_alarm }, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    struct itimerval it = { { 0, 5000 }, { 0, 5000 } }, stop = { 0 };
    setitimer(ITIMER_REAL, &it, NULL);
    buf out = BUF_INIT(4096);
    proc_status st;
    REQUIRE(sh("sleep 0.3; echo ok", &out, &st, NULL) == HEW_OK);
    setitimer(ITIMER_REAL, &stop, NULL);
    sigaction(SIGALRM, &old, NULL);
    CHECK(alarms > 5);
    CHECK_INT(st.end, PROC_EXITED);
    CHECK_STR(out.data, "ok\n");
    buf_release(&out);
}

/* After everything above, this process has no child left: nothing unreaped. */
static void test_no_zombies(void)
{
    for (int i = 0; i < 20; i++) {
        proc_status st;
        sh(i % 2 ? "exit 1" : "sleep 100 & true", NULL, &st, NULL);
    }
    errno = 0;
    CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

static void test_pump_steps(void)
{
    const char *argv[] = { "/bin/sh", "-c", "echo one; sleep 0.2; echo two", NULL };
    struct streams s = { BUF_INIT(4096), BUF_INIT(4096) };
    proc_opts o = { .argv = argv, .on_output = collect, .ud = &s };
    proc *p;
    REQUIRE(proc_start(&o, &p, NULL) == HEW_OK);
    long long t0 = ms_now();
    while (!s.out.len && ms_now() - t0 < 2000)
        proc_pump(p, 50);
    CHECK_STR(s.out.data, "one\n");
    proc_status st;
    proc_status_get(p, &st);
    CHECK_INT(st.end, PROC_RUNNING);
    proc_wait(p, &st);
    CHECK_STR(s.out.data, "one\ntwo\n");
    CHECK_INT(st.end, PROC_EXITED);
    CHECK(proc_pump(p, 0));
    proc_free(p);
    buf_release(&s.out);
    buf_release(&s.err);
}

/* What proc_write sends is what the child reads, and closing stdin is its end of file. */
static void test_stdin_written(void)
{
    char *dir = tmpdir_make("proc-stdin");
    REQUIRE(dir != NULL);
    char script[512];
    snprintf(script, sizeof script, "cat > '%s/got'", dir);
    const char *argv[] = { "/bin/sh", "-c", script, NULL };
    proc_opts o = { .argv = argv, .stdin_pipe = true };
    proc *p;
    REQUIRE(proc_start(&o, &p, NULL) == HEW_OK);
    CHECK_INT(proc_write(p, "hello ", 6, NULL), HEW_OK);
    CHECK_INT(proc_write(p, "world\n", 6, NULL), HEW_OK);
    proc_close_stdin(p);
    proc_status st;
    proc_wait(p, &st);
    proc_free(p);
    CHECK_INT(st.end, PROC_EXITED);
    CHECK_INT(st.exit_code, 0);
    char path[512], got[64] = "";
    snprintf(path, sizeof path, "%s/got", dir);
    FILE *f = fopen(path, "r");
    REQUIRE(f != NULL);
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    CHECK_STR(got, "hello world\n");
    tmpdir_remove(dir);
    free(dir);
}

/* A thread that neither blocks nor ignores SIGPIPE, as an embedder's may be: the kernel
 * sends a pipe's SIGPIPE to the whole process, so such a thread would take it. */
static void *bystander(void *arg)
{
    (void)arg;
    usleep(600 * 1000);
    return NULL;
}

/* A child that stops reading in the middle of a long write, then one that closed its
 * stdin: proc_write fails with a message, and no thread of the process dies of SIGPIPE
 * (its disposition is the default here: death). A pipe's write that the reader leaves
 * half done returns the part written AND raises SIGPIPE. */
static void test_stdin_closed_no_sigpipe(void)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGPIPE, &dfl, &old);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, bystander, NULL) == 0);
    static char chunk[4 << 20];
    memset(chunk, 'x', sizeof chunk);
    const char *scripts[] = { "exec head -c 1000 >/dev/null", "exec 0<&-; sleep 1" };
    for (size_t k = 0; k < 2; k++) {
        const char *argv[] = { "/bin/sh", "-c", scripts[k], NULL };
        proc_opts o = { .argv = argv, .stdin_pipe = true };
        proc *p;
        REQUIRE(proc_start(&o, &p, NULL) == HEW_OK);
        hew_code rc = HEW_OK;
        hew_err e = HEW_ERR_INIT;
        /* the child stops reading soon after it starts; write until that shows */
        for (int i = 0; i < 200 && rc == HEW_OK; i++) {
            rc = proc_write(p, chunk, sizeof chunk, &e);
            if (rc == HEW_OK)
                usleep(10 * 1000);
        }
        CHECK_INT(rc, HEW_E_IO);
        CHECK(strstr(e.msg, "closed its input") != NULL);
        proc_kill(p);
        proc_status st;
        proc_wait(p, &st);
        proc_free(p);
    }
    pthread_join(th, NULL);
    sigaction(SIGPIPE, &old, NULL);
}

int main(void)
{
    RUN(test_exit_codes);
    RUN(test_signal_reported);
    RUN(test_stderr_merged_and_separate);
    RUN(test_stderr_separate);
    RUN(test_start_errors);
    RUN(test_cwd);
    RUN(test_timeout_kills_grandchildren);
    RUN(test_timeout_then_sigkill);
    RUN(test_leftovers_killed);
    RUN(test_abort_stops_the_group);
    RUN(test_abort_already_set);
    RUN(test_kill_from_other_thread);
    RUN(test_free_running);
    RUN(test_output_cap);
    RUN(test_large_output);
    RUN(test_env_scrubbed);
    RUN(test_env_default_drops_and_allow);
    RUN(test_no_fd_leak);
    RUN(test_group_and_signals);
    RUN(test_eintr);
    RUN(test_pump_steps);
    RUN(test_no_zombies);
    RUN(test_stdin_written);
    RUN(test_stdin_closed_no_sigpipe);
    return check_report();
}
