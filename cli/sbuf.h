/* sbuf — the growable byte buffer of the `hew` command (frames for the screen, rendered
 * markdown, config text). Builders keep a sticky error: appends return nothing, and a
 * buffer that could not grow (out of memory or past SBUF_MAX) sets err and ignores every
 * later append, so one check at the end is enough. data is always NUL-terminated once
 * anything was appended. It never writes anywhere but its own memory. */
#ifndef HEW_CLI_SBUF_H
#define HEW_CLI_SBUF_H

#include <stdarg.h>
#include <stddef.h>

#define SBUF_MAX ((size_t)256 << 20)

typedef struct sbuf {
    char *data;
    size_t len, cap;
    int err;
} sbuf;

#define SBUF_INIT { NULL, 0, 0, 0 }

void sbuf_add(sbuf *b, const char *s, size_t n);
void sbuf_puts(sbuf *b, const char *s);
void sbuf_putc(sbuf *b, char c);
void sbuf_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append the string s n times. */
void sbuf_repeat(sbuf *b, const char *s, size_t n);
/* Forget the contents (keep the memory); clears err. */
void sbuf_reset(sbuf *b);
/* Free the memory; b is empty again. */
void sbuf_release(sbuf *b);
/* Hand over the contents as a new NUL-terminated string the caller frees ("" when empty);
 * b is empty again. NULL when the buffer had an error. */
char *sbuf_detach(sbuf *b);

#endif
