/* retry_after — parses the server's "wait this long" hints (see retry_after.h). Pure
 * functions over strings; never sleeps, never reads the clock, never trusts the input. */
#include "api/retry_after.h"

#include <ctype.h>
#include <stdio.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DELAY_S 86400.0 /* anything longer is not a retry hint we act on */

static double sane(double s)
{
    if (!isfinite(s) || s < 0 || s > MAX_DELAY_S)
        return -1;
    return s;
}

/* Parse a non-negative decimal number at *p (digits, optional fraction); advances *p.
 * false when there is no digit. */
static bool parse_decimal(const char **p, double *out)
{
    const char *s = *p;
    size_t n = 0, digits = 0;
    while (isdigit((unsigned char)s[n])) {
        n++;
        digits++;
    }
    if (s[n] == '.') {
        n++;
        while (isdigit((unsigned char)s[n])) {
            n++;
            digits++;
        }
    }
    if (digits == 0 || n >= 64)
        return false;
    char tmp[64];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    *out = strtod(tmp, NULL); /* correctly rounded: "4.644" stays 4.644 */
    *p = s + n;
    return true;
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static bool only_space_left(const char *s)
{
    return *skip_space(s) == '\0';
}

const char *api_header_get(const http_header *h, size_t n, const char *name)
{
    for (size_t i = 0; h && i < n; i++)
        if (h[i].name && strcasecmp(h[i].name, name) == 0)
            return h[i].value ? h[i].value : "";
    return NULL;
}

/* ---- HTTP-date (IMF-fixdate; the obsolete forms are accepted by strptime too) ---------- */

static double http_date(const char *v, time_t now)
{
    static const char *const formats[] = {
        "%a, %d %b %Y %H:%M:%S GMT", /* IMF-fixdate */
        "%A, %d-%b-%y %H:%M:%S GMT", /* RFC 850 */
        "%a %b %e %H:%M:%S %Y",      /* asctime */
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        const char *end = strptime(v, formats[i], &tm);
        if (end && only_space_left(end)) {
            time_t t = timegm(&tm);
            if (t == (time_t)-1)
                return -1;
            double d = difftime(t, now);
            return sane(d < 0 ? 0 : d);
        }
    }
    return -1;
}

double api_retry_after_header(const char *value, time_t now)
{
    if (!value)
        return -1;
    const char *p = skip_space(value);
    double v;
    const char *q = p;
    if (parse_decimal(&q, &v) && only_space_left(q))
        return sane(v);
    return http_date(p, now);
}

double api_retry_after_duration(const char *value)
{
    if (!value)
        return -1;
    const char *p = skip_space(value);
    double total = 0;
    bool any = false;
    while (*p && *p != ' ') {
        double v;
        if (!parse_decimal(&p, &v))
            return -1;
        double unit;
        if (strncmp(p, "ms", 2) == 0) {
            unit = 1e-3;
            p += 2;
        } else if (strncmp(p, "us", 2) == 0 || strncmp(p, "\xC2\xB5s", 3) == 0) {
            unit = 1e-6;
            p += *p == 'u' ? 2 : 3;
        } else if (strncmp(p, "ns", 2) == 0) {
            unit = 1e-9;
            p += 2;
        } else if (*p == 'h') {
            unit = 3600;
            p++;
        } else if (*p == 'm') {
            unit = 60;
            p++;
        } else if (*p == 's') {
            unit = 1;
            p++;
        } else if (*p == '\0' || *p == ' ') {
            unit = 1; /* a bare number: seconds */
        } else {
            return -1;
        }
        total += v * unit;
        any = true;
    }
    if (!any || !only_space_left(p))
        return -1;
    return sane(total);
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static bool fixed_digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return false;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return true;
}

double api_retry_after_rfc3339(const char *value, time_t now)
{
    if (!value)
        return -1;
    const char *p = skip_space(value);
    int Y, M, D, h, m, s;
    if (!fixed_digits(&p, 4, &Y) || *p++ != '-' || !fixed_digits(&p, 2, &M) || *p++ != '-' ||
        !fixed_digits(&p, 2, &D) || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p++;
    if (!fixed_digits(&p, 2, &h) || *p++ != ':' || !fixed_digits(&p, 2, &m) || *p++ != ':' ||
        !fixed_digits(&p, 2, &s))
        return -1;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || s > 60)
        return -1;
    double frac = 0;
    if (*p == '.') {
        p++;
        double scale = 0.1;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p)) {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
    }
    long offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1;
        p++;
        int oh, om;
        if (!fixed_digits(&p, 2, &oh) || *p++ != ':' || !fixed_digits(&p, 2, &om))
            return -1;
        offset = sign * (oh * 3600L + om * 60L);
    } else {
        return -1;
    }
    if (!only_space_left(p))
        return -1;
    double t = (double)days_from_civil(Y, (unsigned)M, (unsigned)D) * 86400.0 + h * 3600.0 +
               m * 60.0 + s + frac - (double)offset;
    double d = t - (double)now;
    return sane(d < 0 ? 0 : d);
}

double api_retry_after_message(const char *msg)
{
    if (!msg)
        return -1;
    static const char *const leads[] = { "try again in ", "retry in ", "retry after ",
                                         "please wait ", "retry_after " };
    for (const char *s = msg; *s; s++) {
        for (size_t i = 0; i < sizeof leads / sizeof leads[0]; i++) {
            size_t ln = strlen(leads[i]);
            if (strncasecmp(s, leads[i], ln) != 0)
                continue;
            const char *p = s + ln;
            double v;
            if (!parse_decimal(&p, &v))
                continue;
            p = skip_space(p);
            if (strncasecmp(p, "ms", 2) == 0 || strncasecmp(p, "millisecond", 11) == 0)
                return sane(v / 1000.0);
            if (strncasecmp(p, "s", 1) == 0) /* s, sec, second(s) */
                return sane(v);
            if (strncasecmp(p, "m", 1) == 0 && strncasecmp(p, "ms", 2) != 0)
                return sane(v * 60);
        }
    }
    return -1;
}

static bool remaining_is_zero(const http_header *h, size_t n, const char *name)
{
    const char *v = api_header_get(h, n, name);
    return v && strtol(v, NULL, 10) == 0 && isdigit((unsigned char)*skip_space(v));
}

double api_retry_after_explicit(const http_header *h, size_t n, time_t now)
{
    const char *v;
    double d;
    if ((v = api_header_get(h, n, "retry-after-ms"))) {
        const char *p = skip_space(v);
        if (parse_decimal(&p, &d) && only_space_left(p) && sane(d / 1000.0) >= 0)
            return d / 1000.0;
    }
    if ((v = api_header_get(h, n, "retry-after")) && (d = api_retry_after_header(v, now)) >= 0)
        return d;
    return -1;
}

double api_retry_after_ratelimit(const http_header *h, size_t n, api_bucket bucket, time_t now)
{
    /* OpenAI: durations per bucket. */
    double tok = api_retry_after_duration(api_header_get(h, n, "x-ratelimit-reset-tokens"));
    double req = api_retry_after_duration(api_header_get(h, n, "x-ratelimit-reset-requests"));
    if (tok >= 0 || req >= 0) {
        if (bucket == API_BUCKET_TOKENS && tok >= 0)
            return tok;
        if (bucket == API_BUCKET_REQUESTS && req >= 0)
            return req;
        bool tz = remaining_is_zero(h, n, "x-ratelimit-remaining-tokens");
        bool rz = remaining_is_zero(h, n, "x-ratelimit-remaining-requests");
        if (tz && !rz && tok >= 0)
            return tok;
        if (rz && !tz && req >= 0)
            return req;
        return tok > req ? tok : req;
    }
    /* Anthropic: absolute RFC 3339 times per bucket; take the latest exhausted one, else
     * the latest of all. */
    static const char *const buckets[] = { "requests", "tokens", "input-tokens", "output-tokens" };
    double best_exhausted = -1, best_any = -1;
    for (size_t i = 0; i < sizeof buckets / sizeof buckets[0]; i++) {
        char name[64], rem[64];
        snprintf(name, sizeof name, "anthropic-ratelimit-%s-reset", buckets[i]);
        snprintf(rem, sizeof rem, "anthropic-ratelimit-%s-remaining", buckets[i]);
        double r = api_retry_after_rfc3339(api_header_get(h, n, name), now);
        if (r < 0)
            continue;
        if (r > best_any)
            best_any = r;
        if (remaining_is_zero(h, n, rem) && r > best_exhausted)
            best_exhausted = r;
    }
    return best_exhausted >= 0 ? best_exhausted : best_any;
}
