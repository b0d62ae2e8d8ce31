/* sse — a push decoder for Server-Sent Events (the WHATWG "event-stream" format), the
 * framing under every streaming LLM provider. Bytes go in with sse_feed(); whole events
 * come out of sse_next(). It does no I/O, never blocks, never decodes UTF-8 and never
 * looks inside `data` (JSON belongs to the provider adapters). It must never trust the
 * peer: every buffer that grows from input has a hard cap, and hitting it is an error.
 *
 * Usage:
 *     sse_decoder *d = sse_decoder_new(NULL);          // NULL: default limits
 *     while (read some bytes into p, n) {
 *         if (sse_feed(d, p, n, &err) != HEW_OK) break;
 *         sse_event ev; int r;
 *         while ((r = sse_next(d, &ev, &err)) == 1) handle(&ev);
 *         if (r < 0) break;                            // err says why
 *     }
 *     sse_end(d);                                      // EOF
 *     while (sse_next(d, &ev, &err) == 1) handle(&ev); // drain what was complete
 *     sse_decoder_free(d);
 *
 * Drain sse_next() until it returns 0 after each feed: the decoder keeps fed bytes until
 * sse_next() has cut them into lines, so a caller that only feeds holds everything it fed.
 *
 * Rules implemented (WHATWG HTML "Server-sent events", §9.2.6 "Interpreting an event
 * stream"; see also reference/providers.md §1):
 *   - Lines end with LF, CR or CRLF, mixed freely. A CR ends its line at once; if the next
 *     byte (possibly in a later feed) is LF, that LF is skipped. So a CR at the end of a
 *     feed never adds an empty line and never stalls an event.
 *   - One UTF-8 BOM (EF BB BF) at the very start of the stream is dropped, also when it
 *     arrives split across feeds. A BOM anywhere else is data.
 *   - A line starting with ':' is a comment and is ignored (keep-alives, OpenRouter's
 *     ": OPENROUTER PROCESSING").
 *   - Otherwise the line is `name:value`, split at the first ':'; exactly one space after
 *     the colon is removed ("data:  x" has value " x"). A line with no ':' is a field with
 *     an empty value. Field names are case-sensitive.
 *       event  sets the event type of the pending event;
 *       data   appends to the pending data; several data lines are joined with "\n";
 *       id     sets the last event id unless the value contains a NUL byte; it persists
 *              across events (it is not reset by a dispatch);
 *       retry  sets the reconnection time if the value is one or more ASCII digits (and fits
 *              in a long); anything else is ignored;
 *       any other name is ignored.
 *   - An empty line dispatches the pending event if at least one `data` line was seen
 *     (even an empty one: "data:" then "" dispatches an event with data ""). The event type
 *     is reset after every empty line, dispatched or not.
 *   - At EOF (sse_end) a line without a terminator is discarded and an event that was not
 *     ended by an empty line is DROPPED, as the spec says: a cut stream must not look whole.
 *
 * Choice on events without data. The Python SDKs (providers.md §1.1) dispatch an event when
 * any of event/data/id/retry was set; WHATWG dispatches only when data was set. We follow
 * WHATWG. Nothing a provider sends is lost: every Anthropic, OpenAI (Chat and Responses),
 * OpenRouter, DeepSeek, Ollama, llama.cpp, vLLM and Gemini event carries a data line, and
 * the fields a data-less block can carry still take effect (id → sse_last_event_id(),
 * retry → sse_retry_ms()). An `event:` line alone carries nothing to act on.
 *
 * Ownership: everything an sse_event points to is owned by the decoder and BORROWED: it
 * stays valid until the next sse_feed / sse_next / sse_end / sse_decoder_free on the same
 * decoder. Copy what must live longer. The strings are not NUL-checked: data may contain
 * NUL bytes, so use the lengths; `data`, `event` and `id` are also NUL-terminated.
 *
 * Errors (errors are sticky: after one, sse_feed returns the same code and sse_next returns
 * -1 with the same message until the decoder is freed):
 *   HEW_E_TOOBIG    a line longer than limits.max_line, or an event whose data is larger
 *                   than limits.max_event; the message names the limit, e.g.
 *                   "SSE line longer than 1048576 bytes — the server sent a malformed stream"
 *   HEW_E_NOMEM     out of memory
 *   HEW_E_INVALID   sse_feed after sse_end (not sticky: the decoder is unchanged)
 *
 * Performance: linear in the input. Lines are found with memchr, bytes are never scanned
 * twice, the internal buffer is compacted rarely (amortised O(1) per byte), and an event
 * with one data line (the common case) points straight into the internal buffer: no copy.
 * Memory: a decoder whose caller drains sse_next after each feed holds at most
 * max_line + the larger of 64 KiB and one feed of input (plus, when an event spans a
 * compaction or has several data lines, its data: up to max_event), whatever the stream
 * sends: the buffer doubles as it fills, but not past that.
 */
#ifndef HEW_NET_SSE_H
#define HEW_NET_SSE_H

#include <stddef.h>

#include "base/err.h"

#define SSE_DEFAULT_MAX_LINE ((size_t)1 << 20)  /* 1 MiB */
#define SSE_DEFAULT_MAX_EVENT ((size_t)8 << 20) /* 8 MiB */

/* Hard caps. A field left at 0 takes its default. */
typedef struct sse_limits {
    size_t max_line;  /* longest line, terminator excluded (default SSE_DEFAULT_MAX_LINE) */
    size_t max_event; /* most data bytes in one event, joins included (SSE_DEFAULT_MAX_EVENT) */
} sse_limits;

/* One dispatched event. All pointers are borrowed (see Ownership above) and never NULL. */
typedef struct sse_event {
    const char *event; /* type; "" when no event: field was given (the caller treats "" as
                          "message") */
    size_t event_len;
    const char *data; /* data lines joined with "\n"; NUL-terminated */
    size_t data_len;
    const char *id; /* the last event id in force at dispatch; "" if none was ever set */
    size_t id_len;
} sse_event;

typedef struct sse_decoder sse_decoder;

/* A new decoder, or NULL if out of memory. NULL limits = defaults. */
sse_decoder *sse_decoder_new(const sse_limits *limits);

/* Free the decoder and everything it owns. NULL is a no-op. */
void sse_decoder_free(sse_decoder *d);

/* Give the decoder n more bytes (copied; the caller keeps its buffer). They may end
 * anywhere: inside a line, between CR and LF, inside a UTF-8 character. n == 0 is a
 * no-op. Returns HEW_OK or an error (see Errors). */
hew_code sse_feed(sse_decoder *d, const void *bytes, size_t n, hew_err *err);

/* The next complete event: 1 = ev filled, 0 = need more bytes (or, after sse_end, the
 * stream is done), -1 = error (err filled; the decoder stays in error). */
int sse_next(sse_decoder *d, sse_event *ev, hew_err *err);

/* End of stream. A trailing CR has already ended its line; a line with no terminator is
 * discarded; a pending event that no empty line ended is dropped. sse_next then returns
 * the events that were complete, then 0. */
void sse_end(sse_decoder *d);

/* The last event id (the id buffer as of the latest empty line, as WHATWG's "last event
 * ID string" — what a reconnect would send as Last-Event-ID); "" if none. Borrowed like an
 * event. */
const char *sse_last_event_id(const sse_decoder *d);

/* The reconnection time from the latest valid retry: field, in milliseconds; -1 if none. */
long sse_retry_ms(const sse_decoder *d);

#endif
