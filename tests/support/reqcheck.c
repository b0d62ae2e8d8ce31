/* reqcheck — tool call / tool result pairing on recorded request bodies (see reqcheck.h).
 * Each check quotes the rule of the provider's documentation it mirrors and the text of
 * the 400 the real API answers when it breaks. */
#include "reqcheck.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct verdict {
    char *rule;
    size_t rulelen;
    char *why;
    size_t whylen;
} verdict;

__attribute__((format(printf, 3, 4))) static int fail(verdict *v, const char *rule,
                                                      const char *fmt, ...)
{
    if (v->rulelen)
        snprintf(v->rule, v->rulelen, "%s", rule);
    if (v->whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->why, v->whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* A message's content as an array of blocks: a string content is one text block, which
 * needs no pairing, so it has no blocks here. */
static const json_t *blocks_of(const json_t *msg)
{
    const json_t *c = json_object_get(msg, "content");
    return json_is_array(c) ? c : NULL;
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!strchr(" \t\r\n", *s))
            return false;
    return true;
}

/* ---- Anthropic Messages ----------------------------------------------------------------
 * docs.anthropic.com, "Implement tool use" / "Messages API": the first message is a user
 * message; every tool_use of an assistant message is answered by a tool_result with its
 * id in the very next (user) message, the results first in that content; a tool_result
 * answers a tool_use of the previous message; tool_use ids are unique; text blocks are
 * non-empty and not only whitespace (a final assistant prefill aside). */
static int check_anthropic(const json_t *body, verdict *v)
{
    const json_t *msgs = json_object_get(body, "messages");
    if (!json_is_array(msgs))
        return fail(v, "anthropic.shape", "messages: Field required");
    size_t n = json_array_size(msgs);
    if (n == 0)
        return fail(v, "anthropic.shape", "messages: at least one message is required");
    if (strcmp(str(json_array_get(msgs, 0), "role"), "user") != 0)
        return fail(v, "anthropic.first_not_user", "messages: first message must use the "
                                                   "\"user\" role");
    for (size_t i = 0; i < n; i++) {
        const json_t *m = json_array_get(msgs, i);
        const char *role = str(m, "role");
        const json_t *bl = blocks_of(m);
        const json_t *content = json_object_get(m, "content");
        bool last_assistant = i + 1 == n && strcmp(role, "assistant") == 0;
        if (json_is_string(content) && !last_assistant && blank(json_string_value(content)))
            return fail(v, "anthropic.empty_text",
                        "messages.%zu: text content blocks must contain non-whitespace text",
                        i);
        size_t k;
        const json_t *b;
        json_array_foreach(bl, k, b) {
            const char *type = str(b, "type");
            if (strcmp(type, "text") == 0 && !last_assistant && blank(str(b, "text")))
                return fail(v, "anthropic.empty_text",
                            "messages.%zu.content.%zu: text content blocks must %s", i, k,
                            *str(b, "text") ? "contain non-whitespace text" : "be non-empty");
            if (strcmp(type, "tool_use") == 0) {
                const char *id = str(b, "id");
                /* unique ids over the whole request */
                for (size_t i2 = 0; i2 <= i; i2++) {
                    size_t k2;
                    const json_t *b2;
                    json_array_foreach(blocks_of(json_array_get(msgs, i2)), k2, b2) {
                        if (i2 == i && k2 >= k)
                            break;
                        if (strcmp(str(b2, "type"), "tool_use") == 0 &&
                            strcmp(str(b2, "id"), id) == 0)
                            return fail(v, "anthropic.duplicate_id",
                                        "messages.%zu.content.%zu: `tool_use` ids must be "
                                        "unique (%s)", i, k, id);
                    }
                }
                /* answered at the front of the next message */
                const json_t *next = i + 1 < n ? json_array_get(msgs, i + 1) : NULL;
                bool found = false;
                size_t j;
                const json_t *r;
                json_array_foreach(next ? blocks_of(next) : NULL, j, r) {
                    if (strcmp(str(r, "type"), "tool_result") != 0)
                        break; /* results first: one after a text does not count */
                    if (strcmp(str(r, "tool_use_id"), id) == 0)
                        found = true;
                }
                if (!found || !next || strcmp(str(next, "role"), "user") != 0)
                    return fail(v, "anthropic.tool_use_unanswered",
                                "messages.%zu: `tool_use` ids were found without `tool_result` "
                                "blocks immediately after: %s. Each `tool_use` block must have "
                                "a corresponding `tool_result` block in the next message.",
                                i, id);
            }
            if (strcmp(type, "tool_result") == 0) {
                const char *id = str(b, "tool_use_id");
                const json_t *prev = i > 0 ? json_array_get(msgs, i - 1) : NULL;
                bool found = false;
                size_t j;
                const json_t *u;
                json_array_foreach(prev ? blocks_of(prev) : NULL, j, u)
                    if (strcmp(str(u, "type"), "tool_use") == 0 && strcmp(str(u, "id"), id) == 0)
                        found = true;
                if (!found || strcmp(role, "user") != 0)
                    return fail(v, "anthropic.tool_result_stray",
                                "messages.%zu.content.%zu: unexpected `tool_use_id` found in "
                                "`tool_result` blocks: %s. Each `tool_result` block must have "
                                "a corresponding `tool_use` block in the previous message.",
                                i, k, id);
                for (size_t k2 = 0; k2 < k; k2++)
                    if (strcmp(str(json_array_get(bl, k2), "type"), "tool_result") != 0)
                        return fail(v, "anthropic.tool_result_not_first",
                                    "messages.%zu.content.%zu: tool_result blocks must come "
                                    "first in the content, before any other block", i, k);
            }
        }
    }
    return 0;
}

/* ---- OpenAI Chat Completions -----------------------------------------------------------
 * platform.openai.com, "Function calling": an assistant message with tool_calls must be
 * followed by one tool message per tool_call_id before any other role; a tool message
 * must answer a tool_calls message before it. */
static int check_openai_chat(const json_t *body, verdict *v)
{
    const json_t *msgs = json_object_get(body, "messages");
    if (!json_is_array(msgs))
        return fail(v, "openai-chat.shape", "messages: missing");
    size_t n = json_array_size(msgs);
    const json_t *open_calls = NULL; /* the tool_calls the tool messages may answer */
    for (size_t i = 0; i < n; i++) {
        const json_t *m = json_array_get(msgs, i);
        const char *role = str(m, "role");
        if (strcmp(role, "tool") == 0) {
            const char *id = str(m, "tool_call_id");
            bool found = false;
            size_t k;
            const json_t *c;
            json_array_foreach(open_calls, k, c)
                if (strcmp(str(c, "id"), id) == 0)
                    found = true;
            if (!found)
                return fail(v, "openai-chat.tool_stray",
                            "messages.[%zu].role: Invalid parameter: messages with role 'tool' "
                            "must be a response to a preceeding message with 'tool_calls' (%s).",
                            i, id);
            continue;
        }
        open_calls = NULL;
        const json_t *calls = json_object_get(m, "tool_calls");
        if (strcmp(role, "assistant") != 0 || json_array_size(calls) == 0)
            continue;
        size_t k;
        const json_t *c;
        json_array_foreach(calls, k, c) {
            const char *id = str(c, "id");
            bool found = false;
            for (size_t j = i + 1; j < n; j++) {
                const json_t *t = json_array_get(msgs, j);
                if (strcmp(str(t, "role"), "tool") != 0)
                    break;
                if (strcmp(str(t, "tool_call_id"), id) == 0)
                    found = true;
            }
            if (!found)
                return fail(v, "openai-chat.tool_calls_unanswered",
                            "messages.[%zu]: An assistant message with 'tool_calls' must be "
                            "followed by tool messages responding to each 'tool_call_id'. The "
                            "following tool_call_ids did not have response messages: %s",
                            i, id);
        }
        open_calls = calls;
    }
    return 0;
}

/* ---- OpenAI Responses ------------------------------------------------------------------
 * platform.openai.com, "Function calling" (Responses): every function_call item of the
 * input needs a function_call_output with its call_id ("No tool output found for function
 * call ..."), and an output needs its call before it ("No tool call found for function
 * call output with call_id ..."). */
static int check_openai_responses(const json_t *body, verdict *v)
{
    const json_t *items = json_object_get(body, "input");
    if (!json_is_array(items))
        return 0; /* a plain string input has no calls */
    size_t n = json_array_size(items);
    for (size_t i = 0; i < n; i++) {
        const json_t *it = json_array_get(items, i);
        const char *type = str(it, "type");
        const char *id = str(it, "call_id");
        if (strcmp(type, "function_call") == 0) {
            bool found = false;
            for (size_t j = i + 1; j < n && !found; j++) {
                const json_t *o = json_array_get(items, j);
                found = strcmp(str(o, "type"), "function_call_output") == 0 &&
                        strcmp(str(o, "call_id"), id) == 0;
            }
            if (!found)
                return fail(v, "openai-responses.function_call_unanswered",
                            "input[%zu]: No tool output found for function call %s.", i, id);
        } else if (strcmp(type, "function_call_output") == 0) {
            bool found = false;
            for (size_t j = 0; j < i && !found; j++) {
                const json_t *c = json_array_get(items, j);
                found = strcmp(str(c, "type"), "function_call") == 0 &&
                        strcmp(str(c, "call_id"), id) == 0;
            }
            if (!found)
                return fail(v, "openai-responses.output_stray",
                            "input[%zu]: No tool call found for function call output with "
                            "call_id %s.", i, id);
        }
    }
    return 0;
}

/* ---- Gemini ------------------------------------------------------------------------------
 * ai.google.dev, "Function calling": roles are user and model; a turn of functionCall
 * parts is followed right away by a user turn with as many functionResponse parts; a
 * functionResponse turn comes right after a function call turn. */
static size_t count_parts(const json_t *content, const char *key)
{
    size_t n = 0, k;
    const json_t *p;
    json_array_foreach(json_object_get(content, "parts"), k, p)
        if (json_object_get(p, key))
            n++;
    return n;
}

static int check_gemini(const json_t *body, verdict *v)
{
    const json_t *contents = json_object_get(body, "contents");
    if (!json_is_array(contents))
        return fail(v, "gemini.shape", "contents: missing");
    size_t n = json_array_size(contents);
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(contents, i);
        const char *role = str(c, "role");
        if (strcmp(role, "user") != 0 && strcmp(role, "model") != 0)
            return fail(v, "gemini.role", "contents[%zu].role: Please use a valid role: user, "
                                          "model. (\"%s\")", i, role);
        size_t calls = count_parts(c, "functionCall");
        size_t responses = count_parts(c, "functionResponse");
        if (calls) {
            const json_t *next = i + 1 < n ? json_array_get(contents, i + 1) : NULL;
            size_t answered = next ? count_parts(next, "functionResponse") : 0;
            if (!next || strcmp(str(next, "role"), "user") != 0 || answered != calls)
                return fail(v, "gemini.function_call_unanswered",
                            "contents[%zu]: Please ensure that the number of function response "
                            "parts is equal to the number of function call parts of the "
                            "function call turn (%zu calls, %zu responses after).",
                            i, calls, answered);
        }
        if (responses) {
            const json_t *prev = i > 0 ? json_array_get(contents, i - 1) : NULL;
            if (!prev || count_parts(prev, "functionCall") == 0)
                return fail(v, "gemini.function_response_stray",
                            "contents[%zu]: Please ensure that function response turn comes "
                            "immediately after a function call turn.", i);
        }
    }
    return 0;
}

int reqcheck_body(reqcheck_proto proto, const json_t *body, char *rule, size_t rulelen,
                  char *why, size_t whylen)
{
    verdict v = { rule, rulelen, why, whylen };
    if (rulelen)
        rule[0] = '\0';
    if (whylen)
        why[0] = '\0';
    if (!json_is_object(body))
        return fail(&v, "body", "the body is not a JSON object");
    switch (proto) {
    case REQCHECK_ANTHROPIC:
        return check_anthropic(body, &v);
    case REQCHECK_OPENAI_CHAT:
        return check_openai_chat(body, &v);
    case REQCHECK_OPENAI_RESPONSES:
        return check_openai_responses(body, &v);
    case REQCHECK_GEMINI:
        return check_gemini(body, &v);
    }
    return fail(&v, "body", "unknown protocol");
}
