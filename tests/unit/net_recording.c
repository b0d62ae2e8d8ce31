/* Tests for the recording format (net/record.h writes, net/recording.h reads) and the
 * replay's loopback server (net/loopback.h), through hew's real HTTP client:
 *   - an exchange recorded through http_perform (request body, status, headers, raw body,
 *     timing) reads back byte for byte; the API key and a Bearer token never reach the
 *     folder, while the other headers stay readable;
 *   - a folder that already holds a recording is refused;
 *   - damaged recordings are refused with the file that is wrong: a cut body, a missing
 *     exchange before a present one, a description that is not JSON, another format,
 *     no session.json, no exchange at all;
 *   - the loopback server listens on 127.0.0.1 only, serves what the handler gives
 *     (status, headers, bytes), and a "cut" answer is a dropped connection to the client;
 *   - a paced answer (hew replay --pace) delivers exactly the body, the bytes its pieces do
 *     not cover last, and a stop cuts a paced wait short (the client sees a drop, and the
 *     test does not wait the ten minutes the piece asks for). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/redact.h"
#include "check.h"
#include "net/http.h"
#include "net/loopback.h"
#include "net/record.h"
#include "net/recording.h"
#include "tmpdir.h"

#define KEY "sk-ant-unit-DISTINCTIVE-0123456789abcdef"

/* ---- a loopback server answering with a fixed SSE body ---- */

struct served {
    char method[16];
    char target[256];
    char body[256];
    int cut;
    int paced;  /* 1: pieces at 0 and 20 ms; 2: the second piece ten minutes later */
};

static const long long short_pieces[][2] = { { 0, 5 }, { 20, 5 } };
static const long long long_pieces[][2] = { { 0, 5 }, { 600000, 5 } };

static const char sse[] = "event: a\ndata: {\"x\":1}\n\nevent: b\ndata: {\"y\":2}\n\n";

static void handler(void *ud, const loopback_request *rq, loopback_answer *ans)
{
    struct served *s = ud;
    snprintf(s->method, sizeof s->method, "%s", rq->method);
    snprintf(s->target, sizeof s->target, "%s", rq->target);
    snprintf(s->body, sizeof s->body, "%.*s", (int)rq->body_len, rq->body);
    ans->status = 200;
    buf_puts(&ans->headers, "Content-Type: text/event-stream\r\nX-Request-Id: req_1\r\n");
    ans->body = sse;
    ans->body_len = sizeof sse - 1;
    ans->cut = s->cut;
    if (s->paced) {
        ans->pieces = s->paced == 1 ? short_pieces : long_pieces;
        ans->npieces = 2;
    }
}

static char *path2(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static void put(const char *dir, const char *name, const char *text)
{
    char *p = path2(dir, name);
    CHECK(fs_write_atomic(p, text, strlen(text), 0600, NULL) == HEW_OK);
    free(p);
}

static bool folder_holds(const char *dir, const char *needle)
{
    const char *names[] = { "session.json", "0001.json", "0001.request", "0001.response", NULL };
    for (const char **n = names; *n; n++) {
        char *p = path2(dir, *n), *text = NULL;
        size_t len = 0;
        if (fs_read_file(p, 1 << 24, &text, &len, NULL) == HEW_OK &&
            memmem(text, len, needle, strlen(needle))) {
            free(text);
            free(p);
            return true;
        }
        free(text);
        free(p);
    }
    return false;
}

/* Record one exchange with the loopback server into dir. */
static void record_one(const char *dir, int port, struct served *s)
{
    net_record *r = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(net_record_open(dir, &r, &err) == HEW_OK);
    redact_secret_add(KEY);
    net_record_note_clock(r, 1764755000);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/messages", port);
    const char *headers[] = { "Content-Type: application/json", "x-api-key: " KEY,
                              "Authorization: Bearer " KEY, "anthropic-version: 2023-06-01",
                              NULL };
    const char body[] = "{\"model\":\"m\",\"messages\":[]}";
    http_request req = http_request_defaults();
    req.url = url;
    req.headers = headers;
    req.body = body;
    req.body_len = sizeof body - 1;
    req.record = r;
    buf got = BUF_INIT(1 << 20);
    http_response resp = HTTP_RESPONSE_INIT;
    CHECK(http_perform_collect(&req, &resp, &got, &err) == HEW_OK);
    CHECK_INT(resp.status, 200);
    CHECK_MEM(got.data, got.len, sse, sizeof sse - 1);
    CHECK_STR(s->method, "POST");
    CHECK_STR(s->target, "/v1/messages");
    CHECK_STR(s->body, body);
    http_response_release(&resp);
    buf_release(&got);
    const char *manifest = "{\"format\":1,\"task\":\"t\"}";
    CHECK(net_record_manifest(r, manifest, strlen(manifest), &err) == HEW_OK);
    CHECK(!net_record_failed(r));
    net_record_free(r);
}

static void round_trip(void)
{
    struct served s;
    memset(&s, 0, sizeof s);
    loopback *lb = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(loopback_start(handler, &s, &lb, &err) == HEW_OK);
    char *dir = tmpdir_make("recording");
    REQUIRE(dir);
    char *rec = path2(dir, "rec");
    record_one(rec, loopback_port(lb), &s);

    recording r;
    REQUIRE(recording_load(rec, &r, &err) == HEW_OK);
    REQUIRE(r.n == 1);
    rec_exchange *x = &r.x[0];
    CHECK_STR(x->method, "POST");
    CHECK(strstr(x->url, "/v1/messages") != NULL);
    CHECK_MEM(x->request, x->request_len, "{\"model\":\"m\",\"messages\":[]}", 27);
    CHECK_MEM(x->response, x->response_len, sse, sizeof sse - 1);
    CHECK_INT(x->status, 200);
    CHECK(x->ok);
    CHECK_INT(json_array_size(x->clock), 1);
    CHECK_INT(json_integer_value(json_array_get(x->clock, 0)), 1764755000);
    bool saw_type = false, saw_id = false;
    size_t i;
    json_t *h;
    json_array_foreach(x->headers, i, h) {
        saw_type |= strcmp(json_string_value(json_array_get(h, 0)), "content-type") == 0;
        saw_id |= strcmp(json_string_value(json_array_get(h, 1)), "req_1") == 0;
    }
    CHECK(saw_type && saw_id);
    json_t *timing = json_object_get(x->desc, "timing");
    CHECK(json_integer_value(json_object_get(timing, "headers_ms")) >= 0);
    CHECK(json_array_size(json_object_get(timing, "chunks")) >= 1);
    recording_release(&r);

    /* never the key; the headers that are not secret stay as they were */
    CHECK(!folder_holds(rec, "DISTINCTIVE"));
    CHECK(folder_holds(rec, "anthropic-version"));
    CHECK(folder_holds(rec, "[REDACTED]"));

    /* a folder with a recording is not written over */
    net_record *again = NULL;
    CHECK(net_record_open(rec, &again, &err) == HEW_E_INVALID);
    CHECK(strstr(err.msg, "already holds a recording") != NULL);
    CHECK(again == NULL);

    loopback_stop(lb);
    tmpdir_remove(dir);
    free(rec);
    free(dir);
}

static void refused(const char *dir, hew_code want, const char *needle)
{
    recording r;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = recording_load(dir, &r, &err);
    if (rc != want || !strstr(err.msg, needle))
        check_fail(__FILE__, __LINE__, "recording_load = %d (%s), want %d naming %s", (int)rc,
                   err.msg, (int)want, needle);
    check_count++;
    CHECK(r.n == 0 && r.x == NULL && r.manifest == NULL);
}

static void damaged(void)
{
    char *dir = tmpdir_make("recording-bad");
    REQUIRE(dir);
    refused(dir, HEW_E_NOTFOUND, "no session.json");
    put(dir, "session.json", "{\"format\":1,\"task\":\"t\"}");
    refused(dir, HEW_E_CORRUPT, "holds no exchange");
    const char desc[] =
        "{\"format\":1,\"n\":1,\"method\":\"POST\",\"url\":\"http://h/v1/messages\","
        "\"request\":{\"headers\":[],\"body_file\":\"0001.request\",\"body_bytes\":2},"
        "\"response\":{\"status\":200,\"headers\":[],\"body_file\":\"0001.response\","
        "\"body_bytes\":10},\"clock\":[],\"outcome\":\"ok\"}";
    put(dir, "0001.json", desc);
    put(dir, "0001.request", "{}");
    put(dir, "0001.response", "0123456789");
    recording r;
    REQUIRE(recording_load(dir, &r, NULL) == HEW_OK);
    CHECK_INT(r.n, 1);
    recording_release(&r);

    put(dir, "0001.response", "01234"); /* cut short, as a killed copy would be */
    refused(dir, HEW_E_CORRUPT, "0001.response: 5 bytes, but 0001.json says 10");
    put(dir, "0001.response", "0123456789");
    char *p = path2(dir, "0001.request");
    unlink(p);
    free(p);
    refused(dir, HEW_E_CORRUPT, "0001.request");
    put(dir, "0001.request", "{}");
    put(dir, "0003.json", desc); /* 0002 missing before it */
    refused(dir, HEW_E_CORRUPT, "0002.json: missing");
    put(dir, "0002.json", "{\"format\":1, cut");
    refused(dir, HEW_E_CORRUPT, "0002.json");
    p = path2(dir, "0002.json");
    unlink(p);
    free(p);
    p = path2(dir, "0003.json");
    unlink(p);
    free(p);
    put(dir, "session.json", "{\"format\":2}");
    refused(dir, HEW_E_INVALID, "reads format 1");
    tmpdir_remove(dir);
    free(dir);
    refused("/nonexistent/hew-recording", HEW_E_NOTFOUND, "is not a folder");
}

static void loopback_only_and_cut(void)
{
    struct served s;
    memset(&s, 0, sizeof s);
    s.cut = 1;
    loopback *lb = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(loopback_start(handler, &s, &lb, &err) == HEW_OK);
    /* bound to 127.0.0.1: the port is not open on another local address */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)loopback_port(lb));
    inet_pton(AF_INET, "127.0.0.2", &a.sin_addr);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) != 0);
    close(fd);

    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", loopback_port(lb));
    http_request req = http_request_defaults();
    req.url = url;
    req.body = "{}";
    req.body_len = 2;
    buf got = BUF_INIT(1 << 20);
    CHECK(http_perform_collect(&req, NULL, &got, &err) == HEW_E_NET);
    CHECK_MEM(got.data, got.len, sse, sizeof sse - 1);
    buf_release(&got);
    loopback_stop(lb);
}

static void paced_whole(void)
{
    struct served s;
    memset(&s, 0, sizeof s);
    s.paced = 1;
    loopback *lb = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(loopback_start(handler, &s, &lb, &err) == HEW_OK);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", loopback_port(lb));
    http_request req = http_request_defaults();
    req.url = url;
    buf got = BUF_INIT(1 << 20);
    CHECK(http_perform_collect(&req, NULL, &got, &err) == HEW_OK);
    CHECK_MEM(got.data, got.len, sse, sizeof sse - 1);
    buf_release(&got);
    loopback_stop(lb);
}

struct stalled_client {
    const char *url;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t got;
    hew_code rc;
};

static int stalled_body(void *ud, const char *bytes, size_t n)
{
    (void)bytes;
    struct stalled_client *c = ud;
    pthread_mutex_lock(&c->mu);
    c->got += n;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return 0;
}

static void *stalled_main(void *arg)
{
    struct stalled_client *c = arg;
    http_request req = http_request_defaults();
    req.url = c->url;
    http_sink sink = { NULL, stalled_body, c };
    c->rc = http_perform(&req, &sink, NULL, NULL);
    return NULL;
}

static void paced_stop(void)
{
    struct served s;
    memset(&s, 0, sizeof s);
    s.paced = 2;
    loopback *lb = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(loopback_start(handler, &s, &lb, &err) == HEW_OK);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", loopback_port(lb));
    struct stalled_client c = { url, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0,
                                HEW_OK };
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, stalled_main, &c) == 0);
    pthread_mutex_lock(&c.mu);
    while (c.got < 5) /* the first piece came; the second waits ten minutes */
        pthread_cond_wait(&c.cv, &c.mu);
    pthread_mutex_unlock(&c.mu);
    loopback_stop(lb); /* must not wait for the piece */
    pthread_join(th, NULL);
    CHECK_INT(c.got, 5);
    CHECK_INT(c.rc, HEW_E_NET);
}

int main(void)
{
    RUN(round_trip);
    RUN(damaged);
    RUN(loopback_only_and_cut);
    RUN(paced_whole);
    RUN(paced_stop);
    return check_report();
}
