/* Tests for the MCP HTTP transports (mcp/transport_http.c) through the transport
 * interface, with raw JSON-RPC: against the real MCP "everything" server (Streamable HTTP,
 * HTTP+SSE, and auto mode against both), and against a tiny local HTTP server of our own
 * for what a real server will not do on demand: an HTTP 500, a refused connection, a GET
 * stream answered 405, a batch, noise, a stream that breaks and is resumed with
 * Last-Event-ID, an expired session, an endpoint on another site (the URL arithmetic
 * itself is tested in net_url.c). The real servers come from scripts/install-deps. */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "mcpsrv.h"
#include "mcp/transport.h"
#include "tools/proc.h"


/* ---- what the transport handed back ------------------------------------------------------ */

typedef struct collector {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    json_t *messages;   /* every message, parsed, in arrival order */
    int bad_messages;   /* not NUL-terminated or not JSON */
    int noise;
    char noise_text[256];
    int closed;
    char why[1024];
    int after_closed;   /* callbacks after on_closed */
    bool owner_closed;  /* close() has returned */
    int after_close;    /* callbacks after close() returned */
} collector;

static void collector_init(collector *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cond, NULL);
    c->messages = json_array();
}

static void collector_release(collector *c)
{
    json_decref(c->messages);
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->mu);
}

static void note_callback_locked(collector *c)
{
    if (c->owner_closed)
        c->after_close++;
    if (c->closed)
        c->after_closed++;
}

static void on_message(void *ud, const char *json, size_t len)
{
    collector *c = ud;
    pthread_mutex_lock(&c->mu);
    note_callback_locked(c);
    json_t *m = json[len] == '\0' ? json_loadb(json, len, 0, NULL) : NULL;
    if (m)
        json_array_append_new(c->messages, m);
    else
        c->bad_messages++;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
}

static void on_noise(void *ud, int stream, const char *text, size_t len)
{
    collector *c = ud;
    (void)stream;
    pthread_mutex_lock(&c->mu);
    note_callback_locked(c);
    c->noise++;
    snprintf(c->noise_text, sizeof c->noise_text, "%.*s", (int)(len > 200 ? 200 : len), text);
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
}

static void on_closed(void *ud, const char *why)
{
    collector *c = ud;
    pthread_mutex_lock(&c->mu);
    note_callback_locked(c);
    c->closed++;
    snprintf(c->why, sizeof c->why, "%s", why);
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
}

static mcp_sink sink_of(collector *c)
{
    mcp_sink s = { on_message, on_noise, on_closed, c };
    return s;
}

static bool wait_locked(collector *c, long deadline)
{
    long left = deadline - test_now_ms();
    if (left <= 0)
        return false;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += left / 1000;
    ts.tv_nsec += (left % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&c->cond, &c->mu, &ts);
    return true;
}

static bool is_answer_to(const json_t *m, const json_t *id)
{
    return !json_object_get(m, "method") && json_equal(json_object_get(m, "id"), (json_t *)id) &&
           (json_object_get(m, "result") || json_object_get(m, "error"));
}

/* The answer to id (a new reference) and its place in the arrival order, or NULL after
 * timeout_ms. */
static json_t *wait_answer_id(collector *c, json_t *id, long timeout_ms, size_t *index)
{
    long deadline = test_now_ms() + timeout_ms;
    json_t *found = NULL;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        size_t i;
        json_t *m;
        json_array_foreach(c->messages, i, m)
        {
            if (is_answer_to(m, id)) {
                found = json_incref(m);
                if (index)
                    *index = i;
                break;
            }
        }
        if (found || !wait_locked(c, deadline))
            break;
    }
    pthread_mutex_unlock(&c->mu);
    json_decref(id);
    return found;
}

static json_t *wait_answer(collector *c, long id, long timeout_ms)
{
    return wait_answer_id(c, json_integer(id), timeout_ms, NULL);
}

static int count_method(collector *c, const char *method, size_t before)
{
    int n = 0;
    pthread_mutex_lock(&c->mu);
    size_t i;
    json_t *m;
    json_array_foreach(c->messages, i, m)
    {
        const char *got = json_string_value(json_object_get(m, "method"));
        if (i < before && got && strcmp(got, method) == 0)
            n++;
    }
    pthread_mutex_unlock(&c->mu);
    return n;
}

static bool wait_closed(collector *c, long timeout_ms)
{
    long deadline = test_now_ms() + timeout_ms;
    pthread_mutex_lock(&c->mu);
    while (!c->closed && wait_locked(c, deadline))
        ;
    bool closed = c->closed > 0;
    pthread_mutex_unlock(&c->mu);
    return closed;
}

static void close_transport(mcp_transport *t, collector *c)
{
    t->close(t);
    pthread_mutex_lock(&c->mu);
    c->owner_closed = true;
    pthread_mutex_unlock(&c->mu);
}

/* Send {"jsonrpc":"2.0","id":id,"method":method,"params":params} (params stolen). */
static hew_code send_request(mcp_transport *t, long id, const char *method, json_t *params)
{
    json_t *m = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)id, "method",
                          method);
    if (params)
        json_object_set_new(m, "params", params);
    char *text = json_dumps(m, JSON_COMPACT);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = t->send(t, text, strlen(text), &err);
    if (rc != HEW_OK)
        fprintf(stderr, "send %s: %s\n", method, err.msg);
    free(text);
    json_decref(m);
    return rc;
}

static hew_code send_notification(mcp_transport *t, const char *method)
{
    char text[256];
    snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\"}", method);
    return t->send(t, text, strlen(text), NULL);
}

static json_t *tool_call(const char *name, json_t *args, json_t *meta)
{
    json_t *p = json_pack("{s:s, s:o}", "name", name, "arguments", args);
    if (meta)
        json_object_set_new(p, "_meta", meta);
    return p;
}

/* The text of the first content item of a tools/call result, or "". */
static const char *first_text(const json_t *answer)
{
    const char *s = json_string_value(
        json_object_get(json_array_get(json_object_get(json_object_get(answer, "result"),
                                                       "content"),
                                       0),
                        "text"));
    return s ? s : "";
}


static mcp_transport *open_transport(const char *url, int legacy_sse, collector *c)
{
    static const char *const headers[] = { "X-Hew-Test: yes", NULL };
    mcp_http_opts o = { url, headers, legacy_sse, 5000 };
    mcp_sink sink = sink_of(c);
    mcp_transport *t = NULL;
    hew_err err = HEW_ERR_INIT;
    if (mcp_http_open(&o, &sink, &t, &err) != HEW_OK)
        check_fail(__FILE__, __LINE__, "mcp_http_open(%s): %s", url, err.msg);
    return t;
}

static bool initialize(mcp_transport *t, collector *c)
{
    json_t *params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", "2025-06-18",
                               "capabilities", "clientInfo", "name", "hew", "version", "test");
    if (send_request(t, 1, "initialize", params) != HEW_OK)
        return false;
    json_t *answer = wait_answer(c, 1, 10000);
    bool ok = answer && json_is_object(json_object_get(
                            json_object_get(answer, "result"), "serverInfo"));
    if (!ok)
        check_fail(__FILE__, __LINE__, "initialize got no serverInfo");
    const char *version = json_string_value(
        json_object_get(json_object_get(answer, "result"), "protocolVersion"));
    t->set_protocol_version(t, version ? version : "2025-06-18");
    json_decref(answer);
    return ok && send_notification(t, "notifications/initialized") == HEW_OK;
}

/* The whole conversation every transport must carry: listing, calling, progress before the
 * answer, an unknown tool, several requests at once. */
static void exercise(mcp_transport *t, collector *c)
{
    REQUIRE(initialize(t, c));

    REQUIRE(send_request(t, 2, "tools/list", NULL) == HEW_OK);
    json_t *list = wait_answer(c, 2, 10000);
    REQUIRE(list);
    bool has_echo = false;
    size_t i;
    json_t *tool;
    json_array_foreach(json_object_get(json_object_get(list, "result"), "tools"), i, tool)
    {
        const char *name = json_string_value(json_object_get(tool, "name"));
        has_echo = has_echo || (name && strcmp(name, "echo") == 0);
    }
    CHECK(has_echo);
    json_decref(list);

    REQUIRE(send_request(t, 3, "tools/call",
                         tool_call("echo", json_pack("{s:s}", "message", "hi"), NULL)) == HEW_OK);
    json_t *echo = wait_answer(c, 3, 10000);
    REQUIRE(echo);
    CHECK(strstr(first_text(echo), "hi") != NULL);
    json_decref(echo);

    REQUIRE(send_request(t, 4, "tools/call",
                         tool_call("trigger-long-running-operation",
                                   json_pack("{s:f, s:i}", "duration", 0.6, "steps", 3),
                                   json_pack("{s:i}", "progressToken", 1))) == HEW_OK);
    size_t at = 0;
    json_t *done = wait_answer_id(c, json_integer(4), 10000, &at);
    REQUIRE(done);
    CHECK(strstr(first_text(done), "completed") != NULL);
    CHECK_INT(count_method(c, "notifications/progress", at), 3);
    json_decref(done);

    REQUIRE(send_request(t, 5, "tools/call",
                         tool_call("no-such-tool", json_object(), NULL)) == HEW_OK);
    json_t *unknown = wait_answer(c, 5, 10000);
    REQUIRE(unknown);
    CHECK(json_object_get(unknown, "error") ||
          json_is_true(json_object_get(json_object_get(unknown, "result"), "isError")));
    json_decref(unknown);

    /* A slow call and five quick ones at once: the quick ones are not held up (they would
     * take the slow call's 4 s if they queued behind it; the margin is for loaded CI). */
    REQUIRE(send_request(t, 9, "tools/call",
                         tool_call("trigger-long-running-operation",
                                   json_pack("{s:f, s:i}", "duration", 4.0, "steps", 1),
                                   NULL)) == HEW_OK);
    long started = test_now_ms();
    for (long id = 10; id < 15; id++) {
        char word[32];
        snprintf(word, sizeof word, "c%ld", id);
        REQUIRE(send_request(t, id, "tools/call",
                             tool_call("echo", json_pack("{s:s}", "message", word), NULL)) ==
                HEW_OK);
    }
    for (long id = 10; id < 15; id++) {
        char word[32];
        snprintf(word, sizeof word, "c%ld", id);
        json_t *a = wait_answer(c, id, 10000);
        CHECK(a && strstr(first_text(a), word) != NULL);
        json_decref(a);
    }
    long quick = test_now_ms() - started;
    json_t *slow = wait_answer(c, 9, 10000);
    CHECK(slow != NULL);
    json_decref(slow);
    fprintf(stderr, "five concurrent calls answered in %ld ms next to a 4 s one\n", quick);
    CHECK(quick < 3900);

    pthread_mutex_lock(&c->mu);
    CHECK_INT(c->closed, 0);
    CHECK_INT(c->bad_messages, 0);
    pthread_mutex_unlock(&c->mu);
}

/* close() while a call is in flight returns promptly, and nothing is called after it. */
static void close_promptly(mcp_transport *t, collector *c)
{
    REQUIRE(send_request(t, 30, "tools/call",
                         tool_call("trigger-long-running-operation",
                                   json_pack("{s:i, s:i}", "duration", 30, "steps", 30),
                                   json_pack("{s:i}", "progressToken", 30))) == HEW_OK);
    test_sleep_ms(300);
    long started = test_now_ms();
    close_transport(t, c);
    long took = test_now_ms() - started;
    fprintf(stderr, "close() took %ld ms with a call in flight\n", took);
    CHECK(took < 10000); /* not the call's 30 s */
    test_sleep_ms(200);
    pthread_mutex_lock(&c->mu);
    CHECK_INT(c->after_close, 0);
    CHECK_INT(c->closed, 0); /* not called for a close the owner asked */
    pthread_mutex_unlock(&c->mu);
}

static void test_streamable_and_auto_against_streamable_server(void)
{
    node_server s;
    if (server_start(&s, "streamableHttp") != 0)
        return;
    char url[128];
    snprintf(url, sizeof url, "%s/mcp", s.base);

    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 0, &c);
    if (t) {
        exercise(t, &c);
        close_promptly(t, &c);
        CHECK(server_output_has(&s, "Received session termination request", 3000));
    }
    collector_release(&c);

    /* Auto mode stays on Streamable HTTP when the server speaks it. */
    collector_init(&c);
    t = open_transport(url, 2, &c);
    if (t) {
        exercise(t, &c);
        close_transport(t, &c);
    }
    pthread_mutex_lock(&s.mu);
    CHECK(s.output.data && strstr(s.output.data, "Bad Request") == NULL);
    pthread_mutex_unlock(&s.mu);
    collector_release(&c);
    server_stop(&s);
}

static void test_legacy_and_auto_against_sse_server(void)
{
    node_server s;
    if (server_start(&s, "sse") != 0)
        return;
    char url[128];
    snprintf(url, sizeof url, "%s/sse", s.base);

    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 1, &c);
    if (t) {
        exercise(t, &c);
        close_promptly(t, &c);
    }
    collector_release(&c);

    /* Auto mode: POST /sse is refused (404), so it falls back and re-sends initialize. */
    collector_init(&c);
    t = open_transport(url, 2, &c);
    if (t) {
        exercise(t, &c);
        close_transport(t, &c);
    }
    collector_release(&c);
    server_stop(&s);
}

/* ---- a tiny HTTP server of our own ------------------------------------------------------- */

typedef struct fake_server fake_server;
typedef void (*fake_handler)(fake_server *fs, int fd, const json_t *req);

struct fake_server {
    int fd;
    int port;
    char base[64];
    pthread_t accept_thread;
    atomic_bool stop;
    pthread_mutex_t mu;
    json_t *requests; /* [{method, path, headers{lowercase name: value}, body}] */
    pthread_t conns[256];
    size_t n_conns;
    fake_handler handler;
};

typedef struct fake_conn {
    fake_server *fs;
    int fd;
} fake_conn;

static void fake_write(int fd, const char *text)
{
    size_t n = strlen(text);
    while (n > 0) {
        ssize_t w = send(fd, text, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        text += w;
        n -= (size_t)w;
    }
}

static void fake_reply(int fd, int status, const char *reason, const char *type,
                       const char *extra, const char *body)
{
    char head[1024];
    snprintf(head, sizeof head,
             "HTTP/1.1 %d %s\r\n%s%s%sContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
             status, reason, type ? "Content-Type: " : "", type ? type : "", type ? "\r\n" : "",
             body ? strlen(body) : 0, extra ? extra : "");
    fake_write(fd, head);
    if (body)
        fake_write(fd, body);
}

static void fake_reply_json(int fd, const char *extra, json_t *doc)
{
    char *text = json_dumps(doc, JSON_COMPACT);
    fake_reply(fd, 200, "OK", "application/json", extra, text);
    free(text);
    json_decref(doc);
}

/* An event stream without length: it ends when we close the connection. */
static void fake_stream_start(int fd)
{
    fake_write(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                   "Cache-Control: no-cache\r\nConnection: close\r\n\r\n");
}

static void fake_event(int fd, const char *id, json_t *doc)
{
    char *text = json_dumps(doc, JSON_COMPACT);
    char head[128];
    snprintf(head, sizeof head, "%s%s%sevent: message\ndata: ", id ? "id: " : "", id ? id : "",
             id ? "\n" : "");
    fake_write(fd, head);
    fake_write(fd, text);
    fake_write(fd, "\n\n");
    free(text);
    json_decref(doc);
}

/* Keep the connection open until the client goes away or the server stops. */
static void fake_hold(fake_server *fs, int fd)
{
    while (!atomic_load(&fs->stop)) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 50) > 0) {
            char b[256];
            if (recv(fd, b, sizeof b, 0) <= 0)
                return;
        }
    }
}

static json_t *fake_read_request(int fd)
{
    char data[65536];
    size_t n = 0;
    char *end = NULL;
    while (!end && n < sizeof data - 1) {
        ssize_t r = recv(fd, data + n, sizeof data - 1 - n, 0);
        if (r <= 0)
            return NULL;
        n += (size_t)r;
        data[n] = '\0';
        end = strstr(data, "\r\n\r\n");
    }
    if (!end)
        return NULL;
    char method[16] = "", path[512] = "";
    if (sscanf(data, "%15s %511s", method, path) != 2)
        return NULL;
    json_t *headers = json_object();
    long content_length = 0;
    for (char *line = strstr(data, "\r\n") + 2; line < end;) {
        char *eol = strstr(line, "\r\n");
        char *colon = memchr(line, ':', (size_t)(eol - line));
        if (colon) {
            char name[128];
            size_t nl = (size_t)(colon - line) < sizeof name - 1 ? (size_t)(colon - line)
                                                                 : sizeof name - 1;
            for (size_t i = 0; i < nl; i++)
                name[i] = (char)((line[i] >= 'A' && line[i] <= 'Z') ? line[i] + 32 : line[i]);
            name[nl] = '\0';
            const char *v = colon + 1;
            while (*v == ' ')
                v++;
            json_object_set_new(headers, name, json_stringn(v, (size_t)(eol - v)));
            if (strcmp(name, "content-length") == 0)
                content_length = strtol(v, NULL, 10);
        }
        line = eol + 2;
    }
    size_t head_len = (size_t)(end + 4 - data);
    buf body = BUF_INIT(1 << 20);
    buf_append(&body, data + head_len, n - head_len);
    while ((long)body.len < content_length) {
        char more[4096];
        ssize_t r = recv(fd, more, sizeof more, 0);
        if (r <= 0)
            break;
        buf_append(&body, more, (size_t)r);
    }
    json_t *req = json_pack("{s:s, s:s, s:o, s:s%}", "method", method, "path", path, "headers",
                            headers, "body", body.data ? body.data : "", body.len);
    buf_release(&body);
    return req;
}

static void *fake_serve(void *ud)
{
    fake_conn *fc = ud;
    json_t *req = fake_read_request(fc->fd);
    if (req) {
        pthread_mutex_lock(&fc->fs->mu);
        json_array_append(fc->fs->requests, req);
        pthread_mutex_unlock(&fc->fs->mu);
        fc->fs->handler(fc->fs, fc->fd, req);
        json_decref(req);
    }
    shutdown(fc->fd, SHUT_RDWR);
    close(fc->fd);
    free(fc);
    return NULL;
}

static void *fake_accept(void *ud)
{
    fake_server *fs = ud;
    while (!atomic_load(&fs->stop)) {
        struct pollfd p = { fs->fd, POLLIN, 0 };
        if (poll(&p, 1, 50) <= 0)
            continue;
        int fd = accept(fs->fd, NULL, NULL);
        if (fd < 0)
            continue;
        fake_conn *fc = malloc(sizeof *fc);
        fc->fs = fs;
        fc->fd = fd;
        pthread_mutex_lock(&fs->mu);
        bool room = fs->n_conns < sizeof fs->conns / sizeof fs->conns[0];
        if (room && pthread_create(&fs->conns[fs->n_conns], NULL, fake_serve, fc) == 0)
            fs->n_conns++;
        else {
            close(fd);
            free(fc);
        }
        pthread_mutex_unlock(&fs->mu);
    }
    return NULL;
}

static int fake_start(fake_server *fs, fake_handler handler)
{
    memset(fs, 0, sizeof *fs);
    fs->handler = handler;
    fs->requests = json_array();
    pthread_mutex_init(&fs->mu, NULL);
    fs->fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fs->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(fs->fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fs->fd, 64) != 0 ||
        getsockname(fs->fd, (struct sockaddr *)&addr, &len) != 0) {
        close(fs->fd);
        return -1;
    }
    fs->port = ntohs(addr.sin_port);
    snprintf(fs->base, sizeof fs->base, "http://127.0.0.1:%d", fs->port);
    pthread_create(&fs->accept_thread, NULL, fake_accept, fs);
    return 0;
}

static void fake_stop(fake_server *fs)
{
    atomic_store(&fs->stop, true);
    pthread_join(fs->accept_thread, NULL);
    for (size_t i = 0; i < fs->n_conns; i++)
        pthread_join(fs->conns[i], NULL);
    close(fs->fd);
    json_decref(fs->requests);
    pthread_mutex_destroy(&fs->mu);
}

/* How many requests had this method (and, when header is set, carried that header with
 * that value; value NULL: without the header). */
static int fake_count(fake_server *fs, const char *method, const char *header,
                      const char *value)
{
    int n = 0;
    pthread_mutex_lock(&fs->mu);
    size_t i;
    json_t *r;
    json_array_foreach(fs->requests, i, r)
    {
        if (strcmp(json_string_value(json_object_get(r, "method")), method) != 0)
            continue;
        const char *got =
            header ? json_string_value(json_object_get(json_object_get(r, "headers"), header))
                   : NULL;
        if (!header || (value ? got && strcmp(got, value) == 0 : got == NULL))
            n++;
    }
    pthread_mutex_unlock(&fs->mu);
    return n;
}

/* The headers of the first POST whose body has this method (a new reference). */
static json_t *fake_headers_of(fake_server *fs, const char *rpc_method)
{
    json_t *found = NULL;
    pthread_mutex_lock(&fs->mu);
    size_t i;
    json_t *r;
    json_array_foreach(fs->requests, i, r)
    {
        json_t *body = json_loads(json_string_value(json_object_get(r, "body")), 0, NULL);
        const char *m = json_string_value(json_object_get(body, "method"));
        if (!found && m && strcmp(m, rpc_method) == 0)
            found = json_incref(json_object_get(r, "headers"));
        json_decref(body);
    }
    pthread_mutex_unlock(&fs->mu);
    return found;
}

static json_t *result_for(const json_t *id, json_t *result)
{
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result);
}

/* A Streamable HTTP server that does, for each tools/call name, one thing a real server
 * will not do on demand. */
static void fake_mcp(fake_server *fs, int fd, const json_t *req)
{
    const char *method = json_string_value(json_object_get(req, "method"));
    const json_t *headers = json_object_get(req, "headers");
    if (strcmp(method, "GET") == 0) {
        const char *last = json_string_value(json_object_get(headers, "last-event-id"));
        if (!last) {
            fake_reply(fd, 405, "Method Not Allowed", NULL, "Allow: POST, DELETE\r\n", NULL);
        } else if (strcmp(last, "ev1") == 0) {
            json_t *seven = json_integer(7);
            fake_stream_start(fd);
            fake_event(fd, "ev2", result_for(seven, json_pack("{s:b}", "resumed", 1)));
            json_decref(seven);
        } else {
            fake_reply(fd, 400, "Bad Request", NULL, NULL, "unknown event id");
        }
        return;
    }
    if (strcmp(method, "DELETE") == 0) {
        fake_reply(fd, 200, "OK", NULL, NULL, NULL);
        return;
    }
    json_t *msg = json_loads(json_string_value(json_object_get(req, "body")), 0, NULL);
    const char *rpc = json_string_value(json_object_get(msg, "method"));
    json_t *id = json_object_get(msg, "id");
    const char *tool =
        json_string_value(json_object_get(json_object_get(msg, "params"), "name"));
    if (!rpc || !id) {
        fake_reply(fd, 202, "Accepted", NULL, NULL, NULL);
    } else if (strcmp(rpc, "initialize") == 0) {
        fake_reply_json(fd, "Mcp-Session-Id: sess-1\r\n",
                        result_for(id, json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion",
                                                 "2025-06-18", "capabilities", "serverInfo",
                                                 "name", "fake", "version", "1")));
    } else if (strcmp(rpc, "tools/list") == 0) {
        json_t *batch = json_pack("[{s:s, s:s, s:{s:s, s:s}}]", "jsonrpc", "2.0", "method",
                                  "notifications/message", "params", "level", "info", "data",
                                  "listing");
        json_array_append_new(batch, result_for(id, json_pack("{s:[]}", "tools")));
        fake_reply_json(fd, NULL, batch);
    } else if (tool && strcmp(tool, "fail") == 0) {
        fake_reply(fd, 500, "Internal Server Error", "text/plain", NULL,
                   "boom: the database is on fire\n");
    } else if (tool && strcmp(tool, "break") == 0) {
        /* One event with an id, then the connection ends before the response. */
        fake_stream_start(fd);
        fake_event(fd, "ev1", json_pack("{s:s, s:s, s:{s:i, s:i}}", "jsonrpc", "2.0", "method",
                                        "notifications/progress", "params", "progressToken", 7,
                                        "progress", 1));
    } else if (tool && strcmp(tool, "noise") == 0) {
        fake_stream_start(fd);
        fake_write(fd, ": a comment\n\ndata: this is not json\n\n");
        fake_event(fd, NULL, result_for(id, json_pack("{s:b}", "quiet", 0)));
    } else if (tool && strcmp(tool, "expire") == 0) {
        fake_reply(fd, 404, "Not Found", "application/json", NULL,
                   "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32001,\"message\":\"Session not "
                   "found\"},\"id\":null}");
    } else if (tool && strcmp(tool, "hang") == 0) {
        fake_stream_start(fd);
        fake_hold(fs, fd);
    } else {
        fake_reply_json(fd, NULL, result_for(id, json_pack("{s:[]}", "content")));
    }
    json_decref(msg);
}

static void test_fake_streamable_paths(void)
{
    fake_server fs;
    REQUIRE(fake_start(&fs, fake_mcp) == 0);
    char url[128];
    snprintf(url, sizeof url, "%s/mcp", fs.base);
    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 0, &c);
    if (!t) {
        fake_stop(&fs);
        collector_release(&c);
        return;
    }
    CHECK(initialize(t, &c));

    /* A JSON batch answer: both messages handed over. */
    CHECK_INT(send_request(t, 2, "tools/list", NULL), HEW_OK);
    json_t *a = wait_answer(&c, 2, 5000);
    CHECK(a != NULL);
    json_decref(a);
    CHECK_INT(count_method(&c, "notifications/message", 1000), 1);

    /* HTTP 500: an error answer for that id (a string id), with the status and the body. */
    json_t *m = json_pack("{s:s, s:s, s:s, s:{s:s, s:{}}}", "jsonrpc", "2.0", "id", "req-A",
                          "method", "tools/call", "params", "name", "fail", "arguments");
    char *text = json_dumps(m, JSON_COMPACT);
    CHECK_INT(t->send(t, text, strlen(text), NULL), HEW_OK);
    free(text);
    json_decref(m);
    a = wait_answer_id(&c, json_string("req-A"), 5000, NULL);
    REQUIRE(a);
    json_t *error = json_object_get(a, "error");
    CHECK_INT(json_integer_value(json_object_get(error, "code")), -32000);
    const char *message = json_string_value(json_object_get(error, "message"));
    CHECK(message && strstr(message, "500") && strstr(message, "boom: the database is on fire"));
    CHECK_INT(json_integer_value(json_object_get(json_object_get(error, "data"), "httpStatus")),
              500);
    json_decref(a);

    /* A stream that ends before the response: resumed with Last-Event-ID. */
    CHECK_INT(send_request(t, 7, "tools/call", tool_call("break", json_object(), NULL)), HEW_OK);
    size_t at = 0;
    a = wait_answer_id(&c, json_integer(7), 8000, &at);
    REQUIRE(a);
    CHECK(json_is_true(json_object_get(json_object_get(a, "result"), "resumed")));
    CHECK_INT(count_method(&c, "notifications/progress", at), 1);
    json_decref(a);
    CHECK_INT(fake_count(&fs, "GET", "last-event-id", "ev1"), 1);

    /* Non-JSON data is noise, and the answer after it still comes. */
    CHECK_INT(send_request(t, 8, "tools/call", tool_call("noise", json_object(), NULL)), HEW_OK);
    a = wait_answer(&c, 8, 5000);
    CHECK(a != NULL);
    json_decref(a);
    pthread_mutex_lock(&c.mu);
    CHECK_INT(c.noise, 1);
    CHECK_STR(c.noise_text, "this is not json");
    pthread_mutex_unlock(&c.mu);

    /* What went with the requests. */
    json_t *h = fake_headers_of(&fs, "initialize");
    REQUIRE(h);
    CHECK(json_object_get(h, "mcp-session-id") == NULL);
    CHECK(json_object_get(h, "mcp-protocol-version") == NULL);
    CHECK_STR(json_string_value(json_object_get(h, "content-type")), "application/json");
    const char *accept = json_string_value(json_object_get(h, "accept"));
    CHECK(accept && strstr(accept, "application/json") && strstr(accept, "text/event-stream"));
    CHECK_STR(json_string_value(json_object_get(h, "x-hew-test")), "yes");
    json_decref(h);
    h = fake_headers_of(&fs, "tools/list");
    REQUIRE(h);
    CHECK_STR(json_string_value(json_object_get(h, "mcp-session-id")), "sess-1");
    CHECK_STR(json_string_value(json_object_get(h, "mcp-protocol-version")), "2025-06-18");
    json_decref(h);

    /* The GET stream was tried once after initialized, answered 405, and not retried. */
    for (int i = 0; i < 200 && fake_count(&fs, "GET", "last-event-id", NULL) < 1; i++)
        test_sleep_ms(50);
    test_sleep_ms(1000);
    CHECK_INT(fake_count(&fs, "GET", "last-event-id", NULL), 1);
    CHECK_INT(fake_count(&fs, "GET", "mcp-session-id", "sess-1"), 2);
    pthread_mutex_lock(&c.mu);
    CHECK_INT(c.closed, 0);
    pthread_mutex_unlock(&c.mu);

    /* close() aborts a stream that never ends and sends DELETE with the session id. */
    CHECK_INT(send_request(t, 20, "tools/call", tool_call("hang", json_object(), NULL)), HEW_OK);
    test_sleep_ms(200);
    long started = test_now_ms();
    close_transport(t, &c);
    CHECK(test_now_ms() - started < 10000); /* the stream never ends: not forever */
    CHECK_INT(fake_count(&fs, "DELETE", "mcp-session-id", "sess-1"), 1);
    pthread_mutex_lock(&c.mu);
    CHECK_INT(c.after_close, 0);
    CHECK_INT(c.closed, 0);
    CHECK_INT(c.bad_messages, 0);
    pthread_mutex_unlock(&c.mu);
    collector_release(&c);
    fake_stop(&fs);
}

static void test_fake_session_expired(void)
{
    fake_server fs;
    REQUIRE(fake_start(&fs, fake_mcp) == 0);
    char url[128];
    snprintf(url, sizeof url, "%s/mcp", fs.base);
    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 0, &c);
    if (!t) {
        fake_stop(&fs);
        collector_release(&c);
        return;
    }
    CHECK(initialize(t, &c));
    CHECK_INT(send_request(t, 2, "tools/call", tool_call("expire", json_object(), NULL)), HEW_OK);
    CHECK(wait_closed(&c, 5000));
    pthread_mutex_lock(&c.mu);
    CHECK(strstr(c.why, "ended the session") != NULL);
    CHECK_INT(c.closed, 1);
    pthread_mutex_unlock(&c.mu);
    hew_err err = HEW_ERR_INIT;
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}";
    CHECK_INT(t->send(t, ping, strlen(ping), &err), HEW_E_NET);
    close_transport(t, &c);
    CHECK_INT(fake_count(&fs, "DELETE", NULL, NULL), 0); /* the session is gone already */
    pthread_mutex_lock(&c.mu);
    CHECK_INT(c.after_closed, 0);
    CHECK_INT(c.closed, 1);
    pthread_mutex_unlock(&c.mu);
    collector_release(&c);
    fake_stop(&fs);
}

static void test_connection_refused(void)
{
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", free_port());
    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 0, &c);
    REQUIRE(t);
    CHECK_INT(send_request(t, 1, "initialize", json_object()), HEW_OK);
    json_t *a = wait_answer(&c, 1, 5000);
    REQUIRE(a);
    json_t *error = json_object_get(a, "error");
    CHECK_INT(json_integer_value(json_object_get(error, "code")), -32000);
    const char *message = json_string_value(json_object_get(error, "message"));
    CHECK(message && strstr(message, "cannot connect"));
    json_decref(a);
    close_transport(t, &c);
    collector_release(&c);

    /* Auto mode: a refused connection decides nothing and still answers. */
    collector_init(&c);
    t = open_transport(url, 2, &c);
    REQUIRE(t);
    CHECK_INT(send_request(t, 1, "initialize", json_object()), HEW_OK);
    a = wait_answer(&c, 1, 5000);
    CHECK(a && json_object_get(a, "error"));
    json_decref(a);
    close_transport(t, &c);
    collector_release(&c);
}

static void fake_legacy_elsewhere(fake_server *fs, int fd, const json_t *req)
{
    (void)req;
    fake_stream_start(fd);
    fake_write(fd, "event: endpoint\ndata: http://elsewhere.example/messages\n\n");
    fake_hold(fs, fd);
}

static void test_legacy_endpoint_on_another_site_is_refused(void)
{
    fake_server fs;
    REQUIRE(fake_start(&fs, fake_legacy_elsewhere) == 0);
    char url[128];
    snprintf(url, sizeof url, "%s/sse", fs.base);
    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 1, &c);
    REQUIRE(t);
    CHECK(wait_closed(&c, 5000));
    pthread_mutex_lock(&c.mu);
    CHECK(strstr(c.why, "another site") != NULL);
    pthread_mutex_unlock(&c.mu);
    close_transport(t, &c);
    CHECK_INT(fake_count(&fs, "POST", NULL, NULL), 0);
    collector_release(&c);
    fake_stop(&fs);
}

/* HTTP+SSE: an endpoint, one message, then the server ends the stream. */
static void fake_legacy_short(fake_server *fs, int fd, const json_t *req)
{
    (void)fs;
    if (strcmp(json_string_value(json_object_get(req, "method")), "GET") != 0) {
        fake_reply(fd, 202, "Accepted", "text/plain", NULL, "Accepted");
        return;
    }
    fake_stream_start(fd);
    fake_write(fd, "event: endpoint\ndata: messages?session=9\n\n");
    fake_event(fd, NULL, json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method",
                                   "notifications/tools/list_changed"));
    test_sleep_ms(300);
}

static void test_legacy_stream_end_closes(void)
{
    fake_server fs;
    REQUIRE(fake_start(&fs, fake_legacy_short) == 0);
    char url[128];
    snprintf(url, sizeof url, "%s/mcp/sse", fs.base);
    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 1, &c);
    REQUIRE(t);
    CHECK_INT(send_notification(t, "notifications/initialized"), HEW_OK);
    CHECK(wait_closed(&c, 5000));
    pthread_mutex_lock(&c.mu);
    CHECK(strstr(c.why, "closed its event stream") != NULL);
    CHECK_INT(json_array_size(c.messages), 1);
    CHECK_INT(c.after_closed, 0);
    pthread_mutex_unlock(&c.mu);
    close_transport(t, &c);
    /* The notification went to the endpoint, resolved against the stream's URL. */
    pthread_mutex_lock(&fs.mu);
    bool posted = false;
    size_t i;
    json_t *r;
    json_array_foreach(fs.requests, i, r)
    {
        const char *path = json_string_value(json_object_get(r, "path"));
        posted = posted || strcmp(path, "/mcp/messages?session=9") == 0;
    }
    pthread_mutex_unlock(&fs.mu);
    CHECK(posted);
    collector_release(&c);
    fake_stop(&fs);
}

/* Auto mode where neither transport works: one on_closed that tells both. */
static void fake_refuse_all(fake_server *fs, int fd, const json_t *req)
{
    (void)fs;
    if (strcmp(json_string_value(json_object_get(req, "method")), "POST") == 0)
        fake_reply(fd, 405, "Method Not Allowed", "text/plain", NULL, "no POST here");
    else
        fake_reply(fd, 404, "Not Found", "text/plain", NULL, "no such stream");
}

static void test_auto_fallback_that_fails(void)
{
    fake_server fs;
    REQUIRE(fake_start(&fs, fake_refuse_all) == 0);
    char url[128];
    snprintf(url, sizeof url, "%s/mcp", fs.base);
    collector c;
    collector_init(&c);
    mcp_transport *t = open_transport(url, 2, &c);
    REQUIRE(t);
    CHECK_INT(send_request(t, 1, "initialize", json_object()), HEW_OK);
    CHECK(wait_closed(&c, 5000));
    pthread_mutex_lock(&c.mu);
    CHECK(strstr(c.why, "HTTP 404") && strstr(c.why, "no such stream") &&
          strstr(c.why, "HTTP 405"));
    pthread_mutex_unlock(&c.mu);
    close_transport(t, &c);
    CHECK_INT(fake_count(&fs, "POST", NULL, NULL), 1);
    CHECK_INT(fake_count(&fs, "GET", NULL, NULL), 1);
    collector_release(&c);
    fake_stop(&fs);
}

static void test_bad_options(void)
{
    collector c;
    collector_init(&c);
    mcp_sink sink = sink_of(&c);
    mcp_transport *t = NULL;
    hew_err err = HEW_ERR_INIT;
    mcp_http_opts o = { "ftp://example.com/x", NULL, 0, 0 };
    CHECK_INT(mcp_http_open(&o, &sink, &t, &err), HEW_E_INVALID);
    CHECK(t == NULL);
    static const char *const bad[] = { "X-Evil: a\r\nHost: b", NULL };
    mcp_http_opts o2 = { "http://127.0.0.1:1/mcp", bad, 0, 0 };
    CHECK_INT(mcp_http_open(&o2, &sink, &t, &err), HEW_E_INVALID);
    mcp_http_opts o3 = { "http://127.0.0.1:1/mcp", NULL, 0, 0 };
    REQUIRE(mcp_http_open(&o3, &sink, &t, &err) == HEW_OK);
    CHECK_INT(t->send(t, "not json", 8, &err), HEW_E_INVALID);
    t->close(t);
    collector_release(&c);
}

int main(void)
{
    RUN(test_bad_options);
    RUN(test_connection_refused);
    RUN(test_fake_streamable_paths);
    RUN(test_fake_session_expired);
    RUN(test_legacy_endpoint_on_another_site_is_refused);
    RUN(test_legacy_stream_end_closes);
    RUN(test_auto_fallback_that_fails);
    RUN(test_streamable_and_auto_against_streamable_server);
    RUN(test_legacy_and_auto_against_sse_server);
    return check_report();
}
