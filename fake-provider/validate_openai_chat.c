/* validate_openai_chat — the OpenAI Chat Completions request rules, as a table of checks
 * run in order (see validate.h). Messages and "param" locations are the API's own, taken
 * from the 400 bodies users quote (sources beside each check); param indexes are written
 * "messages.[3].role" as the API writes them. Never copies or changes the request. */
#include <stdio.h>
#include <string.h>

#include "api/model.h"
#include "validate.h"
#include "validate_image.h"

#define ID_LIST_MAX 1024

static const json_t *messages_of(const json_t *body)
{
    return json_object_get(body, "messages");
}

static const char *role_of(const json_t *m)
{
    const char *r = json_string_value(json_object_get(m, "role"));
    return r ? r : "";
}

static const json_t *calls_of(const json_t *m)
{
    const json_t *c = json_object_get(m, "tool_calls");
    return json_is_array(c) && json_array_size(c) ? c : NULL;
}

/* The body must be a JSON object. Text: the API's answer to a body it cannot parse
 * ("We could not parse the JSON body of your request. …", openai-python issues). */
static bool check_object(const json_t *body, validate_violation *v)
{
    if (json_is_object(body))
        return false;
    return validate_fail(v, NULL,
                         "We could not parse the JSON body of your request. (HINT: This likely "
                         "means you aren't using your HTTP library correctly. The OpenAI API "
                         "expects a JSON payload, but what was sent was not valid JSON. If you "
                         "have trouble figuring out how to fix this, please contact us through "
                         "our help center at help.openai.com.)");
}

/* model and messages are required ("you must provide a model parameter"; "Missing required
 * parameter: 'messages'." with param "messages"). */
static bool check_required(const json_t *body, validate_violation *v)
{
    if (!json_is_string(json_object_get(body, "model")))
        return validate_fail(v, NULL, "you must provide a model parameter");
    if (!json_is_array(messages_of(body)))
        return validate_fail(v, "messages", "Missing required parameter: 'messages'.");
    return false;
}

/* Roles come from a fixed set ("Invalid value: 'x'. Supported values are: 'system',
 * 'assistant', 'user', 'function', 'tool', and 'developer'." with param
 * "messages.[0].role"). */
static bool check_roles(const json_t *body, validate_violation *v)
{
    static const char *const roles[] = {"system", "assistant", "user", "function", "tool",
                                        "developer"};
    size_t i;
    const json_t *m;
    json_array_foreach(messages_of(body), i, m) {
        bool ok = false;
        for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++)
            ok |= strcmp(role_of(m), roles[r]) == 0;
        if (!ok) {
            char param[64];
            snprintf(param, sizeof param, "messages.[%zu].role", i);
            return validate_fail(v, param,
                                 "Invalid value: '%s'. Supported values are: 'system', "
                                 "'assistant', 'user', 'function', 'tool', and 'developer'.",
                                 role_of(m));
        }
    }
    return false;
}

/* An assistant message without tool_calls needs its content (null is allowed only with
 * tool_calls: "Invalid value for 'content': expected a string, got null.", param
 * "messages.[1].content"; Chat API reference: content "Required unless tool_calls or
 * function_call is specified"). */
static bool check_assistant_content(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *m;
    json_array_foreach(messages_of(body), i, m) {
        if (strcmp(role_of(m), "assistant") != 0 || calls_of(m) ||
            json_object_get(m, "function_call"))
            continue;
        const json_t *c = json_object_get(m, "content");
        if (!c || json_is_null(c)) {
            char param[64];
            snprintf(param, sizeof param, "messages.[%zu].content", i);
            return validate_fail(v, param,
                                 "Invalid value for 'content': expected a string, got null.");
        }
    }
    return false;
}

/* Pairing, walked in order:
 *  - every id of an assistant's tool_calls is answered by a tool message before any other
 *    role ("An assistant message with 'tool_calls' must be followed by tool messages
 *    responding to each 'tool_call_id'. The following tool_call_ids did not have response
 *    messages: call_…", param "messages.[6].role", router-for-me/CLIProxyAPI#2798);
 *  - a tool message answers the assistant message just before its run ("Invalid
 *    parameter: messages with role 'tool' must be a response to a preceeding message with
 *    'tool_calls'.", param "messages.[3].role", miurla/morphic#136), with one of its ids
 *    ("Invalid parameter: 'tool_call_id' of 'call_…' not found in 'tool_calls' of previous
 *    message.", param "messages.[3].tool_call_id");
 *  - no two tool messages answer the same id ("Invalid parameter: Duplicate value for
 *    'tool_call_id' of 'call_…', in messages[7] and messages[8].", param
 *    "messages.[8].tool_call_id", agno-agi/agno#5116). */
static bool answered_before(const json_t *msgs, size_t from, size_t to, const char *id,
                            size_t *where)
{
    for (size_t j = from; j < to; j++) {
        const json_t *m = json_array_get(msgs, j);
        const char *tid = json_string_value(json_object_get(m, "tool_call_id"));
        if (strcmp(role_of(m), "tool") == 0 && tid && strcmp(tid, id) == 0) {
            *where = j;
            return true;
        }
    }
    return false;
}

static bool call_has_id(const json_t *calls, const char *id)
{
    size_t k;
    const json_t *c;
    json_array_foreach(calls, k, c) {
        const char *cid = json_string_value(json_object_get(c, "id"));
        if (cid && id && strcmp(cid, id) == 0)
            return true;
    }
    return false;
}

static bool check_tool_pairs(const json_t *body, validate_violation *v)
{
    const json_t *msgs = messages_of(body);
    size_t n = json_array_size(msgs);
    char param[64];
    const json_t *open = NULL; /* tool_calls of the assistant whose tool run we are in */
    size_t open_at = 0;
    for (size_t i = 0; i <= n; i++) {
        const json_t *m = i < n ? json_array_get(msgs, i) : NULL;
        bool tool = m && strcmp(role_of(m), "tool") == 0;
        if (open && !tool) {
            /* the run of tool messages after messages[open_at] ends here */
            char missing[ID_LIST_MAX] = "";
            size_t k, dummy;
            const json_t *c;
            json_array_foreach(open, k, c) {
                const char *id = json_string_value(json_object_get(c, "id"));
                if (!id || !answered_before(msgs, open_at + 1, i, id, &dummy))
                    validate_list_add(missing, sizeof missing, id ? id : "");
            }
            if (missing[0]) {
                snprintf(param, sizeof param, "messages.[%zu].role", i < n ? i : open_at);
                return validate_fail(v, param,
                                     "An assistant message with 'tool_calls' must be followed "
                                     "by tool messages responding to each 'tool_call_id'. The "
                                     "following tool_call_ids did not have response messages: "
                                     "%s",
                                     missing);
            }
            open = NULL;
        }
        if (!m)
            break;
        if (tool) {
            if (!open) {
                snprintf(param, sizeof param, "messages.[%zu].role", i);
                return validate_fail(v, param,
                                     "Invalid parameter: messages with role 'tool' must be a "
                                     "response to a preceeding message with 'tool_calls'.");
            }
            const char *tid = json_string_value(json_object_get(m, "tool_call_id"));
            if (!call_has_id(open, tid)) {
                snprintf(param, sizeof param, "messages.[%zu].tool_call_id", i);
                return validate_fail(v, param,
                                     "Invalid parameter: 'tool_call_id' of '%s' not found in "
                                     "'tool_calls' of previous message.",
                                     tid ? tid : "");
            }
            size_t dup;
            if (answered_before(msgs, open_at + 1, i, tid, &dup)) {
                snprintf(param, sizeof param, "messages.[%zu].tool_call_id", i);
                return validate_fail(v, param,
                                     "Invalid parameter: Duplicate value for 'tool_call_id' "
                                     "of '%s', in messages[%zu] and messages[%zu].",
                                     tid, dup, i);
            }
        } else if (strcmp(role_of(m), "assistant") == 0 && calls_of(m)) {
            open = calls_of(m);
            open_at = i;
        }
    }
    return false;
}

/* image_url parts: a valid data URL of an image (validate_image_openai); sent to a model
 * the table knows does not read images, the API refuses the part ("Invalid content type.
 * image_url is only supported by certain models.", param
 * "messages.[0].content.[1].type", openai community forum reports for gpt-3.5-turbo and
 * o1-mini). A model the table does not know is given the benefit of the doubt. */
static bool check_images(const json_t *body, validate_violation *v)
{
    api_model m = api_model_lookup(NULL, json_string_value(json_object_get(body, "model")));
    bool text_only = m.known && !m.images;
    size_t i;
    const json_t *msg;
    json_array_foreach(messages_of(body), i, msg) {
        size_t k;
        const json_t *part;
        json_array_foreach(json_object_get(msg, "content"), k, part) {
            const char *t = json_string_value(json_object_get(part, "type"));
            if (!t || strcmp(t, "image_url") != 0)
                continue;
            char param[96];
            if (text_only) {
                snprintf(param, sizeof param, "messages.[%zu].content.[%zu].type", i, k);
                return validate_fail(v, param, "Invalid content type. image_url is only "
                                               "supported by certain models.");
            }
            snprintf(param, sizeof param, "messages.[%zu].content.[%zu].image_url.url", i, k);
            const json_t *iu = json_object_get(part, "image_url");
            if (validate_image_openai(json_string_value(json_object_get(iu, "url")), param, v))
                return true;
        }
    }
    return false;
}

static const validate_rule rules[] = {
    {"a JSON object", check_object},
    {"model and messages present", check_required},
    {"known roles", check_roles},
    {"assistant content unless tool_calls", check_assistant_content},
    {"tool_calls answered by tool messages; no stray or duplicate tool message",
     check_tool_pairs},
    {"images: data URLs of decodable images, to a model that reads them", check_images},
};

bool validate_openai_chat(const json_t *body, validate_violation *v)
{
    return validate_run(rules, sizeof rules / sizeof rules[0], body, v);
}
