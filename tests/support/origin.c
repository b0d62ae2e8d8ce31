/* origin — the egress tests' 127.0.0.1 server (see origin.h). Every wait is bounded (a
 * 30 s safety net) and watches the stop pipe, so origin_stop never hangs. */
#include "origin.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SAFETY_MS 30000

static bool wait_in(int fd, int stopfd)
{
    struct pollfd p[2] = { { fd, POLLIN, 0 }, { stopfd, POLLIN, 0 } };
    int n = poll(p, 2, SAFETY_MS);
    return n > 0 && !(p[1].revents & POLLIN);
}

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

static void serve(origin *o, int c)
{
    static __thread char b[16384];
    size_t len = 0;
    if (o->mode == ORIGIN_HTTP) {
        while (len < sizeof b - 1 && wait_in(c, o->stop[0])) {
            ssize_t n = recv(c, b + len, sizeof b - 1 - len, 0);
            if (n <= 0)
                break;
            len += (size_t)n;
            b[len] = '\0';
            if (strstr(b, "\r\n\r\n"))
                break;
        }
        b[len] = '\0';
        pthread_mutex_lock(&o->mu);
        memcpy(o->head, b, len + 1);
        pthread_mutex_unlock(&o->mu);
        static const char ans[] = "HTTP/1.1 200 OK\r\nContent-Length: 18\r\n"
                                  "Connection: close\r\n\r\n" ORIGIN_BODY;
        send_str(c, ans, sizeof ans - 1);
        return;
    }
    while (wait_in(c, o->stop[0])) {
        ssize_t n = recv(c, b, sizeof b, 0);
        if (n <= 0)
            return;
        if (o->mode == ORIGIN_ECHO)
            send_str(c, b, (size_t)n);
    }
}

static void *origin_main(void *arg)
{
    origin *o = arg;
    while (wait_in(o->fd, o->stop[0])) {
        int c = accept(o->fd, NULL, NULL);
        if (c < 0)
            continue;
        pthread_mutex_lock(&o->mu);
        o->accepts++;
        pthread_mutex_unlock(&o->mu);
        serve(o, c);
        close(c);
    }
    return NULL;
}

void origin_start(origin *o, int mode)
{
    memset(o, 0, sizeof *o);
    o->mode = mode;
    pthread_mutex_init(&o->mu, NULL);
    o->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (o->fd < 0 || bind(o->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(o->fd, 16) != 0 || getsockname(o->fd, (struct sockaddr *)&a, &al) != 0 ||
        pipe(o->stop) != 0) {
        perror("origin");
        exit(1);
    }
    o->port = ntohs(a.sin_port);
    if (pthread_create(&o->th, NULL, origin_main, o) != 0) {
        perror("origin thread");
        exit(1);
    }
}

int origin_accepts(origin *o)
{
    pthread_mutex_lock(&o->mu);
    int n = o->accepts;
    pthread_mutex_unlock(&o->mu);
    return n;
}

void origin_stop(origin *o)
{
    ssize_t w = write(o->stop[1], "x", 1);
    (void)w;
    pthread_join(o->th, NULL);
    close(o->fd);
    close(o->stop[0]);
    close(o->stop[1]);
    pthread_mutex_destroy(&o->mu);
}
