/* checkpoint — snapshots of a task's workspace in a shadow git repository, so that any
 * point of a task can be compared with another or with now, and its files restored.
 * Reference: cline-spec §1.3 step 4, §1.5 step 6, §10; seed 000's checkpoint gate.
 *
 * It must never touch the workspace's own git repository (its .git, index, HEAD,
 * branches, stash, config, hooks), never delete or overwrite a file whose current content
 * is not saved in a checkpoint, never run `git clean` or `reset --hard` on anything, never
 * write outside the workspace and hew's data directory, and never run git except through
 * sys/proc with an argv.
 *
 * ---- The shadow repository --------------------------------------------------------------
 * One per workspace, shared by all its tasks: <data>/checkpoints/<hash of the workspace's
 * real path>/ where data is $XDG_DATA_HOME/hew or ~/.local/share/hew (shadow.h has the
 * layout, the environment and the git settings: no hooks, no signing, no user or system
 * config, a fixed identity, its own index, bytes stored exactly). Commits form one line of
 * history; nothing is ever rewritten or dropped from it, so every checkpoint stays
 * reachable (a restore only adds commits).
 *
 * What a checkpoint holds: the workspace's files minus the excludes (excludes.h: build
 * and dependency folders, media, archives, env files and keys, databases, logs, Git-LFS
 * patterns, plus whatever the workspace's .gitignore files and .git/info/exclude ignore),
 * minus files above max_file_bytes (the size guard), plus the files of nested git
 * repositories as plain files (stage.h: their .git folders are never touched).
 *
 * ---- Restore semantics ------------------------------------------------------------------
 * checkpoint_restore(c, target):
 *   1. commits the current state (kind SAFETY): restoring to that commit undoes the
 *      restore;
 *   2. deletes the files that are in the current state but not in target, and only those
 *      that some non-safety checkpoint after target had changed or added (so files the
 *      shadow repository only ever saw in a safety commit — files the user made outside
 *      the task — are kept; files the checkpoints never knew are never deleted); empty
 *      folders left behind by those deletions are removed;
 *   3. writes the files whose content at target differs from now — but never overwrites a
 *      file that exists now and is not in the current checkpoint (ignored, too big,
 *      unreadable: its content is not saved), and never writes through a symlinked or
 *      file-occupied folder: those are listed in `kept`;
 *   4. commits the result (kind RESTORED), so that undoing the restore knows which files
 *      the restore brought back.
 * Ignored files, files the shadow never tracked and nested .git folders are never touched.
 *
 * ---- Threads ----------------------------------------------------------------------------
 * A checkpoint object belongs to one task but may be called from any thread: every
 * operation takes the object's turn (one at a time, in the order asked; an asynchronous
 * commit asked before a blocking call runs before it) and the shadow's lock file (one hew
 * process at a time per workspace). Waiting for the turn wakes on the abort token.
 * checkpoint_commit_async runs on the object's own worker thread and calls back there.
 *
 * ---- What the task loop calls, when ------------------------------------------------------
 *   first request:  checkpoint_open (fast: checks git, creates the shadow; on error show
 *                   err.msg once — "checkpoints are off: …" — and go on without); then
 *                   say checkpoint_created, count it in t->ckpt.in_flight (task/ckpt.c), and
 *                   checkpoint_commit_async(c, CHECKPOINT_INITIAL, done, t); done() stores
 *                   the hash on that message and counts it down (also on
 *                   error: the gate must open);
 *   after a turn whose tools changed something: checkpoint_commit_async(…TURN…) (or
 *                   checkpoint_commit on a thread that may block);
 *   attempt_completion: …COMPLETION…, the hash on the completion_result message;
 *   /checkpoints:   checkpoint_list;  /diff N: checkpoint_diff(c, hash_N, NULL, …);
 *   /restore N files|both: checkpoint_restore(c, hash_N, …), report res.safety as the
 *                   checkpoint to restore to for an undo;
 *   task end:       checkpoint_free (waits for queued commits; trigger the abort token
 *                   first to cut them short).
 * The abort token given in the options stops any git call at once; an aborted commit
 * reports HEW_E_ABORTED to its callback. Give the object a token that only fires when the
 * task ends if an interrupted request should not kill the initial commit.
 *
 * ---- Errors -----------------------------------------------------------------------------
 *   HEW_E_INVALID   refused workspace (home, Desktop, Documents, Downloads, "/", or one
 *                   that contains hew's data directory), or a bad checkpoint id;
 *   HEW_E_NOTFOUND  git is not installed; a checkpoint id this workspace does not have;
 *   HEW_E_TIMEOUT   a git call passed timeout_ms (default 15 s, as Cline's init);
 *   HEW_E_ABORTED   the abort token fired;
 *   HEW_E_IO / HEW_E_TOOBIG / HEW_E_NOMEM   git failed (its message is quoted), the
 *                   workspace is too large to list, out of memory.
 * Every message starts with "checkpoint" or "checkpoints are off" and says what to do. */
#ifndef HEW_CHECKPOINT_CHECKPOINT_H
#define HEW_CHECKPOINT_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "sys/abort.h"
#include "base/err.h"

#define CHECKPOINT_HASH_MAX 65                        /* 40 (sha1) or 64 (sha256) + NUL */
#define CHECKPOINT_MAX_FILE_BYTES ((size_t)10 << 20)  /* the size guard's default */
#define CHECKPOINT_TIMEOUT_MS 15000L                  /* per git call */
#define CHECKPOINT_PATCH_MAX ((size_t)4 << 20)        /* checkpoint_diff's default cap */

typedef struct checkpoint checkpoint;

typedef struct checkpoint_opts {
    const char *workspace;  /* required: the task's working directory */
    const char *task_id;    /* recorded in every commit; checkpoint_list filters on it */
    const char *data_dir;   /* NULL: $XDG_DATA_HOME/hew, else ~/.local/share/hew */
    const char *home;       /* NULL: $HOME (decides the refused folders) */
    const char *git;        /* NULL: "git" from PATH */
    long timeout_ms;        /* per git call; 0: CHECKPOINT_TIMEOUT_MS */
    size_t max_file_bytes;  /* size guard; 0: CHECKPOINT_MAX_FILE_BYTES */
    hew_abort *abort;       /* borrowed, may be NULL; must outlive the object */
} checkpoint_opts;

void checkpoint_opts_default(checkpoint_opts *o);

/* Open (creating when needed) the shadow repository of o->workspace. Fast: one or two git
 * calls. On failure *out is NULL and err says why checkpoints are off. */
hew_code checkpoint_open(const checkpoint_opts *o, checkpoint **out, hew_err *err);

/* Wait for queued asynchronous commits (their callbacks run), stop the worker, free.
 * NULL is a no-op. Must not be called from a callback. */
void checkpoint_free(checkpoint *c);

/* The workspace's real path / the shadow directory (borrowed for the object's life). */
const char *checkpoint_workspace(const checkpoint *c);
const char *checkpoint_shadow_dir(const checkpoint *c);

typedef enum checkpoint_kind {
    CHECKPOINT_INITIAL,    /* the task's first request */
    CHECKPOINT_TURN,       /* after a turn whose tools ran */
    CHECKPOINT_COMPLETION, /* at attempt_completion */
    CHECKPOINT_MANUAL,     /* asked by the user or an embedding program */
    CHECKPOINT_SAFETY,     /* the state just before a restore (restore to it to undo) */
    CHECKPOINT_RESTORED,   /* the state just after a restore */
    CHECKPOINT_RESUMED     /* a stored task's first request in a new run */
} checkpoint_kind;

/* "initial", "turn", "completion", "manual", "safety", "restored". */
const char *checkpoint_kind_name(checkpoint_kind k);

typedef struct checkpoint_commit_info {
    char hash[CHECKPOINT_HASH_MAX];   /* the new checkpoint */
    char parent[CHECKPOINT_HASH_MAX]; /* the previous one ("" for the first) */
    bool changed;          /* its files differ from the previous checkpoint's */
    size_t files_too_big;  /* files the size guard left out */
    size_t files_unreadable;
    size_t nested_repos;
    long long elapsed_ms;
} checkpoint_commit_info;

/* Snapshot the workspace now. Always makes a new commit and fills info->hash (also when
 * nothing changed: then it is cheap — git compares file stats only — and info->changed is
 * false). Blocks for the object's turn. */
hew_code checkpoint_commit(checkpoint *c, checkpoint_kind kind, checkpoint_commit_info *info,
                           hew_err *err);

/* Called once per checkpoint_commit_async, on the worker thread, when the commit is done
 * or failed (info is filled only when code is HEW_OK; err is NULL then). It may call other
 * checkpoint functions except checkpoint_free, and should be quick. */
typedef void (*checkpoint_done_fn)(void *ud, hew_code code, const checkpoint_commit_info *info,
                                   const hew_err *err);

/* Queue a commit on the object's worker thread and return at once. HEW_OK means done will
 * be called exactly once; on an error return (cannot start the thread, out of memory) it
 * will not be. */
hew_code checkpoint_commit_async(checkpoint *c, checkpoint_kind kind, checkpoint_done_fn done,
                                 void *ud, hew_err *err);

/* Wait until every asynchronous commit queued so far has finished and been reported. */
void checkpoint_drain(checkpoint *c);

/* ---- listing ----------------------------------------------------------------------------- */

typedef struct checkpoint_entry {
    char hash[CHECKPOINT_HASH_MAX];
    long long time;        /* commit time, seconds since the epoch */
    checkpoint_kind kind;
    char *task_id;         /* "" when none was recorded */
} checkpoint_entry;

typedef struct checkpoint_entries {
    checkpoint_entry *v;   /* oldest first */
    size_t n;
} checkpoint_entries;

/* The checkpoints of this object's task (all_tasks: of every task in the workspace),
 * oldest first. An empty list when there are none yet. */
hew_code checkpoint_list(checkpoint *c, bool all_tasks, checkpoint_entries *out,
                         hew_err *err);
void checkpoint_entries_release(checkpoint_entries *l);

/* ---- comparing --------------------------------------------------------------------------- */

typedef struct checkpoint_change {
    char status;       /* 'A' added, 'M' modified, 'D' deleted, 'R' renamed, 'T' type
                        * changed (file <-> symlink), 'C' copied */
    char *path;        /* the path after (for D: the deleted path) */
    char *old_path;    /* R and C: the path before; else NULL */
} checkpoint_change;

typedef struct checkpoint_changes {
    checkpoint_change *files;
    size_t n;
    char *patch;           /* unified diff ("Binary files … differ" for binary files),
                            * NUL-terminated */
    size_t patch_len;
    bool patch_truncated;  /* cut at the cap */
} checkpoint_changes;

/* The changes from checkpoint `from` to checkpoint `to`, or to the workspace now when to
 * is NULL (the current files are staged in the shadow index for that, nothing is
 * committed). Renames are detected. patch_max 0: CHECKPOINT_PATCH_MAX. */
hew_code checkpoint_diff(checkpoint *c, const char *from, const char *to, size_t patch_max,
                         checkpoint_changes *out, hew_err *err);
void checkpoint_changes_release(checkpoint_changes *d);

/* ---- restoring --------------------------------------------------------------------------- */

typedef struct checkpoint_paths {
    char **v;
    size_t n;
} checkpoint_paths;

typedef struct checkpoint_restore_result {
    char target[CHECKPOINT_HASH_MAX];   /* the checkpoint restored (full hash) */
    char safety[CHECKPOINT_HASH_MAX];   /* the state before: restore to it to undo */
    char restored[CHECKPOINT_HASH_MAX]; /* the state after */
    checkpoint_paths written;  /* files written from the checkpoint */
    checkpoint_paths deleted;  /* files deleted */
    checkpoint_paths kept;     /* differ from the checkpoint but were left alone (see the
                                * restore semantics above) */
} checkpoint_restore_result;

/* Restore the workspace's files to checkpoint `target` (see "Restore semantics"). On an
 * error after step 1, res->safety is set: the workspace may be partly restored, and
 * restoring to res->safety puts it back. */
hew_code checkpoint_restore(checkpoint *c, const char *target, checkpoint_restore_result *res,
                            hew_err *err);
void checkpoint_restore_result_release(checkpoint_restore_result *r);

#endif
