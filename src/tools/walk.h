/* walk — directory listing and recursive walks for list_files and search_files, with the
 * ignore rules applied on the way down (nested .gitignore files, .clineignore, hidden
 * names, named directories not to enter). It must never follow a symbolic link to a
 * directory (no loops, no escaping the workspace through a link), never read a file's
 * content (only .gitignore files), and never enter a directory its rules exclude.
 *
 * Paths given to callbacks are relative to the walk's start directory, with '/'
 * separators; entries come in byte order of their names, directory by directory. */
#ifndef HEW_TOOLS_WALK_H
#define HEW_TOOLS_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/abort.h"
#include "base/err.h"
#include "tools/ignore.h"

typedef enum walk_kind { WALK_FILE, WALK_DIR, WALK_LINK, WALK_OTHER } walk_kind;

typedef struct walk_ent {
    char *name;
    walk_kind kind; /* a symlink is WALK_LINK whatever it points to */
} walk_ent;

/* The entries of one directory ("." and ".." left out), sorted by name; *ents is a new
 * array the caller frees with walk_ents_free. */
hew_code walk_readdir(const char *dir, walk_ent **ents, size_t *n, hew_err *err);
void walk_ents_free(walk_ent *ents, size_t n);

/* For walks inside the workspace: the .gitignore files of root and of every directory
 * from root down to (and including) start_rel, as one chain (NULL when there are none).
 * Free with walk_gitignore_chain_free. */
hew_code walk_gitignore_chain(const char *root, const char *start_rel, ignore **chain,
                              hew_err *err);
void walk_gitignore_chain_free(ignore *chain);

typedef struct walk_opts {
    const char *dir;              /* absolute directory to walk */
    const char *root;             /* the workspace root, for .clineignore; NULL: outside */
    const char *dir_rel;          /* dir relative to root ("" for the root) when root set */
    bool gitignore;               /* honour .gitignore files (of dir's parents too) */
    bool skip_hidden;             /* skip names starting with '.' below dir */
    const ignore *cline;          /* .clineignore (relative to root); may be NULL */
    const char *const *skip_dirs; /* NULL-terminated names of directories not entered */
    hew_abort *abort;             /* may be NULL; an abort ends the walk (HEW_E_ABORTED) */
} walk_opts;

/* Called for every file (regular files only) in depth-first, name order: rel is relative
 * to dir. Return false to stop the walk. */
typedef bool (*walk_file_fn)(void *ud, const char *rel);

/* Walk every regular file below o->dir that no rule excludes. Unreadable directories are
 * skipped silently. */
hew_code walk_files(const walk_opts *o, walk_file_fn fn, void *ud, hew_err *err);

#endif
