/* shadow — the shadow git repository behind one workspace's checkpoints, and the one place
 * that runs git for the checkpoint module. Internal to src/checkpoint/.
 *
 * Where it lives: <data>/checkpoints/<16 hex digits of FNV-1a-64 of the workspace's real
 * path>/ (data = $XDG_DATA_HOME/hew, or ~/.local/share/hew), mode 0700, holding
 *     git/          a bare repository (objects, refs, the shadow index, info/exclude,
 *                   info/attributes) — git never looks for it, it is always named with
 *                   --git-dir;
 *     workspace     the workspace path it belongs to (a hash collision picks <hash>-2 …);
 *     lock          flock'ed around every operation, so two hew processes (or two
 *                   checkpoint objects) on one workspace take turns.
 * It is never inside the workspace (refused when it would be), and git is never run
 * against the workspace's own repository: every call names --git-dir=<shadow>/git and,
 * when it needs files, --work-tree=<workspace>.
 *
 * How git runs (shadow_git): through tools/proc with an argv (never a shell), cwd the
 * workspace (work tree calls) or the shadow directory, an explicit environment and no
 * inherited variable but PATH: HOME and XDG_CONFIG_HOME = the shadow directory,
 * GIT_CONFIG_NOSYSTEM=1, GIT_CONFIG_GLOBAL=/dev/null, GIT_ATTR_NOSYSTEM=1, a fixed
 * identity (hew <checkpoint@hew.invalid>), LC_ALL=C, GIT_TERMINAL_PROMPT=0, GIT_PAGER=cat,
 * GIT_OPTIONAL_LOCKS=0, GIT_NO_REPLACE_OBJECTS=1 and GIT_INDEX_FILE inside the shadow;
 * and `-c` settings that switch off hooks (core.hooksPath=/dev/null), signing, eol
 * conversion, fsmonitor, pagers, colour, automatic gc/maintenance, submodule recursion
 * and the user's attributes file, plus --literal-pathspecs so that a file named `*.c`
 * or `:(top)x` is only ever that file. info/attributes (`* -text !eol -filter -ident
 * !working-tree-encoding !diff`) outranks the workspace's .gitattributes, so a snapshot
 * stores and restores a file's bytes exactly (no CRLF conversion, no clean/smudge
 * filters, no ident expansion). Every call has a timeout and the abort token.
 *
 * Threads: a shadow is used by one thread at a time (checkpoint.c serialises); the lock
 * file also serialises processes. */
#ifndef HEW_CHECKPOINT_SHADOW_H
#define HEW_CHECKPOINT_SHADOW_H

#include <stdbool.h>
#include <stddef.h>

#include "base/abort.h"
#include "base/buf.h"
#include "base/err.h"
#include "checkpoint/pathlist.h"
#include "tools/proc.h"

typedef struct shadow {
    char *workspace;     /* real path, no trailing slash */
    char *dir;           /* <data>/checkpoints/<hash> */
    char *git_dir;       /* dir/git */
    char *exclude_path;  /* git_dir/info/exclude */
    char *arg_git_dir;   /* "--git-dir=…" */
    char *arg_work_tree; /* "--work-tree=…" */
    char *arg_excludes;  /* "core.excludesFile=…" (the workspace's .git/info/exclude or
                          * /dev/null) */
    proc_env env;        /* GIT_INDEX_FILE = git_dir/index */
    proc_env env_scratch;/* GIT_INDEX_FILE = git_dir/scratch-index (listing nested repos) */
    char *git;           /* the program (default "git") */
    long timeout_ms;     /* per git call */
    hew_abort *abort;    /* borrowed, may be NULL */
    int lock_fd;
    bool locked;
} shadow;

typedef struct shadow_opts {
    const char *workspace; /* required */
    const char *data_dir;  /* NULL: $XDG_DATA_HOME/hew or ~/.local/share/hew */
    const char *home;      /* NULL: $HOME (for the refused folders) */
    const char *git;       /* NULL: "git", looked up in PATH */
    long timeout_ms;       /* per git call; > 0 */
    hew_abort *abort;
} shadow_opts;

/* Resolve the workspace, refuse the folders checkpoints must not snapshot (the home folder
 * itself, ~/Desktop, ~/Documents, ~/Downloads, "/", or a workspace that contains hew's
 * checkpoint store): HEW_E_INVALID with the reason. Check that git runs (HEW_E_NOTFOUND
 * "git is not installed …" when it cannot be started). Create and initialise the shadow
 * repository when it does not exist yet. On failure s is released. */
hew_code shadow_open(shadow *s, const shadow_opts *o, hew_err *err);
void shadow_release(shadow *s);


/* Take / drop the lock file (waits, polling, up to the timeout; wakes on abort). Taking
 * it also removes lock files a killed git left in the shadow repository. */
hew_code shadow_lock(shadow *s, hew_err *err);
void shadow_unlock(shadow *s);

typedef struct shadow_call {
    bool work_tree;      /* add --work-tree=<workspace>, run in the workspace */
    const char *sub_tree;/* instead: --work-tree=<workspace>/<sub_tree> (nested repos) */
    bool scratch_index;  /* use env_scratch */
    size_t out_max;      /* cap on stdout (0: 64 MiB); over it: HEW_E_TOOBIG */
    int *exit_code;      /* non-NULL: any exit code is accepted and stored here */
    bool *truncated;     /* non-NULL: output over the cap is cut and this set, no error */
    bool pack;           /* new blobs go into one pack (core.bigFileThreshold=1: git's
                          * bulk check-in), not one file each — much faster for thousands
                          * of files; only for update-index (it would make diff treat every
                          * file as binary) */
} shadow_call;

/* Run `git <globals> args…` (args NULL-terminated, without "git"). stdout goes to out
 * (may be NULL: dropped). Errors: HEW_E_IO (git failed: the message quotes its stderr),
 * HEW_E_TIMEOUT, HEW_E_ABORTED, HEW_E_NOTFOUND (git could not be started), HEW_E_TOOBIG
 * (output over the cap). */
hew_code shadow_git(shadow *s, const shadow_call *c, const char *const *args, buf *out,
                    hew_err *err);

/* Run `git <globals> args… -- <paths>` for paths[0..n) in as few calls as the
 * argument-size limit allows; the stdout of every call is appended to out (NULL: dropped). */
hew_code shadow_git_paths(shadow *s, const shadow_call *c, const char *const *args,
                          char *const *paths, size_t n, buf *out, hew_err *err);

/* The commit HEAD points at, into hash (cap >= 65); "" when there is none yet. */
hew_code shadow_head(shadow *s, char *hash, size_t cap, hew_err *err);

/* True when s is 4..64 lowercase or uppercase hex digits (what a checkpoint id may be;
 * anything else is refused before it reaches git's argv). */
bool shadow_is_hash(const char *s);

#endif
