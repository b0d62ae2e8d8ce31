/* config — MCP server settings: which servers hew connects to and how.
 *
 * Files, read in this order (a server named again in a later file replaces the earlier
 * one): the user's $XDG_CONFIG_HOME/hew/mcp.json (else ~/.config/hew/mcp.json), then the
 * workspace's <cwd>/.hew/mcp.json. The shape is the common one, so Cline's
 * cline_mcp_settings.json and Claude Desktop's file parse as they are:
 *
 *   {"mcpServers": {"NAME": {
 *      "type": "stdio" | "sse" | "streamableHttp" | "http" | "streamable-http",
 *      "command": "npx", "args": ["-y", "pkg"], "cwd": "dir", "env": {"K": "V"},   stdio
 *      "url": "https://…", "headers": {"K": "V"},                                 http
 *      "disabled": false, "timeout": 60, "autoApprove": ["tool", …],
 *      "sandbox": "workspace-write" | "read-only", "sandbox_network": true }}}     stdio
 *
 * Rules:
 *   - type missing: "command" → stdio; "url" → MCP_HTTP_AUTO (Streamable HTTP, falling back
 *     to the old HTTP+SSE transport when the server refuses the POST with a 4xx, as the MCP
 *     specification recommends). Cline's legacy "transportType": "http" is Streamable HTTP
 *     ("sse": HTTP+SSE). A stdio server needs a non-empty command; an HTTP one an http://
 *     or https:// url. Env names cannot hold '='; header names cannot hold ':' or spaces,
 *     header values no line breaks.
 *   - "${env:VAR}" is replaced everywhere in strings (command, args, cwd, env values, url,
 *     header values) by the variable's value ("" when unset, and a warning says so). VAR is
 *     letters, digits and '_'; anything else is left as written. Only in a trusted source
 *     (MCP_TRUST_USER, MCP_TRUST_PROJECT): an untrusted workspace file (MCP_TRUST_NONE) is
 *     read only to be shown, with every "${env:…}" left as written — a secret never
 *     reaches its servers, not even in a listing.
 *   - timeout: seconds, default 60, at least 1 (smaller values become 1), at most a day;
 *     fractions round up.
 *   - Names: non-empty, at most 64 bytes of [A-Za-z0-9_.-]; anything else is an error
 *     naming the server and what is allowed.
 *   - A workspace file (MCP_TRUST_PROJECT or MCP_TRUST_NONE) may add servers but its
 *     "autoApprove" lists are ignored (a cloned repository must not approve its own
 *     tools); a warning says so. Whether a workspace file is trusted at all is decided
 *     above this module (lib/trust.h: the user trusts the file's exact bytes).
 *   - Errors name the file and the JSON path ("mcp.json: mcpServers.fs.args[1]: expected a
 *     string, got a number") and say what to write instead; a file that does not exist is
 *     not an error.
 *   - "sandbox" (stdio only, opt-in): the server runs confined as a command would under
 *     that mode (docs/sandbox.md), with the network on unless "sandbox_network": false;
 *     any other word is an error naming the choices. A workspace file may set it (it
 *     only ever narrows).
 *   - Unknown keys are ignored (other tools' files carry their own).
 *
 * Ownership: every string of a mcp_config belongs to it; mcp_config_free releases all. */
#ifndef HEW_MCP_CONFIG_H
#define HEW_MCP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "sys/sandbox.h"

typedef enum mcp_kind {
    MCP_STDIO,
    MCP_HTTP,      /* Streamable HTTP */
    MCP_SSE,       /* the old HTTP+SSE transport */
    MCP_HTTP_AUTO  /* Streamable HTTP, else HTTP+SSE */
} mcp_kind;

typedef struct mcp_server_config {
    char *name;
    mcp_kind kind;
    char **argv;          /* stdio: command then args, NULL-terminated; else NULL */
    char *cwd;            /* stdio: may be NULL */
    char **env;           /* stdio: "NAME=value", NULL-terminated; may be NULL */
    char *url;            /* http/sse */
    char **headers;       /* http/sse: "Name: value", NULL-terminated; may be NULL */
    bool disabled;
    long timeout_s;       /* tools/call timeout; default 60, >= 1 */
    char **auto_approve;  /* tool names approved without asking, NULL-terminated; may be NULL */
    char *source;         /* the file it came from */
    sandbox_mode sandbox; /* stdio, "sandbox": "read-only" | "workspace-write" runs the
                             server confined (sys/sbpolicy.h); SANDBOX_FULL_ACCESS (the
                             default, or "danger-full-access"): unconfined */
    bool sandbox_network; /* "sandbox_network": the confined server may use the network
                             (default true: most servers need it) */
} mcp_server_config;

typedef struct mcp_config {
    mcp_server_config *servers; /* in file order; a replaced server keeps its first place */
    size_t n;
    const struct sbpolicy_opts *sandbox; /* for mcp_hub_start (borrowed): what a server
                                            that asks for a sandbox is confined by; NULL:
                                            such a server cannot start */
    buf warnings;               /* one line per warning, each ending in '\n' ("source: path:
                                   what"); len 0 when none */
} mcp_config;

/* How far a settings source is trusted. The values keep `true` (the user's file) and
 * `false` (an untrusted workspace file) meaning what they always meant. */
typedef enum mcp_trust {
    MCP_TRUST_NONE = 0,    /* a workspace file the user has not trusted: parsed only to be
                              shown — no ${env:…} expanded, autoApprove ignored; its servers
                              must never be started */
    MCP_TRUST_USER = 1,    /* the user's own file: everything honoured */
    MCP_TRUST_PROJECT = 2  /* a workspace file the user trusted: ${env:…} expanded, its
                              autoApprove still ignored */
} mcp_trust;

void mcp_config_init(mcp_config *c);
void mcp_config_free(mcp_config *c);

/* Parse one settings text (source names it in messages) and merge its servers into c,
 * as far as trust says (mcp_trust). All or nothing: on an error c is left as it was. A
 * text without "mcpServers" adds nothing. */
hew_code mcp_config_parse(mcp_config *c, const char *text, size_t len, const char *source,
                          mcp_trust trust, hew_err *err);

/* Read one file into c (a missing file: HEW_OK, nothing added; at most MCP_CONFIG_FILE_MAX
 * bytes). For the user's file: a workspace file must be read once, hashed and parsed
 * from the same bytes (lib/trust.h), never through this. */
hew_code mcp_config_load_file(mcp_config *c, const char *path, mcp_trust trust,
                              hew_err *err);

/* The largest settings file read, in bytes. */
#define MCP_CONFIG_FILE_MAX ((size_t)4 << 20)

/* The default files for a workspace: *user (malloc'd; NULL when neither XDG_CONFIG_HOME
 * nor HOME is set; a relative XDG_CONFIG_HOME is ignored, as the XDG rules say) and
 * *project (malloc'd, <root>/.hew/mcp.json; NULL when root is NULL). root is the
 * workspace's root (sys/wsroot.h), not any folder in it. Either out pointer may be NULL
 * when that path is not wanted. */
hew_code mcp_config_default_paths(const char *root, char **user, char **project,
                                  hew_err *err);

/* The longest server name allowed, in bytes. */
#define MCP_CONFIG_NAME_MAX 64

/* True when name follows the rules for server names (1 to 64 bytes of [A-Za-z0-9_.-]). */
bool mcp_config_name_ok(const char *name);

/* A name that follows the rules made from one that may not (for importing other tools'
 * files: Cline names marketplace servers "github.com/owner/repo"): every run of other
 * bytes becomes one '-', cut at 64 bytes; "server" for an empty result. out holds at least
 * MCP_CONFIG_NAME_MAX + 1 bytes. A name that follows the rules comes back unchanged. */
void mcp_config_name_fix(const char *name, char *out, size_t cap);

/* The server called name, or NULL. */
const mcp_server_config *mcp_config_find(const mcp_config *c, const char *name);

/* True when two server configs would connect the same way (every field but source and
 * auto_approve equal): a reload keeps such a server's connection. */
bool mcp_server_config_same(const mcp_server_config *a, const mcp_server_config *b);

/* Edit a settings file in place, atomically (base/fs atomic write), keeping every other
 * key of the file as it was: add (or replace) server name with the JSON object def, or
 * remove it (HEW_E_NOTFOUND when absent). A missing file is created as {"mcpServers":{}}.
 * def is checked with the same rules as mcp_config_parse first, and written as given
 * (${env:VAR} stays a reference). The file is re-dumped by jansson: keys in their order,
 * indent 2, a final newline; a replaced server keeps its place, a new one comes last. A
 * file that is not a JSON object is refused, never overwritten. A symlink is written
 * through; a new file (and missing folders) are created, the file with mode 0600. */
hew_code mcp_config_file_put(const char *path, const char *name, const char *def_json,
                             hew_err *err);
hew_code mcp_config_file_remove(const char *path, const char *name, hew_err *err);

#endif
