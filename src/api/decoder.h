/* decoder — turns a provider's 2xx response body into api_chunks (chunk.h). One decoder
 * per response; it is a push parser with no I/O: feed it bytes as they arrive (any split:
 * inside UTF-8, between CR and LF, inside `data:` or `[DONE]`), or feed it whole SSE
 * events, and it calls back with chunks. It owns an SSE decoder (net/sse) and one protocol
 * adapter (decode_anthropic.c, decode_openai_chat.c, decode_openai_responses.c,
 * decode_gemini.c). It never blocks, never allocates per byte, and never trusts the
 * stream: malformed JSON, impossible event orders and oversized input end the stream with
 * an ERROR chunk, never a crash or a silent success.
 *
 * Usage:
 *     api_decoder *d = api_decoder_new(API_PROTO_OPENAI_CHAT, 200, on_chunk, ud);
 *     while (bytes arrive) if (api_decoder_feed(d, p, n) != HEW_OK) break;
 *     api_decoder_end(d);          // EOF: emits END, or ERROR when the stream was cut
 *     api_decoder_free(d);
 *
 * Guarantees:
 *   - exactly one END or ERROR is emitted once the stream is over (api_decoder_end), or
 *     earlier when the protocol's terminal event or an error event arrives; nothing is
 *     emitted after it;
 *   - terminal events: Anthropic message_stop; OpenAI Chat `data: [DONE]` (after a
 *     finish_reason); Responses response.completed / .incomplete / .failed; Gemini EOF
 *     after a chunk with finishReason (or a blocked prompt). EOF without one is an ERROR
 *     (server_error, retryable), also when the body was an error object the framing
 *     could not see (Gemini's bare JSON error, llama.cpp's legacy `error: {…}` line, an
 *     HTML page): those are classified from the raw bytes;
 *   - tool-call arguments are passed through as raw fragments (never re-parsed); a turn
 *     that stops for length with tool calls open says so (api_end.tool_args_truncated);
 *   - the same bytes give the same chunks whatever the feed splits (tests check this).
 *
 * The callback may return non-zero to stop: feed then returns HEW_E_ABORTED and the
 * decoder emits nothing more. */
#ifndef HEW_API_DECODER_H
#define HEW_API_DECODER_H

#include <stdbool.h>
#include <stddef.h>

#include "api/chunk.h"
#include "base/err.h"

typedef struct api_decoder api_decoder;

/* A new decoder for protocol p. http_status is the response's status (200 usually; used
 * when classifying in-stream errors). NULL when out of memory. */
api_decoder *api_decoder_new(api_protocol p, long http_status, api_chunk_fn fn, void *ud);
void api_decoder_free(api_decoder *d);

/* Feed body bytes. HEW_OK, or HEW_E_ABORTED when the callback asked to stop. A malformed
 * stream is not a return code: it is reported as an ERROR chunk. */
hew_code api_decoder_feed(api_decoder *d, const char *bytes, size_t n);


/* End of the body: flush, then emit END or the ERROR that explains why the turn is not
 * complete. Idempotent. */
void api_decoder_end(api_decoder *d);

/* Turn the jansson-free fast paths for the common event shapes on (the default) or off;
 * the chunks are the same either way (tests and fuzzers check that by running both). */
void api_decoder_set_fast_paths(api_decoder *d, bool on);

/* True once END or ERROR has been emitted. */
bool api_decoder_finished(const api_decoder *d);
/* True when the stream completed properly (END emitted, no error). */
bool api_decoder_complete(const api_decoder *d);
/* Chunks emitted so far (any kind). */
size_t api_decoder_chunks(const api_decoder *d);
/* The usage the stream reported so far (Anthropic's message_start and the cumulative
 * message_delta, Gemini's usageMetadata, ...), for a caller whose transfer failed before
 * the decoder could end the stream: true and *out filled when some is known and the
 * decoder has not emitted it (it has not finished). */
bool api_decoder_usage(const api_decoder *d, api_usage *out);

#endif
