/* use_mcp_tool — call a tool of a connected MCP server (Cline's use_mcp_tool): the
 * arguments are a JSON object (invalid JSON is the model's mistake, said back to it),
 * the user approves unless the settings or the server's autoApprove list do, progress
 * notifications are shown while it runs, abort cancels it on the server, and the result's
 * content becomes text (mcp_common.h). An argument that names a file .clineignore blocks
 * refuses the call, as a built-in read of it would be refused. Native tool calls of "<server>__<tool>" arrive here
 * too: the executor maps them to this tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/redact.h"
#include "mcp/hub.h"
#include "tools/mcp_common.h"
#include "tools/tool.h"

static const tool_param params[] = {
    { "server_name", true, "The name of the MCP server that provides the tool.",
      "server name here", NULL },
    { "tool_name", true, "The name of the tool to call.", "tool name here", NULL },
    { "arguments", false,
      "The tool's input as a JSON object that follows the tool's input schema.",
      "{\n  \"param1\": \"value1\",\n  \"param2\": \"value2\"\n}", NULL },
};

static json_t *message_data(const char *server, const char *tool, const char *arguments)
{
    json_t *data = json_object();
    json_object_set_new(data, "type", json_string("use_mcp_tool"));
    json_object_set_new(data, "serverName", json_string(server));
    json_object_set_new(data, "toolName", json_string(tool));
    if (arguments)
        json_object_set_new(data, "arguments", json_string(arguments));
    return data;
}

typedef struct progress_ctx {
    tool_env *env;
    const char *server;
    bool shown;
    char last[512]; /* the latest progress line: the message's final text */
} progress_ctx;

static void show_progress(void *ud, double done, double total, const char *message)
{
    progress_ctx *p = ud;
    char *text = p->last;
    if (total > 0)
        snprintf(text, sizeof p->last, "[%s] progress %g/%g%s%s", p->server, done, total,
                 message ? ": " : "", message ? message : "");
    else
        snprintf(text, sizeof p->last, "[%s] progress %g%s%s", p->server, done,
                 message ? ": " : "", message ? message : "");
    p->env->say(p->env, "mcp_notification", text, NULL, 1);
    p->shown = true;
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *server = tool_call_param(call, "server_name");
    const char *tool = tool_call_param(call, "tool_name");
    const char *arguments = tool_call_param(call, "arguments");
    if (!env->mcp) {
        mcp_no_servers(env, out);
        return HEW_OK;
    }
    json_t *args = NULL;
    if (arguments && *arguments) {
        json_error_t jerr;
        args = json_loads(arguments, JSON_DECODE_ANY, &jerr);
        if (!json_is_object(args)) {
            json_decref(args);
            char msg[512];
            snprintf(msg, sizeof msg,
                     "Invalid JSON argument used with %s for %s. Please retry with a properly "
                     "formatted JSON argument.",
                     server, tool);
            env->say(env, "error", msg, NULL, 0);
            tool_result_error(out, "%s", msg);
            env->mistake(env, true);
            return HEW_OK;
        }
    }
    env->mistake(env, false);
    /* An argument naming a .clineignore'd file is refused before anyone is asked. */
    if (mcp_args_blocked(env, args, out)) {
        json_decref(args);
        return HEW_OK;
    }

    json_t *data = message_data(server, tool, arguments);
    bool approved = false;
    hew_code rc = mcp_tool_approve(env, mcp_hub_tool_auto_approved(env->mcp, server, tool), data,
                                   out, &approved);
    json_decref(data);
    if (rc != HEW_OK || !approved) {
        json_decref(args);
        return rc;
    }

    env->say(env, "mcp_server_request_started", NULL, NULL, 0);
    progress_ctx progress = { env, server, false, "" };
    json_t *result = NULL;
    hew_err err = HEW_ERR_INIT;
    rc = mcp_hub_call_tool(env->mcp, server, tool, args, env->abort, show_progress, &progress,
                           &result, &err);
    json_decref(args);
    if (progress.shown)
        env->say(env, "mcp_notification", progress.last, NULL, 2);
    if (rc == HEW_E_ABORTED)
        return rc;
    if (rc != HEW_OK) {
        redact_inplace(err.msg, sizeof err.msg); /* a server may echo a credential */
        env->say(env, "error", err.msg, NULL, 0);
        tool_result_error(out, "The MCP tool %s of %s failed: %s", tool, server, err.msg);
        return HEW_OK;
    }
    size_t start = out->text.len;
    mcp_format_tool_result(result, &out->text, &out->images);
    out->is_error = json_is_true(json_object_get(result, "isError"));
    json_decref(result);
    env->say(env, "mcp_server_response", out->text.data ? out->text.data + start : "", NULL, 0);
    return HEW_OK;
}

static void describe(const tool_call *call, buf *out)
{
    const char *server = tool_call_param(call, "server_name");
    const char *tool = tool_call_param(call, "tool_name");
    buf_printf(out, "[use_mcp_tool for '%s' on '%s']", tool ? tool : "?", server ? server : "?");
}

const tool_def tool_use_mcp_tool = {
    .name = "use_mcp_tool",
    .description =
        "Call a tool of a connected MCP server. Each server's tools and their input schemas "
        "are listed in the MCP SERVERS section.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_MCP | TOOL_MCP_GATEWAY,
    .run = run,
    .partial = NULL,
    .describe = describe,
};
