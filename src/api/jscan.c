/* jscan — strict, allocation-free JSON walking for the decoders' fast paths (see
 * jscan.h). Every function returns "no" rather than guess. */
#include "api/jscan.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

#define JSCAN_MAX_DEPTH 32

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* A string starting at p (the opening quote); returns the byte after the closing quote. */
static const char *scan_string(const char *p, const char *end, bool *escaped)
{
    p++;
    for (;;) {
        const char *q = p;
        while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
            q++;
        if (q >= end || (unsigned char)*q < 0x20)
            return NULL;
        if (*q == '"')
            return q + 1;
        /* a backslash */
        *escaped = true;
        if (q + 1 >= end)
            return NULL;
        char e = q[1];
        if (e == 'u') {
            if (q + 6 > end)
                return NULL;
            for (int i = 2; i < 6; i++) {
                char h = q[i];
                if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
                    return NULL;
            }
            p = q + 6;
        } else if (strchr("\"\\/bfnrt", e) && e) {
            p = q + 2;
        } else {
            return NULL;
        }
    }
}

static locale_t c_locale_value;

static void c_locale_init(void)
{
    c_locale_value = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* The C locale for strtod_l (a real's '.' whatever the process's locale). */
static locale_t jscan_c_locale(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, c_locale_init);
    return c_locale_value;
}

static const char *scan_number_syntax(const char *p, const char *end);

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool number_fits(const char *start, const char *stop, bool real)
{
    char tmp[64];
    size_t n = (size_t)(stop - start);
    if (!real) {
        size_t digits = n - (start[0] == '-');
        if (digits <= 18)
            return true; /* always fits */
        if (n >= sizeof tmp)
            return false;
        memcpy(tmp, start, n);
        tmp[n] = '\0';
        errno = 0;
        (void)strtoll(tmp, NULL, 10);
        return errno != ERANGE;
    }
    /* A real overflows when its decimal exponent is large: check with strtod in the C
     * locale (a copy, for numbers of sane length; a longer one is checked as it is). */
    char *big = n < sizeof tmp ? tmp : malloc(n + 1);
    if (!big)
        return false;
    memcpy(big, start, n);
    big[n] = '\0';
    errno = 0;
    double v = strtod_l(big, NULL, jscan_c_locale());
    bool ok = !((v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE);
    if (big != tmp)
        free(big);
    return ok;
}

static const char *scan_number(const char *p, const char *end)
{
    const char *start = p;
    const char *stop = scan_number_syntax(p, end);
    if (!stop)
        return NULL;
    bool real = false;
    for (const char *q = start; q < stop; q++)
        real = real || *q == '.' || *q == 'e' || *q == 'E';
    return number_fits(start, stop, real) ? stop : NULL;
}

static const char *scan_number_syntax(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        return NULL;
    if (*p == '0')
        p++;
    else if (is_digit(*p))
        while (p < end && is_digit(*p))
            p++;
    else
        return NULL;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    return p;
}

static const char *scan_value(const char *p, const char *end, jscan_val *v, int depth);

static const char *scan_container(const char *p, const char *end, char close, int depth)
{
    if (depth > JSCAN_MAX_DEPTH)
        return NULL;
    p = skip_ws(p + 1, end);
    if (p < end && *p == close)
        return p + 1;
    for (;;) {
        jscan_val v;
        if (close == '}') {
            bool esc = false;
            if (p >= end || *p != '"' || !(p = scan_string(p, end, &esc)))
                return NULL;
            p = skip_ws(p, end);
            if (p >= end || *p != ':')
                return NULL;
            p = skip_ws(p + 1, end);
        }
        if (!(p = scan_value(p, end, &v, depth + 1)))
            return NULL;
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1, end);
    }
}

static const char *scan_literal(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - p) < n || memcmp(p, lit, n) != 0)
        return NULL;
    return p + n;
}

static const char *scan_value(const char *p, const char *end, jscan_val *v, int depth)
{
    if (p >= end)
        return NULL;
    const char *start = p;
    v->escaped = false;
    switch (*p) {
    case '"':
        v->kind = JSCAN_STRING;
        p = scan_string(p, end, &v->escaped);
        break;
    case '{':
        v->kind = JSCAN_OBJECT;
        p = scan_container(p, end, '}', depth);
        break;
    case '[':
        v->kind = JSCAN_ARRAY;
        p = scan_container(p, end, ']', depth);
        break;
    case 't':
        v->kind = JSCAN_TRUE;
        p = scan_literal(p, end, "true");
        break;
    case 'f':
        v->kind = JSCAN_FALSE;
        p = scan_literal(p, end, "false");
        break;
    case 'n':
        v->kind = JSCAN_NULL;
        p = scan_literal(p, end, "null");
        break;
    default:
        v->kind = JSCAN_NUMBER;
        p = scan_number(p, end);
        break;
    }
    if (!p)
        return NULL;
    v->start = start;
    v->len = (size_t)(p - start);
    return p;
}

static bool begin(jscan *js, const char *s, const char *end, char open)
{
    const char *p = skip_ws(s, end);
    if (p >= end || *p != open)
        return false;
    js->p = p + 1;
    js->end = end;
    js->first = true;
    return true;
}

bool jscan_object(jscan *js, const char *s, size_t n)
{
    return begin(js, s, s + n, '{');
}

bool jscan_object_val(jscan *js, const jscan_val *v)
{
    return v->kind == JSCAN_OBJECT && begin(js, v->start, v->start + v->len, '{');
}

bool jscan_array_val(jscan *js, const jscan_val *v)
{
    return v->kind == JSCAN_ARRAY && begin(js, v->start, v->start + v->len, '[');
}

/* Past the separator before the next item: 1 = an item follows, 0 = closed, -1 bad. */
static int next_item(jscan *js, char close)
{
    const char *p = skip_ws(js->p, js->end);
    if (p >= js->end)
        return -1;
    if (*p == close) {
        js->p = p + 1;
        return 0;
    }
    if (!js->first) {
        if (*p != ',')
            return -1;
        p = skip_ws(p + 1, js->end);
    }
    js->first = false;
    js->p = p;
    return 1;
}

int jscan_member(jscan *js, const char **key, size_t *klen, jscan_val *v)
{
    int r = next_item(js, '}');
    if (r <= 0)
        return r;
    const char *p = js->p;
    bool esc = false;
    if (*p != '"')
        return -1;
    const char *after = scan_string(p, js->end, &esc);
    if (!after || esc)
        return -1;
    *key = p + 1;
    *klen = (size_t)(after - p - 2);
    p = skip_ws(after, js->end);
    if (p >= js->end || *p != ':')
        return -1;
    p = skip_ws(p + 1, js->end);
    if (!(p = scan_value(p, js->end, v, 1)))
        return -1;
    js->p = p;
    return 1;
}

int jscan_element(jscan *js, jscan_val *v)
{
    int r = next_item(js, ']');
    if (r <= 0)
        return r;
    const char *p = scan_value(js->p, js->end, v, 1);
    if (!p)
        return -1;
    js->p = p;
    return 1;
}

bool jscan_done(const jscan *js)
{
    return skip_ws(js->p, js->end) == js->end;
}

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

static int hexval(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static unsigned read_u4(const char *p)
{
    return (unsigned)(hexval(p[0]) << 12 | hexval(p[1]) << 8 | hexval(p[2]) << 4 | hexval(p[3]));
}

bool jscan_string(const jscan_val *v, buf *out)
{
    if (v->kind != JSCAN_STRING)
        return false;
    const char *s = v->start + 1;
    const char *end = v->start + v->len - 1;
    size_t mark = out->len;
    if (!v->escaped) {
        if (!utf8_validate(s, (size_t)(end - s), NULL))
            return false;
        buf_append(out, s, (size_t)(end - s));
        return out->err == HEW_OK;
    }
    const char *run = s;
    for (const char *p = s; p < end;) {
        if (*p != '\\') {
            p++;
            continue;
        }
        buf_append(out, run, (size_t)(p - run));
        char e = p[1];
        if (e == 'u') {
            unsigned cp = read_u4(p + 2);
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
                    goto bad;
                unsigned lo = read_u4(p + 2);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    goto bad;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                goto bad;
            }
            char u[4];
            size_t n = utf8_encode(cp, u);
            buf_append(out, u, n);
        } else {
            char c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b'
                   : e == 'f' ? '\f' : e;
            buf_putc(out, c);
            p += 2;
        }
        run = p;
    }
    buf_append(out, run, (size_t)(end - run));
    if (out->err != HEW_OK || !utf8_validate(out->data + mark, out->len - mark, NULL))
        goto bad;
    return true;
bad:
    buf_truncate(out, mark);
    return false;
}

bool jscan_int(const jscan_val *v, long long *out)
{
    if (v->kind != JSCAN_NUMBER || v->len > 20)
        return false;
    for (size_t i = 0; i < v->len; i++)
        if (!(is_digit(v->start[i]) || (i == 0 && v->start[i] == '-')))
            return false;
    char tmp[24];
    memcpy(tmp, v->start, v->len);
    tmp[v->len] = '\0';
    errno = 0;
    long long n = strtoll(tmp, NULL, 10);
    if (errno)
        return false;
    *out = n;
    return true;
}
