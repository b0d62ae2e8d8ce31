/* Tests for net/http against the fake provider: libcurl loaded only when asked for (a
 * warm-up, once), status and headers, streaming delivery,
 * what was sent, error statuses as data, abort from another thread, idle timeout, overall
 * deadline, a connection dropped mid-body, a refused connection, a reader that stops.
 * The fake runs lenient ("lenient": true): these are transport tests that post small
 * hand-made bodies no real API would take. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fakeprov.h"
#include "net/curl_lib.h"
#include "net/http.h"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* What a test sink saw. */
struct seen {
    int responses;
    long status_at_response;
    int body_calls;
    int body_before_response;
    int stop_after_calls; /* 0 = never stop */
    buf body;
};

static int seen_response(void *ud, const http_response *resp)
{
    struct seen *s = ud;
    s->responses++;
    s->status_at_response = resp->status;
    return 0;
}

static int seen_body(void *ud, const char *bytes, size_t n)
{
    struct seen *s = ud;
    if (!s->responses)
        s->body_before_response = 1;
    s->body_calls++;
    buf_append(&s->body, bytes, n);
    return s->stop_after_calls && s->body_calls >= s->stop_after_calls;
}

static hew_code run(const char *url, const char *path, long idle_ms, long deadline_ms,
                    hew_abort *abort, struct seen *s, http_response *resp, hew_err *err)
{
    char full[256];
    snprintf(full, sizeof full, "%s%s", url, path);
    static const char *const headers[] = { "Content-Type: application/json",
                                           "Authorization: Bearer sk-test-secret-123456",
                                           "X-Custom: one two", NULL };
    const char *body = "{\"model\":\"m\",\"stream\":true}";
    http_request req = http_request_defaults();
    req.url = full;
    req.headers = headers;
    req.body = body;
    req.body_len = strlen(body);
    if (idle_ms)
        req.idle_timeout_ms = idle_ms;
    if (deadline_ms)
        req.deadline_ms = deadline_ms;
    req.abort = abort;
    http_sink sink = { seen_response, seen_body, s };
    return http_perform(&req, &sink, resp, err);
}

static void test_stream_status_headers_and_request(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"lenient\":true,\"responses\":[{\"protocol\":\"openai-chat\",\"model\":\"m\","
                                "\"text\":\"Hello from the fake provider, streamed in pieces.\","
                                "\"delta_size\":6,\"delay_ms\":5,"
                                "\"headers\":{\"x-request-id\":\"req_42\"}}]}") == 0);
    struct seen s = { 0 };
    buf_init(&s.body, 0);
    http_response resp = HTTP_RESPONSE_INIT;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(run(fp.url, "/v1/chat/completions", 0, 0, NULL, &s, &resp, &err), HEW_OK);
    CHECK_INT(resp.status, 200);
    CHECK_INT(s.responses, 1);
    CHECK_INT(s.status_at_response, 200);
    CHECK(!s.body_before_response);
    CHECK(s.body_calls > 1); /* delivered as it arrived, not at the end */
    CHECK_INT(resp.body_bytes, s.body.len);
    const char *ct = http_response_header(&resp, "Content-Type");
    CHECK(ct && strncmp(ct, "text/event-stream", 17) == 0);
    CHECK_STR(http_response_header(&resp, "x-request-id"), "req_42");
    CHECK(s.body.len > 14 && strcmp(s.body.data + s.body.len - 14, "data: [DONE]\n\n") == 0);

    json_t *reqs = fakeprov_requests(&fp);
    REQUIRE(reqs && json_array_size(reqs) == 1);
    json_t *r = json_array_get(reqs, 0);
    CHECK_STR(json_string_value(json_object_get(r, "method")), "POST");
    CHECK_STR(json_string_value(json_object_get(r, "path")), "/v1/chat/completions");
    json_t *h = json_object_get(r, "headers");
    CHECK_STR(json_string_value(json_object_get(h, "x-custom")), "one two");
    const char *auth = json_string_value(json_object_get(h, "authorization"));
    CHECK(auth && strstr(auth, "secret-123456") == NULL); /* the recorder masks secrets */
    CHECK(json_object_get(h, "expect") == NULL);        /* no 100-continue round trip */
    json_t *b = json_object_get(r, "body");
    CHECK_STR(json_string_value(json_object_get(b, "model")), "m");
    json_decref(reqs);
    http_response_release(&resp);
    buf_release(&s.body);
    fakeprov_stop(&fp);
}

static void test_error_status_is_data(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"lenient\":true,\"responses\":[{\"status\":429,\"headers\":{\"retry-after\":\"2\"},"
                                "\"body\":{\"error\":{\"message\":\"slow down\","
                                "\"type\":\"rate_limit_error\"}}}]}") == 0);
    http_response resp = HTTP_RESPONSE_INIT;
    buf body = BUF_INIT(1 << 20);
    hew_err err = HEW_ERR_INIT;
    char url[128];
    snprintf(url, sizeof url, "%s/v1/messages", fp.url);
    http_request req = http_request_defaults();
    req.url = url;
    req.body = "{}";
    req.body_len = 2;
    CHECK_INT(http_perform_collect(&req, &resp, &body, &err), HEW_OK);
    CHECK_INT(resp.status, 429);
    CHECK_STR(http_response_header(&resp, "retry-after"), "2");
    CHECK(body.data && strstr(body.data, "slow down") != NULL);
    http_response_release(&resp);
    buf_release(&body);
    fakeprov_stop(&fp);
}

struct trigger_arg {
    hew_abort *abort;
    long delay_ms;
    long fired_at;
};

static void *trigger_later(void *ud)
{
    struct trigger_arg *t = ud;
    struct timespec d = { t->delay_ms / 1000, (t->delay_ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
    t->fired_at = now_ms();
    abort_trigger(t->abort, "test abort");
    return NULL;
}

static void test_abort_from_another_thread(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"lenient\":true,\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"abc def\","
                                "\"stall_after_bytes\":40,\"stall_ms\":30000}]}") == 0);
    hew_abort *abort = abort_new();
    struct trigger_arg t = { abort, 300, 0 };
    pthread_t th;
    pthread_create(&th, NULL, trigger_later, &t);
    struct seen s = { 0 };
    buf_init(&s.body, 0);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(run(fp.url, "/v1/messages", 0, 0, abort, &s, NULL, &err), HEW_E_ABORTED);
    long ended = now_ms();
    pthread_join(th, NULL);
    long latency = ended - t.fired_at;
    fprintf(stderr, "abort took effect after %ld ms\n", latency);
    CHECK(latency < 500); /* the contract is 100 ms; leave room for sanitizer builds */
    CHECK(strstr(err.msg, "test abort") != NULL);
    CHECK_INT(s.body.len, 40);
    abort_free(abort);
    buf_release(&s.body);
    fakeprov_stop(&fp);
}

static void test_idle_timeout(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"lenient\":true,\"responses\":[{\"protocol\":\"openai-chat\",\"text\":\"abc\","
                                "\"stall_after_bytes\":30,\"stall_ms\":20000}]}") == 0);
    struct seen s = { 0 };
    buf_init(&s.body, 0);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(run(fp.url, "/v1/chat/completions", 300, 0, NULL, &s, NULL, &err), HEW_E_TIMEOUT);
    CHECK(strstr(err.msg, "idle") != NULL);
    CHECK_INT(s.body.len, 30);
    buf_release(&s.body);
    fakeprov_stop(&fp);
}

static void test_overall_deadline_beats_trickle(void)
{
    /* Bytes keep coming (so the idle timer never fires) but the whole takes too long. */
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"lenient\":true,\"responses\":[{\"protocol\":\"openai-chat\","
                                "\"text\":\"a long and slow answer that trickles in\","
                                "\"delta_size\":1,\"chunk_size\":16,\"delay_ms\":50}]}") == 0);
    struct seen s = { 0 };
    buf_init(&s.body, 0);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(run(fp.url, "/v1/chat/completions", 400, 700, NULL, &s, NULL, &err),
              HEW_E_TIMEOUT);
    CHECK(strstr(err.msg, "deadline") != NULL);
    CHECK(s.body.len > 0);
    buf_release(&s.body);
    fakeprov_stop(&fp);
}

static void test_drop_mid_body_is_an_error(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"lenient\":true,\"responses\":[{\"protocol\":\"anthropic\","
                                "\"text\":\"this answer will be cut short\","
                                "\"close_after_bytes\":50}]}") == 0);
    struct seen s = { 0 };
    buf_init(&s.body, 0);
    http_response resp = HTTP_RESPONSE_INIT;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(run(fp.url, "/v1/messages", 0, 0, NULL, &s, &resp, &err), HEW_E_NET);
    CHECK_INT(s.body.len, 50);
    CHECK_INT(resp.status, 200);
    CHECK(strstr(err.msg, "dropped") != NULL);
    http_response_release(&resp);
    buf_release(&s.body);
    fakeprov_stop(&fp);
}

/* libcurl as loaded in this process (either build of it), or NULL. */
static void *libcurl_loaded(void)
{
    void *h = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_NOLOAD);
    return h ? h : dlopen("libcurl-gnutls.so.4", RTLD_LAZY | RTLD_NOLOAD);
}

/* Run first: nothing has loaded libcurl yet (libhew does not link it). */
static void test_warmup_loads_libcurl_once(void)
{
    CHECK(!curl_lib_ready());
    CHECK(libcurl_loaded() == NULL);
    http_warmup *w = http_warmup_start();
    CHECK(w != NULL);
    http_warmup_join(w);
    CHECK(curl_lib_ready());
    void *h = libcurl_loaded();
    CHECK(h != NULL);
    if (h)
        dlclose(h);
    CHECK(http_warmup_start() == NULL); /* nothing left to do */
    http_warmup_join(NULL);
    hew_err err = HEW_ERR_INIT;
    CHECK(curl_lib_get(&err) != NULL);
    CHECK_INT(err.code, HEW_OK);
}

static void test_connection_refused(void)
{
    int sock = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(bind(sock, (struct sockaddr *)&addr, sizeof addr) == 0);
    REQUIRE(getsockname(sock, (struct sockaddr *)&addr, &len) == 0);
    close(sock); /* nobody listens on this port now */
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(addr.sin_port));
    struct seen s = { 0 };
    buf_init(&s.body, 0);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(run(url, "/v1/messages", 0, 0, NULL, &s, NULL, &err), HEW_E_NET);
    CHECK(strstr(err.msg, "cannot connect") != NULL);
    CHECK_INT(s.responses, 0);
    buf_release(&s.body);

    http_request req = http_request_defaults();
    CHECK_INT(http_perform(&req, NULL, NULL, &err), HEW_E_INVALID);
    req.url = "ftp://example.invalid/x";
    CHECK_INT(http_perform(&req, NULL, NULL, &err), HEW_E_INVALID);
}

static void test_reader_can_stop(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"lenient\":true,\"responses\":[{\"protocol\":\"openai-chat\","
                                "\"text\":\"one two three four five six\",\"delta_size\":3}]}") == 0);
    struct seen s = { 0 };
    s.stop_after_calls = 1;
    buf_init(&s.body, 0);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(run(fp.url, "/v1/chat/completions", 0, 0, NULL, &s, NULL, &err), HEW_E_ABORTED);
    CHECK_INT(s.body_calls, 1);
    buf_release(&s.body);
    fakeprov_stop(&fp);
}

int main(void)
{
    RUN(test_warmup_loads_libcurl_once);
    RUN(test_stream_status_headers_and_request);
    RUN(test_error_status_is_data);
    RUN(test_abort_from_another_thread);
    RUN(test_idle_timeout);
    RUN(test_overall_deadline_beats_trickle);
    RUN(test_drop_mid_body_is_an_error);
    RUN(test_connection_refused);
    RUN(test_reader_can_stop);
    return check_report();
}
