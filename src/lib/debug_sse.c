/* debug_sse — hew_debug_post_sse(): the HTTP + SSE path exposed for `hew debug sse`, the
 * demo and bug reports. Glue only: the work is in net/http and net/sse. Never prints. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/limits.h"
#include "base/redact.h"
#include "hew_debug.h"
#include "net/http.h"
#include "net/sse.h"

#define ERROR_BODY_MAX ((size_t)1 << 20)

struct sse_pump {
    sse_decoder *decoder;
    hew_sse_event_fn on_event;
    void *ud;
    long status;
    buf error_body; /* the body of a non-2xx response, handed over whole at the end */
    hew_err err;
    int failed;
};

static int pump_response(void *ud, const http_response *resp)
{
    struct sse_pump *p = ud;
    p->status = resp->status;
    return 0;
}

static int pump_events(struct sse_pump *p)
{
    sse_event ev;
    int r;
    while ((r = sse_next(p->decoder, &ev, &p->err)) == 1)
        if (p->on_event(p->ud, ev.event, ev.data, ev.data_len) != 0)
            return 1;
    if (r < 0) {
        p->failed = 1;
        return 1;
    }
    return 0;
}

static int pump_body(void *ud, const char *bytes, size_t n)
{
    struct sse_pump *p = ud;
    if (p->status < 200 || p->status > 299) {
        buf_append(&p->error_body, bytes, n);
        return 0;
    }
    if (sse_feed(p->decoder, bytes, n, &p->err) != HEW_OK) {
        p->failed = 1;
        return 1;
    }
    return pump_events(p);
}

hew_code hew_debug_post_sse(const char *url, const char *const *headers, const char *body,
                            hew_sse_event_fn on_event, void *ud, long *status_out,
                            char *errbuf, size_t errbuf_len)
{
    struct sse_pump p;
    memset(&p, 0, sizeof p);
    p.on_event = on_event;
    p.ud = ud;
    buf_init(&p.error_body, ERROR_BODY_MAX);
    sse_limits lim = { LIMITS_STREAM_LINE, LIMITS_STREAM_LINE }; /* as a provider stream */
    p.decoder = sse_decoder_new(&lim);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = HEW_E_NOMEM;
    if (!p.decoder) {
        hew_err_set(&err, HEW_E_NOMEM, "out of memory");
        goto done;
    }
    http_request req = http_request_defaults();
    req.url = url;
    req.headers = headers;
    req.body = body;
    req.body_len = body ? strlen(body) : 0;
    http_sink sink = { pump_response, pump_body, &p };
    rc = http_perform(&req, &sink, NULL, &err);
    if (p.failed) {
        err = p.err;
        rc = err.code ? err.code : HEW_E_PROTOCOL;
    } else if (rc == HEW_OK && p.status >= 200 && p.status <= 299) {
        sse_end(p.decoder);
        if (pump_events(&p) && p.failed) {
            err = p.err;
            rc = err.code;
        }
    } else if (rc == HEW_OK) {
        /* an error body may echo the key the request carried */
        buf shown = BUF_INIT(ERROR_BODY_MAX * 2);
        redact_text(p.error_body.data ? p.error_body.data : "", p.error_body.len, &shown);
        if (shown.err == HEW_OK)
            on_event(ud, "http-error", shown.data ? shown.data : "", shown.len);
        else
            on_event(ud, "http-error", "", 0);
        buf_release(&shown);
    }
done:
    if (status_out)
        *status_out = p.status;
    if (rc != HEW_OK && errbuf && errbuf_len)
        snprintf(errbuf, errbuf_len, "%s", err.msg);
    sse_decoder_free(p.decoder);
    buf_release(&p.error_body);
    return rc;
}
