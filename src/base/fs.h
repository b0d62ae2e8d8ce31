/* fs — whole-file reads with a hard cap, crash-safe atomic writes, mkdir -p, and the small
 * file checks everything else needs. It must never run a shell, never leave a half-written
 * target or a stray temporary file behind, and never read more than the cap it was given.
 *
 * Errors (every message names the path and says what to do):
 *   HEW_E_NOTFOUND  the file, or a directory on its path, does not exist;
 *   HEW_E_TOOBIG    the file is larger than the caller's cap (the message names the cap);
 *   HEW_E_INVALID   the path names the wrong kind of thing (a directory where a file is
 *                   expected, a file where a directory is expected), or is empty;
 *   HEW_E_IO        anything else the system refused (permission, disk full, ...);
 *   HEW_E_NOMEM     out of memory.
 * All descriptors are opened O_CLOEXEC, so child processes never inherit them. */
#ifndef HEW_BASE_FS_H
#define HEW_BASE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

/* Read the whole file at path into a new NUL-terminated buffer the caller frees (*out;
 * *len gets the byte count without the NUL; len may be NULL). Fails with HEW_E_TOOBIG when
 * the file holds more than max_bytes, checked on the size first and again while reading
 * (a file that grows while read, or a pipe). On failure *out is NULL. */
hew_code fs_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                      hew_err *err);

/* The same from an open descriptor (the caller keeps and closes it): what names the file
 * in messages. For reads of a file opened beneath a directory (base/fsat.h). */
hew_code fs_read_fd(int fd, const char *what, size_t max_bytes, char **out, size_t *len,
                    hew_err *err);

/* Replace path with data[0..len) atomically (fsat_write_atomic in path's directory: an
 * O_TMPFILE inode, fsynced, named and renamed over path, the directory fsynced). Readers
 * see either the old or the new content, also after a crash. On any failure the old
 * target is untouched and no temporary file is left (one left by a killed process is
 * listed in the journal of base/fsat.h).
 * mode: permission bits for a new file (the umask applies); an existing target keeps its
 * own permission bits (an edited script stays executable). A symlink at path is replaced
 * by the new file, not followed: resolve the path first (path_resolve_in) to write through
 * it. The directory must exist (fs_mkdirs). */
hew_code fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
                         hew_err *err);

/* Create path and every missing parent, like `mkdir -p` (mode for the created ones, the
 * umask applies). Existing directories are fine; an existing non-directory on the way is
 * HEW_E_INVALID. */
hew_code fs_mkdirs(const char *path, mode_t mode, hew_err *err);

/* The error for a failed system call (errno e) on path: HEW_E_NOTFOUND, HEW_E_IO (with a
 * hint for permission, space, read-only), HEW_E_NOMEM; verb says what was tried ("read").
 * Returns the code. */
hew_code fs_error(hew_err *err, int e, const char *verb, const char *path);

/* Write all of data[0..len) to fd, retrying short writes and EINTR. what names the target
 * in the message ("log file"). */
hew_code fs_write_all(int fd, const void *data, size_t len, const char *what, hew_err *err);

/* True when something exists at path (symlinks followed; a dangling link is false). */
bool fs_exists(const char *path);

/* True when path is a directory / a regular file (symlinks followed). */
bool fs_is_dir(const char *path);
bool fs_is_file(const char *path);

#endif
