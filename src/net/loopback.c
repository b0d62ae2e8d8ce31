/* loopback — the replay's HTTP/1.1 server on 127.0.0.1 (see loopback.h for why it is
 * hand-written). Never binds anything but 127.0.0.1; never blocks without a bound (each
 * read waits at most IO_WAIT_MS, and the stop pipe wakes the accept wait). */
#include "net/loopback.h"

#include "sys/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define HEAD_MAX ((size_t)64 << 10)
#define BODY_MAX ((size_t)1 << 30)
#define IO_WAIT_MS 30000

struct loopback {
    int fd;
    int wake[2];
    int port;
    pthread_t thread;
    loopback_fn fn;
    void *ud;
};

int loopback_port(const loopback *lb)
{
    return lb->port;
}

/* Wait until fd is readable (or the stop pipe fires): true when it is. */
static bool wait_in(const loopback *lb, int fd, int ms)
{
    struct pollfd p[2] = { { fd, POLLIN, 0 }, { lb->wake[0], POLLIN, 0 } };
    for (;;) {
        int n = poll(p, 2, ms);
        if (n < 0 && errno == EINTR)
            continue;
        return n > 0 && !(p[1].revents & POLLIN) && (p[0].revents & (POLLIN | POLLHUP));
    }
}

/* Wait until start + at_ms on the monotonic clock; false when the server is stopping. */
static bool wait_until(const loopback *lb, long long start, long long at_ms)
{
    for (;;) {
        long long left = start + at_ms - clock_now_ms();
        if (left <= 0)
            return true;
        struct pollfd p = { lb->wake[0], POLLIN, 0 };
        int n = poll(&p, 1, left > 1000 ? 1000 : (int)left);
        if (n > 0)
            return false;
    }
}

static bool send_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

static const char *reason(long status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 529: return "Overloaded";
    default: return "Status";
    }
}

static void answer_plain(int fd, long status, const char *text)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %ld %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     status, reason(status), strlen(text));
    if (n > 0 && send_all(fd, head, (size_t)n))
        send_all(fd, text, strlen(text));
}

/* The value of header name in head (lines after the first), or NULL; into v. */
static bool header_value(const char *head, const char *name, char *v, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line && line[2];
         line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
            const char *s = h + nl + 1;
            while (*s == ' ' || *s == '\t')
                s++;
            const char *e = strstr(s, "\r\n");
            size_t n = e ? (size_t)(e - s) : strlen(s);
            snprintf(v, cap, "%.*s", (int)n, s);
            return true;
        }
    }
    return false;
}

/* What the client sent next, appended to in; false when it closed, stayed silent past the
 * wait, failed, or in is full. */
static bool recv_more(loopback *lb, int fd, buf *in)
{
    for (;;) {
        if (!wait_in(lb, fd, IO_WAIT_MS))
            return false;
        char tmp[65536];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf_append(in, tmp, (size_t)n);
        return in->err == HEW_OK;
    }
}

static void serve(loopback *lb, int fd)
{
    buf in = BUF_INIT(HEAD_MAX + BODY_MAX);
    char *end = NULL;
    while (!end) {
        if (!recv_more(lb, fd, &in))
            goto done;
        buf_putc(&in, '\0'); /* keep it a string for the search, then take it off */
        in.len--;
        end = strstr(in.data, "\r\n\r\n");
        if (!end && in.len > HEAD_MAX) {
            answer_plain(fd, 413, "hew replay: the request head is too big\n");
            goto done;
        }
    }
    size_t head_len = (size_t)(end - in.data) + 4;
    char *head = strndup(in.data, head_len - 2);
    if (!head)
        goto done;
    char method[16] = "", target[4096] = "", te[64] = "", cl[32] = "";
    if (sscanf(head, "%15s %4095s", method, target) != 2 || !*target) {
        answer_plain(fd, 400, "hew replay: not an HTTP request\n");
        free(head);
        goto done;
    }
    bool chunked = header_value(head, "Transfer-Encoding", te, sizeof te);
    bool has_len = header_value(head, "Content-Length", cl, sizeof cl);
    free(head);
    char *num_end = NULL;
    unsigned long long want = has_len ? strtoull(cl, &num_end, 10) : 0;
    if (chunked || (has_len && (num_end == cl || *num_end)) || want > BODY_MAX) {
        answer_plain(fd, chunked ? 411 : 413,
                     "hew replay: only a body with a Content-Length (at most 1 GiB) is read\n");
        goto done;
    }
    while (in.len - head_len < want)
        if (!recv_more(lb, fd, &in))
            goto done;
    buf_putc(&in, '\0');
    if (in.err != HEW_OK)
        goto done;
    loopback_request rq = { method, target, in.data + head_len, (size_t)want };
    in.data[head_len + want] = '\0';
    loopback_answer ans;
    memset(&ans, 0, sizeof ans);
    buf_init(&ans.headers, HEAD_MAX);
    long long start = clock_now_ms();
    lb->fn(lb->ud, &rq, &ans);
    if (ans.status > 0 && ans.pieces && !wait_until(lb, start, ans.head_ms))
        ans.status = 0; /* stopping */
    if (ans.status > 0) {
        buf out = BUF_INIT(HEAD_MAX * 2);
        buf_printf(&out, "HTTP/1.1 %ld %s\r\n", ans.status, reason(ans.status));
        if (ans.headers.len)
            buf_append(&out, ans.headers.data, ans.headers.len);
        buf_printf(&out, "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                   ans.body_len + (ans.cut ? 1 : 0));
        bool sent = out.err == HEW_OK && send_all(fd, out.data, out.len);
        size_t at = 0;
        for (size_t i = 0; sent && ans.pieces && i < ans.npieces && at < ans.body_len; i++) {
            size_t n = (size_t)ans.pieces[i][1];
            if (n > ans.body_len - at)
                n = ans.body_len - at;
            sent = wait_until(lb, start, ans.pieces[i][0]) && send_all(fd, ans.body + at, n);
            at += n;
        }
        if (sent && at < ans.body_len)
            send_all(fd, ans.body + at, ans.body_len - at);
        buf_release(&out);
    }
    buf_release(&ans.headers);
done:
    buf_release(&in);
}

static void *accept_main(void *arg)
{
    loopback *lb = arg;
    for (;;) {
        struct pollfd p[2] = { { lb->fd, POLLIN, 0 }, { lb->wake[0], POLLIN, 0 } };
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p[1].revents & POLLIN))
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        int c = accept(lb->fd, NULL, NULL);
        if (c < 0)
            continue;
        serve(lb, c);
        shutdown(c, SHUT_WR);
        close(c);
    }
    return NULL;
}

hew_code loopback_start(loopback_fn fn, void *ud, loopback **out, hew_err *err)
{
    *out = NULL;
    loopback *lb = calloc(1, sizeof *lb);
    if (!lb)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    lb->fn = fn;
    lb->ud = ud;
    lb->wake[0] = lb->wake[1] = -1;
    lb->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* 127.0.0.1 and nothing else */
    a.sin_port = 0;
    socklen_t alen = sizeof a;
    if (lb->fd < 0 || bind(lb->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(lb->fd, 16) != 0 || getsockname(lb->fd, (struct sockaddr *)&a, &alen) != 0 ||
        pipe2(lb->wake, O_CLOEXEC) != 0) {
        int e = errno;
        if (lb->fd >= 0)
            close(lb->fd);
        if (lb->wake[0] >= 0) {
            close(lb->wake[0]);
            close(lb->wake[1]);
        }
        free(lb);
        return hew_err_set(err, HEW_E_NET, "cannot listen on 127.0.0.1 for the replay: %s",
                           strerror(e));
    }
    lb->port = ntohs(a.sin_port);
    if (pthread_create(&lb->thread, NULL, accept_main, lb) != 0) {
        close(lb->fd);
        close(lb->wake[0]);
        close(lb->wake[1]);
        free(lb);
        return hew_err_set(err, HEW_E_NOMEM, "cannot start the replay server's thread");
    }
    *out = lb;
    return HEW_OK;
}

void loopback_stop(loopback *lb)
{
    if (!lb)
        return;
    ssize_t w;
    do
        w = write(lb->wake[1], "x", 1);
    while (w < 0 && errno == EINTR);
    pthread_join(lb->thread, NULL);
    close(lb->fd);
    close(lb->wake[0]);
    close(lb->wake[1]);
    free(lb);
}
