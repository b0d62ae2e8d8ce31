/* validate_gemini — the Gemini generateContent request rules for `contents`, as a table
 * of checks run in order (see validate.h). Messages are the API's own, taken from the 400
 * bodies users quote (sources beside each check). Never copies or changes the request. */
#include <stdio.h>
#include <string.h>

#include "validate.h"
#include "validate_image.h"

static const json_t *contents_of(const json_t *body)
{
    return json_object_get(body, "contents");
}

/* A missing role reads as "user" (single-turn requests may leave it out). */
static const char *role_of(const json_t *c)
{
    const char *r = json_string_value(json_object_get(c, "role"));
    return r ? r : "user";
}

static size_t count_parts(const json_t *c, const char *key)
{
    size_t n = 0, k;
    const json_t *p;
    json_array_foreach(json_object_get(c, "parts"), k, p)
        n += json_object_get(p, key) != NULL;
    return n;
}

/* The body must be a JSON object ("Invalid JSON payload received. …"). */
static bool check_object(const json_t *body, validate_violation *v)
{
    if (json_is_object(body))
        return false;
    return validate_fail(v, NULL, "Invalid JSON payload received. Expected an object.");
}

/* contents is required and not empty ("* GenerateContentRequest.contents: contents is not
 * specified\n"). */
static bool check_contents(const json_t *body, validate_violation *v)
{
    if (!json_is_array(contents_of(body)) || json_array_size(contents_of(body)) == 0)
        return validate_fail(v, NULL,
                             "* GenerateContentRequest.contents: contents is not specified\n");
    return false;
}

/* Roles are "user" or "model" ("Please use a valid role: user, model."). */
static bool check_roles(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *c;
    json_array_foreach(contents_of(body), i, c) {
        const char *r = role_of(c);
        if (strcmp(r, "user") != 0 && strcmp(r, "model") != 0)
            return validate_fail(v, NULL, "Please use a valid role: user, model.");
    }
    return false;
}

/* Every content has parts ("* GenerateContentRequest.contents[1].parts: contents.parts
 * must not be empty.\n"). */
static bool check_parts(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *c;
    json_array_foreach(contents_of(body), i, c) {
        const json_t *parts = json_object_get(c, "parts");
        if (!json_is_array(parts) || json_array_size(parts) == 0)
            return validate_fail(v, NULL,
                                 "* GenerateContentRequest.contents[%zu].parts: contents.parts "
                                 "must not be empty.\n",
                                 i);
    }
    return false;
}

/* Calls and responses, turn by turn:
 *  - a function call turn comes right after a user turn or a function response turn
 *    ("Please ensure that function call turn comes immediately after a user turn or after a
 *    function response turn.", google-gemini/gemini-cli#11814: history starting with a
 *    call); checked for a call turn that opens the conversation;
 *  - a function response turn comes right after a function call turn ("Please ensure that
 *    function response turn comes immediately after a function call turn.",
 *    langchain-ai/langchain#27799);
 *  - the turn after a function call turn answers every call: as many functionResponse
 *    parts as functionCall parts ("Please ensure that the number of function response
 *    parts is equal to the number of function call parts of the function call turn.",
 *    google-gemini/gemini-cli#4504). A call turn that ends the request is not checked (no
 *    sample of the API's answer to it was found). */
static bool check_function_turns(const json_t *body, validate_violation *v)
{
    const json_t *contents = contents_of(body);
    size_t n = json_array_size(contents);
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(contents, i);
        const json_t *prev = i ? json_array_get(contents, i - 1) : NULL;
        size_t calls = count_parts(c, "functionCall");
        size_t answers = count_parts(c, "functionResponse");
        size_t prev_calls = prev ? count_parts(prev, "functionCall") : 0;
        if (calls && !prev)
            return validate_fail(v, NULL,
                                 "Please ensure that function call turn comes immediately "
                                 "after a user turn or after a function response turn.");
        if (answers && (!prev || prev_calls == 0 || strcmp(role_of(prev), "model") != 0))
            return validate_fail(v, NULL,
                                 "Please ensure that function response turn comes "
                                 "immediately after a function call turn.");
        if (prev_calls && strcmp(role_of(prev), "model") == 0 && answers != prev_calls)
            return validate_fail(v, NULL,
                                 "Please ensure that the number of function response parts "
                                 "is equal to the number of function call parts of the "
                                 "function call turn.");
    }
    return false;
}

/* inlineData parts (or inline_data: the API takes both spellings): a MIME type it takes
 * ("Unsupported MIME type: image/bmp"), base64 bytes ("Invalid value at
 * 'contents[0].parts[1].inline_data.data' (TYPE_BYTES), Base64 decoding failed for ..."),
 * and an image that decodes ("Unable to process input image. Please retry or report in
 * https://developers.generativeai.google/guide/troubleshooting"; all three quoted in
 * google-gemini issues). Only image MIME types are checked: a PDF or audio part is let
 * through. */
static bool check_images(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *c;
    json_array_foreach(contents_of(body), i, c) {
        size_t k;
        const json_t *part;
        json_array_foreach(json_object_get(c, "parts"), k, part) {
            const json_t *in = json_object_get(part, "inlineData");
            if (!in)
                in = json_object_get(part, "inline_data");
            if (!in)
                continue;
            const json_t *mt = json_object_get(in, "mimeType");
            if (!mt)
                mt = json_object_get(in, "mime_type");
            const char *type = json_string_value(mt);
            const json_t *data = json_object_get(in, "data");
            if (!type || strncmp(type, "image/", 6) != 0 || strcmp(type, "image/heic") == 0 ||
                strcmp(type, "image/heif") == 0)
                continue; /* HEIC/HEIF: taken by Gemini, not decoded here */
            const char *actual = NULL;
            switch (validate_image(type, json_string_value(data), json_string_length(data), 0,
                                   &actual)) {
            case VIMG_OK:
                break;
            case VIMG_MEDIA_TYPE:
                return validate_fail(v, NULL, "Unsupported MIME type: %s", type);
            case VIMG_BASE64:
                return validate_fail(v, NULL,
                                     "Invalid value at 'contents[%zu].parts[%zu].inline_data."
                                     "data' (TYPE_BYTES), Base64 decoding failed for \"%.40s\"",
                                     i, k, json_string_value(data) ? json_string_value(data) : "");
            default:
                return validate_fail(v, NULL,
                                     "Unable to process input image. Please retry or report in "
                                     "https://developers.generativeai.google/guide/"
                                     "troubleshooting");
            }
        }
    }
    return false;
}

static const validate_rule rules[] = {
    {"a JSON object", check_object},
    {"contents present", check_contents},
    {"roles user/model", check_roles},
    {"no empty parts", check_parts},
    {"function calls and responses in matching turns", check_function_turns},
    {"images: a MIME type it takes, base64, decodable", check_images},
};

bool validate_gemini(const json_t *body, validate_violation *v)
{
    return validate_run(rules, sizeof rules / sizeof rules[0], body, v);
}
