/* chunk — the one stream type every provider protocol is decoded into: text, reasoning,
 * tool-call deltas, usage, the end of a turn, or an error. The agent loop, the parser and
 * the debug surface consume only this; nothing above api/ ever sees a wire format.
 * This header defines data only; it must never grow protocol knowledge.
 *
 * A turn's chunks arrive in this order:
 *     (TEXT | REASONING | TOOL_DELTA)*  [USAGE]  (END | ERROR)
 * USAGE carries the whole usage known at the end of the stream (normalized, see
 * api_usage), at most once, right before END or ERROR. Exactly one END or ERROR closes
 * every stream that was decoded to its end: a stream cut off before the protocol's
 * terminal event closes with ERROR, never with END.
 *
 * Ownership: every pointer in a chunk is BORROWED and valid only during the callback that
 * receives it. Strings carry lengths; they may contain NUL bytes (a model can write
 * \u0000), and are valid UTF-8 as the provider sent it (jansson refuses anything else,
 * which makes the event malformed). Nothing in api/ cuts a string at a NUL: the turn and
 * the history keep the bytes exactly (a thinking block goes back unchanged); the parser
 * (parse/parser.h) shows and hands a NUL to the tools as U+FFFD. */
#ifndef HEW_API_CHUNK_H
#define HEW_API_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The four wire protocols. */
typedef enum api_protocol {
    API_PROTO_ANTHROPIC,        /* Anthropic Messages, /v1/messages */
    API_PROTO_OPENAI_CHAT,      /* OpenAI Chat Completions and the servers that copy it */
    API_PROTO_OPENAI_RESPONSES, /* OpenAI Responses, /v1/responses */
    API_PROTO_GEMINI            /* Gemini streamGenerateContent?alt=sse */
} api_protocol;

/* "anthropic", "openai-chat", "openai-responses", "gemini". */
const char *api_protocol_name(api_protocol p);
/* Parse a name as above (also "anthropic-messages"); false when unknown. */
bool api_protocol_parse(const char *name, api_protocol *out);

/* Why the model stopped, normalized across protocols (providers.md §8.1). */
typedef enum api_stop {
    API_STOP_STOP,           /* finished its answer (end_turn, stop, STOP, completed) */
    API_STOP_TOOL_CALLS,     /* wants the tool calls of this turn run */
    API_STOP_LENGTH,         /* hit max tokens (or the context window): output cut off */
    API_STOP_CONTENT_FILTER, /* refused or filtered */
    API_STOP_ERROR           /* failed (only ever reported through ERROR) */
} api_stop;

/* "stop", "tool_calls", "length", "content_filter", "error". */
const char *api_stop_name(api_stop s);

/* Token usage, normalized (providers.md §8.2). A count of -1 means the provider did not
 * report it. input_total counts every prompt token, cache reads and writes included
 * (Anthropic reports input without them; OpenAI-style servers include them);
 * input_uncached = input_total - cache_read - cache_write. output includes reasoning
 * (Gemini reports them apart: output = candidates + thoughts). */
typedef struct api_usage {
    int64_t input_total;
    int64_t input_uncached;
    int64_t cache_read;
    int64_t cache_write;
    int64_t output;
    int64_t reasoning;
    double cost_usd; /* what the provider says the request cost (OpenRouter), or -1 */
} api_usage;

#define API_USAGE_UNKNOWN { -1, -1, -1, -1, -1, -1, -1.0 }

/* True when at least one count is known. */
bool api_usage_known(const api_usage *u);

typedef enum api_chunk_kind {
    API_CHUNK_TEXT,
    API_CHUNK_REASONING,
    API_CHUNK_TOOL_DELTA,
    API_CHUNK_USAGE,
    API_CHUNK_END,
    API_CHUNK_ERROR
} api_chunk_kind;

struct api_error; /* api/error.h */

/* REASONING: visible reasoning text and/or what must be sent back for the provider to
 * accept the next request (Anthropic signatures and redacted thinking, Gemini thought
 * signatures, Responses encrypted reasoning items, OpenRouter reasoning_details).
 * A chunk may carry text only, meta only, or both; consumers append text and keep the
 * latest meta of the block. */
typedef struct api_reasoning {
    int block;               /* reasoning block ordinal within the turn (0-based): chunks
                                with the same block belong to one thinking block */
    const char *signature;   /* Anthropic signature_delta / Gemini thoughtSignature, or NULL */
    size_t signature_len;
    bool redacted;           /* opaque holds Anthropic redacted_thinking data */
    const char *opaque;      /* redacted data or Responses encrypted_content, or NULL */
    size_t opaque_len;
    const char *item_id;     /* Responses reasoning item id (rs_...), or NULL */
    const char *details;     /* OpenRouter: one reasoning_details entry as compact JSON, to
                                send back unchanged, or NULL */
    size_t details_len;
} api_reasoning;

/* TOOL_DELTA: a piece of one native tool call. */
typedef struct api_tool_delta {
    int index;                     /* call ordinal within the turn (0-based, in order of
                                      first appearance; wire indices need not start at 0) */
    const char *id;                /* on the first delta of a call (maybe later too), else
                                      NULL; Gemini gets a stable synthesized id */
    bool id_synthesized;           /* the provider sent no id; hew made one */
    const char *name;              /* on the first delta of a call, else NULL */
    const char *args;              /* argument JSON text fragment (may be empty); the
                                      concatenation of all fragments is the call's raw
                                      argument string ("" means no arguments: {}) */
    size_t args_len;
    const char *thought_signature; /* Gemini: to echo back on this call, or NULL */
    size_t thought_signature_len;
    bool done;                     /* the wire said the call is complete (Anthropic
                                      content_block_stop, Responses output_item.done, a
                                      Gemini functionCall, which comes whole): no more
                                      deltas for it, it may run while the answer goes on.
                                      Such a delta carries no arguments. OpenAI Chat says
                                      nothing per call (servers interleave indices): its
                                      calls complete at the end of the turn. */
} api_tool_delta;

/* END: the provider finished the turn properly (its terminal event was seen). */
typedef struct api_end {
    api_stop stop;
    const char *raw;          /* the provider's own word ("end_turn", "STOP"), "" if none */
    bool tool_args_truncated; /* stop is LENGTH and tool calls were open: their arguments
                                 are cut off and must never be executed */
} api_end;

typedef struct api_chunk {
    api_chunk_kind kind;
    const char *text; /* TEXT and REASONING: the delta (may be empty for REASONING meta) */
    size_t len;
    api_reasoning reasoning;       /* REASONING */
    api_tool_delta tool;           /* TOOL_DELTA */
    api_usage usage;               /* USAGE */
    api_end end;                   /* END */
    const struct api_error *error; /* ERROR */
} api_chunk;

/* Called for every chunk, in order. Return 0 to go on, non-zero to stop decoding. */
typedef int (*api_chunk_fn)(void *ud, const api_chunk *c);

#endif
