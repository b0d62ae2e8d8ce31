/* turn — collects one assistant turn from its chunks: the text, the reasoning (with the
 * signatures and opaque data that must go back to the provider), the native tool calls
 * (id, name, raw argument string), usage, how it ended and any error. Used by the debug
 * surface, the tests, the benchmark and the fuzzers, and by the agent loop to turn a
 * finished stream into the assistant message of the history (api_turn_to_message).
 * It never re-parses while collecting (arguments are parsed only on request), and every
 * buffer has a hard cap: a turn larger than API_TURN_MAX sets a sticky error.
 *
 * Lifecycle: api_turn t; api_turn_init(&t); ... api_turn_release(&t).
 * Feed it with api_turn_add (an api_chunk_fn: pass &t as ud). */
#ifndef HEW_API_TURN_H
#define HEW_API_TURN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/chunk.h"
#include "api/error.h"
#include "base/buf.h"

#define API_TURN_MAX ((size_t)64 << 20) /* per text / argument buffer */
/* A text is kept in the history in blocks of at most this many bytes (cut between
 * characters), so that a long one is never a second whole copy while it is made. */
#define API_TURN_TEXT_PART ((size_t)1 << 20)
/* With a spill directory, a text that reaches SPILL_AT bytes in memory has all but its
 * last KEEP bytes written to disk. */
#define API_TURN_SPILL_AT ((size_t)2 << 20)
#define API_TURN_SPILL_KEEP ((size_t)1 << 20)

typedef struct api_turn_call {
    char *id;                /* as sent, or hew's synthesized id (owned, never NULL after
                                the first delta: "" when none came) */
    bool id_synthesized;
    char *name;              /* owned, "" until known */
    buf args;                /* raw concatenated argument text */
    char *thought_signature; /* Gemini, owned, or NULL */
} api_turn_call;

typedef struct api_turn_reasoning {
    buf text;
    char *signature; /* owned or NULL (the latest signature of the block) */
    char *opaque;    /* redacted thinking data / encrypted_content, owned or NULL */
    bool redacted;
    char *item_id;   /* Responses reasoning item id, owned or NULL */
    json_t *details; /* OpenRouter reasoning_details entries (array), or NULL */
} api_turn_reasoning;

struct spill;

typedef struct api_turn {
    buf text;      /* the text, or its end when the start was spilled (text_front) */
    struct spill *text_spill; /* the text's start, on disk (api_turn_spill_to), or NULL */
    size_t text_front;        /* bytes of the text in text_spill, before text.data */
    const char *spill_dir;    /* where a long text may spill (borrowed), or NULL */
    buf reasoning; /* all reasoning text, in order */
    api_turn_reasoning *blocks;
    size_t nblocks;
    api_turn_call *calls;
    size_t ncalls;
    api_usage usage;
    bool have_usage;
    bool ended;    /* END or ERROR seen */
    bool complete; /* END seen */
    api_stop stop;
    char stop_raw[64];
    bool tool_args_truncated;
    bool failed;   /* ERROR seen: error holds it */
    api_error error;
    hew_code oom;  /* HEW_OK, or the sticky HEW_E_NOMEM / HEW_E_TOOBIG of a buffer */
} api_turn;

void api_turn_init(api_turn *t);
void api_turn_release(api_turn *t);

/* Add one chunk (ud is the api_turn). Always returns 0. */
int api_turn_add(void *ud, const api_chunk *c);

/* Let the text's start go to an unnamed file in dir (borrowed; NULL: never) once it is
 * long (API_TURN_SPILL_AT): a streaming answer of megabytes then holds about one
 * API_TURN_SPILL_KEEP in memory, the rest waiting on disk until api_turn_to_message
 * reads it back part by part. A spill that fails (no room) leaves the text in memory
 * from then on; nothing written is lost. Call before the first chunk. */
void api_turn_spill_to(api_turn *t, const char *dir);

/* The whole text's length, in memory and spilled. */
size_t api_turn_text_len(const api_turn *t);


/* The turn as an assistant message of the history (message.h): thinking /
 * redacted_thinking blocks (with signatures), text, tool_use blocks (input parsed; a call
 * whose arguments do not parse gets {} and "hew_invalid_input": the raw text — the loop
 * must answer it with an error tool_result, never run it). Gemini thought signatures go
 * into tool_use.thought_signature, Responses reasoning items into thinking blocks with
 * "hew_item_id"/"hew_encrypted", OpenRouter reasoning_details into
 * "hew_reasoning_details". The text is one block, or — past API_TURN_TEXT_PART bytes —
 * several consecutive text blocks of at most that size each, cut between characters,
 * which read as one text (every protocol joins or concatenates them). New reference,
 * NULL when out of memory or when the spilled text cannot be read back. */
json_t *api_turn_to_message(const api_turn *t);

/* The debug view printed by `hew debug decode` (see include/hew.h). New reference. */
json_t *api_turn_debug_json(const api_turn *t);

/* An api_error as the debug JSON object {category, retryable, retry_after_seconds,
 * context_window_exceeded, message, provider_message, code, http_status}. */
json_t *api_error_debug_json(const api_error *e);

#endif
