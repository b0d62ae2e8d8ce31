/* path — confining paths to a workspace, and the small lexical path helpers. The one
 * question it answers for the tools: "which real file does this path name, and is it
 * inside the workspace?" It must never decide containment by comparing unresolved strings:
 * `..` and symlinks are resolved against the file system first, and containment is checked
 * component by component (/a/bc is not inside /a/b). It never creates anything.
 *
 * Resolution (path_resolve_in) walks the path one component at a time, like the kernel:
 * an existing symlink is replaced by its target (also a dangling one, and also after
 * `..`), `..` goes to the parent of what has been resolved so far, and components that do
 * not exist yet are taken as they are, so a path for a file (or folders) about to be
 * created resolves too. The result is absolute, has no `.`, `..`, symlinks or doubled
 * slashes in its existing part, and no trailing slash (except "/"). It is a snapshot:
 * a process that swaps a directory for a symlink between this check and an open by name
 * can still redirect that open, so open the result with base/fsat.h (beneath the root,
 * no symlink followed), never by name. A component that changes kind while it is looked
 * at (a symlink that is a folder again) is looked at again.
 *
 * Errors:
 *   HEW_E_ESCAPE    the path resolves outside the workspace (the message shows both);
 *   HEW_E_NOTFOUND  the workspace root does not exist;
 *   HEW_E_INVALID   empty path, root that is not a directory, symlink loop, path too long;
 *   HEW_E_IO        the file system refused to look (permission denied on a directory);
 *   HEW_E_NOMEM     out of memory. */
#ifndef HEW_SYS_PATH_H
#define HEW_SYS_PATH_H

#include <stdbool.h>

#include "base/err.h"

/* Resolve path against the workspace root and check that it stays inside. Relative paths
 * are taken from root; absolute paths are allowed when they resolve inside root. root is
 * itself resolved (realpath), so it may be given with a trailing slash or through a
 * symlink. On success *resolved_out is a new absolute string the caller frees (root itself
 * when path is "."); on failure it is NULL. */
hew_code path_resolve_in(const char *root, const char *path, char **resolved_out,
                         hew_err *err);

/* a and b joined by exactly one '/'; when b is absolute, a copy of b; when a is empty, a
 * copy of b. Returns a new string the caller frees, NULL only when memory runs out. */
char *path_join(const char *a, const char *b);

/* Lexical normalisation: doubled slashes and `.` removed, `name/..` folded, trailing
 * slash dropped; `..` at the start of a relative path is kept, above "/" it is dropped;
 * "" gives ".". Does not touch the file system, so it is only right for paths without
 * symlinks (use path_resolve_in for real files). Returns a new string the caller frees. */
char *path_normalize(const char *path);

/* True when p is root or below it, compared component-wise ("/a/b/c" is inside "/a/b",
 * "/a/bc" is not; everything is inside "/"). Lexical: give it resolved paths. A trailing
 * slash on either is ignored. */
bool path_is_inside(const char *root, const char *p);

/* p shown relative to root for display: "src/main.c" for p = root + "/src/main.c", "."
 * for root itself, p unchanged when it is not inside root. Lexical. Returns a new string
 * the caller frees, NULL only when memory runs out. */
char *path_relative_to(const char *root, const char *p);

#endif
