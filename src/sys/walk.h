/* walk — directory listing and recursive walks for list_files and search_files, with the
 * ignore rules applied on the way down (nested .gitignore files, .clineignore, hidden
 * names, named directories not to enter). It must never follow a symbolic link to a
 * directory (no loops, no escaping the workspace through a link), never read a file's
 * content (only .gitignore files), and never enter a directory its rules exclude.
 *
 * Paths given to callbacks are relative to the walk's start directory, with '/'
 * separators; entries come in byte order of their names, directory by directory.
 *
 * Descriptors, not names: the start directory is opened beneath the workspace root (or
 * "/" outside it) with base/fsat.h, every directory below it with openat(O_NOFOLLOW) from
 * its parent's descriptor, and .gitignore files from their directory's descriptor, so a
 * folder swapped for a symlink during a walk is never entered. */
#ifndef HEW_SYS_WALK_H
#define HEW_SYS_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "sys/abort.h"
#include "base/err.h"
#include "sys/ignore.h"

typedef enum walk_kind { WALK_FILE, WALK_DIR, WALK_LINK, WALK_OTHER } walk_kind;

typedef struct walk_ent {
    char *name;
    walk_kind kind; /* a symlink is WALK_LINK whatever it points to */
} walk_ent;

/* The entries of one directory ("." and ".." left out), sorted by name; *ents is a new
 * array the caller frees with walk_ents_free. */
hew_code walk_readdir(const char *dir, walk_ent **ents, size_t *n, hew_err *err);
/* The same for an open directory descriptor (kept open; what names it in messages). */
hew_code walk_readdir_fd(int dirfd, const char *what, walk_ent **ents, size_t *n,
                         hew_err *err);
void walk_ents_free(walk_ent *ents, size_t n);

/* Open a directory to walk or list without following any symlink: with root and dir_rel
 * (the canonical path relative to the workspace root, "" or "." for the root) beneath
 * root; otherwise dir, an absolute canonical path (ws_resolve's), beneath "/". *fd is an
 * O_RDONLY|O_DIRECTORY descriptor the caller closes. Errors as fsat_open's. */
hew_code walk_open_dir(const char *root, const char *dir_rel, const char *dir, int *fd,
                       hew_err *err);

/* The .gitignore of the directory dirfd (read without following a symlink) as a new set
 * for base below parent; *out is NULL when there is none. */
hew_code walk_gitignore_at(const ignore *parent, int dirfd, const char *base, ignore **out,
                           hew_err *err);

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
    int *dirfd_out;               /* may be NULL; else gets a descriptor of dir (the caller
                                     closes it, -1 when the walk failed): open the files the
                                     walk gave beneath it with fsat_open */
} walk_opts;

/* Called for every file (regular files only) in depth-first, name order: rel is relative
 * to dir. Return false to stop the walk. */
typedef bool (*walk_file_fn)(void *ud, const char *rel);

/* Walk every regular file below o->dir that no rule excludes. Unreadable directories are
 * skipped silently, and so are those deeper than 200 levels. o->dir must be canonical
 * (no symlinks: ws_resolve's path) when o->root is NULL. */
hew_code walk_files(const walk_opts *o, walk_file_fn fn, void *ud, hew_err *err);

#endif
