/* hew_debug.h — libhew's debug surface: what `hew debug`, the tests and bug reports use to
 * drive one part of hew alone (its HTTP/SSE path, the provider decoder, the message
 * parser). NOT a stable API: these calls may change or go in any release, without a
 * version bump; an embedder should not depend on them. They follow hew.h's contract
 * (a hew_code back, results through out-parameters, hew_free for what they hand out). */
#ifndef HEW_DEBUG_H
#define HEW_DEBUG_H

#include <stddef.h>

#include "hew_code.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called for each Server-Sent Event as it arrives: type is "" when the event had no
 * `event:` field; data is NUL-terminated and borrowed for the duration of the call.
 * Return 0 to go on, non-zero to stop the request. */
typedef int (*hew_sse_event_fn)(void *ud, const char *type, const char *data, size_t data_len);

/* POST body (JSON) to url with the given "Name: value" headers (NULL-terminated array,
 * may be NULL) and hand every SSE event of the response to on_event, through hew's real
 * HTTP and SSE path. *status_out receives the HTTP status (may be NULL). HEW_OK when the
 * stream ended cleanly, else a code with a message in errbuf (HEW_E_NET, HEW_E_TIMEOUT,
 * HEW_E_PROTOCOL: connection failure, timeout, a body cut off mid-stream, a malformed
 * stream). A non-2xx status is not an error here: its body is handed over as a single
 * event of type "http-error". */
HEW_API hew_code hew_debug_post_sse(const char *url, const char *const *headers, const char *body,
                                    hew_sse_event_fn on_event, void *ud, long *status_out,
                                    char *errbuf, size_t errbuf_len);

/* Decode a raw provider response body through the same decoder as live traffic and
 * describe it as one JSON object (what `hew debug decode` prints):
 *   {"text", "reasoning", "tool_calls": [{"id", "name", "arguments"}], "usage",
 *    "stop_reason", "stream_complete", "error", ...}
 * usage: {input_tokens_total, input_tokens_uncached, cache_read_tokens,
 * cache_write_tokens, output_tokens, reasoning_tokens} (a field is null when unknown;
 * cost_usd when the provider reported a cost), or null when the stream had none.
 * stop_reason: "stop" | "tool_calls" | "length" | "content_filter" | "error", or null.
 * tool_calls[].arguments: the raw concatenated argument text; id: as sent by the
 * provider, null when it sent none (Gemini). error: null or {category, retryable,
 * retry_after_seconds, context_window_exceeded, message, ...}.
 * protocol: "anthropic", "openai-chat", "openai-responses" or "gemini". status: the HTTP
 * status (0 means 200); a status outside 200..299 classifies the body as an error
 * response. headers: "Name: value" strings, NULL-terminated, may be NULL.
 * The JSON in *out (a new string: hew_free), or a code with a message in errbuf
 * (HEW_E_INVALID: unknown protocol; HEW_E_NOMEM). */
HEW_API hew_code hew_debug_decode(const char *protocol, long status, const char *const *headers,
                                  const char *body, size_t body_len, char **out, char *errbuf,
                                  size_t errbuf_len);

/* Feed text[0..len) (an assistant message) to hew's streaming message parser, whole
 * (chunk 0) or in chunks of chunk bytes, end it, and put the final blocks as one line of
 * JSON in *out (hew_free):
 *   [{"type":"text","content":...,"partial":bool},
 *    {"type":"tool_use","name":...,"params":{...},"partial":bool}, ...]
 * with params in the order they first appeared (bytes that are not UTF-8 are shown as
 * U+FFFD). tools: NULL-terminated XML tool names, or NULL for Cline's tool names; the
 * parameter names are always Cline's. A code with a message in errbuf on failure. */
HEW_API hew_code hew_debug_parse(const char *text, size_t len, const char *const *tools,
                                 size_t chunk, char **out, char *errbuf, size_t errbuf_len);

#ifdef __cplusplus
}
#endif

#endif
