/* request — one model request, described once and built into the HTTP request (URL,
 * headers, JSON body) of the provider's wire protocol (build_anthropic.c,
 * build_openai_chat.c, build_openai_responses.c, build_gemini.c). The history is hew's
 * message format (message.h); each builder converts it: tool results paired with their
 * tool_use by id (never a "result missing" placeholder), images, thinking sent back
 * where the provider needs it (Anthropic signatures, Gemini thought signatures,
 * Responses encrypted reasoning, OpenRouter reasoning_details, DeepSeek reasoning within
 * a tool-calling turn).
 *
 * Deterministic: the same provider + request give the same bytes (key order fixed, no
 * clocks, no random ids), so providers' prompt caches hit. It never does I/O and never
 * puts the key anywhere but the auth header.
 *
 * Protocol notes (providers.md §2–§5):
 *   anthropic  POST {base}/v1/messages; x-api-key, anthropic-version: 2023-06-01; system
 *              as one text block with cache_control, cache_control also on the last block
 *              of the last two user messages; tools with input_schema; thinking
 *              {type: enabled, budget_tokens} (temperature then dropped).
 *   openai-chat POST {base}/chat/completions; Bearer; stream_options.include_usage; system
 *              (developer for reasoning models) first; tools as functions; tool results as
 *              role "tool" messages; max_completion_tokens for OpenAI itself, max_tokens
 *              for compatible servers; reasoning_effort for reasoning models; OpenRouter
 *              gets cache_control on Anthropic models and `reasoning`; DeepSeek gets
 *              reasoning_content back within the current tool-calling turn.
 *   openai-responses POST {base}/responses; store false, instructions, input items
 *              (function_call / function_call_output by call_id, reasoning items with
 *              encrypted_content), flat tools, max_output_tokens, reasoning {effort,
 *              summary: auto} + include reasoning.encrypted_content.
 *   gemini     POST {base}/models/{model}:streamGenerateContent?alt=sse; x-goog-api-key;
 *              contents with user/model roles, functionCall/functionResponse parts
 *              (functionResponse named after the call it answers), thoughtSignature kept,
 *              systemInstruction, functionDeclarations, thinkingConfig. */
#ifndef HEW_API_REQUEST_H
#define HEW_API_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/model.h"
#include "api/provider.h"
#include "base/err.h"

typedef struct api_tool {
    const char *name;
    const char *description;
    const json_t *input_schema; /* JSON Schema object (borrowed) */
} api_tool;

typedef struct api_request {
    const char *system;         /* system prompt (may be NULL) */
    const json_t *messages;     /* history, message.h format (borrowed) */
    const api_tool *tools;      /* native tools; ntools == 0: XML tool mode (no tools field) */
    size_t ntools;
    long max_tokens;            /* 0: the model's max output (capped at 32000; 8192 when
                                   the model is unknown) */
    long thinking_budget;       /* > 0: Anthropic budget_tokens / Gemini thinkingBudget /
                                   OpenRouter reasoning.max_tokens */
    const char *reasoning_effort; /* "minimal"|"low"|"medium"|"high" for reasoning models
                                     (OpenAI, Responses, OpenRouter), or NULL */
    bool has_temperature;
    double temperature;
    bool parallel_tool_calls;
    const api_model *model;     /* the model's facts when the caller has them (a model
                                   described in config); NULL: the table's entry */
} api_request;

/* A zeroed request (no tools, defaults everywhere). */
api_request api_request_defaults(void);

/* A built HTTP request. Everything is owned; release with api_http_release. */
typedef struct api_http {
    char *url;
    char **headers; /* "Name: value" strings, NULL-terminated */
    size_t nheaders;
    char *body;     /* JSON, NUL-terminated */
    size_t body_len;
} api_http;

void api_http_release(api_http *h);

/* Build the request for provider p. Errors: HEW_E_INVALID (a history that does not
 * validate, a tool without a name or schema; the message names the path),
 * HEW_E_NOMEM. */
hew_code api_build(const api_provider *p, const api_request *r, api_http *out, hew_err *err);

#endif
