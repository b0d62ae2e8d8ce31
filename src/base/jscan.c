/* jscan — the one strict JSON scanner (see jscan.h). Strings are checked sixteen bytes at
 * a time; escapes, numbers and the grammar each live in one function below. It must never
 * accept what jansson refuses, never read past the end it was given, and never recurse. */
#include "base/jscan.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/hex.h"
#include "base/utf8.h"

/* ---- white space and plain bytes ------------------------------------------------------ */

static inline const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static const uint64_t ONES = 0x0101010101010101ULL;
static const uint64_t HIGHS = 0x8080808080808080ULL;

/* Skip plain bytes (printable ASCII other than '"' and '\\'): sixteen at a time with
 * SSE2, else eight at a time, landing exactly on the first byte that needs a look. */
static inline const char *skip_plain(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* signed: bytes >= 0x80 are negative, so "< 0x20" also catches non-ASCII */
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                                _mm_cmpeq_epi8(v, bslash)),
                                   _mm_cmplt_epi8(v, space));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ONES * '"');
        uint64_t b = w ^ (ONES * '\\');
        uint64_t hit = ((w | ((w - ONES * 0x20) & ~w)) | ((q - ONES) & ~q) | ((b - ONES) & ~b)) &
                       HIGHS;
        if (hit) /* the lowest flagged byte is exact (borrows only run upwards) */
            return p + (__builtin_ctzll(hit) >> 3);
        p += 8;
    }
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            break;
        p++;
    }
    return p;
}

/* ---- escapes ---------------------------------------------------------------------------- */

static bool read_u4(const char *p, const char *end, uint32_t *out)
{
    if (end - p < 4)
        return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_digit(p[i]);
        if (h < 0)
            return false;
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return true;
}

/* The one-letter escapes and what they stand for (0: not one). */
static const char SIMPLE_ESCAPE[256] = {
    ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b',
    ['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t',
};

/* The escape at p (just after its backslash): its UTF-8 bytes into out (1 to 4) and *n;
 * returns the byte after it, or NULL when it is not a valid escape (an unknown letter,
 * bad hex, a lone surrogate). The only place that knows JSON's escapes. */
static const char *escape(const char *p, const char *end, char out[4], size_t *n)
{
    if (p >= end)
        return NULL;
    *n = 1;
    char c = SIMPLE_ESCAPE[(unsigned char)*p];
    if (c) {
        out[0] = c;
        return p + 1;
    }
    if (*p != 'u')
        return NULL;
    uint32_t cp;
    if (!read_u4(p + 1, end, &cp))
        return NULL;
    p += 5;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return NULL;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t lo;
        if (end - p < 2 || p[0] != '\\' || p[1] != 'u' || !read_u4(p + 2, end, &lo) ||
            lo < 0xDC00 || lo > 0xDFFF)
            return NULL;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p += 6;
    }
    *n = utf8_encode(cp, out);
    return *n ? p : NULL;
}

/* ---- tokens ----------------------------------------------------------------------------- */

/* A string at p (its opening quote): checked whole (escapes, UTF-8, no raw control
 * bytes); v filled; returns the byte after the closing quote, or NULL. */
static const char *lex_string(const char *p, const char *end, jscan_val *v)
{
    const char *q = p + 1;
    v->kind = JSCAN_STRING;
    v->start = p;
    v->escaped = v->nul = v->real = false;
    for (;;) {
        q = skip_plain(q, end);
        if (q >= end)
            return NULL;
        unsigned char c = (unsigned char)*q;
        if (c == '"')
            break;
        if (c == '\\') {
            v->escaped = true;
            if (end - q > 1 && SIMPLE_ESCAPE[(unsigned char)q[1]]) { /* the common case */
                q += 2;
                continue;
            }
            char one[4];
            size_t n;
            if (!(q = escape(q + 1, end, one, &n)))
                return NULL;
            if (n == 1 && one[0] == '\0')
                v->nul = true;
        } else if (c < 0x20) {
            return NULL;
        } else {
            size_t l = utf8_decode(q, (size_t)(end - q), NULL);
            if (l == 0)
                return NULL;
            q += l;
        }
    }
    v->len = (size_t)(q + 1 - p);
    return q + 1;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A real's text s[0..n) read in the C locale; false when it overflows (or no locale). */
static bool read_real(const char *s, size_t n, double *out)
{
    pthread_once(&c_locale_once, c_locale_init);
    if (!c_locale)
        return false;
    char tmp[64];
    char *t = n < sizeof tmp ? tmp : malloc(n + 1);
    if (!t)
        return false;
    memcpy(t, s, n);
    t[n] = '\0';
    char *e;
    double d = strtod_l(t, &e, c_locale);
    bool ok = e == t + n && !isinf(d) && !isnan(d);
    if (t != tmp)
        free(t);
    *out = d;
    return ok;
}

/* An integer's text s[0..n) (an optional '-', digits, no leading zero); false when it
 * does not fit a long long. */
static bool read_int(const char *s, size_t n, long long *out)
{
    bool neg = s[0] == '-';
    size_t digits = n - neg;
    if (digits <= 18) { /* always fits */
        long long v = 0;
        for (size_t i = neg; i < n; i++)
            v = v * 10 + (s[i] - '0');
        *out = neg ? -v : v;
        return true;
    }
    if (digits > 19)
        return false;
    char tmp[24];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    errno = 0;
    long long v = strtoll(tmp, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = v;
    return true;
}

/* A number at p: v filled with its kind and value; returns the byte after it, or NULL
 * (bad syntax, an integer past int64, a real that overflows). */
static const char *lex_number(const char *p, const char *end, jscan_val *v)
{
    const char *s = p;
    bool real = false;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        return NULL;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (p < end && is_digit(*p))
            p++;
    else
        return NULL;
    if (p < end && *p == '.') {
        real = true;
        p++;
        if (p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        real = true;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    v->kind = JSCAN_NUMBER;
    v->start = s;
    v->len = (size_t)(p - s);
    v->escaped = v->nul = false;
    v->real = real;
    v->i = 0;
    v->d = 0;
    if (real ? !read_real(s, v->len, &v->d) : !read_int(s, v->len, &v->i))
        return NULL;
    return p;
}

static const char *lex_literal(const char *p, const char *end, const char *lit, size_t n,
                               jscan_kind kind, jscan_val *v)
{
    if ((size_t)(end - p) < n || memcmp(p, lit, n) != 0)
        return NULL;
    v->kind = kind;
    v->start = p;
    v->len = n;
    v->escaped = v->nul = v->real = false;
    return p + n;
}

/* A scalar value at p (not a container); returns the byte after it, or NULL. */
static const char *lex_scalar(const char *p, const char *end, jscan_val *v)
{
    switch (*p) {
    case '"': return lex_string(p, end, v);
    case 't': return lex_literal(p, end, "true", 4, JSCAN_TRUE, v);
    case 'f': return lex_literal(p, end, "false", 5, JSCAN_FALSE, v);
    case 'n': return lex_literal(p, end, "null", 4, JSCAN_NULL, v);
    default: return lex_number(p, end, v);
    }
}

/* ---- the reader: the grammar ------------------------------------------------------------ */

enum {
    ST_VALUE,       /* a value must come */
    ST_FIRST_ELEM,  /* just after '[': a value or ']' */
    ST_FIRST_KEY,   /* just after '{': a key or '}' */
    ST_KEY,         /* after ',' in an object: a key */
    ST_AFTER,       /* after a value: ',' or the close of the container, or the end */
    ST_DONE,
    ST_ERROR
};

void jscan_reader_init(jscan_reader *r, const char *s, size_t n)
{
    r->p = s ? s : "";
    r->end = r->p + (s ? n : 0);
    r->depth = 0;
    r->state = ST_VALUE;
}

static bool top_is_object(const jscan_reader *r)
{
    int d = r->depth - 1;
    return r->is_object[d >> 3] & (1u << (d & 7));
}

static int fail(jscan_reader *r)
{
    r->state = ST_ERROR;
    return -1;
}

/* The container on top closes at p. */
static int close_container(jscan_reader *r, const char *p, jscan_tok *tok, jscan_val *v)
{
    v->kind = top_is_object(r) ? JSCAN_OBJECT : JSCAN_ARRAY;
    v->start = p;
    v->len = 1;
    v->escaped = v->nul = v->real = false;
    r->depth--;
    r->p = p + 1;
    r->state = ST_AFTER;
    *tok = JSCAN_TOK_END;
    return 1;
}

int jscan_next(jscan_reader *r, jscan_tok *tok, jscan_val *v)
{
    const char *end = r->end;
    const char *p = skip_ws(r->p, end);
    switch (r->state) {
    case ST_DONE:
        return 0;
    case ST_ERROR:
        return -1;
    case ST_AFTER:
        if (r->depth == 0) {
            if (p != end)
                return fail(r);
            r->p = p;
            r->state = ST_DONE;
            return 0;
        }
        if (p >= end)
            return fail(r);
        if (*p == (top_is_object(r) ? '}' : ']'))
            return close_container(r, p, tok, v);
        if (*p != ',')
            return fail(r);
        p = skip_ws(p + 1, end);
        r->state = top_is_object(r) ? ST_KEY : ST_VALUE;
        break;
    case ST_FIRST_ELEM:
        if (p < end && *p == ']')
            return close_container(r, p, tok, v);
        r->state = ST_VALUE;
        break;
    case ST_FIRST_KEY:
        if (p < end && *p == '}')
            return close_container(r, p, tok, v);
        r->state = ST_KEY;
        break;
    default:
        break;
    }
    if (p >= end)
        return fail(r);
    if (r->state == ST_KEY) {
        if (*p != '"' || !(p = lex_string(p, end, v)))
            return fail(r);
        p = skip_ws(p, end);
        if (p >= end || *p != ':')
            return fail(r);
        r->p = p + 1;
        r->state = ST_VALUE;
        *tok = JSCAN_TOK_KEY;
        return 1;
    }
    if (*p == '{' || *p == '[') {
        if (r->depth >= JSCAN_MAX_DEPTH)
            return fail(r);
        int d = r->depth++;
        bool obj = *p == '{';
        if (obj)
            r->is_object[d >> 3] |= (unsigned char)(1u << (d & 7));
        else
            r->is_object[d >> 3] &= (unsigned char)~(1u << (d & 7));
        v->kind = obj ? JSCAN_OBJECT : JSCAN_ARRAY;
        v->start = p;
        v->len = 1;
        v->escaped = v->nul = v->real = false;
        r->p = p + 1;
        r->state = obj ? ST_FIRST_KEY : ST_FIRST_ELEM;
        *tok = JSCAN_TOK_BEGIN;
        return 1;
    }
    if (!(p = lex_scalar(p, end, v)))
        return fail(r);
    r->p = p;
    r->state = ST_AFTER;
    *tok = JSCAN_TOK_VALUE;
    return 1;
}

bool jscan_valid(const char *s, size_t n)
{
    jscan_reader r;
    jscan_reader_init(&r, s, n);
    jscan_tok tok;
    jscan_val v;
    int rc;
    while ((rc = jscan_next(&r, &tok, &v)) == 1)
        ;
    return rc == 0;
}

/* ---- the walker ------------------------------------------------------------------------- */

static bool begin(jscan *js, const char *s, size_t n, jscan_kind kind)
{
    jscan_tok tok;
    jscan_val v;
    jscan_reader_init(&js->r, s, n);
    return jscan_next(&js->r, &tok, &v) == 1 && tok == JSCAN_TOK_BEGIN && v.kind == kind;
}

bool jscan_object(jscan *js, const char *s, size_t n)
{
    return begin(js, s, n, JSCAN_OBJECT);
}

bool jscan_object_val(jscan *js, const jscan_val *v)
{
    return v->kind == JSCAN_OBJECT && begin(js, v->start, v->len, JSCAN_OBJECT);
}

bool jscan_array_val(jscan *js, const jscan_val *v)
{
    return v->kind == JSCAN_ARRAY && begin(js, v->start, v->len, JSCAN_ARRAY);
}

/* The value that comes next in the walked container, a nested one read to its end and
 * spanned whole: 1 = v filled, 0 = the walked container closed, -1 = invalid. */
static int walk_value(jscan *js, jscan_val *v)
{
    jscan_tok tok;
    int rc = jscan_next(&js->r, &tok, v);
    if (rc != 1)
        return -1;
    if (tok == JSCAN_TOK_END)
        return js->r.depth == 0 ? 0 : -1;
    if (tok == JSCAN_TOK_KEY)
        return -1;
    if (tok == JSCAN_TOK_VALUE)
        return 1;
    /* a nested container: read to its end */
    const char *start = v->start;
    jscan_kind kind = v->kind;
    int depth = js->r.depth - 1;
    jscan_val in;
    while ((rc = jscan_next(&js->r, &tok, &in)) == 1)
        if (tok == JSCAN_TOK_END && js->r.depth == depth)
            break;
    if (rc != 1)
        return -1;
    v->kind = kind;
    v->start = start;
    v->len = (size_t)(in.start + 1 - start);
    v->escaped = v->nul = v->real = false;
    return 1;
}

int jscan_member(jscan *js, const char **key, size_t *klen, jscan_val *v)
{
    jscan_tok tok;
    jscan_val k;
    if (js->r.depth != 1)
        return -1;
    int rc = jscan_next(&js->r, &tok, &k);
    if (rc != 1)
        return -1;
    if (tok == JSCAN_TOK_END)
        return 0;
    if (tok != JSCAN_TOK_KEY || k.escaped)
        return -1;
    *key = k.start + 1;
    *klen = k.len - 2;
    return walk_value(js, v) == 1 ? 1 : -1;
}

int jscan_element(jscan *js, jscan_val *v)
{
    if (js->r.depth != 1)
        return -1;
    return walk_value(js, v);
}

bool jscan_done(jscan *js)
{
    jscan_tok tok;
    jscan_val v;
    return js->r.depth == 0 && jscan_next(&js->r, &tok, &v) == 0;
}

/* ---- values ----------------------------------------------------------------------------- */

bool jscan_key_is(const char *key, size_t klen, const char *want)
{
    return strlen(want) == klen && memcmp(key, want, klen) == 0;
}

bool jscan_str_is(const jscan_val *v, const char *want)
{
    size_t n = strlen(want);
    return v->kind == JSCAN_STRING && !v->escaped && v->len == n + 2 &&
           memcmp(v->start + 1, want, n) == 0;
}

size_t jscan_unescape(const jscan_val *v, char *out)
{
    const char *p = v->start + 1, *end = v->start + v->len - 1;
    if (!v->escaped) {
        memcpy(out, p, (size_t)(end - p));
        return (size_t)(end - p);
    }
    /* Decoded text never runs ahead of the JSON text: w - out <= p - (v->start + 1), so a
     * 16-byte store at w while 16 bytes of input are left stays inside out's v->len. */
    char *w = out;
    while (p < end) {
#ifdef __SSE2__
        const __m128i bslash = _mm_set1_epi8('\\');
        if (end - p >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
            _mm_storeu_si128((__m128i *)(void *)w, x);
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, bslash));
            if (!m) {
                p += 16;
                w += 16;
                continue;
            }
            unsigned k = (unsigned)__builtin_ctz(m);
            p += k;
            w += k;
        }
#endif
        while (p < end && *p != '\\')
            *w++ = *p++;
        if (p >= end)
            break;
        char c = SIMPLE_ESCAPE[(unsigned char)p[1]];
        if (c) {
            *w++ = c;
            p += 2;
            continue;
        }
        size_t n;
        p = escape(p + 1, end, w, &n);
        if (!p) /* not from a scan: stop at what was good */
            break;
        w += n;
    }
    return (size_t)(w - out);
}

bool jscan_string(const jscan_val *v, buf *out)
{
    if (v->kind != JSCAN_STRING || v->len < 2 || out->err != HEW_OK)
        return false;
    char *w = buf_reserve(out, v->len);
    if (!w)
        return false;
    buf_commit(out, jscan_unescape(v, w));
    return true;
}

bool jscan_int(const jscan_val *v, long long *out)
{
    if (v->kind != JSCAN_NUMBER || v->len == 0)
        return false;
    jscan_val n;
    const char *end = v->start + v->len;
    if (lex_number(v->start, end, &n) != end || n.real)
        return false;
    *out = n.i;
    return true;
}
