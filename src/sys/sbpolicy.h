/* sbpolicy — how hew USES the sandbox (sys/sandbox.h is the mechanism): which mode a child
 * process gets, which folders it may write, which paths it may not see, and the prepared
 * sandboxes a session shares. The one place that decides; execute_command, MCP stdio
 * servers and hooks all ask it (docs/sandbox.md says the same for users).
 *
 * The decision (sbpolicy_pick), from the session's mode setting (hew_options.sandbox_mode):
 *   "auto" (the default) — a command the user approved BY HAND runs unconfined (the user
 *       read it: danger-full-access); every other one — auto-approved by the settings,
 *       --auto-approve, --yolo, a headless or batch run where nobody answers — runs under
 *       workspace-write;
 *   "read-only" | "workspace-write" | "danger-full-access" — set by the user: that mode
 *       for every command, approved by hand or not.
 * Nothing the model says (requires_approval) enters the decision: it can never widen it.
 *
 * What a confined command gets (sbpolicy_fill):
 *   writable roots: the workspace's root (sys/wsroot: the git top of the workspace, else
 *       the workspace), the workspace itself when it is not below that root, the temp
 *       dir ($TMPDIR when absolute, else /tmp), and the user's sandbox.writable_roots;
 *   read-only inside them: .git, .hew, .husky, .clinerules and .clineignore of the
 *       workspace's root, of the workspace and of each user root (hew's control files:
 *       a command must not plant a git hook or rewrite hew's own settings);
 *   hidden (neither readable nor writable): hew's data folder (hew_options.data_dir, else
 *       sys/datadir's rule: the store, logs, checkpoints), its config folder
 *       ($XDG_CONFIG_HOME/hew, else ~/.config/hew: the key may be in config.json), its
 *       state folder, and the session's extra hidden paths (the --api-key-file's file);
 *   the network: off unless sandbox_network, or only the egress proxy's port.
 * Paths are resolved (realpath) where they exist; a user root that does not exist is
 * left out (nothing to write there), a hidden path that does not exist stays listed.
 *
 * Sharing: an sbpolicy belongs to a session and is used by its tasks, MCP servers and
 * hooks from any thread. Sandboxes are prepared on first use and kept per (mode,
 * network) until sbpolicy_free; a failure is kept too (the machine will not change
 * under a session), so a command never pays for sandbox_prepare twice. */
#ifndef HEW_SYS_SBPOLICY_H
#define HEW_SYS_SBPOLICY_H

#include <stdbool.h>

#include "base/err.h"
#include "sys/sandbox.h"

/* "auto" as a mode word (sbpolicy_opts.mode; never a sandbox_mode). */
#define SBPOLICY_AUTO "auto"

typedef struct sbpolicy_opts {
    const char *mode;                   /* "auto" or NULL, or a mode's name */
    const char *backend;                /* "auto" or NULL, "landlock", "bwrap" */
    const char *cwd;                    /* the workspace, absolute (required) */
    const char *const *writable_roots;  /* the user's, absolute, NULL-terminated; NULL */
    const char *const *hidden;          /* more hidden paths, absolute; NULL */
    const char *data_dir;               /* hew_options.data_dir, or NULL: datadir's rule */
    bool network;                       /* sandboxed commands may use the network */
    int proxy_port;                     /* >0: the egress proxy's port (network off) */
} sbpolicy_opts;

typedef struct sbpolicy sbpolicy;

/* A new policy from o (every string copied). HEW_E_INVALID with a message naming the
 * word and the choices for an unknown mode or backend, or for a root or hidden path that
 * is not absolute; HEW_E_NOMEM. */
hew_code sbpolicy_new(const sbpolicy_opts *o, sbpolicy **out, hew_err *err);
void sbpolicy_free(sbpolicy *p);

/* The mode words ("auto" and the three modes) as "a|b|c|d", for messages. */
const char *sbpolicy_mode_choices(void);
/* Whether word is "auto" or a mode's name. */
bool sbpolicy_mode_word_ok(const char *word);

/* True when the mode is "auto" (p NULL: false). */
bool sbpolicy_is_auto(const sbpolicy *p);

/* THE decision: the mode a child gets. by_hand: a person approved this very command
 * after reading it (tool_answer.by_hand). p NULL (no sandbox settings: a test's tool
 * environment): SANDBOX_FULL_ACCESS. */
sandbox_mode sbpolicy_pick(const sbpolicy *p, bool by_hand);

/* The policy for mode m (network: 1 on, 0 off, -1 the session's setting) into *out; its
 * lists are borrowed from p. */
void sbpolicy_fill(const sbpolicy *p, sandbox_mode m, int network, sandbox_policy *out);

/* The prepared sandbox for mode m (network as in sbpolicy_fill), made on first use and
 * kept: *out borrowed until sbpolicy_free, NULL for SANDBOX_FULL_ACCESS. When it cannot
 * be set up: the code and message of sandbox_prepare (kept: the same answer each time). */
hew_code sbpolicy_sandbox(sbpolicy *p, sandbox_mode m, int network, const sandbox **out,
                          hew_err *err);

#endif
