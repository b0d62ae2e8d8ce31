/* url — resolving and comparing URLs with libcurl's URL API, and the one URL redactor
 * (see url.h). It must never decide on a URL by its own reading of the text, and never
 * put user info, a query or a fragment into a message. */
#include "net/url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/curl_lib.h"

#define URL_SHOWN_MAX 256 /* bytes of a URL shown in an error message */

/* ---- the redactor ---------------------------------------------------------------------- */

static bool is_scheme_char(char c, bool first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return !first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.');
}

/* The length of "scheme://" at the start of url, or of a leading "//"; 0 when neither. */
static size_t authority_start(const char *url)
{
    size_t i = 0;
    while (url[i] && is_scheme_char(url[i], i == 0))
        i++;
    if (i > 0 && strncmp(url + i, "://", 3) == 0)
        return i + 3;
    return strncmp(url, "//", 2) == 0 ? 2 : 0;
}

void url_redact(const char *url, char *out, size_t cap)
{
    if (!cap)
        return;
    if (!url)
        url = "";
    size_t prefix = authority_start(url);
    const char *auth = url + prefix;
    size_t auth_len = strcspn(auth, "/");
    const char *host = auth;
    for (size_t i = 0; i < auth_len; i++)
        if (auth[i] == '@')
            host = auth + i + 1;
    size_t host_len = strcspn(host, "/?#");
    if (host + host_len > auth + auth_len)
        host_len = (size_t)(auth + auth_len - host);
    const char *path = auth + auth_len;
    size_t path_len = strcspn(path, "?#");
    if (host_len < auth_len - (size_t)(host - auth))
        path_len = 0; /* the authority held a '?' or '#': what follows is no path */
    snprintf(out, cap, "%.*s%.*s%.*s", (int)prefix, url, (int)host_len, host, (int)path_len,
             path);
}

bool url_has_http_scheme(const char *url)
{
    return url && (strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0);
}

/* ---- parsing with curl ----------------------------------------------------------------- */

/* A part of h as a string curl allocated (free with c->free_str), or NULL when absent. */
static char *part(const curl_lib *c, CURLU *h, CURLUPart which, unsigned flags)
{
    char *s = NULL;
    if (c->url_get(h, which, &s, flags) != CURLUE_OK)
        return NULL;
    return s;
}

/* True when h holds an http or https URL with a non-empty host. */
static bool is_http_with_host(const curl_lib *c, CURLU *h)
{
    char *scheme = part(c, h, CURLUPART_SCHEME, 0);
    char *host = part(c, h, CURLUPART_HOST, 0);
    bool ok = scheme && host && host[0] &&
              (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0);
    c->free_str(scheme);
    c->free_str(host);
    return ok;
}

/* A handle holding url parsed, or NULL (*why says what went wrong: 'm' memory, 'u' curl
 * refused it, 's' not http(s) with a host). */
static CURLU *parse_http(const curl_lib *c, const char *url, char *why)
{
    CURLU *h = c->url();
    if (!h) {
        *why = 'm';
        return NULL;
    }
    CURLUcode rc = c->url_set(h, CURLUPART_URL, url, 0);
    if (rc != CURLUE_OK) {
        *why = rc == CURLUE_OUT_OF_MEMORY ? 'm' : 'u';
        c->url_cleanup(h);
        return NULL;
    }
    if (!is_http_with_host(c, h)) {
        *why = 's';
        c->url_cleanup(h);
        return NULL;
    }
    return h;
}

/* libcurl, or NULL with *code and err set from curl_lib_get's error. */
static const curl_lib *load(hew_err *err, hew_code *code)
{
    hew_err e = HEW_ERR_INIT;
    const curl_lib *c = curl_lib_get(&e);
    if (!c)
        *code = hew_err_set(err, e.code != HEW_OK ? e.code : HEW_E_INTERNAL, "%s", e.msg);
    return c;
}

hew_code url_check_http(const char *url, hew_err *err)
{
    hew_code code = HEW_OK;
    const curl_lib *c = load(err, &code);
    if (!c)
        return code;
    char why = 0;
    char shown[URL_SHOWN_MAX];
    url_redact(url, shown, sizeof shown);
    CURLU *h = parse_http(c, url ? url : "", &why);
    if (!h)
        return why == 'm' ? hew_err_set(err, HEW_E_NOMEM, "out of memory reading a URL")
                          : hew_err_set(err, HEW_E_INVALID,
                                        "%s is not an http:// or https:// URL with a host",
                                        shown);
    c->url_cleanup(h);
    return HEW_OK;
}

static bool has_bad_bytes(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        if (b <= 0x20 || b == 0x7f)
            return true;
    }
    return false;
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

hew_code url_resolve(const char *base, const char *ref, char **out, hew_err *err)
{
    *out = NULL;
    hew_code code = HEW_OK;
    const curl_lib *c = load(err, &code);
    if (!c)
        return code;
    char shown[URL_SHOWN_MAX];
    url_redact(base, shown, sizeof shown);
    char why = 0;
    CURLU *h = parse_http(c, base ? base : "", &why);
    if (!h)
        return why == 'm' ? hew_err_set(err, HEW_E_NOMEM, "out of memory resolving a URL")
                          : hew_err_set(err, HEW_E_INVALID,
                                        "%s is not an http:// or https:// URL", shown);
    if (!ref)
        ref = "";
    size_t n = strlen(ref);
    while (n && is_space(*ref)) {
        ref++;
        n--;
    }
    while (n && is_space(ref[n - 1]))
        n--;
    hew_code rc = HEW_OK;
    char *copy = NULL;
    if (n == 0) {
        rc = hew_err_set(err, HEW_E_INVALID, "the server gave an empty URL");
        goto done;
    }
    if (has_bad_bytes(ref, n)) {
        rc = hew_err_set(err, HEW_E_INVALID,
                         "the server gave a URL with spaces or control characters");
        goto done;
    }
    url_redact(ref, shown, sizeof shown);
    /* A ref that is only a fragment names the base itself (and the fragment is dropped
     * below); curl before 8.x would resolve it against the base's directory. */
    if (ref[0] != '#') {
        if (!(copy = strndup(ref, n))) {
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory resolving a URL");
            goto done;
        }
        CURLUcode cu = c->url_set(h, CURLUPART_URL, copy, 0);
        if (cu != CURLUE_OK) {
            rc = cu == CURLUE_OUT_OF_MEMORY
                     ? hew_err_set(err, HEW_E_NOMEM, "out of memory resolving a URL")
                     : hew_err_set(err, HEW_E_INVALID,
                                   "the server gave a URL that is not one (%s; curl error %d)",
                                   shown, (int)cu);
            goto done;
        }
    }
    if (c->url_set(h, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK || !is_http_with_host(c, h)) {
        rc = hew_err_set(err, HEW_E_INVALID,
                         "the server gave a URL that is not http:// or https:// with a host "
                         "(%s)", shown);
        goto done;
    }
    char *s = part(c, h, CURLUPART_URL, 0);
    if (!s || !(*out = strdup(s)))
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory resolving a URL");
    c->free_str(s);
done:
    free(copy);
    c->url_cleanup(h);
    return rc;
}

bool url_same_origin(const char *a, const char *b)
{
    hew_code code = HEW_OK;
    const curl_lib *c = load(NULL, &code);
    if (!c || !a || !b)
        return false;
    char why = 0;
    CURLU *ha = parse_http(c, a, &why), *hb = ha ? parse_http(c, b, &why) : NULL;
    bool same = false;
    if (ha && hb) {
        static const struct {
            CURLUPart part;
            unsigned flags;
            bool any_case, optional;
        } parts[] = {
            { CURLUPART_SCHEME, 0, false, false },
            { CURLUPART_HOST, 0, true, false },
            { CURLUPART_PORT, CURLU_DEFAULT_PORT, false, false },
            { CURLUPART_ZONEID, 0, false, true },
        };
        same = true;
        for (size_t i = 0; same && i < sizeof parts / sizeof parts[0]; i++) {
            char *pa = part(c, ha, parts[i].part, parts[i].flags);
            char *pb = part(c, hb, parts[i].part, parts[i].flags);
            if (!pa || !pb)
                same = parts[i].optional && !pa && !pb;
            else
                same = parts[i].any_case ? strcasecmp(pa, pb) == 0 : strcmp(pa, pb) == 0;
            c->free_str(pa);
            c->free_str(pb);
        }
    }
    if (ha)
        c->url_cleanup(ha);
    if (hb)
        c->url_cleanup(hb);
    return same;
}
