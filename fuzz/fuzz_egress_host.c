/* fuzz_egress_host — libFuzzer target for net/egress_host, the egress proxy's host rules.
 * The input is read as a request's authority and as an allow-list entry. What is
 * accepted must keep the invariants the proxy relies on: a normalised host is only
 * lowercase letters, digits, '-', '_' and '.' (or an address inet_pton reads back to the
 * same text), reads again to itself, and is allowed by a fixed list only when it IS a
 * listed name or lies below a "*." one; user info and percent escapes are never
 * accepted. Any broken invariant aborts. It must never keep state between runs. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/egress_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const entries[] = { "good.com", "*.wild.org", "127.0.0.1", "[::1]:8080",
                                       "api.good.com:8443", NULL };

static void check_host(const char *h, bool ip)
{
    size_t n = strlen(h);
    if (n == 0 || n >= EGRESS_HOST_MAX)
        abort();
    if (ip) {
        unsigned char a[16];
        char back[EGRESS_HOST_MAX];
        int fam = strchr(h, ':') ? AF_INET6 : AF_INET;
        if (inet_pton(fam, h, a) != 1 || !inet_ntop(fam, a, back, sizeof back) ||
            strcmp(back, h) != 0)
            abort();
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char c = h[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.'))
            abort();
    }
    if (h[0] == '.' || h[n - 1] == '.' || strstr(h, ".."))
        abort();
}

static bool ends_below(const char *h, const char *domain)
{
    size_t hl = strlen(h), dl = strlen(domain);
    return hl > dl + 1 && h[hl - dl - 1] == '.' && strcmp(h + hl - dl, domain) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 600)
        return 0;
    const char *s = (const char *)data;
    egress_rule rules[8];
    size_t n = 0;
    for (const char *const *e = entries; *e; e++)
        if (egress_host_rule(*e, &rules[n], NULL) == HEW_OK)
            n++;
    if (n != 5)
        abort();

    egress_target t;
    const char *why = "";
    if (egress_host_target(s, size, 443, &t, &why)) {
        if (memchr(s, '@', size) || memchr(s, '%', size))
            abort();
        check_host(t.host, t.ip);
        if (t.port < 1 || t.port > 65535)
            abort();
        /* the normalised form reads back to itself */
        char auth[EGRESS_HOST_MAX + 16];
        egress_host_authority(&t, 0, auth, sizeof auth);
        egress_target again;
        if (!egress_host_target(auth, strlen(auth), 443, &again, &why) ||
            strcmp(again.host, t.host) != 0 || again.ip != t.ip || again.port != t.port)
            abort();
        if (egress_host_allowed(rules, n, &t, &why)) {
            bool listed = (!t.ip && (strcmp(t.host, "good.com") == 0 ||
                                     strcmp(t.host, "api.good.com") == 0 ||
                                     ends_below(t.host, "wild.org"))) ||
                          (t.ip && (strcmp(t.host, "127.0.0.1") == 0 ||
                                    strcmp(t.host, "::1") == 0));
            if (!listed)
                abort();
        } else if (!why[0]) {
            abort();
        }
    } else if (!why[0]) {
        abort();
    }

    /* the same bytes as an entry: accepted ones keep the same invariants */
    char entry[601];
    memcpy(entry, s, size);
    entry[size] = '\0';
    egress_rule r;
    if (strlen(entry) == size && egress_host_rule(entry, &r, NULL) == HEW_OK) {
        check_host(r.host, r.ip);
        if (r.wildcard && r.ip)
            abort();
        if (r.port < 0 || r.port > 65535)
            abort();
    }
    return 0;
}
