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

#include "base/buf.h"
#include "base/utf8.h"

#define JLOAD_MAX_DEPTH 512

typedef struct jparser {
    const char *p, *end;
    bool build;     /* false: validate only */
    bool give_up;   /* not an error for sure: let jansson decide */
    int depth;
    buf scratch;    /* decoded strings with escapes */
} jparser;

static const uint64_t ONES = 0x0101010101010101ULL;
static const uint64_t HIGHS = 0x8080808080808080ULL;

/* True when none of the 8 bytes needs a look: no '"', '\\', control or non-ASCII byte. */
static inline bool word_plain(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"');
    uint64_t b = w ^ (ONES * '\\');
    uint64_t hit = (w | ((w - ONES * 0x20) & ~w)) | ((q - ONES) & ~q) | ((b - ONES) & ~b);
    return (hit & HIGHS) == 0;
}

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

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_u4(jparser *j, uint32_t *out)
{
    if (j->end - j->p < 4)
        return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(j->p[i]);
        if (h < 0)
            return false;
        v = v << 4 | (uint32_t)h;
    }
    j->p += 4;
    *out = v;
    return true;
}

/* Parse a string (j->p at the opening quote). On success *s and *n point either into the
 * input (no escapes) or into j->scratch (valid until the next string). */
static bool parse_string(jparser *j, const char **s, size_t *n)
{
    const char *p = j->p + 1, *end = j->end;
    const char *run = p;
    bool escaped = false;
    for (;;) {
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (!word_plain(w))
                break;
            p += 8;
        }
        if (p >= end)
            return false;
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c < 0x20)
            return false;
        if (c >= 0x80) {
            size_t l = utf8_decode(p, (size_t)(end - p), NULL);
            if (l == 0)
                return false;
            p += l;
            continue;
        }
        if (c != '\\') {
            p++;
            continue;
        }
        if (!escaped) {
            buf_reset(&j->scratch);
            escaped = true;
        }
        buf_append(&j->scratch, run, (size_t)(p - run));
        p++;
        if (p >= end)
            return false;
        char e = *p++;
        char ch;
        switch (e) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            uint32_t cp;
            j->p = p;
            if (!read_u4(j, &cp))
                return false;
            p = j->p;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return false;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (end - p < 2 || p[0] != '\\' || p[1] != 'u')
                    return false;
                j->p = p + 2;
                if (!read_u4(j, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return false;
                p = j->p;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            char u[4];
            size_t ul = utf8_encode(cp, u);
            if (ul == 0)
                return false;
            buf_append(&j->scratch, u, ul);
            run = p;
            continue;
        }
        default:
            return false;
        }
        buf_putc(&j->scratch, ch);
        run = p;
    }
    if (escaped) {
        buf_append(&j->scratch, run, (size_t)(p - run));
        if (j->scratch.err) {
            j->give_up = true;
            return false;
        }
        *s = j->scratch.data ? j->scratch.data : "";
        *n = j->scratch.len;
    } else {
        *s = j->p + 1;
        *n = (size_t)(p - (j->p + 1));
    }
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
        if (memchr(k, '\0', kn)) {
            j->give_up = true; /* jansson has its own rule for NUL in keys */
            goto fail;
        }
        if (j->build && k == j->scratch.data) {
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
static json_t *fast(const char *s, size_t n, bool build, bool *gave_up)
{
    jparser j = { s, s + n, build, false, 0, BUF_INIT(0) };
    json_t *v = parse_value(&j);
    if (v) {
        skip_ws(&j);
        if (j.p != j.end) {
            json_decref(v);
            v = NULL;
        }
    }
    buf_release(&j.scratch);
    *gave_up = j.give_up;
    return v;
}

json_t *jload_parse(const char *s, size_t n, const char *what, hew_err *err)
{
    bool gave_up;
    json_t *v = fast(s ? s : "", s ? n : 0, true, &gave_up);
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

bool jload_valid(const char *s, size_t n)
{
    bool gave_up;
    json_t *v = fast(s ? s : "", s ? n : 0, false, &gave_up);
    if (v)
        return true;
    if (!gave_up)
        return false;
    json_error_t e;
    v = json_loadb(s ? s : "", s ? n : 0, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    json_decref(v);
    return v != NULL;
}
