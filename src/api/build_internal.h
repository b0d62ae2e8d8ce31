/* build_internal — what request.c shares with the four body builders (build_*.c). Not a
 * public interface. Builders return the request body as a new jansson object built in a
 * fixed key order, or NULL with err set; they never do I/O and never see the key. */
#ifndef HEW_API_BUILD_INTERNAL_H
#define HEW_API_BUILD_INTERNAL_H

#include <jansson.h>

#include "api/model.h"
#include "api/request.h"

typedef struct build_ctx {
    const api_provider *p;
    const api_request *r;
    api_model model;
    long max_tokens; /* resolved */
} build_ctx;

json_t *build_anthropic(const build_ctx *c, hew_err *err);
json_t *build_openai_chat(const build_ctx *c, hew_err *err);
json_t *build_openai_responses(const build_ctx *c, hew_err *err);
json_t *build_gemini(const build_ctx *c, hew_err *err);

/* A tool's JSON Schema (borrowed from the request) or a new empty object schema. */
json_t *build_schema(const api_tool *t);
/* A data: URL for an image block ("data:image/png;base64,..."), new string value. */
json_t *build_image_url(const json_t *image_block);
/* A copy of a block without hew's own "hew_*" keys and without `drop` (may be NULL). */
json_t *build_clean_block(const json_t *block, const char *drop);
/* The name of the tool_use with this id anywhere in the history, or NULL. */
const char *build_tool_name(const json_t *messages, const char *tool_use_id);
/* True when the tool_use with this id carries hew_synthesized_id (hew made it up). */
bool build_tool_id_synthesized(const json_t *messages, const char *tool_use_id);
/* Compact JSON text of v as a new string value (arguments strings). */
json_t *build_json_text(const json_t *v);
/* A tool_result block as the OpenAI-style object that answers its call:
 * {kind_key: kind, id_key: the block's tool_use_id, text_key: its text}. NULL with *st
 * set when memory ran out. */
json_t *build_tool_output(const json_t *block, const char *kind_key, const char *kind,
                          const char *id_key, const char *text_key, hew_code *st);

#endif
