/* recorder — the request log behind --record: one JSON line per request, appended and
 * flushed before the response starts, so a test that got its answer can read what the
 * client sent:
 *   {"index":0,"method":"POST","path":"/v1/messages","query":null,
 *    "headers":{"x-api-key":"sk-***",...},"body":{...parsed JSON...}}
 * Header names are lowercased; secrets (authorization, proxy-authorization, x-api-key,
 * x-goog-api-key, api-key) are masked so a recording never holds a real key. The body is
 * the parsed JSON, the raw text when it is not JSON, or null when empty.
 *
 * Not thread-safe: the server calls it under its request lock. Never logs a secret. */
#ifndef HEW_FAKE_RECORDER_H
#define HEW_FAKE_RECORDER_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"

typedef struct recorder recorder;

/* Open (append, create) path. */
recorder *recorder_open(const char *path, hew_err *err);
void recorder_free(recorder *r);

/* Build the entry for one request: uri is the raw request target ("/p?q"); headers an
 * object of lowercased names (borrowed, copied masked). Returns a new reference. */
json_t *recorder_entry(size_t index, const char *method, const char *uri,
                       const json_t *headers, const char *body, size_t body_len);

/* The outcome record (--record-outcomes): one line per response once it has ended,
 *   {"index":0,"outcome":"client_closed","status":200,"bytes_sent":812,
 *    "bytes_total":2048,"finished_ms":1764755000123}
 * outcome: "complete" (every body byte sent, clean end), "client_closed" (the client went
 * away first), "fault_closed" (close_after_bytes cut it), "shutdown" (the server stopped
 * first). bytes_sent counts body bytes handed to the connection; finished_ms is the wall
 * clock (CLOCK_REALTIME, ms) when the response ended. Returns a new reference. */
json_t *recorder_outcome_entry(size_t index, const char *outcome, unsigned status,
                               size_t bytes_sent, size_t bytes_total);

/* Append entry as one line and flush. */
hew_code recorder_write(recorder *r, const json_t *entry, hew_err *err);

/* The value to record for header name (lowercase): masked when it is a secret. A new
 * string the caller frees. */
char *recorder_mask(const char *name, const char *value);

#endif
