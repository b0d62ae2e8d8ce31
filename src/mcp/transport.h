/* transport — how an MCP client exchanges JSON-RPC messages with one server, whatever
 * carries them: a child process's stdin/stdout (transport_stdio.c), Streamable HTTP or the
 * older HTTP+SSE (transport_http.c). The client (client.c) only ever sees this interface.
 *
 * Contract:
 *   - send() hands over ONE complete JSON-RPC message (a JSON text, no trailing newline) and
 *     returns as soon as it is on its way; it never waits for the answer (an HTTP POST whose
 *     response streams for minutes must not block the caller). It may be called from any
 *     thread, concurrently; the transport serialises what must be.
 *   - Every message that comes back (responses, server requests, notifications) is handed
 *     to sink.on_message, complete, from a thread the transport owns; bytes that are not a
 *     JSON-RPC message (a server printing garbage on stdout) are reported to sink.on_noise
 *     and skipped, never fatal.
 *   - When the connection is gone for good (the child exited, the stream ended and cannot
 *     be resumed, an HTTP error that is not retryable) sink.on_closed is called once, with
 *     why; after it no callback runs. send() after that fails with HEW_E_NET.
 *   - close() (from any thread but a sink callback) stops everything, kills a child
 *     process (its whole group), joins the transport's threads and frees it; no callback
 *     runs after close() returns. on_closed is not called for a close() the owner asked.
 *
 * The sink callbacks must be quick and must not call close(); they may call send(). */
#ifndef HEW_MCP_TRANSPORT_H
#define HEW_MCP_TRANSPORT_H

#include <stddef.h>

#include "base/err.h"

typedef struct mcp_sink {
    /* One JSON-RPC message (borrowed, NUL-terminated at json[len]). */
    void (*on_message)(void *ud, const char *json, size_t len);
    /* Bytes that were not a JSON-RPC message, or the server's stderr (stream 2):
     * for the log. May be NULL. */
    void (*on_noise)(void *ud, int stream, const char *text, size_t len);
    /* The connection is gone; why is a sentence for the user. */
    void (*on_closed)(void *ud, const char *why);
    void *ud;
} mcp_sink;

typedef struct mcp_transport mcp_transport;
struct mcp_transport {
    hew_code (*send)(mcp_transport *t, const char *json, size_t len, hew_err *err);
    void (*close)(mcp_transport *t);
    /* The protocol version the client negotiated in initialize; Streamable HTTP sends it
     * as the MCP-Protocol-Version header on every later request. May be NULL (stdio). */
    void (*set_protocol_version)(mcp_transport *t, const char *version);
};

/* A stdio server: argv (NULL-terminated) started in cwd (NULL: the current directory) with
 * the parent's environment (secrets removed) plus env ("NAME=value", NULL-terminated,
 * may be NULL). stderr goes to on_noise(stream 2). */
typedef struct mcp_stdio_opts {
    const char *const *argv;
    const char *cwd;
    const char *const *env;
    const struct sandbox *sandbox; /* the server runs confined by it (sys/sandbox.h);
                                      NULL: unconfined */
} mcp_stdio_opts;

hew_code mcp_stdio_open(const mcp_stdio_opts *o, const mcp_sink *sink, mcp_transport **out,
                        hew_err *err);

/* An HTTP server. legacy_sse: the 2024-11-05 HTTP+SSE transport (GET url opens the event
 * stream, whose "endpoint" event names the URL to POST to) instead of Streamable HTTP
 * (POST every message to url; the answer is JSON or an SSE stream; Mcp-Session-Id kept
 * from the initialize response and sent on every later request; a GET stream for
 * server-initiated messages when the server offers one; Last-Event-ID resumption of a
 * broken stream; DELETE with the session id on close). headers: "Name: value",
 * NULL-terminated, may be NULL (sent on every request; never to an HTTP+SSE endpoint on
 * another origin, which closes the connection instead).
 * A request whose POST fails (no connection, an HTTP error status, an answer stream that
 * broke and could not be resumed) is answered through on_message with a JSON-RPC error
 * response for its id (code -32000; the message names the HTTP status and the start of the
 * body), so no caller waits forever; a 404 to a request that carried the session id means
 * the server ended the session: on_closed. */
typedef struct mcp_http_opts {
    const char *url;
    const char *const *headers;
    int legacy_sse;          /* 0 Streamable HTTP; 1 HTTP+SSE; 2 auto: Streamable HTTP,
                                and when the first POST is refused with 400, 404 or 405,
                                HTTP+SSE from then on (the first message re-sent there),
                                as the MCP specification's compatibility section says */
    long connect_timeout_ms; /* 0: 10 000; also bounds the wait for the HTTP+SSE
                                endpoint event */
} mcp_http_opts;

hew_code mcp_http_open(const mcp_http_opts *o, const mcp_sink *sink, mcp_transport **out,
                       hew_err *err);

#endif
