/* decode_openai_chat — the OpenAI Chat Completions stream adapter, for OpenAI and every
 * server that copies it (OpenRouter, DeepSeek, xAI, Groq, Ollama /v1, llama.cpp, vLLM,
 * LM Studio, Azure; providers.md §3): content deltas, reasoning_content / reasoning /
 * reasoning_details, tool_calls keyed by index (any start, interleaved, or whole in one
 * delta), usage on its own chunk or on the finish chunk, `[DONE]` as the terminal event,
 * errors inside the 200 stream (top-level `error`, finish_reason "error", vLLM's flat
 * {"object":"error"}), Azure's prompt-filter chunk. It must never take a chunk with an
 * `error` for content, and never treat a stream without [DONE] as complete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode_internal.h"

static api_stop map_stop(const api_decoder *d, const char *raw)
{
    if (!raw || !*raw)
        return d->ncalls ? API_STOP_TOOL_CALLS : API_STOP_STOP;
    if (strcmp(raw, "tool_calls") == 0 || strcmp(raw, "function_call") == 0)
        return API_STOP_TOOL_CALLS;
    if (strcmp(raw, "length") == 0 || strcmp(raw, "max_tokens") == 0)
        return API_STOP_LENGTH;
    if (strcmp(raw, "content_filter") == 0)
        return API_STOP_CONTENT_FILTER;
    /* "stop", "eos", "end_turn"...: servers that send "stop" after tool calls exist. */
    return d->ncalls ? API_STOP_TOOL_CALLS : API_STOP_STOP;
}

static void read_usage(api_decoder *d, const json_t *u)
{
    if (!json_is_object(u))
        return;
    const json_t *pd = json_object_get(u, "prompt_tokens_details");
    const json_t *cd = json_object_get(u, "completion_tokens_details");
    int64_t prompt = dec_int(u, "prompt_tokens");
    int64_t hit = dec_int(u, "prompt_cache_hit_tokens");   /* DeepSeek */
    int64_t miss = dec_int(u, "prompt_cache_miss_tokens"); /* DeepSeek */
    int64_t cached = dec_int(pd, "cached_tokens");
    int64_t cwrite = dec_int(pd, "cache_write_tokens");
    api_usage *us = &d->usage;
    api_usage fresh = API_USAGE_UNKNOWN;
    *us = fresh;
    us->input_total = prompt >= 0 ? prompt : (hit >= 0 && miss >= 0 ? hit + miss : -1);
    us->cache_read = cached >= 0 ? cached : hit;
    us->cache_write = cwrite;
    if (miss >= 0)
        us->input_uncached = miss;
    else if (us->input_total >= 0) {
        int64_t v = us->input_total - (us->cache_read > 0 ? us->cache_read : 0) -
                    (us->cache_write > 0 ? us->cache_write : 0);
        us->input_uncached = v < 0 ? 0 : v;
    }
    us->output = dec_int(u, "completion_tokens");
    us->reasoning = dec_int(cd, "reasoning_tokens");
    const json_t *cost = json_object_get(u, "cost"); /* OpenRouter, USD */
    if (json_is_number(cost) && json_number_value(cost) >= 0) {
        us->cost_usd = json_number_value(cost);
        const json_t *up =
            json_object_get(json_object_get(u, "cost_details"), "upstream_inference_cost");
        if (json_is_number(up) && json_number_value(up) > 0)
            us->cost_usd += json_number_value(up);
    }
    d->have_usage = true;
}

static void reasoning(api_decoder *d, const json_t *delta)
{
    const json_t *rc = json_object_get(delta, "reasoning_content");
    const json_t *r = json_object_get(delta, "reasoning");
    const json_t *details = json_object_get(delta, "reasoning_details");
    bool have_text = (json_is_string(rc) && json_string_length(rc) > 0) ||
                     (json_is_string(r) && json_string_length(r) > 0);
    if (!have_text && !json_is_array(details))
        return;
    int block = dec_reasoning_block(d, 0);
    if (json_is_string(rc) && json_string_length(rc) > 0)
        dec_reasoning(d, block, rc);
    else if (json_is_string(r) && json_string_length(r) > 0)
        dec_reasoning(d, block, r);
    size_t i;
    json_t *e;
    json_array_foreach(details, i, e) {
        if (!json_is_object(e))
            continue;
        /* OpenRouter carries the same text in `reasoning`: show it once. */
        if (!have_text) {
            const json_t *t = json_object_get(e, "text");
            if (!json_is_string(t))
                t = json_object_get(e, "summary");
            dec_reasoning(d, block, t);
        }
        char *dump = json_dumps(e, JSON_COMPACT);
        if (!dump)
            continue;
        api_chunk c = dec_reasoning_chunk(block);
        c.reasoning.details = dump;
        c.reasoning.details_len = strlen(dump);
        const json_t *sig = json_object_get(e, "signature");
        if (json_is_string(sig)) {
            c.reasoning.signature = json_string_value(sig);
            c.reasoning.signature_len = json_string_length(sig);
        }
        dec_emit(d, &c);
        free(dump);
    }
}

static void tool_call(api_decoder *d, long key, const json_t *tc)
{
    int ci = dec_call_for(d, key, true, NULL);
    if (ci < 0)
        return;
    const json_t *fn = json_object_get(tc, "function");
    if (!json_is_object(fn))
        fn = tc; /* the legacy delta.function_call has no wrapper */
    const json_t *id = json_object_get(tc, "id");
    const json_t *name = json_object_get(fn, "name");
    const json_t *args = json_object_get(fn, "arguments");
    const char *ids = json_is_string(id) && json_string_length(id) ? json_string_value(id) : NULL;
    const char *names =
        json_is_string(name) && json_string_length(name) ? json_string_value(name) : NULL;
    if (json_is_string(args))
        dec_tool(d, ci, ids, false, names, json_string_value(args), json_string_length(args),
                 NULL, 0);
    else if (json_is_object(args)) { /* a server that sends arguments as an object */
        char *dump = json_dumps(args, JSON_COMPACT);
        dec_tool(d, ci, ids, false, names, dump ? dump : "", dump ? strlen(dump) : 0, NULL, 0);
        free(dump);
    } else if (ids || names)
        dec_tool(d, ci, ids, false, names, "", 0, NULL, 0);
}

static void choice(api_decoder *d, const json_t *ch)
{
    const json_t *delta = json_object_get(ch, "delta");
    if (!json_is_object(delta))
        delta = json_object_get(ch, "message"); /* a non-streamed completion */
    if (json_is_object(delta)) {
        reasoning(d, delta);
        dec_text(d, json_object_get(delta, "content"));
        dec_text(d, json_object_get(delta, "refusal"));
        const json_t *tcs = json_object_get(delta, "tool_calls");
        size_t i;
        json_t *tc;
        json_array_foreach(tcs, i, tc) {
            const json_t *idx = json_object_get(tc, "index");
            tool_call(d, json_is_integer(idx) ? (long)json_integer_value(idx) : (long)i, tc);
            if (d->finished)
                return;
        }
        const json_t *fc = json_object_get(delta, "function_call");
        if (json_is_object(fc))
            tool_call(d, -1, fc);
    }
    const json_t *fr = json_object_get(ch, "finish_reason");
    if (json_is_string(fr)) {
        dec_set_stop(d, json_string_value(fr));
        d->saw_finish = true;
    }
}

static bool truthy_error(const json_t *e)
{
    return e && !json_is_null(e) && !json_is_false(e) &&
           !(json_is_string(e) && json_string_length(e) == 0);
}

void dec_openai_chat_event(api_decoder *d, const char *type, size_t tl, const char *data,
                           size_t dl)
{
    size_t k = 0;
    while (k < dl && (data[k] == ' ' || data[k] == '\t'))
        k++;
    if (dl - k >= 6 && memcmp(data + k, "[DONE]", 6) == 0) {
        if (d->have_stop && strcmp(d->stop_raw, "error") == 0) {
            dec_fail_stream(d, "finish_reason \"error\"");
            return;
        }
        dec_end(d, map_stop(d, d->have_stop ? d->stop_raw : NULL), d->stop_raw);
        return;
    }
    if (dec_fast_openai_chat(d, type, tl, data, dl))
        return;
    json_t *j = dec_parse(d, data, dl, "OpenAI chat");
    if (!j)
        return;
    const json_t *o = json_is_array(j) ? json_array_get(j, 0) : j;
    const char *obj = json_string_value(json_object_get(o, "object"));
    if (!json_is_object(o) || truthy_error(json_object_get(o, "error")) ||
        (obj && strcmp(obj, "error") == 0) || (tl == 5 && memcmp(type, "error", 5) == 0)) {
        dec_fail_event(d, o);
        json_decref(j);
        return;
    }
    const json_t *choices = json_object_get(o, "choices");
    size_t i;
    json_t *ch;
    json_array_foreach(choices, i, ch) {
        const json_t *idx = json_object_get(ch, "index");
        if (json_is_integer(idx) && json_integer_value(idx) != 0)
            continue; /* n > 1: hew asks for one choice */
        choice(d, ch);
        if (d->finished)
            break;
    }
    read_usage(d, json_object_get(o, "usage"));
    if (!d->finished && d->have_stop && strcmp(d->stop_raw, "error") == 0)
        dec_fail_json(d, o); /* finish_reason "error" with no error object */
    json_decref(j);
}
