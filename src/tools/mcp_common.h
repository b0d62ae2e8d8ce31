/* mcp_common — what the MCP tools (use_mcp_tool, access_mcp_resource) share: asking the
 * user's approval with a "use_mcp_server" message, and turning an MCP result's content
 * into text for the model (Cline's rules: text parts joined by blank lines, resources as
 * JSON without their blob, "Error:" first when the server marks the result isError,
 * "(No response)" when there is nothing, a note for images, a cap). */
#ifndef HEW_TOOLS_MCP_COMMON_H
#define HEW_TOOLS_MCP_COMMON_H

#include <jansson.h>
#include <stdbool.h>

#include "tools/tool.h"

#define MCP_RESULT_MAX ((size_t)400 * 1024) /* text returned to the model */

/* Ask approval (or say it, when approved by the settings or the server's autoApprove list
 * — listed). data is the "use_mcp_server" message payload (borrowed). Denied: *approved
 * false and out holds the denial with the user's feedback. Approved with feedback: the
 * feedback is written to out first. HEW_OK or HEW_E_ABORTED. */
hew_code mcp_tool_approve(tool_env *env, bool listed, json_t *data, tool_result *out,
                          bool *approved);

/* Append the text of a tools/call result to out; its images (PNG, JPEG, GIF, WebP) go
 * into *images (an array of api_msg_image blocks, created when the first comes). */
void mcp_format_tool_result(const json_t *result, buf *out, json_t **images);

/* Append the text of a resources/read result to out ("(Empty response)" when none). */
void mcp_format_resource(const json_t *result, buf *out);

/* .clineignore for MCP: when a string of args (an object, array or string, at any depth)
 * names a path the workspace's .clineignore blocks — relative to the workspace, absolute
 * inside it, or a file:// URI — the call is refused as a built-in tool's read would be
 * (ws_blocked_result: the model is told, "clineignore_error" is said) and true is returned.
 * Strings that are empty, longer than PATH_MAX, hold a line break or are URLs of another
 * scheme are not paths. A .clineignore that cannot be read refuses the call too (the
 * error says why). False: nothing blocked, go on. */
bool mcp_args_blocked(tool_env *env, const json_t *args, tool_result *out);

/* The tool's result text when no MCP server is connected. */
void mcp_no_servers(tool_env *env, tool_result *out);

#endif
