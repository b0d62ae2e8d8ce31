/* build_gemini — the Gemini generateContent request body (providers.md §5.1): contents
 * with roles user/model, text and inlineData parts, functionCall parts (with their
 * thoughtSignature, and the call id only when the provider gave one), functionResponse
 * parts named after the call they answer, systemInstruction, functionDeclarations,
 * generationConfig with maxOutputTokens and thinkingConfig. It must never send an id hew
 * made up, never drop a thought signature, and never send hew's own keys. */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "api/build_internal.h"
#include "api/message.h"
#include "base/json.h"

static void inline_image(const json_t *b, json_t *parts, hew_code *st)
{
    const json_t *src = json_object_get(b, "source");
    json_arr_push(parts,
                  json_pack("{s:{s:O,s:O}}", "inlineData", "mimeType",
                            json_object_get(src, "media_type"), "data",
                            json_object_get(src, "data")),
                  st);
}

static void user_parts(const build_ctx *c, const json_t *blocks, json_t *parts, hew_code *st)
{
    size_t k;
    json_t *b;
    json_array_foreach(blocks, k, b) {
        const char *t = api_msg_block_type(b);
        if (strcmp(t, "tool_result") == 0) {
            const char *id = json_string_value(json_object_get(b, "tool_use_id"));
            const char *name = build_tool_name(c->r->messages, id);
            char *text = api_msg_tool_result_text(b);
            if (!text) {
                *st = HEW_E_NOMEM;
                return;
            }
            json_t *resp = json_object();
            json_obj_put(resp, json_is_true(json_object_get(b, "is_error")) ? "error" : "output",
                         json_string_lossy(text, strlen(text)), st);
            free(text);
            json_t *fr = json_object();
            if (!build_tool_id_synthesized(c->r->messages, id))
                json_obj_put(fr, "id", json_string(id), st);
            json_obj_put(fr, "name", json_string(name ? name : "unknown"), st);
            json_obj_put(fr, "response", resp, st);
            json_arr_push(parts, json_pack("{s:o}", "functionResponse", fr), st);
        } else if (strcmp(t, "text") == 0) {
            if (json_string_length(json_object_get(b, "text")))
                json_arr_push(parts, json_pack("{s:O}", "text", json_object_get(b, "text")), st);
        } else if (strcmp(t, "image") == 0) {
            inline_image(b, parts, st);
        }
    }
    /* Images a tool returned: inlineData parts after the turn's function responses (a
     * functionResponse holds only JSON), as Gemini CLI sends a read image. */
    json_array_foreach(blocks, k, b) {
        if (strcmp(api_msg_block_type(b), "tool_result") != 0)
            continue;
        size_t j;
        json_t *x;
        json_array_foreach(json_object_get(b, "content"), j, x)
            if (strcmp(api_msg_block_type(x), "image") == 0)
                inline_image(x, parts, st);
    }
}

static void model_parts(const json_t *blocks, json_t *parts, hew_code *st)
{
    size_t k;
    json_t *b;
    json_array_foreach(blocks, k, b) {
        const char *t = api_msg_block_type(b);
        if (strcmp(t, "text") == 0) {
            if (json_string_length(json_object_get(b, "text")))
                json_arr_push(parts, json_pack("{s:O}", "text", json_object_get(b, "text")), st);
        } else if (strcmp(t, "tool_use") == 0) {
            json_t *fc = json_object();
            if (!json_is_true(json_object_get(b, "hew_synthesized_id")))
                json_obj_put(fc, "id", json_incref(json_object_get(b, "id")), st);
            json_obj_put(fc, "name", json_incref(json_object_get(b, "name")), st);
            json_obj_put(fc, "args", json_incref(json_object_get(b, "input")), st);
            json_t *part = json_object();
            json_obj_put(part, "functionCall", fc, st);
            const json_t *sig = json_object_get(b, "thought_signature");
            if (json_is_string(sig))
                json_obj_put(part, "thoughtSignature", json_incref((json_t *)sig), st);
            json_arr_push(parts, part, st);
        }
        /* thinking: Gemini keeps its thoughts; only signatures travel (on the calls). */
    }
}

/* Gemini's "parameters" takes a subset of OpenAPI's schema; a schema with anything else
 * (an MCP server's "additionalProperties", "$schema", "oneOf", "const", ...) goes as
 * "parametersJsonSchema", which takes JSON Schema as it is. Built-in tools fit the
 * subset and keep "parameters". */
static bool openapi_subset(const json_t *schema)
{
    static const char *const keys[] = {
        "type",      "format",   "title",     "description", "nullable",         "enum",
        "maxItems",  "minItems", "properties", "required",   "minProperties",    "maxProperties",
        "minLength", "maxLength", "pattern",  "example",     "anyOf",            "propertyOrdering",
        "default",   "items",    "minimum",   "maximum",
    };
    if (!json_is_object(schema))
        return true;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)schema, k, v) {
        size_t i = 0;
        while (i < sizeof keys / sizeof keys[0] && strcmp(keys[i], k) != 0)
            i++;
        if (i == sizeof keys / sizeof keys[0])
            return false;
        if (strcmp(k, "properties") == 0) {
            const char *name;
            json_t *sub;
            json_object_foreach(v, name, sub)
                if (!openapi_subset(sub))
                    return false;
        } else if (strcmp(k, "items") == 0 && !openapi_subset(v)) {
            return false;
        } else if (strcmp(k, "anyOf") == 0) {
            size_t j;
            json_t *sub;
            json_array_foreach(v, j, sub)
                if (!openapi_subset(sub))
                    return false;
        }
    }
    return true;
}

json_t *build_gemini(const build_ctx *c, hew_err *err)
{
    const api_request *r = c->r;
    hew_code st = HEW_OK;
    json_t *contents = json_array();
    const char *last_role = NULL;
    json_t *cur = NULL;
    size_t i;
    json_t *m;
    json_array_foreach(r->messages, i, m) {
        bool user = strcmp(json_string_value(json_object_get(m, "role")), "user") == 0;
        const char *role = user ? "user" : "model";
        json_t *tmp;
        json_t *blocks = api_msg_blocks(m, &tmp);
        if (!last_role || strcmp(last_role, role) != 0) {
            cur = json_array();
            json_arr_push(contents, json_pack("{s:s,s:O}", "role", role, "parts", cur), &st);
            json_decref(cur);
            last_role = role;
        }
        if (user)
            user_parts(c, blocks, cur, &st);
        else
            model_parts(blocks, cur, &st);
        json_decref(tmp);
    }
    for (size_t n = 0; n < json_array_size(contents); n++) {
        json_t *parts = json_object_get(json_array_get(contents, n), "parts");
        if (json_array_size(parts) == 0)
            json_arr_push(parts, json_pack("{s:s}", "text", "(empty)"), &st);
    }
    json_t *body = json_object();
    json_obj_put(body, "contents", contents, &st);
    if (r->system && *r->system) {
        json_t *part = json_object();
        json_obj_put(part, "text", json_string_lossy(r->system, strlen(r->system)), &st);
        json_t *parts = json_array();
        json_arr_push(parts, part, &st);
        json_obj_put(body, "systemInstruction", json_pack("{s:o}", "parts", parts), &st);
    }
    if (r->ntools) {
        json_t *decls = json_array();
        for (size_t t = 0; t < r->ntools; t++) {
            json_t *schema = build_schema(&r->tools[t]);
            json_arr_push(decls,
                          json_pack("{s:s,s:s,s:o}", "name", r->tools[t].name, "description",
                                    r->tools[t].description ? r->tools[t].description : "",
                                    openapi_subset(schema) ? "parameters"
                                                           : "parametersJsonSchema",
                                    schema),
                          &st);
        }
        json_obj_put(body, "tools", json_pack("[{s:o}]", "functionDeclarations", decls), &st);
        json_obj_put(body, "toolConfig",
                     json_pack("{s:{s:s}}", "functionCallingConfig", "mode", "AUTO"), &st);
    }
    json_t *gc = json_object();
    json_obj_put(gc, "maxOutputTokens", json_integer(c->max_tokens), &st);
    if (r->has_temperature)
        json_obj_put(gc, "temperature", json_real(r->temperature), &st);
    if (r->thinking_budget > 0)
        json_obj_put(gc, "thinkingConfig",
                     json_pack("{s:I,s:b}", "thinkingBudget", (json_int_t)r->thinking_budget,
                               "includeThoughts", 1),
                     &st);
    json_obj_put(body, "generationConfig", gc, &st);
    if (st != HEW_OK) {
        json_decref(body);
        hew_err_set(err, st, "cannot build the Gemini request body (out of memory)");
        return NULL;
    }
    return body;
}
