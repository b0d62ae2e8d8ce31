/* http — one HTTP request with a streaming response body, on libcurl.
 *
 * The caller gives a request (URL, method, headers, body, timeouts, an abort token) and a
 * sink: on_response runs once, when the final status and headers are known and before the
 * first body byte; on_body runs for every piece of the body as it arrives (borrowed bytes,
 * valid during the call). Nothing here knows about SSE or LLM providers.
 *
 * Guarantees:
 *   - connect timeout, an idle timeout (no byte for idle_timeout_ms) and an overall
 *     deadline (keep-alive bytes can reset the idle timer but never the deadline);
 *   - abort_trigger() on the request's token from any thread ends the request within
 *     100 ms with HEW_E_ABORTED;
 *   - a connection that drops in the middle of the body is HEW_E_NET, never a clean end
 *     (when the framing lets anyone know: chunked encoding or Content-Length);
 *   - TLS is verified; proxies come from the environment the way curl does
 *     (http_proxy, https_proxy, no_proxy, all_proxy); an extra CA bundle comes from
 *     req->ca_file, else CURL_CA_BUNDLE / SSL_CERT_FILE / SSL_CERT_DIR; HTTP/2 is used when
 *     the server offers it over TLS.
 *
 * An HTTP error status is NOT an error of this layer: the call returns HEW_OK with
 * resp->status = 429 and the body delivered through on_body; the caller classifies it. */
#ifndef HEW_NET_HTTP_H
#define HEW_NET_HTTP_H

#include <stddef.h>

#include "sys/abort.h"
#include "base/buf.h"
#include "base/err.h"

typedef struct http_header {
    char *name;  /* lowercased */
    char *value; /* surrounding whitespace trimmed */
} http_header;

typedef struct http_response {
    long status;           /* 0 until known */
    long http_version;     /* 10, 11, 20, 30 */
    http_header *headers;  /* of the final response only (not of 1xx or redirects) */
    size_t header_count;
    size_t body_bytes;     /* body bytes delivered to on_body */
} http_response;

#define HTTP_RESPONSE_INIT { 0, 0, NULL, 0, 0 }

/* The value of a response header (case-insensitive name), or NULL. Borrowed from resp. */
const char *http_response_header(const http_response *resp, const char *name);
void http_response_release(http_response *resp);

typedef struct http_request {
    const char *method;          /* default "POST" when body is set, else "GET" */
    const char *url;
    const char *const *headers;  /* "Name: value" strings, NULL-terminated; may be NULL */
    const char *body;            /* request body, may be NULL */
    size_t body_len;
    long connect_timeout_ms;     /* default 10 000 */
    long idle_timeout_ms;        /* default 120 000; no byte received for this long */
    long deadline_ms;            /* default 600 000; the whole request */
    const char *ca_file;         /* extra CA bundle (PEM); NULL = environment / default */
    hew_abort *abort;            /* may be NULL */
    struct net_record *record;   /* NULL, or where the exchange is saved (net/record.h) */
} http_request;

/* Zeroed request with the defaults filled in. */
http_request http_request_defaults(void);

typedef struct http_sink {
    /* Once, with the final status and headers, before the first body byte (also when the
     * body is empty). Return 0 to go on, non-zero to stop the request (HEW_E_ABORTED). */
    int (*on_response)(void *ud, const http_response *resp);
    /* For each piece of the body. Return 0 to go on, non-zero to stop (HEW_E_ABORTED). */
    int (*on_body)(void *ud, const char *bytes, size_t n);
    void *ud;
} http_sink;

/* Perform the request; blocks until the body ends, an error, a timeout or an abort.
 * resp (may be NULL) receives status and headers; release it with http_response_release.
 * Returns HEW_OK (whatever the status), HEW_E_NET (cannot connect, TLS failure, dropped
 * mid-body), HEW_E_TIMEOUT, HEW_E_ABORTED, HEW_E_INVALID (bad URL) or HEW_E_NOMEM, with a
 * message naming the URL's host and what to do. */
hew_code http_perform(const http_request *req, const http_sink *sink, http_response *resp,
                      hew_err *err);

/* Convenience: perform and collect the whole body into out (capped by out->max). */
hew_code http_perform_collect(const http_request *req, http_response *resp, buf *out,
                              hew_err *err);

/* libcurl is loaded when the first request needs it (net/curl_lib.h), which costs a few
 * ms of CPU. A warm-up does that on a thread of its own ahead of time, so that the first
 * request does not wait for it (a session starts one with its first task; the request
 * waits only for what is left). While the library loads, starting any other thread waits
 * for it (glibc's loader lock): start the warm-up after the threads that should not
 * wait. http_warmup_start returns NULL when there is nothing to do (already
 * loaded) or no thread could be started (the first request then loads it);
 * http_warmup_join waits for the thread and frees it (NULL is a no-op). A warm-up that
 * fails changes nothing: the first request reports why. */
typedef struct http_warmup http_warmup;
http_warmup *http_warmup_start(void);
void http_warmup_join(http_warmup *w);

#endif
