/* gen_openai_responses — the OpenAI Responses stream: "event: TYPE\ndata: {"type":TYPE,
 * "sequence_number":n,...}\n\n" with response.created / in_progress, a reasoning item
 * (summary deltas), a message item (output_text deltas), one function_call item per tool
 * call (arguments deltas, done), and response.completed (or incomplete / failed) carrying
 * every finished item and the usage. Never does I/O. */
#include <stdio.h>

#include "gen.h"

#define RESP_CREATED 1757413900

typedef struct resp_ctx {
    const gen_spec *s;
    fp_plan *p;
    json_int_t seq;
    char id[160];
} resp_ctx;

/* Emit an event of type `type` whose payload is `rest` (stolen) after type and
 * sequence_number. */
static void ev(resp_ctx *c, const char *type, json_t *rest)
{
    json_t *o = rest ? json_pack("{s:s,s:I}", "type", type, "sequence_number", c->seq++) : NULL;
    if (o && json_object_update(o, rest) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(rest);
    gen_event(c->p, type, o, GEN_COMPACT, false);
}

static json_t *response_obj(const resp_ctx *c, const char *status, json_t *output,
                            bool with_usage)
{
    const gen_spec *s = c->s;
    const gen_usage *u = &s->usage;
    json_t *error = json_null(), *incomplete = json_null();
    if (status[0] == 'f')
        error = json_pack("{s:s,s:s}", "code", "server_error", "message",
                          "hew-fake-provider: this response was scripted to fail");
    else if (status[0] == 'i' && status[1] == 'n' && status[2] == 'c')
        incomplete = json_pack("{s:s}", "reason", "max_output_tokens");
    json_t *usage = json_null();
    if (with_usage)
        usage = json_pack("{s:I,s:{s:I},s:I,s:{s:I},s:I}", "input_tokens",
                          (json_int_t)u->input, "input_tokens_details", "cached_tokens",
                          (json_int_t)u->cache_read, "output_tokens", (json_int_t)u->output,
                          "output_tokens_details", "reasoning_tokens",
                          (json_int_t)u->reasoning, "total_tokens",
                          (json_int_t)(u->input + u->output));
    return json_pack("{s:s,s:s,s:i,s:s,s:o,s:o,s:s,s:o,s:o}", "id", c->id, "object",
                     "response", "created_at", RESP_CREATED, "status", status, "error", error,
                     "incomplete_details", incomplete, "model", s->model, "output", output,
                     "usage", usage);
}

static json_t *reasoning_item(const gen_spec *s, const char *rs_id, const char *text)
{
    json_t *item = json_pack("{s:s,s:s}", "id", rs_id, "type", "reasoning");
    if (item && s->signature)
        json_object_set_new(item, "encrypted_content", json_string(s->signature));
    if (item)
        json_object_set_new(item, "summary",
                            text ? json_pack("[{s:s,s:s}]", "type", "summary_text", "text",
                                             text)
                                 : json_array());
    return item;
}

static json_t *text_part(const char *text)
{
    return json_pack("{s:s,s:[],s:[],s:s}", "type", "output_text", "annotations", "logprobs",
                     "text", text);
}

static json_t *call_item(const gen_call *call, const char *fc_id, bool done)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "id", fc_id, "type", "function_call",
                     "status", done ? "completed" : "in_progress", "arguments",
                     done ? call->args : "", "call_id", call->id, "name", call->name);
}

void gen_openai_responses(const gen_spec *s, fp_plan *p)
{
    resp_ctx c = {.s = s, .p = p};
    snprintf(c.id, sizeof c.id, "%s", s->id ? s->id : "");
    if (!s->id)
        snprintf(c.id, sizeof c.id, "resp_fake_%zu", s->number);
    json_t *done_items = json_array();
    int oi = 0;

    ev(&c, "response.created",
       json_pack("{s:o}", "response", response_obj(&c, "in_progress", json_array(), false)));
    ev(&c, "response.in_progress",
       json_pack("{s:o}", "response", response_obj(&c, "in_progress", json_array(), false)));

    if (s->reasoning.n) {
        char rs[64];
        snprintf(rs, sizeof rs, "rs_fake_%zu", s->number);
        ev(&c, "response.output_item.added",
           json_pack("{s:i,s:o}", "output_index", oi, "item", reasoning_item(s, rs, NULL)));
        ev(&c, "response.reasoning_summary_part.added",
           json_pack("{s:s,s:i,s:i,s:{s:s,s:s}}", "item_id", rs, "output_index", oi,
                     "summary_index", 0, "part", "type", "summary_text", "text", ""));
        for (size_t i = 0; i < s->reasoning.n; i++)
            ev(&c, "response.reasoning_summary_text.delta",
               json_pack("{s:s,s:i,s:i,s:s}", "item_id", rs, "output_index", oi,
                         "summary_index", 0, "delta", s->reasoning.v[i]));
        ev(&c, "response.reasoning_summary_text.done",
           json_pack("{s:s,s:i,s:i,s:s}", "item_id", rs, "output_index", oi, "summary_index",
                     0, "text", s->reasoning_all));
        ev(&c, "response.reasoning_summary_part.done",
           json_pack("{s:s,s:i,s:i,s:{s:s,s:s}}", "item_id", rs, "output_index", oi,
                     "summary_index", 0, "part", "type", "summary_text", "text",
                     s->reasoning_all));
        ev(&c, "response.output_item.done",
           json_pack("{s:i,s:o}", "output_index", oi,
                     "item", reasoning_item(s, rs, s->reasoning_all)));
        json_array_append_new(done_items, reasoning_item(s, rs, s->reasoning_all));
        oi++;
    }
    if (s->text.n) {
        char msg[64];
        snprintf(msg, sizeof msg, "msg_fake_%zu", s->number);
        ev(&c, "response.output_item.added",
           json_pack("{s:i,s:{s:s,s:s,s:s,s:[],s:s}}", "output_index", oi, "item", "id", msg,
                     "type", "message", "status", "in_progress", "content", "role",
                     "assistant"));
        ev(&c, "response.content_part.added",
           json_pack("{s:s,s:i,s:i,s:o}", "item_id", msg, "output_index", oi,
                     "content_index", 0, "part", text_part("")));
        for (size_t i = 0; i < s->text.n; i++)
            ev(&c, "response.output_text.delta",
               json_pack("{s:s,s:i,s:i,s:s,s:[]}", "item_id", msg, "output_index", oi,
                         "content_index", 0, "delta", s->text.v[i], "logprobs"));
        ev(&c, "response.output_text.done",
           json_pack("{s:s,s:i,s:i,s:s,s:[]}", "item_id", msg, "output_index", oi,
                     "content_index", 0, "text", s->text_all, "logprobs"));
        ev(&c, "response.content_part.done",
           json_pack("{s:s,s:i,s:i,s:o}", "item_id", msg, "output_index", oi,
                     "content_index", 0, "part", text_part(s->text_all)));
        json_t *item = json_pack("{s:s,s:s,s:s,s:[o],s:s}", "id", msg, "type", "message",
                                 "status", "completed", "content", text_part(s->text_all),
                                 "role", "assistant");
        ev(&c, "response.output_item.done",
           json_pack("{s:i,s:O}", "output_index", oi, "item", item));
        json_array_append_new(done_items, item);
        oi++;
    }
    for (size_t k = 0; k < s->ncalls; k++) {
        const gen_call *call = &s->calls[k];
        char fc[64];
        snprintf(fc, sizeof fc, "fc_fake_%zu_%zu", s->number, k);
        ev(&c, "response.output_item.added",
           json_pack("{s:i,s:o}", "output_index", oi, "item", call_item(call, fc, false)));
        for (size_t i = 0; i < call->deltas.n; i++)
            ev(&c, "response.function_call_arguments.delta",
               json_pack("{s:s,s:i,s:s}", "item_id", fc, "output_index", oi, "delta",
                         call->deltas.v[i]));
        ev(&c, "response.function_call_arguments.done",
           json_pack("{s:s,s:i,s:s}", "item_id", fc, "output_index", oi, "arguments",
                     call->args));
        ev(&c, "response.output_item.done",
           json_pack("{s:i,s:o}", "output_index", oi, "item", call_item(call, fc, true)));
        json_array_append_new(done_items, call_item(call, fc, true));
        oi++;
    }
    const char *status = s->stop_reason; /* completed | incomplete | failed */
    char type[64];
    snprintf(type, sizeof type, "response.%s", status);
    ev(&c, type, json_pack("{s:o}", "response", response_obj(&c, status, done_items, true)));
}
