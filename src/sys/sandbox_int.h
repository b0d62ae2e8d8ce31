/* sandbox_int — the inside of a prepared sandbox, shared by the sandbox_*.c files and
 * sys/proc.c (which applies it in the child). Nothing outside src/sys/ includes it.
 *
 * A prepared sandbox holds everything the child needs already computed (paths, the
 * Landlock ruleset fd, the seccomp program, the bwrap argv), so that what runs between
 * fork and exec is a fixed list of async-signal-safe system calls: no allocation, no
 * lock, no stdio, nothing that could deadlock in a child forked from a threaded parent. */
#ifndef HEW_SYS_SANDBOX_INT_H
#define HEW_SYS_SANDBOX_INT_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include "sys/sandbox.h"

/* The steps the child takes; a failure is reported to the parent as (step, errno, index)
 * and proc_start names the step (sandbox_step_name). */
typedef enum sandbox_step {
    SANDBOX_STEP_NONE,
    SANDBOX_STEP_UNSHARE,     /* the user / mount namespace */
    SANDBOX_STEP_IDMAP,       /* uid_map, gid_map, setgroups */
    SANDBOX_STEP_PRIVATE,     /* making the mounts private to the child */
    SANDBOX_STEP_RO_ROOT,     /* every mount read-only */
    SANDBOX_STEP_RW_BIND,     /* a writable root bound writable again (index: which) */
    SANDBOX_STEP_RO_BIND,     /* a read-only path bound over itself (index: which) */
    SANDBOX_STEP_HIDE,        /* an empty mount over a hidden path (index: which) */
    SANDBOX_STEP_CHDIR,       /* entering the working directory (after the mounts) */
    SANDBOX_STEP_CAPS,        /* root: dropping capabilities from the bounding set */
    SANDBOX_STEP_NO_NEW_PRIVS,
    SANDBOX_STEP_LANDLOCK,    /* landlock_restrict_self */
    SANDBOX_STEP_SECCOMP,     /* installing the filter */
    SANDBOX_STEP_SECCOMP_FD,  /* bwrap: handing the filter over on a descriptor */
    SANDBOX_STEP_COUNT
} sandbox_step;

/* The descriptor on which a bwrap child finds the seccomp program. */
#define SANDBOX_BWRAP_SECCOMP_FD 3
#define SANDBOX_BWRAP_SECCOMP_FD_STR "3"

/* A path the child mounts over (absolute, NUL-terminated, owned by the sandbox). */
typedef struct sandbox_mount {
    char *path;
    bool is_dir;
} sandbox_mount;

struct sandbox {
    sandbox_mode mode;
    sandbox_backend backend;
    bool network;
    int proxy_port;
    bool drop_caps;          /* hew runs as root: the child drops dangerous capabilities */

    /* The policy's paths, copied (for explain and the bwrap argv). */
    char **writable, **readonly, **hidden;
    size_t n_writable, n_readonly, n_hidden;

    /* landlock backend */
    int ruleset_fd;          /* -1 when none */
    int landlock_abi;

    /* mount namespace (landlock backend): read-only binds and hidden-path covers */
    bool mountns;            /* the child makes one */
    bool userns;             /* ... inside a new user namespace (not root) */
    char uid_map[48], gid_map[48];
    bool ro_root;            /* every mount read-only but rw_mounts */
    sandbox_mount *rw_mounts;
    size_t n_rw_mounts;
    sandbox_mount *ro_mounts;
    size_t n_ro_mounts;
    sandbox_mount *hide_mounts;
    size_t n_hide_mounts;

    /* seccomp (both backends) */
    struct sock_filter *bpf;
    unsigned short bpf_len;  /* 0: no filter (an architecture hew has none for) */

    /* bwrap backend: bwrap and its options, NULL-terminated; proc.c adds --chdir, "--"
     * and the command */
    char **bwrap_argv;
    size_t n_bwrap_argv;

    char *gaps;              /* "" or lines */
};

/* Directories shared as scratch space in workspace-write (Python's semaphores live in
 * /dev/shm): writable like the writable roots; never in read-only. */
extern const char *const sandbox_scratch_dirs[];
extern const size_t sandbox_n_scratch_dirs;

/* ---- prepare-time builders (each fills its part of sb; errors as values) -------------- */

hew_code sandbox_landlock_build(sandbox *sb, int abi, hew_err *err);
hew_code sandbox_seccomp_build(sandbox *sb, hew_err *err);
hew_code sandbox_bwrap_build(sandbox *sb, const char *bwrap_path, hew_err *err);
/* Whether this build has a seccomp filter for the machine's architecture. */
bool sandbox_seccomp_arch_known(void);

/* ---- in the child (async-signal-safe; return 0 or -errno, *step and *index set) -------- */

/* Everything the landlock backend does between fork and exec, after the descriptors are
 * in place: namespace + mounts, chdir(cwd) (cwd may be NULL), no_new_privs, Landlock,
 * seccomp. */
int sandbox_child_confine(const sandbox *sb, const char *cwd, int *step, int *index);
/* The parts in their own files. */
int sandbox_ns_enter(const sandbox *sb, int *step, int *index);
int sandbox_landlock_restrict(const sandbox *sb);
int sandbox_seccomp_install(const sandbox *sb);

/* The bwrap backend's filter, in a new memfd (CLOEXEC, offset 0) for one child; -errno. */
int sandbox_seccomp_memfd(const sandbox *sb);

/* PATH search as posix_spawnp does it, in the parent (getenv("PATH")); a name with a '/'
 * is checked as is. True with the path in out. Never in the child. */
bool sandbox_which(const char *name, char *out, size_t cap);

/* "making a mount namespace" — for proc_start's message. */
const char *sandbox_step_name(int step);
/* The path a step's index names ("" when none). */
const char *sandbox_step_path(const sandbox *sb, int step, int index);

#endif
