/* redact — finding secrets in text and replacing them (see redact.h). Pure string work
 * plus one process-wide list of known secret values. It must never print, never fail its
 * caller (out of memory shows as the buf's sticky error) and never let through a secret
 * it was told about. */
#include "base/redact.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"

extern char **environ;

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- known values ------------------------------------------------------------------ */

/* Append-only: an entry is written before the count that makes it visible is published,
 * and never changes or goes away, so readers need no lock. */
static pthread_mutex_t known_mu = PTHREAD_MUTEX_INITIALIZER;
static char *known[REDACT_SECRETS_MAX];
static size_t known_len[REDACT_SECRETS_MAX];
static atomic_size_t nknown;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void add_value(const char *v, size_t n)
{
    if (!v || n < REDACT_MIN_SECRET)
        return;
    pthread_mutex_lock(&known_mu);
    size_t k = atomic_load(&nknown);
    bool have = false;
    for (size_t i = 0; i < k && !have; i++)
        have = known_len[i] == n && memcmp(known[i], v, n) == 0;
    if (!have && k < REDACT_SECRETS_MAX) {
        char *copy = malloc(n + 1);
        if (copy) {
            memcpy(copy, v, n);
            copy[n] = '\0';
            known[k] = copy;
            known_len[k] = n;
            atomic_store(&nknown, k + 1);
        }
    }
    pthread_mutex_unlock(&known_mu);
}

/* The values of the environment's secret variables, once. */
static void load_env(void)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && eq > *e && redact_env_secret(*e, (size_t)(eq - *e)))
            add_value(eq + 1, strlen(eq + 1));
    }
}

void redact_secret_add(const char *value)
{
    pthread_once(&env_once, load_env);
    if (value)
        add_value(value, strlen(value));
}

bool redact_secret_known(const char *value)
{
    if (!value || !*value)
        return false;
    pthread_once(&env_once, load_env);
    size_t n = strlen(value), k = atomic_load(&nknown);
    for (size_t i = 0; i < k; i++)
        if (known_len[i] == n && memcmp(known[i], value, n) == 0)
            return true;
    return false;
}

/* ---- secret variable names --------------------------------------------------------- */

static bool word_is(const char *w, size_t n, const char *x)
{
    return strlen(x) == n && strncasecmp(w, x, n) == 0;
}

static bool word_ends(const char *w, size_t n, const char *x)
{
    size_t k = strlen(x);
    return n >= k && strncasecmp(w + n - k, x, k) == 0;
}

bool redact_env_secret(const char *name, size_t n)
{
    static const char *const whole[] = { "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD",
                                         "KEY" };
    static const char *const ends[] = { "TOKEN",  "SECRET",    "PASSWORD",  "PASSWD",
                                        "APIKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY" };
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && name[j] != '_' && name[j] != '-')
            j++;
        const char *w = name + i;
        size_t wn = j - i;
        for (size_t k = 0; k < COUNT(whole); k++)
            if (word_is(w, wn, whole[k]))
                return true;
        for (size_t k = 0; k < COUNT(ends); k++)
            if (word_ends(w, wn, ends[k]))
                return true;
        i = j + 1;
    }
    return false;
}

/* ---- shapes ------------------------------------------------------------------------ */

static const char *const secret_headers[] = {
    "proxy-authorization", "authorization", "x-goog-api-key", "x-api-key", "api-key",
};

static const char *const secret_params[] = {
    "api_key", "apikey", "access_token", "token", "key",
};

static const char *const secret_json_keys[] = {
    "api_key",       "apikey",        "api-key",      "x-api-key",     "x-goog-api-key",
    "authorization", "proxy-authorization", "access_token", "refresh_token",
    "client_secret", "password",
};

/* Vendors' keys: a fixed prefix (kept: it says which key it was) and a random body. */
typedef struct vendor {
    const char *prefix;
    size_t min;   /* body length at least */
    bool aws;     /* exactly 16 of [A-Z0-9] */
} vendor;

static const vendor vendors[] = {
    { "sk-ant-", 20, false }, { "sk-proj-", 20, false }, { "sk-or-", 20, false },
    { "sk-", 20, false },     { "AIza", 30, false },     { "github_pat_", 20, false },
    { "ghp_", 20, false },    { "gho_", 20, false },     { "ghs_", 20, false },
    { "ghu_", 20, false },    { "ghr_", 20, false },     { "xai-", 20, false },
    { "gsk_", 20, false },    { "AKIA", 16, true },      { "ASIA", 16, true },
};

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
    return is_alnum(c) || c == '-' || c == '_';
}

/* A key's body: letters, digits, '-', '_' and '*' (OpenAI masks the middle of a key it
 * echoes with '*'). */
static bool is_key_char(char c)
{
    return is_name_char(c) || c == '*';
}

/* The alphabet of a token after "Bearer " or "name=": base64, base64url, hex, JWT. */
static bool is_token_char(char c)
{
    return is_alnum(c) || strchr("+/=_.~-", c) != NULL;
}

/* strlen(word) when s[0..n) starts with word (case-insensitive), else 0. */
static size_t starts_ci(const char *s, size_t n, const char *word)
{
    size_t i = 0;
    for (; word[i]; i++)
        if (i >= n || lower(s[i]) != word[i])
            return 0;
    return i;
}

static bool is_auth_name(const char *name)
{
    return strcmp(name, "authorization") == 0 || strcmp(name, "proxy-authorization") == 0;
}

/* A secret found at in[i]: keep in[i..keep), mask in[keep..end), go on at end. The mask
 * keeps in[keep..keep+prefix) (a vendor prefix or a scheme word) before the marker. */
typedef struct match {
    size_t keep;
    size_t end;
    size_t prefix;
} match;

/* The length of the scheme word and its space ("Bearer ") at the start of v[0..n). */
static size_t scheme_len(const char *v, size_t n)
{
    size_t s = 0;
    while (s < n && ((v[s] >= 'a' && v[s] <= 'z') || (v[s] >= 'A' && v[s] <= 'Z')))
        s++;
    return (s > 0 && s + 1 < n && v[s] == ' ') ? s + 1 : 0;
}

/* A header "Name: value" at in[i]. */
static bool match_header(const char *in, size_t n, size_t i, match *m)
{
    if (i > 0 && is_name_char(in[i - 1]))
        return false;
    for (size_t h = 0; h < COUNT(secret_headers); h++) {
        size_t L = starts_ci(in + i, n - i, secret_headers[h]);
        if (!L)
            continue;
        size_t j = i + L;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        if (j >= n || in[j] != ':')
            continue;
        j++;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        size_t e = j;
        while (e < n && in[e] != '\r' && in[e] != '\n' && in[e] != '"' && in[e] != '\\')
            e++;
        if (e == j)
            return false;
        size_t p = is_auth_name(secret_headers[h]) ? scheme_len(in + j, e - j) : 0;
        *m = (match){ j, e, p };
        return true;
    }
    return false;
}

/* A query parameter "?name=value" / "&name=value" at in[i]. */
static bool match_param(const char *in, size_t n, size_t i, match *m)
{
    for (size_t p = 0; p < COUNT(secret_params); p++) {
        size_t L = starts_ci(in + i + 1, n - i - 1, secret_params[p]);
        if (!L || i + 1 + L >= n || in[i + 1 + L] != '=')
            continue;
        size_t v = i + 2 + L;
        size_t e = v;
        while (e < n && !strchr("&#\"'<>\\ \t\r\n", in[e]))
            e++;
        if (e == v)
            return false;
        *m = (match){ v, e, 0 };
        return true;
    }
    return false;
}

/* "://user:password@host" at in[i] (i at the ':' of "://"): the password. */
static bool match_userinfo(const char *in, size_t n, size_t i, match *m)
{
    size_t a = i + 3;
    size_t end = a;
    while (end < n && !strchr("/?#\"'<>\\ \t\r\n", in[end]))
        end++;
    size_t at = end;
    while (at > a && in[at - 1] != '@')
        at--;
    if (at == a)
        return false; /* no '@' */
    at--;             /* index of the last '@' */
    const char *colon = memchr(in + a, ':', at - a);
    if (!colon || (size_t)(colon - in) + 1 == at)
        return false; /* no password */
    *m = (match){ (size_t)(colon - in) + 1, at, 0 };
    return true;
}

/* Is the quote token (" when q is 1, \" when q is 2) at in[j]? */
static bool quote_at(const char *in, size_t n, size_t j, size_t q)
{
    if (q == 1)
        return j < n && in[j] == '"';
    return j + 1 < n && in[j] == '\\' && in[j + 1] == '"';
}

/* A JSON field "name": "value" (or \"name\": \"value\") at in[i]: the string's content. */
static bool match_json(const char *in, size_t n, size_t i, match *m)
{
    size_t q = in[i] == '"' ? 1 : 2;
    size_t k = i + q;
    for (size_t f = 0; f < COUNT(secret_json_keys); f++) {
        size_t L = starts_ci(in + k, n - k, secret_json_keys[f]);
        if (!L || !quote_at(in, n, k + L, q))
            continue;
        size_t j = k + L + q;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        if (j >= n || in[j] != ':')
            continue;
        j++;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        if (!quote_at(in, n, j, q))
            return false; /* not a string value */
        size_t v = j + q;
        size_t e = v;
        if (q == 1) {
            while (e < n && in[e] != '"')
                e += (in[e] == '\\' && e + 1 < n) ? 2 : 1;
        } else {
            while (e < n && !quote_at(in, n, e, 2))
                e++;
        }
        if (e > n)
            e = n; /* an unterminated value is masked to the end */
        if (e == v)
            return false;
        size_t p = is_auth_name(secret_json_keys[f]) ? scheme_len(in + v, e - v) : 0;
        *m = (match){ v, e, p };
        return true;
    }
    return false;
}

/* A vendor's key at in[i] (a token boundary). */
static bool match_vendor(const char *in, size_t n, size_t i, match *m)
{
    if (i > 0 && is_key_char(in[i - 1]))
        return false;
    for (size_t k = 0; k < COUNT(vendors); k++) {
        const vendor *v = &vendors[k];
        size_t L = strlen(v->prefix);
        if (n - i < L || memcmp(in + i, v->prefix, L) != 0)
            continue;
        size_t e = i + L;
        bool digit = false;
        if (v->aws) {
            while (e < n && ((in[e] >= 'A' && in[e] <= 'Z') || is_digit(in[e])))
                digit |= is_digit(in[e++]);
            if (e - i - L != v->min || (e < n && is_alnum(in[e])))
                continue;
        } else {
            for (; e < n && is_key_char(in[e]); e++)
                digit |= is_digit(in[e]) || in[e] == '*';
            if (e - i - L < v->min)
                continue;
        }
        if (!digit)
            continue; /* words joined by dashes ("sk-learn-compatible-…") are not keys */
        *m = (match){ i, e, L };
        return true;
    }
    return false;
}

/* A JWT "eyJ….eyJ….sig" at in[i]. */
static bool match_jwt(const char *in, size_t n, size_t i, match *m)
{
    if (i > 0 && is_key_char(in[i - 1]))
        return false;
    size_t e = i;
    for (int part = 0; part < 3; part++) {
        size_t s = e;
        if (part < 2 && (n - s < 3 || memcmp(in + s, "eyJ", 3) != 0))
            return false;
        while (e < n && is_name_char(in[e]))
            e++;
        if (part < 2 && (e - s < 10 || e >= n || in[e] != '.'))
            return false;
        if (part < 2)
            e++;
    }
    *m = (match){ i, e, 0 };
    return true;
}

/* A token of the token alphabet from in[v]: its end, and whether it has a digit. */
static size_t token_end(const char *in, size_t n, size_t v, bool *digit)
{
    size_t e = v;
    *digit = false;
    while (e < n && is_token_char(in[e]))
        *digit |= is_digit(in[e++]);
    return e;
}

/* "Bearer <token>" at in[i] (case-insensitive, a word of its own). */
static bool match_bearer(const char *in, size_t n, size_t i, match *m)
{
    if ((i > 0 && is_name_char(in[i - 1])) || !starts_ci(in + i, n - i, "bearer"))
        return false;
    size_t v = i + 6;
    if (v >= n || in[v] != ' ')
        return false;
    while (v < n && in[v] == ' ')
        v++;
    bool digit;
    size_t e = token_end(in, n, v, &digit);
    if (e - v < 16 || !digit)
        return false;
    *m = (match){ v, e, 0 };
    return true;
}

/* "NAME=value" at in[i] (the '='): NAME ends in key/token/secret and the value looks
 * random, or NAME ends in password/passwd. A quote around the value is kept. */
static bool match_assign(const char *in, size_t n, size_t i, match *m)
{
    size_t s = i;
    while (s > 0 && (is_alnum(in[s - 1]) || in[s - 1] == '_'))
        s--;
    const char *name = in + s;
    size_t nn = i - s;
    bool password = word_ends(name, nn, "password") || word_ends(name, nn, "passwd");
    bool key = word_ends(name, nn, "key") || word_ends(name, nn, "token") ||
               word_ends(name, nn, "secret");
    if (!password && !key)
        return false;
    size_t v = i + 1;
    if (v < n && (in[v] == '"' || in[v] == '\''))
        v++;
    bool digit;
    size_t e = token_end(in, n, v, &digit);
    if (password) {
        while (e < n && !strchr("&\"' \t\r\n", in[e]))
            e++;
        if (e == v)
            return false;
    } else if (e - v < 16 || !digit) {
        return false;
    }
    *m = (match){ v, e, 0 };
    return true;
}

/* The longest known value at in[i] (its length, or 0) and the vendor prefix it keeps. */
static size_t known_at(const char *in, size_t n, size_t i, size_t *prefix)
{
    size_t k = atomic_load(&nknown), best = 0, bj = 0;
    for (size_t j = 0; j < k; j++) {
        size_t L = known_len[j];
        if (L > best && L <= n - i && in[i] == known[j][0] && memcmp(in + i, known[j], L) == 0) {
            best = L;
            bj = j;
        }
    }
    *prefix = 0;
    for (size_t v = 0; best && v < COUNT(vendors) && !*prefix; v++) {
        size_t vl = strlen(vendors[v].prefix);
        if (vl < best && memcmp(known[bj], vendors[v].prefix, vl) == 0)
            *prefix = vl;
    }
    return best;
}

/* Pass 1: every known value replaced, wherever it stands (also inside what a shape keeps,
 * such as the user of "https://user:password@host"). False when there was none (out
 * untouched). */
static bool replace_known(const char *in, size_t n, buf *out)
{
    if (!atomic_load(&nknown))
        return false;
    size_t run = 0, i = 0, prefix;
    bool any = false;
    while (i < n) {
        size_t L = known_at(in, n, i, &prefix);
        if (!L) {
            i++;
            continue;
        }
        any = true;
        buf_append(out, in + run, i - run + prefix);
        buf_puts(out, REDACT_MARK);
        i = run = i + L;
    }
    if (any)
        buf_append(out, in + run, n - run);
    return any;
}

/* The next shape at in[i], or false. */
static bool next_match(const char *in, size_t n, size_t i, match *m)
{
    char c = in[i];
    if (c == '?' || c == '&')
        return i + 1 < n && match_param(in, n, i, m);
    if (c == '"' || (c == '\\' && i + 1 < n && in[i + 1] == '"'))
        return match_json(in, n, i, m);
    if (c == ':')
        return i + 2 < n && in[i + 1] == '/' && in[i + 2] == '/' && match_userinfo(in, n, i, m);
    if (c == '=')
        return match_assign(in, n, i, m);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return match_header(in, n, i, m) || match_vendor(in, n, i, m) ||
               match_jwt(in, n, i, m) || match_bearer(in, n, i, m);
    return false;
}

/* Pass 2: the shapes. What a match keeps before its secret (a URL's user, a header's
 * name) is scanned too, once (depth 0 only): "https://ghp_…:x@github.com". */
static void replace_shapes(const char *in, size_t n, buf *out, int depth)
{
    size_t run = 0; /* start of the bytes not yet copied */
    size_t i = 0;
    while (i < n) {
        match m;
        if (!next_match(in, n, i, &m)) {
            i++;
            continue;
        }
        buf_append(out, in + run, i - run);
        if (depth == 0 && m.keep > i)
            replace_shapes(in + i, m.keep - i, out, 1);
        else
            buf_append(out, in + i, m.keep - i);
        buf_append(out, in + m.keep, m.prefix);
        buf_puts(out, REDACT_MARK);
        i = run = m.end;
    }
    buf_append(out, in + run, n - run);
}

void redact_text(const char *in, size_t n, buf *out)
{
    pthread_once(&env_once, load_env);
    buf known_out = BUF_INIT(BUF_DEFAULT_MAX);
    if (replace_known(in, n, &known_out)) {
        if (known_out.err != HEW_OK) {
            out->err = known_out.err; /* never copy the text with a secret left in it */
        } else {
            replace_shapes(known_out.data, known_out.len, out, 0);
        }
    } else {
        replace_shapes(in, n, out, 0);
    }
    buf_release(&known_out);
}

bool redact_found(const char *s, size_t n)
{
    pthread_once(&env_once, load_env);
    match m;
    size_t prefix;
    for (size_t i = 0; i < n; i++)
        if (known_at(s, n, i, &prefix) || next_match(s, n, i, &m))
            return true;
    return false;
}

bool redact_is_key(const char *value)
{
    if (!value || !*value)
        return false;
    if (redact_secret_known(value))
        return true;
    size_t n = strlen(value);
    match m;
    return (match_vendor(value, n, 0, &m) || match_jwt(value, n, 0, &m)) && m.keep == 0 &&
           m.end == n;
}

char *redact_dup(const char *s)
{
    if (!s)
        return NULL;
    buf b = BUF_INIT(BUF_DEFAULT_MAX);
    redact_text(s, strlen(s), &b);
    buf_putc(&b, '\0');
    if (b.err != HEW_OK) {
        buf_release(&b);
        return NULL;
    }
    return buf_detach(&b, NULL);
}

void redact_inplace(char *s, size_t cap)
{
    if (!s || cap == 0)
        return;
    size_t n = strnlen(s, cap - 1);
    if (!redact_found(s, n))
        return;
    buf b = BUF_INIT(BUF_DEFAULT_MAX);
    redact_text(s, n, &b);
    if (b.err != HEW_OK) {
        s[0] = '\0'; /* never keep the secret when the copy failed */
    } else {
        size_t keep = b.len < cap - 1 ? b.len : utf8_complete_prefix(b.data, cap - 1);
        memcpy(s, b.data, keep);
        s[keep] = '\0';
    }
    buf_release(&b);
}

bool redact_header_is_secret(const char *name)
{
    if (!name)
        return false;
    for (size_t h = 0; h < COUNT(secret_headers); h++)
        if (strcasecmp(name, secret_headers[h]) == 0)
            return true;
    return false;
}

void redact_header(const char *name, const char *value, buf *out)
{
    if (!value)
        return;
    if (!redact_header_is_secret(name)) {
        buf_puts(out, value);
        return;
    }
    if (strcasecmp(name, "authorization") == 0 || strcasecmp(name, "proxy-authorization") == 0)
        buf_append(out, value, scheme_len(value, strlen(value)));
    buf_puts(out, REDACT_MARK);
}

void redact_key_hint(const char *key, char *out, size_t n)
{
    if (!out || n == 0)
        return;
    size_t show = 0;
    if (key && strlen(key) >= 12)
        while (show < 3 && (unsigned char)key[show] < 0x80)
            show++;
    snprintf(out, n, "%.*s***", (int)show, key ? key : "");
}
