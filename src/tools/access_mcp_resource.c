/* access_mcp_resource — read a resource of a connected MCP server by URI (Cline's
 * access_mcp_resource): approved like an MCP tool, text contents returned, binary ones
 * described. A file:// URI of a file .clineignore blocks is refused. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/redact.h"
#include "mcp/hub.h"
#include "tools/mcp_common.h"
#include "tools/tool.h"

static const tool_param params[] = {
    { "server_name", true, "The name of the MCP server that provides the resource.",
      "server name here", NULL },
    { "uri", true, "The URI of the resource (a direct resource, or a template filled in).",
      "resource URI here", NULL },
};

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *server = tool_call_param(call, "server_name");
    const char *uri = tool_call_param(call, "uri");
    if (!env->mcp) {
        mcp_no_servers(env, out);
        return HEW_OK;
    }
    env->mistake(env, false);
    if (uri && strncasecmp(uri, "file://", 7) == 0) {
        json_t *u = json_string(uri);
        bool blocked = u && mcp_args_blocked(env, u, out);
        json_decref(u);
        if (blocked)
            return HEW_OK;
    }
    json_t *data = json_object();
    json_object_set_new(data, "type", json_string("access_mcp_resource"));
    json_object_set_new(data, "serverName", json_string(server));
    json_object_set_new(data, "uri", json_string(uri));
    bool approved = false;
    hew_code rc = mcp_tool_approve(env, false, data, out, &approved);
    json_decref(data);
    if (rc != HEW_OK || !approved)
        return rc;

    env->say(env, "mcp_server_request_started", NULL, NULL, 0);
    json_t *result = NULL;
    hew_err err = HEW_ERR_INIT;
    rc = mcp_hub_read_resource(env->mcp, server, uri, env->abort, &result, &err);
    if (rc == HEW_E_ABORTED)
        return rc;
    if (rc != HEW_OK) {
        redact_inplace(err.msg, sizeof err.msg); /* a server may echo a credential */
        env->say(env, "error", err.msg, NULL, 0);
        tool_result_error(out, "Reading %s from %s failed: %s", uri, server, err.msg);
        return HEW_OK;
    }
    size_t start = out->text.len;
    mcp_format_resource(result, &out->text);
    json_decref(result);
    env->say(env, "mcp_server_response", out->text.data ? out->text.data + start : "", NULL, 0);
    return HEW_OK;
}

static void describe(const tool_call *call, buf *out)
{
    const char *uri = tool_call_param(call, "uri");
    const char *server = tool_call_param(call, "server_name");
    buf_printf(out, "[access_mcp_resource for '%s' on '%s']", uri ? uri : "?",
               server ? server : "?");
}

const tool_def tool_access_mcp_resource = {
    .name = "access_mcp_resource",
    .description = "Read a resource of a connected MCP server (files, data, documents it "
                   "offers), by its URI.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY | TOOL_MCP,
    .run = run,
    .partial = NULL,
    .describe = describe,
};
