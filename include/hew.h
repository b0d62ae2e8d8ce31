/* hew.h — the public API of libhew, the library behind the `hew` coding agent.
 * Everything an embedding program (an editor, a tool, the hew CLI itself) may use is
 * declared here; nothing else in src/ is a stable interface. It starts small and grows
 * as the agent loop lands. */
#ifndef HEW_H
#define HEW_H

#ifdef __cplusplus
extern "C" {
#endif

#define HEW_VERSION_MAJOR 0
#define HEW_VERSION_MINOR 1
#define HEW_VERSION_PATCH 0

#include <stddef.h>

/* The library's version as "MAJOR.MINOR.PATCH"; a static string. */
const char *hew_version(void);

/* ---- Debug surface (for `hew debug`, tests and bug reports; not a stable API) ---- */

/* Called for each Server-Sent Event as it arrives: type is "" when the event had no
 * `event:` field; data is NUL-terminated and borrowed for the duration of the call.
 * Return 0 to go on, non-zero to stop the request. */
typedef int (*hew_sse_event_fn)(void *ud, const char *type, const char *data, size_t data_len);

/* POST body (JSON) to url with the given "Name: value" headers (NULL-terminated array,
 * may be NULL) and hand every SSE event of the response to on_event, through hew's real
 * HTTP and SSE path. *status_out receives the HTTP status (may be NULL). Returns 0 when
 * the stream ended cleanly, -1 with a message in errbuf otherwise (connection failure,
 * timeout, a body cut off mid-stream, a malformed stream). A non-2xx status is not an
 * error here: its body is handed over as a single event of type "http-error". */
int hew_debug_post_sse(const char *url, const char *const *headers, const char *body,
                       hew_sse_event_fn on_event, void *ud, long *status_out, char *errbuf,
                       size_t errbuf_len);

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
 * Returns a new NUL-terminated string (release with free()), or NULL with a message in
 * errbuf (unknown protocol, out of memory). */
char *hew_debug_decode(const char *protocol, long status, const char *const *headers,
                       const char *body, size_t body_len, char *errbuf, size_t errbuf_len);

/* Feed text[0..len) (an assistant message) to hew's streaming message parser, whole
 * (chunk 0) or in chunks of chunk bytes, end it, and return the final blocks as one line of
 * JSON: [{"type":"text","content":...,"partial":bool},
 *        {"type":"tool_use","name":...,"params":{...},"partial":bool}, ...]
 * with params in the order they first appeared (bytes that are not UTF-8 are shown as
 * U+FFFD). tools: NULL-terminated XML tool names, or NULL for Cline's tool names; the
 * parameter names are always Cline's. Returns a new string the caller free()s, or NULL
 * with a message in errbuf. */
char *hew_debug_parse(const char *text, size_t len, const char *const *tools, size_t chunk,
                      char *errbuf, size_t errbuf_len);

#ifdef __cplusplus
}
#endif

#endif
