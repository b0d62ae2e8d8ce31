/* build_anthropic — the Anthropic Messages request body (providers.md §2.2): system as a
 * text block with cache_control, messages with consecutive same-role turns merged,
 * thinking blocks sent back verbatim with their signatures (unsigned ones dropped: the
 * API refuses them), cache_control on the last block of the last two user messages,
 * tools with input_schema, extended thinking. It must never send hew's own keys and
 * never reorder blocks within a message. */
#include <string.h>

#include "api/build_internal.h"
#include "api/message.h"
#include "base/json.h"

static json_t *ephemeral(void)
{
    return json_pack("{s:s}", "type", "ephemeral");
}

static bool blank(const char *s)
{
    for (; s && *s; s++)
        if (!strchr(" \t\r\n", *s))
            return false;
    return true;
}

/* A tool call id as Anthropic accepts it (^[a-zA-Z0-9_-]+$): other providers' ids
 * ("functions.read_file:0" from some OpenAI-compatible servers) get '_' for each other
 * byte, the same way on the call and on its result, so the pair still matches. */
static json_t *wire_id(const json_t *id)
{
    const char *s = json_string_value(id);
    if (!s || !*s)
        return json_string("toolu_none");
    char idb[256];
    size_t n = 0;
    for (; *s && n + 1 < sizeof idb; s++) {
        unsigned char c = (unsigned char)*s;
        idb[n++] = (char)((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                  (c >= '0' && c <= '9') || c == '_' || c == '-'
                              ? c
                              : '_');
    }
    idb[n] = '\0';
    return json_string(idb);
}

/* Convert one block for the wire; NULL when it is to be left out (no error). */
static json_t *wire_block(const json_t *b, hew_code *st)
{
    const char *t = api_msg_block_type(b);
    if (strcmp(t, "thinking") == 0) {
        const json_t *sig = json_object_get(b, "signature");
        if (!json_is_string(sig) || json_string_length(sig) == 0)
            return NULL;
        return json_pack("{s:s,s:O,s:O}", "type", "thinking", "thinking",
                         json_object_get(b, "thinking"), "signature", sig);
    }
    if (strcmp(t, "text") == 0) {
        const json_t *tx = json_object_get(b, "text");
        if (blank(json_string_value(tx)))
            return NULL; /* the API refuses empty and whitespace-only text blocks */
        return json_pack("{s:s,s:O}", "type", "text", "text", tx);
    }
    if (strcmp(t, "tool_use") == 0)
        return json_pack("{s:s,s:o,s:O,s:O}", "type", "tool_use", "id",
                         wire_id(json_object_get(b, "id")), "name", json_object_get(b, "name"),
                         "input", json_object_get(b, "input"));
    if (strcmp(t, "tool_result") == 0) {
        json_t *o = json_pack("{s:s,s:o}", "type", "tool_result", "tool_use_id",
                              wire_id(json_object_get(b, "tool_use_id")));
        const json_t *c = json_object_get(b, "content");
        if (json_is_array(c)) {
            json_t *arr = json_array();
            size_t i;
            json_t *x;
            json_array_foreach(c, i, x) {
                const char *xt = api_msg_block_type(x);
                if (strcmp(xt, "text") == 0 && json_string_length(json_object_get(x, "text")) == 0)
                    continue;
                json_arr_push(arr, build_clean_block(x, "cache_control"), st);
            }
            json_obj_put(o, "content", arr, st);
        } else if (json_is_string(c)) {
            json_obj_put(o, "content", json_incref((json_t *)c), st);
        }
        if (json_is_true(json_object_get(b, "is_error")))
            json_obj_put(o, "is_error", json_true(), st);
        return o;
    }
    return build_clean_block(b, "cache_control"); /* image, redacted_thinking */
}

/* The API's rule with thinking on: the last assistant message, when the conversation is
 * in a tool loop (it called tools), must start with a thinking block. One that does not
 * (it came from a model or a session without thinking, or its thinking was not signed)
 * means this request goes without thinking. */
static bool thinking_possible(const json_t *msgs)
{
    for (size_t n = json_array_size(msgs); n-- > 0;) {
        const json_t *m = json_array_get(msgs, n);
        if (strcmp(json_string_value(json_object_get(m, "role")), "assistant") != 0)
            continue;
        const json_t *content = json_object_get(m, "content");
        bool tools = false;
        size_t i;
        json_t *b;
        json_array_foreach(content, i, b)
            tools = tools || strcmp(api_msg_block_type(b), "tool_use") == 0;
        const char *first = api_msg_block_type(json_array_get(content, 0));
        return !tools || strcmp(first, "thinking") == 0 || strcmp(first, "redacted_thinking") == 0;
    }
    return true;
}

json_t *build_anthropic(const build_ctx *c, hew_err *err)
{
    const api_request *r = c->r;
    hew_code st = HEW_OK;
    json_t *body = json_object();
    json_obj_put(body, "model", json_string(c->p->model), &st);
    json_obj_put(body, "max_tokens", json_integer(c->max_tokens), &st);
    json_obj_put(body, "stream", json_true(), &st);
    if (r->system && *r->system) {
        json_t *blk = json_object();
        json_obj_put(blk, "type", json_string("text"), &st);
        json_obj_put(blk, "text", json_string_lossy(r->system, strlen(r->system)), &st);
        json_obj_put(blk, "cache_control", ephemeral(), &st);
        json_t *sys = json_array();
        json_arr_push(sys, blk, &st);
        json_obj_put(body, "system", sys, &st);
    }

    /* Messages, merging consecutive turns of the same role. */
    json_t *msgs = json_array();
    const char *last_role = NULL;
    json_t *cur = NULL; /* content array of the message being filled (borrowed) */
    size_t i;
    json_t *m;
    json_array_foreach(r->messages, i, m) {
        const char *role = json_string_value(json_object_get(m, "role"));
        json_t *tmp;
        json_t *blocks = api_msg_blocks(m, &tmp);
        if (!last_role || strcmp(role, last_role) != 0) {
            cur = json_array();
            json_arr_push(msgs, json_pack("{s:s,s:O}", "role", role, "content", cur), &st);
            json_decref(cur); /* the message holds it now */
            last_role = role;
        }
        size_t k;
        json_t *b;
        json_array_foreach(blocks, k, b) {
            json_t *w = wire_block(b, &st);
            if (w)
                json_arr_push(cur, w, &st);
        }
        json_decref(tmp);
    }
    /* No message may be empty; cache_control on the last block of the last two user
     * messages (Cline's breakpoints: system + two user turns). */
    int users_marked = 0;
    for (size_t n = json_array_size(msgs); n-- > 0;) {
        json_t *msg = json_array_get(msgs, n);
        json_t *content = json_object_get(msg, "content");
        if (json_array_size(content) == 0)
            json_arr_push(content, json_pack("{s:s,s:s}", "type", "text", "text", "(empty)"), &st);
        if (users_marked < 2 && strcmp(json_string_value(json_object_get(msg, "role")), "user") == 0) {
            json_t *lastb = json_array_get(content, json_array_size(content) - 1);
            json_obj_put(lastb, "cache_control", ephemeral(), &st);
            users_marked++;
        }
    }
    json_obj_put(body, "messages", msgs, &st);

    if (r->ntools) {
        json_t *tools = json_array();
        for (size_t t = 0; t < r->ntools; t++)
            json_arr_push(tools,
                          json_pack("{s:s,s:s,s:o}", "name", r->tools[t].name, "description",
                                    r->tools[t].description ? r->tools[t].description : "",
                                    "input_schema", build_schema(&r->tools[t])),
                          &st);
        json_obj_put(body, "tools", tools, &st);
    }
    if (r->thinking_budget > 0 && thinking_possible(msgs)) {
        json_obj_put(body, "thinking",
                     json_pack("{s:s,s:I}", "type", "enabled", "budget_tokens",
                               (json_int_t)r->thinking_budget),
                     &st);
    } else if (r->has_temperature) {
        json_obj_put(body, "temperature", json_real(r->temperature), &st);
    }
    if (st != HEW_OK) {
        json_decref(body);
        hew_err_set(err, st, "cannot build the Anthropic request body (out of memory)");
        return NULL;
    }
    return body;
}
