/* sandbox — what a child process started by hew may touch, enforced by the kernel
 * (issue #19). The model can talk its way around any command policy; a sandbox confines
 * the process itself, so a command hew runs without the user reading it can only change
 * what the user allowed.
 *
 * Modes (Codex's names):
 *   read-only           the whole file system readable (but the hidden paths), nothing
 *                       writable but /dev/null and friends;
 *   workspace-write     the same, plus the writable roots (the workspace, the temp dir, the
 *                       user's sandbox.writable_roots) — except the read-only paths inside
 *                       them (hew's control files: .git/, .hew/, .clinerules/, .clineignore);
 *   danger-full-access  no sandbox at all (sandbox_prepare gives NULL: nothing to apply).
 * In every confined mode: the hidden paths (hew's data and config dirs, which hold keys and
 * other workspaces' conversations) can be neither read nor written; no ptrace, no new user
 * namespace, no mount; and no network unless policy.network (or only TCP to the egress
 * proxy's port when policy.proxy_port is set).
 *
 * Backends, tried in this order unless policy.backend names one:
 *   landlock  Landlock file rules (ABI probed at run time) + a seccomp filter, applied in
 *             the child between clone and exec by sys/proc (no extra program); its mount
 *             namespace is made once, by sandbox_prepare, and joined by each child;
 *   bwrap     bubblewrap (Debian `bubblewrap`): the command is wrapped in bwrap with
 *             binds that give the same view, plus the same seccomp filter (--seccomp FD).
 * sandbox_prepare fails — never silently runs unconfined — when no backend can enforce
 * the policy; whatever it cannot enforce in full it lists in sandbox_gaps, so hew never
 * claims more than it set up.
 *
 * Threads: a prepared sandbox is immutable and may be used by many children at once from
 * any thread (it is prepared once per policy and reused: the per-command cost is what the
 * child does between clone and exec). It holds descriptors (the Landlock ruleset, the
 * namespaces) until sandbox_free. */
#ifndef HEW_SYS_SANDBOX_H
#define HEW_SYS_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* proc_opts.sandbox (sys/proc.h) takes a prepared sandbox: the child is confined before
 * it execs (landlock) or its argv is wrapped (bwrap); NULL runs it unconfined. */

typedef enum sandbox_mode {
    SANDBOX_FULL_ACCESS,     /* "danger-full-access": no sandbox */
    SANDBOX_READ_ONLY,       /* "read-only" */
    SANDBOX_WORKSPACE_WRITE, /* "workspace-write" */
} sandbox_mode;

typedef enum sandbox_backend {
    SANDBOX_BACKEND_NONE,     /* "none" (only for reports: nothing confines the child) */
    SANDBOX_BACKEND_AUTO,     /* "auto": landlock, else bwrap (only in a policy) */
    SANDBOX_BACKEND_LANDLOCK, /* "landlock" */
    SANDBOX_BACKEND_BWRAP,    /* "bwrap" */
} sandbox_backend;

typedef struct sandbox_policy {
    sandbox_mode mode;
    sandbox_backend backend;            /* AUTO unless a test or the user forces one
                                           (NONE, as in a zeroed policy, means AUTO) */
    const char *const *writable_roots;  /* absolute dirs, NULL-terminated (workspace-write) */
    const char *const *readonly_paths;  /* absolute paths inside them that stay read-only;
                                           a path that does not exist yet must not be
                                           creatable either (not done: a gap, see
                                           "More on sandbox_prepare") */
    const char *const *hidden_paths;    /* absolute paths neither readable nor writable */
    bool network;                       /* true: the network is allowed */
    int proxy_port;                     /* >0 (network false): TCP connect to 127.0.0.1 at
                                           this port only (the egress proxy) */
} sandbox_policy;

/* What this machine offers (sandbox_probe; cheap after the first call). */
typedef struct sandbox_caps {
    int landlock_abi;     /* 0: none */
    bool seccomp;         /* seccomp filters can be installed */
    bool userns;          /* an unprivileged user + mount namespace can be made */
    char bwrap[256];      /* path of a working bwrap, "" when none */
} sandbox_caps;

typedef struct sandbox sandbox;

/* The mode's and backend's names as above; parse gives false for an unknown word. */
const char *sandbox_mode_name(sandbox_mode m);
bool sandbox_mode_parse(const char *s, sandbox_mode *out);
const char *sandbox_backend_name(sandbox_backend b);
bool sandbox_backend_parse(const char *s, sandbox_backend *out);

void sandbox_probe(sandbox_caps *out);

/* Prepare a policy for use by any number of children. FULL_ACCESS gives HEW_OK and
 * *out = NULL. When no backend can enforce it: HEW_E_UNSUPPORTED (a code appended to
 * include/hew_code.h for this; or the error of the backend named in policy.backend) with a message that says what is missing and what to
 * do (install bubblewrap, a kernel with Landlock, or run with --sandbox
 * danger-full-access). */
hew_code sandbox_prepare(const sandbox_policy *policy, sandbox **out, hew_err *err);
/* More on sandbox_prepare (sbcore):
 *   - paths are made canonical (realpath when they exist); a relative one is
 *     HEW_E_INVALID. A read-only path that does not exist yet is NOT kept from being
 *     created (neither backend can mount over nothing without leaving an empty file or
 *     directory behind in the workspace): it is listed in sandbox_gaps ("X can be created
 *     (...)"); create it before preparing to protect it.
 *   - it marks the calling process undumpable (prctl PR_SET_DUMPABLE 0): a confined
 *     command runs as hew's user and could otherwise read hew's environment (where an
 *     API key may be) through /proc/<pid>/environ, which Landlock does not refuse. A root
 *     hew's children also lose CAP_SYS_PTRACE, CAP_SYS_ADMIN and the like.
 *   - the bwrap backend runs its options once with `true`, so a view bwrap cannot build
 *     fails here and not at the first command. */
void sandbox_free(sandbox *sb);

sandbox_backend sandbox_backend_of(const sandbox *sb);
sandbox_mode sandbox_mode_of(const sandbox *sb);
/* What the backend could not enforce, one short phrase per line ("" when nothing), e.g.
 * "control files writable (no mount namespace)". Borrowed from sb. */
const char *sandbox_gaps(const sandbox *sb);

/* After a confined command failed: when its output (and exit code) show the sandbox
 * stopping it, write a sentence naming the rule into why ("writing /etc/x was refused:
 * outside the writable roots (…)", "the network is off in the sandbox") and return true.
 * A heuristic over what the child printed; false when nothing points at the sandbox. */
bool sandbox_explain(const sandbox *sb, const char *output, size_t len, int exit_code,
                     buf *why);

#endif
