/* mention — "@path" in a message the user sends attaches that workspace file, as Cline's
 * mentions do: the mention becomes 'path' (see below for file content) and the file's
 * text is appended as <file_content path="path">\n…\n</file_content> (the form the
 * context layer deduplicates). A mention is '@' at the start of the message or after a
 * blank, then a path relative to the workspace (Cline's "@/src/a.c" or "@src/a.c"); a
 * final , . ; : ! ? ) is not part of it. Only regular files inside the workspace are
 * attached: a path that .clineignore hides, a binary or too large file, or one that
 * cannot be read is left as typed, with a note saying why; a word that names no file
 * ("@team", "user@host") is left alone, silently. */
#ifndef HEW_CLI_MENTION_H
#define HEW_CLI_MENTION_H

#include "sbuf.h"

#define MENTION_FILE_MAX ((size_t)1 << 20) /* bytes of one attached file, at most */

/* The message text with its mentions of files in workspace cwd (NULL: here) attached:
 * a new string (the caller frees it), or NULL when there is no mention to attach (send
 * text as it is) or memory ran out. Each mention left as typed for a reason adds a line
 * to notes ("@secret.env: .clineignore hides it — not attached"). *attached: how many
 * files were attached (may be NULL). */
char *mention_expand(const char *cwd, const char *text, sbuf *notes, int *attached);

#endif
