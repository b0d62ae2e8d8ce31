/* error — every way a provider request can fail, as one value the agent loop can act on:
 * a category, whether retrying can help, how long to wait, and a message that says what
 * happened and what to do. Classification reads the HTTP status, the headers and the body
 * (or a mid-stream error event, or a transport failure) and follows providers.md §6–§7,
 * including the traps of §0.10: status codes mislead in both directions, so the body's
 * code/type/wording decides where it is specific.
 *
 * It must never echo an API key: a provider may echo the key it was sent (OpenAI's 401
 * "Incorrect API key provided: sk-proj-…"), so every message, provider message and code
 * is passed through the redactor (base/redact.h) before it leaves this module. Never
 * trust the body's shape (anything, including an HTML page or nothing, classifies), and
 * never fail: the worst case is category UNKNOWN with the raw text in the message.
 *
 * Rules, in order (first match wins; see decide() in error.c):
 *   context window  code context_length_exceeded; llama.cpp type exceed_context_size_error.
 *   billing         code/type insufficient_quota (OpenAI sends it as a 429). Not retryable.
 *   rate_limit      429, type rate_limit_error, code rate_limit_exceeded, Gemini
 *                   RESOURCE_EXHAUSTED — whatever the wording (Gemini's free tier says
 *                   "exceeded your current quota … billing details" for a per-minute
 *                   limit); not retryable when the exhausted Gemini quota is per day;
 *                   a 429 "Request too large … must be reduced" is request_too_large.
 *   billing         402; type billing_error; "credit balance is too low" (Anthropic sends
 *                   it as 400); "insufficient balance/credits", "requires more credits".
 *   auth            401; code invalid_api_key; type authentication_error; Gemini reason
 *                   API_KEY_INVALID (a 400); "API key not valid" wording on 400/403.
 *   content_policy  OpenRouter 403 with moderation metadata; code content_filter /
 *                   content_policy_violation; Azure "content management policy".
 *   auth            other 403, type permission_error, PERMISSION_DENIED.
 *   context window  status 400/413/422 (or an error inside a 200 stream) whose message
 *                   matches a context wording (OpenAI, Anthropic both forms, OpenRouter,
 *                   Gemini "input token count … exceeds the maximum", llama.cpp "exceeds
 *                   the available context size", vLLM, Bedrock, Cerebras) — never on 429
 *                   or rate-limit wording (billing wording was caught above).
 *   request_too_large 413; type request_too_large.
 *   overloaded      529; type overloaded_error; 503; Gemini UNAVAILABLE; "overloaded" /
 *                   "high demand" on a 5xx or in a stream.
 *   timeout         408; DEADLINE_EXCEEDED; a transport timeout.
 *   not_found       404 (unknown model, wrong base URL).
 *   server_error    other 5xx (an HTML 502 page too: its <title> is the message);
 *                   mid-stream errors that say nothing more; a stream that ended before its
 *                   terminal event; a malformed stream.
 *   bad_request     other 4xx (409 retryable, as the SDKs do).
 *   network         the connection failed or dropped.
 *   aborted         the user stopped the request.
 *   response_too_large  not from a body: an answer hew will not take in (a stream line or
 *                   event past LIMITS_STREAM_LINE, more tool calls than a turn holds, a
 *                   message past the parser's cap). A retry would get the same answer
 *                   and pay for it again (api_error_too_large).
 *   a 2xx body that is no event stream at all (an HTML page, plain text: a base URL that
 *                   points at a web page, not at the API) keeps its category from the
 *                   body, else server_error, and is not retryable (decoder.c).
 * Not retryable: context, billing, auth, content_policy, request_too_large,
 * response_too_large, not_found, bad_request.
 * x-should-retry: true|false overrides retryable, except that context, billing, auth and
 * request_too_large are never retried.
 *
 * retry_after_seconds (only for retryable errors, else -1), first found wins:
 * retry-after-ms, retry-after (seconds or HTTP-date), Gemini RetryInfo.retryDelay,
 * OpenAI x-ratelimit-reset-{tokens,requests} (the exhausted bucket), Anthropic
 * anthropic-ratelimit-*-reset (RFC 3339), "try again in N s/ms" in the message. The value
 * is what the server said, uncapped: the caller caps it. */
#ifndef HEW_API_ERROR_H
#define HEW_API_ERROR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "net/http.h"

typedef enum api_error_category {
    API_ERR_NONE = 0,
    API_ERR_CONTEXT_WINDOW, /* context_window_exceeded */
    API_ERR_AUTH,
    API_ERR_BILLING,
    API_ERR_RATE_LIMIT,
    API_ERR_OVERLOADED,
    API_ERR_SERVER,         /* server_error */
    API_ERR_NOT_FOUND,
    API_ERR_CONTENT_POLICY,
    API_ERR_REQUEST_TOO_LARGE,
    API_ERR_RESPONSE_TOO_LARGE, /* an answer hew will not take in (api_error_too_large) */
    API_ERR_NETWORK,
    API_ERR_TIMEOUT,
    API_ERR_BAD_REQUEST,
    API_ERR_ABORTED,
    API_ERR_UNKNOWN
} api_error_category;

/* "context_window_exceeded", "auth", "billing", "rate_limit", "overloaded",
 * "server_error", "not_found", "content_policy", "request_too_large",
 * "response_too_large", "network", "timeout", "bad_request", "aborted", "unknown" ("none"
 * for API_ERR_NONE). */
const char *api_error_category_name(api_error_category c);

#define API_ERROR_MESSAGE_MAX 1024
#define API_ERROR_PROVIDER_MESSAGE_MAX 512

typedef struct api_error {
    api_error_category category;
    bool retryable;
    double retry_after_seconds;   /* >= 0 when the server said how long to wait, else -1 */
    bool context_window_exceeded; /* category == API_ERR_CONTEXT_WINDOW */
    long http_status;             /* the response status (200 for an error inside a stream,
                                     0 when no response came) */
    long affordable_max_tokens;   /* OpenRouter 402 "can only afford N": a retry with
                                     max_tokens <= N can succeed; else -1 */
    bool after_first_chunk;       /* api_stream: chunks had already been delivered */
    char code[64];                /* the provider's error code/type ("rate_limit_exceeded",
                                     "overloaded_error", "RESOURCE_EXHAUSTED"), or "" */
    char provider_message[API_ERROR_PROVIDER_MESSAGE_MAX]; /* the provider's own words */
    char message[API_ERROR_MESSAGE_MAX]; /* what happened and what to do, for the user */
} api_error;

/* Reset to "no error" (category NONE, retry_after -1, affordable -1). */
void api_error_init(api_error *e);

/* Classify an HTTP error response: status, headers (names lowercased, as net/http gives
 * them; may be NULL with n 0) and the body (any bytes, need not be NUL-terminated). */
void api_classify(long status, const http_header *headers, size_t nheaders, const char *body,
                  size_t body_len, api_error *out);

/* Classify an error object that arrived inside a 2xx stream (Anthropic `event: error`,
 * an OpenAI/OpenRouter/vLLM/llama.cpp `{"error":…}` chunk, a Responses error or
 * response.failed, a Gemini error object). json is the parsed event data (borrowed,
 * jansson json_t *); http_status is the stream's status. */
void api_classify_stream_json(const void *json, long http_status, api_error *out);

/* A stream that could not be decoded to its end: cut off before its terminal event
 * (what says which event was missing), or malformed. Category server_error, retryable. */
void api_error_stream(api_error *out, const char *what);

/* A 2xx response whose body is no event stream at all (an HTML page, plain text): body is
 * what arrived (any bytes). Classified as api_classify would; when that finds nothing
 * specific the category is server_error, and either way it is not retryable (the same
 * URL gives the same page) and the message says to check the base URL. */
void api_error_not_stream(long status, const char *body, size_t body_len, api_error *out);

/* An answer too large to take in (category response_too_large, never retryable): what
 * says what was too large ("one line of the stream is longer than N bytes"). The message
 * tells the user that a retry fails the same way and what to do instead. */
void api_error_too_large(api_error *out, const char *what);

/* A transport failure from net/http: HEW_E_NET → network, HEW_E_TIMEOUT → timeout,
 * HEW_E_ABORTED → aborted, anything else → unknown; err's message is kept. */
void api_error_transport(const hew_err *err, api_error *out);

#endif
