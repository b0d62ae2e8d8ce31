/* http_rpc — JSON-RPC facts for the HTTP transports (see http_rpc.h): request ids of an
 * outgoing message, the id an incoming response answers, and synthesized error responses.
 * Never prints; never looks deeper into a message than its envelope. */
#include "mcp/http_rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/utf8.h"

static bool is_request(const json_t *msg)
{
    const json_t *id = json_object_get(msg, "id");
    return json_is_string(json_object_get(msg, "method")) && id && !json_is_null(id);
}

static bool is_initialized_notification(const json_t *msg)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    return method && strcmp(method, "notifications/initialized") == 0 &&
           !json_object_get(msg, "id");
}

static hew_code note_message(const json_t *msg, mcp_rpc_outgoing *out, hew_err *err)
{
    if (!json_is_object(msg))
        return hew_err_set(err, HEW_E_INVALID,
                           "an MCP message must be a JSON object, not %s", json_type_phrase(msg));
    if (is_request(msg) &&
        json_array_append(out->request_ids, json_object_get(msg, "id")) != 0)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory reading an MCP message");
    if (is_initialized_notification(msg))
        out->is_initialized = true;
    return HEW_OK;
}

hew_code mcp_rpc_outgoing_read(const char *json, size_t len, mcp_rpc_outgoing *out,
                               hew_err *err)
{
    memset(out, 0, sizeof *out);
    json_t *doc = NULL;
    hew_code rc = json_parse(json, len, "outgoing MCP message", &doc, err);
    if (rc != HEW_OK)
        return rc;
    out->request_ids = json_array();
    if (!out->request_ids) {
        json_decref(doc);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory reading an MCP message");
    }
    if (json_is_array(doc)) {
        out->is_batch = true;
        size_t i;
        json_t *m;
        json_array_foreach(doc, i, m)
        {
            if ((rc = note_message(m, out, err)) != HEW_OK)
                break;
        }
    } else {
        rc = note_message(doc, out, err);
    }
    json_decref(doc);
    if (rc != HEW_OK)
        mcp_rpc_outgoing_release(out);
    return rc;
}

void mcp_rpc_outgoing_release(mcp_rpc_outgoing *o)
{
    if (!o)
        return;
    json_decref(o->request_ids);
    memset(o, 0, sizeof *o);
}

const json_t *mcp_rpc_response_id(const json_t *msg)
{
    if (!json_is_object(msg) || json_object_get(msg, "method"))
        return NULL;
    if (!json_object_get(msg, "result") && !json_object_get(msg, "error"))
        return NULL;
    return json_object_get(msg, "id");
}

bool mcp_rpc_ids_remove(json_t *ids, const json_t *id)
{
    if (!id)
        return false;
    for (size_t i = 0; i < json_array_size(ids); i++)
        if (json_equal(json_array_get(ids, i), (json_t *)id))
            return json_array_remove(ids, i) == 0;
    return false;
}

char *mcp_rpc_error_response(const json_t *id, const char *message, long http_status,
                             size_t *len)
{
    hew_code st = HEW_OK;
    json_t *error = json_object();
    json_obj_put(error, "code", json_integer(MCP_RPC_TRANSPORT_ERROR), &st);
    json_obj_put(error, "message", json_string_lossy(message, strlen(message)), &st);
    if (http_status > 0) {
        json_t *data = json_object();
        json_obj_put(data, "httpStatus", json_integer(http_status), &st);
        json_obj_put(error, "data", data, &st);
    }
    json_t *msg = json_object();
    json_obj_put(msg, "jsonrpc", json_string("2.0"), &st);
    json_obj_put(msg, "id", id ? json_deep_copy(id) : json_null(), &st);
    json_obj_put(msg, "error", error, &st);
    char *text = st == HEW_OK ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    if (text && len)
        *len = strlen(text);
    return text;
}

void mcp_rpc_http_error_text(long status, const char *where, const char *body, size_t body_len,
                             char *out, size_t cap)
{
    char excerpt[MCP_RPC_BODY_EXCERPT + 1];
    size_t n = utf8_cut(body ? body : "", body ? body_len : 0, MCP_RPC_BODY_EXCERPT);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)body[i];
        excerpt[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    while (n > 0 && excerpt[n - 1] == ' ')
        n--;
    size_t start = 0;
    while (start < n && excerpt[start] == ' ')
        start++;
    excerpt[n] = '\0';
    if (start < n)
        snprintf(out, cap, "HTTP %ld from %s: %s", status, where, excerpt + start);
    else
        snprintf(out, cap, "HTTP %ld from %s", status, where);
}
