/* trust — whether the user trusts a workspace's project files, for the library's insides
 * (the public side is "Workspace trust" in include/hew.h, also in trust.c).
 *
 * Project files that can start processes, reach the network with the user's credentials
 * or change approvals are listed in one table (trust.c: .hew/mcp.json, and the hooks:
 * .hew/hooks.json, .claude/settings.json's "hooks", .clinerules/hooks/<Hook>). Such a file is used only when the user trusts its exact bytes: the store
 * (trust_store.h) holds their SHA-256 for the workspace's root, or the session trusts
 * them for its run (hew_options.trust_workspace). A file is read ONCE, hashed, and the
 * very bytes hashed are the ones parsed — never read again by name after the decision.
 * An untrusted file's servers are only described (no ${env:…} expanded), never started. */
#ifndef HEW_LIB_TRUST_H
#define HEW_LIB_TRUST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/hash.h"

/* The workspace's MCP settings file, under its root. */
#define TRUST_MCP_FILE ".hew/mcp.json"
/* The workspace's hooks (lib/hooks_session.c): hew's own file, Claude Code's settings (its
 * "hooks"), and Cline's hook scripts (one entry per script name of hooks_cline_names). */
#define TRUST_HOOKS_FILE ".hew/hooks.json"
#define TRUST_CLAUDE_SETTINGS ".claude/settings.json"
#define TRUST_CLINE_HOOKS_DIR ".clinerules/hooks"

/* One project file, read once and judged. */
typedef struct trust_read {
    char *path;      /* <root>/<rel> */
    char *text;      /* its bytes (NUL-terminated), NULL when there is no such file */
    size_t len;
    char digest[HASH_SHA256_HEX + 1]; /* SHA-256 of text; "" without a file */
    bool trusted;    /* the store, or pinned, trusts exactly these bytes */
    bool changed;    /* the store trusted other bytes of it: edited since */
    char problem[HEW_ERR_MSG_MAX]; /* why the store could not be read ("" none): then
                                      nothing is trusted from it */
} trust_read;

/* Read <root>/<rel> (at most MCP_CONFIG_FILE_MAX bytes), hash it, judge it against the
 * store of data_dir (NULL: the default) and pinned (a digest the session trusts for its
 * run, or NULL). A missing file is HEW_OK with text NULL. Errors: the file could not be
 * read (then out holds nothing). */
hew_code trust_read_file(const char *root, const char *rel, const char *data_dir,
                         const char *pinned, trust_read *out, hew_err *err);
void trust_read_release(trust_read *r);

/* The servers of an mcp.json text, parsed as untrusted (nothing expanded), each as
 * {"name", "status": "untrusted", "transport", "command" (the command line as shown:
 * quoted, control characters escaped), "argv", "url", "headers" (names only), "env"
 * (names only), "disabled", "source", "error": "untrusted: not started (hew trust to
 * allow)"}; a text that does not parse gives one {"settings_untrusted": why} entry. A new
 * reference; NULL only when memory ran out. *would_start (may be NULL) counts the
 * servers not disabled. */
json_t *trust_describe_mcp(const char *text, size_t len, const char *path,
                           size_t *would_start);

/* The one-line notice for an untrusted .hew/mcp.json with those servers (described as
 * above): a new string. */
char *trust_mcp_notice(const trust_read *r, const json_t *described);

#endif
