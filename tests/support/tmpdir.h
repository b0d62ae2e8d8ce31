/* tmpdir — scratch directories for unit tests: a fresh mkdtemp directory, and a recursive
 * remove for cleanup. Test-only; never point tmpdir_remove at anything it did not make. */
#ifndef HEW_TEST_TMPDIR_H
#define HEW_TEST_TMPDIR_H

/* A new empty directory under $TMPDIR (or /tmp), named hew-test-<tag>-XXXXXX, with its
 * realpath; returns a new string the caller frees (after tmpdir_remove), or NULL. */
char *tmpdir_make(const char *tag);

/* Remove path and everything below it (symlinks are removed, not followed). Restores
 * owner write/exec permission on directories first so read-only test dirs go too. */
void tmpdir_remove(const char *path);

#endif
