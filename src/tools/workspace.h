/* workspace — what the file tools share about paths: resolving a path the model gave
 * against the workspace root (inside, or outside with the outside flag for approval), the
 * path shown to the user and the model, the .clineignore check, the "tool" message data
 * (Cline's ClineSayTool), the approval step with its denial text, and the per-task cache of
 * file reads. It never refuses a path only because it is outside the workspace (that is
 * for the approval step) and never lets an ignored path through.
 *
 * Display paths: relative to the root with '/' separators for paths inside ("src/a.c",
 * "." for the root), the absolute path for paths outside. Ignore checks use the relative
 * path; paths outside the workspace are never ignored (Cline allows them). */
#ifndef HEW_TOOLS_WORKSPACE_H
#define HEW_TOOLS_WORKSPACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "tools/ignore.h"
#include "tools/tool.h"

typedef struct ws_path {
    char *abs;    /* resolved absolute path (symlinks and `..` resolved) */
    char *rel;    /* display path (see above) */
    bool outside; /* resolves outside the workspace root */
} ws_path;

#define WS_PATH_INIT { NULL, NULL, false }

/* Resolve path (relative to root, or absolute) with path_resolve_in; a path that escapes
 * is resolved anyway and flagged outside. Errors: those of path_resolve_in other than
 * HEW_E_ESCAPE (symlink loop, permission, empty path). */
hew_code ws_resolve(const char *root, const char *path, ws_path *out, hew_err *err);
void ws_path_release(ws_path *p);

/* True when .clineignore blocks the path (never for paths outside the workspace). */
bool ws_ignored(const ignore *ig, const ws_path *p, bool is_dir);

/* The result and the user message for a blocked path: says "clineignore_error" with the
 * display path and fills out with the error for the model (is_error). */
void ws_blocked_result(tool_env *env, const char *display, tool_result *out);

/* A path problem (resolution failed, file missing, …) as an error result; counts a
 * mistake. */
void ws_error_result(tool_env *env, tool_result *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* New {"tool": tool, "path": path} object (path may be NULL) for "tool" messages; the
 * caller adds "content", "diff", "regex", "filePattern" with ws_data_put. */
json_t *ws_tool_data(const char *tool, const char *path);
/* Set key to a string (invalid UTF-8 replaced) when value is not NULL. */
void ws_data_put(json_t *data, const char *key, const char *value);

/* Ask approval of a tool of group "read" or "edit" through env->approve, with the "tool"
 * message data. Approved: *approved is true; feedback the user typed with the approval is
 * written to out first. Denied: *approved is false and out holds "The user denied this
 * operation." + denied_extra (may be NULL, e.g. " The file was not updated, …") + the
 * user's feedback, as an error result. Returns HEW_OK or HEW_E_ABORTED. */
hew_code ws_approve(tool_env *env, const char *group, bool outside, json_t *data,
                    const char *denied_extra, tool_result *out, bool *approved);

/* Show a partial (streaming) call: a partial "tool" ask, or a partial say in yolo mode. */
void ws_show_partial(tool_env *env, json_t *data);

/* ---- the per-task read cache -------------------------------------------------------
 * Cline flags repeated reads of an unchanged file. The cache is keyed by the tool_env
 * (one per task) and the absolute path, and remembers the file's modification time and
 * size. Thread-safe (tasks may run on several threads). */

/* Record a read of key (the absolute path, optionally followed by '\n' and what part of
 * the file was read) with the file's stamp; returns how many times it has now been read
 * unchanged (1 for a first read or after a change). */
int ws_read_cache_note(const tool_env *env, const char *abs, int64_t mtime_ns, int64_t size);
/* Forget one file (every key for abs: it was edited) or, with abs NULL, every file of
 * this env (a command ran, or the task ended). */
void ws_read_cache_forget(const tool_env *env, const char *abs);
/* Files this env read whose modification time or size changed since (edited outside hew:
 * hew's own edits forget the file): relative paths to root, new strings the caller frees,
 * at most cap, each reported once. For the environment details. */
size_t ws_read_cache_changed(const tool_env *env, const char *root, char **out, size_t cap);

#endif
