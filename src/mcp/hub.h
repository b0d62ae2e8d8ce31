/* hub — every MCP server of a session: connects them all in parallel when the session
 * starts (one thread per server), keeps what each offers (tools, resources, resource
 * templates, prompts), reconnects a server that fails or dies with backoff (1 s, 2 s, …,
 * at most 60 s) without ever taking hew down, and runs tool calls and resource reads for
 * the task. Settings come from config.h; a reload keeps the connections of servers whose
 * settings did not change.
 *
 * Threads: every function may be called from any thread. Notices for the user ("[fs]
 * connected: 14 tools", a server's log messages, a failure) go to the listener the running
 * task set (mcp_hub_set_listener), from a hub thread; with no listener they are only
 * logged.
 *
 * Native tool names: an MCP tool is offered to providers with native tool calling as
 * "<server>__<tool>" with every byte outside [A-Za-z0-9_-] turned into '_', "mcp_" first
 * when the server's name does not start with a letter or '_' (Gemini's rule), at most 64
 * bytes (providers' limit; longer names are cut and end in a short hash so they stay
 * unique); mcp_snapshot_native_find maps a name back. */
#ifndef HEW_MCP_HUB_H
#define HEW_MCP_HUB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "sys/abort.h"
#include "base/err.h"
#include "mcp/client.h"
#include "mcp/config.h"
#include "mcp/offer.h"

typedef struct mcp_hub mcp_hub;

typedef enum mcp_status {
    MCP_DISABLED,     /* "disabled": true in the settings: listed, never started */
    MCP_CONNECTING,
    MCP_CONNECTED,
    MCP_DISCONNECTED  /* failed or died; retried (error says why) */
} mcp_status;


typedef void (*mcp_notice_fn)(void *ud, const char *server, const char *text);

/* Start the hub with cfg (taken: cfg is left empty) for a workspace (root_dir: offered to
 * servers as their root; may be NULL). Enabled servers start connecting at once. The hub
 * makes its own sandbox policy from cfg->sandbox (when set) for the servers that ask for
 * one ("sandbox" in their settings); without it such a server does not start (never
 * unconfined). A bad cfg->sandbox fails the start (HEW_E_INVALID). */
hew_code mcp_hub_start(mcp_config *cfg, const char *root_dir, mcp_hub **out, hew_err *err);

/* Stop every server (children killed) and free. NULL is a no-op. */
void mcp_hub_free(mcp_hub *h);

/* Apply new settings (taken): servers removed or changed are stopped, new or changed
 * ones started, the others keep their connection. */
void mcp_hub_reload(mcp_hub *h, mcp_config *cfg);

/* Wait until no server is on its first connection attempt (at most timeout_ms; the abort
 * token ends the wait early). True when none is. */
bool mcp_hub_wait_ready(mcp_hub *h, long timeout_ms, hew_abort *abort);

/* How many servers the settings name (enabled or not). */
size_t mcp_hub_count(mcp_hub *h);

/* Tell the running task's listener something about the servers (source: "settings", a
 * server's name). */
void mcp_hub_notice(mcp_hub *h, const char *source, const char *text);

/* The listener for notices (NULL to remove): the task running last. */
void mcp_hub_set_listener(mcp_hub *h, mcp_notice_fn fn, void *ud);

/* Remove the listener only if it is still ud's (a task ending after another started
 * leaves the newer one listening). */
void mcp_hub_drop_listener(mcp_hub *h, void *ud);

/* Every server as JSON: [{"name", "status", "error", "transport", "server" (name version),
 * "tools": [{"name","description","input_schema","auto_approve"}], "resources": [...],
 * "resource_templates": [...], "prompts": [...], "source"}]. A new reference. */
json_t *mcp_hub_status_json(mcp_hub *h);
/* (Each server's object also has "reads_files" — mcp_schema_names_files of one of its
 * tools — and, when it reads files and the workspace root has a .clineignore,
 * "clineignore_warning": what .clineignore cannot stop.) */

/* True when a tool with this input schema names files: a property of it (or of an object
 * or array-of-objects property) is called path, paths, file, files, filename, uri, uris,
 * directory, dir, folder, root, source or destination (case-insensitive), or ends in a
 * word path, file, dir, uri (filePath, source_dir; not profile). A server with such a tool "reads files"
 * (hub status "reads_files"): .clineignore cannot stop what the server itself reads. */
bool mcp_schema_names_files(const json_t *input_schema);

/* True when the settings approve this tool without asking (its server's autoApprove). */
bool mcp_hub_tool_auto_approved(mcp_hub *h, const char *server, const char *tool);

/* tools/call: arguments (borrowed, an object) → the server's result object (new
 * reference, with "content" and maybe "isError"). The server's timeout applies; abort
 * cancels. progress (may be NULL) runs on the calling thread. */
hew_code mcp_hub_call_tool(mcp_hub *h, const char *server, const char *tool,
                           const json_t *arguments, hew_abort *abort, mcp_progress_fn progress,
                           void *progress_ud, json_t **result, hew_err *err);

/* resources/read → the result object ({"contents": [...]}, new reference). */
hew_code mcp_hub_read_resource(mcp_hub *h, const char *server, const char *uri,
                               hew_abort *abort, json_t **result, hew_err *err);

/* prompts/get with arguments (borrowed object or NULL) → the result ({"messages": [...]}). */
hew_code mcp_hub_get_prompt(mcp_hub *h, const char *server, const char *prompt,
                            const json_t *arguments, hew_abort *abort, json_t **result,
                            hew_err *err);

/* ---- what the connected servers offer, frozen for one request ------------------------- */

typedef struct mcp_native_tool {
    char *native_name;  /* "<server>__<tool>", provider-safe */
    const char *server; /* borrowed from the snapshot */
    const char *tool;
    const char *description;
    const json_t *input_schema;
} mcp_native_tool;

typedef struct mcp_snapshot {
    mcp_offer_server *servers; /* connected servers only, in settings order */
    size_t nservers;
    mcp_native_tool *native;    /* every tool of them */
    size_t nnative;
    json_t *keep;               /* owns the strings and schemas the above borrow */
} mcp_snapshot;

/* A snapshot of the connected servers (never NULL unless memory ran out). */
mcp_snapshot *mcp_hub_snapshot(mcp_hub *h);
void mcp_snapshot_free(mcp_snapshot *s);

/* A tool's input schema as providers' function declarations take it (a new reference):
 * always an object schema ("type": "object", "properties" present), without "$schema".
 * schema may be NULL. */
json_t *mcp_native_schema(const json_t *schema);

/* The MCP tool a native tool name stands for, or NULL. */
const mcp_native_tool *mcp_snapshot_native_find(const mcp_snapshot *s, const char *name);

#endif
