/* decode_fast — the fast paths of the decoders: the event shapes that make up nearly all
 * of a streamed answer (an Anthropic content_block_delta, an OpenAI chat chunk carrying
 * only a content delta) read with jscan, without building a jansson tree per event. A
 * shape is taken only when every member is one the general path would read the same way
 * or ignore; anything else (an unknown key, a duplicate, a finish reason, usage, an error,
 * an escape jscan refuses) returns false and the general path decides. jscan checks every
 * string of the event, skipped ones included (escapes, surrogates, UTF-8), as jansson
 * does: an event jansson would refuse whole never takes the fast path. The chunks emitted
 * are exactly the general path's (tests/unit/api_decode*.c feed every fixture both ways). */
#include <string.h>

#include "api/decode_internal.h"
#include "base/jscan.h"

/* Decode a string value into the decoder's scratch buffer. */
static bool scratch_string(api_decoder *d, const jscan_val *v)
{
    buf_reset(&d->scratch);
    return jscan_string(v, &d->scratch);
}

bool dec_fast_anthropic(api_decoder *d, const char *type, size_t tl, const char *data,
                        size_t dl)
{
    if (d->no_fast || !(tl == 19 && memcmp(type, "content_block_delta", 19) == 0))
        return false;
    jscan js;
    if (!jscan_object(&js, data, dl))
        return false;
    bool has_type = false, has_index = false, has_delta = false;
    long long index = 0;
    jscan_val delta = { 0 };
    const char *k;
    size_t kl;
    jscan_val v;
    int r;
    while ((r = jscan_member(&js, &k, &kl, &v)) == 1) {
        if (jscan_key_is(k, kl, "type") && !has_type && jscan_str_is(&v, "content_block_delta"))
            has_type = true;
        else if (jscan_key_is(k, kl, "index") && !has_index && jscan_int(&v, &index))
            has_index = true;
        else if (jscan_key_is(k, kl, "delta") && !has_delta && v.kind == JSCAN_OBJECT) {
            delta = v;
            has_delta = true;
        } else
            return false;
    }
    if (r < 0 || !jscan_done(&js) || !has_type || !has_index || !has_delta)
        return false;

    jscan ds;
    if (!jscan_object_val(&ds, &delta))
        return false;
    const char *dtype = NULL;
    jscan_val payload = { 0 };
    const char *payload_key = NULL;
    while ((r = jscan_member(&ds, &k, &kl, &v)) == 1) {
        if (jscan_key_is(k, kl, "type") && !dtype) {
            dtype = jscan_str_is(&v, "text_delta")         ? "text"
                    : jscan_str_is(&v, "thinking_delta")   ? "thinking"
                    : jscan_str_is(&v, "input_json_delta") ? "partial_json"
                                                           : NULL;
            if (!dtype)
                return false;
        } else if (!payload_key && v.kind == JSCAN_STRING &&
                   (jscan_key_is(k, kl, "text") || jscan_key_is(k, kl, "thinking") ||
                    jscan_key_is(k, kl, "partial_json"))) {
            payload = v;
            payload_key = k;
            if (jscan_key_is(k, kl, "text"))
                payload_key = "text";
            else if (jscan_key_is(k, kl, "thinking"))
                payload_key = "thinking";
            else
                payload_key = "partial_json";
        } else {
            return false;
        }
    }
    if (r < 0 || !dtype || !payload_key || strcmp(dtype, payload_key) != 0)
        return false;
    if (!scratch_string(d, &payload))
        return false;

    const char *s = d->scratch.data;
    size_t n = d->scratch.len;
    if (strcmp(dtype, "text") == 0) {
        dec_text_raw(d, s, n);
    } else if (strcmp(dtype, "thinking") == 0) {
        dec_reasoning_raw(d, dec_reasoning_block(d, (long)index), s, n);
    } else {
        int ci = dec_call_for(d, (long)index, false, NULL);
        if (ci >= 0 && n > 0)
            dec_tool(d, ci, NULL, false, NULL, s, n, NULL, 0);
    }
    return true;
}

/* The members of a chunk's top level that carry nothing for hew when they have these
 * kinds (the general path never reads them). */
static bool ignorable_chunk_member(const char *k, size_t kl, const jscan_val *v)
{
    if (jscan_key_is(k, kl, "id") || jscan_key_is(k, kl, "model") ||
        jscan_key_is(k, kl, "provider") || jscan_key_is(k, kl, "obfuscation"))
        return v->kind == JSCAN_STRING;
    if (jscan_key_is(k, kl, "created"))
        return v->kind == JSCAN_NUMBER;
    if (jscan_key_is(k, kl, "system_fingerprint") || jscan_key_is(k, kl, "service_tier"))
        return v->kind == JSCAN_STRING || v->kind == JSCAN_NULL;
    if (jscan_key_is(k, kl, "usage"))
        return v->kind == JSCAN_NULL;
    if (jscan_key_is(k, kl, "object"))
        return jscan_str_is(v, "chat.completion.chunk");
    return false;
}

/* The delta's content string, when the choice is {index:0, delta:{[role,] content},
 * logprobs:null, finish_reason:null, native_finish_reason:null}. */
static bool content_of_choice(const jscan_val *choice, jscan_val *content)
{
    jscan cs;
    if (!jscan_object_val(&cs, choice))
        return false;
    bool has_delta = false;
    jscan_val delta = { 0 };
    const char *k;
    size_t kl;
    jscan_val v;
    int r;
    while ((r = jscan_member(&cs, &k, &kl, &v)) == 1) {
        long long idx;
        if (jscan_key_is(k, kl, "index")) {
            if (!jscan_int(&v, &idx) || idx != 0)
                return false;
        } else if (jscan_key_is(k, kl, "delta") && !has_delta && v.kind == JSCAN_OBJECT) {
            delta = v;
            has_delta = true;
        } else if (!((jscan_key_is(k, kl, "logprobs") || jscan_key_is(k, kl, "finish_reason") ||
                      jscan_key_is(k, kl, "native_finish_reason")) &&
                     v.kind == JSCAN_NULL)) {
            return false;
        }
    }
    if (r < 0 || !has_delta)
        return false;
    jscan ds;
    if (!jscan_object_val(&ds, &delta))
        return false;
    bool has_content = false;
    while ((r = jscan_member(&ds, &k, &kl, &v)) == 1) {
        if (jscan_key_is(k, kl, "content") && !has_content && v.kind == JSCAN_STRING) {
            *content = v;
            has_content = true;
        } else if (!(jscan_key_is(k, kl, "role") && v.kind == JSCAN_STRING)) {
            return false;
        }
    }
    return r == 0 && has_content;
}

bool dec_fast_openai_chat(api_decoder *d, const char *type, size_t tl, const char *data,
                          size_t dl)
{
    if (d->no_fast || (tl != 0 && !(tl == 7 && memcmp(type, "message", 7) == 0)))
        return false;
    if (d->have_stop)
        return false; /* after a finish reason the general path checks for errors */
    jscan js;
    if (!jscan_object(&js, data, dl))
        return false;
    bool has_choices = false;
    jscan_val choices = { 0 };
    const char *k;
    size_t kl;
    jscan_val v;
    int r;
    unsigned seen = 0; /* one bit per ignorable key, so a duplicate falls back */
    static const char *const keys[] = { "id", "model", "provider", "obfuscation", "created",
                                        "system_fingerprint", "service_tier", "usage",
                                        "object" };
    while ((r = jscan_member(&js, &k, &kl, &v)) == 1) {
        if (jscan_key_is(k, kl, "choices") && !has_choices && v.kind == JSCAN_ARRAY) {
            choices = v;
            has_choices = true;
            continue;
        }
        if (!ignorable_chunk_member(k, kl, &v))
            return false;
        for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            if (jscan_key_is(k, kl, keys[i])) {
                if (seen & (1u << i))
                    return false;
                seen |= 1u << i;
            }
        }
    }
    if (r < 0 || !jscan_done(&js) || !has_choices)
        return false;
    jscan as;
    jscan_val choice, extra, content;
    if (!jscan_array_val(&as, &choices) || jscan_element(&as, &choice) != 1 ||
        jscan_element(&as, &extra) != 0)
        return false;
    if (!content_of_choice(&choice, &content) || !scratch_string(d, &content))
        return false;
    dec_text_raw(d, d->scratch.data, d->scratch.len);
    return true;
}
