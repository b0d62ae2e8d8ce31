/* http — streaming HTTP requests on libcurl's multi interface (see http.h), libcurl
 * loaded on first use (curl_lib.h: every curl function is called through that table).
 *
 * One easy handle in one multi handle per request, so that this thread can sleep in
 * curl_multi_poll() and still be woken at once by an abort (curl_multi_wakeup from the
 * abort listener), and so that the idle timer and the deadline are checked by us, with
 * our own clock, instead of curl's second-granular low-speed limits. Must never print,
 * exit, or deliver body bytes before on_response. */
#include "net/http.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/curl_lib.h"
#include "net/record.h"
#include "net/url.h"
#include "sys/clock.h"

#define HTTP_DEFAULT_CONNECT_MS 10000L
#define HTTP_DEFAULT_IDLE_MS 120000L
#define HTTP_DEFAULT_DEADLINE_MS 600000L
#define HTTP_MAX_HEADERS 256
#define HTTP_POLL_MAX_MS 1000L

http_request http_request_defaults(void)
{
    http_request r;
    memset(&r, 0, sizeof r);
    r.connect_timeout_ms = HTTP_DEFAULT_CONNECT_MS;
    r.idle_timeout_ms = HTTP_DEFAULT_IDLE_MS;
    r.deadline_ms = HTTP_DEFAULT_DEADLINE_MS;
    return r;
}

const char *http_response_header(const http_response *resp, const char *name)
{
    for (size_t i = resp->header_count; i-- > 0;)
        if (strcasecmp(resp->headers[i].name, name) == 0)
            return resp->headers[i].value;
    return NULL;
}

static void headers_clear(http_response *resp)
{
    for (size_t i = 0; i < resp->header_count; i++) {
        free(resp->headers[i].name);
        free(resp->headers[i].value);
    }
    free(resp->headers);
    resp->headers = NULL;
    resp->header_count = 0;
}

void http_response_release(http_response *resp)
{
    if (!resp)
        return;
    headers_clear(resp);
    resp->status = 0;
    resp->http_version = 0;
    resp->body_bytes = 0;
}

/* The state of one transfer, shared by the curl callbacks and the poll loop. */
struct transfer {
    const curl_lib *curl;
    const http_sink *sink;
    http_response *resp;
    CURL *easy;
    CURLM *multi;
    long long last_byte_ms;
    int response_announced;
    int stopped_by_sink;
    int out_of_memory;
    net_record_x *rec;  /* the exchange being recorded (--record), or NULL */
};

static char *dup_range(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* Curl gives one header line per call, CRLF included; a status line starts a response
 * (1xx and redirect responses come before the final one, so start over each time). */
static size_t on_header_line(char *line, size_t size, size_t count, void *ud)
{
    struct transfer *t = ud;
    size_t n = size * count;
    t->last_byte_ms = clock_now_ms();
    if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        headers_clear(t->resp);
        return n;
    }
    const char *colon = memchr(line, ':', n);
    if (!colon || t->resp->header_count >= HTTP_MAX_HEADERS)
        return n;
    size_t name_len = (size_t)(colon - line);
    const char *v = colon + 1;
    const char *end = line + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    http_header *grown =
        realloc(t->resp->headers, (t->resp->header_count + 1) * sizeof *t->resp->headers);
    if (!grown) {
        t->out_of_memory = 1;
        return 0;
    }
    t->resp->headers = grown;
    char *name = dup_range(line, name_len);
    char *value = dup_range(v, (size_t)(end - v));
    if (!name || !value) {
        free(name);
        free(value);
        t->out_of_memory = 1;
        return 0;
    }
    for (char *c = name; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    t->resp->headers[t->resp->header_count++] = (http_header){ name, value };
    return n;
}

static int announce_response(struct transfer *t)
{
    if (t->response_announced)
        return 0;
    t->response_announced = 1;
    long status = 0, version = 0;
    t->curl->easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    t->curl->easy_getinfo(t->easy, CURLINFO_HTTP_VERSION, &version);
    t->resp->status = status;
    t->resp->http_version = version == CURL_HTTP_VERSION_1_0   ? 10
                            : version == CURL_HTTP_VERSION_1_1 ? 11
                            : version == CURL_HTTP_VERSION_2_0 ? 20
                            : version == CURL_HTTP_VERSION_3   ? 30
                                                               : 0;
    net_record_response(t->rec, t->resp);
    if (t->sink && t->sink->on_response && t->sink->on_response(t->sink->ud, t->resp) != 0) {
        t->stopped_by_sink = 1;
        return -1;
    }
    return 0;
}

static size_t on_body_bytes(char *bytes, size_t size, size_t count, void *ud)
{
    struct transfer *t = ud;
    size_t n = size * count;
    t->last_byte_ms = clock_now_ms();
    if (announce_response(t) != 0)
        return 0;
    t->resp->body_bytes += n;
    net_record_body(t->rec, bytes, n);
    if (t->sink && t->sink->on_body && t->sink->on_body(t->sink->ud, bytes, n) != 0) {
        t->stopped_by_sink = 1;
        return 0;
    }
    return n;
}

static void wake_multi(void *ud)
{
    const struct transfer *t = ud;
    t->curl->multi_wakeup(t->multi);
}

static hew_code map_curl_error(CURLcode rc, const char *curl_msg, const struct transfer *t,
                               const char *url, hew_err *err)
{
    char shown[512];
    url_redact(url, shown, sizeof shown);
    const char *detail = curl_msg[0] ? curl_msg : t->curl->easy_strerror(rc);
    switch (rc) {
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return hew_err_set(err, HEW_E_INVALID, "bad URL %s: %s — check the provider's base URL",
                           shown, detail);
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return hew_err_set(err, HEW_E_NET,
                           "cannot resolve the host of %s: %s — check the URL and your network",
                           shown, detail);
    case CURLE_COULDNT_CONNECT:
        return hew_err_set(err, HEW_E_NET,
                           "cannot connect to %s: %s — is the server running and reachable?",
                           shown, detail);
    case CURLE_OPERATION_TIMEDOUT:
        return hew_err_set(err, HEW_E_TIMEOUT, "timed out talking to %s: %s", shown, detail);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
        return hew_err_set(err, HEW_E_NET,
                           "TLS failure with %s: %s — if you use a proxy or a private CA, set "
                           "SSL_CERT_FILE or CURL_CA_BUNDLE to its certificate bundle",
                           shown, detail);
    case CURLE_OUT_OF_MEMORY:
        return hew_err_set(err, HEW_E_NOMEM, "out of memory while talking to %s", shown);
    default:
        if (t->response_announced || t->resp->body_bytes)
            return hew_err_set(err, HEW_E_NET,
                               "the connection to %s dropped after %zu bytes of the response: %s",
                               shown, t->resp->body_bytes, detail);
        return hew_err_set(err, HEW_E_NET, "request to %s failed: %s", shown, detail);
    }
}

static void set_ca_bundle(const curl_lib *curl, CURL *easy, const char *ca_file)
{
    const char *file = ca_file;
    if (!file || !*file)
        file = getenv("CURL_CA_BUNDLE");
    if (!file || !*file)
        file = getenv("SSL_CERT_FILE");
    if (file && *file)
        curl->easy_setopt(easy, CURLOPT_CAINFO, file);
    const char *dir = getenv("SSL_CERT_DIR");
    if (dir && *dir)
        curl->easy_setopt(easy, CURLOPT_CAPATH, dir);
}

static struct curl_slist *build_headers(const curl_lib *curl, const http_request *req,
                                        int *oom)
{
    struct curl_slist *list = NULL, *next;
    /* No "Expect: 100-continue" round trip before large bodies. */
    if (!(list = curl->slist_append(list, "Expect:")))
        goto fail;
    for (const char *const *h = req->headers; h && *h; h++) {
        if (!(next = curl->slist_append(list, *h)))
            goto fail;
        list = next;
    }
    return list;
fail:
    curl->slist_free_all(list);
    *oom = 1;
    return NULL;
}

static void configure(CURL *easy, const http_request *req, struct transfer *t,
                      struct curl_slist *headers, char *curl_msg)
{
    __typeof__(t->curl->easy_setopt) set = t->curl->easy_setopt;
    set(easy, CURLOPT_URL, req->url);
    set(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    set(easy, CURLOPT_NOSIGNAL, 1L);
    set(easy, CURLOPT_ERRORBUFFER, curl_msg);
    set(easy, CURLOPT_HTTPHEADER, headers);
    set(easy, CURLOPT_CONNECTTIMEOUT_MS, req->connect_timeout_ms);
    set(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    set(easy, CURLOPT_TCP_NODELAY, 1L);
    set(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    set(easy, CURLOPT_SSL_VERIFYHOST, 2L);
    set(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    set(easy, CURLOPT_USERAGENT, "hew/0.1");
    set(easy, CURLOPT_HEADERFUNCTION, on_header_line);
    set(easy, CURLOPT_HEADERDATA, t);
    set(easy, CURLOPT_WRITEFUNCTION, on_body_bytes);
    set(easy, CURLOPT_WRITEDATA, t);
    set_ca_bundle(t->curl, easy, req->ca_file);
    if (req->body) {
        set(easy, CURLOPT_POST, 1L);
        set(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        set(easy, CURLOPT_POSTFIELDS, req->body);
    }
    if (req->method && strcmp(req->method, req->body ? "POST" : "GET") != 0)
        set(easy, CURLOPT_CUSTOMREQUEST, req->method);
}

/* Drive the transfer until it completes, times out or is aborted. */
static hew_code run_transfer(const http_request *req, struct transfer *t, const char *curl_msg,
                             hew_err *err)
{
    long long start = clock_now_ms();
    long idle_ms = req->idle_timeout_ms > 0 ? req->idle_timeout_ms : HTTP_DEFAULT_IDLE_MS;
    long deadline_ms = req->deadline_ms > 0 ? req->deadline_ms : HTTP_DEFAULT_DEADLINE_MS;
    char shown[512];
    url_redact(req->url, shown, sizeof shown);
    t->last_byte_ms = start;

    for (;;) {
        int running = 0;
        CURLMcode mc = t->curl->multi_perform(t->multi, &running);
        if (mc != CURLM_OK)
            return hew_err_set(err, HEW_E_INTERNAL, "curl_multi_perform: %s",
                               t->curl->multi_strerror(mc));
        if (abort_is_set(req->abort))
            return hew_err_set(err, HEW_E_ABORTED, "request to %s aborted%s%s", shown,
                               abort_reason(req->abort)[0] ? ": " : "",
                               abort_reason(req->abort));
        if (!running)
            break;
        long long now = clock_now_ms();
        if (now - start >= deadline_ms)
            return hew_err_set(err, HEW_E_TIMEOUT,
                               "%s did not finish within %ld s (overall deadline) — the server "
                               "may be stuck; try again",
                               shown, deadline_ms / 1000);
        /* The idle clock starts once connected; before that the connect timeout rules. */
        if (now - t->last_byte_ms >= idle_ms && now - start >= req->connect_timeout_ms)
            return hew_err_set(err, HEW_E_TIMEOUT,
                               "no data from %s for %ld s (idle timeout) — the connection "
                               "looks dead; try again",
                               shown, idle_ms / 1000);
        long wait = HTTP_POLL_MAX_MS;
        long to_deadline = deadline_ms - (now - start);
        long to_idle = idle_ms - (now - t->last_byte_ms);
        if (to_deadline < wait)
            wait = to_deadline;
        if (to_idle < wait)
            wait = to_idle;
        if (wait < 1)
            wait = 1;
        mc = t->curl->multi_poll(t->multi, NULL, 0, (int)wait, NULL);
        if (mc != CURLM_OK)
            return hew_err_set(err, HEW_E_INTERNAL, "curl_multi_poll: %s",
                               t->curl->multi_strerror(mc));
    }

    int left = 0;
    CURLMsg *msg;
    CURLcode rc = CURLE_OK;
    while ((msg = t->curl->multi_info_read(t->multi, &left)))
        if (msg->msg == CURLMSG_DONE)
            rc = msg->data.result;
    if (t->out_of_memory)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory while reading %s", shown);
    if (t->stopped_by_sink)
        return hew_err_set(err, HEW_E_ABORTED, "request to %s stopped by its reader", shown);
    if (rc != CURLE_OK)
        return map_curl_error(rc, curl_msg, t, req->url, err);
    if (announce_response(t) != 0)
        return hew_err_set(err, HEW_E_ABORTED, "request to %s stopped by its reader", shown);
    return HEW_OK;
}

hew_code http_perform(const http_request *req, const http_sink *sink, http_response *resp,
                      hew_err *err)
{
    if (!req || !req->url || !*req->url)
        return hew_err_set(err, HEW_E_INVALID, "no URL given for the HTTP request");
    const curl_lib *curl = curl_lib_get(err);
    if (!curl)
        return err ? err->code : HEW_E_INTERNAL;

    http_response local = HTTP_RESPONSE_INIT;
    if (!resp)
        resp = &local;
    else
        http_response_release(resp);

    struct transfer t;
    memset(&t, 0, sizeof t);
    t.curl = curl;
    t.sink = sink;
    t.resp = resp;
    char curl_msg[CURL_ERROR_SIZE] = { 0 };
    int oom = 0;
    struct curl_slist *headers = build_headers(curl, req, &oom);
    t.easy = curl->easy_init();
    t.multi = curl->multi_init();
    hew_code rc;
    int listener = 0;
    if (oom || !t.easy || !t.multi) {
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory setting up an HTTP request");
        goto done;
    }
    configure(t.easy, req, &t, headers, curl_msg);
    if (curl->multi_add_handle(t.multi, t.easy) != CURLM_OK) {
        rc = hew_err_set(err, HEW_E_INTERNAL, "curl_multi_add_handle failed");
        goto done;
    }
    if (req->abort)
        listener = abort_listen(req->abort, wake_multi, &t);
    if (req->record)
        t.rec = net_record_begin(req->record, req);
    rc = run_transfer(req, &t, curl_msg, err);
    if (t.rec) {
        net_record_end(t.rec, rc, t.stopped_by_sink != 0, rc != HEW_OK && err ? err->msg : NULL);
        t.rec = NULL;
    }
    if (req->abort)
        abort_unlisten(req->abort, listener);
    curl->multi_remove_handle(t.multi, t.easy);
done:
    curl->multi_cleanup(t.multi);
    curl->easy_cleanup(t.easy);
    curl->slist_free_all(headers);
    http_response_release(&local);
    return rc;
}

static int collect_body(void *ud, const char *bytes, size_t n)
{
    buf *out = ud;
    buf_append(out, bytes, n);
    return out->err != HEW_OK;
}

hew_code http_perform_collect(const http_request *req, http_response *resp, buf *out,
                              hew_err *err)
{
    http_sink sink = { NULL, collect_body, out };
    hew_code rc = http_perform(req, &sink, resp, err);
    if (out->err != HEW_OK)
        return buf_check(out, "HTTP response body", err);
    return rc;
}

struct http_warmup {
    pthread_t thread;
};

static void *warmup_main(void *arg)
{
    (void)arg;
    curl_lib_get(NULL);
    return NULL;
}

http_warmup *http_warmup_start(void)
{
    if (curl_lib_ready())
        return NULL;
    http_warmup *w = malloc(sizeof *w);
    if (w && pthread_create(&w->thread, NULL, warmup_main, NULL) != 0) {
        free(w);
        w = NULL;
    }
    return w;
}

void http_warmup_join(http_warmup *w)
{
    if (!w)
        return;
    pthread_join(w->thread, NULL);
    free(w);
}
