/* sbuf — growable byte buffer with a sticky error (see sbuf.h). Never does I/O. */
#include "sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(sbuf *b, size_t more)
{
    if (b->err)
        return -1;
    if (more > SBUF_MAX - b->len - 1) {
        b->err = 1;
        return -1;
    }
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SBUF_MAX / 2 ? SBUF_MAX : cap * 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->err = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void sbuf_add(sbuf *b, const char *s, size_t n)
{
    if (grow(b, n) != 0)
        return;
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sbuf_puts(sbuf *b, const char *s)
{
    sbuf_add(b, s, strlen(s));
}

void sbuf_putc(sbuf *b, char c)
{
    sbuf_add(b, &c, 1);
}

void sbuf_repeat(sbuf *b, const char *s, size_t n)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < n && !b->err; i++)
        sbuf_add(b, s, len);
}

void sbuf_printf(sbuf *b, const char *fmt, ...)
{
    if (b->err)
        return;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->err = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        sbuf_add(b, small, (size_t)n);
        return;
    }
    if (grow(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sbuf_reset(sbuf *b)
{
    b->len = 0;
    b->err = 0;
    if (b->data)
        b->data[0] = '\0';
}

void sbuf_release(sbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->err = 0;
}

char *sbuf_detach(sbuf *b)
{
    if (b->err) {
        sbuf_release(b);
        return NULL;
    }
    char *s = b->data ? b->data : strdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}
