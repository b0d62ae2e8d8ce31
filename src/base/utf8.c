/* utf8 — strict UTF-8 validation, cutting and sanitizing (see utf8.h). Runs on the
 * streaming path: it must never allocate on its own, never read past len, and stay fast
 * on ASCII. */
#include "base/utf8.h"

#include <string.h>

enum scan_status { SCAN_OK, SCAN_INVALID, SCAN_TRUNCATED };

/* Look at one sequence at p[0..len), len > 0. On SCAN_OK returns its length and sets *cp;
 * on SCAN_INVALID returns the length of the maximal invalid subpart (>= 1); on
 * SCAN_TRUNCATED (valid so far but cut by len) returns len. */
static size_t scan(const unsigned char *p, size_t len, uint32_t *cp, enum scan_status *st)
{
    unsigned char b0 = p[0];
    if (b0 < 0x80) {
        *cp = b0;
        *st = SCAN_OK;
        return 1;
    }
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    uint32_t v;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 2;
        v = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 3;
        v = b0 & 0x0F;
        if (b0 == 0xE0)
            lo = 0xA0; /* overlong */
        else if (b0 == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 4;
        v = b0 & 0x07;
        if (b0 == 0xF0)
            lo = 0x90; /* overlong */
        else if (b0 == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else {
        *st = SCAN_INVALID; /* stray continuation, C0/C1 overlong lead, F5..FF */
        return 1;
    }
    for (size_t i = 1; i < need; i++) {
        if (i >= len) {
            *st = SCAN_TRUNCATED;
            return len;
        }
        unsigned char b = p[i];
        if (i == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) {
            *st = SCAN_INVALID;
            return i;
        }
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    *st = SCAN_OK;
    return need;
}

/* Index of the first byte at or after i with the high bit set (or len). */
static size_t skip_ascii(const unsigned char *p, size_t i, size_t len)
{
    while (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w & UINT64_C(0x8080808080808080))
            break;
        i += 8;
    }
    while (i < len && p[i] < 0x80)
        i++;
    return i;
}

bool utf8_validate(const char *s, size_t len, size_t *bad_offset)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    for (;;) {
        i = skip_ascii(p, i, len);
        if (i >= len)
            return true;
        uint32_t cp;
        enum scan_status st;
        size_t n = scan(p + i, len - i, &cp, &st);
        if (st != SCAN_OK) {
            if (bad_offset)
                *bad_offset = i;
            return false;
        }
        i += n;
    }
}

hew_code utf8_check(const char *s, size_t len, const char *what, hew_err *err)
{
    size_t bad = 0;
    if (utf8_validate(s, len, &bad))
        return HEW_OK;
    return hew_err_set(err, HEW_E_INVALID,
                       "%s is not valid UTF-8 (bad byte 0x%02X at offset %zu of %zu)", what,
                       (unsigned char)s[bad], bad, len);
}

size_t utf8_decode(const char *s, size_t len, uint32_t *cp)
{
    if (len == 0)
        return 0;
    uint32_t v = 0;
    enum scan_status st;
    size_t n = scan((const unsigned char *)s, len, &v, &st);
    if (st != SCAN_OK)
        return 0;
    if (cp)
        *cp = v;
    return n;
}

size_t utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp <= 0x10FFFF) {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

static bool is_cont(unsigned char b)
{
    return (b & 0xC0) == 0x80;
}

/* Sequence length announced by a lead byte (1 for ASCII and bytes that lead nothing). */
static size_t lead_len(unsigned char b)
{
    if (b >= 0xF0 && b <= 0xF7)
        return 4;
    if (b >= 0xE0)
        return b <= 0xEF ? 3 : 1;
    if (b >= 0xC0)
        return 2;
    return 1;
}

size_t utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    const unsigned char *p = (const unsigned char *)s;
    if (!is_cont(p[max]))
        return max; /* s[max] starts a character: cutting before it is safe */
    size_t j = max;
    while (j > 0 && max - j < 3) {
        j--;
        if (!is_cont(p[j]))
            break;
    }
    /* p[j+1..max] are continuation bytes; they belong to p[j] when it announces them. */
    if (!is_cont(p[j]) && lead_len(p[j]) > max - j)
        return j;
    return max;
}

size_t utf8_complete_prefix(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    if (len == 0 || p[len - 1] < 0x80)
        return len;
    size_t j = len;
    while (j > 0 && len - j < 3) {
        j--;
        if (!is_cont(p[j]))
            break;
    }
    if (p[j] < 0xC0)
        return len;
    uint32_t cp;
    enum scan_status st;
    scan(p + j, len - j, &cp, &st);
    return st == SCAN_TRUNCATED ? j : len;
}

void utf8_sanitize(const char *s, size_t len, buf *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t start = 0; /* start of the pending run of valid bytes */
    size_t i = 0;
    for (;;) {
        i = skip_ascii(p, i, len);
        if (i >= len)
            break;
        uint32_t cp;
        enum scan_status st;
        size_t n = scan(p + i, len - i, &cp, &st);
        if (st == SCAN_OK) {
            i += n;
            continue;
        }
        buf_append(out, s + start, i - start);
        buf_append(out, UTF8_REPLACEMENT, 3);
        i += n;
        start = i;
    }
    buf_append(out, s + start, len - start);
}

size_t utf8_count(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t count = 0;
    size_t i = 0;
    while (i < len) {
        size_t a = skip_ascii(p, i, len);
        count += a - i;
        i = a;
        if (i >= len)
            break;
        uint32_t cp;
        enum scan_status st;
        i += scan(p + i, len - i, &cp, &st);
        count++;
    }
    return count;
}
