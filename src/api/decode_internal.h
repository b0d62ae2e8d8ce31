/* decode_internal — what decoder.c shares with the four protocol adapters (decode_*.c).
 * Not a public interface: only src/api/decode*.c include it. The adapters never do I/O
 * and never see raw bytes: decoder.c frames SSE and hands each event over once. */
#ifndef HEW_API_DECODE_INTERNAL_H
#define HEW_API_DECODE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/chunk.h"
#include "api/decoder.h"
#include "api/error.h"
#include "base/buf.h"

#define DEC_MAX_CALLS 256   /* tool calls per turn; more is a malformed stream */
#define DEC_RAW_MAX ((size_t)1 << 20) /* raw bytes kept to classify a non-SSE error body */

/* One tool call of the turn, keyed by the wire's key (index, output_index or block). */
typedef struct dec_call {
    long key;
    bool args_seen;   /* at least one non-empty argument fragment was emitted */
    bool closed;      /* the wire said the call is complete */
    char *pending;    /* Anthropic: a whole input object given at block start (owned) */
} dec_call;

struct api_decoder {
    api_protocol proto;
    long http_status;
    api_chunk_fn fn;
    void *ud;
    struct sse_decoder *sse;
    size_t chunks;
    bool stopped;   /* the callback asked to stop */
    bool finished;  /* END or ERROR emitted */
    bool complete;  /* END emitted */
    bool terminal;  /* the protocol's terminal event was seen */
    size_t events;  /* SSE events handed to the adapter */

    api_usage usage;
    bool have_usage;

    dec_call calls[DEC_MAX_CALLS];
    int ncalls;
    int reasoning_blocks; /* reasoning block ordinals handed out */
    long cur_reasoning_key; /* the wire key of the current reasoning block, -1 none */

    char stop_raw[64];
    bool have_stop;

    api_error err;

    buf raw;        /* bytes since the last dispatched event (capped), see decoder.c */
    buf scratch;    /* decode_fast.c: a decoded string, reused from event to event */
    bool no_fast;   /* fast paths turned off (api_decoder_set_fast_paths) */
    bool raw_overflow;

    /* protocol scratch */
    char msg_id[128];      /* Anthropic message id */
    bool msg_open;
    long text_block;       /* Responses/other: unused */
    char gem_prefix[64];   /* Gemini: stable id prefix */
    char idbuf[160];       /* a synthesized id, borrowed by one chunk */
    bool saw_finish;       /* OpenAI: a finish_reason; Gemini: a finishReason */
};

/* Each adapter: handle one event (data is NUL-terminated). */
typedef void (*dec_event_fn)(api_decoder *d, const char *type, size_t type_len,
                             const char *data, size_t data_len);
/* At EOF, before decoder.c decides: e.g. Gemini ends its turn here. */
typedef void (*dec_end_fn)(api_decoder *d);

void dec_anthropic_event(api_decoder *d, const char *type, size_t tl, const char *data,
                         size_t dl);
void dec_openai_chat_event(api_decoder *d, const char *type, size_t tl, const char *data,
                           size_t dl);
void dec_responses_event(api_decoder *d, const char *type, size_t tl, const char *data,
                         size_t dl);
void dec_gemini_event(api_decoder *d, const char *type, size_t tl, const char *data,
                      size_t dl);
void dec_gemini_end(api_decoder *d);

/* ---- helpers (decoder.c) ---- */

/* Call the callback unless stopped/finished; counts chunks. */
void dec_emit(api_decoder *d, const api_chunk *c);
void dec_text(api_decoder *d, const json_t *s);
void dec_text_raw(api_decoder *d, const char *s, size_t n);
/* A reasoning text delta (s may be NULL) for block (use dec_reasoning_block). */
void dec_reasoning(api_decoder *d, int block, const json_t *s);
void dec_reasoning_raw(api_decoder *d, int block, const char *s, size_t n);

/* decode_fast.c: the hot event shapes read without jansson. true = handled (the chunks
 * are exactly those the general path would give); false = take the general path. */
bool dec_fast_anthropic(api_decoder *d, const char *type, size_t tl, const char *data,
                        size_t dl);
bool dec_fast_openai_chat(api_decoder *d, const char *type, size_t tl, const char *data,
                          size_t dl);
/* The block ordinal for a wire key (a new one when the key changes). */
int dec_reasoning_block(api_decoder *d, long key);
/* The call ordinal for a wire key; *is_new (may be NULL) says whether it was just
 * created. -1 when absent and !create, or (with an ERROR emitted) when the turn has too
 * many calls. */
int dec_call_for(api_decoder *d, long key, bool create, bool *is_new);
/* Call index is complete (a TOOL_DELTA with done, once). */
void dec_tool_close(api_decoder *d, int index);
void dec_tool(api_decoder *d, int index, const char *id, bool synthesized, const char *name,
              const char *args, size_t args_len, const char *sig, size_t sig_len);
/* Finish the turn: USAGE (if any) then END. stop_raw set by the adapter; stop computed by
 * the adapter. */
void dec_end(api_decoder *d, api_stop stop, const char *raw);
/* Fail with a stream-level error (malformed / cut off). */
void dec_fail_stream(api_decoder *d, const char *what);
/* Classify the error object json and fail. */
void dec_fail_json(api_decoder *d, const json_t *json);
/* An event that is an error object (dec_fail_json) or no object at all: fail either way. */
void dec_fail_event(api_decoder *d, const json_t *o);
/* A reasoning chunk of block with no text yet; the caller adds what the event carries. */
api_chunk dec_reasoning_chunk(int block);
/* Parse event data; on failure fails the stream and returns NULL. */
json_t *dec_parse(api_decoder *d, const char *data, size_t len, const char *what);

/* Number helpers: an integer (or integral real) at key, else -1. */
int64_t dec_int(const json_t *obj, const char *key);
/* Remember a stop word. */
void dec_set_stop(api_decoder *d, const char *raw);

#endif
