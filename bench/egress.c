/* bench/egress — what the egress proxy (net/egress.h) costs a sandboxed command's network
 * use: the time of one plain HTTP request to a local origin directly and through the
 * proxy (a new connection each, as a command's curl makes them: the proxy's part is a
 * thread, a head parse and an upstream connect), the time to open a CONNECT tunnel, and
 * the throughput of bytes through a tunnel. Each figure is the fastest of five runs, so
 * it holds on a busy machine. Exits non-zero when a request fails. Binds 127.0.0.1 only;
 * never touches the network beyond it. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/egress.h"

#define REQUESTS 500
#define TUNNEL_BYTES ((size_t)256 << 20)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The origin: answers a GET at once; a connection that starts with 'S' is a sink that
 * reads until EOF and then answers "done". */
typedef struct origin {
    int fd, port;
    pthread_t th;
} origin;

static void *origin_main(void *arg)
{
    origin *o = arg;
    static char b[1 << 16];
    for (;;) {
        int c = accept(o->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        ssize_t n = recv(c, b, sizeof b, 0);
        if (n > 0 && b[0] == 'S') {
            while (recv(c, b, sizeof b, 0) > 0) {
            }
            (void)!send(c, "done", 4, MSG_NOSIGNAL);
        } else if (n > 0 && b[0] == 'Q') {
            close(c);
            return NULL;
        } else if (n > 0) {
            static const char ans[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                                      "Connection: close\r\n\r\nok";
            (void)!send(c, ans, sizeof ans - 1, MSG_NOSIGNAL);
        }
        close(c);
    }
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)port);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("egress bench: connect");
        exit(1);
    }
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) {
            perror("egress bench: send");
            exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Send req, read to EOF; exits unless the answer starts with want. */
static void request(int port, const char *req, const char *want)
{
    int fd = dial(port);
    send_all(fd, req, strlen(req));
    char b[4096];
    size_t len = 0;
    ssize_t n;
    while ((n = recv(fd, b + len, sizeof b - 1 - len, 0)) > 0 && len + (size_t)n < sizeof b - 1)
        len += (size_t)n;
    b[len] = '\0';
    close(fd);
    if (strncmp(b, want, strlen(want)) != 0) {
        fprintf(stderr, "egress bench: unexpected answer: %.80s\n", b);
        exit(1);
    }
}

static double best_of_5(void (*fn)(int, int), int port, int oport)
{
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = now_us();
        fn(port, oport);
        double t = now_us() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void gets_direct(int port, int oport)
{
    (void)oport;
    char req[128];
    snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port);
    for (int i = 0; i < REQUESTS; i++)
        request(port, req, "HTTP/1.1 200");
}

static void gets_proxied(int port, int oport)
{
    char req[128];
    snprintf(req, sizeof req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\n\r\n", oport);
    for (int i = 0; i < REQUESTS; i++)
        request(port, req, "HTTP/1.1 200");
}

static void gets_refused(int port, int oport)
{
    (void)oport;
    for (int i = 0; i < REQUESTS; i++)
        request(port, "CONNECT example.org:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 403");
}

static int tunnel_open(int port, int oport)
{
    char req[128];
    snprintf(req, sizeof req, "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n", oport);
    int fd = dial(port);
    send_all(fd, req, strlen(req));
    char b[64];
    size_t want = strlen("HTTP/1.1 200 Connection established\r\n\r\n"), got = 0;
    while (got < want) {
        ssize_t n = recv(fd, b + got, want - got, 0);
        if (n <= 0) {
            fprintf(stderr, "egress bench: tunnel refused\n");
            exit(1);
        }
        got += (size_t)n;
    }
    return fd;
}

static void tunnels(int port, int oport)
{
    for (int i = 0; i < REQUESTS; i++) {
        int fd = tunnel_open(port, oport);
        send_all(fd, "Sx", 2);
        shutdown(fd, SHUT_WR);
        char b[8];
        while (recv(fd, b, sizeof b, 0) > 0) {
        }
        close(fd);
    }
}

static void throughput(int port, int oport)
{
    int fd = tunnel_open(port, oport);
    static char chunk[1 << 16];
    memset(chunk, 'S', sizeof chunk);
    for (size_t sent = 0; sent < TUNNEL_BYTES; sent += sizeof chunk)
        send_all(fd, chunk, sizeof chunk);
    shutdown(fd, SHUT_WR);
    char b[8];
    ssize_t n = recv(fd, b, sizeof b, 0);
    close(fd);
    if (n != 4) {
        fprintf(stderr, "egress bench: the sink did not answer\n");
        exit(1);
    }
}

int main(void)
{
    origin o;
    o.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (o.fd < 0 || bind(o.fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(o.fd, 128) != 0 || getsockname(o.fd, (struct sockaddr *)&a, &al) != 0) {
        perror("egress bench: origin");
        return 1;
    }
    o.port = ntohs(a.sin_port);
    pthread_create(&o.th, NULL, origin_main, &o);

    char entry[64];
    snprintf(entry, sizeof entry, "127.0.0.1:%d", o.port);
    egress *e = NULL;
    hew_err err = HEW_ERR_INIT;
    if (egress_start((const char *const[]){ entry, NULL }, &e, &err) != HEW_OK) {
        fprintf(stderr, "egress bench: %s\n", err.msg);
        return 1;
    }
    int p = egress_port(e);
    double direct = best_of_5(gets_direct, o.port, o.port);
    double proxied = best_of_5(gets_proxied, p, o.port);
    double refused = best_of_5(gets_refused, p, o.port);
    double tun = best_of_5(tunnels, p, o.port);
    printf("%-34s %9.1f us/request\n", "GET direct", direct / REQUESTS);
    printf("%-34s %9.1f us/request (+%.1f)\n", "GET through the proxy", proxied / REQUESTS,
           (proxied - direct) / REQUESTS);
    printf("%-34s %9.1f us/request\n", "CONNECT refused (403)", refused / REQUESTS);
    printf("%-34s %9.1f us/tunnel\n", "CONNECT tunnel open+close", tun / REQUESTS);
    double thr = best_of_5(throughput, p, o.port);
    printf("%-34s %9.1f MiB/s\n", "bytes through a tunnel",
           (double)(TUNNEL_BYTES >> 20) / (thr / 1e6));
    egress_free(e);
    request(o.port, "Q", "");
    pthread_join(o.th, NULL);
    close(o.fd);
    return 0;
}
