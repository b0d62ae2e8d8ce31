/* egress_host — reading allow-list entries and request hosts, and matching them (see
 * egress_host.h). Everything a request sends is checked byte by byte against the small
 * alphabet of host names before it is compared or copied; nothing here may accept a host
 * it would then resolve differently from how it compared it. */
#include "net/egress_host.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 253
#define LABEL_MAX_LEN 63

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* A port: 1–5 digits without a leading zero, 1..65535. */
static bool read_port(const char *s, size_t len, int *out)
{
    if (len == 0 || len > 5 || s[0] == '0')
        return false;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > 65535)
        return false;
    *out = v;
    return true;
}

/* "[v6]" inner text (without brackets) → canonical text. */
static bool read_v6(const char *s, size_t len, char *dst, const char **why)
{
    char tmp[INET6_ADDRSTRLEN + 1];
    if (memchr(s, '%', len)) {
        *why = "an IPv6 zone id in the host";
        return false;
    }
    if (len == 0 || len >= sizeof tmp) {
        *why = "not an IPv6 address";
        return false;
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    struct in6_addr a;
    if (inet_pton(AF_INET6, tmp, &a) != 1 || !inet_ntop(AF_INET6, &a, dst, EGRESS_HOST_MAX)) {
        *why = "not an IPv6 address";
        return false;
    }
    return true;
}

/* A last label that a URL parser (and inet_aton, which getaddrinfo uses) reads as a
 * number: all digits, or 0x followed by hex digits (or nothing). */
static bool numeric_label(const char *s, size_t len)
{
    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        for (size_t i = 2; i < len; i++)
            if (!is_hex(s[i]))
                return false;
        return true;
    }
    for (size_t i = 0; i < len; i++)
        if (!is_digit(s[i]))
            return false;
    return len > 0;
}

/* A name or an IPv4 address (no brackets, no port) → lowercase name or canonical
 * address. */
static bool read_name(const char *s, size_t len, char *dst, bool *ip, const char **why)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '@') {
            *why = "user info in the host";
            return false;
        }
        if (c == '%') {
            *why = "a percent escape in the host";
            return false;
        }
        if (c == ':') {
            *why = "an IPv6 address without brackets";
            return false;
        }
        if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
              c == '_' || c == '.')) {
            *why = "a character that is not allowed in a host name";
            return false;
        }
    }
    if (len > 0 && s[len - 1] == '.')
        len--; /* the absolute form of the same name */
    if (len == 0) {
        *why = "an empty host";
        return false;
    }
    if (len > NAME_MAX_LEN) {
        *why = "a host name over 253 bytes";
        return false;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.')
            continue;
        size_t l = i - start;
        if (l == 0) {
            *why = "an empty label in the host";
            return false;
        }
        if (l > LABEL_MAX_LEN) {
            *why = "a label over 63 bytes in the host";
            return false;
        }
        if (i == len && numeric_label(s + start, l)) {
            /* an address: only the strict dotted quad is read as one */
            char tmp[NAME_MAX_LEN + 1];
            memcpy(tmp, s, len);
            tmp[len] = '\0';
            struct in_addr a;
            if (inet_pton(AF_INET, tmp, &a) != 1 ||
                !inet_ntop(AF_INET, &a, dst, EGRESS_HOST_MAX)) {
                *why = "an IP address in a form hew does not read (write a dotted quad, "
                       "like 127.0.0.1)";
                return false;
            }
            *ip = true;
            return true;
        }
        start = i + 1;
    }
    for (size_t i = 0; i < len; i++)
        dst[i] = lower(s[i]);
    dst[len] = '\0';
    *ip = false;
    return true;
}

bool egress_host_target(const char *s, size_t len, int default_port, egress_target *out,
                        const char **why)
{
    memset(out, 0, sizeof *out);
    *why = "";
    if (memchr(s, '@', len)) {
        *why = "user info in the host";
        return false;
    }
    const char *host = s, *port = NULL;
    size_t hlen = len, plen = 0;
    if (len > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        if (!close) {
            *why = "an IPv6 address without its closing bracket";
            return false;
        }
        host = s + 1;
        hlen = (size_t)(close - host);
        size_t rest = len - (size_t)(close + 1 - s);
        if (rest > 0) {
            if (close[1] != ':') {
                *why = "text after the IPv6 address";
                return false;
            }
            port = close + 2;
            plen = rest - 1;
        }
        if (!read_v6(host, hlen, out->host, why))
            return false;
        out->ip = true;
    } else {
        const char *colon = NULL;
        for (size_t i = 0; i < len; i++)
            if (s[i] == ':')
                colon = s + i;
        if (colon) {
            hlen = (size_t)(colon - s);
            port = colon + 1;
            plen = len - hlen - 1;
        }
        if (!read_name(host, hlen, out->host, &out->ip, why))
            return false;
    }
    out->port = default_port;
    if (port && !read_port(port, plen, &out->port)) {
        *why = "a port that is not a number from 1 to 65535";
        return false;
    }
    return true;
}

hew_code egress_host_rule(const char *entry, egress_rule *out, hew_err *err)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(entry);
    if (len == 1 && entry[0] == '*')
        return hew_err_set(err, HEW_E_INVALID,
                           "sandbox.allow_hosts entry \"*\" would allow every host: turn the "
                           "network on with sandbox.network: true instead");
    if (len == 0)
        return hew_err_set(err, HEW_E_INVALID,
                           "sandbox.allow_hosts has an empty entry: write a host name like "
                           "\"example.com\", \"*.example.com\" or \"example.com:8443\"");
    if (strstr(entry, "://"))
        return hew_err_set(err, HEW_E_INVALID,
                           "sandbox.allow_hosts entry \"%.200s\" is a URL: write only its "
                           "host (and \":port\" for a port other than 80 and 443)",
                           entry);
    const char *s = entry;
    if (len > 2 && s[0] == '*' && s[1] == '.') {
        out->wildcard = true;
        s += 2;
        len -= 2;
    }
    /* a bare IPv6 address ("::1": two colons or more) has no port */
    size_t colons = 0;
    for (size_t i = 0; i < len; i++)
        colons += s[i] == ':';
    const char *why = "";
    egress_target t;
    bool ok;
    if (s[0] != '[' && colons >= 2) {
        ok = read_v6(s, len, t.host, &why);
        t.ip = true;
        t.port = 0;
    } else {
        ok = egress_host_target(s, len, 0, &t, &why);
    }
    if (!ok)
        return hew_err_set(err, HEW_E_INVALID,
                           "sandbox.allow_hosts entry \"%.200s\": %s — write a host name "
                           "like \"example.com\", \"*.example.com\", \"example.com:8443\" "
                           "or an address like \"127.0.0.1\" or \"[::1]:8080\"",
                           entry, why);
    if (out->wildcard && t.ip)
        return hew_err_set(err, HEW_E_INVALID,
                           "sandbox.allow_hosts entry \"%.200s\": \"*.\" goes before a name, "
                           "not an address",
                           entry);
    memcpy(out->host, t.host, sizeof out->host);
    out->ip = t.ip;
    out->port = t.port;
    return HEW_OK;
}

static bool host_matches(const egress_rule *r, const egress_target *t)
{
    if (r->ip != t->ip)
        return false;
    if (!r->wildcard)
        return strcmp(r->host, t->host) == 0;
    size_t rl = strlen(r->host), tl = strlen(t->host);
    return tl > rl + 1 && t->host[tl - rl - 1] == '.' && strcmp(t->host + tl - rl, r->host) == 0;
}

static bool port_matches(const egress_rule *r, int port)
{
    return r->port ? port == r->port : (port == 80 || port == 443);
}

bool egress_host_allowed(const egress_rule *rules, size_t n, const egress_target *t,
                         const char **why)
{
    bool host_seen = false;
    for (size_t i = 0; i < n; i++) {
        if (!host_matches(&rules[i], t))
            continue;
        if (port_matches(&rules[i], t->port))
            return true;
        host_seen = true;
    }
    *why = host_seen ? "the port is not in sandbox.allow_hosts for this host"
                     : "not in sandbox.allow_hosts";
    return false;
}

void egress_host_authority(const egress_target *t, int default_port, char *dst, size_t cap)
{
    bool v6 = t->ip && strchr(t->host, ':');
    if (t->port == default_port && default_port)
        snprintf(dst, cap, v6 ? "[%s]" : "%s", t->host);
    else
        snprintf(dst, cap, v6 ? "[%s]:%d" : "%s:%d", t->host, t->port);
}

void egress_host_entry_for(const egress_target *t, char *dst, size_t cap)
{
    if (t->port == 80 || t->port == 443)
        egress_host_authority(t, t->port, dst, cap);
    else
        egress_host_authority(t, 0, dst, cap);
}
