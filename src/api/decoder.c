/* decoder — frames the body as SSE, hands each event to the protocol adapter, and owns
 * what every adapter shares: emitting chunks, the tool-call table, usage, and ending the
 * turn exactly once (END or ERROR). It must never emit after the end, never let a cut
 * stream look complete, and never scan a byte twice except the small raw tail kept to
 * explain a body that was not an event stream. */
#include "api/decoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode_internal.h"
#include "base/limits.h"
#include "net/sse.h"

/* Fail the turn: USAGE (if any) then ERROR with d->err; with an answer too large to take
 * in (not retryable, api_error_too_large). */
static void dec_fail(api_decoder *d);
static void dec_fail_too_large(api_decoder *d, const char *what);

#define RAW_KEEP ((size_t)64 << 10) /* the tail kept to classify a non-SSE error body */

api_decoder *api_decoder_new(api_protocol p, long http_status, api_chunk_fn fn, void *ud)
{
    api_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    /* A native tool call may come whole in one line (Gemini, some compatible servers):
     * lines and events as large as the largest tool content, escaped (base/limits.h). */
    sse_limits lim = { LIMITS_STREAM_LINE, LIMITS_STREAM_LINE };
    d->sse = sse_decoder_new(&lim);
    if (!d->sse) {
        free(d);
        return NULL;
    }
    d->proto = p;
    d->http_status = http_status ? http_status : 200;
    d->fn = fn;
    d->ud = ud;
    api_usage u = API_USAGE_UNKNOWN;
    d->usage = u;
    d->cur_reasoning_key = -1;
    api_error_init(&d->err);
    buf_init(&d->raw, RAW_KEEP * 2 + 1);
    buf_init(&d->scratch, 0);
    return d;
}

void api_decoder_set_fast_paths(api_decoder *d, bool on)
{
    d->no_fast = !on;
}

void api_decoder_free(api_decoder *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->ncalls; i++)
        free(d->calls[i].pending);
    sse_decoder_free(d->sse);
    buf_release(&d->raw);
    buf_release(&d->scratch);
    free(d);
}

bool api_decoder_finished(const api_decoder *d)
{
    return d->finished;
}

bool api_decoder_complete(const api_decoder *d)
{
    return d->complete;
}

size_t api_decoder_chunks(const api_decoder *d)
{
    return d->chunks;
}

/* ---- helpers for the adapters -------------------------------------------------------- */

void dec_emit(api_decoder *d, const api_chunk *c)
{
    if (d->stopped || d->finished)
        return;
    d->chunks++;
    if (d->fn && d->fn(d->ud, c) != 0)
        d->stopped = true;
}

void dec_text_raw(api_decoder *d, const char *s, size_t n)
{
    if (!s || n == 0)
        return;
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_TEXT;
    c.text = s;
    c.len = n;
    dec_emit(d, &c);
}

void dec_text(api_decoder *d, const json_t *s)
{
    if (json_is_string(s))
        dec_text_raw(d, json_string_value(s), json_string_length(s));
}

int dec_reasoning_block(api_decoder *d, long key)
{
    if (key != d->cur_reasoning_key || d->reasoning_blocks == 0) {
        d->cur_reasoning_key = key;
        d->reasoning_blocks++;
    }
    return d->reasoning_blocks - 1;
}

void dec_reasoning_raw(api_decoder *d, int block, const char *s, size_t n)
{
    if (!s || n == 0)
        return;
    api_chunk c = dec_reasoning_chunk(block);
    c.text = s;
    c.len = n;
    dec_emit(d, &c);
}

void dec_reasoning(api_decoder *d, int block, const json_t *s)
{
    if (json_is_string(s))
        dec_reasoning_raw(d, block, json_string_value(s), json_string_length(s));
}

int dec_call_for(api_decoder *d, long key, bool create, bool *is_new)
{
    if (is_new)
        *is_new = false;
    for (int i = 0; i < d->ncalls; i++)
        if (d->calls[i].key == key)
            return i;
    if (!create)
        return -1;
    if (d->ncalls >= DEC_MAX_CALLS) {
        dec_fail_too_large(d, "more than 256 tool calls in one turn");
        return -1;
    }
    dec_call *c = &d->calls[d->ncalls];
    memset(c, 0, sizeof *c);
    c->key = key;
    if (is_new)
        *is_new = true;
    return d->ncalls++;
}

void dec_tool(api_decoder *d, int index, const char *id, bool synthesized, const char *name,
              const char *args, size_t args_len, const char *sig, size_t sig_len)
{
    if (index < 0 || index >= d->ncalls)
        return;
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_TOOL_DELTA;
    c.tool.index = index;
    c.tool.id = id;
    c.tool.id_synthesized = synthesized && id;
    c.tool.name = name;
    c.tool.args = args ? args : "";
    c.tool.args_len = args ? args_len : 0;
    c.tool.thought_signature = sig;
    c.tool.thought_signature_len = sig ? sig_len : 0;
    if (c.tool.args_len)
        d->calls[index].args_seen = true;
    dec_emit(d, &c);
}

void dec_tool_close(api_decoder *d, int index)
{
    if (index < 0 || index >= d->ncalls || d->calls[index].closed)
        return;
    d->calls[index].closed = true;
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_TOOL_DELTA;
    c.tool.index = index;
    c.tool.args = "";
    c.tool.done = true;
    dec_emit(d, &c);
}

static void emit_usage(api_decoder *d)
{
    if (!d->have_usage || !api_usage_known(&d->usage))
        return;
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_USAGE;
    c.usage = d->usage;
    dec_emit(d, &c);
}

void dec_set_stop(api_decoder *d, const char *raw)
{
    if (!raw)
        return;
    snprintf(d->stop_raw, sizeof d->stop_raw, "%s", raw);
    d->have_stop = true;
}

void dec_end(api_decoder *d, api_stop stop, const char *raw)
{
    if (d->finished)
        return;
    d->terminal = true;
    emit_usage(d);
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_END;
    c.end.stop = stop;
    c.end.raw = raw ? raw : "";
    c.end.tool_args_truncated = stop == API_STOP_LENGTH && d->ncalls > 0;
    dec_emit(d, &c);
    d->finished = true;
    d->complete = true;
}

static void dec_fail(api_decoder *d)
{
    if (d->finished)
        return;
    emit_usage(d);
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_ERROR;
    c.error = &d->err;
    dec_emit(d, &c);
    d->finished = true;
}

void dec_fail_stream(api_decoder *d, const char *what)
{
    if (d->finished)
        return;
    api_error_stream(&d->err, what);
    d->err.http_status = d->http_status;
    dec_fail(d);
}

static void dec_fail_too_large(api_decoder *d, const char *what)
{
    if (d->finished)
        return;
    api_error_too_large(&d->err, what);
    d->err.http_status = d->http_status;
    dec_fail(d);
}

/* The SSE decoder failed: a line or event past the cap is an answer too large (a retry
 * gets it again), anything else a broken stream. */
static void fail_sse(api_decoder *d, const hew_err *err)
{
    if (err->code != HEW_E_TOOBIG) {
        dec_fail_stream(d, err->msg);
        return;
    }
    char what[160];
    snprintf(what, sizeof what,
             "one line of the stream is longer than %zu bytes (%zu MiB), the most hew takes "
             "in",
             (size_t)LIMITS_STREAM_LINE, (size_t)LIMITS_STREAM_LINE >> 20);
    dec_fail_too_large(d, what);
}

void dec_fail_event(api_decoder *d, const json_t *o)
{
    if (json_is_object(o))
        dec_fail_json(d, o);
    else
        dec_fail_stream(d, "an event that is not a JSON object");
}

api_chunk dec_reasoning_chunk(int block)
{
    api_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = API_CHUNK_REASONING;
    c.text = "";
    c.reasoning.block = block;
    return c;
}

void dec_fail_json(api_decoder *d, const json_t *json)
{
    if (d->finished)
        return;
    api_classify_stream_json(json, d->http_status, &d->err);
    dec_fail(d);
}

json_t *dec_parse(api_decoder *d, const char *data, size_t len, const char *what)
{
    json_error_t je;
    json_t *j = json_loadb(data, len, JSON_ALLOW_NUL, &je);
    if (!j) {
        char msg[256];
        snprintf(msg, sizeof msg, "a malformed %s event: %s at byte %d", what, je.text,
                 je.position);
        dec_fail_stream(d, msg);
    }
    return j;
}

int64_t dec_int(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    if (json_is_integer(v))
        return json_integer_value(v) < 0 ? -1 : json_integer_value(v);
    if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9e18)
        return (int64_t)json_real_value(v);
    return -1;
}

bool api_decoder_usage(const api_decoder *d, api_usage *out)
{
    if (!d || d->finished || !d->have_usage || !api_usage_known(&d->usage))
        return false;
    *out = d->usage;
    return true;
}

bool api_usage_known(const api_usage *u)
{
    return u->input_total >= 0 || u->input_uncached >= 0 || u->cache_read >= 0 ||
           u->cache_write >= 0 || u->output >= 0 || u->reasoning >= 0 || u->cost_usd >= 0;
}

/* ---- framing ------------------------------------------------------------------------ */

static void dispatch(api_decoder *d, const char *type, size_t tl, const char *data, size_t dl)
{
    if (d->finished || d->stopped)
        return;
    d->events++;
    switch (d->proto) {
    case API_PROTO_ANTHROPIC:
        dec_anthropic_event(d, type, tl, data, dl);
        break;
    case API_PROTO_OPENAI_CHAT:
        dec_openai_chat_event(d, type, tl, data, dl);
        break;
    case API_PROTO_OPENAI_RESPONSES:
        dec_responses_event(d, type, tl, data, dl);
        break;
    case API_PROTO_GEMINI:
        dec_gemini_event(d, type, tl, data, dl);
        break;
    }
}

static void keep_raw(api_decoder *d, const char *bytes, size_t n)
{
    if (n >= RAW_KEEP) {
        buf_reset(&d->raw);
        buf_append(&d->raw, bytes + n - RAW_KEEP, RAW_KEEP);
        return;
    }
    if (d->raw.len + n > RAW_KEEP * 2)
        buf_consume(&d->raw, d->raw.len + n - RAW_KEEP);
    buf_append(&d->raw, bytes, n);
}

/* Dispatch every complete event the SSE parser holds. */
static void drain(api_decoder *d)
{
    hew_err err = HEW_ERR_INIT;
    sse_event ev;
    int r;
    while (!d->finished && (r = sse_next(d->sse, &ev, &err)) != 0) {
        if (r < 0) {
            fail_sse(d, &err);
            break;
        }
        dispatch(d, ev.event, ev.event_len, ev.data, ev.data_len);
    }
}

hew_code api_decoder_feed(api_decoder *d, const char *bytes, size_t n)
{
    if (d->stopped)
        return HEW_E_ABORTED;
    if (d->finished || n == 0)
        return HEW_OK;
    keep_raw(d, bytes, n);
    hew_err err = HEW_ERR_INIT;
    if (sse_feed(d->sse, bytes, n, &err) != HEW_OK) {
        fail_sse(d, &err);
        return d->stopped ? HEW_E_ABORTED : HEW_OK;
    }
    drain(d);
    return d->stopped ? HEW_E_ABORTED : HEW_OK;
}

/* Lines of the raw tail that no SSE parser sees: a bare JSON error (Gemini, a proxy) or
 * llama.cpp's legacy `error: {…}` line. Returns true when one was found and reported. */
static bool explain_raw(api_decoder *d)
{
    const char *s = d->raw.data;
    size_t n = d->raw.len;
    if (!s || n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && s[i - 1] != '\n' && s[i - 1] != '\r')
            continue;
        const char *line = s + i;
        size_t rest = n - i;
        const char *json = NULL;
        size_t jlen = 0;
        if (line[0] == '{' || line[0] == '[') {
            json = line;
            jlen = rest;
        } else if (rest > 6 && strncmp(line, "error:", 6) == 0) {
            json = line + 6;
            const char *eol = memchr(json, '\n', rest - 6);
            jlen = eol ? (size_t)(eol - json) : rest - 6;
        }
        if (!json)
            continue;
        json_error_t je;
        json_t *j = json_loadb(json, jlen, JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, &je);
        if (!j)
            continue;
        const json_t *o = json_is_array(j) ? json_array_get(j, 0) : j;
        bool is_error = json_is_object(o) &&
                        (json_object_get(o, "error") ||
                         json_is_string(json_object_get(o, "message")) ||
                         (json_is_string(json_object_get(o, "object")) &&
                          strcmp(json_string_value(json_object_get(o, "object")), "error") == 0));
        if (is_error) {
            dec_fail_json(d, j);
            json_decref(j);
            return true;
        }
        json_decref(j);
    }
    size_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n'))
        k++;
    bool sse_like = k < n && (s[k] == ':' || strncmp(s + k, "data", 4) == 0 ||
                              strncmp(s + k, "event", 5) == 0 || strncmp(s + k, "id", 2) == 0 ||
                              strncmp(s + k, "retry", 5) == 0);
    if (d->events == 0 && k < n && !sse_like) {
        /* Not an event stream at all: an HTML page, plain text. The same URL gives the
         * same page: not retried. */
        api_error_not_stream(d->http_status, s, n, &d->err);
        dec_fail(d);
        return true;
    }
    return false;
}

void api_decoder_end(api_decoder *d)
{
    if (d->finished || d->stopped)
        return;
    sse_end(d->sse);
    drain(d);
    if (d->finished || d->stopped)
        return;
    if (d->proto == API_PROTO_GEMINI)
        dec_gemini_end(d);
    if (d->finished || d->stopped)
        return;
    if (explain_raw(d))
        return;
    static const char *const missing[] = {
        [API_PROTO_ANTHROPIC] = "no message_stop event",
        [API_PROTO_OPENAI_CHAT] = "no data: [DONE]",
        [API_PROTO_OPENAI_RESPONSES] = "no response.completed event",
        [API_PROTO_GEMINI] = "no chunk with a finishReason",
    };
    dec_fail_stream(d, missing[d->proto]);
}
