/* sandbox_int — the inside of a prepared sandbox, shared by the sandbox_*.c files and
 * sys/proc.c (which applies it in the child). Nothing outside src/sys/ includes it.
 *
 * A prepared sandbox holds everything the child needs already computed (paths, the
 * Landlock ruleset fd, the seccomp program, the bwrap argv), so that what runs between
 * fork and exec is a fixed list of async-signal-safe system calls: no allocation, no
 * lock, no stdio, nothing that could deadlock in a child forked from a threaded parent.
 *
 * The landlock backend's namespaces are made once, when the sandbox is prepared, by a
 * short-lived forked helper (sandbox_ns_make), and kept as descriptors; each command's
 * child only joins them (setns). That child shares hew's memory (clone with CLONE_VM |
 * CLONE_VFORK, as posix_spawn does): no copy-on-write faults, which on a VM cost more than
 * all the sandbox's own steps. It can do so because joining a user namespace needs no
 * uid_map written, which a child sharing undumpable hew's memory could not write. */
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
    SANDBOX_STEP_JOIN,        /* entering the namespaces made at prepare time */
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
    int userns_fd, mntns_fd; /* made by sandbox_ns_make; -1 until then (and when none) */
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

/* Make the namespaces of a sandbox with mountns set: a forked helper does what
 * sandbox_ns_enter says (unshare, id maps, mounts) and hands back descriptors of its user
 * and mount namespaces, which outlive it; sb->userns_fd / mntns_fd get them. Lives in
 * sys/proc.c, the one home of child processes. HEW_E_UNSUPPORTED naming the step that
 * failed. */
hew_code sandbox_ns_make(sandbox *sb, hew_err *err);

/* ---- in the child (async-signal-safe; return 0 or -errno, *step and *index set) -------- */

/* Functions that run in a command's child share hew's memory and run on a stack of their
 * own: AddressSanitizer must not instrument them (its no-return hook would look for hew's
 * thread stack, and the poisoned frames would be left in hew's shadow memory). */
#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_IN_CHILD __attribute__((no_sanitize_address))
#else
#define SANDBOX_IN_CHILD
#endif

/* Everything the landlock backend does between clone and exec, after the descriptors are
 * in place: join the namespaces, chdir(cwd) (cwd may be NULL), no_new_privs, Landlock,
 * seccomp. */
int sandbox_child_confine(const sandbox *sb, const char *cwd, int *step, int *index);
/* The parts in their own files. sandbox_ns_enter runs in sandbox_ns_make's helper (a
 * forked child of its own); sandbox_ns_join in each command's child. */
int sandbox_ns_enter(const sandbox *sb, int *step, int *index);
int sandbox_ns_join(const sandbox *sb, int *step, int *index);
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
