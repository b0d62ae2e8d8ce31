/* buf — a growable byte buffer with a hard cap and a sticky error.
 *
 * Invariants:
 *   - data is NULL until the first append; after that data[len] == '\0' always, so the
 *     content can be used as a C string when it holds no NUL bytes;
 *   - len never exceeds max (the hard cap given at init; 0 means BUF_DEFAULT_MAX);
 *   - an append that would pass the cap or fails to allocate changes nothing and sets
 *     err (HEW_E_TOOBIG or HEW_E_NOMEM); the error is sticky: later appends are ignored
 *     until buf_reset(). Builders therefore append freely and check once at the end.
 *
 * Lifecycle: `buf b = BUF_INIT(cap);` or buf_init(); buf_release() frees (the buffer can
 * be reused after). buf_detach() hands the memory to the caller. */
#ifndef HEW_BASE_BUF_H
#define HEW_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/err.h"

#define BUF_DEFAULT_MAX ((size_t)1 << 30)

typedef struct buf {
    char *data;
    size_t len;
    size_t cap;   /* allocated bytes (excluding nothing: data[cap-1] is the last usable) */
    size_t max;   /* hard cap on len */
    hew_code err; /* sticky: HEW_OK, HEW_E_TOOBIG or HEW_E_NOMEM */
} buf;

#define BUF_INIT(max_bytes) { NULL, 0, 0, (max_bytes), HEW_OK }

void buf_init(buf *b, size_t max);
void buf_release(buf *b);

/* Forget the content and the error; keeps the allocation for reuse. */
void buf_reset(buf *b);

void buf_append(buf *b, const void *p, size_t n);
void buf_puts(buf *b, const char *s);
void buf_putc(buf *b, char c);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Make room for n more bytes without changing len; returns a pointer to write into, or
 * NULL (and sets the sticky error). Follow with buf_commit(b, written). */
char *buf_reserve(buf *b, size_t n);
void buf_commit(buf *b, size_t n);

/* Drop the first n bytes (n > len drops all). */
void buf_consume(buf *b, size_t n);

/* Shorten to n bytes (no-op when n >= len). */
void buf_truncate(buf *b, size_t n);

/* HEW_OK, or the sticky error; fills err with a message naming what (e.g. "SSE line"). */
hew_code buf_check(const buf *b, const char *what, hew_err *err);

/* Return the content as a NUL-terminated heap string owned by the caller (never NULL on
 * success: an empty buffer gives ""), and leave b empty. NULL if b holds an error. */
char *buf_detach(buf *b, size_t *len_out);

#endif
