/* egress — the allow-list HTTP proxy for sandboxed commands (see egress.h). This file is
 * the server: the accept thread, one thread per connection, reading a request head,
 * refusing or connecting, and relaying bytes. What a host is and whether it is allowed is
 * egress_host.c's alone; this file must never connect to anything but the target that
 * egress_host_allowed approved, never block without also watching the stop pipe, and
 * never read more than EGRESS_HEAD_MAX of a head. */
#include "net/egress.h"

#include "base/log.h"
#include "net/egress_host.h"
#include "sys/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define RELAY_BUF 16384
#define SHOWN_MAX 255
#define THREAD_STACK ((size_t)512 << 10)
#define LINGER_MS 2000LL                 /* reading what a refused client still sends */
#define LINGER_MAX ((size_t)256 << 10)

enum { SLOT_FREE, SLOT_RUNNING, SLOT_DONE };

typedef struct slot {
    pthread_t th;
    atomic_int state;
    int fd;
    egress *e;
} slot;

struct egress {
    int lfd;
    int port;
    int stop[2];  /* written once by egress_stop, never drained: every wait watches it */
    int done[2];  /* a connection thread that ends writes a byte: the accept thread reaps */
    pthread_t accept_th;
    bool running;
    pthread_mutex_t stop_mu;
    egress_rule *rules;
    size_t nrules;
    pthread_mutex_t cb_mu;
    egress_decision_fn fn;
    void *ud;
    atomic_long idle_ms;
    /* the last EGRESS_RECENT blocked decisions (slot nblocked % EGRESS_RECENT), each with
     * its seq (every decision counts); evicted_seq: the seq of the last one pushed out.
     * For egress_blocked_since; under cb_mu */
    unsigned long long seq, nblocked, evicted_seq;
    struct recent {
        unsigned long long seq;
        char host[EGRESS_HOST_MAX + 16]; /* as egress_host_entry_for writes it */
    } recent[EGRESS_RECENT];
    /* listeners adopted from sandboxed commands' network namespaces (egress_adopt):
     * fd >= 0 in use; closing: released, the accept thread closes it; under lst_mu */
    pthread_mutex_t lst_mu;
    pthread_cond_t lst_cv; /* signalled when released listeners have been closed */
    bool accepting;        /* the accept thread is running (under lst_mu) */
    struct adopted {
        int fd;
        bool closing;
    } adopted[EGRESS_ADOPT_MAX];
    slot slots[EGRESS_CONN_MAX];
};

/* ---- small I/O helpers, each bounded and stop-aware ----------------------------------- */

static bool stopping(const egress *e)
{
    struct pollfd p = { e->stop[0], POLLIN, 0 };
    return poll(&p, 1, 0) > 0;
}

/* Wait for events on fd until deadline (clock_now_ms terms); false on stop or timeout. */
static bool wait_fd(const egress *e, int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - clock_now_ms();
        if (left <= 0)
            return false;
        struct pollfd p[2] = { { fd, events, 0 }, { e->stop[0], POLLIN, 0 } };
        int n = poll(p, 2, left > 1000 ? 1000 : (int)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p[1].revents & POLLIN))
            return false;
        if (n > 0)
            return true;
    }
}

static bool send_all(const egress *e, int fd, const char *data, size_t len)
{
    long long deadline = clock_now_ms() + EGRESS_HEAD_MS;
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
            wait_fd(e, fd, POLLOUT, deadline))
            continue;
        return false;
    }
    return true;
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* ---- decisions ------------------------------------------------------------------------- */

/* Request text shown back (403 bodies, the log, the callback): printable ASCII kept,
 * the rest as \xNN, cut at SHOWN_MAX bytes. */
static void shown(const char *s, size_t len, char dst[SHOWN_MAX + 1])
{
    size_t o = 0;
    for (size_t i = 0; i < len && o < SHOWN_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c > 0x20 && c < 0x7f && c != '"' && c != '\\') {
            dst[o++] = (char)c;
        } else {
            if (o + 4 > SHOWN_MAX)
                break;
            snprintf(dst + o, 5, "\\x%02x", c);
            o += 4;
        }
    }
    dst[o] = '\0';
}

static void decide(egress *e, bool allowed, const char *method, const char *host, int port,
                   const char *reason)
{
    if (allowed)
        hew_log(HEW_LOG_INFO, "egress", "allowed %s %s port %d", method, host, port);
    else
        hew_log(HEW_LOG_INFO, "egress", "blocked %s %s port %d: %s", method[0] ? method : "-",
                host[0] ? host : "-", port, reason);
    egress_decision d = { allowed, method, host, port, allowed ? "" : reason };
    pthread_mutex_lock(&e->cb_mu);
    e->seq++;
    if (!allowed) {
        struct recent *r = &e->recent[e->nblocked++ % EGRESS_RECENT];
        if (r->seq)
            e->evicted_seq = r->seq;
        r->seq = e->seq;
        bool v6 = strchr(host, ':') != NULL;
        if (port == 0 || port == 80 || port == 443)
            snprintf(r->host, sizeof r->host, v6 ? "[%s]" : "%s", host[0] ? host : "-");
        else
            snprintf(r->host, sizeof r->host, v6 ? "[%s]:%d" : "%s:%d", host, port);
    }
    if (e->fn)
        e->fn(e->ud, &d);
    pthread_mutex_unlock(&e->cb_mu);
}

/* An answer that ends the connection: status line, a text body. */
static void answer(const egress *e, int fd, int status, const char *text, const char *body)
{
    char head[256];
    size_t blen = strlen(body);
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\nX-Hew-Egress: %s\r\n\r\n",
                     status, text, blen, status == 403 ? "blocked" : "error");
    if (n > 0 && (size_t)n < sizeof head && send_all(e, fd, head, (size_t)n))
        (void)send_all(e, fd, body, blen);
}

static void refuse_host(egress *e, int fd, const char *method, const egress_target *t,
                        const char *why)
{
    char auth[EGRESS_HOST_MAX + 16], entry[EGRESS_HOST_MAX + 16], body[1024];
    egress_host_authority(t, 0, auth, sizeof auth);
    egress_host_entry_for(t, entry, sizeof entry);
    decide(e, false, method, t->host, t->port, why);
    snprintf(body, sizeof body,
             "hew's sandbox blocked a connection to %s: %s.\n"
             "To allow it, add \"%s\" to sandbox.allow_hosts in hew's config "
             "(or turn the network on with sandbox.network: true).\n",
             auth, why, entry);
    answer(e, fd, 403, "Forbidden", body);
}

static void refuse_text(egress *e, int fd, const char *method, const char *host_text,
                        size_t host_len, const char *why)
{
    char sh[SHOWN_MAX + 1], body[1024];
    shown(host_text, host_len, sh);
    decide(e, false, method, sh, 0, why);
    snprintf(body, sizeof body,
             "hew's sandbox refused the host \"%s\": %s.\n"
             "Only hosts listed in sandbox.allow_hosts are reached, written as plain names "
             "or addresses.\n",
             sh, why);
    answer(e, fd, 403, "Forbidden", body);
}

static void refuse_request(egress *e, int fd, int status, const char *text, const char *method,
                           const char *why)
{
    char body[512];
    decide(e, false, method, "", 0, why);
    snprintf(body, sizeof body, "hew's egress proxy refused the request: %s.\n", why);
    answer(e, fd, status, text, body);
}

/* ---- the upstream connection ----------------------------------------------------------- */

/* Resolve and connect to t (the approved target, nothing else). -1 with *why set. */
static int dial(const egress *e, const egress_target *t, char *why, size_t cap)
{
    char port[8];
    snprintf(port, sizeof port, "%d", t->port);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = t->ip ? AI_NUMERICHOST : 0;
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(t->host, port, &hints, &res);
    if (rc != 0) {
        snprintf(why, cap, "cannot resolve %s: %s", t->host, gai_strerror(rc));
        return -1;
    }
    long long deadline = clock_now_ms() + EGRESS_CONNECT_MS;
    int fd = -1, last = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai && fd < 0 && !stopping(e); ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            last = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        int soerr = errno;
        if (soerr == EINPROGRESS && wait_fd(e, fd, POLLOUT, deadline)) {
            socklen_t sl = sizeof soerr;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
                soerr = errno;
            if (soerr == 0)
                break;
        } else if (soerr == EINPROGRESS) {
            soerr = ETIMEDOUT;
        }
        last = soerr;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(why, cap, "cannot connect to %s port %d: %s", t->host, t->port,
                 strerror(last));
    return fd;
}

/* ---- relaying ---------------------------------------------------------------------------*/

typedef struct dir {
    int from, to;
    size_t len, off;
    bool eof, done;
    char buf[RELAY_BUF];
} dir;

/* Bytes both ways between client c and upstream u until both directions end, either side
 * fails, the tunnel is idle for idle_ms, or the proxy stops. forward: the upstream's end
 * ends everything (one request per connection). */
static void relay(egress *e, int c, int u, bool forward)
{
    dir *d = calloc(2, sizeof *d);
    if (!d)
        return;
    d[0].from = c;
    d[0].to = u;
    d[1].from = u;
    d[1].to = c;
    long long last = clock_now_ms();
    for (;;) {
        if ((d[0].done && d[1].done) || (forward && d[1].done))
            break;
        struct pollfd p[3];
        int role[3]; /* dir index * 2 + (0 read, 1 write) */
        int np = 0;
        p[np] = (struct pollfd){ e->stop[0], POLLIN, 0 };
        role[np++] = -1;
        for (int i = 0; i < 2; i++) {
            if (d[i].done)
                continue;
            if (d[i].len == 0 && !d[i].eof) {
                p[np] = (struct pollfd){ d[i].from, POLLIN, 0 };
                role[np++] = i * 2;
            } else if (d[i].len > 0) {
                p[np] = (struct pollfd){ d[i].to, POLLOUT, 0 };
                role[np++] = i * 2 + 1;
            }
        }
        long long left = last + atomic_load(&e->idle_ms) - clock_now_ms();
        if (left <= 0) {
            hew_log(HEW_LOG_DEBUG, "egress", "an idle tunnel closed");
            break;
        }
        int n = poll(p, (nfds_t)np, left > 1000 ? 1000 : (int)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p[0].revents & POLLIN))
            break;
        bool failed = false;
        for (int k = 1; k < np && !failed; k++) {
            if (!p[k].revents)
                continue;
            dir *x = &d[role[k] / 2];
            if (role[k] % 2 == 0) {
                ssize_t r = recv(x->from, x->buf, sizeof x->buf, 0);
                if (r > 0) {
                    x->len = (size_t)r;
                    x->off = 0;
                    last = clock_now_ms();
                    /* most of the time the other side takes it at once: no poll */
                    ssize_t s = send(x->to, x->buf, x->len, MSG_NOSIGNAL);
                    if (s > 0 && (size_t)s == x->len)
                        x->len = 0;
                    else if (s > 0)
                        x->off = (size_t)s;
                    else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                        failed = true;
                } else if (r == 0) {
                    x->eof = true;
                } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    failed = true;
                }
            } else {
                ssize_t s = send(x->to, x->buf + x->off, x->len - x->off, MSG_NOSIGNAL);
                if (s > 0) {
                    x->off += (size_t)s;
                    if (x->off == x->len)
                        x->len = x->off = 0;
                    last = clock_now_ms();
                } else if (s < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    failed = true;
                }
            }
        }
        if (failed)
            break;
        for (int i = 0; i < 2; i++)
            if (d[i].eof && d[i].len == 0 && !d[i].done) {
                shutdown(d[i].to, SHUT_WR);
                d[i].done = true;
            }
    }
    free(d);
}

/* ---- one connection -------------------------------------------------------------------- */

typedef struct head {
    char data[EGRESS_HEAD_MAX + 1];
    size_t len;      /* bytes read */
    size_t end;      /* bytes of the head, its blank line included */
} head;

/* Read until the blank line. 1: a head; 0: the client left or was too slow (nothing to
 * answer); -1: over EGRESS_HEAD_MAX. */
static int read_head(const egress *e, int fd, head *h)
{
    long long deadline = clock_now_ms() + EGRESS_HEAD_MS;
    h->len = 0;
    for (;;) {
        if (h->len == EGRESS_HEAD_MAX)
            return -1;
        if (!wait_fd(e, fd, POLLIN, deadline))
            return 0;
        ssize_t n = recv(fd, h->data + h->len, EGRESS_HEAD_MAX - h->len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (n <= 0)
            return 0;
        size_t from = h->len > 2 ? h->len - 2 : 0;
        h->len += (size_t)n;
        h->data[h->len] = '\0';
        /* the blank line: "\n\n" or "\n\r\n" (so "\r\n\r\n" too) */
        for (size_t i = from; i < h->len; i++) {
            if (h->data[i] != '\n' || i == 0)
                continue;
            if (h->data[i - 1] == '\n' || (i >= 2 && h->data[i - 1] == '\r' &&
                                            h->data[i - 2] == '\n')) {
                h->end = i + 1;
                return 1;
            }
        }
    }
}

/* One line of the head from *pos: [*s, *s + *len) without its CR LF. */
static bool next_line(const head *h, size_t *pos, const char **s, size_t *len)
{
    if (*pos >= h->end)
        return false;
    const char *start = h->data + *pos;
    const char *nl = memchr(start, '\n', h->end - *pos);
    size_t l = (size_t)(nl - start);
    *pos += l + 1;
    if (l > 0 && start[l - 1] == '\r')
        l--;
    *s = start;
    *len = l;
    return true;
}

static bool is_tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Headers the proxy drops from a forwarded request (it sets Host and Connection itself). */
static const char *const dropped_headers[] = {
    "host", "connection", "proxy-connection", "keep-alive", "proxy-authorization", NULL,
};

static bool dropped(const char *name, size_t len)
{
    for (const char *const *d = dropped_headers; *d; d++)
        if (strlen(*d) == len && strncasecmp(*d, name, len) == 0)
            return true;
    return false;
}

typedef struct request {
    char method[17];
    const char *target;
    size_t target_len;
    char version[9];
} request;

/* The request line; false when it is not METHOD SP TARGET SP HTTP/1.x. */
static bool read_request_line(const char *s, size_t len, request *rq)
{
    const char *sp1 = memchr(s, ' ', len);
    if (!sp1 || sp1 == s || (size_t)(sp1 - s) >= sizeof rq->method)
        return false;
    const char *rest = sp1 + 1;
    size_t rlen = len - (size_t)(rest - s);
    const char *sp2 = memchr(rest, ' ', rlen);
    if (!sp2 || sp2 == rest)
        return false;
    size_t vlen = rlen - (size_t)(sp2 + 1 - rest);
    const char *v = sp2 + 1;
    if (vlen != 8 || (memcmp(v, "HTTP/1.1", 8) != 0 && memcmp(v, "HTTP/1.0", 8) != 0))
        return false;
    for (const char *c = s; c < sp1; c++)
        if (*c < 'A' || *c > 'Z')
            return false;
    for (const char *c = rest; c < sp2; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f)
            return false;
    memcpy(rq->method, s, (size_t)(sp1 - s));
    rq->method[sp1 - s] = '\0';
    rq->target = rest;
    rq->target_len = (size_t)(sp2 - rest);
    memcpy(rq->version, v, 8);
    rq->version[8] = '\0';
    return true;
}

/* The forwarded head: the request line in origin form, the client's headers but the
 * dropped ones, Host and Connection: close. False when a header line is malformed. */
static bool build_forward(const head *h, size_t pos, const request *rq, const char *path,
                          size_t path_len, const egress_target *t, buf *out)
{
    char auth[EGRESS_HOST_MAX + 16];
    egress_host_authority(t, 80, auth, sizeof auth);
    buf_printf(out, "%s ", rq->method);
    buf_append(out, path, path_len);
    buf_printf(out, " %s\r\n", rq->version);
    const char *line;
    size_t len;
    while (next_line(h, &pos, &line, &len) && len > 0) {
        const char *colon = memchr(line, ':', len);
        if (!colon || colon == line)
            return false;
        for (const char *c = line; c < colon; c++)
            if (!is_tchar(*c))
                return false;
        for (const char *c = colon; c < line + len; c++) /* no CR or control in a value */
            if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
                return false;
        if (dropped(line, (size_t)(colon - line)))
            continue;
        buf_append(out, line, len);
        buf_puts(out, "\r\n");
    }
    buf_printf(out, "Host: %s\r\nConnection: close\r\n\r\n", auth);
    return out->err == HEW_OK;
}

static void serve(egress *e, int fd)
{
    head *h = malloc(sizeof *h);
    if (!h)
        return;
    int got = read_head(e, fd, h);
    if (got <= 0) {
        if (got < 0)
            refuse_request(e, fd, 431, "Request Header Fields Too Large", "",
                           "the request head is over 8 KiB");
        free(h);
        return;
    }
    if (memchr(h->data, '\0', h->end)) {
        refuse_request(e, fd, 400, "Bad Request", "", "a NUL byte in the request head");
        free(h);
        return;
    }
    size_t pos = 0;
    const char *line;
    size_t len;
    request rq;
    if (!next_line(h, &pos, &line, &len) || !read_request_line(line, len, &rq)) {
        refuse_request(e, fd, 400, "Bad Request", "",
                       "not an HTTP/1.x request line (METHOD TARGET HTTP/1.1)");
        free(h);
        return;
    }
    bool tunnel = strcmp(rq.method, "CONNECT") == 0;
    const char *auth = rq.target, *path = "/";
    size_t auth_len = rq.target_len, path_len = 1;
    if (!tunnel) {
        static const char scheme[] = "http://";
        size_t sl = sizeof scheme - 1;
        if (rq.target_len < sl || strncasecmp(rq.target, scheme, sl) != 0) {
            bool https = rq.target_len >= 8 && strncasecmp(rq.target, "https://", 8) == 0;
            refuse_request(e, fd, 400, "Bad Request", rq.method,
                           https ? "an https:// URL sent to the proxy: HTTPS goes through "
                                   "CONNECT"
                                 : "not a proxy request: the target must be an http:// URL");
            free(h);
            return;
        }
        auth = rq.target + sl;
        size_t rest = rq.target_len - sl;
        auth_len = 0;
        while (auth_len < rest && !strchr("/?#", auth[auth_len]))
            auth_len++;
        const char *p = auth + auth_len;
        size_t plen = rest - auth_len;
        const char *hash = memchr(p, '#', plen);
        if (hash)
            plen = (size_t)(hash - p);
        if (plen > 0 && p[0] == '/') {
            path = p;
            path_len = plen;
        } else if (plen > 0) {
            /* "http://host?q": the path is "/" and the query follows; rebuilt below */
            path = p;
            path_len = plen;
        }
    }
    egress_target t;
    const char *why = "";
    if (!egress_host_target(auth, auth_len, tunnel ? 443 : 80, &t, &why)) {
        refuse_text(e, fd, rq.method, auth, auth_len, why);
        free(h);
        return;
    }
    if (!egress_host_allowed(e->rules, e->nrules, &t, &why)) {
        refuse_host(e, fd, rq.method, &t, why);
        free(h);
        return;
    }
    buf fwd = BUF_INIT(EGRESS_HEAD_MAX * 2);
    if (!tunnel) {
        char qpath[EGRESS_HEAD_MAX + 2];
        if (path[0] != '/') {
            qpath[0] = '/';
            memcpy(qpath + 1, path, path_len);
            path = qpath;
            path_len++;
        }
        if (!build_forward(h, pos, &rq, path, path_len, &t, &fwd)) {
            refuse_request(e, fd, 400, "Bad Request", rq.method, "a malformed header line");
            buf_release(&fwd);
            free(h);
            return;
        }
    }
    decide(e, true, rq.method, t.host, t.port, "");
    char fail[EGRESS_HOST_MAX + 128];
    int up = dial(e, &t, fail, sizeof fail);
    if (up < 0) {
        hew_log(HEW_LOG_INFO, "egress", "%s", fail);
        char body[EGRESS_HOST_MAX + 200];
        snprintf(body, sizeof body, "hew's egress proxy %s.\n", fail);
        answer(e, fd, 502, "Bad Gateway", body);
        buf_release(&fwd);
        free(h);
        return;
    }
    static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    bool ok = tunnel ? send_all(e, fd, established, sizeof established - 1)
                     : send_all(e, up, fwd.data, fwd.len);
    if (ok && h->len > h->end)
        ok = send_all(e, up, h->data + h->end, h->len - h->end);
    buf_release(&fwd);
    free(h);
    if (ok)
        relay(e, fd, up, !tunnel);
    close(up);
}

/* Close a client's connection so that it reads the whole answer: a close with its unread
 * bytes still queued (a refused head it was still sending) would make the kernel send a
 * reset, and the client could lose the 403 before reading it. So: end our side, read and
 * drop what it still sends, for a bounded time and amount, then close. */
static void linger_close(const egress *e, int fd)
{
    shutdown(fd, SHUT_WR);
    long long deadline = clock_now_ms() + LINGER_MS;
    size_t dropped_bytes = 0;
    char sink[4096];
    while (dropped_bytes < LINGER_MAX && wait_fd(e, fd, POLLIN, deadline)) {
        ssize_t n = recv(fd, sink, sizeof sink, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (n <= 0)
            break;
        dropped_bytes += (size_t)n;
    }
    close(fd);
}

static void *conn_main(void *arg)
{
    slot *sl = arg;
    egress *e = sl->e;
    set_nonblock(sl->fd);
    serve(e, sl->fd);
    linger_close(e, sl->fd);
    sl->fd = -1;
    atomic_store(&sl->state, SLOT_DONE);
    ssize_t w = write(e->done[1], "x", 1);
    (void)w; /* a full pipe already wakes the accept thread */
    return NULL;
}

/* ---- the accept thread ----------------------------------------------------------------- */

static void reap(egress *e, bool all)
{
    for (int i = 0; i < EGRESS_CONN_MAX; i++) {
        int st = atomic_load(&e->slots[i].state);
        if (st == SLOT_DONE || (all && st == SLOT_RUNNING)) {
            pthread_join(e->slots[i].th, NULL);
            atomic_store(&e->slots[i].state, SLOT_FREE);
        }
    }
}

static slot *free_slot(egress *e)
{
    for (int i = 0; i < EGRESS_CONN_MAX; i++)
        if (atomic_load(&e->slots[i].state) == SLOT_FREE)
            return &e->slots[i];
    return NULL;
}

static void wake_accept(const egress *e)
{
    ssize_t w = write(e->done[1], "x", 1);
    (void)w; /* a full pipe already wakes it */
}

/* Close the released adopted listeners (the accept thread alone closes them, so that no
 * poll or accept of it ever sees a closed or reused descriptor); all: every one. */
static void close_adopted(egress *e, bool all)
{
    pthread_mutex_lock(&e->lst_mu);
    for (int i = 0; i < EGRESS_ADOPT_MAX; i++)
        if (e->adopted[i].fd >= 0 && (all || e->adopted[i].closing)) {
            close(e->adopted[i].fd);
            e->adopted[i].fd = -1;
            e->adopted[i].closing = false;
        }
    if (all)
        e->accepting = false;
    pthread_cond_broadcast(&e->lst_cv);
    pthread_mutex_unlock(&e->lst_mu);
}

static void *accept_main(void *arg)
{
    egress *e = arg;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, THREAD_STACK);
    struct pollfd p[3 + EGRESS_ADOPT_MAX];
    for (;;) {
        reap(e, false);
        close_adopted(e, false);
        slot *sl = free_slot(e);
        nfds_t np = 0;
        p[np++] = (struct pollfd){ e->stop[0], POLLIN, 0 };
        p[np++] = (struct pollfd){ e->done[0], POLLIN, 0 };
        if (sl) {
            p[np++] = (struct pollfd){ e->lfd, POLLIN, 0 };
            pthread_mutex_lock(&e->lst_mu);
            for (int i = 0; i < EGRESS_ADOPT_MAX; i++)
                if (e->adopted[i].fd >= 0 && !e->adopted[i].closing)
                    p[np++] = (struct pollfd){ e->adopted[i].fd, POLLIN, 0 };
            pthread_mutex_unlock(&e->lst_mu);
        }
        int n = poll(p, np, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p[0].revents & POLLIN))
            break;
        if (p[1].revents & POLLIN) {
            char drain[64];
            while (read(e->done[0], drain, sizeof drain) > 0) {
            }
        }
        for (nfds_t k = 2; k < np && sl; k++) {
            if (!(p[k].revents & POLLIN))
                continue;
            int c = accept4(p[k].fd, NULL, NULL, SOCK_CLOEXEC);
            if (c < 0)
                continue;
            sl->fd = c;
            sl->e = e;
            atomic_store(&sl->state, SLOT_RUNNING);
            if (pthread_create(&sl->th, &attr, conn_main, sl) != 0) {
                hew_log(HEW_LOG_WARN, "egress", "cannot start a connection thread");
                close(c);
                atomic_store(&sl->state, SLOT_FREE);
            }
            sl = free_slot(e);
        }
    }
    pthread_attr_destroy(&attr);
    reap(e, true);
    close_adopted(e, true);
    return NULL;
}

/* ---- the API --------------------------------------------------------------------------- */

hew_code egress_host_check(const char *entry, hew_err *err)
{
    egress_rule r;
    return egress_host_rule(entry, &r, err);
}

static void close_fds(egress *e)
{
    int *fds[] = { &e->lfd, &e->stop[0], &e->stop[1], &e->done[0], &e->done[1] };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

hew_code egress_start(const char *const *hosts, egress **out, hew_err *err)
{
    *out = NULL;
    size_t n = 0;
    while (hosts && hosts[n])
        n++;
    if (n > EGRESS_HOSTS_MAX)
        return hew_err_set(err, HEW_E_INVALID,
                           "sandbox.allow_hosts has %zu entries, over the %d hew reads: "
                           "use \"*.domain\" entries",
                           n, EGRESS_HOSTS_MAX);
    egress *e = calloc(1, sizeof *e);
    if (!e || (n && !(e->rules = calloc(n, sizeof *e->rules)))) {
        free(e);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory starting the egress proxy");
    }
    e->lfd = e->stop[0] = e->stop[1] = e->done[0] = e->done[1] = -1;
    for (size_t i = 0; i < n; i++) {
        hew_code rc = egress_host_rule(hosts[i], &e->rules[i], err);
        if (rc != HEW_OK) {
            free(e->rules);
            free(e);
            return rc;
        }
    }
    e->nrules = n;
    atomic_init(&e->idle_ms, EGRESS_IDLE_MS);
    for (int i = 0; i < EGRESS_CONN_MAX; i++) {
        atomic_init(&e->slots[i].state, SLOT_FREE);
        e->slots[i].fd = -1;
    }
    pthread_mutex_init(&e->cb_mu, NULL);
    pthread_mutex_init(&e->stop_mu, NULL);
    pthread_mutex_init(&e->lst_mu, NULL);
    clock_cond_init(&e->lst_cv);
    for (int i = 0; i < EGRESS_ADOPT_MAX; i++)
        e->adopted[i].fd = -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    e->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (e->lfd < 0 || bind(e->lfd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(e->lfd, 64) != 0 || getsockname(e->lfd, (struct sockaddr *)&a, &alen) != 0 ||
        pipe2(e->stop, O_CLOEXEC) != 0 || pipe2(e->done, O_CLOEXEC | O_NONBLOCK) != 0) {
        int en = errno;
        close_fds(e);
        egress_free(e);
        return hew_err_set(err, HEW_E_NET,
                           "cannot listen on 127.0.0.1 for the sandbox's egress proxy: %s",
                           strerror(en));
    }
    e->port = ntohs(a.sin_port);
    e->accepting = true;
    if (pthread_create(&e->accept_th, NULL, accept_main, e) != 0) {
        close_fds(e);
        egress_free(e);
        return hew_err_set(err, HEW_E_NOMEM, "cannot start the egress proxy's thread");
    }
    e->running = true;
    hew_log(HEW_LOG_INFO, "egress", "proxy on 127.0.0.1 port %d, %zu allowed host entr%s",
            e->port, n, n == 1 ? "y" : "ies");
    *out = e;
    return HEW_OK;
}

hew_code egress_adopt(egress *e, int listen_fd, hew_err *err)
{
    int opt = 0;
    socklen_t ol = sizeof opt;
    if (listen_fd < 0 || getsockopt(listen_fd, SOL_SOCKET, SO_ACCEPTCONN, &opt, &ol) != 0 ||
        !opt)
        return hew_err_set(err, HEW_E_INVALID,
                           "the egress proxy can adopt only a listening socket");
    pthread_mutex_lock(&e->stop_mu);
    bool running = e->running;
    int slot_i = -1;
    if (running) {
        pthread_mutex_lock(&e->lst_mu);
        for (int i = 0; i < EGRESS_ADOPT_MAX && slot_i < 0; i++)
            if (e->adopted[i].fd < 0)
                slot_i = i;
        if (slot_i >= 0) {
            set_nonblock(listen_fd);
            e->adopted[slot_i].fd = listen_fd;
            e->adopted[slot_i].closing = false;
        }
        pthread_mutex_unlock(&e->lst_mu);
        if (slot_i >= 0)
            wake_accept(e);
    }
    pthread_mutex_unlock(&e->stop_mu);
    if (!running)
        return hew_err_set(err, HEW_E_STATE, "the egress proxy has stopped");
    if (slot_i < 0)
        return hew_err_set(err, HEW_E_BUSY,
                           "the egress proxy already serves %d sandboxed commands' "
                           "namespaces: wait for one to end",
                           EGRESS_ADOPT_MAX);
    return HEW_OK;
}

void egress_release(egress *e, int listen_fd)
{
    if (listen_fd < 0)
        return;
    pthread_mutex_lock(&e->lst_mu);
    int found = -1;
    for (int i = 0; i < EGRESS_ADOPT_MAX && found < 0; i++)
        if (e->adopted[i].fd == listen_fd && !e->adopted[i].closing)
            found = i;
    if (found >= 0) {
        e->adopted[found].closing = true;
        wake_accept(e);
        /* wait for the accept thread to close it (it alone may: it polls it) */
        while (e->accepting && e->adopted[found].fd == listen_fd)
            pthread_cond_wait(&e->lst_cv, &e->lst_mu);
    }
    pthread_mutex_unlock(&e->lst_mu);
}

void egress_set_on_decision(egress *e, egress_decision_fn fn, void *ud)
{
    pthread_mutex_lock(&e->cb_mu);
    e->fn = fn;
    e->ud = ud;
    pthread_mutex_unlock(&e->cb_mu);
}

unsigned long long egress_mark(egress *e)
{
    pthread_mutex_lock(&e->cb_mu);
    unsigned long long m = e->seq;
    pthread_mutex_unlock(&e->cb_mu);
    return m;
}

size_t egress_blocked_since(egress *e, unsigned long long mark, buf *out)
{
    size_t n = 0;
    pthread_mutex_lock(&e->cb_mu);
    unsigned long long kept = e->nblocked < EGRESS_RECENT ? e->nblocked : EGRESS_RECENT;
    for (unsigned long long i = e->nblocked - kept; i < e->nblocked; i++) {
        const struct recent *r = &e->recent[i % EGRESS_RECENT];
        if (r->seq <= mark)
            continue;
        bool dup = false;
        for (unsigned long long j = e->nblocked - kept; j < i && !dup; j++) {
            const struct recent *q = &e->recent[j % EGRESS_RECENT];
            dup = q->seq > mark && strcmp(q->host, r->host) == 0;
        }
        if (dup)
            continue;
        if (n++)
            buf_puts(out, ", ");
        buf_puts(out, r->host);
    }
    if (e->evicted_seq > mark)
        buf_puts(out, n++ ? ", …" : "…");
    pthread_mutex_unlock(&e->cb_mu);
    return n;
}

void egress_set_idle_ms(egress *e, long ms)
{
    if (ms > 0)
        atomic_store(&e->idle_ms, ms);
}

int egress_port(const egress *e)
{
    return e->port;
}

void egress_child_env(const egress *e, proc_env *env)
{
    static const char *const names[] = {
        "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
    };
    char url[40];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", e->port);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        proc_env_set(env, names[i], url);
    proc_env_set(env, "NO_PROXY", "");
    proc_env_set(env, "no_proxy", "");
    /* Node's own fetch and http read the variables only when told to (Node 22.21, 24.5) */
    proc_env_set(env, "NODE_USE_ENV_PROXY", "1");
}

void egress_stop(egress *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->stop_mu);
    if (e->running) {
        ssize_t w = write(e->stop[1], "x", 1);
        (void)w;
        pthread_join(e->accept_th, NULL);
        e->running = false;
        close_adopted(e, true); /* any adopted while the thread was ending */
        hew_log(HEW_LOG_INFO, "egress", "proxy on port %d stopped", e->port);
    }
    close_fds(e);
    pthread_mutex_unlock(&e->stop_mu);
}

void egress_free(egress *e)
{
    if (!e)
        return;
    egress_stop(e);
    pthread_mutex_destroy(&e->cb_mu);
    pthread_mutex_destroy(&e->stop_mu);
    pthread_mutex_destroy(&e->lst_mu);
    pthread_cond_destroy(&e->lst_cv);
    free(e->rules);
    free(e);
}
