/* build_openai_chat — the Chat Completions request body for OpenAI and the servers that
 * copy it (providers.md §3.1): system/developer message, user messages with text and
 * image_url parts, assistant messages with tool_calls (arguments as compact JSON text),
 * one role "tool" message per tool_result right after the assistant turn it answers,
 * stream_options.include_usage, tools as functions; per provider: max_completion_tokens
 * and reasoning_effort (OpenAI reasoning models), cache_control and `reasoning` plus
 * reasoning_details sent back (OpenRouter), reasoning_content within the current
 * tool-calling turn (DeepSeek). It must never invent a tool result and never send hew's
 * own keys. */
#include <stdlib.h>
#include <string.h>

#include "api/build_internal.h"
#include "api/message.h"
#include "base/buf.h"
#include "base/json.h"

static bool is(const build_ctx *c, const char *profile)
{
    return c->p->profile && strcmp(c->p->profile->name, profile) == 0;
}

static bool openrouter_anthropic(const build_ctx *c)
{
    return is(c, "openrouter") && strncmp(c->p->model, "anthropic/", 10) == 0;
}

static json_t *cache_text_part(const json_t *text)
{
    return json_pack("{s:s,s:O,s:{s:s}}", "type", "text", "text", text, "cache_control", "type",
                     "ephemeral");
}

/* Index of the last user message that is a real user turn (not only tool results). */
static long last_real_user(const json_t *messages)
{
    long last = -1;
    size_t i, k;
    json_t *m, *b;
    json_array_foreach(messages, i, m) {
        if (strcmp(json_string_value(json_object_get(m, "role")), "user") != 0)
            continue;
        const json_t *content = json_object_get(m, "content");
        if (json_is_string(content)) {
            last = (long)i;
            continue;
        }
        json_array_foreach(content, k, b) {
            if (strcmp(api_msg_block_type(b), "tool_result") != 0) {
                last = (long)i;
                break;
            }
        }
    }
    return last;
}

static void user_message(const build_ctx *c, const json_t *blocks, json_t *msgs, hew_code *st)
{
    json_t *parts = json_array();
    size_t k;
    json_t *b;
    /* Tool results first: they must directly follow the assistant's tool_calls. */
    json_array_foreach(blocks, k, b) {
        if (strcmp(api_msg_block_type(b), "tool_result") != 0)
            continue;
        json_t *tm = build_tool_output(b, "role", "tool", "tool_call_id", "content", st);
        if (!tm)
            break;
        json_arr_push(msgs, tm, st);
        /* Images a tool returned travel in the next user message. */
        size_t j;
        json_t *x;
        json_array_foreach(json_object_get(b, "content"), j, x) {
            if (strcmp(api_msg_block_type(x), "image") == 0)
                json_arr_push(parts,
                              json_pack("{s:s,s:{s:o}}", "type", "image_url", "image_url", "url",
                                        build_image_url(x)),
                              st);
        }
    }
    json_array_foreach(blocks, k, b) {
        const char *t = api_msg_block_type(b);
        if (strcmp(t, "text") == 0)
            json_arr_push(parts,
                          json_pack("{s:s,s:O}", "type", "text", "text", json_object_get(b, "text")),
                          st);
        else if (strcmp(t, "image") == 0)
            json_arr_push(parts,
                          json_pack("{s:s,s:{s:o}}", "type", "image_url", "image_url", "url",
                                    build_image_url(b)),
                          st);
    }
    if (json_array_size(parts) == 0) {
        json_decref(parts);
        return;
    }
    json_t *content = parts;
    if (json_array_size(parts) == 1 &&
        strcmp(api_msg_block_type(json_array_get(parts, 0)), "text") == 0 &&
        !openrouter_anthropic(c)) {
        content = json_incref(json_object_get(json_array_get(parts, 0), "text"));
        json_decref(parts);
    }
    json_arr_push(msgs, json_pack("{s:s,s:o}", "role", "user", "content", content), st);
}

static void assistant_message(const build_ctx *c, const json_t *blocks, bool current_turn,
                              json_t *msgs, hew_code *st)
{
    buf text = BUF_INIT(0);
    buf reasoning = BUF_INIT(0);
    json_t *calls = json_array();
    json_t *details = json_array();
    size_t k;
    json_t *b;
    json_array_foreach(blocks, k, b) {
        const char *t = api_msg_block_type(b);
        if (strcmp(t, "text") == 0) {
            const json_t *tx = json_object_get(b, "text");
            buf_append(&text, json_string_value(tx), json_string_length(tx));
        } else if (strcmp(t, "thinking") == 0) {
            const json_t *tx = json_object_get(b, "thinking");
            buf_append(&reasoning, json_string_value(tx), json_string_length(tx));
            size_t j;
            json_t *d;
            json_array_foreach(json_object_get(b, "hew_reasoning_details"), j, d)
                json_arr_push(details, json_incref(d), st);
        } else if (strcmp(t, "tool_use") == 0) {
            json_arr_push(calls,
                          json_pack("{s:O,s:s,s:{s:O,s:o}}", "id", json_object_get(b, "id"), "type",
                                    "function", "function", "name", json_object_get(b, "name"),
                                    "arguments", build_json_text(json_object_get(b, "input"))),
                          st);
        }
    }
    json_t *m = json_object();
    json_obj_put(m, "role", json_string("assistant"), st);
    if (text.len || !json_array_size(calls))
        json_obj_put(m, "content", json_string_lossy(text.data ? text.data : "", text.len), st);
    else
        json_obj_put(m, "content", json_null(), st);
    if (is(c, "deepseek") && current_turn && reasoning.len)
        json_obj_put(m, "reasoning_content", json_string_lossy(reasoning.data, reasoning.len), st);
    if (is(c, "openrouter") && json_array_size(details))
        json_obj_put(m, "reasoning_details", json_incref(details), st);
    if (json_array_size(calls))
        json_obj_put(m, "tool_calls", json_incref(calls), st);
    if (text.err || reasoning.err)
        *st = HEW_E_NOMEM;
    json_arr_push(msgs, m, st);
    json_decref(calls);
    json_decref(details);
    buf_release(&text);
    buf_release(&reasoning);
}

json_t *build_openai_chat(const build_ctx *c, hew_err *err)
{
    const api_request *r = c->r;
    bool reasoning_model = c->model.reasoning_effort;
    hew_code st = HEW_OK;
    json_t *msgs = json_array();
    if (r->system && *r->system) {
        json_t *sys = json_string_lossy(r->system, strlen(r->system));
        if (openrouter_anthropic(c)) {
            json_t *arr = json_array();
            json_arr_push(arr, cache_text_part(sys), &st);
            json_decref(sys);
            sys = arr;
        }
        json_arr_push(msgs,
                      json_pack("{s:s,s:o}", "role", reasoning_model ? "developer" : "system",
                                "content", sys),
                      &st);
    }
    long current = last_real_user(r->messages);
    size_t i;
    json_t *m;
    json_array_foreach(r->messages, i, m) {
        json_t *tmp;
        json_t *blocks = api_msg_blocks(m, &tmp);
        if (strcmp(json_string_value(json_object_get(m, "role")), "user") == 0)
            user_message(c, blocks, msgs, &st);
        else
            assistant_message(c, blocks, (long)i > current, msgs, &st);
        json_decref(tmp);
    }
    if (openrouter_anthropic(c)) { /* cache breakpoints on the last two user messages */
        int marked = 0;
        for (size_t n = json_array_size(msgs); n-- > 0 && marked < 2;) {
            json_t *msg = json_array_get(msgs, n);
            if (strcmp(json_string_value(json_object_get(msg, "role")), "user") != 0)
                continue;
            json_t *content = json_object_get(msg, "content");
            for (size_t k = json_array_size(content); k-- > 0;) {
                json_t *part = json_array_get(content, k);
                if (strcmp(api_msg_block_type(part), "text") == 0) {
                    json_obj_put(part, "cache_control", json_pack("{s:s}", "type", "ephemeral"),
                                 &st);
                    break;
                }
            }
            marked++;
        }
    }

    json_t *body = json_object();
    json_obj_put(body, "model", json_string(c->p->model), &st);
    json_obj_put(body, "messages", msgs, &st);
    json_obj_put(body, "stream", json_true(), &st);
    json_obj_put(body, "stream_options", json_pack("{s:b}", "include_usage", 1), &st);
    json_obj_put(body, is(c, "openai") ? "max_completion_tokens" : "max_tokens",
                 json_integer(c->max_tokens), &st);
    if (r->has_temperature && !reasoning_model)
        json_obj_put(body, "temperature", json_real(r->temperature), &st);
    if (is(c, "openrouter")) {
        if (r->thinking_budget > 0)
            json_obj_put(body, "reasoning",
                         json_pack("{s:I}", "max_tokens", (json_int_t)r->thinking_budget), &st);
        else if (r->reasoning_effort)
            json_obj_put(body, "reasoning", json_pack("{s:s}", "effort", r->reasoning_effort),
                         &st);
    } else if (r->reasoning_effort && reasoning_model) {
        json_obj_put(body, "reasoning_effort", json_string(r->reasoning_effort), &st);
    }
    if (r->ntools) {
        json_t *tools = json_array();
        for (size_t t = 0; t < r->ntools; t++)
            json_arr_push(tools,
                          json_pack("{s:s,s:{s:s,s:s,s:o}}", "type", "function", "function",
                                    "name", r->tools[t].name, "description",
                                    r->tools[t].description ? r->tools[t].description : "",
                                    "parameters", build_schema(&r->tools[t])),
                          &st);
        json_obj_put(body, "tools", tools, &st);
        json_obj_put(body, "tool_choice", json_string("auto"), &st);
        json_obj_put(body, "parallel_tool_calls", json_boolean(r->parallel_tool_calls), &st);
    }
    if (st != HEW_OK) {
        json_decref(body);
        hew_err_set(err, st, "cannot build the chat completions request body (out of memory)");
        return NULL;
    }
    return body;
}
