/* tval — growing values with JavaScript trim semantics (see tval.h).
 *
 * Each push looks only at the new bytes, plus at most 3 held bytes of an unfinished UTF-8
 * sequence: the join of "held tail + new bytes" is read through a tiny two-part view. */
#include "parse/tval.h"

#include <stdint.h>
#include <string.h>

#include "base/utf8.h"

size_t tval_space_at(const unsigned char *s, size_t n, bool *need_more)
{
    if (need_more)
        *need_more = false;
    if (n == 0)
        return 0;
    unsigned char c = s[0];
    if ((c >= 0x09 && c <= 0x0D) || c == 0x20)
        return 1;
    /* Multi-byte spaces: C2 A0 | E1 9A 80 | E2 80 80..8A,A8,A9,AF | E2 81 9F | E3 80 80 |
     * EF BB BF. */
    const unsigned char *pat = NULL;
    size_t plen = 0;
    switch (c) {
    case 0xC2: pat = (const unsigned char *)"\xC2\xA0"; plen = 2; break;
    case 0xE1: pat = (const unsigned char *)"\xE1\x9A\x80"; plen = 3; break;
    case 0xE3: pat = (const unsigned char *)"\xE3\x80\x80"; plen = 3; break;
    case 0xEF: pat = (const unsigned char *)"\xEF\xBB\xBF"; plen = 3; break;
    case 0xE2:
        if (n < 2) {
            if (need_more)
                *need_more = true;
            return 0;
        }
        if (s[1] == 0x80) {
            if (n < 3) {
                if (need_more)
                    *need_more = true;
                return 0;
            }
            unsigned char d = s[2];
            return (d >= 0x80 && d <= 0x8A) || d == 0xA8 || d == 0xA9 || d == 0xAF ? 3 : 0;
        }
        if (s[1] == 0x81) {
            if (n < 3) {
                if (need_more)
                    *need_more = true;
                return 0;
            }
            return s[2] == 0x9F ? 3 : 0;
        }
        return 0;
    default:
        return 0;
    }
    size_t k = n < plen ? n : plen;
    if (memcmp(s, pat, k) != 0)
        return 0;
    if (k < plen) {
        if (need_more)
            *need_more = true;
        return 0;
    }
    return plen;
}

size_t tval_space_before(const unsigned char *s, size_t end)
{
    if (end == 0)
        return 0;
    unsigned char c = s[end - 1];
    if (c < 0x80)
        return (c >= 0x09 && c <= 0x0D) || c == 0x20 ? 1 : 0;
    if (c == 0xA0)
        return end >= 2 && s[end - 2] == 0xC2 ? 2 : 0;
    if (end < 3)
        return 0;
    unsigned char a = s[end - 3], b = s[end - 2];
    bool ok = false;
    switch (c) {
    case 0x80:
        ok = (a == 0xE1 && b == 0x9A) || (a == 0xE2 && b == 0x80) || (a == 0xE3 && b == 0x80);
        break;
    case 0x9F: ok = a == 0xE2 && b == 0x81; break;
    case 0xBF: ok = a == 0xEF && b == 0xBB; break;
    default:
        ok = a == 0xE2 && b == 0x80 &&
             ((c >= 0x81 && c <= 0x8A) || c == 0xA8 || c == 0xA9 || c == 0xAF);
        break;
    }
    return ok ? 3 : 0;
}

void tval_init(tval *v, enum tval_mode mode, size_t max_bytes)
{
    memset(v, 0, sizeof *v);
    buf_init(&v->text, max_bytes);
    buf_init(&v->pend, max_bytes);
    v->mode = (unsigned char)mode;
}

void tval_release(tval *v)
{
    buf_release(&v->text);
    buf_release(&v->pend);
    v->nw = 0;
    v->unk = 0;
    v->started = false;
}

void tval_reset(tval *v)
{
    buf_reset(&v->text);
    buf_reset(&v->pend);
    v->dropped = 0;
    v->nw = 0;
    v->unk = 0;
    v->started = false;
}

const char *tval_str(const tval *v, size_t *len)
{
    if (len)
        *len = v->text.len;
    return v->text.data ? v->text.data : "";
}

void tval_drop(tval *v, size_t upto)
{
    if (upto <= v->dropped)
        return;
    size_t k = upto - v->dropped;
    if (k > v->text.len)
        k = v->text.len;
    if (k && v->text.data) {
        memmove(v->text.data, v->text.data + k, v->text.len - k);
        buf_truncate(&v->text, v->text.len - k);
    }
    v->dropped += k;
}

size_t tval_dropped(const tval *v)
{
    return v->dropped;
}

hew_code tval_error(const tval *v)
{
    return v->text.err ? v->text.err : v->pend.err;
}

/* buf_append with a fast path for the common case (room in the allocation, no error):
 * the streaming path appends a few bytes per call, so the call into buf is what costs.
 * Keeps buf's invariants: len <= max, data[len] == '\0'. */
static inline void app(buf *b, const char *s, size_t n)
{
    size_t limit = b->max ? b->max : BUF_DEFAULT_MAX;
    if (b->err == HEW_OK && b->data && n < b->cap - b->len && n <= limit - b->len) {
        char *d = b->data + b->len;
        if (n >= 8 && n <= 16) {
            uint64_t x, y;
            memcpy(&x, s, 8);
            memcpy(&y, s + n - 8, 8);
            memcpy(d, &x, 8);
            memcpy(d + n - 8, &y, 8);
        } else if (n < 8) {
            for (size_t i = 0; i < n; i++)
                d[i] = s[i];
        } else {
            memcpy(d, s, n);
        }
        b->len += n;
        d[n] = '\0';
        return;
    }
    buf_append(b, s, n);
}

/* The bytes "held tail (a) + new bytes (b)" seen as one string. */
typedef struct vstr {
    const unsigned char *a, *b;
    size_t na, nb;
} vstr;

static unsigned char vat(const vstr *s, size_t i)
{
    return i < s->na ? s->a[i] : s->b[i - s->na];
}

/* Copy up to 3 bytes of s starting at i into w; returns how many. */
static size_t vwin(const vstr *s, size_t i, unsigned char w[3])
{
    size_t n = s->na + s->nb, k = 0;
    while (k < 3 && i + k < n) {
        w[k] = vat(s, i + k);
        k++;
    }
    return k;
}

/* Length of the unfinished UTF-8 sequence at the end of s (0..3). */
static size_t vtail(const vstr *s)
{
    size_t n = s->na + s->nb;
    if (n == 0 || vat(s, n - 1) < 0x80)
        return 0;
    size_t k = n < 3 ? n : 3;
    unsigned char w[3];
    for (size_t i = 0; i < k; i++)
        w[i] = vat(s, n - k + i);
    return k - utf8_complete_prefix((const char *)w, k);
}

/* End of the last non-space byte in s[from..end), scanning back over spaces; from if
 * there is none. */
static size_t vlast_nonspace(const vstr *s, size_t from, size_t end)
{
    while (end > from) {
        size_t sp;
        if (end <= s->na) {
            sp = tval_space_before(s->a, end);
        } else if (end - s->na >= 3) {
            sp = tval_space_before(s->b, end - s->na);
        } else {
            unsigned char w[3];
            size_t k = end < 3 ? end : 3;
            for (size_t i = 0; i < k; i++)
                w[i] = vat(s, end - k + i);
            sp = tval_space_before(w, k);
        }
        if (sp == 0 || end - sp < from)
            return end;
        end -= sp;
    }
    return from;
}

/* Start of the first non-space byte in s[0..end), or end when all are spaces. */
static size_t vfirst_nonspace(const vstr *s, size_t end)
{
    size_t i = 0;
    while (i < end) {
        unsigned char w[3];
        size_t k = vwin(s, i, w);
        size_t sp = tval_space_at(w, k, NULL);
        if (sp == 0)
            return i;
        i += sp;
    }
    return end;
}

/* Append s[from..to) to b. */
static void vappend(buf *b, const vstr *s, size_t from, size_t to)
{
    if (from >= to)
        return;
    if (from < s->na) {
        size_t e = to < s->na ? to : s->na;
        app(b, (const char *)s->a + from, e - from);
        from = e;
    }
    if (from < to)
        app(b, (const char *)s->b + (from - s->na), to - from);
}

bool tval_push_nonul(tval *v, const char *s, size_t n)
{
    bool changed = false;
    for (;;) {
        const char *z = n ? memchr(s, '\0', n) : NULL;
        size_t k = z ? (size_t)(z - s) : n;
        if (k && tval_push(v, s, k))
            changed = true;
        if (!z)
            return changed;
        if (tval_push(v, UTF8_REPLACEMENT, 3))
            changed = true;
        s = z + 1;
        n -= k + 1;
    }
}

bool tval_push(tval *v, const char *str, size_t n)
{
    if (n == 0)
        return false;
    /* Fast path: nothing held, and the bytes end with an ASCII character that is not a
     * space, so all of them (and the spaces waiting before them) become visible. */
    if (v->unk == 0 && v->mode != TVAL_MARKED && (v->started || v->mode == TVAL_RAW)) {
        /* Fast path: nothing held, and the bytes end in ASCII: all of them up to the last
         * non-space (and the spaces waiting before them) become visible. */
        size_t last = n;
        while (last > 0) {
            unsigned char c = (unsigned char)str[last - 1];
            if (c >= 0x80)
                break;
            if (c != 0x20 && !(c >= 0x09 && c <= 0x0D))
                break;
            last--;
        }
        unsigned char lc = last ? (unsigned char)str[last - 1] : 0;
        if (v->mode == TVAL_RAW && (unsigned char)str[n - 1] < 0x80) {
            app(&v->text, str, n);
            return true;
        }
        if (last > 0 && lc < 0x80) {
            if (v->pend.len) {
                app(&v->text, v->pend.data, v->pend.len);
                buf_reset(&v->pend);
            }
            app(&v->text, str, last);
            if (last < n)
                app(&v->pend, str + last, n - last);
            return true;
        }
    }
    /* Take the held tail out of pend: it is re-read together with the new bytes. */
    unsigned char held[4];
    size_t nh = v->unk;
    if (nh) {
        memcpy(held, v->pend.data + v->pend.len - nh, nh);
        buf_truncate(&v->pend, v->pend.len - nh);
        v->unk = 0;
    }
    vstr s = { held, (const unsigned char *)str, nh, n };
    size_t total = nh + n;
    size_t tail = vtail(&s);
    size_t end = total - tail; /* bytes that can be classified now */

    if (v->mode == TVAL_RAW) {
        vappend(&v->text, &s, 0, end);
        vappend(&v->pend, &s, end, total);
        v->unk = (unsigned char)tail;
        return end > 0;
    }

    size_t from = 0;
    if (!v->started) {
        from = vfirst_nonspace(&s, end);
        if (from >= end) {
            /* Only spaces so far: they are dropped; an unfinished sequence waits. */
            vappend(&v->pend, &s, end, total);
            v->unk = (unsigned char)tail;
            return false;
        }
        v->started = true;
    }
    size_t last = vlast_nonspace(&s, from, end);
    bool changed = false;
    if (v->mode == TVAL_TRIM) {
        if (last > from) {
            if (v->pend.len) {
                app(&v->text, v->pend.data, v->pend.len);
                buf_reset(&v->pend);
            }
            vappend(&v->text, &s, from, last);
            changed = true;
        }
        vappend(&v->pend, &s, last > from ? last : from, total);
    } else { /* MARKED */
        size_t base = v->pend.len;
        vappend(&v->pend, &s, from, total);
        if (last > from)
            v->nw = base + (last - from);
    }
    v->unk = (unsigned char)tail;
    return changed;
}

bool tval_finish(tval *v)
{
    bool changed = false;
    if (v->mode == TVAL_MARKED) {
        buf_release(&v->pend);
        v->unk = 0;
        v->nw = 0;
        return false;
    }
    if (v->unk) {
        /* An unfinished sequence is a character, and not a space. */
        if (v->pend.len) {
            buf_append(&v->text, v->pend.data, v->pend.len);
            changed = true;
        }
        v->started = true;
    }
    buf_release(&v->pend);
    v->unk = 0;
    return changed;
}

void tval_to_marked(tval *v)
{
    if (v->mode == TVAL_TRIM && v->unk) {
        buf_append(&v->text, v->pend.data, v->pend.len);
        buf_reset(&v->pend);
        v->started = true;
    }
    v->unk = 0;
    v->nw = 0;
    v->mode = TVAL_MARKED;
}

size_t tval_mark_point(const tval *v)
{
    return v->unk ? v->pend.len : v->nw;
}

bool tval_mark(tval *v, size_t point)
{
    if (point == 0 || point > v->pend.len)
        return false;
    buf_append(&v->text, v->pend.data, point);
    buf_consume(&v->pend, point);
    v->started = true;
    v->nw = v->nw > point ? v->nw - point : 0;
    return true;
}
