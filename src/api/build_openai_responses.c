/* build_openai_responses — the OpenAI Responses request body (providers.md §4.1): stateless
 * (store false), instructions, input items in history order — user messages
 * (input_text / input_image), assistant text, reasoning items with encrypted_content
 * replayed, function_call items and function_call_output items tied by call_id — flat
 * function tools, max_output_tokens, reasoning {effort, summary}. It must never use the
 * fc_ item id where call_id belongs and never send hew's own keys. */
#include <stdlib.h>
#include <string.h>

#include "api/build_internal.h"
#include "api/message.h"
#include "base/json.h"

static void user_items(const json_t *blocks, json_t *input, hew_code *st)
{
    size_t k;
    json_t *b;
    json_array_foreach(blocks, k, b) {
        if (strcmp(api_msg_block_type(b), "tool_result") != 0)
            continue;
        json_t *it = build_tool_output(b, "type", "function_call_output", "call_id", "output",
                                       st);
        if (!it)
            return;
        json_arr_push(input, it, st);
    }
    json_t *parts = json_array();
    /* Images a tool returned travel in the user message after the outputs (as on Chat
     * Completions: not every server takes an array as a function_call_output). */
    json_array_foreach(blocks, k, b) {
        if (strcmp(api_msg_block_type(b), "tool_result") != 0)
            continue;
        size_t j;
        json_t *x;
        json_array_foreach(json_object_get(b, "content"), j, x)
            if (strcmp(api_msg_block_type(x), "image") == 0)
                json_arr_push(parts,
                              json_pack("{s:s,s:o}", "type", "input_image", "image_url",
                                        build_image_url(x)),
                              st);
    }
    json_array_foreach(blocks, k, b) {
        const char *t = api_msg_block_type(b);
        if (strcmp(t, "text") == 0)
            json_arr_push(parts,
                          json_pack("{s:s,s:O}", "type", "input_text", "text",
                                    json_object_get(b, "text")),
                          st);
        else if (strcmp(t, "image") == 0)
            json_arr_push(parts,
                          json_pack("{s:s,s:o}", "type", "input_image", "image_url",
                                    build_image_url(b)),
                          st);
    }
    if (json_array_size(parts))
        json_arr_push(input, json_pack("{s:s,s:o}", "role", "user", "content", parts), st);
    else
        json_decref(parts);
}

static void assistant_items(const json_t *blocks, json_t *input, hew_code *st)
{
    size_t k;
    json_t *b;
    json_array_foreach(blocks, k, b) {
        const char *t = api_msg_block_type(b);
        if (strcmp(t, "thinking") == 0) {
            const json_t *enc = json_object_get(b, "hew_encrypted");
            const json_t *id = json_object_get(b, "hew_item_id");
            if (!json_is_string(enc) || !json_is_string(id))
                continue; /* reasoning the API cannot take back */
            json_t *summary = json_array();
            if (json_string_length(json_object_get(b, "thinking")))
                json_arr_push(summary,
                              json_pack("{s:s,s:O}", "type", "summary_text", "text",
                                        json_object_get(b, "thinking")),
                              st);
            json_arr_push(input,
                          json_pack("{s:s,s:O,s:O,s:o}", "type", "reasoning", "id", id,
                                    "encrypted_content", enc, "summary", summary),
                          st);
        } else if (strcmp(t, "text") == 0) {
            if (json_string_length(json_object_get(b, "text")))
                json_arr_push(input,
                              json_pack("{s:s,s:O}", "role", "assistant", "content",
                                        json_object_get(b, "text")),
                              st);
        } else if (strcmp(t, "tool_use") == 0) {
            json_arr_push(input,
                          json_pack("{s:s,s:O,s:O,s:o}", "type", "function_call", "call_id",
                                    json_object_get(b, "id"), "name", json_object_get(b, "name"),
                                    "arguments", build_json_text(json_object_get(b, "input"))),
                          st);
        }
    }
}

json_t *build_openai_responses(const build_ctx *c, hew_err *err)
{
    const api_request *r = c->r;
    hew_code st = HEW_OK;
    json_t *input = json_array();
    size_t i;
    json_t *m;
    json_array_foreach(r->messages, i, m) {
        json_t *tmp;
        json_t *blocks = api_msg_blocks(m, &tmp);
        if (strcmp(json_string_value(json_object_get(m, "role")), "user") == 0)
            user_items(blocks, input, &st);
        else
            assistant_items(blocks, input, &st);
        json_decref(tmp);
    }
    bool reasoning = c->model.reasoning_effort || r->reasoning_effort;
    json_t *body = json_object();
    json_obj_put(body, "model", json_string(c->p->model), &st);
    if (r->system && *r->system)
        json_obj_put(body, "instructions", json_string_lossy(r->system, strlen(r->system)), &st);
    json_obj_put(body, "input", input, &st);
    json_obj_put(body, "stream", json_true(), &st);
    json_obj_put(body, "store", json_false(), &st);
    json_obj_put(body, "max_output_tokens", json_integer(c->max_tokens), &st);
    if (reasoning) {
        json_t *rs = json_object();
        if (r->reasoning_effort)
            json_obj_put(rs, "effort", json_string(r->reasoning_effort), &st);
        json_obj_put(rs, "summary", json_string("auto"), &st);
        json_obj_put(body, "reasoning", rs, &st);
        json_obj_put(body, "include", json_pack("[s]", "reasoning.encrypted_content"), &st);
    } else if (r->has_temperature) {
        json_obj_put(body, "temperature", json_real(r->temperature), &st);
    }
    if (r->ntools) {
        json_t *tools = json_array();
        for (size_t t = 0; t < r->ntools; t++)
            json_arr_push(tools,
                          json_pack("{s:s,s:s,s:s,s:o,s:b}", "type", "function", "name",
                                    r->tools[t].name, "description",
                                    r->tools[t].description ? r->tools[t].description : "",
                                    "parameters", build_schema(&r->tools[t]), "strict", 0),
                          &st);
        json_obj_put(body, "tools", tools, &st);
        json_obj_put(body, "tool_choice", json_string("auto"), &st);
        json_obj_put(body, "parallel_tool_calls", json_boolean(r->parallel_tool_calls), &st);
    }
    if (st != HEW_OK) {
        json_decref(body);
        hew_err_set(err, st, "cannot build the Responses request body (out of memory)");
        return NULL;
    }
    return body;
}
