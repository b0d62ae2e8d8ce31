/* decode_openai_responses — the OpenAI Responses stream adapter (providers.md §4.2):
 * output_text deltas, reasoning summary / raw reasoning deltas, reasoning items with
 * encrypted_content (kept to send back), function_call items with arguments deltas keyed
 * by output_index, and the terminal events response.completed / .incomplete / .failed
 * (an `error` event may come first). Dispatch is on data.type. It must never treat a
 * stream without a terminal event as complete, and never use the fc_ item id as the
 * call id (tool results reference call_id). */
#include <string.h>

#include "api/decode_internal.h"

static void read_usage(api_decoder *d, const json_t *u)
{
    if (!json_is_object(u))
        return;
    const json_t *in = json_object_get(u, "input_tokens_details");
    const json_t *out = json_object_get(u, "output_tokens_details");
    api_usage *us = &d->usage;
    api_usage fresh = API_USAGE_UNKNOWN;
    *us = fresh;
    us->input_total = dec_int(u, "input_tokens");
    us->cache_read = dec_int(in, "cached_tokens");
    us->cache_write = dec_int(in, "cache_write_tokens");
    if (us->input_total >= 0) {
        int64_t v = us->input_total - (us->cache_read > 0 ? us->cache_read : 0) -
                    (us->cache_write > 0 ? us->cache_write : 0);
        us->input_uncached = v < 0 ? 0 : v;
    }
    us->output = dec_int(u, "output_tokens");
    us->reasoning = dec_int(out, "reasoning_tokens");
    d->have_usage = true;
}

static const char *str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) && json_string_length(v) ? json_string_value(v) : NULL;
}

static void item_added(api_decoder *d, long oi, const json_t *item)
{
    const char *t = str(item, "type");
    if (!t)
        return;
    if (strcmp(t, "function_call") == 0) {
        bool is_new;
        int ci = dec_call_for(d, oi, true, &is_new);
        if (ci < 0)
            return;
        const json_t *args = json_object_get(item, "arguments");
        dec_tool(d, ci, str(item, "call_id"), false, str(item, "name"),
                 json_is_string(args) ? json_string_value(args) : "", json_string_length(args),
                 NULL, 0);
    } else if (strcmp(t, "reasoning") == 0) {
        dec_reasoning_block(d, oi);
    }
}

static void item_done(api_decoder *d, long oi, const json_t *item)
{
    const char *t = str(item, "type");
    if (!t)
        return;
    if (strcmp(t, "function_call") == 0) {
        bool is_new;
        int ci = dec_call_for(d, oi, true, &is_new);
        if (ci < 0)
            return;
        const json_t *args = json_object_get(item, "arguments");
        if (is_new)
            dec_tool(d, ci, str(item, "call_id"), false, str(item, "name"), "", 0, NULL, 0);
        if (!d->calls[ci].args_seen && json_is_string(args) && json_string_length(args))
            dec_tool(d, ci, NULL, false, NULL, json_string_value(args), json_string_length(args),
                     NULL, 0);
        dec_tool_close(d, ci);
    } else if (strcmp(t, "reasoning") == 0) {
        api_chunk c = dec_reasoning_chunk(dec_reasoning_block(d, oi));
        c.reasoning.item_id = str(item, "id");
        const json_t *enc = json_object_get(item, "encrypted_content");
        if (json_is_string(enc)) {
            c.reasoning.opaque = json_string_value(enc);
            c.reasoning.opaque_len = json_string_length(enc);
        }
        if (c.reasoning.item_id || c.reasoning.opaque)
            dec_emit(d, &c);
    }
}

static void args_delta(api_decoder *d, long oi, const json_t *delta, bool done)
{
    bool is_new;
    int ci = dec_call_for(d, oi, true, &is_new);
    if (ci < 0 || !json_is_string(delta))
        return;
    if (done && d->calls[ci].args_seen)
        return; /* the .done event repeats what the deltas said */
    if (json_string_length(delta) || is_new)
        dec_tool(d, ci, NULL, false, NULL, json_string_value(delta), json_string_length(delta),
                 NULL, 0);
}

void dec_responses_event(api_decoder *d, const char *type, size_t tl, const char *data,
                         size_t dl)
{
    (void)tl;
    json_t *j = dec_parse(d, data, dl, "Responses");
    if (!j)
        return;
    const char *t = str(j, "type");
    if (!t)
        t = type;
    long oi = (long)dec_int(j, "output_index");
    if (strcmp(t, "response.output_text.delta") == 0 ||
        strcmp(t, "response.refusal.delta") == 0) {
        dec_text(d, json_object_get(j, "delta"));
    } else if (strcmp(t, "response.function_call_arguments.delta") == 0) {
        args_delta(d, oi, json_object_get(j, "delta"), false);
    } else if (strcmp(t, "response.function_call_arguments.done") == 0) {
        args_delta(d, oi, json_object_get(j, "arguments"), true);
    } else if (strcmp(t, "response.reasoning_summary_text.delta") == 0 ||
               strcmp(t, "response.reasoning_text.delta") == 0) {
        dec_reasoning(d, dec_reasoning_block(d, oi), json_object_get(j, "delta"));
    } else if (strcmp(t, "response.output_item.added") == 0) {
        item_added(d, oi, json_object_get(j, "item"));
    } else if (strcmp(t, "response.output_item.done") == 0) {
        item_done(d, oi, json_object_get(j, "item"));
    } else if (strcmp(t, "response.completed") == 0) {
        const json_t *resp = json_object_get(j, "response");
        read_usage(d, json_object_get(resp, "usage"));
        dec_end(d, d->ncalls ? API_STOP_TOOL_CALLS : API_STOP_STOP, "completed");
    } else if (strcmp(t, "response.incomplete") == 0) {
        const json_t *resp = json_object_get(j, "response");
        read_usage(d, json_object_get(resp, "usage"));
        const char *why = str(json_object_get(resp, "incomplete_details"), "reason");
        api_stop stop = why && strcmp(why, "content_filter") == 0 ? API_STOP_CONTENT_FILTER
                                                                  : API_STOP_LENGTH;
        dec_end(d, stop, "incomplete");
    } else if (strcmp(t, "response.failed") == 0) {
        const json_t *resp = json_object_get(j, "response");
        read_usage(d, json_object_get(resp, "usage"));
        dec_fail_json(d, j);
    } else if (strcmp(t, "error") == 0) {
        dec_fail_json(d, j);
    }
    /* response.created, .in_progress, content_part.*, *.done, unknown: nothing to do. */
    json_decref(j);
}
