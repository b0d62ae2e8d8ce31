/* gen_openai_chat — the OpenAI Chat Completions stream: "data: {chunk}\n\n" with role on
 * the first delta, reasoning_content deltas (DeepSeek style, content null), content
 * deltas, tool_calls deltas (id + name once, then argument fragments keyed by index), a
 * finish chunk with delta {}, a usage chunk with choices [] when usage is given, and
 * "data: [DONE]". Never does I/O. */
#include <stdio.h>

#include "gen.h"

#define CHAT_CREATED 1757412381

typedef struct chat_ctx {
    const gen_spec *s;
    fp_plan *p;
    char id[160];
} chat_ctx;

/* One chunk with a single choice; steals delta. finish may be NULL. */
static void chunk(const chat_ctx *c, json_t *delta, const char *finish)
{
    json_t *o = json_pack("{s:s,s:s,s:i,s:s,s:[{s:i,s:o,s:n,s:o}]}", "id", c->id, "object",
                          "chat.completion.chunk", "created", CHAT_CREATED, "model",
                          c->s->model, "choices", "index", 0, "delta", delta, "logprobs",
                          "finish_reason", finish ? json_string(finish) : json_null());
    if (o && c->s->usage.given)
        json_object_set_new(o, "usage", json_null());
    gen_event(c->p, NULL, o, GEN_COMPACT, false);
}

void gen_openai_chat(const gen_spec *s, fp_plan *p)
{
    chat_ctx c = {.s = s, .p = p};
    snprintf(c.id, sizeof c.id, "%s", s->id ? s->id : "");
    if (!s->id)
        snprintf(c.id, sizeof c.id, "chatcmpl-fake%zu", s->number);

    chunk(&c, json_pack("{s:s,s:s}", "role", "assistant", "content", ""), NULL);
    for (size_t i = 0; i < s->reasoning.n; i++)
        chunk(&c, json_pack("{s:n,s:s}", "content", "reasoning_content", s->reasoning.v[i]),
              NULL);
    for (size_t i = 0; i < s->text.n; i++)
        chunk(&c, json_pack("{s:s}", "content", s->text.v[i]), NULL);
    for (size_t k = 0; k < s->ncalls; k++) {
        const gen_call *call = &s->calls[k];
        chunk(&c,
              json_pack("{s:[{s:i,s:s,s:s,s:{s:s,s:s}}]}", "tool_calls", "index", (int)k, "id",
                        call->id, "type", "function", "function", "name", call->name,
                        "arguments", ""),
              NULL);
        for (size_t i = 0; i < call->deltas.n; i++)
            chunk(&c,
                  json_pack("{s:[{s:i,s:{s:s}}]}", "tool_calls", "index", (int)k, "function",
                            "arguments", call->deltas.v[i]),
                  NULL);
    }
    chunk(&c, json_object(), s->stop_reason);
    if (s->usage.given) {
        const gen_usage *u = &s->usage;
        json_t *prompt_details = json_pack("{s:I}", "cached_tokens", (json_int_t)u->cache_read);
        if (prompt_details && u->cache_write > 0)
            json_object_set_new(prompt_details, "cache_write_tokens",
                                json_integer(u->cache_write));
        gen_event(p, NULL,
                  json_pack("{s:s,s:s,s:i,s:s,s:[],s:{s:I,s:I,s:I,s:o,s:{s:I}}}", "id", c.id,
                            "object", "chat.completion.chunk", "created", CHAT_CREATED,
                            "model", s->model, "choices", "usage", "prompt_tokens",
                            (json_int_t)u->input, "completion_tokens", (json_int_t)u->output,
                            "total_tokens", (json_int_t)(u->input + u->output),
                            "prompt_tokens_details", prompt_details,
                            "completion_tokens_details", "reasoning_tokens",
                            (json_int_t)u->reasoning),
                  GEN_COMPACT, false);
    }
    gen_event_raw(p, "[DONE]");
}
