/* egress_host — the host rules of the egress proxy (net/egress.h): reading an allow-list
 * entry, reading the host of a request (a CONNECT target or an http:// URL's authority),
 * and deciding whether one matches the other. Pure functions on strings: no I/O, no
 * allocation but the rule list's own, so that every trick a request may play is tested
 * (and fuzzed) without a socket.
 *
 * It must never normalise a request's host into something other than the host that will
 * be resolved and connected to: the normalised text IS what the proxy connects to. It
 * refuses whatever it cannot read with certainty (see net/egress.h for the syntax). */
#ifndef HEW_NET_EGRESS_HOST_H
#define HEW_NET_EGRESS_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define EGRESS_HOST_MAX 256 /* a normalised host with its NUL ("253 bytes" + room) */

/* One entry of sandbox.allow_hosts, read. */
typedef struct egress_rule {
    char host[EGRESS_HOST_MAX]; /* lowercase name without "*." or an address as
                                   inet_ntop writes it */
    bool wildcard;              /* "*.host": names below host, not host itself */
    bool ip;                    /* host is an address */
    int port;                   /* 0: ports 80 and 443 */
} egress_rule;

/* A request's destination, read. */
typedef struct egress_target {
    char host[EGRESS_HOST_MAX]; /* as in egress_rule */
    bool ip;
    int port;
} egress_target;

/* Read one entry. HEW_E_INVALID with a message quoting it and saying what to write. */
hew_code egress_host_rule(const char *entry, egress_rule *out, hew_err *err);

/* Read an authority ("host", "host:port", "[v6]:port") of len bytes; default_port when
 * it has none. False with *why set (a static phrase: "user info in the host", "a percent
 * escape in the host", …) when it is not a plain host. */
bool egress_host_target(const char *s, size_t len, int default_port, egress_target *out,
                        const char **why);

/* Whether t is allowed by one of the n rules. False sets *why: "not in
 * sandbox.allow_hosts", or "port N is not allowed for HOST" when only the port differs. */
bool egress_host_allowed(const egress_rule *rules, size_t n, const egress_target *t,
                         const char **why);

/* The entry that would allow t, as the user would write it ("example.org",
 * "example.org:8443", "[::1]:8080"), into dst (cap bytes). */
void egress_host_entry_for(const egress_target *t, char *dst, size_t cap);

/* t's authority for a Host header or a log line ("example.org:8080", "[::1]:443"),
 * the port omitted when it is default_port (0: always written). */
void egress_host_authority(const egress_target *t, int default_port, char *dst, size_t cap);

#endif
