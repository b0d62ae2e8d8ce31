/* model — the model table: context window, output limit, prices and capabilities of the
 * models hew knows, looked up by provider and model name (a dated or vendor-prefixed name
 * finds its family: "claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4.5"). Unknown
 * models get Cline's defaults (a 128 000-token window, no images, no thinking, XML tools,
 * no prices) and can be described in config (api_model_from_json).
 * Static data plus pure lookups: it never does I/O and never guesses a price (unknown is
 * 0, and cost.h then reports no cost rather than a wrong one).
 *
 * Prices are USD per million tokens, as the providers list them (checked 2025; the
 * Responses-only OpenAI rows from developers.openai.com/api/docs/models, 2026): input
 * (uncached), output (reasoning included), cache read, cache write. A tier replaces them
 * when the prompt (input_total) is larger than tier_above (Anthropic's and Gemini's long
 * context prices). */
#ifndef HEW_API_MODEL_H
#define HEW_API_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct api_prices {
    double input, output, cache_read, cache_write;
} api_prices;

typedef struct api_model {
    const char *id;          /* family name as matched ("claude-sonnet-4-5"); "" unknown */
    int64_t context_window;  /* tokens */
    int64_t max_output;      /* tokens */
    api_prices price;
    int64_t tier_above;      /* 0: no tier */
    api_prices tier;
    bool images;
    bool thinking;           /* extended thinking / reasoning output */
    bool native_tools;       /* reliable native tool calling */
    bool reasoning_effort;   /* OpenAI-style reasoning model: developer role,
                                max_completion_tokens, reasoning_effort, no temperature */
    bool next_gen;           /* a family that follows long instructions well (Cline's
                                "next-gen": Claude 4+, GPT-5, Gemini 2.5, Grok 4, gpt-oss,
                                DeepSeek V3.2): automatic condensing is on by default */
    bool responses_only;     /* OpenAI serves it through the Responses API only (the
                                codex and -pro models): the openai provider then speaks
                                openai-responses unless a protocol was chosen */
    bool known;              /* found in the table (or described in config) */
} api_model;

/* The model for (provider profile name, model name). Never fails: an unknown model gets
 * the safe defaults with known = false. provider may be NULL. */
api_model api_model_lookup(const char *provider, const char *model);

/* The table's rows, in table order: *n gets how many. For listing (hew_models_json). */
const api_model *api_model_table(size_t *n);

/* The provider profile whose own models a table row is ("anthropic", "openai", "gemini",
 * "deepseek", "xai", "groq"), from its name's family. */
const char *api_model_vendor(const api_model *m);

/* A model described in config, on top of the table's entry (or the defaults):
 * {"context_window", "max_output", "input_price", "output_price", "cache_read_price",
 *  "cache_write_price", "images", "thinking", "native_tools", "reasoning_effort",
 *  "next_gen"} — every key optional. HEW_E_INVALID naming the key when a value has the
 * wrong type or is negative, or the key is none of these. */
hew_code api_model_from_json(const json_t *desc, api_model *m, hew_err *err);


#endif
