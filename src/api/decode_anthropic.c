/* decode_anthropic — the Anthropic Messages stream adapter (providers.md §2.3): message_start
 * usage, content blocks (text, thinking + signature, redacted_thinking, tool_use with
 * input_json_delta fragments), cumulative message_delta usage and stop reason,
 * message_stop as the only terminal event, `event: error` mid-stream, ping and unknown
 * events ignored. It must never treat a stream without message_stop as complete, and
 * never re-parse tool arguments (fragments go through as raw text). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode_internal.h"

static api_stop map_stop(const api_decoder *d, const char *raw)
{
    if (!raw || !*raw)
        return d->ncalls ? API_STOP_TOOL_CALLS : API_STOP_STOP;
    if (strcmp(raw, "tool_use") == 0)
        return API_STOP_TOOL_CALLS;
    if (strcmp(raw, "max_tokens") == 0 || strcmp(raw, "model_context_window_exceeded") == 0)
        return API_STOP_LENGTH;
    if (strcmp(raw, "refusal") == 0)
        return API_STOP_CONTENT_FILTER;
    return API_STOP_STOP; /* end_turn, stop_sequence, pause_turn */
}

/* Merge an Anthropic usage object (message_start's or message_delta's, cumulative). */
static void read_usage(api_decoder *d, const json_t *u, bool with_output)
{
    if (!json_is_object(u))
        return;
    int64_t in = dec_int(u, "input_tokens");
    int64_t cw = dec_int(u, "cache_creation_input_tokens");
    int64_t cr = dec_int(u, "cache_read_input_tokens");
    int64_t out = dec_int(u, "output_tokens");
    api_usage *us = &d->usage;
    if (in >= 0)
        us->input_uncached = in;
    if (cw >= 0)
        us->cache_write = cw;
    if (cr >= 0)
        us->cache_read = cr;
    if (with_output && out >= 0)
        us->output = out;
    if (us->input_uncached >= 0)
        us->input_total = us->input_uncached + (us->cache_write > 0 ? us->cache_write : 0) +
                          (us->cache_read > 0 ? us->cache_read : 0);
    d->have_usage = true;
}

static void reasoning_meta(api_decoder *d, int block, const char *sig, size_t sig_len,
                           const char *opaque, size_t opaque_len, bool redacted)
{
    api_chunk c = dec_reasoning_chunk(block);
    c.reasoning.signature = sig;
    c.reasoning.signature_len = sig ? sig_len : 0;
    c.reasoning.opaque = opaque;
    c.reasoning.opaque_len = opaque ? opaque_len : 0;
    c.reasoning.redacted = redacted;
    dec_emit(d, &c);
}

static void block_start(api_decoder *d, const json_t *j)
{
    long index = (long)dec_int(j, "index");
    const json_t *cb = json_object_get(j, "content_block");
    const char *bt = json_string_value(json_object_get(cb, "type"));
    if (!bt)
        return;
    if (strcmp(bt, "text") == 0) {
        dec_text(d, json_object_get(cb, "text"));
    } else if (strcmp(bt, "thinking") == 0) {
        int block = dec_reasoning_block(d, index);
        dec_reasoning(d, block, json_object_get(cb, "thinking"));
        const json_t *sig = json_object_get(cb, "signature");
        if (json_is_string(sig) && json_string_length(sig) > 0)
            reasoning_meta(d, block, json_string_value(sig), json_string_length(sig), NULL, 0,
                           false);
    } else if (strcmp(bt, "redacted_thinking") == 0) {
        int block = dec_reasoning_block(d, index);
        const json_t *data = json_object_get(cb, "data");
        reasoning_meta(d, block, NULL, 0, json_is_string(data) ? json_string_value(data) : "",
                       json_string_length(data), true);
    } else if (strcmp(bt, "tool_use") == 0) {
        bool is_new;
        int ci = dec_call_for(d, index, true, &is_new);
        if (ci < 0)
            return;
        const json_t *input = json_object_get(cb, "input");
        if (json_is_object(input) && json_object_size(input) > 0 && !d->calls[ci].pending)
            d->calls[ci].pending = json_dumps(input, JSON_COMPACT | JSON_ENCODE_ANY);
        dec_tool(d, ci, json_string_value(json_object_get(cb, "id")), false,
                 json_string_value(json_object_get(cb, "name")), "", 0, NULL, 0);
    }
    /* server_tool_use, web_search_tool_result, ...: run by the server, nothing to do. */
}

static void block_delta(api_decoder *d, const json_t *j)
{
    long index = (long)dec_int(j, "index");
    const json_t *delta = json_object_get(j, "delta");
    const char *dt = json_string_value(json_object_get(delta, "type"));
    if (!dt)
        return;
    if (strcmp(dt, "text_delta") == 0) {
        dec_text(d, json_object_get(delta, "text"));
    } else if (strcmp(dt, "thinking_delta") == 0) {
        dec_reasoning(d, dec_reasoning_block(d, index), json_object_get(delta, "thinking"));
    } else if (strcmp(dt, "signature_delta") == 0) {
        const json_t *sig = json_object_get(delta, "signature");
        if (json_is_string(sig))
            reasoning_meta(d, dec_reasoning_block(d, index), json_string_value(sig),
                           json_string_length(sig), NULL, 0, false);
    } else if (strcmp(dt, "input_json_delta") == 0) {
        int ci = dec_call_for(d, index, false, NULL);
        const json_t *pj = json_object_get(delta, "partial_json");
        if (ci >= 0 && json_is_string(pj) && json_string_length(pj) > 0)
            dec_tool(d, ci, NULL, false, NULL, json_string_value(pj), json_string_length(pj),
                     NULL, 0);
    }
    /* citations_delta and future delta types: ignored. */
}

static void block_stop(api_decoder *d, const json_t *j)
{
    int ci = dec_call_for(d, (long)dec_int(j, "index"), false, NULL);
    if (ci < 0)
        return;
    dec_call *c = &d->calls[ci];
    if (c->pending && !c->args_seen)
        dec_tool(d, ci, NULL, false, NULL, c->pending, strlen(c->pending), NULL, 0);
    dec_tool_close(d, ci);
}

static void message_start(api_decoder *d, const json_t *j)
{
    const json_t *msg = json_object_get(j, "message");
    const char *id = json_string_value(json_object_get(msg, "id"));
    if (d->msg_open) {
        if (id && d->msg_id[0] && strcmp(id, d->msg_id) != 0)
            dec_fail_stream(d, "a second message_start for another message while one was open");
        return; /* a repeated message_start for the same message: ignored */
    }
    d->msg_open = true;
    snprintf(d->msg_id, sizeof d->msg_id, "%s", id ? id : "");
    read_usage(d, json_object_get(msg, "usage"), false);
}

void dec_anthropic_event(api_decoder *d, const char *type, size_t tl, const char *data,
                         size_t dl)
{
    if (dec_fast_anthropic(d, type, tl, data, dl))
        return;
    json_t *j = dec_parse(d, data, dl, "Anthropic");
    if (!j)
        return;
    const char *t = json_string_value(json_object_get(j, "type"));
    if (!t)
        t = type;
    if (strcmp(t, "content_block_delta") == 0) {
        block_delta(d, j);
    } else if (strcmp(t, "content_block_start") == 0) {
        block_start(d, j);
    } else if (strcmp(t, "content_block_stop") == 0) {
        block_stop(d, j);
    } else if (strcmp(t, "message_start") == 0) {
        message_start(d, j);
    } else if (strcmp(t, "message_delta") == 0) {
        const json_t *delta = json_object_get(j, "delta");
        const char *sr = json_string_value(json_object_get(delta, "stop_reason"));
        if (sr)
            dec_set_stop(d, sr);
        read_usage(d, json_object_get(j, "usage"), true);
    } else if (strcmp(t, "message_stop") == 0) {
        dec_end(d, map_stop(d, d->have_stop ? d->stop_raw : NULL), d->stop_raw);
    } else if (strcmp(t, "error") == 0) {
        dec_fail_json(d, j);
    }
    /* ping and unknown events: ignored (the API may add event types). */
    json_decref(j);
}
