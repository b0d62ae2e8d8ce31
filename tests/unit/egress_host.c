/* Tests for net/egress_host: reading sandbox.allow_hosts entries, reading a request's
 * host, and matching — in particular every way a request may write a host to slip past
 * an allow list (user info, a listed name as a prefix, percent escapes, numeric address
 * forms, IPv6 brackets and zone ids, case, a trailing dot). Each trick is checked against
 * a list it would fool if the matcher were naive. */
#include <string.h>

#include "check.h"
#include "net/egress.h"
#include "net/egress_host.h"

#define MAXR 8

typedef struct list {
    egress_rule r[MAXR];
    size_t n;
} list;

static void make(list *l, const char *const *entries)
{
    l->n = 0;
    for (; *entries; entries++) {
        hew_err err = HEW_ERR_INIT;
        if (egress_host_rule(*entries, &l->r[l->n], &err) != HEW_OK)
            check_fail(__FILE__, __LINE__, "entry %s refused: %s", *entries, err.msg);
        else
            l->n++;
    }
}

/* Whether the authority is read and allowed by the list; why is what was said. */
static bool allows(const list *l, const char *authority, int default_port, const char **why)
{
    egress_target t;
    if (!egress_host_target(authority, strlen(authority), default_port, &t, why))
        return false;
    return egress_host_allowed(l->r, l->n, &t, why);
}

#define ALLOWED(l, a, dp)                                                                  \
    do {                                                                                   \
        const char *why_ = "";                                                             \
        check_count++;                                                                     \
        if (!allows((l), (a), (dp), &why_))                                                \
            check_fail(__FILE__, __LINE__, "%s refused (%s), want allowed", (a), why_);    \
    } while (0)

#define REFUSED(l, a, dp, want_why)                                                        \
    do {                                                                                   \
        const char *why_ = "";                                                             \
        check_count++;                                                                     \
        if (allows((l), (a), (dp), &why_))                                                 \
            check_fail(__FILE__, __LINE__, "%s allowed, want refused", (a));               \
        else if (!strstr(why_, (want_why)))                                                \
            check_fail(__FILE__, __LINE__, "%s refused for \"%s\", want \"%s\"", (a),       \
                       why_, (want_why));                                                  \
    } while (0)

static void test_entries(void)
{
    static const struct {
        const char *entry;
        const char *host;
        bool wildcard, ip;
        int port;
    } good[] = {
        { "example.com", "example.com", false, false, 0 },
        { "Example.COM", "example.com", false, false, 0 },
        { "example.com.", "example.com", false, false, 0 },
        { "*.example.com", "example.com", true, false, 0 },
        { "example.com:8443", "example.com", false, false, 8443 },
        { "*.example.com:8080", "example.com", true, false, 8080 },
        { "localhost", "localhost", false, false, 0 },
        { "127.0.0.1", "127.0.0.1", false, true, 0 },
        { "127.0.0.1:9", "127.0.0.1", false, true, 9 },
        { "::1", "::1", false, true, 0 },
        { "[::1]", "::1", false, true, 0 },
        { "[0:0::1]:8080", "::1", false, true, 8080 },
        { "my_host.internal", "my_host.internal", false, false, 0 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        egress_rule r;
        hew_err err = HEW_ERR_INIT;
        CHECK_INT(egress_host_rule(good[i].entry, &r, &err), HEW_OK);
        CHECK_STR(r.host, good[i].host);
        CHECK_INT(r.wildcard, good[i].wildcard);
        CHECK_INT(r.ip, good[i].ip);
        CHECK_INT(r.port, good[i].port);
    }
    static const struct {
        const char *entry;
        const char *says;
    } bad[] = {
        { "*", "every host" },
        { "", "empty entry" },
        { "https://example.com", "is a URL" },
        { "user@example.com", "user info" },
        { "exa%6dple.com", "percent escape" },
        { "example..com", "empty label" },
        { "exa mple.com", "not allowed in a host name" },
        { "*.*.example.com", "not allowed in a host name" },
        { "ex*.com", "not allowed in a host name" },
        { "example.com:0", "port" },
        { "example.com:65536", "port" },
        { "example.com:", "port" },
        { "example.com:http", "port" },
        { "*.127.0.0.1", "not an address" },
        { "[fe80::1%eth0]", "zone id" },
        { "[::1", "closing bracket" },
        { "127.1", "dotted quad" },
        { "0x7f.0.0.1", "dotted quad" },
        { "2130706433", "dotted quad" },
        { "127.000.0.1", "dotted quad" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        egress_rule r;
        hew_err err = HEW_ERR_INIT;
        CHECK_INT(egress_host_rule(bad[i].entry, &r, &err), HEW_E_INVALID);
        if (!strstr(err.msg, bad[i].says))
            check_fail(__FILE__, __LINE__, "entry \"%s\": \"%s\" does not say \"%s\"",
                       bad[i].entry, err.msg, bad[i].says);
        /* the message names the key, and the entry (but for the empty one) */
        CHECK(strstr(err.msg, "sandbox.allow_hosts") != NULL);
        if (bad[i].entry[0])
            CHECK(strstr(err.msg, bad[i].entry) != NULL);
        /* the public check says the same */
        hew_err err2 = HEW_ERR_INIT;
        CHECK_INT(egress_host_check(bad[i].entry, &err2), HEW_E_INVALID);
        CHECK_STR(err2.msg, err.msg);
    }
}

static void test_exact_and_ports(void)
{
    list l;
    make(&l, (const char *const[]){ "example.com", "api.example.net:8443", NULL });
    ALLOWED(&l, "example.com:443", 443);
    ALLOWED(&l, "example.com:80", 443);
    ALLOWED(&l, "example.com", 80);
    REFUSED(&l, "example.com:22", 443, "port");
    REFUSED(&l, "example.com:8443", 443, "port");
    ALLOWED(&l, "api.example.net:8443", 443);
    REFUSED(&l, "api.example.net:443", 443, "port");
    REFUSED(&l, "example.org:443", 443, "not in sandbox.allow_hosts");
    REFUSED(&l, "www.example.com:443", 443, "not in sandbox.allow_hosts");
}

static void test_wildcards(void)
{
    list l;
    make(&l, (const char *const[]){ "*.good.com", NULL });
    ALLOWED(&l, "a.good.com:443", 443);
    ALLOWED(&l, "a.b.good.com:443", 443);
    REFUSED(&l, "good.com:443", 443, "not in");           /* the apex is not a subdomain */
    REFUSED(&l, "evilgood.com:443", 443, "not in");       /* no dot before the suffix */
    REFUSED(&l, "good.com.evil.com:443", 443, "not in");  /* the listed name as a prefix */
    REFUSED(&l, "a.good.com.evil.com:443", 443, "not in");
    REFUSED(&l, ".good.com:443", 443, "empty label");
}

static void test_tricks(void)
{
    list l;
    make(&l, (const char *const[]){ "good.com", "127.0.0.1", "[::1]", NULL });
    /* user info: either side of the @ */
    REFUSED(&l, "evil.com@good.com:443", 443, "user info");
    REFUSED(&l, "good.com@evil.com:443", 443, "user info");
    REFUSED(&l, "good.com:443@evil.com", 443, "user info");
    /* the listed name followed by more */
    REFUSED(&l, "good.com.evil.com:443", 443, "not in");
    REFUSED(&l, "good.com-evil.com:443", 443, "not in");
    /* percent escapes, whatever they decode to */
    REFUSED(&l, "good%2ecom:443", 443, "percent escape");
    REFUSED(&l, "%67ood.com:443", 443, "percent escape");
    REFUSED(&l, "good.com%00.evil.com:443", 443, "percent escape");
    /* other bytes a parser may cut at */
    REFUSED(&l, "good.com\\.evil.com:443", 443, "not allowed");
    REFUSED(&l, "good.com/.evil.com:443", 443, "not allowed");
    REFUSED(&l, "good.com;.evil.com:443", 443, "not allowed");
    REFUSED(&l, "good.com\x01:443", 443, "not allowed");
    REFUSED(&l, "g\xc3\xb6od.com:443", 443, "not allowed");
    /* case: the same name, whichever case (and the host connected to is the lowercase) */
    ALLOWED(&l, "GOOD.COM:443", 443);
    ALLOWED(&l, "GoOd.CoM:443", 443);
    REFUSED(&l, "EVIL.COM:443", 443, "not in");
    egress_target t;
    const char *why;
    CHECK(egress_host_target("GOOD.Com:443", 12, 443, &t, &why));
    CHECK_STR(t.host, "good.com");
    /* one trailing dot is the same name; more is not */
    ALLOWED(&l, "good.com.:443", 443);
    REFUSED(&l, "evil.com.:443", 443, "not in");
    REFUSED(&l, "good.com..:443", 443, "empty label");
    /* addresses: only as listed, compared as addresses */
    ALLOWED(&l, "127.0.0.1:80", 80);
    REFUSED(&l, "127.1:80", 80, "dotted quad");
    REFUSED(&l, "0x7f.0.0.1:80", 80, "dotted quad");
    REFUSED(&l, "0177.0.0.1:80", 80, "dotted quad");
    REFUSED(&l, "2130706433:80", 80, "dotted quad");
    REFUSED(&l, "127.0.0.01:80", 80, "dotted quad");
    REFUSED(&l, "good.0x10:80", 80, "dotted quad");
    REFUSED(&l, "127.0.0.2:80", 80, "not in");
    /* IPv6: brackets required, zone ids refused, compared as addresses */
    ALLOWED(&l, "[::1]:443", 443);
    ALLOWED(&l, "[0:0:0:0:0:0:0:1]:443", 443);
    REFUSED(&l, "::1:443", 443, "without brackets");
    REFUSED(&l, "[::1%25lo]:443", 443, "zone id");
    REFUSED(&l, "[::1%lo]:443", 443, "zone id");
    REFUSED(&l, "[::ffff:127.0.0.1]:443", 443, "not in"); /* not "127.0.0.1" as listed */
    REFUSED(&l, "[good.com]:443", 443, "not an IPv6");
    REFUSED(&l, "[::1]x:443", 443, "after the IPv6");
    REFUSED(&l, "[::1:443", 443, "closing bracket");
    /* a name that is an IP address in brackets is not a name */
    REFUSED(&l, "[127.0.0.1]:80", 80, "not an IPv6");
    /* ports */
    REFUSED(&l, "good.com:0", 443, "port");
    REFUSED(&l, "good.com:+443", 443, "port");
    REFUSED(&l, "good.com:00443", 443, "port");
    REFUSED(&l, "good.com:443:443", 443, "without brackets");
    REFUSED(&l, "", 443, "empty host");
    REFUSED(&l, ":443", 443, "empty host");
}

static void test_names_for_people(void)
{
    egress_target t;
    const char *why;
    char s[300];
    CHECK(egress_host_target("Example.org:8443", 16, 443, &t, &why));
    egress_host_entry_for(&t, s, sizeof s);
    CHECK_STR(s, "example.org:8443");
    CHECK(egress_host_target("example.org", 11, 443, &t, &why));
    egress_host_entry_for(&t, s, sizeof s);
    CHECK_STR(s, "example.org");
    egress_host_authority(&t, 0, s, sizeof s);
    CHECK_STR(s, "example.org:443");
    CHECK(egress_host_target("[::1]:8080", 10, 443, &t, &why));
    egress_host_entry_for(&t, s, sizeof s);
    CHECK_STR(s, "[::1]:8080");
    egress_host_authority(&t, 8080, s, sizeof s);
    CHECK_STR(s, "[::1]");
}

int main(void)
{
    RUN(test_entries);
    RUN(test_exact_and_ports);
    RUN(test_wildcards);
    RUN(test_tricks);
    RUN(test_names_for_people);
    return check_report();
}
