/* gen_anthropic — the Anthropic Messages stream: message_start (usage), one
 * content block per thinking / text / tool_use with its deltas, a ping after the first
 * block opens, message_delta (stop_reason, cumulative usage) and message_stop, framed as
 * "event: X\ndata: {...}\n\n" with compact JSON (the ping is spaced, as the API sends it).
 * Never does I/O. */
#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "validate.h"

static void block_start(fp_plan *p, int index, json_t *block, bool *pinged)
{
    gen_event(p, "content_block_start",
              json_pack("{s:s,s:i,s:o}", "type", "content_block_start", "index", index,
                        "content_block", block),
              GEN_COMPACT, false);
    if (!*pinged) {
        gen_event(p, "ping", json_pack("{s:s}", "type", "ping"), GEN_SPACED, false);
        *pinged = true;
    }
}

static void block_delta(fp_plan *p, int index, const char *type, const char *key,
                        const char *value)
{
    gen_event(p, "content_block_delta",
              json_pack("{s:s,s:i,s:{s:s,s:s}}", "type", "content_block_delta", "index", index,
                        "delta", "type", type, key, value),
              GEN_COMPACT, false);
}

static void block_stop(fp_plan *p, int index)
{
    gen_event(p, "content_block_stop",
              json_pack("{s:s,s:i}", "type", "content_block_stop", "index", index), GEN_COMPACT,
              false);
}

void gen_anthropic(const gen_spec *s, fp_plan *p)
{
    char id[160], sig[64];
    snprintf(id, sizeof id, "%s", s->id ? s->id : "");
    if (!s->id)
        snprintf(id, sizeof id, "msg_fake_%zu", s->number);
    /* Our own signature covers the thinking text, so the strict check can tell when it
     * comes back altered (validate_sign_thinking). */
    const char *thought = s->reasoning_all ? s->reasoning_all : "";
    validate_sign_thinking(thought, strlen(thought), sig, sizeof sig);
    const gen_usage *u = &s->usage;
    json_int_t start_output = u->output > 0 ? 1 : 0;
    gen_event(p, "message_start",
              json_pack("{s:s,s:{s:s,s:s,s:s,s:s,s:[],s:n,s:n,s:{s:I,s:I,s:I,s:I}}}", "type",
                        "message_start", "message", "id", id, "type", "message", "role",
                        "assistant", "model", s->model, "content", "stop_reason",
                        "stop_sequence", "usage", "input_tokens", (json_int_t)u->input,
                        "cache_creation_input_tokens", (json_int_t)u->cache_write,
                        "cache_read_input_tokens", (json_int_t)u->cache_read, "output_tokens",
                        start_output),
              GEN_COMPACT, false);

    int index = 0;
    bool pinged = false;
    if (s->reasoning.n) {
        block_start(p, index,
                    json_pack("{s:s,s:s,s:s}", "type", "thinking", "thinking", "", "signature",
                              ""),
                    &pinged);
        for (size_t i = 0; i < s->reasoning.n; i++)
            block_delta(p, index, "thinking_delta", "thinking", s->reasoning.v[i]);
        block_delta(p, index, "signature_delta", "signature",
                    s->signature ? s->signature : sig);
        block_stop(p, index++);
    }
    if (s->text.n) {
        block_start(p, index, json_pack("{s:s,s:s}", "type", "text", "text", ""), &pinged);
        for (size_t i = 0; i < s->text.n; i++)
            block_delta(p, index, "text_delta", "text", s->text.v[i]);
        block_stop(p, index++);
    }
    for (size_t k = 0; k < s->ncalls; k++) {
        const gen_call *c = &s->calls[k];
        block_start(p, index,
                    json_pack("{s:s,s:s,s:s,s:{}}", "type", "tool_use", "id", c->id, "name",
                              c->name, "input"),
                    &pinged);
        block_delta(p, index, "input_json_delta", "partial_json", "");
        for (size_t i = 0; i < c->deltas.n; i++)
            if (c->deltas.len[i])
                block_delta(p, index, "input_json_delta", "partial_json", c->deltas.v[i]);
        block_stop(p, index++);
    }
    if (!pinged)
        gen_event(p, "ping", json_pack("{s:s}", "type", "ping"), GEN_SPACED, false);
    gen_event(p, "message_delta",
              json_pack("{s:s,s:{s:s,s:n},s:{s:I,s:I,s:I,s:I}}", "type", "message_delta",
                        "delta", "stop_reason", s->stop_reason, "stop_sequence", "usage",
                        "input_tokens", (json_int_t)u->input, "cache_creation_input_tokens",
                        (json_int_t)u->cache_write, "cache_read_input_tokens",
                        (json_int_t)u->cache_read, "output_tokens", (json_int_t)u->output),
              GEN_COMPACT, false);
    gen_event(p, "message_stop", json_pack("{s:s}", "type", "message_stop"), GEN_COMPACT,
              false);
}
