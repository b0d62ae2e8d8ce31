/* fsat — opening, creating and replacing files beneath a directory descriptor, so that the
 * path a caller checked is exactly the path the kernel opens. It must never follow a
 * symbolic link, never climb above its directory (no `..`, no absolute path), never leave
 * a named temporary file behind a write that did not finish, and never run a shell.
 *
 * Why: a path that was resolved and checked once (path_resolve_in) and opened by name
 * later can be redirected in between by another process that swaps a folder on it for a
 * symlink. fsat closes that window: the caller opens the directory it trusts once (the
 * workspace root, or "/" for a path outside the workspace the user approved) and hands
 * fsat the *canonical* relative path it checked (no symlinks, no `..`: what path.c
 * resolves). fsat opens it with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS); where openat2 is missing (Linux < 5.6, ENOSYS, detected at run
 * time) it walks one component at a time with openat(O_NOFOLLOW). Either way a symlink
 * that appears on the path — the swap — makes the open fail (HEW_E_ESCAPE); it never
 * redirects. A legitimate symlink inside the workspace still works: its target is what
 * path.c resolved, and that target is what is opened.
 *
 * Writes (fsat_write_atomic) fill an anonymous O_TMPFILE inode in the target's directory,
 * fsync it, give it a name hew recognises (".NAME.hew.PID.RANDOM.tmp", via linkat through
 * /proc/self/fd) and rename that over the target in the same directory descriptor; a
 * process killed before the link leaves nothing at all. The short window between the link
 * and the rename (and the whole write on file systems without O_TMPFILE, which get a
 * named temporary file) is covered by a journal: when fsat_journal_set named a directory,
 * each pending temporary file is listed there first (one small file per write, removed
 * after the rename), and fsat_journal_clean removes what a killed process left.
 *
 * Errors (messages name the path; what to do where it helps):
 *   HEW_E_ESCAPE    a symlink (or a magic link) is on the path, the path has `..` or is
 *                   absolute: the path changed since it was checked — nothing was opened;
 *   HEW_E_NOTFOUND  a component does not exist (or one is not a directory);
 *   HEW_E_INVALID   the wrong kind of file (a directory where a file is written), a bad
 *                   name;
 *   HEW_E_IO        anything else the system refused; HEW_E_NOMEM.
 * Every descriptor is O_CLOEXEC. Thread-safe. */
#ifndef HEW_BASE_FSAT_H
#define HEW_BASE_FSAT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/err.h"

/* Open dir (an absolute, trusted directory: the workspace root or "/") as the base of
 * later fsat calls: *fd_out is an O_PATH directory descriptor the caller closes. */
hew_code fsat_base_open(const char *dir, int *fd_out, hew_err *err);

/* Open rel beneath dirfd with open(2) flags (O_CLOEXEC is added; mode for O_CREAT), never
 * following a symlink anywhere on the way, the last component included. rel is relative,
 * '/'-separated, without `..` ("", "." or "./" name dirfd itself). With O_PATH a
 * symlink is refused too (never opened as itself). *fd_out is the new descriptor. */
hew_code fsat_open(int dirfd, const char *rel, int flags, mode_t mode, int *fd_out,
                   hew_err *err);

/* fstat of rel beneath dirfd, through fsat_open(O_PATH): never follows a symlink. */
hew_code fsat_stat(int dirfd, const char *rel, struct stat *st, hew_err *err);

/* Open rel beneath dirfd for reading when it is a regular file, without opening anything
 * else (a FIFO, a device): it is looked at with O_PATH first, then opened O_RDONLY, and
 * both must be the same file. *st gets its stat in every HEW_OK case; *fd_out is the
 * descriptor for a regular file, -1 for anything else (the caller says why). */
hew_code fsat_open_file(int dirfd, const char *rel, int *fd_out, struct stat *st,
                        hew_err *err);

/* Make sure the directory rel exists beneath dirfd, creating missing components (mode,
 * the umask applies) one at a time with mkdirat and never through a symlink. *fd_out is
 * an O_PATH descriptor of it. An existing non-directory on the way is HEW_E_INVALID. */
hew_code fsat_mkdirs(int dirfd, const char *rel, mode_t mode, int *fd_out, hew_err *err);

/* Replace the entry name (one component) of the directory dirfd with data[0..len)
 * atomically (see above): readers see the old or the new content, also after a crash.
 * dir_path names that directory (absolute: for the journal and the messages). mode:
 * permission bits of a new file (the umask applies); an existing regular file keeps its
 * own. A symlink at name is replaced, not followed; a directory there is HEW_E_INVALID. */
hew_code fsat_write_atomic(int dirfd, const char *dir_path, const char *name,
                           const void *data, size_t len, mode_t mode, hew_err *err);

/* ---- the journal of pending temporary files --------------------------------------------- */

/* Record pending temporary files in dir (created, 0700, when missing) from now on; NULL
 * turns the journal off. One directory per process (the last call wins). */
hew_code fsat_journal_set(const char *dir, hew_err *err);

/* Remove what writes of processes that are gone left in dir: each listed temporary file
 * that still looks like hew's (its name, a regular file, and the inode recorded when there
 * is one) is unlinked, and the entry with it. Entries of running processes (this one
 * included) are left alone. *removed (may be NULL) counts the files removed. A missing
 * dir is fine. */
hew_code fsat_journal_clean(const char *dir, size_t *removed, hew_err *err);

/* True when name is the name of one of fsat's temporary files. */
bool fsat_is_temp_name(const char *name);

/* ---- for tests ---------------------------------------------------------------------------- */

/* Use the per-component walk even where openat2 works (true), or openat2 again. */
void fsat_test_no_openat2(bool off);
/* Skip O_TMPFILE: use a named temporary file, as on file systems without it. */
void fsat_test_no_tmpfile(bool off);
/* Kill this process with SIGKILL when a write reaches point: "written" (the data is in
 * the O_TMPFILE, not yet linked), "linked" (the temporary name exists, the rename has not
 * happened), "named" (the named temporary file is written, not yet renamed); "POINT:NAME"
 * only for a target of that name. NULL: off. The environment variable HEW_TEST_FAULT sets
 * it too (for end-to-end tests; read at the first write). */
void fsat_test_fault(const char *point);

#endif
