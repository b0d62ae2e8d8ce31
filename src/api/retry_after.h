/* retry_after — how long a server asked us to wait, from every place providers put it:
 * headers (retry-after-ms; retry-after as seconds or an HTTP-date; OpenAI's
 * x-ratelimit-reset-* Go-style durations; Anthropic's anthropic-ratelimit-*-reset RFC 3339
 * times), Gemini's RetryInfo.retryDelay ("34.4s") and "try again in 4.644s" in a message.
 * Pure parsing: it never sleeps, never reads the clock itself (callers pass `now`) and
 * never trusts the text: anything unparseable, negative or absurd (> 1 day) gives -1.
 * Every function returns seconds (fractions kept) or -1 when there is nothing usable. */
#ifndef HEW_API_RETRY_AFTER_H
#define HEW_API_RETRY_AFTER_H

#include <stddef.h>
#include <time.h>

#include "net/http.h"

/* retry-after: "120", "1.5", or an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT"; a date in
 * the past gives 0). */
double api_retry_after_header(const char *value, time_t now);

/* A Go / protobuf duration: "4.644s", "12ms", "6m0s", "1h2m3.5s", "250us", "34.4s".
 * A bare number counts as seconds. */
double api_retry_after_duration(const char *value);

/* An RFC 3339 time ("2025-05-01T12:00:30Z", offsets and fractions allowed) minus now
 * (a time in the past gives 0). */
double api_retry_after_rfc3339(const char *value, time_t now);

/* "try again in 4.644s" / "in 644ms" / "in 20 seconds" / "retry after 3 seconds" inside
 * a message (case-insensitive). */
double api_retry_after_message(const char *msg);

/* Which x-ratelimit bucket ran out, when the error says so. */
typedef enum api_bucket {
    API_BUCKET_UNKNOWN, /* choose by x-ratelimit-remaining-*: the one at 0, else the later */
    API_BUCKET_TOKENS,
    API_BUCKET_REQUESTS
} api_bucket;

/* The delay the server asked for explicitly: retry-after-ms, then retry-after. */
double api_retry_after_explicit(const http_header *h, size_t n, time_t now);

/* The delay until a rate-limit bucket resets (only meaningful on a rate-limit error: these
 * headers come with every response): OpenAI x-ratelimit-reset-{tokens,requests} for the
 * given or exhausted bucket (else the later one), then Anthropic
 * anthropic-ratelimit-*-reset (the latest exhausted bucket, else the latest of all). */
double api_retry_after_ratelimit(const http_header *h, size_t n, api_bucket bucket, time_t now);

/* Case-insensitive header lookup over an array (NULL when absent). */
const char *api_header_get(const http_header *h, size_t n, const char *name);

#endif
