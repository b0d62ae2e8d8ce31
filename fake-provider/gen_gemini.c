/* gen_gemini — the Gemini streamGenerateContent?alt=sse stream: "data: {...}\r\n\r\n"
 * (CRLF, no event names, no [DONE]) with Google's JSON spacing; one chunk per thought
 * delta (thought: true) and per text delta, one chunk with every whole functionCall
 * part, and a last chunk with finishReason. usageMetadata (when usage is given) repeats
 * the final counts on every chunk. Never does I/O. */
#include <stdio.h>

#include "gen.h"

typedef struct gem_ctx {
    const gen_spec *s;
    fp_plan *p;
    char id[160];
} gem_ctx;

/* One chunk; steals parts. finish may be NULL. */
static void chunk(const gem_ctx *c, json_t *parts, const char *finish)
{
    const gen_spec *s = c->s;
    json_t *cand = json_pack("{s:{s:o,s:s}}", "content", "parts", parts, "role", "model");
    if (cand && finish)
        json_object_set_new(cand, "finishReason", json_string(finish));
    if (cand)
        json_object_set_new(cand, "index", json_integer(0));
    json_t *o = json_pack("{s:[o]}", "candidates", cand);
    if (o && s->usage.given) {
        const gen_usage *u = &s->usage;
        json_t *m = json_pack("{s:I,s:I,s:I}", "promptTokenCount", (json_int_t)u->input,
                              "candidatesTokenCount", (json_int_t)u->output,
                              "totalTokenCount",
                              (json_int_t)(u->input + u->output + u->reasoning));
        if (m && u->cache_read > 0)
            json_object_set_new(m, "cachedContentTokenCount", json_integer(u->cache_read));
        if (m && u->reasoning > 0)
            json_object_set_new(m, "thoughtsTokenCount", json_integer(u->reasoning));
        json_object_set_new(o, "usageMetadata", m);
    }
    if (o) {
        json_object_set_new(o, "modelVersion", json_string(s->model));
        json_object_set_new(o, "responseId", json_string(c->id));
    }
    gen_event(c->p, NULL, o, GEN_GEMINI, true);
}

void gen_gemini(const gen_spec *s, fp_plan *p)
{
    gem_ctx c = {.s = s, .p = p};
    snprintf(c.id, sizeof c.id, "%s", s->id ? s->id : "");
    if (!s->id)
        snprintf(c.id, sizeof c.id, "fake-response-%zu", s->number);
    for (size_t i = 0; i < s->reasoning.n; i++)
        chunk(&c, json_pack("[{s:s,s:b}]", "text", s->reasoning.v[i], "thought", 1), NULL);
    for (size_t i = 0; i < s->text.n; i++)
        chunk(&c, json_pack("[{s:s}]", "text", s->text.v[i]), NULL);
    if (s->ncalls) {
        json_t *parts = json_array();
        for (size_t k = 0; k < s->ncalls; k++) {
            const gen_call *call = &s->calls[k];
            json_t *part = json_pack("{s:{s:s,s:O}}", "functionCall", "name", call->name,
                                     "args", call->args_json);
            if (part && call->thought_signature)
                json_object_set_new(part, "thoughtSignature",
                                    json_string(call->thought_signature));
            json_array_append_new(parts, part);
        }
        chunk(&c, parts, NULL);
    }
    chunk(&c, json_pack("[{s:s}]", "text", ""), s->stop_reason);
}
