/* Unit tests of sandbox_explain: for each rule the sandbox enforces, the output a refused
 * command prints (sh, bash, coreutils, Python, curl, unshare, strace, mount, bwrap) gives
 * the sentence naming that rule and the path; a success, unrelated output, a missing
 * ordinary file and network errors with the network on give nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "sys/sandbox.h"
#include "tmpdir.h"

static char *ws;
static char hidden[1024], git[1024];

static sandbox *make(sandbox_mode mode, bool network)
{
    const char *writable[] = { ws, NULL };
    const char *ro[] = { git, NULL };
    const char *hid[] = { hidden, NULL };
    sandbox_policy pol = { .mode = mode, .writable_roots = writable, .readonly_paths = ro,
                           .hidden_paths = hid, .network = network };
    sandbox *sb = NULL;
    hew_err e = { 0 };
    if (sandbox_prepare(&pol, &sb, &e) != HEW_OK)
        check_fail(__FILE__, __LINE__, "prepare: %s", e.msg);
    return sb;
}

/* explain(out) gives a sentence holding every one of want (NULL-terminated). */
static void says(const sandbox *sb, const char *out, const char *const *want, int line)
{
    buf why = BUF_INIT(4096);
    check_count++;
    if (!sandbox_explain(sb, out, strlen(out), 1, &why)) {
        check_fail(__FILE__, line, "not explained: %s", out);
    } else {
        for (size_t i = 0; want[i]; i++)
            if (!strstr(why.data, want[i]))
                check_fail(__FILE__, line, "\"%s\" lacks \"%s\" (for: %s)", why.data, want[i],
                           out);
    }
    buf_release(&why);
}
#define SAYS(sb, out, ...) says(sb, out, (const char *const[]){ __VA_ARGS__, NULL }, __LINE__)

static void silent(const sandbox *sb, const char *out, int code)
{
    buf why = BUF_INIT(4096);
    check_count++;
    if (sandbox_explain(sb, out, strlen(out), code, &why))
        check_fail(__FILE__, __LINE__, "explained \"%s\" as: %s", out, why.data);
    buf_release(&why);
}

static void test_workspace_write(void)
{
    sandbox *sb = make(SANDBOX_WORKSPACE_WRITE, false);
    if (!sb)
        return;
    char out[4096];
    /* outside the writable roots */
    SAYS(sb, "touch: cannot touch '/etc/x': Permission denied\n", "writing /etc/x was refused",
         "outside the writable roots", ws);
    SAYS(sb, "/bin/sh: 1: cannot create /usr/local/bin/evil: Permission denied\n",
         "/usr/local/bin/evil", "outside the writable roots");
    SAYS(sb, "mkdir: cannot create directory \xe2\x80\x98/opt/x\xe2\x80\x99: Permission denied",
         "writing /opt/x was refused", "outside");
    SAYS(sb,
         "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
         "PermissionError: [Errno 13] Permission denied: '/root/.bashrc'\n",
         "writing /root/.bashrc", "outside the writable roots");
    /* a read-only control path */
    SAYS(sb, "/bin/sh: 1: cannot create .git/hooks/pre-commit: Read-only file system\n",
         ".git/hooks/pre-commit", "read-only paths", git);
    snprintf(out, sizeof out, "bash: %s/config: Read-only file system\n", git);
    SAYS(sb, out, "read-only paths");
    SAYS(sb, "mv: cannot move '.git' to 'x': Device or resource busy\n", ".git",
         "read-only paths");
    /* a hidden path */
    snprintf(out, sizeof out, "cat: %s/config.json: Permission denied\n", hidden);
    SAYS(sb, out, "reading", "hidden", "hew's data and config");
    snprintf(out, sizeof out, "cat: %s/config.json: No such file or directory\n", hidden);
    SAYS(sb, out, "hidden"); /* bwrap covers it with an empty tmpfs */
    SAYS(sb, "cat: /proc/4242/environ: Permission denied\n", "other processes");
    /* system calls */
    SAYS(sb, "unshare: unshare failed: Operation not permitted\n", "refuses unshare");
    SAYS(sb, "strace: test_ptrace_get_syscall_info: PTRACE_TRACEME: Operation not permitted\n",
         "refuses ptrace");
    SAYS(sb, "mount: /tmp/m: permission denied.\n       dmesg(1) may have more information",
         "refuses mount");
    /* the network */
    SAYS(sb, "curl: (6) Could not resolve host: example.com\n", "the network is off");
    SAYS(sb, "bash: connect: Network is unreachable\n", "the network is off");
    SAYS(sb, "socket: Operation not permitted\n", "network");
    SAYS(sb, "bash: socket: Operation not permitted\n", "refuses socket", "network is off");
    SAYS(sb, "PermissionError: [Errno 1] Operation not permitted\n", "refused an operation",
         "ptrace", "the network is off"); /* Python's socket(): no path, no call named */
    /* bwrap */
    SAYS(sb, "bwrap: Can't mkdir /x: Read-only file system\n", "could not be set up", "bwrap");
    /* a ')' standing alone before the path (this used to loop forever) */
    SAYS(sb, "make ) Permission denied: '/etc/y'\n", "/etc/y", "outside");
    /* nothing of the sandbox's */
    silent(sb, "touch: cannot touch '/etc/x': Permission denied\n", 0); /* it succeeded */
    silent(sb, "make: *** [Makefile:3: all] Error 1\n", 2);
    silent(sb, "cat: nothere.txt: No such file or directory\n", 1);
    silent(sb, "", 1);
    sandbox_free(sb);
}

static void test_network_on(void)
{
    sandbox *sb = make(SANDBOX_WORKSPACE_WRITE, true);
    if (!sb)
        return;
    silent(sb, "curl: (6) Could not resolve host: example.invalid\n", 6);
    sandbox_free(sb);
}

static void test_read_only(void)
{
    sandbox *sb = make(SANDBOX_READ_ONLY, false);
    if (!sb)
        return;
    char out[4096];
    snprintf(out, sizeof out, "touch: cannot touch '%s/new': Permission denied\n", ws);
    SAYS(sb, out, "the sandbox is read-only");
    SAYS(sb, "touch: cannot touch 'new': Permission denied\n", "read-only");
    sandbox_free(sb);
}

/* Output is the command's: any bytes, any length. Nothing crashes or reads past it (ASan),
 * and a sentence stays short. */
static void test_any_bytes(void)
{
    sandbox *sb = make(SANDBOX_WORKSPACE_WRITE, false);
    if (!sb)
        return;
    static const char *const pieces[] = { "Permission denied", ": '", "/etc/", "\xe2\x80\x98",
                                          "\n", "'", "\"", "unshare:", " ", "bwrap: ",
                                          "No such file or directory", "\xe2\x80", "/" };
    unsigned long long seed = 0x9E3779B97F4A7C15ULL;
    char *big = malloc(1 << 20);
    REQUIRE(big != NULL);
    for (int round = 0; round < 3000; round++) {
        size_t len = 0, want = (size_t)(seed % 600);
        while (len < want) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            if (seed >> 62) {
                const char *p = pieces[(seed >> 33) % (sizeof pieces / sizeof *pieces)];
                size_t n = strlen(p);
                if (len + n > want)
                    break;
                memcpy(big + len, p, n);
                len += n;
            } else {
                big[len++] = (char)(seed >> 40);
            }
        }
        char *exact = malloc(len ? len : 1); /* no NUL after it: ASan sees any overread */
        REQUIRE(exact != NULL);
        memcpy(exact, big, len);
        buf why = BUF_INIT(1 << 16);
        sandbox_explain(sb, exact, len, 1, &why);
        CHECK(why.len < 2048);
        buf_release(&why);
        free(exact);
    }
    memset(big, 'a', 1 << 20); /* longer than the scan: only its tail is looked at */
    memcpy(big + (1 << 20) - 40, "\ntouch: '/etc/x': Permission denied\n", 36);
    buf why = BUF_INIT(4096);
    CHECK(sandbox_explain(sb, big, 1 << 20, 1, &why));
    buf_release(&why);
    free(big);
    sandbox_free(sb);
}

int main(void)
{
    sandbox_caps caps;
    sandbox_probe(&caps);
    if (caps.landlock_abi == 0 && !caps.bwrap[0]) {
        printf("SKIP: no sandbox backend on this machine\n");
        return 77;
    }
    ws = tmpdir_make("sbexpl");
    if (!ws)
        return 1;
    snprintf(git, sizeof git, "%s/.git", ws);
    mkdir(git, 0755);
    snprintf(hidden, sizeof hidden, "%s/hew-config", ws);
    mkdir(hidden, 0755);
    RUN(test_workspace_write);
    RUN(test_network_on);
    RUN(test_read_only);
    RUN(test_any_bytes);
    tmpdir_remove(ws);
    free(ws);
    return check_report();
}
