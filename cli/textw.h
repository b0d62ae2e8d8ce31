/* textw — how wide text is on a terminal: UTF-8 decoded and measured with utf8proc (wide
 * East Asian characters and emoji take two columns, an emoji sequence counts once,
 * combining marks none), ANSI escape sequences
 * (colours) take no room. Used to wrap the live region and to lay out markdown and tables.
 * Pure functions over memory: never writes to the terminal. */
#ifndef HEW_CLI_TEXTW_H
#define HEW_CLI_TEXTW_H

#include <stddef.h>

#include "sbuf.h"

/* Columns the text s[0..n) takes on one line (escape sequences skipped, invalid bytes one
 * column each, tabs counted as 4). */
size_t textw_width(const char *s, size_t n);

/* The length in bytes of the escape sequence at s (s[0] == ESC), at most n. */
size_t textw_escape_len(const char *s, size_t n);

/* The length in bytes and the columns of the UTF-8 character at s (n > 0), with what the
 * terminal draws as one picture with it: a variation selector 16 (U+FE0F: "⚠️" is two
 * columns, "⚠" one), a skin-tone modifier, the pictures a zero-width joiner joins, the
 * second regional indicator of a flag. *cols gets its width (0 for combining marks and
 * controls, 2 for wide characters and emoji). */
size_t textw_char(const char *s, size_t n, int *cols);

/* Cut s[0..n) into rows of at most width columns (width >= 1), breaking inside words if
 * needed, at newlines always. Each row is appended to out followed by "\r\n" except the
 * last; escape sequences are copied through; tabs become spaces; other control characters
 * are dropped. Returns the number of rows (at least 1). */
size_t textw_wrap_hard(sbuf *out, const char *s, size_t n, size_t width);

#endif
