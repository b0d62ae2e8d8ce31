/* Tests for net/egress, the allow-list proxy, over real sockets on 127.0.0.1: a tiny
 * origin server (tests/support/origin.h: HTTP, echo or silent) is reached through the proxy with raw
 * requests, as curl and other clients send them. Proves: an allowed host is forwarded
 * (origin-form target, Host rewritten, Proxy-* headers dropped) and tunnelled (bytes both
 * ways, early data, half-close); a host not listed gets 403 naming it and the key; every
 * host trick is refused without the origin ever seeing a connection; an oversized head
 * gets 431 and garbage 400, and the proxy goes on serving; an idle tunnel is closed; stop
 * with connections open frees everything (ASan); every decision reaches the callback. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "net/egress.h"
#include "origin.h"

#define SAFETY_MS 30000 /* only a net under a hung test: no assertion is about time */

static void send_str(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* ---- decisions ------------------------------------------------------------------------- */

typedef struct seen {
    pthread_mutex_t mu;
    int n;
    struct {
        bool allowed;
        char method[16], host[300], reason[200];
        int port;
    } d[256];
} seen;

static void on_decision(void *ud, const egress_decision *d)
{
    seen *s = ud;
    pthread_mutex_lock(&s->mu);
    if (s->n < 256) {
        s->d[s->n].allowed = d->allowed;
        snprintf(s->d[s->n].method, sizeof s->d[0].method, "%s", d->method);
        snprintf(s->d[s->n].host, sizeof s->d[0].host, "%s", d->host);
        snprintf(s->d[s->n].reason, sizeof s->d[0].reason, "%s", d->reason);
        s->d[s->n].port = d->port;
        s->n++;
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- the client ------------------------------------------------------------------------ */

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)port);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("dial");
        exit(1);
    }
    return fd;
}

/* Read until EOF (or the safety net): false when the net was hit. */
static bool read_to_eof(int fd, buf *out)
{
    char b[8192];
    for (;;) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, SAFETY_MS) <= 0)
            return false;
        ssize_t n = recv(fd, b, sizeof b, 0);
        if (n < 0 && errno == ECONNRESET)
            return true;
        if (n <= 0)
            return n == 0;
        buf_append(out, b, (size_t)n);
    }
}

/* Read exactly n bytes (or the safety net / EOF: false). */
static bool read_n(int fd, char *dst, size_t n)
{
    while (n) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, SAFETY_MS) <= 0)
            return false;
        ssize_t r = recv(fd, dst, n, 0);
        if (r <= 0)
            return false;
        dst += r;
        n -= (size_t)r;
    }
    return true;
}

/* One whole exchange: send req (len bytes), read the answer to EOF; its status. */
static int exchange(int port, const char *req, size_t len, buf *ans)
{
    int fd = dial(port);
    send_str(fd, req, len);
    buf_reset(ans);
    bool eof = read_to_eof(fd, ans);
    close(fd);
    if (!eof || ans->len < 12 || strncmp(ans->data, "HTTP/1.1 ", 9) != 0)
        return -1;
    return (int)strtol(ans->data + 9, NULL, 10);
}

static int exchange_str(int port, const char *req, buf *ans)
{
    return exchange(port, req, strlen(req), ans);
}

static const char *body_of(const buf *ans)
{
    const char *b = ans->data ? strstr(ans->data, "\r\n\r\n") : NULL;
    return b ? b + 4 : "";
}

typedef struct fixture {
    origin o;
    egress *e;
    seen s;
    buf ans;
    char req[2048];
} fixture;

/* Start an origin and a proxy allowing the entries (each a format taking the origin's
 * port once, e.g. "127.0.0.1:%d", or a plain entry). */
static void fx_start(fixture *f, int mode, const char *const *entries)
{
    memset(&f->s, 0, sizeof f->s);
    pthread_mutex_init(&f->s.mu, NULL);
    origin_start(&f->o, mode);
    char list[8][128];
    const char *hosts[9];
    size_t n = 0;
    for (; entries && entries[n] && n < 8; n++) {
        snprintf(list[n], sizeof list[n], entries[n], f->o.port);
        hosts[n] = list[n];
    }
    hosts[n] = NULL;
    hew_err err = HEW_ERR_INIT;
    if (egress_start(hosts, &f->e, &err) != HEW_OK) {
        fprintf(stderr, "egress_start: %s\n", err.msg);
        exit(1);
    }
    egress_set_on_decision(f->e, on_decision, &f->s);
    buf_init(&f->ans, 1 << 22);
}

static void fx_stop(fixture *f)
{
    egress_free(f->e);
    origin_stop(&f->o);
    buf_release(&f->ans);
    pthread_mutex_destroy(&f->s.mu);
}

static int P(const fixture *f)
{
    return egress_port(f->e);
}

/* ---- tests ----------------------------------------------------------------------------- */

static void test_forward_allowed(void)
{
    fixture f;
    fx_start(&f, ORIGIN_HTTP, (const char *const[]){ "127.0.0.1:%d", NULL });
    snprintf(f.req, sizeof f.req,
             "GET http://127.0.0.1:%d/path?q=1#frag HTTP/1.1\r\nHost: evil.example\r\n"
             "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\n"
             "User-Agent: egress-test\r\nAccept: */*\r\n\r\n",
             f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 200);
    CHECK_STR(body_of(&f.ans), "hello from origin\n");
    char want[128];
    snprintf(want, sizeof want, "\r\nHost: 127.0.0.1:%d\r\n", f.o.port);
    CHECK(strncmp(f.o.head, "GET /path?q=1 HTTP/1.1\r\n", 24) == 0);
    CHECK(strstr(f.o.head, want) != NULL);
    CHECK(strstr(f.o.head, "\r\nConnection: close\r\n") != NULL);
    CHECK(strstr(f.o.head, "\r\nUser-Agent: egress-test\r\n") != NULL);
    CHECK(strstr(f.o.head, "Proxy-") == NULL);
    CHECK(strstr(f.o.head, "evil.example") == NULL);
    REQUIRE(f.s.n == 1);
    CHECK(f.s.d[0].allowed);
    CHECK_STR(f.s.d[0].method, "GET");
    CHECK_STR(f.s.d[0].host, "127.0.0.1");
    CHECK_INT(f.s.d[0].port, f.o.port);
    CHECK_STR(f.s.d[0].reason, "");
    /* a query without a path gets "/" in front */
    snprintf(f.req, sizeof f.req, "GET http://127.0.0.1:%d?x=2 HTTP/1.0\r\n\r\n", f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 200);
    CHECK(strncmp(f.o.head, "GET /?x=2 HTTP/1.0\r\n", 20) == 0);
    fx_stop(&f);
}

static void test_forward_by_name(void)
{
    /* "localhost" is resolved by the proxy (the child needs no DNS); the case and the
     * trailing dot of the request do not change the host connected to */
    fixture f;
    fx_start(&f, ORIGIN_HTTP, (const char *const[]){ "localhost:%d", NULL });
    static const char *const forms[] = { "localhost", "LOCALHOST", "LocalHost." };
    for (size_t i = 0; i < 3; i++) {
        snprintf(f.req, sizeof f.req, "GET http://%s:%d/ HTTP/1.1\r\n\r\n", forms[i],
                 f.o.port);
        CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 200);
        char want[64];
        snprintf(want, sizeof want, "\r\nHost: localhost:%d\r\n", f.o.port);
        CHECK(strstr(f.o.head, want) != NULL);
    }
    CHECK_INT(origin_accepts(&f.o), 3);
    /* the address is not the name: 127.0.0.1 is not listed */
    snprintf(f.req, sizeof f.req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n\r\n", f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 403);
    CHECK_INT(origin_accepts(&f.o), 3);
    fx_stop(&f);
}

static void test_blocked_names_the_host(void)
{
    fixture f;
    fx_start(&f, ORIGIN_HTTP, (const char *const[]){ "127.0.0.1", NULL });
    CHECK_INT(exchange_str(P(&f), "GET http://example.org/x HTTP/1.1\r\nHost: example.org\r\n\r\n",
                           &f.ans),
              403);
    CHECK(strstr(body_of(&f.ans), "example.org") != NULL);
    CHECK(strstr(body_of(&f.ans), "sandbox.allow_hosts") != NULL);
    CHECK(strstr(f.ans.data, "X-Hew-Egress: blocked") != NULL);
    CHECK_INT(exchange_str(P(&f), "CONNECT Example.ORG:443 HTTP/1.1\r\n\r\n", &f.ans), 403);
    CHECK(strstr(body_of(&f.ans), "\"example.org\"") != NULL);
    /* the host is listed, the port is not (80 and 443 only): the entry to add says it */
    snprintf(f.req, sizeof f.req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n\r\n", f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 403);
    char want[64];
    snprintf(want, sizeof want, "\"127.0.0.1:%d\"", f.o.port);
    CHECK(strstr(body_of(&f.ans), want) != NULL);
    CHECK(strstr(body_of(&f.ans), "port") != NULL);
    CHECK_INT(origin_accepts(&f.o), 0);
    REQUIRE(f.s.n == 3);
    CHECK(!f.s.d[0].allowed);
    CHECK_STR(f.s.d[0].host, "example.org");
    CHECK_INT(f.s.d[0].port, 80);
    CHECK_STR(f.s.d[0].reason, "not in sandbox.allow_hosts");
    CHECK_STR(f.s.d[1].method, "CONNECT");
    CHECK_STR(f.s.d[1].host, "example.org");
    CHECK_INT(f.s.d[1].port, 443);
    CHECK(strstr(f.s.d[2].reason, "port") != NULL);
    fx_stop(&f);
}

static void test_tricks_never_reach_the_origin(void)
{
    fixture f;
    fx_start(&f, ORIGIN_HTTP,
             (const char *const[]){ "127.0.0.1:%d", "localhost:%d", "[::1]:%d", NULL });
    static const char *const tricks[] = {
        "CONNECT evil.example@127.0.0.1:%d HTTP/1.1\r\n\r\n",
        "GET http://evil.example@127.0.0.1:%d/ HTTP/1.1\r\n\r\n",
        "GET http://127.0.0.1:%d@evil.example/ HTTP/1.1\r\n\r\n",
        "GET http://127.0.0.1:%d\\@evil.example/ HTTP/1.1\r\n\r\n",
        "CONNECT localhost.evil.example:%d HTTP/1.1\r\n\r\n",
        "CONNECT localhost-evil.example:%d HTTP/1.1\r\n\r\n",
        "GET http://127%%2e0.0.1:%d/ HTTP/1.1\r\n\r\n",
        "CONNECT local%%68ost:%d HTTP/1.1\r\n\r\n",
        "CONNECT [::ffff:127.0.0.1]:%d HTTP/1.1\r\n\r\n",
        "CONNECT [::1%%25lo]:%d HTTP/1.1\r\n\r\n",
        "CONNECT [::1%%lo]:%d HTTP/1.1\r\n\r\n",
        "CONNECT 127.1:%d HTTP/1.1\r\n\r\n",
        "CONNECT 2130706433:%d HTTP/1.1\r\n\r\n",
        "CONNECT 0x7f000001:%d HTTP/1.1\r\n\r\n",
        "CONNECT 0x7f.0.0.1:%d HTTP/1.1\r\n\r\n",
        "CONNECT 127.0.0.01:%d HTTP/1.1\r\n\r\n",
        "CONNECT localhost..:%d HTTP/1.1\r\n\r\n",
        "CONNECT LOCALHOST.EVIL.EXAMPLE.:%d HTTP/1.1\r\n\r\n",
        "CONNECT 127.0.0.1:%d:80 HTTP/1.1\r\n\r\n",
        "CONNECT [127.0.0.1]:%d HTTP/1.1\r\n\r\n",
        "CONNECT 127.0.0.1:0%d HTTP/1.1\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof tricks / sizeof tricks[0]; i++) {
        snprintf(f.req, sizeof f.req, tricks[i], f.o.port);
        int st = exchange_str(P(&f), f.req, &f.ans);
        if (st != 403)
            check_fail(__FILE__, __LINE__, "%s: status %d, want 403", f.req, st);
        check_count++;
    }
    CHECK_INT(origin_accepts(&f.o), 0);
    CHECK_INT(f.s.n, (int)(sizeof tricks / sizeof tricks[0]));
    for (int i = 0; i < f.s.n; i++)
        CHECK(!f.s.d[i].allowed && f.s.d[i].reason[0]);
    /* a refused host that is not a host is shown escaped, never raw (here a bidi
     * override); control bytes do not even make a request line */
    CHECK_INT(exchange_str(P(&f), "CONNECT a\xe2\x80\xae\"b:443 HTTP/1.1\r\n\r\n", &f.ans),
              403);
    CHECK(strstr(body_of(&f.ans), "\xe2\x80\xae") == NULL);
    CHECK(strstr(body_of(&f.ans), "\"a\\xe2\\x80\\xae\\x22b:443\"") != NULL);
    CHECK_INT(exchange_str(P(&f), "CONNECT a\x1b[31mb:443 HTTP/1.1\r\n\r\n", &f.ans), 400);
    CHECK(strchr(f.ans.data, '\x1b') == NULL);
    fx_stop(&f);
}

static void test_head_cap_and_garbage(void)
{
    fixture f;
    fx_start(&f, ORIGIN_HTTP, (const char *const[]){ "127.0.0.1:%d", NULL });
    /* no blank line in 9000 bytes */
    char *big = malloc(20000);
    memset(big, 'a', 9000);
    CHECK_INT(exchange(P(&f), big, 9000, &f.ans), 431);
    /* a request line and many headers past 8 KiB, blank line at the end */
    buf b = BUF_INIT(1 << 20);
    buf_printf(&b, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n", f.o.port);
    for (int i = 0; i < 100; i++)
        buf_printf(&b, "X-Pad-%03d: %090d\r\n", i, 0);
    buf_puts(&b, "\r\n");
    CHECK_INT(exchange(P(&f), b.data, b.len, &f.ans), 431);
    CHECK_INT(origin_accepts(&f.o), 0);
    /* just under the cap goes through */
    buf_reset(&b);
    buf_printf(&b, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n", f.o.port);
    for (int i = 0; i < 75; i++)
        buf_printf(&b, "X-Pad-%03d: %090d\r\n", i, 0);
    buf_puts(&b, "\r\n");
    CHECK(b.len < 8192);
    CHECK_INT(exchange(P(&f), b.data, b.len, &f.ans), 200);
    buf_release(&b);
    static const char *const garbage[] = {
        "\x16\x03\x01\x02\x01\x01\x01\x01\xfc\x03\x03\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "get http://127.0.0.1/ HTTP/1.1\r\n\r\n",
        "GET http://127.0.0.1/ HTTP/2.0\r\n\r\n",
        "CONNECT  127.0.0.1:1 HTTP/1.1\r\n\r\n",
        "CONNECT 127.0.0.1:1 HTTP/1.1 x\r\n\r\n",
        "GET https://127.0.0.1/ HTTP/1.1\r\n\r\n",
        "GET ftp://127.0.0.1/ HTTP/1.1\r\n\r\n",
        "\r\n\r\n",
        "GET\r\n\r\n",
        " \r\n\r\n",
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        int st = exchange_str(P(&f), garbage[i], &f.ans);
        if (st != 400)
            check_fail(__FILE__, __LINE__, "garbage %zu: status %d, want 400", i, st);
        check_count++;
    }
    CHECK_INT(exchange_str(P(&f), "GET https://127.0.0.1/ HTTP/1.1\r\n\r\n", &f.ans), 400);
    CHECK(strstr(body_of(&f.ans), "CONNECT") != NULL);
    /* a NUL inside the head */
    static const char nul[] = "GET http://127.0.0.1/ HTTP/1.1\r\nX: a\0b\r\n\r\n";
    CHECK_INT(exchange(P(&f), nul, sizeof nul - 1, &f.ans), 400);
    /* a header line without a name: refused before anything is sent upstream */
    snprintf(f.req, sizeof f.req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\nno colon\r\n\r\n",
             f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 400);
    snprintf(f.req, sizeof f.req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n folded: x\r\n\r\n",
             f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 400);
    snprintf(f.req, sizeof f.req,
             "GET http://127.0.0.1:%d/ HTTP/1.1\r\nX: a\rGET /smuggled HTTP/1.1\r\n\r\n",
             f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 400);
    CHECK_INT(origin_accepts(&f.o), 1);
    /* random bytes: always an answer or a close, never a crash or a forward */
    unsigned s = 12345;
    for (int i = 0; i < 200; i++) {
        size_t n = 1 + (s % 300);
        for (size_t k = 0; k < n; k++) {
            s = s * 1103515245u + 12345u;
            big[k] = (char)(s >> 16);
        }
        memcpy(big + n, "\r\n\r\n", 4);
        int st = exchange(P(&f), big, n + 4, &f.ans);
        if (st != 400 && st != 403)
            check_fail(__FILE__, __LINE__, "random head %d: status %d", i, st);
        check_count++;
    }
    CHECK_INT(origin_accepts(&f.o), 1);
    /* a client that leaves in the middle of its head: the proxy goes on */
    int fd = dial(P(&f));
    send_str(fd, "CONNECT 127.0.0.1", 17);
    close(fd);
    snprintf(f.req, sizeof f.req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n\r\n", f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 200);
    free(big);
    fx_stop(&f);
}

typedef struct writer {
    int fd;
    const char *data;
    size_t len;
} writer;

static void *write_main(void *arg)
{
    writer *w = arg;
    send_str(w->fd, w->data, w->len);
    shutdown(w->fd, SHUT_WR);
    return NULL;
}

static void test_tunnel_both_ways(void)
{
    fixture f;
    fx_start(&f, ORIGIN_ECHO, (const char *const[]){ "127.0.0.1:%d", NULL });
    int fd = dial(P(&f));
    /* the head and the first bytes in one write (a client that does not wait) */
    snprintf(f.req, sizeof f.req,
             "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\nearly", f.o.port,
             f.o.port);
    send_str(fd, f.req, strlen(f.req));
    static const char est[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    char got[64];
    REQUIRE(read_n(fd, got, sizeof est - 1));
    CHECK_MEM(got, sizeof est - 1, est, sizeof est - 1);
    REQUIRE(read_n(fd, got, 5));
    CHECK_MEM(got, 5, "early", 5);
    /* 1 MiB each way at once (a writer thread), then a half-close ends it */
    size_t n = (size_t)1 << 20;
    char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)(i * 7 + (i >> 10));
    writer w = { fd, data, n };
    pthread_t th;
    pthread_create(&th, NULL, write_main, &w);
    buf back = BUF_INIT((size_t)4 << 20);
    CHECK(read_to_eof(fd, &back));
    pthread_join(th, NULL);
    CHECK_MEM(back.data, back.len, data, n);
    buf_release(&back);
    free(data);
    close(fd);
    REQUIRE(f.s.n == 1);
    CHECK(f.s.d[0].allowed);
    CHECK_STR(f.s.d[0].method, "CONNECT");
    fx_stop(&f);
}

static void test_idle_tunnel_closed(void)
{
    fixture f;
    fx_start(&f, ORIGIN_SILENT, (const char *const[]){ "127.0.0.1:%d", NULL });
    egress_set_idle_ms(f.e, 300);
    int fd = dial(P(&f));
    snprintf(f.req, sizeof f.req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n", f.o.port);
    send_str(fd, f.req, strlen(f.req));
    buf got = BUF_INIT(4096);
    /* the proxy ends the silent tunnel by itself: EOF comes, the safety net is not hit */
    CHECK(read_to_eof(fd, &got));
    CHECK(got.data && strstr(got.data, " 200 ") != NULL);
    buf_release(&got);
    close(fd);
    fx_stop(&f);
}

static void test_stop_with_connections_open(void)
{
    fixture f;
    fx_start(&f, ORIGIN_ECHO, (const char *const[]){ "127.0.0.1:%d", NULL });
    int tunnel = dial(P(&f));
    snprintf(f.req, sizeof f.req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n", f.o.port);
    send_str(tunnel, f.req, strlen(f.req));
    char got[64];
    CHECK(read_n(tunnel, got, 39));
    send_str(tunnel, "ping", 4);
    CHECK(read_n(tunnel, got, 4));
    int half = dial(P(&f));
    send_str(half, "GET http://127.0.0.1/", 21);
    int idle = dial(P(&f));
    /* every thread joined, every socket closed, every byte freed (ASan's leak check) */
    egress_free(f.e);
    f.e = NULL;
    buf rest = BUF_INIT(4096);
    CHECK(read_to_eof(tunnel, &rest));
    CHECK(read_to_eof(half, &rest));
    CHECK(read_to_eof(idle, &rest));
    buf_release(&rest);
    close(tunnel);
    close(half);
    close(idle);
    origin_stop(&f.o);
    buf_release(&f.ans);
    pthread_mutex_destroy(&f.s.mu);
}

static void test_blocked_since_a_mark(void)
{
    fixture f;
    fx_start(&f, ORIGIN_HTTP, (const char *const[]){ "127.0.0.1:%d", NULL });
    buf hosts = BUF_INIT(1 << 16);
    unsigned long long m0 = egress_mark(f.e);
    snprintf(f.req, sizeof f.req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n\r\n", f.o.port);
    CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 200);
    CHECK_INT(egress_blocked_since(f.e, m0, &hosts), 0);
    CHECK_INT(hosts.len, 0);
    CHECK_INT(exchange_str(P(&f), "GET http://example.org/ HTTP/1.1\r\n\r\n", &f.ans), 403);
    CHECK_INT(exchange_str(P(&f), "CONNECT example.org:443 HTTP/1.1\r\n\r\n", &f.ans), 403);
    CHECK_INT(exchange_str(P(&f), "CONNECT Other.example:8443 HTTP/1.1\r\n\r\n", &f.ans),
              403);
    CHECK_INT(exchange_str(P(&f), "CONNECT [::2]:443 HTTP/1.1\r\n\r\n", &f.ans), 403);
    CHECK_INT(egress_blocked_since(f.e, m0, &hosts), 3);
    CHECK_STR(hosts.data, "example.org, other.example:8443, [::2]");
    unsigned long long m1 = egress_mark(f.e);
    buf_reset(&hosts);
    CHECK_INT(egress_blocked_since(f.e, m1, &hosts), 0);
    /* more than the ring keeps: the oldest are said to be missing */
    for (int i = 0; i < EGRESS_RECENT + 8; i++) {
        snprintf(f.req, sizeof f.req, "CONNECT h%d.example:443 HTTP/1.1\r\n\r\n", i);
        CHECK_INT(exchange_str(P(&f), f.req, &f.ans), 403);
    }
    buf_reset(&hosts);
    CHECK_INT(egress_blocked_since(f.e, m1, &hosts), EGRESS_RECENT + 1);
    CHECK(strncmp(hosts.data, "h8.example, h9.example, ", 24) == 0);
    CHECK(hosts.len > 5 && strcmp(hosts.data + hosts.len - 5, ", \xe2\x80\xa6") == 0);
    buf_release(&hosts);
    fx_stop(&f);
}

typedef struct hammer {
    int port, n;
} hammer;

static void *hammer_main(void *arg)
{
    hammer *h = arg;
    buf ans = BUF_INIT(1 << 16);
    for (int i = 0; i < h->n; i++)
        if (exchange_str(h->port, "CONNECT refused.example:443 HTTP/1.1\r\n\r\n", &ans) != 403)
            check_fail(__FILE__, __LINE__, "request %d not refused", i);
    buf_release(&ans);
    return NULL;
}

static void test_callback_swapped_under_traffic(void)
{
    /* decisions land in whichever callback is set, never in a freed one (TSan checks the
     * lock; here: once the callback is cleared, nothing more arrives) */
    fixture f;
    fx_start(&f, ORIGIN_HTTP, (const char *const[]){ "127.0.0.1:%d", NULL });
    seen *other = calloc(1, sizeof *other);
    pthread_mutex_init(&other->mu, NULL);
    hammer h = { P(&f), 200 };
    pthread_t th;
    pthread_create(&th, NULL, hammer_main, &h);
    for (int i = 0; i < 2000; i++)
        egress_set_on_decision(f.e, on_decision, i % 2 ? &f.s : other);
    pthread_join(th, NULL);
    egress_set_on_decision(f.e, NULL, NULL);
    CHECK(f.s.n + other->n <= 200);
    int a = f.s.n, b = other->n;
    pthread_mutex_destroy(&other->mu);
    free(other);
    buf ans = BUF_INIT(1 << 16);
    CHECK_INT(exchange_str(P(&f), "CONNECT after.example:443 HTTP/1.1\r\n\r\n", &ans), 403);
    buf_release(&ans);
    CHECK_INT(f.s.n, a);
    (void)b;
    fx_stop(&f);
}

static void test_start_refuses_bad_entries(void)
{
    egress *e = (egress *)&e;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(egress_start((const char *const[]){ "ok.example", "bad host", NULL }, &e, &err),
              HEW_E_INVALID);
    CHECK(e == NULL);
    CHECK(strstr(err.msg, "\"bad host\"") != NULL);
    CHECK(strstr(err.msg, "sandbox.allow_hosts") != NULL);
    /* nothing listed: a proxy that refuses everything */
    hew_err err2 = HEW_ERR_INIT;
    REQUIRE(egress_start(NULL, &e, &err2) == HEW_OK);
    buf ans = BUF_INIT(1 << 16);
    CHECK_INT(exchange_str(egress_port(e), "CONNECT localhost:443 HTTP/1.1\r\n\r\n", &ans), 403);
    buf_release(&ans);
    egress_stop(e);
    egress_stop(e); /* idempotent */
    egress_free(e);
    egress_free(NULL);
}

static void test_child_env(void)
{
    egress *e = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(egress_start((const char *const[]){ "example.com", NULL }, &e, &err) == HEW_OK);
    proc_env env = PROC_ENV_INIT;
    proc_env_set(&env, "NO_PROXY", "example.com");
    proc_env_set(&env, "http_proxy", "http://elsewhere:3128");
    egress_child_env(e, &env);
    char want[64];
    snprintf(want, sizeof want, "http://127.0.0.1:%d", egress_port(e));
    static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                         "http_proxy", "https_proxy", "all_proxy" };
    for (size_t i = 0; i < 6; i++)
        CHECK_STR(proc_env_get(&env, names[i]), want);
    CHECK_STR(proc_env_get(&env, "NO_PROXY"), "");
    CHECK_STR(proc_env_get(&env, "no_proxy"), "");
    CHECK_STR(proc_env_get(&env, "NODE_USE_ENV_PROXY"), "1");
    CHECK(egress_port(e) > 0);
    proc_env_release(&env);
    egress_free(e);
}

int main(void)
{
    RUN(test_forward_allowed);
    RUN(test_forward_by_name);
    RUN(test_blocked_names_the_host);
    RUN(test_tricks_never_reach_the_origin);
    RUN(test_head_cap_and_garbage);
    RUN(test_tunnel_both_ways);
    RUN(test_idle_tunnel_closed);
    RUN(test_stop_with_connections_open);
    RUN(test_blocked_since_a_mark);
    RUN(test_callback_swapped_under_traffic);
    RUN(test_start_refuses_bad_entries);
    RUN(test_child_env);
    return check_report();
}
