/* validate_responses — the OpenAI Responses API's request rules for `input`, as a table of
 * checks run in order (see validate.h). Calls and outputs are tied by call_id anywhere in
 * the list (the API pairs them by id, not by position: deepseek-ai/awesome-deepseek-
 * integration#740 reports the OpenAI behaviour a clone failed to copy). Messages are the
 * API's own, param "input". Never copies or changes the request. */
#include <stdio.h>
#include <string.h>

#include "validate.h"
#include "validate_image.h"

static const char *type_of(const json_t *it)
{
    const char *t = json_string_value(json_object_get(it, "type"));
    return t ? t : "";
}

static const char *call_id_of(const json_t *it)
{
    return json_string_value(json_object_get(it, "call_id"));
}

/* The body must be a JSON object (same answer as Chat Completions). */
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

/* model is required ("Missing required parameter: 'model'.", param "model"). */
static bool check_required(const json_t *body, validate_violation *v)
{
    if (!json_is_string(json_object_get(body, "model")))
        return validate_fail(v, "model", "Missing required parameter: 'model'.");
    return false;
}

/* Is there an item of type `type` with this call_id in input[from, to)? */
static bool has_item(const json_t *input, size_t from, size_t to, const char *type,
                     const char *id)
{
    for (size_t j = from; j < to; j++) {
        const json_t *it = json_array_get(input, j);
        const char *cid = call_id_of(it);
        if (strcmp(type_of(it), type) == 0 && cid && id && strcmp(cid, id) == 0)
            return true;
    }
    return false;
}

/* Every function_call has a function_call_output with its call_id later in input ("No
 * tool output found for function call call_….", param "input"), and no output comes
 * without its call before it ("No tool call found for function call output with call_id
 * call_….", param "input", microsoft/vscode#320060, james-6-23/codex2api#414). */
static bool check_calls(const json_t *body, validate_violation *v)
{
    const json_t *input = json_object_get(body, "input");
    if (!json_is_array(input))
        return false; /* a plain string input has no calls */
    size_t n = json_array_size(input), i;
    const json_t *it;
    json_array_foreach(input, i, it) {
        const char *id = call_id_of(it);
        if (strcmp(type_of(it), "function_call_output") == 0 &&
            !has_item(input, 0, i, "function_call", id))
            return validate_fail(v, "input",
                                 "No tool call found for function call output with call_id "
                                 "%s.",
                                 id ? id : "");
        if (strcmp(type_of(it), "function_call") == 0 &&
            !has_item(input, i + 1, n, "function_call_output", id))
            return validate_fail(v, "input", "No tool output found for function call %s.",
                                 id ? id : "");
    }
    return false;
}

/* With store false nothing is kept on the server, so a reasoning item sent back must carry
 * its encrypted_content ("Item with id 'rs_…' not found. Items are not persisted when
 * `store` is set to false. Try again with `store` set to true, or remove this item from
 * your input.", param "input"; reasoning docs: stateless use needs
 * include ["reasoning.encrypted_content"]). */
static bool check_reasoning(const json_t *body, validate_violation *v)
{
    if (!json_is_false(json_object_get(body, "store")))
        return false;
    size_t i;
    const json_t *it;
    json_array_foreach(json_object_get(body, "input"), i, it) {
        if (strcmp(type_of(it), "reasoning") != 0)
            continue;
        const char *id = json_string_value(json_object_get(it, "id"));
        if (id && !json_is_string(json_object_get(it, "encrypted_content")))
            return validate_fail(v, "input",
                                 "Item with id '%s' not found. Items are not persisted when "
                                 "`store` is set to false. Try again with `store` set to "
                                 "true, or remove this item from your input.",
                                 id);
    }
    return false;
}

/* input_image parts of input messages and of function_call_output arrays: valid data URLs
 * of images (validate_image_openai); param "input[3].content[0].image_url". */
static bool check_images(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *it;
    json_array_foreach(json_object_get(body, "input"), i, it) {
        const json_t *parts = json_object_get(it, "content");
        const char *key = "content";
        if (!json_is_array(parts)) {
            parts = json_object_get(it, "output");
            key = "output";
        }
        size_t k;
        const json_t *part;
        json_array_foreach(parts, k, part) {
            if (strcmp(type_of(part), "input_image") != 0)
                continue;
            char param[96];
            snprintf(param, sizeof param, "input[%zu].%s[%zu].image_url", i, key, k);
            if (validate_image_openai(json_string_value(json_object_get(part, "image_url")),
                                      param, v))
                return true;
        }
    }
    return false;
}

static const validate_rule rules[] = {
    {"a JSON object", check_object},
    {"model present", check_required},
    {"function_call answered by function_call_output; no stray output", check_calls},
    {"reasoning items carry encrypted_content when store is false", check_reasoning},
    {"images: data URLs of decodable images", check_images},
};

bool validate_responses(const json_t *body, validate_violation *v)
{
    return validate_run(rules, sizeof rules / sizeof rules[0], body, v);
}
