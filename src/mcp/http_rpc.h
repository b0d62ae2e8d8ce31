/* http_rpc — the little the HTTP transports (transport_http.c) must know about the
 * JSON-RPC messages they carry: which requests an outgoing message holds (so that an HTTP
 * failure can be answered with an error response for each, instead of leaving a caller
 * waiting), whether an incoming message answers one of them, whether the outgoing message
 * is the notifications/initialized that establishes the session, and the error response
 * itself. The transport stays a carrier: nothing here validates a message beyond that.
 *
 * Ownership: mcp_rpc_outgoing holds new references (release it); mcp_rpc_response_id
 * returns a borrowed one; mcp_rpc_error_response returns a new string the caller frees. */
#ifndef HEW_MCP_HTTP_RPC_H
#define HEW_MCP_HTTP_RPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* The JSON-RPC error code of a synthesized answer (a transport failure, not the server's
 * own error). */
#define MCP_RPC_TRANSPORT_ERROR (-32000)

/* How much of an HTTP error body goes into the synthesized error's message. */
#define MCP_RPC_BODY_EXCERPT 200

typedef struct mcp_rpc_outgoing {
    json_t *request_ids; /* array of the ids of the requests in the message (new ref) */
    bool is_initialized; /* the notifications/initialized notification */
    bool is_batch;       /* a JSON array of messages */
} mcp_rpc_outgoing;

/* Read an outgoing message: a JSON object (or an array of them, a 2025-03-26 batch).
 * HEW_E_INVALID when it is not (a bug in the caller: the message names what was wrong). */
hew_code mcp_rpc_outgoing_read(const char *json, size_t len, mcp_rpc_outgoing *out,
                               hew_err *err);
void mcp_rpc_outgoing_release(mcp_rpc_outgoing *o);

/* The id of msg when it is a response (has "result" or "error" and no "method"), else
 * NULL. Borrowed from msg. */
const json_t *mcp_rpc_response_id(const json_t *msg);

/* Remove the first id equal to id from the array ids; true when one was removed. */
bool mcp_rpc_ids_remove(json_t *ids, const json_t *id);

/* {"jsonrpc":"2.0","id":<id>,"error":{"code":-32000,"message":<message>,
 *  "data":{"httpStatus":<http_status>}}} ("data" only when http_status > 0), compact.
 * A new string (length in *len, may be NULL), or NULL when memory runs out. */
char *mcp_rpc_error_response(const json_t *id, const char *message, long http_status,
                             size_t *len);

/* "HTTP <status> from <where>: <excerpt>" into out (cap bytes): the excerpt is at most
 * MCP_RPC_BODY_EXCERPT bytes of body, cut on a character boundary, with line breaks and
 * tabs turned into spaces; ": <excerpt>" is left out for an empty body. */
void mcp_rpc_http_error_text(long status, const char *where, const char *body, size_t body_len,
                             char *out, size_t cap);

#endif
