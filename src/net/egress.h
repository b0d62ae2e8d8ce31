/* egress — the host allow list for sandboxed commands (issue #19): an HTTP proxy inside
 * hew, on 127.0.0.1, that lets a confined child reach only the hosts the user listed in
 * sandbox.allow_hosts. The sandbox (sys/sandbox.h) turns the network off and lets the
 * child connect to this proxy's port only (sandbox_policy.proxy_port); the child finds
 * the proxy through the usual variables (egress_child_env). The proxy resolves names
 * itself, so the child needs no DNS.
 *
 * It must never become an open proxy: a request is let through only when its host,
 * normalised as below, matches an entry; anything it cannot parse with certainty is
 * refused. It never runs anything a request says, never forwards to a host other than
 * the one that matched, and never binds anything but 127.0.0.1.
 *
 * What it serves:
 *   CONNECT host:port HTTP/1.1      (HTTPS, and anything else tunnelled) — when allowed,
 *                                   "200 Connection established" then bytes both ways
 *                                   until either side closes or the tunnel is idle for
 *                                   the idle timeout (EGRESS_IDLE_MS by default);
 *   METHOD http://host[:port]/… HTTP/1.x  (plain HTTP, absolute form) — when allowed, the
 *                                   request goes to that host with its target in origin
 *                                   form, Host set to the URL's authority, the Proxy-*
 *                                   headers dropped and "Connection: close"; then bytes
 *                                   both ways as for a tunnel (one request per
 *                                   connection).
 * Refused: "403 Forbidden" with a text body naming the host and the key to add it to
 * (sandbox.allow_hosts); a head over EGRESS_HEAD_MAX: 431; anything else malformed: 400;
 * an allowed host that cannot be resolved or reached: 502. The connection is closed after
 * every refusal.
 *
 * Matching (hosts are case-insensitive; a host name is letters, digits, '-', '_' and
 * dots, each label 1–63 bytes, 253 at most; one trailing dot is dropped):
 *   "example.com"          that name exactly, ports 80 and 443;
 *   "*.example.com"        any name ending in ".example.com" (not example.com itself);
 *   "example.com:8443"     that name, that port only (also for "*." entries);
 *   "127.0.0.1", "[::1]", "::1", "[::1]:8080"
 *                          an IP address only when listed as an address, compared as
 *                          addresses (so "[0:0::1]" is "[::1]"); a name whose last
 *                          label is numeric ("127.1", "0x7f.1", "2130706433") is an
 *                          address in a form hew does not accept, and is refused.
 * Refused outright, whatever the list: user info ("evil.com@good.com"), percent escapes,
 * IPv6 zone ids ("[fe80::1%eth0]"), empty labels, other characters, a port of 0 or over
 * 65535, a URL scheme other than http.
 *
 * Threads: one accept thread (for its own listener and those it adopted), plus one
 * thread per connection (at most EGRESS_CONN_MAX at a time; more wait in the listen
 * queue). Each connection resolves its host with
 * getaddrinfo in its own thread. egress_stop wakes and joins them all; it may wait for a
 * name lookup in progress to end (the resolver's own timeout). */
#ifndef HEW_NET_EGRESS_H
#define HEW_NET_EGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "sys/proc.h"

#define EGRESS_HEAD_MAX ((size_t)8 << 10) /* a request's line and headers */
#define EGRESS_IDLE_MS 300000L            /* a tunnel with no byte either way is closed */
#define EGRESS_HEAD_MS 30000L             /* time to send the request head */
#define EGRESS_CONNECT_MS 15000L          /* time to connect to the upstream host */
#define EGRESS_CONN_MAX 64                /* connections served at once */
#define EGRESS_HOSTS_MAX 1024             /* entries in an allow list */
#define EGRESS_ADOPT_MAX 64               /* listeners adopted at once (egress_adopt) */

/* One decision, for the log and the callback. Strings are borrowed for the call. */
typedef struct egress_decision {
    bool allowed;
    const char *method;  /* "CONNECT", "GET", …; "" when the request line was unreadable */
    const char *host;    /* the normalised host ("example.com", "::1"); for a refused
                            host that is not a plain host name, the text as sent with
                            control bytes escaped and cut to 255 bytes; "" when none */
    int port;            /* 0 when unknown */
    const char *reason;  /* why refused ("not in sandbox.allow_hosts", "user info in the
                            host", "head over 8 KiB", …); "" when allowed */
} egress_decision;

/* Called on a proxy thread for every decision (several threads may call at once: the
 * calls are serialised by a lock held during the call, so the callback needs no lock of
 * its own, must be quick, and must not call egress functions). */
typedef void (*egress_decision_fn)(void *ud, const egress_decision *d);

typedef struct egress egress;

/* Check one allow-list entry as written in sandbox.allow_hosts. HEW_E_INVALID with a
 * message that quotes the entry and says what is wrong and what would be right. */
hew_code egress_host_check(const char *entry, hew_err *err);

/* Listen on 127.0.0.1 (a port the kernel chooses) and serve until egress_stop. hosts is
 * NULL-terminated and copied; NULL or empty allows nothing (every request gets 403).
 * An invalid entry fails the start (HEW_E_INVALID, as egress_host_check says). */
hew_code egress_start(const char *const *hosts, egress **out, hew_err *err);

/* Serve also on a listening socket made elsewhere: one a sandboxed command made in its
 * own network namespace, on that namespace's 127.0.0.1 at egress_port, before it
 * exec'd. A command in a namespace of its own has no route anywhere, so the only
 * connection it can make is to this socket — which the proxy, in hew's namespace,
 * accepts and serves like its own — and "the proxy's port on another host" (the gap of
 * port-only Landlock rules) does not exist for it. The proxy owns fd from a successful
 * call (it closes it at egress_release or egress_stop); on error fd stays the caller's.
 * HEW_E_INVALID: not a listening socket; HEW_E_STATE: the proxy has stopped;
 * HEW_E_BUSY: EGRESS_ADOPT_MAX are adopted already. Thread-safe. */
hew_code egress_adopt(egress *e, int listen_fd, hew_err *err);

/* Stop accepting on an adopted listener (when its command has ended) and close it (the
 * proxy's thread closes it; this waits until it has); connections already accepted go
 * on. Unknown fds are ignored. Thread-safe; not from the decision callback. */
void egress_release(egress *e, int listen_fd);

/* Where decisions go from now on (fn NULL: only the log). When this returns, no call to
 * the previous callback is running or will start, so its ud may be freed. */
void egress_set_on_decision(egress *e, egress_decision_fn fn, void *ud);

/* What a command's result says (execute_command): take a mark before the command
 * starts, and after it ends ask which hosts were blocked since — "example.org,
 * api.example.net:8443" (distinct, in order, ports other than 80 and 443 written; "…"
 * at the end when more were blocked than the last EGRESS_RECENT kept). Blocked requests
 * of any command running meanwhile are counted too: the proxy cannot tell commands
 * apart. Thread-safe. egress_blocked_since appends to out and returns how many entries
 * it wrote ("…" counts): 0 when nothing was blocked since the mark. */
#define EGRESS_RECENT 32
unsigned long long egress_mark(egress *e);
size_t egress_blocked_since(egress *e, unsigned long long mark, buf *out);

/* The idle timeout of tunnels from now on (ms > 0; tests use short ones). */
void egress_set_idle_ms(egress *e, long ms);

/* The port the proxy listens on (on 127.0.0.1): sandbox_policy.proxy_port. */
int egress_port(const egress *e);

/* Point a child at the proxy: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and their lowercase
 * forms set to "http://127.0.0.1:PORT", NO_PROXY and no_proxy set to "" (so nothing
 * bypasses it: a bypass would hit the sandbox's closed network anyway), and
 * NODE_USE_ENV_PROXY=1 (without it Node's built-in fetch ignores them). */
void egress_child_env(const egress *e, proc_env *env);

/* Stop serving: close the listener and every connection, join every thread. No callback
 * runs after it returns. Idempotent. */
void egress_stop(egress *e);

/* egress_stop, then free. NULL is a no-op. */
void egress_free(egress *e);

#endif
