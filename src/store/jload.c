/* jload — fast JSON text → jansson (see jload.h). Never accepts what jansson refuses:
 * anything it is unsure of goes to jansson. */
#include "store/jload.h"

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

#define JLOAD_MAX_DEPTH 512

typedef struct jparser {
    const char *p, *end;
    bool build;     /* false: validate only */
    bool give_up;   /* not an error for sure: let jansson decide */
    bool nul;       /* validating: the last string had a "\u0000" escape */
    int depth;
    jload *s;       /* the scratch for decoded strings with escapes */
} jparser;

static const uint64_t ONES = 0x0101010101010101ULL;
static const uint64_t HIGHS = 0x8080808080808080ULL;

static void skip_ws(jparser *j)
{
    while (j->p < j->end) {
        char c = *j->p;
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return;
        j->p++;
    }
}

static json_t *parse_value(jparser *j);

static bool read_u4(const char **pp, const char *end, uint32_t *out)
{
    const char *p = *pp;
    if (end - p < 4)
        return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_digit(p[i]);
        if (h < 0)
            return false;
        v = v << 4 | (uint32_t)h;
    }
    *pp = p + 4;
    *out = v;
    return true;
}

/* Make room for n bytes in the scratch (kept between strings and documents). */
static bool scratch_room(jparser *j, size_t n)
{
    if (n <= j->s->cap)
        return true;
    size_t cap = j->s->cap ? j->s->cap : 4096;
    while (cap < n)
        cap *= 2;
    char *p = realloc(j->s->data, cap);
    if (!p)
        return false;
    j->s->data = p;
    j->s->cap = cap;
    return true;
}

/* Decode one escape at p (just after the backslash) into *w; false when invalid. */
static bool decode_escape(const char **pp, const char *end, char **wp)
{
    const char *p = *pp;
    char *w = *wp;
    if (p >= end)
        return false;
    char e = *p++;
    switch (e) {
    case '"': *w++ = '"'; break;
    case '\\': *w++ = '\\'; break;
    case '/': *w++ = '/'; break;
    case 'b': *w++ = '\b'; break;
    case 'f': *w++ = '\f'; break;
    case 'n': *w++ = '\n'; break;
    case 'r': *w++ = '\r'; break;
    case 't': *w++ = '\t'; break;
    case 'u': {
        uint32_t cp;
        if (!read_u4(&p, end, &cp))
            return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (end - p < 2 || p[0] != '\\' || p[1] != 'u')
                return false;
            p += 2;
            if (!read_u4(&p, end, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        size_t ul = utf8_encode(cp, w); /* 6 or 12 input bytes give at most 4 */
        if (ul == 0)
            return false;
        w += ul;
        break;
    }
    default:
        return false;
    }
    *pp = p;
    *wp = w;
    return true;
}

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

/* Check the escaped rest of a string without decoding it (validation: a megabyte-long
 * UI message is checked with no copy of it). p is at the first byte that needs a look.
 * Sets j->nul when an escape decodes to a NUL byte (the key rule in parse_object). */
static bool check_escaped(jparser *j, const char *p)
{
    const char *end = j->end;
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c == '\\') {
            char one[4], *w = one;
            p++;
            if (!decode_escape(&p, end, &w))
                return false;
            if (w - one == 1 && one[0] == '\0')
                j->nul = true;
        } else if (c < 0x20) {
            return false;
        } else {
            size_t l = utf8_decode(p, (size_t)(end - p), NULL);
            if (l == 0)
                return false;
            p += l;
        }
        p = skip_plain(p, end);
        if (p >= end)
            return false;
    }
    j->p = p + 1;
    return true;
}

/* Parse a string (j->p at the opening quote). On success *s and *n point either into
 * the input (no escapes) or into the scratch (valid until the next string). Decoded text
 * is never longer than its JSON form, so the scratch is sized once per string. When only
 * validating, an escaped string is checked in place and *s, *n give its raw JSON form
 * (j->nul tells whether it decodes with a NUL byte). */
static bool parse_string(jparser *j, const char **s, size_t *n)
{
    const char *start = j->p + 1, *end = j->end, *p = start;
    j->nul = false;
    for (;;) {
        p = skip_plain(p, end);
        if (p >= end)
            return false;
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *s = start;
            *n = (size_t)(p - start);
            j->p = p + 1;
            return true;
        }
        if (c == '\\')
            break;
        if (c < 0x20)
            return false;
        size_t l = utf8_decode(p, (size_t)(end - p), NULL);
        if (l == 0)
            return false;
        p += l;
    }
    if (!j->build) {
        *s = start;
        if (!check_escaped(j, p))
            return false;
        *n = (size_t)(j->p - 1 - start);
        return true;
    }
    /* escaped: decode into the scratch */
    if (!scratch_room(j, (size_t)(end - start))) {
        j->give_up = true;
        return false;
    }
    char *w0 = j->s->data, *w = w0;
    memcpy(w, start, (size_t)(p - start));
    w += p - start;
    for (;;) {
        /* here *p is a byte that needs a look */
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c == '\\') {
            p++;
            if (!decode_escape(&p, end, &w))
                return false;
        } else if (c < 0x20) {
            return false;
        } else {
            size_t l = utf8_decode(p, (size_t)(end - p), NULL);
            if (l == 0)
                return false;
            memcpy(w, p, l);
            w += l;
            p += l;
        }
        const char *q = skip_plain(p, end);
        memcpy(w, p, (size_t)(q - p));
        w += q - p;
        p = q;
        if (p >= end)
            return false;
    }
    *s = w0;
    *n = (size_t)(w - w0);
    j->p = p + 1;
    return true;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static json_t *parse_number(jparser *j)
{
    const char *s = j->p, *p = s, *end = j->end;
    bool real = false;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        return NULL;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    } else {
        return NULL;
    }
    if (p < end && *p == '.') {
        real = true;
        p++;
        if (p >= end || *p < '0' || *p > '9')
            return NULL;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        real = true;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return NULL;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    size_t n = (size_t)(p - s);
    char tmp[64];
    if (n >= sizeof tmp) {
        j->give_up = true;
        return NULL;
    }
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    j->p = p;
    errno = 0;
    if (!real) {
        char *e;
        long long v = strtoll(tmp, &e, 10);
        if (errno == ERANGE || *e) {
            j->give_up = true; /* jansson: "too big integer" */
            return NULL;
        }
        return j->build ? json_integer(v) : json_null();
    }
    pthread_once(&c_locale_once, c_locale_init);
    if (!c_locale) {
        j->give_up = true;
        return NULL;
    }
    char *e;
    double d = strtod_l(tmp, &e, c_locale);
    if (*e || isinf(d) || isnan(d)) {
        j->give_up = true;
        return NULL;
    }
    return j->build ? json_real(d) : json_null();
}

/* In validate-only mode every value "built" is json_null() (a static singleton in
 * jansson, so nothing is allocated). */
static json_t *parse_array(jparser *j)
{
    j->p++;
    json_t *arr = j->build ? json_array() : json_null();
    if (!arr)
        return NULL;
    skip_ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        return arr;
    }
    for (;;) {
        json_t *v = parse_value(j);
        if (!v)
            goto fail;
        if (j->build && json_array_append_new(arr, v) != 0)
            goto fail;
        skip_ws(j);
        if (j->p >= j->end)
            goto fail;
        char c = *j->p++;
        if (c == ']')
            return arr;
        if (c != ',')
            goto fail;
    }
fail:
    json_decref(arr);
    return NULL;
}

static json_t *parse_object(jparser *j)
{
    j->p++;
    json_t *obj = j->build ? json_object() : json_null();
    if (!obj)
        return NULL;
    skip_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return obj;
    }
    for (;;) {
        skip_ws(j);
        if (j->p >= j->end || *j->p != '"')
            goto fail;
        const char *k;
        size_t kn;
        if (!parse_string(j, &k, &kn))
            goto fail;
        char *kcopy = NULL;
        if (j->build ? memchr(k, '\0', kn) != NULL : j->nul) {
            j->give_up = true; /* jansson has its own rule for NUL in keys */
            goto fail;
        }
        if (j->build && k == j->s->data) {
            kcopy = malloc(kn + 1);
            if (!kcopy)
                goto fail;
            memcpy(kcopy, k, kn);
            kcopy[kn] = '\0';
            k = kcopy;
        }
        skip_ws(j);
        if (j->p >= j->end || *j->p != ':') {
            free(kcopy);
            goto fail;
        }
        j->p++;
        json_t *v = parse_value(j);
        if (!v) {
            free(kcopy);
            goto fail;
        }
        int rc = j->build ? json_object_setn_new_nocheck(obj, k, kn, v) : 0;
        free(kcopy);
        if (rc != 0)
            goto fail;
        skip_ws(j);
        if (j->p >= j->end)
            goto fail;
        char c = *j->p++;
        if (c == '}')
            return obj;
        if (c != ',')
            goto fail;
    }
fail:
    json_decref(obj);
    return NULL;
}

static json_t *parse_value(jparser *j)
{
    skip_ws(j);
    if (j->p >= j->end)
        return NULL;
    json_t *v = NULL;
    switch (*j->p) {
    case '{':
    case '[':
        if (++j->depth > JLOAD_MAX_DEPTH) {
            j->give_up = true;
            return NULL;
        }
        v = *j->p == '{' ? parse_object(j) : parse_array(j);
        j->depth--;
        return v;
    case '"': {
        const char *s;
        size_t n;
        if (!parse_string(j, &s, &n))
            return NULL;
        return j->build ? json_stringn_nocheck(s, n) : json_null();
    }
    case 't':
        if (j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0) {
            j->p += 4;
            return j->build ? json_true() : json_null();
        }
        return NULL;
    case 'f':
        if (j->end - j->p >= 5 && memcmp(j->p, "false", 5) == 0) {
            j->p += 5;
            return j->build ? json_false() : json_null();
        }
        return NULL;
    case 'n':
        if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
            j->p += 4;
            return json_null();
        }
        return NULL;
    default:
        return parse_number(j);
    }
}

/* NULL when the fast path did not produce a value (error or give-up). */
static json_t *fast(jload *jl, const char *s, size_t n, bool build, bool *gave_up)
{
    jparser j = { s, s + n, build, false, false, 0, jl };
    json_t *v = parse_value(&j);
    if (v) {
        skip_ws(&j);
        if (j.p != j.end) {
            json_decref(v);
            v = NULL;
        }
    }
    *gave_up = j.give_up;
    return v;
}

void jload_release(jload *j)
{
    if (!j)
        return;
    free(j->data);
    j->data = NULL;
    j->cap = 0;
}

json_t *jload_parse_with(jload *jl, const char *s, size_t n, const char *what, hew_err *err)
{
    bool gave_up;
    json_t *v = fast(jl, s ? s : "", s ? n : 0, true, &gave_up);
    if (v)
        return v;
    /* Out of memory looks like a failure too: jansson sorts it out, and reports. */
    json_error_t e;
    v = json_loadb(s ? s : "", s ? n : 0, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (v)
        return v;
    if (!what)
        what = "stored JSON";
    if (json_error_code(&e) == json_error_out_of_memory)
        hew_err_set(err, HEW_E_NOMEM, "%s: out of memory while parsing JSON", what);
    else
        hew_err_set(err, HEW_E_INVALID, "%s: invalid JSON at line %d, column %d: %s", what,
                    e.line, e.column, e.text);
    return NULL;
}

json_t *jload_parse(const char *s, size_t n, const char *what, hew_err *err)
{
    jload jl = JLOAD_INIT;
    json_t *v = jload_parse_with(&jl, s, n, what, err);
    jload_release(&jl);
    return v;
}

bool jload_valid_with(jload *jl, const char *s, size_t n)
{
    bool gave_up;
    json_t *v = fast(jl, s ? s : "", s ? n : 0, false, &gave_up);
    if (v)
        return true;
    if (!gave_up)
        return false;
    json_error_t e;
    v = json_loadb(s ? s : "", s ? n : 0, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    json_decref(v);
    return v != NULL;
}

bool jload_valid(const char *s, size_t n)
{
    jload jl = JLOAD_INIT;
    bool ok = jload_valid_with(&jl, s, n);
    jload_release(&jl);
    return ok;
}
