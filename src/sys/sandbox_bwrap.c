/* sandbox_bwrap — the bubblewrap backend: the argv prefix that wraps a command in bwrap
 * with the same view of the file system as the landlock backend gives, built once in
 * sandbox_prepare. sys/proc adds `--chdir DIR`, `--` and the command's argv, and hands
 * the seccomp program over on descriptor 3 (SANDBOX_BWRAP_SECCOMP_FD).
 *
 * The view: / read-only, each writable root bound writable, each read-only path bound
 * read-only over itself, each hidden path covered (a directory by an empty read-only
 * tmpfs, a file by /dev/null), a fresh /dev and /proc, new user and pid namespaces, a new
 * network namespace when the network is off, a new session (no terminal to type into),
 * and the child dies with bwrap. It must never bind anything writable that the policy
 * does not name, and never pass a path to bwrap as an option (every path follows the
 * option that takes it). */
#include "sys/sandbox_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct argv_build {
    char **v;
    size_t n, cap;
    bool oom;
};

static void push(struct argv_build *a, const char *s)
{
    if (a->oom)
        return;
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        char **v = realloc(a->v, cap * sizeof *v);
        if (!v) {
            a->oom = true;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy) {
        a->oom = true;
        return;
    }
    a->v[a->n++] = copy;
    a->v[a->n] = NULL;
}

static void push3(struct argv_build *a, const char *opt, const char *x, const char *y)
{
    push(a, opt);
    push(a, x);
    if (y)
        push(a, y);
}

hew_code sandbox_bwrap_build(sandbox *sb, const char *bwrap_path, hew_err *err)
{
    if (!bwrap_path || !*bwrap_path)
        return hew_err_set(err, HEW_E_UNSUPPORTED,
                           "sandbox: bubblewrap (bwrap) is not installed or does not work "
                           "here; install it (Debian: apt-get install bubblewrap) or run with "
                           "--sandbox danger-full-access");
    if (!sb->network && sb->proxy_port > 0)
        return hew_err_set(err, HEW_E_UNSUPPORTED,
                           "sandbox: the bwrap backend cannot limit the network to the egress "
                           "proxy's port (a new network namespace has no way out, the host's "
                           "has every port); use the landlock backend (Landlock ABI 4)");
    struct argv_build a = { 0 };
    push(&a, bwrap_path);
    push(&a, "--new-session");
    push(&a, "--die-with-parent");
    push(&a, "--unshare-user");
    push(&a, "--unshare-pid");
    push(&a, "--unshare-ipc");
    if (!sb->network)
        push(&a, "--unshare-net");
    push3(&a, "--ro-bind", "/", "/");
    push3(&a, "--dev", "/dev", NULL);
    push3(&a, "--proc", "/proc", NULL);
    for (size_t i = 0; i < sb->n_writable; i++)
        push3(&a, "--bind-try", sb->writable[i], sb->writable[i]);
    for (size_t i = 0; i < sb->n_readonly; i++)
        push3(&a, "--ro-bind-try", sb->readonly[i], sb->readonly[i]);
    for (size_t i = 0; i < sb->n_hidden; i++) {
        struct stat st;
        if (lstat(sb->hidden[i], &st) != 0)
            continue; /* nothing there to hide */
        if (S_ISDIR(st.st_mode)) {
            push3(&a, "--tmpfs", sb->hidden[i], NULL);
            push3(&a, "--remount-ro", sb->hidden[i], NULL);
        } else {
            push3(&a, "--ro-bind", "/dev/null", sb->hidden[i]);
        }
    }
    if (sb->bpf_len)
        push3(&a, "--seccomp", SANDBOX_BWRAP_SECCOMP_FD_STR, NULL);
    if (a.oom) {
        for (size_t i = 0; i < a.n; i++)
            free(a.v[i]);
        free(a.v);
        return hew_err_set(err, HEW_E_NOMEM, "sandbox: out of memory");
    }
    sb->bwrap_argv = a.v;
    sb->n_bwrap_argv = a.n;
    return HEW_OK;
}
