/* decode_gemini — the Gemini streamGenerateContent?alt=sse adapter (providers.md §5.2):
 * every event is a whole GenerateContentResponse; text parts are increments, thought
 * parts are reasoning, functionCall parts arrive whole and usually without an id (hew
 * makes a stable one), thoughtSignature is kept, usageMetadata is cumulative (the last
 * wins), and the turn ends at EOF after a chunk with finishReason (or a blocked prompt).
 * Error objects may arrive in the stream, also wrapped in an array. It must never invent
 * a finish the server did not send, and never change an id between two decodes of the
 * same bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decode_internal.h"

static void read_usage(api_decoder *d, const json_t *u)
{
    if (!json_is_object(u))
        return;
    api_usage *us = &d->usage;
    api_usage fresh = API_USAGE_UNKNOWN;
    *us = fresh;
    int64_t prompt = dec_int(u, "promptTokenCount");
    int64_t cached = dec_int(u, "cachedContentTokenCount");
    int64_t cand = dec_int(u, "candidatesTokenCount");
    int64_t thoughts = dec_int(u, "thoughtsTokenCount");
    us->input_total = prompt;
    us->cache_read = cached;
    if (prompt >= 0) {
        int64_t v = prompt - (cached > 0 ? cached : 0);
        us->input_uncached = v < 0 ? 0 : v;
    }
    if (cand >= 0 || thoughts >= 0)
        us->output = (cand > 0 ? cand : 0) + (thoughts > 0 ? thoughts : 0);
    us->reasoning = thoughts;
    d->have_usage = true;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* A stable id: from the response id when there is one, else from the call itself. */
static const char *make_id(api_decoder *d, const json_t *root, const char *name,
                           const char *args, int ordinal)
{
    if (!d->gem_prefix[0]) {
        const char *rid = json_string_value(json_object_get(root, "responseId"));
        size_t o = 0;
        for (; rid && *rid && o + 1 < 25; rid++)
            if ((*rid >= 'a' && *rid <= 'z') || (*rid >= 'A' && *rid <= 'Z') ||
                (*rid >= '0' && *rid <= '9'))
                d->gem_prefix[o++] = *rid;
        d->gem_prefix[o] = '\0';
        if (!o) {
            uint64_t h = fnv1a(14695981039346656037ULL, name, strlen(name));
            h = fnv1a(h, args, strlen(args));
            snprintf(d->gem_prefix, sizeof d->gem_prefix, "%016" PRIx64, h);
        }
    }
    snprintf(d->idbuf, sizeof d->idbuf, "call_%s_%d", d->gem_prefix, ordinal);
    return d->idbuf;
}

static void signature_meta(api_decoder *d, const json_t *sig)
{
    if (!json_is_string(sig) || json_string_length(sig) == 0)
        return;
    api_chunk c = dec_reasoning_chunk(dec_reasoning_block(d, 0));
    c.reasoning.signature = json_string_value(sig);
    c.reasoning.signature_len = json_string_length(sig);
    dec_emit(d, &c);
}

static void part(api_decoder *d, const json_t *root, const json_t *p)
{
    const json_t *sig = json_object_get(p, "thoughtSignature");
    const json_t *fc = json_object_get(p, "functionCall");
    if (json_is_object(fc)) {
        const char *name = json_string_value(json_object_get(fc, "name"));
        const json_t *args = json_object_get(fc, "args");
        char *dump = json_is_object(args) ? json_dumps(args, JSON_COMPACT) : NULL;
        const char *a = dump ? dump : "{}";
        int ci = dec_call_for(d, d->ncalls, true, NULL);
        if (ci >= 0) {
            const char *id = json_string_value(json_object_get(fc, "id"));
            bool synth = !id || !*id;
            if (synth)
                id = make_id(d, root, name ? name : "", a, ci);
            dec_tool(d, ci, id, synth, name ? name : "", a, strlen(a),
                     json_string_value(sig), json_string_length(sig));
            dec_tool_close(d, ci);
        }
        free(dump);
        return;
    }
    const json_t *text = json_object_get(p, "text");
    if (json_is_true(json_object_get(p, "thought"))) {
        dec_reasoning(d, dec_reasoning_block(d, 0), text);
        signature_meta(d, sig);
        return;
    }
    dec_text(d, text);
    signature_meta(d, sig);
}

void dec_gemini_event(api_decoder *d, const char *type, size_t tl, const char *data, size_t dl)
{
    (void)type;
    (void)tl;
    json_t *j = dec_parse(d, data, dl, "Gemini");
    if (!j)
        return;
    const json_t *o = json_is_array(j) ? json_array_get(j, 0) : j;
    if (!json_is_object(o) || json_object_get(o, "error")) {
        dec_fail_event(d, o);
        json_decref(j);
        return;
    }
    const json_t *cands = json_object_get(o, "candidates");
    const json_t *c0 = json_array_get(cands, 0);
    const json_t *parts = json_object_get(json_object_get(c0, "content"), "parts");
    size_t i;
    json_t *p;
    json_array_foreach(parts, i, p) {
        part(d, o, p);
        if (d->finished)
            break;
    }
    const json_t *fr = json_object_get(c0, "finishReason");
    if (json_is_string(fr)) {
        dec_set_stop(d, json_string_value(fr));
        d->saw_finish = true;
    }
    const json_t *block = json_object_get(json_object_get(o, "promptFeedback"), "blockReason");
    if (json_is_string(block)) {
        dec_set_stop(d, json_string_value(block));
        d->saw_finish = true;
        d->msg_open = true; /* marks "prompt blocked" */
    }
    read_usage(d, json_object_get(o, "usageMetadata"));
    json_decref(j);
}

void dec_gemini_end(api_decoder *d)
{
    if (!d->saw_finish)
        return;
    const char *r = d->stop_raw;
    if (d->msg_open) {
        dec_end(d, API_STOP_CONTENT_FILTER, r);
        return;
    }
    static const char *const filtered[] = { "SAFETY", "RECITATION", "BLOCKLIST",
                                            "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
                                            "LANGUAGE" };
    for (size_t i = 0; i < sizeof filtered / sizeof filtered[0]; i++)
        if (strcmp(r, filtered[i]) == 0) {
            dec_end(d, API_STOP_CONTENT_FILTER, r);
            return;
        }
    if (strcmp(r, "MAX_TOKENS") == 0) {
        dec_end(d, API_STOP_LENGTH, r);
        return;
    }
    if (strcmp(r, "MALFORMED_FUNCTION_CALL") == 0 || strcmp(r, "UNEXPECTED_TOOL_CALL") == 0 ||
        strcmp(r, "TOO_MANY_TOOL_CALLS") == 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "the model ended its turn with finishReason %s", r);
        dec_fail_stream(d, msg);
        return;
    }
    dec_end(d, d->ncalls ? API_STOP_TOOL_CALLS : API_STOP_STOP, r);
}
