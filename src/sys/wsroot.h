/* wsroot — which folder is a workspace's root: the one place that says where a
 * workspace's project files (.hew/config.json, .hew/mcp.json) are read from.
 *
 * The root of a start folder is the top level of the git repository containing it — the
 * nearest folder upwards holding a `.git` (a directory, or a file as in worktrees and
 * submodules) — but only when that `.git` and its folder belong to the user (git's
 * safe.directory rule: a /tmp/.git planted by another user must not make /tmp the root of
 * everything below it). Otherwise, and when no repository is found before the file system
 * changes (git's discovery stops there too) or at `/`, the root is the start folder
 * itself. Never an arbitrary ancestor. It only looks (lstat/stat); it never reads or
 * runs git. */
#ifndef HEW_SYS_WSROOT_H
#define HEW_SYS_WSROOT_H

#include <sys/types.h>

#include "base/err.h"

/* The root of start (a directory; symlinks resolved) for the user uid: a new absolute,
 * resolved path the caller frees, or NULL with err set (HEW_E_NOTFOUND: start does not
 * exist; HEW_E_INVALID: it is not a directory; HEW_E_NOMEM). */
char *wsroot_find(const char *start, uid_t uid, hew_err *err);

#endif
