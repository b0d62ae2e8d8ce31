/* load_mcp_documentation — what the model needs to know to build an MCP server for the
 * user (Cline's load_mcp_documentation returns such a text): the protocol in short, the
 * SDKs, and how hew is told about a new server. hew's own words. */
#include "tools/tool.h"

static const char documentation[] =
    "# Building an MCP server\n\n"
    "The Model Context Protocol (MCP) lets a program offer tools, resources and prompts to "
    "an AI assistant. A server is a program that speaks JSON-RPC 2.0, usually over stdio "
    "(one JSON message per line on stdin and stdout; logs go to stderr, never stdout) or "
    "over Streamable HTTP (messages POSTed to one URL; answers as JSON or a server-sent "
    "event stream).\n\n"
    "## The exchange\n"
    "1. The client sends `initialize` with its protocol version (e.g. \"2025-06-18\") and "
    "capabilities; the server answers with its version, capabilities (`tools`, "
    "`resources`, `prompts`, `logging`) and `serverInfo`; the client sends "
    "`notifications/initialized`.\n"
    "2. `tools/list` returns tools: `name`, `description`, `inputSchema` (a JSON Schema "
    "object).\n"
    "3. `tools/call` with `{name, arguments}` returns `{content: [{type: \"text\", text}, "
    "…], isError?}`. Report failures of the tool as `isError: true` with a text saying "
    "why, so the model can react; protocol errors are JSON-RPC errors.\n"
    "4. `resources/list`, `resources/templates/list` and `resources/read` ({uri}) expose "
    "data; `prompts/list` and `prompts/get` expose prompt templates.\n"
    "5. Long operations may send `notifications/progress` with the request's "
    "`_meta.progressToken`; `notifications/message` carries log lines.\n\n"
    "## Writing one\n"
    "Use an official SDK: TypeScript `@modelcontextprotocol/sdk` (McpServer, "
    "StdioServerTransport, tools declared with zod schemas) or Python `mcp` (FastMCP with "
    "`@mcp.tool()` decorated functions). Keep tool names short ([A-Za-z0-9_-]), "
    "descriptions precise, and inputs validated. Never print anything but protocol "
    "messages on stdout. Read secrets such as API keys from environment variables.\n\n"
    "## Telling hew about it\n"
    "Add the server to ~/.config/hew/mcp.json (every workspace) or .hew/mcp.json (this "
    "workspace):\n"
    "```json\n"
    "{\"mcpServers\": {\"weather\": {\"command\": \"node\", \"args\": "
    "[\"/path/to/build/index.js\"], \"env\": {\"API_KEY\": \"${env:WEATHER_KEY}\"}}}}\n"
    "```\n"
    "or for an HTTP server `{\"url\": \"https://host/mcp\", \"headers\": {…}}`; "
    "optional keys: `disabled`, `timeout` (seconds, default 60), `autoApprove` (tool "
    "names). The same can be done with `hew mcp add NAME -- COMMAND ARGS…` or `hew mcp "
    "add NAME --url URL`. hew connects to the servers when a session starts (`/mcp "
    "reload` in an interactive session re-reads the settings), and their tools appear in "
    "the MCP SERVERS section of the system prompt.\n";

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    (void)call;
    env->say(env, "load_mcp_documentation", NULL, NULL, 0);
    env->mistake(env, false);
    buf_puts(&out->text, documentation);
    return HEW_OK;
}

const tool_def tool_load_mcp_documentation = {
    .name = "load_mcp_documentation",
    .description = "Load the documentation on building MCP servers, when the user asks for "
                   "a new tool or capability that an MCP server of their own would give.",
    .params = NULL,
    .nparams = 0,
    .flags = TOOL_READ_ONLY | TOOL_MCP,
    .run = run,
    .partial = NULL,
    .describe = NULL,
};
