/* wsfile — files in a test's scratch workspace: write one (its folders made) and read one
 * back, by a path relative to the workspace's root. Test-only. */
#ifndef HEW_TEST_WSFILE_H
#define HEW_TEST_WSFILE_H

/* Write content to root/rel (mode 0644, atomically), making rel's folders; a failure is
 * a test failure (CHECK). */
void ws_put(const char *root, const char *rel, const char *content);

/* root/rel's text (at most 64 MiB), a new string the caller frees; NULL when it cannot be
 * read (no such file). */
char *ws_get(const char *root, const char *rel);

#endif
