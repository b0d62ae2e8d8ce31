/* client — one MCP client session with one server, over any transport (transport.h):
 * JSON-RPC 2.0 requests matched to responses by id, the initialize handshake with protocol
 * version negotiation, paginated listing, progress, cancellation, and answers to what a
 * server may ask (ping, roots/list; anything else "method not found").
 *
 * Threads: requests may be made from any thread, several at once; each waits for its own
 * response. Messages from the server arrive on the transport's thread; notifications are
 * handed to the handlers there (they must be quick). Progress for a request is handed to
 * the request's progress function on the REQUESTING thread (the waiter wakes for it), so
 * a tool can report progress on the task thread.
 *
 * Lifetime: mcp_client_new, open a transport with mcp_client_sink(), mcp_client_attach it
 * (the client owns it from then on), mcp_client_initialize, use, mcp_client_free (closes
 * the transport; requests still waiting fail). */
#ifndef HEW_MCP_CLIENT_H
#define HEW_MCP_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

#include "base/abort.h"
#include "base/err.h"
#include "mcp/transport.h"

/* The newest protocol revision hew speaks, and the older ones it accepts from a server. */
#define MCP_PROTOCOL_LATEST "2025-06-18"

typedef struct mcp_client mcp_client;

typedef struct mcp_client_handlers {
    /* A server notification other than progress for one of our requests (method and
     * params borrowed; params may be NULL). On the transport's thread. */
    void (*on_notification)(void *ud, const char *method, const json_t *params);
    /* Server output that is not a message (stream 1) and its stderr (stream 2). */
    void (*on_noise)(void *ud, int stream, const char *text, size_t len);
    /* The connection is gone (not called for mcp_client_free). */
    void (*on_closed)(void *ud, const char *why);
    void *ud;
} mcp_client_handlers;

/* Progress of a request: total < 0 when unknown; message may be NULL. */
typedef void (*mcp_progress_fn)(void *ud, double progress, double total, const char *message);

/* server_name is for messages; root_dir (may be NULL) is offered to the server as the one
 * root (roots/list) — the workspace. */
hew_code mcp_client_new(const char *server_name, const char *root_dir,
                        const mcp_client_handlers *h, mcp_client **out, hew_err *err);

/* The sink to open the transport with (it points at the client). */
mcp_sink mcp_client_sink(mcp_client *c);

/* Hand the open transport to the client. */
void mcp_client_attach(mcp_client *c, mcp_transport *t);

/* initialize (offering MCP_PROTOCOL_LATEST; a server answering with another version hew
 * knows is accepted, an unknown one is an error naming both), then
 * notifications/initialized. */
hew_code mcp_client_initialize(mcp_client *c, long timeout_ms, hew_abort *abort, hew_err *err);

/* Send a request and wait for its result (a new reference in *result). params is stolen
 * (may be NULL). timeout_ms 0: none. On timeout or abort the server is told
 * (notifications/cancelled) and HEW_E_TIMEOUT / HEW_E_ABORTED returned. A JSON-RPC error
 * answer is HEW_E_PROTOCOL with the server's message; a lost connection HEW_E_NET. */
hew_code mcp_client_request(mcp_client *c, const char *method, json_t *params, long timeout_ms,
                            hew_abort *abort, mcp_progress_fn progress, void *progress_ud,
                            json_t **result, hew_err *err);

/* A list method followed through every page (nextCursor): the items of key ("tools",
 * "resources", "resourceTemplates", "prompts") joined into one array (*out, new ref). */
hew_code mcp_client_list(mcp_client *c, const char *method, const char *key, long timeout_ms,
                         hew_abort *abort, json_t **out, hew_err *err);


/* After initialize: what the server said about itself (borrowed; NULL before). */
const json_t *mcp_client_capabilities(const mcp_client *c);
const char *mcp_client_server_version(const mcp_client *c); /* "name version" */
const char *mcp_client_protocol(const mcp_client *c);

/* True while the connection is up (false after on_closed). */
bool mcp_client_alive(mcp_client *c);

/* Fail every request waiting now and from now on (HEW_E_NET, why) without closing the
 * transport yet: the owner calls it, waits until nobody uses the client, then frees it. */
void mcp_client_shutdown(mcp_client *c, const char *why);

void mcp_client_free(mcp_client *c);

#endif
