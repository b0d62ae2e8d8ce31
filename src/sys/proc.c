/* proc — child processes (see proc.h): posix_spawn into a new process group with an
 * explicit environment (a confined command: clone(CLONE_VM | CLONE_VFORK) and the
 * sandbox's steps before exec, see sandbox_int.h), output through non-blocking pipes, a poll loop that also watches
 * a pidfd (exit), a wake pipe (abort token, proc_kill) and the clock (timeout, kill
 * grace). It must never block without waking on the abort token, never leave a zombie,
 * never let a descriptor or a secret into the child, and never signal a group it has not
 * checked still exists. */
#include "sys/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/redact.h"
#include "sys/clock.h"
#include "sys/sandbox_int.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

extern char **environ;

#define PROC_READ_CHUNK 65536
#define PROC_POLL_MAX_MS 50L   /* never sleep longer than this without checking abort */
#define PROC_REAP_POLL_MS 10L  /* without a pidfd: how often waitpid(WNOHANG) runs */
#define PROC_GROUP_POLL_MS 20L /* after the leader's end: how often the group is checked */

struct proc {
    pid_t pid;
    int pidfd;              /* -1 when the kernel has none */
    int out_fd, err_fd;     /* read ends, -1 once at EOF */
    int wake_r, wake_w;     /* self-pipe: abort listener, proc_kill */
    int in_fd;              /* write end of the child's stdin (stdin_pipe), else -1 */
    pthread_mutex_t in_mu;  /* serialises proc_write / proc_close_stdin */
    hew_abort *abort;
    int listen_id;
    proc_output_fn on_output;
    void *ud;
    bool keep_group;
    long long start_ms, deadline_ms, grace_ms;

    atomic_int kill_req;
    proc_end reason;        /* why hew started killing (PROC_RUNNING: it did not) */
    bool term_sent, kill_sent;
    long long term_ms;
    bool reaped, group_gone, finished;
    long long drain_deadline_ms;
    int exit_code, signal;
    long long end_ms;
    unsigned long long bytes;
    long max_rss_kb;        /* the leader's peak resident set, from wait4 */
    char rbuf[PROC_READ_CHUNK];
};

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* ---- secrets and environments ------------------------------------------------------- */

/* AWS_* variables that only choose a region or profile: they pass. */
static const char *const aws_harmless[] = { "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE",
                                            "AWS_DEFAULT_OUTPUT" };

/* name is name[0..n) (not NUL-terminated when it comes from "NAME=value"). */
static bool secret_name(const char *name, size_t n)
{
    if (redact_env_secret(name, n))
        return true;
    if (n < 4 || memcmp(name, "AWS_", 4) != 0)
        return false;
    for (size_t i = 0; i < sizeof aws_harmless / sizeof aws_harmless[0]; i++)
        if (strlen(aws_harmless[i]) == n && memcmp(aws_harmless[i], name, n) == 0)
            return false;
    return true;
}

bool proc_env_is_secret(const char *name, const char *value)
{
    return (name && secret_name(name, strlen(name))) || redact_secret_known(value) ||
           (value && redact_is_key(value));
}

bool proc_env_allowed(const char *name, const char *const *allow)
{
    for (size_t i = 0; allow && allow[i]; i++)
        if (strcmp(allow[i], name) == 0 || fnmatch(allow[i], name, 0) == 0)
            return true;
    return false;
}

static bool env_grow(proc_env *e)
{
    if (e->n + 2 <= e->cap)
        return true;
    size_t cap = e->cap ? e->cap * 2 : 64;
    char **v = realloc(e->vars, cap * sizeof *v);
    if (!v) {
        e->oom = true;
        return false;
    }
    e->vars = v;
    e->cap = cap;
    return true;
}

static long env_find(const proc_env *e, const char *name, size_t n)
{
    for (size_t i = 0; i < e->n; i++)
        if (strncmp(e->vars[i], name, n) == 0 && e->vars[i][n] == '=')
            return (long)i;
    return -1;
}

/* Append an entry (copied) without looking for duplicates. */
static void env_push(proc_env *e, const char *entry)
{
    if (!env_grow(e))
        return;
    char *copy = strdup(entry);
    if (!copy) {
        e->oom = true;
        return;
    }
    e->vars[e->n++] = copy;
    e->vars[e->n] = NULL;
}

void proc_env_from_parent(proc_env *e, const char *const *allow)
{
    for (char **v = environ; v && *v; v++) {
        const char *eq = strchr(*v, '=');
        if (!eq || eq == *v)
            continue;
        size_t n = (size_t)(eq - *v);
        char small[256];
        char *name = n < sizeof small ? small : malloc(n + 1);
        if (!name) {
            e->oom = true;
            continue;
        }
        memcpy(name, *v, n);
        name[n] = '\0';
        bool drop = !proc_env_allowed(name, allow) && proc_env_is_secret(name, eq + 1);
        if (name != small)
            free(name);
        if (drop)
            continue;
        long i = env_find(e, *v, n);
        if (i >= 0) {
            char *copy = strdup(*v);
            if (!copy) {
                e->oom = true;
                continue;
            }
            free(e->vars[i]);
            e->vars[i] = copy;
        } else {
            env_push(e, *v);
        }
    }
}

void proc_env_set(proc_env *e, const char *name, const char *value)
{
    size_t n = strlen(name), vn = strlen(value);
    char *entry = malloc(n + vn + 2);
    if (!entry) {
        e->oom = true;
        return;
    }
    memcpy(entry, name, n);
    entry[n] = '=';
    memcpy(entry + n + 1, value, vn + 1);
    long i = env_find(e, name, n);
    if (i >= 0) {
        free(e->vars[i]);
        e->vars[i] = entry;
        return;
    }
    if (!env_grow(e)) {
        free(entry);
        return;
    }
    e->vars[e->n++] = entry;
    e->vars[e->n] = NULL;
}

void proc_env_unset(proc_env *e, const char *name)
{
    long i = env_find(e, name, strlen(name));
    if (i < 0)
        return;
    free(e->vars[i]);
    memmove(e->vars + i, e->vars + i + 1, (e->n - (size_t)i) * sizeof *e->vars);
    e->n--;
}

const char *proc_env_get(const proc_env *e, const char *name)
{
    size_t n = strlen(name);
    long i = env_find(e, name, n);
    return i >= 0 ? e->vars[i] + n + 1 : NULL;
}

const char *const *proc_env_list(const proc_env *e)
{
    static const char *const empty[] = { NULL };
    return e->vars ? (const char *const *)e->vars : empty;
}

void proc_env_release(proc_env *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->vars[i]);
    free(e->vars);
    *e = (proc_env)PROC_ENV_INIT;
}

void proc_env_for_command(proc_env *e, const char *const *allow)
{
    proc_env_from_parent(e, allow);
    proc_env_set(e, "TERM", "xterm-256color");
    proc_env_set(e, "PAGER", "cat");
    proc_env_set(e, "GIT_PAGER", "cat");
    proc_env_set(e, "MANPAGER", "cat");
    proc_env_set(e, "SYSTEMD_PAGER", "");
    const char *editor = proc_env_get(e, "EDITOR");
    if (!editor || !*editor)
        proc_env_set(e, "EDITOR", "cat");
}

/* ---- starting ---------------------------------------------------------------------- */

static void wake_listener(void *ud)
{
    proc *p = ud;
    ssize_t r = write(p->wake_w, "a", 1);
    (void)r; /* a full pipe already wakes the poll */
}

static int open_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    return 0;
}

/* The child's stdin: [0] the child's end (read only), [1] hew's (write only). */
static int open_stdin(int fds[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return -1;
    shutdown(fds[0], SHUT_WR);
    shutdown(fds[1], SHUT_RD);
    return 0;
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* ---- confined children (clone, then only async-signal-safe calls) ------------------- */

/* The stack of a confined child: it shares hew's memory (CLONE_VM) and runs on this until
 * exec. Room for the steps before exec (signal resets, setns, Landlock, seccomp) many times
 * over. */
#define CHILD_STACK ((size_t)64 << 10)

/* What a confined child reports when a step fails (one write: atomic on a pipe). */
struct child_report {
    int step;  /* a sandbox_step, or CHILD_STEP_EXEC */
    int err;   /* errno */
    int index; /* the path a step was about, -1 */
};

enum { CHILD_STEP_EXEC = -1, CHILD_STEP_FDS = -2 };

/* Everything the child needs, computed before the fork. */
struct child_plan {
    const sandbox *sb;
    const char *path;           /* what to execve */
    char *const *argv;
    char *const *envp;
    const char *cwd;            /* NULL: stay */
    int in_fd;                  /* -1: /dev/null */
    int out_fd, err_fd;
    int seccomp_fd;             /* bwrap: the filter, moved to SANDBOX_BWRAP_SECCOMP_FD; -1 */
    int report_fd;
};

SANDBOX_IN_CHILD static void child_fail(const struct child_plan *c, int step, int e, int index)
{
    struct child_report r = { step, e, index };
    ssize_t w = write(c->report_fd, &r, sizeof r);
    (void)w;
    _exit(127);
}

/* Move fd to target with close-on-exec cleared. */
SANDBOX_IN_CHILD static int child_move_fd(int fd, int target)
{
    if (fd == target)
        return fcntl(fd, F_SETFD, 0);
    return dup2(fd, target) < 0 ? -1 : 0;
}

SANDBOX_IN_CHILD static void __attribute__((noreturn)) child_run(const struct child_plan *c)
{
    setpgid(0, 0);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL); /* glibc's reserved ones fail: harmless */
    int in = c->in_fd;
    if (in < 0 && (in = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        child_fail(c, CHILD_STEP_FDS, errno, -1);
    if (child_move_fd(in, 0) != 0 || child_move_fd(c->out_fd, 1) != 0 ||
        child_move_fd(c->err_fd, 2) != 0)
        child_fail(c, CHILD_STEP_FDS, errno, -1);
    int keep_from = 3;
    if (c->seccomp_fd >= 0) {
        if (child_move_fd(c->seccomp_fd, SANDBOX_BWRAP_SECCOMP_FD) != 0)
            child_fail(c, SANDBOX_STEP_SECCOMP_FD, errno, -1);
        keep_from = SANDBOX_BWRAP_SECCOMP_FD + 1;
    }
    /* everything from keep_from up closes at exec (the report pipe and the ruleset are
     * still needed until then) */
    if (syscall(SYS_close_range, (unsigned)keep_from, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
        for (int fd = keep_from; fd < 65536; fd++)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (c->sb->backend == SANDBOX_BACKEND_LANDLOCK) {
        int step = SANDBOX_STEP_NONE, index = -1;
        int r = sandbox_child_confine(c->sb, c->cwd, &step, &index);
        if (r != 0)
            child_fail(c, step, -r, index);
    } else if (c->cwd && chdir(c->cwd) != 0) {
        child_fail(c, SANDBOX_STEP_CHDIR, errno, -1);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(c->path, c->argv, c->envp);
    child_fail(c, CHILD_STEP_EXEC, errno, -1);
    _exit(127);
}

#if !defined(__SANITIZE_THREAD__)
/* clone's entry: the plan, then exec (or _exit with a report). */
SANDBOX_IN_CHILD static int child_entry(void *plan)
{
    child_run(plan);
}
#endif

/* Start the child that runs c: clone sharing hew's memory and suspending this thread until
 * it has exec'd or exited (what posix_spawn does), so no page of hew is copied or faulted.
 * Signals must be blocked by the caller. Under ThreadSanitizer, fork: its runtime cannot
 * follow a second process through the same thread's state. The pid, or -1 with errno. */
static pid_t child_start(const struct child_plan *c)
{
#if defined(__SANITIZE_THREAD__)
    pid_t pid = fork();
    if (pid == 0)
        child_run(c);
    return pid;
#else
    char *stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    pid_t pid = clone(child_entry, stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD,
                      (void *)c);
    int e = errno;
#if defined(__SANITIZE_ADDRESS__)
    __asan_unpoison_memory_region(stack, CHILD_STACK);
#endif
    munmap(stack, CHILD_STACK);
    errno = e;
    return pid;
#endif
}

/* The argv a bwrap child execs: bwrap's options, --chdir, "--", the command. A new
 * array (the strings borrowed) the caller frees, or NULL. */
static char **bwrap_argv(const sandbox *sb, const proc_opts *o)
{
    size_t n = 0;
    while (o->argv[n])
        n++;
    char **v = calloc(sb->n_bwrap_argv + n + 4, sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < sb->n_bwrap_argv; i++)
        v[k++] = sb->bwrap_argv[i];
    if (o->cwd) {
        v[k++] = (char *)"--chdir";
        v[k++] = (char *)o->cwd;
    }
    v[k++] = (char *)"--";
    for (size_t i = 0; i < n; i++)
        v[k++] = (char *)o->argv[i];
    return v;
}

/* Fork a confined child. 0 and *pid, or an error in err. */
static hew_code spawn_confined(const proc_opts *o, const int outp[2], const int errp[2],
                               const int inp[2], const char *const *envp, pid_t *pid,
                               hew_err *err)
{
    const sandbox *sb = o->sandbox;
    const char *prog = o->argv[0];
    char path[4096];
    /* a bare name is searched in the parent's PATH now; a path (even a relative one,
     * which the child resolves after its chdir) goes to execve as it is */
    bool found;
    if (strchr(prog, '/')) {
        snprintf(path, sizeof path, "%s", prog);
        char from_cwd[4096]; /* bwrap would only fail inside: look before */
        int w = prog[0] != '/' && o->cwd ? snprintf(from_cwd, sizeof from_cwd, "%s/%s", o->cwd, prog)
                                         : snprintf(from_cwd, sizeof from_cwd, "%s", prog);
        found = w > 0 && (size_t)w < sizeof from_cwd && access(from_cwd, X_OK) == 0;
    } else {
        found = sandbox_which(prog, path, sizeof path);
    }
    if (!found)
        return hew_err_set(err, HEW_E_NOTFOUND, "cannot run %s%s%s: %s", prog,
                           o->cwd ? " in " : "", o->cwd ? o->cwd : "", strerror(ENOENT));
    struct child_plan c = { 0 };
    c.sb = sb;
    c.cwd = o->cwd;
    c.envp = (char *const *)envp;
    c.in_fd = o->stdin_pipe ? inp[0] : -1;
    c.out_fd = outp[1];
    c.err_fd = o->separate_stderr ? errp[1] : outp[1];
    c.seccomp_fd = -1;
    char **wrapped = NULL;
    if (sb->backend == SANDBOX_BACKEND_BWRAP) {
        wrapped = bwrap_argv(sb, o);
        if (!wrapped)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory starting %s", prog);
        c.path = sb->bwrap_argv[0];
        c.argv = wrapped;
        if (sb->bpf_len) {
            int fd = sandbox_seccomp_memfd(sb);
            if (fd < 0) {
                free(wrapped);
                return hew_err_set(err, HEW_E_IO, "cannot run %s: no descriptor for the "
                                   "seccomp filter: %s", prog, strerror(-fd));
            }
            c.seccomp_fd = fd;
        }
    } else {
        c.path = path;
        c.argv = (char *const *)o->argv;
    }
    int rep[2];
    if (pipe2(rep, O_CLOEXEC) != 0) {
        int e = errno;
        free(wrapped);
        if (c.seccomp_fd >= 0)
            close(c.seccomp_fd);
        return hew_err_set(err, HEW_E_IO, "cannot run %s: no pipe: %s", prog, strerror(e));
    }
    /* the child moves descriptors onto 0..3: the report pipe must not sit there */
    if (rep[1] <= SANDBOX_BWRAP_SECCOMP_FD) {
        int moved = fcntl(rep[1], F_DUPFD_CLOEXEC, 10);
        if (moved >= 0) {
            close(rep[1]);
            rep[1] = moved;
        }
    }
    c.report_fd = rep[1];

    /* no handler of the parent may run in the child before its dispositions are reset */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t child = child_start(&c);
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(rep[1]);
    if (c.seccomp_fd >= 0)
        close(c.seccomp_fd);
    free(wrapped);
    if (child < 0) {
        close(rep[0]);
        return hew_err_set(err, HEW_E_IO, "cannot run %s: clone: %s", prog,
                           strerror(fork_errno));
    }
    struct child_report r;
    ssize_t n;
    do
        n = read(rep[0], &r, sizeof r);
    while (n < 0 && errno == EINTR);
    close(rep[0]);
    if (n == 0) { /* the exec closed the pipe: it runs */
        *pid = child;
        return HEW_OK;
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof r)
        return hew_err_set(err, HEW_E_IO, "cannot run %s: the child failed to start", prog);
    if (r.step == CHILD_STEP_EXEC)
        return hew_err_set(err, r.err == ENOENT ? HEW_E_NOTFOUND : HEW_E_IO,
                           "cannot run %s%s%s: %s", prog, o->cwd ? " in " : "",
                           o->cwd ? o->cwd : "", strerror(r.err));
    if (r.step == CHILD_STEP_FDS)
        return hew_err_set(err, HEW_E_IO, "cannot run %s: cannot set up its descriptors: %s",
                           prog, strerror(r.err));
    if (r.step == SANDBOX_STEP_CHDIR)
        return hew_err_set(err, r.err == ENOENT ? HEW_E_NOTFOUND : HEW_E_IO,
                           "cannot run %s in %s: %s", prog, o->cwd ? o->cwd : ".",
                           strerror(r.err));
    const char *what = sandbox_step_path(sb, r.step, r.index);
    return hew_err_set(err, HEW_E_UNSUPPORTED,
                       "cannot run %s: the sandbox (%s) could not be set up: %s%s%s: %s; the "
                       "command was not run",
                       prog, sandbox_backend_name(sb->backend), sandbox_step_name(r.step),
                       *what ? " " : "", what, strerror(r.err));
}

/* ---- the sandbox's namespaces, made once ----------------------------------------------- */

/* sandbox_ns_make's helper: the namespaces and mounts, then descriptors of them to the
 * parent (with the report) over fd. A forked child of its own: its memory is a copy, so
 * being dumpable for its id maps exposes nothing of hew's that it does not already hold. */
static void __attribute__((noreturn)) ns_helper(const sandbox *sb, int fd)
{
    struct child_report r = { SANDBOX_STEP_NONE, 0, -1 };
    int fds[2] = { -1, -1 }, n = 0;
    int rc = sandbox_ns_enter(sb, &r.step, &r.index);
    if (rc == 0) {
        r.step = SANDBOX_STEP_JOIN;
        fds[n] = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
        rc = fds[n++] < 0 ? -errno : 0;
        if (rc == 0 && sb->userns) {
            fds[n] = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
            rc = fds[n++] < 0 ? -errno : 0;
        }
        if (rc == 0)
            r.step = SANDBOX_STEP_NONE;
    }
    r.err = -rc;
    struct iovec iov = { &r, sizeof r };
    union {
        char buf[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } ctl;
    struct msghdr m = { 0 };
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (rc == 0) {
        memset(&ctl, 0, sizeof ctl);
        m.msg_control = ctl.buf;
        m.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)n * sizeof(int));
    }
    ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
    _exit(w == (ssize_t)sizeof r ? 0 : 127);
}

hew_code sandbox_ns_make(sandbox *sb, hew_err *err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return hew_err_set(err, HEW_E_IO, "sandbox: no socket for its namespaces: %s",
                           strerror(errno));
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        ns_helper(sb, sv[1]);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return hew_err_set(err, HEW_E_IO, "sandbox: cannot make its namespaces: fork: %s",
                           strerror(fork_errno));
    }
    struct child_report r;
    int fds[2] = { -1, -1 };
    union {
        char buf[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { &r, sizeof r };
    struct msghdr m = { 0 };
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.buf;
    m.msg_controllen = sizeof ctl.buf;
    ssize_t n;
    do
        n = recvmsg(sv[0], &m, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    close(sv[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    size_t nfds = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); n > 0 && cm; cm = CMSG_NXTHDR(&m, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            if (nfds > 2)
                nfds = 2;
            memcpy(fds, CMSG_DATA(cm), nfds * sizeof(int));
        }
    size_t want = sb->userns ? 2 : 1;
    if (n == (ssize_t)sizeof r && r.step == SANDBOX_STEP_NONE && nfds == want &&
        !(m.msg_flags & MSG_CTRUNC)) {
        sb->mntns_fd = fds[0];
        sb->userns_fd = sb->userns ? fds[1] : -1;
        return HEW_OK;
    }
    for (size_t i = 0; i < nfds; i++)
        close(fds[i]);
    if (n != (ssize_t)sizeof r || r.step == SANDBOX_STEP_NONE)
        return hew_err_set(err, HEW_E_UNSUPPORTED, "sandbox (%s): the helper that makes its "
                           "namespaces failed; no command will run in it",
                           sandbox_backend_name(sb->backend));
    const char *what = sandbox_step_path(sb, r.step, r.index);
    return hew_err_set(err, HEW_E_UNSUPPORTED,
                       "sandbox (%s) could not be set up: %s%s%s: %s; no command will run "
                       "in it",
                       sandbox_backend_name(sb->backend), sandbox_step_name(r.step),
                       *what ? " " : "", what, strerror(r.err));
}

hew_code proc_start(const proc_opts *o, proc **out, hew_err *err)
{
    *out = NULL;
    if (!o || !o->argv || !o->argv[0] || !*o->argv[0])
        return hew_err_set(err, HEW_E_INVALID, "no program to run");
    const char *prog = o->argv[0];
    if (o->cwd) {
        struct stat st;
        if (stat(o->cwd, &st) != 0)
            return hew_err_set(err, errno == ENOENT ? HEW_E_NOTFOUND : HEW_E_IO,
                               "cannot run %s in %s: %s", prog, o->cwd, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            return hew_err_set(err, HEW_E_INVALID, "cannot run %s in %s: not a directory", prog,
                               o->cwd);
    }
    proc *p = calloc(1, sizeof *p);
    if (!p)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory starting %s", prog);
    p->pid = -1;
    p->pidfd = p->out_fd = p->err_fd = p->wake_r = p->wake_w = p->in_fd = -1;
    p->exit_code = -1;
    atomic_init(&p->kill_req, 0);
    pthread_mutex_init(&p->in_mu, NULL);

    int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, wakep[2] = { -1, -1 }, inp[2] = { -1, -1 };
    hew_code rc = HEW_OK;
    if (open_pipe(outp) != 0 || (o->separate_stderr && open_pipe(errp) != 0) ||
        (o->stdin_pipe && open_stdin(inp) != 0) ||
        pipe2(wakep, O_CLOEXEC | O_NONBLOCK) != 0) {
        rc = hew_err_set(err, HEW_E_IO, "cannot run %s: no pipe: %s", prog, strerror(errno));
        goto fail;
    }

    if (o->sandbox) {
        proc_env own = PROC_ENV_INIT;
        const char *const *envp = o->envp;
        if (!envp) {
            proc_env_from_parent(&own, NULL);
            envp = proc_env_list(&own);
        }
        pid_t pid = -1;
        rc = spawn_confined(o, outp, errp, inp, envp, &pid, err);
        proc_env_release(&own);
        if (rc != HEW_OK)
            goto fail;
        p->pid = pid;
        goto started;
    }

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    if (o->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
    if (o->stdin_pipe)
        posix_spawn_file_actions_adddup2(&fa, inp[0], 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, o->separate_stderr ? errp[1] : outp[1], 2);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);

    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);

    proc_env own = PROC_ENV_INIT;
    const char *const *envp = o->envp;
    if (!envp) {
        proc_env_from_parent(&own, NULL);
        envp = proc_env_list(&own);
    }
    pid_t pid;
    int sr = posix_spawnp(&pid, prog, &fa, &attr, (char *const *)o->argv, (char *const *)envp);
    proc_env_release(&own);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (sr != 0) {
        rc = hew_err_set(err, sr == ENOENT ? HEW_E_NOTFOUND : HEW_E_IO, "cannot run %s%s%s: %s",
                         prog, o->cwd ? " in " : "", o->cwd ? o->cwd : "", strerror(sr));
        goto fail;
    }

    p->pid = pid;
started:
    p->start_ms = clock_now_ms();
    close_fd(&outp[1]);
    close_fd(&errp[1]);
    close_fd(&inp[0]);
    p->in_fd = inp[1];
    p->out_fd = outp[0];
    p->err_fd = errp[0];
    set_nonblock(p->out_fd);
    if (p->err_fd >= 0)
        set_nonblock(p->err_fd);
    p->wake_r = wakep[0];
    p->wake_w = wakep[1];
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
    if (p->pidfd >= 0)
        fcntl(p->pidfd, F_SETFD, FD_CLOEXEC);
#endif
    p->on_output = o->on_output;
    p->ud = o->ud;
    p->keep_group = o->keep_group;
    p->grace_ms = o->kill_grace_ms > 0 ? o->kill_grace_ms : PROC_KILL_GRACE_MS;
    p->deadline_ms = o->timeout_ms > 0 ? p->start_ms + o->timeout_ms : 0;
    p->abort = o->abort;
    if (p->abort)
        p->listen_id = abort_listen(p->abort, wake_listener, p);
    *out = p;
    return HEW_OK;

fail:
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    close_fd(&wakep[0]);
    close_fd(&wakep[1]);
    close_fd(&inp[0]);
    close_fd(&inp[1]);
    pthread_mutex_destroy(&p->in_mu);
    free(p);
    return rc;
}

/* ---- the child's stdin ------------------------------------------------------------------ */

/* The child's stdin is one end of a socket pair, not a pipe, so that hew writes it with
 * send(MSG_NOSIGNAL): a child that exits without reading gives EPIPE, never a SIGPIPE. A
 * library must not change the process's signal dispositions, and blocking SIGPIPE around a
 * write() does not help: the kernel sends a pipe's SIGPIPE to the whole process, so another
 * thread that does not block it (an embedder's, or the next write's own after its mask
 * is restored) dies of it. */
static ssize_t write_nosigpipe(int fd, const char *data, size_t n)
{
    ssize_t w;
    do
        w = send(fd, data, n, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    return w;
}

hew_code proc_write(proc *p, const char *data, size_t n, hew_err *err)
{
    hew_code rc = HEW_OK;
    pthread_mutex_lock(&p->in_mu);
    if (p->in_fd < 0) {
        rc = hew_err_set(err, HEW_E_IO, "the program's input is closed");
    } else {
        while (n > 0) {
            ssize_t w = write_nosigpipe(p->in_fd, data, n);
            if (w < 0) {
                rc = hew_err_set(err, HEW_E_IO, "cannot write to the program: %s",
                                 errno == EPIPE ? "it closed its input" : strerror(errno));
                break;
            }
            data += w;
            n -= (size_t)w;
        }
    }
    pthread_mutex_unlock(&p->in_mu);
    return rc;
}

void proc_close_stdin(proc *p)
{
    pthread_mutex_lock(&p->in_mu);
    close_fd(&p->in_fd);
    pthread_mutex_unlock(&p->in_mu);
}

/* ---- running ----------------------------------------------------------------------- */

/* Signal the group; false once it no longer exists. Only ever called while the leader is
 * unreaped (its pid cannot be reused) or after kill(-pid, 0) found the group alive. */
static bool signal_group(proc *p, int sig)
{
    if (p->group_gone)
        return false;
    if (kill(-p->pid, sig) != 0 && errno == ESRCH) {
        p->group_gone = true;
        return false;
    }
    return true;
}

/* Whether a group still has a live member. kill(-pgid, 0) also counts zombies, and an
 * orphan's zombie lingers as long as init leaves it (some containers' init never reaps),
 * so a "yes" is checked against /proc: a member that is not a zombie. */
static bool group_alive(pid_t pgid)
{
    if (kill(-pgid, 0) != 0 && errno == ESRCH)
        return false;
    DIR *d = opendir("/proc");
    if (!d)
        return true;
    bool live = false;
    struct dirent *de;
    while (!live && (de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        char path[300], line[512];
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, line, sizeof line - 1);
        close(fd);
        if (n <= 0)
            continue;
        line[n] = '\0';
        const char *rp = strrchr(line, ')');
        char state;
        long ppid, pgrp;
        if (rp && sscanf(rp + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 && pgrp == (long)pgid &&
            state != 'Z' && state != 'X')
            live = true;
    }
    closedir(d);
    return live;
}

static void start_kill(proc *p, proc_end why, long long now)
{
    if (p->term_sent)
        return;
    if (!p->reaped && p->reason == PROC_RUNNING)
        p->reason = why;
    p->term_sent = true;
    p->term_ms = now;
    signal_group(p, SIGTERM);
    signal_group(p, SIGCONT); /* a stopped member would never see the TERM */
}

static void record_exit(proc *p, int status, const struct rusage *ru, long long now)
{
    p->reaped = true;
    p->max_rss_kb = ru ? ru->ru_maxrss : 0; /* Linux: kilobytes */
    p->end_ms = now;
    if (WIFEXITED(status)) {
        p->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        p->signal = WTERMSIG(status);
    }
    close_fd(&p->pidfd);
}

static void try_reap(proc *p, long long now)
{
    if (p->reaped)
        return;
    int status;
    struct rusage ru;
    pid_t r;
    do
        r = wait4(p->pid, &status, WNOHANG, &ru);
    while (r < 0 && errno == EINTR);
    if (r == p->pid)
        record_exit(p, status, &ru, now);
    else if (r < 0 && errno == ECHILD) { /* somebody else reaped it (SIGCHLD ignored) */
        record_exit(p, 0, NULL, now);
        p->exit_code = -1;
    }
}

/* Read what a pipe has; returns true when something came. */
static bool read_pipe(proc *p, int *fd, int stream)
{
    bool got = false;
    for (int rounds = 0; rounds < 16 && *fd >= 0; rounds++) {
        ssize_t n = read(*fd, p->rbuf, sizeof p->rbuf);
        if (n > 0) {
            got = true;
            p->bytes += (unsigned long long)n;
            if (p->on_output)
                p->on_output(p->ud, stream, p->rbuf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        close_fd(fd); /* EOF, or an error that will not go away */
    }
    return got;
}

static void drain_wake(proc *p)
{
    char tmp[64];
    while (read(p->wake_r, tmp, sizeof tmp) > 0)
        ;
}

/* One round of bookkeeping: requests, clock, exit, group. */
static void step(proc *p, long long now)
{
    if (!p->term_sent) {
        if (p->abort && abort_is_set(p->abort))
            start_kill(p, PROC_ABORTED, now);
        else if (atomic_load(&p->kill_req))
            start_kill(p, PROC_KILLED, now);
        else if (!p->reaped && p->deadline_ms && now >= p->deadline_ms)
            start_kill(p, PROC_TIMED_OUT, now);
    }
    try_reap(p, now);
    if (p->reaped && !p->group_gone) {
        if (!group_alive(p->pid))
            p->group_gone = true;
        else if (!p->keep_group && !p->term_sent)
            start_kill(p, PROC_RUNNING, now); /* leftovers of a leader that ended */
    }
    if (p->term_sent && !p->kill_sent && now >= p->term_ms + p->grace_ms) {
        p->kill_sent = true;
        signal_group(p, SIGKILL);
    }
    if (p->reaped && (p->group_gone || p->keep_group || p->kill_sent) && !p->drain_deadline_ms)
        p->drain_deadline_ms = now + PROC_DRAIN_MS;
    bool pipes_closed = p->out_fd < 0 && p->err_fd < 0;
    if (p->reaped && (p->group_gone || p->keep_group || p->kill_sent) &&
        (pipes_closed || now >= p->drain_deadline_ms)) {
        p->finished = true;
        close_fd(&p->out_fd);
        close_fd(&p->err_fd);
    }
}

static long min_wait(long w, long long until, long long now)
{
    if (until <= 0)
        return w;
    long long d = until - now;
    if (d < 0)
        d = 0;
    return d < w ? (long)d : w;
}

bool proc_pump(proc *p, long wait_ms)
{
    long long start = clock_now_ms();
    for (;;) {
        long long now = clock_now_ms();
        step(p, now);
        if (p->finished)
            return true;
        long left = wait_ms - (long)(now - start);
        if (left < 0)
            left = 0;
        long w = left < PROC_POLL_MAX_MS ? left : PROC_POLL_MAX_MS;
        if (!p->reaped && p->pidfd < 0 && w > PROC_REAP_POLL_MS)
            w = PROC_REAP_POLL_MS;
        if (p->reaped && w > PROC_GROUP_POLL_MS)
            w = PROC_GROUP_POLL_MS;
        if (!p->term_sent)
            w = min_wait(w, p->deadline_ms, now);
        else if (!p->kill_sent)
            w = min_wait(w, p->term_ms + p->grace_ms, now);
        if (p->drain_deadline_ms)
            w = min_wait(w, p->drain_deadline_ms, now);

        struct pollfd fds[4];
        int nfds = 0, i_out = -1, i_err = -1, i_wake = -1, i_pid = -1;
        if (p->out_fd >= 0) {
            i_out = nfds;
            fds[nfds++] = (struct pollfd){ p->out_fd, POLLIN, 0 };
        }
        if (p->err_fd >= 0) {
            i_err = nfds;
            fds[nfds++] = (struct pollfd){ p->err_fd, POLLIN, 0 };
        }
        i_wake = nfds;
        fds[nfds++] = (struct pollfd){ p->wake_r, POLLIN, 0 };
        if (p->pidfd >= 0 && !p->reaped) {
            i_pid = nfds;
            fds[nfds++] = (struct pollfd){ p->pidfd, POLLIN, 0 };
        }
        int r = poll(fds, (nfds_t)nfds, (int)w);
        if (r < 0 && errno != EINTR)
            r = 0;
        bool news = false;
        if (r > 0) {
            if (i_out >= 0 && fds[i_out].revents)
                news |= read_pipe(p, &p->out_fd, PROC_STDOUT) || p->out_fd < 0;
            if (i_err >= 0 && fds[i_err].revents)
                news |= read_pipe(p, &p->err_fd, PROC_STDERR) || p->err_fd < 0;
            if (fds[i_wake].revents) {
                drain_wake(p);
                news = true;
            }
            if (i_pid >= 0 && fds[i_pid].revents)
                news = true;
        }
        if (news) {
            step(p, clock_now_ms());
            return p->finished;
        }
        if (clock_now_ms() - start >= wait_ms)
            return p->finished;
    }
}

void proc_wait(proc *p, proc_status *st)
{
    while (!proc_pump(p, 1000))
        ;
    if (st)
        proc_status_get(p, st);
}

void proc_status_get(const proc *p, proc_status *st)
{
    memset(st, 0, sizeof *st);
    st->exit_code = p->reaped ? p->exit_code : -1;
    st->signal = p->reaped ? p->signal : 0;
    st->output_bytes = p->bytes;
    st->max_rss_kb = p->reaped ? p->max_rss_kb : 0;
    st->elapsed_ms = (p->reaped ? p->end_ms : clock_now_ms()) - p->start_ms;
    if (!p->reaped)
        st->end = PROC_RUNNING;
    else if (p->reason != PROC_RUNNING)
        st->end = p->reason;
    else if (p->signal)
        st->end = PROC_SIGNALED;
    else
        st->end = PROC_EXITED;
}

void proc_kill(proc *p)
{
    if (!p)
        return;
    atomic_store(&p->kill_req, 1);
    ssize_t r = write(p->wake_w, "k", 1);
    (void)r;
}

void proc_set_output(proc *p, proc_output_fn on_output, void *ud)
{
    p->on_output = on_output;
    p->ud = ud;
}

pid_t proc_pid(const proc *p)
{
    return p->pid;
}

void proc_free(proc *p)
{
    if (!p)
        return;
    if (!p->finished) {
        atomic_store(&p->kill_req, 1);
        while (!proc_pump(p, 100))
            ;
    }
    if (p->abort && p->listen_id > 0)
        abort_unlisten(p->abort, p->listen_id);
    close_fd(&p->out_fd);
    close_fd(&p->err_fd);
    close_fd(&p->pidfd);
    close_fd(&p->wake_r);
    close_fd(&p->wake_w);
    close_fd(&p->in_fd);
    pthread_mutex_destroy(&p->in_mu);
    free(p);
}

/* ---- proc_run ------------------------------------------------------------------------ */

struct run_capture {
    buf *out;
    bool truncated;
    bool separate;
    proc_output_fn user;
    void *ud;
};

static void capture_output(void *ud, int stream, const char *data, size_t len)
{
    struct run_capture *c = ud;
    if (c->user)
        c->user(c->ud, stream, data, len);
    if (!c->out || (c->separate && stream != PROC_STDOUT))
        return;
    size_t max = c->out->max ? c->out->max : BUF_DEFAULT_MAX;
    size_t room = c->out->len < max ? max - c->out->len : 0;
    if (len > room) {
        c->truncated = true;
        len = room;
    }
    if (len)
        buf_append(c->out, data, len);
}

hew_code proc_run(const proc_opts *o, buf *output, bool *output_truncated, proc_status *st,
                  hew_err *err)
{
    struct run_capture c = { output, false, o->separate_stderr, o->on_output, o->ud };
    proc_opts mine = *o;
    mine.on_output = capture_output;
    mine.ud = &c;
    proc *p;
    hew_code rc = proc_start(&mine, &p, err);
    if (rc != HEW_OK)
        return rc;
    proc_wait(p, st);
    proc_free(p);
    if (output_truncated)
        *output_truncated = c.truncated;
    return HEW_OK;
}

const char *proc_signal_name(int sig, char *tmp, size_t tmplen)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(tmp, tmplen, "SIG%s", abbrev);
    else
        snprintf(tmp, tmplen, "signal %d", sig);
    return tmp;
}
