/* record — saving HTTP exchanges for hew replay (see record.h). Writes only inside its
 * folder, only through fs_write_atomic, never a secret (every header and the URL pass
 * through base/redact first). */
#include "net/record.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/redact.h"
#include "sys/clock.h"

#define CHUNKS_MAX 200000 /* timing entries of one response; later pieces join the last */
#define CLOCK_MAX 1024

struct net_record {
    char *dir;
    pthread_mutex_t mu;
    size_t next;               /* the number the next exchange takes */
    long long clock[CLOCK_MAX];
    size_t nclock;
    bool failed;
};

struct net_record_x {
    net_record *r;
    size_t n;
    long long start_ms;
    json_t *desc;              /* the NNNN.json being built */
    buf request;               /* the body as it will be stored */
    buf response;
    long long (*chunks)[2];
    size_t nchunks, chunks_cap;
    long long headers_ms;
};

const char *net_record_dir(const net_record *r)
{
    return r ? r->dir : NULL;
}

bool net_record_failed(const net_record *r)
{
    return r && __atomic_load_n(&r->failed, __ATOMIC_RELAXED);
}

static void set_failed(net_record *r, const char *msg)
{
    if (!__atomic_exchange_n(&r->failed, true, __ATOMIC_RELAXED))
        hew_log(HEW_LOG_WARN, "record", "the recording in %s is incomplete: %s", r->dir, msg);
}

static char *path_in(const net_record *r, const char *name)
{
    buf b = BUF_INIT(8192);
    buf_printf(&b, "%s/%s", r->dir, name);
    return buf_detach(&b, NULL);
}

hew_code net_record_open(const char *dir, net_record **out, hew_err *err)
{
    *out = NULL;
    if (!dir || !*dir)
        return hew_err_set(err, HEW_E_INVALID, "--record needs a folder");
    hew_code rc = fs_mkdirs(dir, 0700, err);
    if (rc != HEW_OK)
        return rc;
    net_record *r = calloc(1, sizeof *r);
    if (!r || !(r->dir = strdup(dir))) {
        free(r);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    char *m = path_in(r, "session.json"), *first = path_in(r, "0001.json");
    bool used = (m && fs_exists(m)) || (first && fs_exists(first));
    free(m);
    free(first);
    if (used) {
        free(r->dir);
        free(r);
        return hew_err_set(err, HEW_E_INVALID,
                           "%s already holds a recording — record into a new or empty folder",
                           dir);
    }
    pthread_mutex_init(&r->mu, NULL);
    r->next = 1;
    *out = r;
    return HEW_OK;
}

void net_record_free(net_record *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->mu);
    free(r->dir);
    free(r);
}

hew_code net_record_manifest(net_record *r, const char *json, size_t len, hew_err *err)
{
    char *p = path_in(r, "session.json");
    if (!p)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    hew_code rc = fs_write_atomic(p, json, len, 0600, err);
    free(p);
    if (rc != HEW_OK)
        set_failed(r, err ? err->msg : "session.json");
    return rc;
}

void net_record_note_clock(net_record *r, long long epoch_s)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    if (r->nclock < CLOCK_MAX)
        r->clock[r->nclock++] = epoch_s;
    pthread_mutex_unlock(&r->mu);
}

/* ["name", "value"] pairs of "Name: value" lines, secrets masked. */
static json_t *request_headers(const char *const *lines)
{
    json_t *arr = json_array();
    for (const char *const *h = lines; arr && h && *h; h++) {
        const char *colon = strchr(*h, ':');
        if (!colon)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(colon - *h), *h);
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        buf shown = BUF_INIT((size_t)1 << 16);
        if (redact_header_is_secret(name)) {
            redact_header(name, v, &shown);
        } else {
            redact_text(v, strlen(v), &shown);
        }
        json_array_append_new(arr, json_pack("[ss]", name, shown.data ? shown.data : ""));
        buf_release(&shown);
    }
    return arr;
}

net_record_x *net_record_begin(net_record *r, const http_request *req)
{
    net_record_x *x = calloc(1, sizeof *x);
    if (!x) {
        set_failed(r, "out of memory");
        return NULL;
    }
    x->r = r;
    x->start_ms = clock_now_ms();
    x->headers_ms = -1;
    pthread_mutex_lock(&r->mu);
    x->n = r->next++;
    pthread_mutex_unlock(&r->mu);
    buf_init(&x->request, (size_t)1 << 30);
    buf_init(&x->response, NET_RECORD_BODY_MAX);
    if (req->body && req->body_len) {
        if (redact_found(req->body, req->body_len))
            redact_text(req->body, req->body_len, &x->request); /* never a key on disk */
        else
            buf_append(&x->request, req->body, req->body_len);
    }
    char *url = redact_dup(req->url);
    const char *method = req->method ? req->method : req->body ? "POST" : "GET";
    x->desc = json_pack("{si sI ss ss s{so}}", "format", NET_RECORD_FORMAT, "n", (json_int_t)x->n,
                        "method", method, "url", url ? url : "", "request", "headers",
                        request_headers(req->headers));
    free(url);
    if (!x->desc) {
        set_failed(r, "out of memory");
        buf_release(&x->request);
        buf_release(&x->response);
        free(x);
        return NULL;
    }
    return x;
}

void net_record_response(net_record_x *x, const http_response *resp)
{
    if (!x)
        return;
    x->headers_ms = clock_now_ms() - x->start_ms;
    json_t *hs = json_array();
    for (size_t i = 0; hs && i < resp->header_count; i++) {
        buf shown = BUF_INIT((size_t)1 << 16);
        if (redact_header_is_secret(resp->headers[i].name))
            redact_header(resp->headers[i].name, resp->headers[i].value, &shown);
        else
            redact_text(resp->headers[i].value, strlen(resp->headers[i].value), &shown);
        json_array_append_new(hs, json_pack("[ss]", resp->headers[i].name,
                                            shown.data ? shown.data : ""));
        buf_release(&shown);
    }
    json_object_set_new(x->desc, "response",
                        json_pack("{sI sI so}", "status", (json_int_t)resp->status,
                                  "http_version", (json_int_t)resp->http_version, "headers",
                                  hs ? hs : json_array()));
}

void net_record_body(net_record_x *x, const char *bytes, size_t n)
{
    if (!x || !n)
        return;
    buf_append(&x->response, bytes, n);
    long long at = clock_now_ms() - x->start_ms;
    if (x->nchunks == CHUNKS_MAX) {
        x->chunks[x->nchunks - 1][1] += (long long)n;
        return;
    }
    if (x->nchunks == x->chunks_cap) {
        size_t cap = x->chunks_cap ? x->chunks_cap * 2 : 64;
        void *grown = realloc(x->chunks, cap * sizeof *x->chunks);
        if (!grown) {
            set_failed(x->r, "out of memory");
            return;
        }
        x->chunks = grown;
        x->chunks_cap = cap;
    }
    x->chunks[x->nchunks][0] = at;
    x->chunks[x->nchunks][1] = (long long)n;
    x->nchunks++;
}

static bool write_file(net_record *r, const char *name, const void *data, size_t len)
{
    char *p = path_in(r, name);
    hew_err e = HEW_ERR_INIT;
    hew_code rc = p ? fs_write_atomic(p, data ? data : "", len, 0600, &e) : HEW_E_NOMEM;
    free(p);
    if (rc != HEW_OK)
        set_failed(r, e.msg[0] ? e.msg : "out of memory");
    return rc == HEW_OK;
}

void net_record_end(net_record_x *x, hew_code rc, bool stopped, const char *error)
{
    if (!x)
        return;
    net_record *r = x->r;
    char req_name[64], resp_name[64], desc_name[64];
    snprintf(req_name, sizeof req_name, "%04zu.request", x->n);
    snprintf(resp_name, sizeof resp_name, "%04zu.response", x->n);
    snprintf(desc_name, sizeof desc_name, "%04zu.json", x->n);

    json_t *req = json_object_get(x->desc, "request");
    json_object_set_new(req, "body_file", json_string(req_name));
    json_object_set_new(req, "body_bytes", json_integer((json_int_t)x->request.len));
    json_t *resp = json_object_get(x->desc, "response");
    if (!resp) { /* no answer came */
        resp = json_pack("{sI sI s[]}", "status", (json_int_t)0, "http_version", (json_int_t)0,
                         "headers");
        json_object_set_new(x->desc, "response", resp);
    }
    json_object_set_new(resp, "body_file", json_string(resp_name));
    json_object_set_new(resp, "body_bytes", json_integer((json_int_t)x->response.len));
    json_t *chunks = json_array();
    for (size_t i = 0; chunks && i < x->nchunks; i++)
        json_array_append_new(chunks, json_pack("[II]", (json_int_t)x->chunks[i][0],
                                                (json_int_t)x->chunks[i][1]));
    json_object_set_new(x->desc, "timing",
                        json_pack("{sI sI so}", "headers_ms", (json_int_t)x->headers_ms,
                                  "total_ms", (json_int_t)(clock_now_ms() - x->start_ms),
                                  "chunks", chunks ? chunks : json_array()));
    json_t *clock = json_array();
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; clock && i < r->nclock; i++)
        json_array_append_new(clock, json_integer((json_int_t)r->clock[i]));
    r->nclock = 0;
    pthread_mutex_unlock(&r->mu);
    json_object_set_new(x->desc, "clock", clock ? clock : json_array());
    bool ok = (rc == HEW_OK || stopped) && x->response.err == HEW_OK;
    const char *outcome = !ok ? "error" : rc == HEW_OK ? "ok" : "stopped";
    json_object_set_new(x->desc, "outcome", json_string(outcome));
    if (!ok) {
        char *why = redact_dup(x->response.err != HEW_OK ? "the response was too big to keep"
                               : error && *error     ? error
                                                     : hew_code_name(rc));
        json_object_set_new(x->desc, "error", json_string(why ? why : "error"));
        free(why);
    }
    if (x->request.err != HEW_OK)
        set_failed(r, "a request body too big to keep");
    char *text = json_dumps(x->desc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    /* bodies first, the description last: a description is there only with its bodies */
    if (text && write_file(r, req_name, x->request.data, x->request.len) &&
        write_file(r, resp_name, x->response.data, x->response.len))
        write_file(r, desc_name, text, strlen(text));
    else if (!text)
        set_failed(r, "out of memory");
    free(text);
    json_decref(x->desc);
    buf_release(&x->request);
    buf_release(&x->response);
    free(x->chunks);
    free(x);
}
