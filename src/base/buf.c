/* buf — growable byte buffer with a hard cap and a sticky error (see buf.h). */
#include "base/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
    b->err = HEW_OK;
}

void buf_release(buf *b)
{
    free(b->data);
    buf_init(b, b->max);
}

void buf_reset(buf *b)
{
    b->len = 0;
    b->err = HEW_OK;
    if (b->data)
        b->data[0] = '\0';
}

static size_t limit_of(const buf *b)
{
    return b->max ? b->max : BUF_DEFAULT_MAX;
}

/* Ensure room for len + n bytes plus the NUL; false (with the sticky error set) if not. */
static int grow(buf *b, size_t n)
{
    if (b->err)
        return 0;
    size_t limit = limit_of(b);
    if (n > limit || b->len > limit - n) {
        b->err = HEW_E_TOOBIG;
        return 0;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (cap > limit + 1)
        cap = limit + 1;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->err = HEW_E_NOMEM;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    b->data[b->len] = '\0';
    return 1;
}

void buf_append(buf *b, const void *p, size_t n)
{
    if (!grow(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_puts(buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void buf_putc(buf *b, char c)
{
    buf_append(b, &c, 1);
}

void buf_vprintf(buf *b, const char *fmt, va_list ap)
{
    if (b->err)
        return;
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) {
        b->err = HEW_E_INVALID;
        return;
    }
    if (!grow(b, (size_t)n))
        return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void buf_printf(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *buf_reserve(buf *b, size_t n)
{
    if (!grow(b, n))
        return NULL;
    return b->data + b->len;
}

void buf_commit(buf *b, size_t n)
{
    if (b->err || !b->data || b->len + n + 1 > b->cap)
        return;
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_consume(buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
    } else {
        memmove(b->data, b->data + n, b->len - n);
        b->len -= n;
    }
    if (b->data)
        b->data[b->len] = '\0';
}

void buf_truncate(buf *b, size_t n)
{
    if (n >= b->len)
        return;
    b->len = n;
    b->data[n] = '\0';
}

hew_code buf_check(const buf *b, const char *what, hew_err *err)
{
    switch (b->err) {
    case HEW_OK:
        return HEW_OK;
    case HEW_E_TOOBIG:
        return hew_err_set(err, HEW_E_TOOBIG, "%s is larger than its limit of %zu bytes", what,
                           limit_of(b));
    case HEW_E_NOMEM:
        return hew_err_set(err, HEW_E_NOMEM, "out of memory while building %s", what);
    default:
        return hew_err_set(err, b->err, "%s: %s", what, hew_code_name(b->err));
    }
}

char *buf_detach(buf *b, size_t *len_out)
{
    if (b->err)
        return NULL;
    if (!b->data && !grow(b, 0))
        return NULL;
    char *p = b->data;
    if (len_out)
        *len_out = b->len;
    buf_init(b, b->max);
    return p;
}
