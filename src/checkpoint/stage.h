/* stage — bring the shadow index in line with the workspace, the step before every
 * checkpoint commit and every "compare with now". Internal to src/checkpoint/; the caller
 * holds the shadow's lock.
 *
 * What ends up in the index: every file git would list as not ignored (the fixed
 * excludes, the workspace's .gitignore files, its .git/info/exclude), regular files and
 * symlinks only, each at most max_file_bytes (larger ones are left out and, when they
 * were in an earlier checkpoint, dropped from this one), readable ones only.
 *
 * Nested repositories (a folder below the workspace with its own .git): git would record
 * them as a bare commit pointer (a "gitlink"). Cline renames their .git folders while it
 * runs `git add`; hew never touches them. Instead it lists each nested repository's files
 * itself, with the nested folder as a separate work tree and an empty scratch index
 * (`ls-files --others`, honouring the nested .gitignore files and the fixed excludes,
 * never entering .git), and adds those files to the shadow index by name
 * (`update-index --add`), so they are snapshotted and restored as plain files. Their
 * .git folders are never listed, read or written. */
#ifndef HEW_CHECKPOINT_STAGE_H
#define HEW_CHECKPOINT_STAGE_H

#include <stddef.h>

#include "base/err.h"
#include "checkpoint/pathlist.h"
#include "checkpoint/shadow.h"

typedef struct stage_report {
    size_t listed;        /* paths handed to git update-index */
    size_t nested_repos;  /* nested repositories found */
    pathlist too_big;     /* files left out by the size guard */
    pathlist unreadable;  /* files left out because they cannot be read */
} stage_report;

#define STAGE_REPORT_INIT { 0, 0, PATHLIST_INIT, PATHLIST_INIT }

void stage_report_release(stage_report *r);

/* What is at workspace-relative rel (wfd: the workspace folder, open), looking at every
 * folder on the way without following a symlink. STAGE_BLOCKED when a folder on the way
 * is a symlink or not a folder (writing or deleting there could reach outside the
 * workspace or clobber an unsaved file), or the path cannot be examined. */
typedef enum stage_where { STAGE_ABSENT, STAGE_FILE, STAGE_DIR, STAGE_BLOCKED } stage_where;
stage_where stage_look(int wfd, const char *rel);

/* Update the shadow index to the work tree (see above). */
hew_code stage_worktree(shadow *s, size_t max_file_bytes, stage_report *rep, hew_err *err);

#endif
