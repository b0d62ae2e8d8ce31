/* proc — the one way hew starts a child process (execute_command, and later git for
 * checkpoints, MCP stdio servers, ctags, …). Nothing else in hew may call fork, exec,
 * system or popen, and nothing glues a command line together: a child is an argv.
 *
 * What a child gets:
 *   - argv[0] run with posix_spawnp (searched in the PARENT's PATH when it has no '/');
 *   - cwd: the given directory (an error if it cannot be entered);
 *   - env: exactly the list given, or by default the parent's environment without
 *     hew's secrets (proc_env_from_parent); never the raw environ;
 *   - stdin /dev/null (or, with stdin_pipe, a socket hew writes to: a child that closed
 *     it gives EPIPE, never SIGPIPE); stdout and stderr into pipes (one merged pipe by
 *     default, so the order of the two streams is kept); no other descriptor
 *     (everything from 3 up is closed in the child);
 *   - its own process group (pgid = its pid), an empty signal mask and default signal
 *     dispositions (a parent that blocks or ignores SIGINT/SIGPIPE does not pass that on).
 *
 * How it ends: the leader exits or is killed by a signal; or the timeout passes, the
 * abort token fires, or proc_kill() is called — then the WHOLE group gets SIGTERM and,
 * kill_grace_ms later, SIGKILL. When the leader exits on its own, whatever it left running
 * in its group (`sleep 100 &`) gets the same treatment unless keep_group is set: no
 * process hew starts outlives it. The leader is always reaped (no zombie). Output left in
 * the pipes is read until EOF, or until a short drain deadline when something outside the
 * group still holds them.
 *
 * Threads: a proc belongs to one thread at a time (the one calling proc_pump/proc_wait;
 * ownership may move, e.g. to a background thread). proc_kill() alone may be called from
 * any thread. Every wait wakes on the abort token at once (a listener) and never sleeps
 * more than 50 ms without checking it. Signals interrupting a wait are retried (EINTR).
 *
 * Confined children (proc_opts.sandbox, sys/sandbox.h): the child is forked and, between
 * fork and exec, does only async-signal-safe system calls — the steps above, then the
 * sandbox's namespace and mounts, chdir, no_new_privs, Landlock and seccomp (landlock
 * backend), or it execs bwrap with the sandbox's options and the seccomp program on
 * descriptor 3 (bwrap backend). argv[0] is searched in the parent's PATH before the fork.
 * A step that fails is reported back (which step, errno) and proc_start fails with
 * HEW_E_UNSUPPORTED naming it: a child is never run with less confinement than asked.
 *
 * Errors: proc_start fails (HEW_E_NOTFOUND / HEW_E_IO / HEW_E_NOMEM with a message naming
 * the program and the directory) only when the child could not be started; how the child
 * ended is never an error, it is a proc_status. */
#ifndef HEW_SYS_PROC_H
#define HEW_SYS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sys/abort.h"
#include "base/buf.h"
#include "base/err.h"

/* Default limits (one place). */
#define PROC_KILL_GRACE_MS 2000L  /* SIGTERM → SIGKILL */
#define PROC_DRAIN_MS 500L        /* reading leftover output after the group is gone */
#define PROC_RUN_CAPTURE_MAX ((size_t)1 << 20) /* proc_run's default output cap */

enum { PROC_STDOUT = 1, PROC_STDERR = 2 };

/* Output as it arrives: any bytes (not NUL-terminated, may end in the middle of a line
 * or of a UTF-8 character). stream is PROC_STDOUT (also stderr when merged) or
 * PROC_STDERR. Called on the thread that pumps the proc; must not call back into it
 * (except proc_kill). */
typedef void (*proc_output_fn)(void *ud, int stream, const char *data, size_t len);

typedef struct proc_opts {
    const char *const *argv;   /* required, NULL-terminated, argv[0] the program */
    const char *cwd;           /* NULL: the parent's current directory */
    const char *const *envp;   /* NULL-terminated "NAME=value"; NULL: proc_env_from_parent */
    bool separate_stderr;      /* false: stderr shares stdout's pipe */
    bool keep_group;           /* true: leave the group running when the leader exits */
    bool stdin_pipe;           /* true: stdin is a stream (a socket pair) fed by proc_write */
    long timeout_ms;           /* from the start; 0: none */
    long kill_grace_ms;        /* 0: PROC_KILL_GRACE_MS */
    hew_abort *abort;          /* may be NULL; borrowed, must outlive the proc */
    proc_output_fn on_output;  /* may be NULL (output is read and dropped) */
    void *ud;
    const struct sandbox *sandbox; /* sys/sandbox.h: a prepared sandbox the child is
                                      confined by before it execs (borrowed, must outlive
                                      proc_start); NULL: unconfined */
} proc_opts;

/* Why the child ended. */
typedef enum proc_end {
    PROC_RUNNING,   /* not yet */
    PROC_EXITED,    /* the leader exited on its own: exit_code */
    PROC_SIGNALED,  /* a signal nobody in hew sent ended it: signal */
    PROC_TIMED_OUT, /* the timeout passed; hew killed the group */
    PROC_ABORTED,   /* the abort token fired; hew killed the group */
    PROC_KILLED     /* proc_kill() was called; hew killed the group */
} proc_end;

typedef struct proc_status {
    proc_end end;
    int exit_code;                   /* when the leader exited (any end), else -1 */
    int signal;                      /* the signal that ended the leader, else 0 */
    long long elapsed_ms;            /* from start to the end */
    unsigned long long output_bytes; /* everything read from the pipes */
    long max_rss_kb;                 /* the leader's peak resident set in KiB, once reaped
                                        (0 before, or when someone else reaped it) */
} proc_status;

typedef struct proc proc;

/* Start a child. On success *out is a running proc to pump and free. */
hew_code proc_start(const proc_opts *o, proc **out, hew_err *err);

/* Read output (delivering it to on_output), notice the leader's end, enforce the timeout,
 * the abort token and proc_kill, for at most wait_ms (0: only what is ready now). Returns
 * true once the proc is finished (the leader reaped, the group gone, the pipes drained).
 * Returns early when there was output or the state changed. */
bool proc_pump(proc *p, long wait_ms);

/* Change where output goes from now on (when the proc moves to another owner). */
void proc_set_output(proc *p, proc_output_fn on_output, void *ud);

/* Pump until finished; fills *st (may be NULL). */
void proc_wait(proc *p, proc_status *st);

/* The current status (end is PROC_RUNNING until the leader has been reaped). */
void proc_status_get(const proc *p, proc_status *st);

/* Ask the proc to kill its group (SIGTERM now, SIGKILL after the grace). Thread-safe and
 * non-blocking: the thread pumping it does the work. Harmless after the end. */
void proc_kill(proc *p);

pid_t proc_pid(const proc *p);

/* Write all of data to the child's stdin (stdin_pipe only). Thread-safe (writers are
 * serialised, so messages never interleave) and callable while another thread pumps.
 * Blocks while the pipe is full. A child that closed its stdin or ended gives HEW_E_IO
 * (never SIGPIPE). */
hew_code proc_write(proc *p, const char *data, size_t n, hew_err *err);

/* Close the child's stdin (it sees EOF). Thread-safe; harmless when already closed. */
void proc_close_stdin(proc *p);

/* Free a proc. If it is still running, its group is killed (SIGTERM, then SIGKILL when it
 * has not ended within the grace — so this may block up to kill_grace_ms) and reaped.
 * NULL is a no-op. */
void proc_free(proc *p);

/* Start, wait, free: the output (merged stream, or stdout only with separate_stderr)
 * goes into *output with its own cap; bytes beyond the cap are dropped and
 * *output_truncated (may be NULL) is set. on_output in o, if any, is still called. */
hew_code proc_run(const proc_opts *o, buf *output, bool *output_truncated, proc_status *st,
                  hew_err *err);

/* "SIGTERM" style name of a signal ("signal 77" for unknown ones); a static string or
 * the caller's buffer. */
const char *proc_signal_name(int sig, char *tmp, size_t tmplen);

/* ---- child environments ---------------------------------------------------------------
 *
 * A list of "NAME=value" strings the caller builds explicitly. Secrets never reach a
 * child through the default list (proc_env_is_secret): a variable is left out when
 *   - its name says it holds a secret (redact_env_secret: a word TOKEN, SECRET, PASSWORD,
 *     KEY… — GITHUB_TOKEN, GH_TOKEN, NPM_TOKEN, *_API_KEY, *_SECRET_*, *_PASSWORD,
 *     *_ACCESS_KEY*, *_PRIVATE_KEY), or
 *   - it is AWS_* other than AWS_REGION, AWS_DEFAULT_REGION, AWS_PROFILE and
 *     AWS_DEFAULT_OUTPUT (which only choose, and hold nothing secret), or
 *   - its value is a registered secret (redact_secret_add: the key hew itself uses,
 *     wherever it came from) or looks like a vendor's key or a JWT as a whole.
 * SSH_AUTH_SOCK passes: it lets a command use the agent's keys (git over ssh) but never
 * read them, and hew's commands run as the user anyway.
 * An allow list (NULL-terminated names or fnmatch globs, "MY_TOKEN", "CI_*") lets named
 * variables through whatever the rules above say. */

typedef struct proc_env {
    char **vars;  /* NULL-terminated once anything was added */
    size_t n, cap;
    bool oom;     /* an allocation failed: the list may miss entries */
} proc_env;

#define PROC_ENV_INIT { NULL, 0, 0, false }

/* The parent's environment without secrets (appended to e); allow (NULL: none) passes
 * the variables it names. */
void proc_env_from_parent(proc_env *e, const char *const *allow);
/* What commands run with (execute_command): proc_env_from_parent plus the settings that
 * keep a child from waiting on a terminal: TERM=xterm-256color, PAGER=cat, GIT_PAGER=cat,
 * MANPAGER=cat, SYSTEMD_PAGER= (empty) and EDITOR=cat when EDITOR is not set. */
void proc_env_for_command(proc_env *e, const char *const *allow);
/* Add or replace NAME=value (copied). */
void proc_env_set(proc_env *e, const char *name, const char *value);
void proc_env_unset(proc_env *e, const char *name);
/* The value of name, or NULL (borrowed until the list changes). */
const char *proc_env_get(const proc_env *e, const char *name);
/* The list for proc_opts.envp (borrowed; an empty list when nothing was added). */
const char *const *proc_env_list(const proc_env *e);
void proc_env_release(proc_env *e);

/* True when a variable must not reach a child by default (see above). */
bool proc_env_is_secret(const char *name, const char *value);
/* True when name is in allow (exactly, or by an fnmatch glob); allow may be NULL. */
bool proc_env_allowed(const char *name, const char *const *allow);

#endif
