/* termsafe — control characters and escape sequences from outside hew made visible or
 * removed before they reach a terminal (see termsafe.h). A byte-class table drives a
 * small state machine; runs of plain text (ASCII and valid, harmless UTF-8) are copied at
 * once. It must never let an ESC, a C1 control or invalid UTF-8 through, never allocate
 * per byte, and never write anywhere but the sbuf (or stream) it is given. */
#include "termsafe.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

enum { TS_GROUND, TS_ESC, TS_CSI, TS_CR, TS_UTF8 };

enum { CSI_SGR = 1, CSI_INTER = 2 };

/* Byte classes: T plain text (printable ASCII, TAB, LF), C a C0 control or DEL, E ESC,
 * R CR, B a byte that cannot start a UTF-8 character, 2/3/4 the lead byte of a UTF-8
 * character of that length. */
enum { T, C, E, R, B, L2, L3, L4 };

static const unsigned char cls[256] = {
    /* 0x00 */ C, C, C, C, C, C, C, C, C, T, T, C, C, R, C, C,
    /* 0x10 */ C, C, C, C, C, C, C, C, C, C, C, E, C, C, C, C,
    /* 0x20 */ T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T,
    /* 0x30 */ T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T,
    /* 0x40 */ T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T,
    /* 0x50 */ T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T,
    /* 0x60 */ T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T,
    /* 0x70 */ T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, C,
    /* 0x80 */ B, B, B, B, B, B, B, B, B, B, B, B, B, B, B, B,
    /* 0x90 */ B, B, B, B, B, B, B, B, B, B, B, B, B, B, B, B,
    /* 0xa0 */ B, B, B, B, B, B, B, B, B, B, B, B, B, B, B, B,
    /* 0xb0 */ B, B, B, B, B, B, B, B, B, B, B, B, B, B, B, B,
    /* 0xc0 */ B, B, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2,
    /* 0xd0 */ L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2, L2,
    /* 0xe0 */ L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3, L3,
    /* 0xf0 */ L4, L4, L4, L4, L4, B, B, B, B, B, B, B, B, B, B, B,
};

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Code points that are valid UTF-8 but must not reach the terminal as they are: C1
 * controls, bidirectional embeddings/overrides/isolates, tag characters. */
static int shown_as_code(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069) || (cp >= 0xe0000 && cp <= 0xe007f);
}

/* The range of the byte after lead byte c (which rules out overlong forms, surrogates
 * and code points past U+10FFFF), its payload bits and the continuation bytes it needs. */
static void lead(unsigned char c, uint8_t *lo, uint8_t *hi, uint32_t *cp, uint8_t *need)
{
    *lo = 0x80;
    *hi = 0xbf;
    if (c < 0xe0) {
        *cp = c & 0x1fu;
        *need = 1;
        return;
    }
    if (c < 0xf0) {
        *cp = c & 0x0fu;
        *need = 2;
        if (c == 0xe0)
            *lo = 0xa0;
        else if (c == 0xed)
            *hi = 0x9f;
        return;
    }
    *cp = c & 0x07u;
    *need = 3;
    if (c == 0xf0)
        *lo = 0x90;
    else if (c == 0xf4)
        *hi = 0x8f;
}

/* The length of the valid, harmless UTF-8 character at p (lead byte class k), when it is
 * all there; 0 otherwise (the byte machine then decides, the same way). */
static size_t plain_char(const unsigned char *p, size_t n, unsigned char k)
{
    size_t len = (size_t)(k - L2) + 2;
    if (n < len)
        return 0;
    uint8_t lo, hi, need;
    uint32_t cp;
    lead(p[0], &lo, &hi, &cp, &need);
    if (p[1] < lo || p[1] > hi)
        return 0;
    cp = cp << 6 | (p[1] & 0x3fu);
    for (size_t i = 2; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    return shown_as_code(cp) ? 0 : len;
}

static void put_caret(sbuf *out, unsigned char c)
{
    char v[2] = { '^', (char)(c ^ 0x40) }; /* ^@ .. ^_, DEL as ^? */
    sbuf_add(out, v, 2);
}

static void put_code(sbuf *out, uint32_t cp)
{
    static const char hex[] = "0123456789ABCDEF";
    char v[16];
    size_t n = 0;
    v[n++] = '<';
    v[n++] = 'U';
    v[n++] = '+';
    int digits = cp > 0xffff ? 5 : 4;
    for (int d = digits - 1; d >= 0; d--)
        v[n++] = hex[(cp >> (4 * d)) & 0xf];
    v[n++] = '>';
    sbuf_add(out, v, n);
}

/* An escape sequence that is not removed: shown as ^[ and its bytes. */
static void put_csi_shown(termsafe *t, sbuf *out)
{
    sbuf_add(out, "^[[", 3);
    sbuf_add(out, (const char *)t->held, t->len);
}

/* One byte that is not part of a plain run, in the current state. */
static void step(termsafe *t, sbuf *out, unsigned char c)
{
    for (;;) {
        switch (t->state) {
        case TS_GROUND:
            switch (cls[c]) {
            case T:
                sbuf_putc(out, (char)c);
                return;
            case C:
                put_caret(out, c);
                return;
            case E:
                t->state = TS_ESC;
                return;
            case R:
                t->state = TS_CR;
                return;
            case B:
                sbuf_add(out, REPLACEMENT, 3);
                return;
            default:
                lead(c, &t->lo, &t->hi, &t->cp, &t->need);
                t->held[0] = c;
                t->len = 1;
                t->state = TS_UTF8;
                return;
            }
        case TS_ESC:
            if (c == '[') {
                t->state = TS_CSI;
                t->len = 0;
                t->flags = CSI_SGR;
                return;
            }
            sbuf_add(out, "^[", 2);
            t->state = TS_GROUND;
            continue; /* c is decided on its own */
        case TS_CSI:
            if (c >= 0x40 && c <= 0x7e) { /* the final byte */
                if (!(c == 'm' && (t->flags & CSI_SGR))) {
                    put_csi_shown(t, out);
                    sbuf_putc(out, (char)c);
                }
                t->state = TS_GROUND;
                t->len = 0;
                return;
            }
            if (c >= 0x20 && c <= 0x3f && t->len < TERMSAFE_HOLD &&
                !(c >= 0x30 && (t->flags & CSI_INTER))) {
                if (c < 0x30)
                    t->flags = CSI_INTER; /* an intermediate: no SGR, no more parameters */
                else if (!(c <= '9' || c == ';' || c == ':'))
                    t->flags &= (uint8_t)~CSI_SGR; /* a private marker (? < = >) */
                t->held[t->len++] = c;
                return;
            }
            /* not a sequence after all (or too long to hold): shown as it is */
            put_csi_shown(t, out);
            t->state = TS_GROUND;
            t->len = 0;
            continue;
        case TS_CR:
            t->state = TS_GROUND;
            if (c == '\n') {
                sbuf_add(out, "\r\n", 2);
                return;
            }
            sbuf_putc(out, '\n'); /* a lone CR would overprint the line */
            continue;
        case TS_UTF8:
            if (c >= t->lo && c <= t->hi) {
                t->cp = t->cp << 6 | (c & 0x3fu);
                t->held[t->len++] = c;
                t->lo = 0x80;
                t->hi = 0xbf;
                if (--t->need)
                    return;
                if (shown_as_code(t->cp))
                    put_code(out, t->cp);
                else
                    sbuf_add(out, (const char *)t->held, t->len);
                t->state = TS_GROUND;
                t->len = 0;
                return;
            }
            sbuf_add(out, REPLACEMENT, 3); /* the character broke off: c starts anew */
            t->state = TS_GROUND;
            t->len = 0;
            continue;
        default:
            t->state = TS_GROUND;
            continue;
        }
    }
}

void termsafe_init(termsafe *t)
{
    memset(t, 0, sizeof *t);
}

void termsafe_feed(termsafe *t, sbuf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (t->state == TS_GROUND) {
            size_t run = i;
            while (run < n) {
                unsigned char k = cls[p[run]];
                if (k == T) {
                    run++;
                    continue;
                }
                size_t len = k >= L2 ? plain_char(p + run, n - run, k) : 0;
                if (!len)
                    break;
                run += len;
            }
            if (run > i) {
                sbuf_add(out, s + i, run - i);
                i = run;
                if (i == n)
                    return;
            }
        }
        step(t, out, p[i++]);
    }
}

void termsafe_finish(termsafe *t, sbuf *out)
{
    switch (t->state) {
    case TS_ESC:
        sbuf_add(out, "^[", 2);
        break;
    case TS_CSI:
        put_csi_shown(t, out);
        break;
    case TS_CR:
        sbuf_putc(out, '\n');
        break;
    case TS_UTF8:
        sbuf_add(out, REPLACEMENT, 3);
        break;
    default:
        break;
    }
    termsafe_init(t);
}

size_t termsafe_held(const termsafe *t)
{
    switch (t->state) {
    case TS_ESC:
    case TS_CR:
        return 1;
    case TS_CSI:
        return 2 + (size_t)t->len;
    case TS_UTF8:
        return t->len;
    default:
        return 0;
    }
}

void termsafe_add(sbuf *out, const char *s, size_t n)
{
    termsafe t = TERMSAFE_INIT;
    termsafe_feed(&t, out, s, n);
    termsafe_finish(&t, out);
}

int termsafe_is_clean(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned char k = cls[p[i]];
        if (k == T) {
            i++;
        } else if (k == R && i + 1 < n && p[i + 1] == '\n') {
            i += 2;
        } else {
            size_t len = k >= L2 ? plain_char(p + i, n - i, k) : 0;
            if (!len)
                return 0;
            i += len;
        }
    }
    return 1;
}

char *termsafe_dup(const char *s, int complete)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    sbuf out = SBUF_INIT;
    termsafe t = TERMSAFE_INIT;
    termsafe_feed(&t, &out, s, n);
    if (complete)
        termsafe_finish(&t, &out);
    return sbuf_detach(&out);
}

int termsafe_fputs(const char *s, FILE *f)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    if (termsafe_is_clean(s, n))
        return fwrite(s, 1, n, f) == n ? 0 : EOF;
    sbuf out = SBUF_INIT;
    termsafe_add(&out, s, n);
    int rc = out.err || fwrite(out.data, 1, out.len, f) != out.len ? EOF : 0;
    sbuf_release(&out);
    return rc;
}

/* Sanitise every string under v, reusing one buffer. */
static int json_walk(json_t *v, sbuf *tmp)
{
    int rc = 0;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        if (termsafe_is_clean(s, n))
            return 0;
        sbuf_reset(tmp);
        termsafe_add(tmp, s, n);
        if (tmp->err || json_string_setn(v, tmp->data, tmp->len) != 0)
            return -1;
    } else if (json_is_object(v)) {
        const char *key;
        json_t *child;
        json_object_foreach(v, key, child) {
            if (json_walk(child, tmp) != 0)
                rc = -1;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child) {
            if (json_walk(child, tmp) != 0)
                rc = -1;
        }
    }
    return rc;
}

int termsafe_json(json_t *v)
{
    if (!v)
        return 0;
    sbuf tmp = SBUF_INIT;
    int rc = json_walk(v, &tmp);
    sbuf_release(&tmp);
    return rc;
}
