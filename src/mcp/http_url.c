/* http_url — resolving, comparing and showing the URLs of the MCP HTTP transports (see
 * http_url.h). RFC 3986 §5.2 reference resolution on plain strings; it must never read
 * past a string, never accept a scheme other than http(s) for a result, and never let
 * user info or a query reach a message. */
#include "mcp/http_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"

/* The pieces of a URL reference, pointing into the string (not NUL-terminated). */
typedef struct url_parts {
    const char *scheme;
    size_t scheme_len; /* 0: none */
    const char *auth;
    size_t auth_len;
    bool has_auth;
    const char *path;
    size_t path_len;
    const char *query; /* starts with '?' */
    size_t query_len;  /* 0: none */
} url_parts;

static bool is_scheme_char(char c, bool first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return !first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.');
}

static size_t scheme_length(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_scheme_char(s[i], i == 0))
        i++;
    return i > 0 && i < n && s[i] == ':' ? i : 0;
}

static url_parts url_split(const char *s, size_t n)
{
    url_parts p;
    memset(&p, 0, sizeof p);
    size_t i = scheme_length(s, n);
    if (i) {
        p.scheme = s;
        p.scheme_len = i;
        i++; /* ':' */
    }
    if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
        i += 2;
        p.has_auth = true;
        p.auth = s + i;
        while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#')
            i++;
        p.auth_len = (size_t)(s + i - p.auth);
    }
    p.path = s + i;
    while (i < n && s[i] != '?' && s[i] != '#')
        i++;
    p.path_len = (size_t)(s + i - p.path);
    if (i < n && s[i] == '?') {
        p.query = s + i;
        while (i < n && s[i] != '#')
            i++;
        p.query_len = (size_t)(s + i - p.query);
    }
    return p;
}

static bool scheme_is_http(const url_parts *p)
{
    return (p->scheme_len == 4 && strncasecmp(p->scheme, "http", 4) == 0) ||
           (p->scheme_len == 5 && strncasecmp(p->scheme, "https", 5) == 0);
}

/* Drop the last segment (and its '/') from out. */
static void drop_last_segment(buf *out)
{
    size_t n = out->len;
    while (n > 0 && out->data[n - 1] != '/')
        n--;
    buf_truncate(out, n > 0 ? n - 1 : 0);
}

/* RFC 3986 §5.2.4, on a mutable copy of the path; out holds the path alone (dropping a
 * segment cuts back into it). */
static void remove_dot_segments(char *in, size_t n, buf *out)
{
    size_t i = 0;
    while (i < n) {
        const char *s = in + i;
        size_t left = n - i;
        if (left >= 3 && memcmp(s, "../", 3) == 0) {
            i += 3;
        } else if (left >= 2 && memcmp(s, "./", 2) == 0) {
            i += 2;
        } else if (left >= 3 && memcmp(s, "/./", 3) == 0) {
            i += 2;
        } else if (left == 2 && memcmp(s, "/.", 2) == 0) {
            in[i + 1] = '/';
            i += 1;
        } else if (left >= 4 && memcmp(s, "/../", 4) == 0) {
            i += 3;
            drop_last_segment(out);
        } else if (left == 3 && memcmp(s, "/..", 3) == 0) {
            in[i + 2] = '/';
            i += 2;
            drop_last_segment(out);
        } else if ((left == 1 && s[0] == '.') || (left == 2 && memcmp(s, "..", 2) == 0)) {
            i = n;
        } else {
            size_t seg = 1;
            while (seg < left && s[seg] != '/')
                seg++;
            buf_append(out, s, seg);
            i += seg;
        }
    }
}

/* Append the dot-free form of path (which may be built from two pieces: a base directory
 * and a relative reference). */
static void append_clean_path(buf *out, const char *dir, size_t dir_len, const char *rel,
                              size_t rel_len)
{
    buf joined = BUF_INIT(0), clean = BUF_INIT(0);
    buf_append(&joined, dir, dir_len);
    buf_append(&joined, rel, rel_len);
    if (joined.err == HEW_OK && joined.len)
        remove_dot_segments(joined.data, joined.len, &clean);
    if (joined.err != HEW_OK || clean.err != HEW_OK)
        out->err = joined.err != HEW_OK ? joined.err : clean.err;
    else
        buf_append(out, clean.data, clean.len);
    buf_release(&joined);
    buf_release(&clean);
}

static bool has_bad_bytes(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t' || **s == '\r' || **s == '\n')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r' ||
                  (*s)[*n - 1] == '\n'))
        (*n)--;
}

/* The path of the target for a reference without scheme and authority (§5.2.2). */
static void append_merged_path(buf *out, const url_parts *b, const url_parts *r)
{
    if (r->path_len && r->path[0] == '/') {
        append_clean_path(out, "", 0, r->path, r->path_len);
        return;
    }
    if (b->has_auth && b->path_len == 0) {
        append_clean_path(out, "/", 1, r->path, r->path_len);
        return;
    }
    size_t dir = b->path_len;
    while (dir > 0 && b->path[dir - 1] != '/')
        dir--;
    append_clean_path(out, b->path, dir, r->path, r->path_len);
}

hew_code mcp_http_url_resolve(const char *base, const char *ref, char **out, hew_err *err)
{
    *out = NULL;
    url_parts b = url_split(base, strlen(base));
    if (!scheme_is_http(&b) || !b.has_auth || b.auth_len == 0)
        return hew_err_set(err, HEW_E_INVALID, "%s is not an http:// or https:// URL", base);
    size_t ref_len = strlen(ref);
    trim(&ref, &ref_len);
    if (ref_len == 0)
        return hew_err_set(err, HEW_E_INVALID, "the server gave an empty URL");
    if (has_bad_bytes(ref, ref_len))
        return hew_err_set(err, HEW_E_INVALID,
                           "the server gave a URL with spaces or control characters");
    url_parts r = url_split(ref, ref_len);
    const url_parts *auth_from = r.scheme_len || r.has_auth ? &r : &b;
    const url_parts *scheme_from = r.scheme_len ? &r : &b;

    buf t = BUF_INIT(0);
    buf_append(&t, scheme_from->scheme, scheme_from->scheme_len);
    buf_puts(&t, "://");
    buf_append(&t, auth_from->auth, auth_from->auth_len);
    if (auth_from == &r) {
        append_clean_path(&t, "", 0, r.path, r.path_len);
        buf_append(&t, r.query, r.query_len);
    } else if (r.path_len == 0) {
        buf_append(&t, b.path, b.path_len);
        if (r.query_len)
            buf_append(&t, r.query, r.query_len);
        else
            buf_append(&t, b.query, b.query_len);
    } else {
        append_merged_path(&t, &b, &r);
        buf_append(&t, r.query, r.query_len);
    }
    if (t.err != HEW_OK) {
        buf_release(&t);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory resolving a URL");
    }
    url_parts result = url_split(t.data, t.len);
    if (!scheme_is_http(&result) || result.auth_len == 0) {
        buf_release(&t);
        return hew_err_set(err, HEW_E_INVALID,
                           "the server gave a URL that is not http:// or https:// with a host");
    }
    *out = buf_detach(&t, NULL);
    return HEW_OK;
}

/* Host and port of an authority (user info dropped; IPv6 literals keep their brackets). */
static void split_host_port(const url_parts *p, const char **host, size_t *host_len, long *port)
{
    const char *a = p->auth;
    size_t n = p->auth_len;
    const char *at = NULL;
    for (size_t i = 0; i < n; i++)
        if (a[i] == '@')
            at = a + i;
    if (at) {
        n -= (size_t)(at + 1 - a);
        a = at + 1;
    }
    bool https = p->scheme_len == 5;
    *port = https ? 443 : 80;
    size_t colon = n;
    for (size_t i = n; i-- > 0;) {
        if (a[i] == ']')
            break;
        if (a[i] == ':') {
            colon = i;
            break;
        }
    }
    *host = a;
    *host_len = colon;
    if (colon + 1 < n) {
        long v = 0;
        for (size_t i = colon + 1; i < n && a[i] >= '0' && a[i] <= '9' && v < 100000; i++)
            v = v * 10 + (a[i] - '0');
        *port = v;
    }
}

bool mcp_http_url_same_origin(const char *a, const char *b)
{
    url_parts pa = url_split(a, strlen(a)), pb = url_split(b, strlen(b));
    if (!scheme_is_http(&pa) || !scheme_is_http(&pb) || pa.scheme_len != pb.scheme_len ||
        strncasecmp(pa.scheme, pb.scheme, pa.scheme_len) != 0)
        return false;
    const char *ha, *hb;
    size_t la, lb;
    long porta, portb;
    split_host_port(&pa, &ha, &la, &porta);
    split_host_port(&pb, &hb, &lb, &portb);
    return la == lb && strncasecmp(ha, hb, la) == 0 && porta == portb;
}

void mcp_http_url_display(const char *url, char *out, size_t cap)
{
    if (!cap)
        return;
    url_parts p = url_split(url, strlen(url));
    if (!p.has_auth) {
        snprintf(out, cap, "%.*s", (int)p.path_len, p.path);
        return;
    }
    const char *host = p.auth;
    size_t host_len = p.auth_len;
    for (size_t i = 0; i < p.auth_len; i++)
        if (p.auth[i] == '@') {
            host = p.auth + i + 1;
            host_len = p.auth_len - i - 1;
        }
    snprintf(out, cap, "%.*s%s%.*s%.*s", (int)p.scheme_len, p.scheme ? p.scheme : "",
             p.scheme_len ? "://" : "//", (int)host_len, host, (int)p.path_len, p.path);
}
