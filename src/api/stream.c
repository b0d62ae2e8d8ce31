/* stream — api_stream: build, send, decode, classify (see stream.h). Glue between
 * request.c, net/http, decoder.c and error.c; it holds no protocol knowledge itself and
 * never retries or prints. */
#include "api/stream.h"

#include <stdio.h>
#include <string.h>

#include "api/decoder.h"
#include "base/buf.h"
#include "net/http.h"

#define ERROR_BODY_MAX ((size_t)1 << 20)

struct pump {
    const api_provider *p;
    api_chunk_fn fn;
    void *ud;
    api_decoder *dec;
    long status;
    bool ok_status;
    buf error_body;
    size_t content_chunks; /* TEXT / REASONING / TOOL_DELTA delivered */
    bool user_stopped;     /* the caller's callback returned non-zero */
    bool dec_finished;     /* we stopped reading because the decoder was done */
    bool closed;           /* END or ERROR delivered */
    bool ended_ok;         /* END delivered */
    api_error err;         /* the ERROR delivered, if any */
};

static int relay(void *ud, const api_chunk *c)
{
    struct pump *s = ud;
    if (s->closed)
        return 1;
    if (c->kind == API_CHUNK_TEXT || c->kind == API_CHUNK_REASONING ||
        c->kind == API_CHUNK_TOOL_DELTA)
        s->content_chunks++;
    if (c->kind == API_CHUNK_END) {
        s->closed = true;
        s->ended_ok = true;
    }
    if (c->kind == API_CHUNK_ERROR) {
        s->closed = true;
        if (c->error)
            s->err = *c->error;
        s->err.after_first_chunk = s->content_chunks > 0;
        api_chunk copy = *c;
        copy.error = &s->err;
        if (s->fn && s->fn(s->ud, &copy) != 0)
            s->user_stopped = true;
        return 0;
    }
    if (s->fn && s->fn(s->ud, c) != 0) {
        s->user_stopped = true;
        return 1;
    }
    return 0;
}

/* Deliver an ERROR that did not come from the stream. */
static void fail(struct pump *s, const api_error *e)
{
    if (s->closed)
        return;
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_ERROR;
    c.error = e;
    relay(s, &c);
}

static int on_response(void *ud, const http_response *resp)
{
    struct pump *s = ud;
    s->status = resp->status;
    s->ok_status = resp->status >= 200 && resp->status <= 299;
    if (s->ok_status) {
        s->dec = api_decoder_new(s->p->protocol, resp->status, relay, s);
        if (!s->dec)
            return 1;
    }
    return 0;
}

static int on_body(void *ud, const char *bytes, size_t n)
{
    struct pump *s = ud;
    if (!s->ok_status) {
        buf_append(&s->error_body, bytes, n);
        return 0;
    }
    if (api_decoder_feed(s->dec, bytes, n) != HEW_OK || s->user_stopped)
        return 1;
    if (api_decoder_finished(s->dec)) {
        s->dec_finished = true; /* nothing more to read: do not wait on keep-alives */
        return 1;
    }
    return 0;
}

static hew_code code_for(const api_error *e)
{
    switch (e->category) {
    case API_ERR_NETWORK:
        return HEW_E_NET;
    case API_ERR_TIMEOUT:
        return HEW_E_TIMEOUT;
    case API_ERR_ABORTED:
        return HEW_E_ABORTED;
    default:
        return HEW_E_PROTOCOL;
    }
}

hew_code api_stream(const api_provider *p, const api_request *r, api_chunk_fn fn, void *ud,
                    hew_abort *abort, api_error *err_out)
{
    struct pump s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.fn = fn;
    s.ud = ud;
    api_error_init(&s.err);
    buf_init(&s.error_body, ERROR_BODY_MAX);

    hew_err herr = HEW_ERR_INIT;
    hew_code fail_code = HEW_OK;
    api_http h;
    hew_code rc = api_build(p, r, &h, &herr);
    if (rc != HEW_OK) {
        fail_code = rc;
        api_error e;
        api_error_init(&e);
        e.category = rc == HEW_E_NOMEM ? API_ERR_UNKNOWN : API_ERR_BAD_REQUEST;
        snprintf(e.code, sizeof e.code, "%s", hew_code_name(rc));
        snprintf(e.provider_message, sizeof e.provider_message, "%s", herr.msg);
        snprintf(e.message, sizeof e.message, "hew could not build the request: %s", herr.msg);
        fail(&s, &e);
        goto out;
    }

    http_request req = http_request_defaults();
    req.url = h.url;
    req.headers = (const char *const *)h.headers;
    req.body = h.body;
    req.body_len = h.body_len;
    req.abort = abort;
    req.record = p->record;
    if (p->connect_timeout_ms > 0)
        req.connect_timeout_ms = p->connect_timeout_ms;
    if (p->idle_timeout_ms > 0)
        req.idle_timeout_ms = p->idle_timeout_ms;
    if (p->deadline_ms > 0)
        req.deadline_ms = p->deadline_ms;
    http_sink sink = { on_response, on_body, &s };
    http_response resp = HTTP_RESPONSE_INIT;
    rc = http_perform(&req, &sink, &resp, &herr);

    if (s.user_stopped) {
        /* reported below */
    } else if (rc == HEW_OK || s.dec_finished) {
        if (s.ok_status) {
            api_decoder_end(s.dec); /* END, or the ERROR saying why it is incomplete */
        } else {
            api_error e;
            api_classify(s.status, resp.headers, resp.header_count, s.error_body.data,
                         s.error_body.len, &e);
            fail(&s, &e);
            fail_code = HEW_E_HTTP;
        }
    } else if (!(s.dec && api_decoder_complete(s.dec))) {
        /* A transport failure (a complete turn followed by a drop is fine). */
        if (rc == HEW_E_ABORTED && abort_is_set(abort))
            hew_err_set(&herr, HEW_E_ABORTED, "stopped: %s", abort_reason(abort));
        /* What the provider counted so far is still spent (a cut-off or stopped request
         * keeps it): the usage chunk goes right before the ERROR, as chunk.h promises. */
        api_usage so_far;
        if (api_decoder_usage(s.dec, &so_far)) {
            api_chunk uc;
            memset(&uc, 0, sizeof uc);
            uc.kind = API_CHUNK_USAGE;
            uc.usage = so_far;
            relay(&s, &uc);
        }
        api_error e;
        api_error_transport(&herr, &e);
        e.http_status = s.status;
        fail(&s, &e);
        fail_code = rc;
    }
    http_response_release(&resp);
    api_http_release(&h);

out:
    if (s.ended_ok) {
        rc = HEW_OK;
        if (err_out)
            api_error_init(err_out);
    } else {
        if (s.user_stopped) {
            api_error_init(&s.err);
            s.err.category = API_ERR_ABORTED;
            s.err.after_first_chunk = s.content_chunks > 0;
            snprintf(s.err.code, sizeof s.err.code, "stopped_by_consumer");
            snprintf(s.err.message, sizeof s.err.message,
                     "The request was stopped by its consumer before the turn ended.");
            fail_code = HEW_E_ABORTED;
        } else if (!s.closed) { /* every path closes; be safe */
            api_error_stream(&s.err, "the stream ended without a result");
        }
        rc = fail_code != HEW_OK ? fail_code : code_for(&s.err);
        if (err_out)
            *err_out = s.err;
    }
    api_decoder_free(s.dec);
    buf_release(&s.error_body);
    return rc;
}
