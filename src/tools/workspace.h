/* workspace — what the file tools share about paths: resolving a path the model gave
 * against the workspace root (inside, or outside with the outside flag for approval), the
 * path shown to the user and the model, the .clineignore check, the "tool" message data
 * (Cline's ClineSayTool), the approval step with its denial text, and the per-task cache of
 * file reads. It never refuses a path only because it is outside the workspace (that is
 * for the approval step) and never lets an ignored path through.
 *
 * Display paths: relative to the root with '/' separators for paths inside ("src/a.c",
 * "." for the root), the absolute path for paths outside. Ignore checks use the relative
 * path; paths outside the workspace are never ignored (Cline allows them).
 *
 * Confinement: ws_resolve checks a path once (symlinks resolved, inside or outside), and
 * every later open of it goes through ws_open_file / ws_write (base/fsat.h): the
 * canonical path that was checked is opened beneath the workspace root (or beneath "/" for
 * an approved path outside) without following any symlink, so a folder swapped for a
 * symlink in between makes the open fail instead of redirecting it. Tools never open a
 * ws_path's abs by name.
 *
 * Hard links: a file with more than one link is refused like the ignored file when one
 * of its other names is .clineignored (ws_links).
 *
 * Control files: a path that names one of hew's control files (see ws_control) is marked
 * in ws_path.control; its edits ask in the "control" approval group, which only yolo
 * approves by itself. */
#ifndef HEW_TOOLS_WORKSPACE_H
#define HEW_TOOLS_WORKSPACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/err.h"
#include "sys/ignore.h"
#include "tools/tool.h"

typedef struct ws_path {
    char *abs;    /* resolved absolute path (symlinks and `..` resolved) */
    char *rel;    /* display path (see above) */
    bool outside; /* resolves outside the workspace root */
    const char *control; /* what it controls when it is one of hew's control files
                            (static text, see ws_control), else NULL */
} ws_path;

#define WS_PATH_INIT { NULL, NULL, false, NULL }

/* Resolve path (relative to root, or absolute) with path_resolve_in; a path that escapes
 * is resolved anyway and flagged outside (control is left NULL: edit tools set it with
 * ws_control). Errors: those of path_resolve_in other than HEW_E_ESCAPE (symlink loop,
 * permission, empty path). */
hew_code ws_resolve(const char *root, const char *path, ws_path *out, hew_err *err);
void ws_path_release(ws_path *p);

/* True when .clineignore blocks the path (never for paths outside the workspace). */
bool ws_ignored(const ignore *ig, const ws_path *p, bool is_dir);

/* ---- opening what ws_resolve checked (base/fsat.h) ------------------------------------
 * root is the workspace root the path was resolved against. Errors as fsat's: HEW_E_ESCAPE
 * when a symlink appeared on the path since it was resolved (nothing was opened). */

/* Look at wp (never follows a symlink): HEW_E_NOTFOUND when it is not there. */
hew_code ws_stat(const char *root, const ws_path *wp, struct stat *st, hew_err *err);
/* Open wp for reading when it is a regular file (fsat_open_file): *st always, *fd -1 for
 * anything else (a directory, a FIFO, a device: never opened). */
hew_code ws_open_file(const char *root, const ws_path *wp, int *fd, struct stat *st,
                      hew_err *err);
/* Replace wp's file with data[0..len) atomically, creating missing folders (fsat_mkdirs,
 * fsat_write_atomic). mode: for a new file (the umask applies). */
hew_code ws_write(const char *root, const ws_path *wp, const void *data, size_t len,
                  mode_t mode, hew_err *err);
/* ws_write through the front end (env->file_write, an editor's buffer): the folders are
 * made beneath env->cwd as for ws_write and the name must not be a symlink, a directory
 * or a special file; then the front end writes data[0..len) at wp->abs. */
hew_code ws_write_via(tool_env *env, const ws_path *wp, const void *data, size_t len,
                      hew_err *err);

/* ---- hard links of ignored files --------------------------------------------------------
 * A file with st_nlink > 1 may be another name of a file .clineignore blocks (a hard link
 * `notes.txt` of `.env`). ws_links finds out cheaply: nothing is done for a file with one
 * link; otherwise the workspace is walked once (per ws_links) for the regular files the
 * rules ignore that have more than one link, and their (device, inode) compared — at most
 * WS_LINKS_SCAN_MAX entries; past that it cannot tell (WS_LINK_UNKNOWN, refused too).
 * With no rules in .clineignore only the file itself is compared. Thread-safe. */
#define WS_LINKS_SCAN_MAX 100000

typedef struct ws_links ws_links;
enum { WS_LINK_OK = 0, WS_LINK_IGNORED = 1, WS_LINK_UNKNOWN = 2 };

/* A new checker for the workspace root and its .clineignore (ig borrowed: it must outlive
 * the checker); NULL when memory runs out. */
ws_links *ws_links_new(const char *root, const ignore *ig);
void ws_links_free(ws_links *l);
/* WS_LINK_OK, WS_LINK_IGNORED (another name of an ignored file) or WS_LINK_UNKNOWN (too
 * many files to tell) for the file st describes. */
int ws_links_check(ws_links *l, const struct stat *st);
/* One check with a checker of its own (for tools that read one file). */
int ws_link_check(const char *root, const ignore *ig, const struct stat *st);
/* The result for a file refused by ws_link_check: says "clineignore_error" and fills out
 * with the error for the model. */
void ws_link_blocked_result(tool_env *env, const char *display, int why, tool_result *out);

/* ---- hew's control files ----------------------------------------------------------------
 * Files that change what hew itself does or runs: anything below a `.git`, `.hew` or
 * `.husky` folder (at any depth, inside or outside the workspace), `.clinerules` (file or folder)
 * and `.clineignore` at the workspace root, and anything below hew's own config, data and
 * state folders ($XDG_CONFIG_HOME/hew, $XDG_DATA_HOME/hew, $XDG_STATE_HOME/hew, or their
 * ~/.config, ~/.local/share, ~/.local/state defaults; and $HEW_DATA_DIR). Names compare
 * case-insensitively.
 * What it controls (static text) or NULL. given: the path as the model wrote it (checked
 * too, lexically: a symlink `.hew/mcp.json` → `conf/x.json` is caught by its name, a
 * symlink `docs` → `.git` by its target, and `conf/x.json` itself when `.hew` (or
 * `.git`, `.clinerules`, `.clineignore`) at the root, or an entry of the `.hew` or
 * `.clinerules` folder, is a symlink to it or above it). Edit tools set wp->control with
 * it after ws_resolve; file_edit_finish checks the resolved path again. */
const char *ws_control(const char *root, const char *given, const ws_path *wp);

/* The result and the user message for a blocked path: says "clineignore_error" with the
 * display path and fills out with the error for the model (is_error). */
void ws_blocked_result(tool_env *env, const char *display, tool_result *out);

/* The first steps of every file tool on the path the model gave: resolve it (ws_resolve),
 * load the .clineignore, refuse an ignored path (dir: the path may name a folder). On
 * WS_TARGET_OK the tool goes on with *wp and *ig; otherwise the result is in out already
 * (the error, "<verb> <path>: why", or the blocked message). Either way the caller
 * releases *wp and frees *ig. */
typedef enum ws_target_result { WS_TARGET_OK, WS_TARGET_FAILED, WS_TARGET_BLOCKED } ws_target_result;
ws_target_result ws_target(tool_env *env, const char *path, bool dir, const char *verb,
                           ws_path *wp, ignore **ig, tool_result *out);

/* A path problem (resolution failed, file missing, …) as an error result; counts a
 * mistake. */
void ws_error_result(tool_env *env, tool_result *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* New {"tool": tool, "path": path} object (path may be NULL) for "tool" messages; the
 * caller adds "content", "diff", "regex", "filePattern" with ws_data_put. */
json_t *ws_tool_data(const char *tool, const char *path);
/* Set key to a string (invalid UTF-8 replaced) when value is not NULL. */
void ws_data_put(json_t *data, const char *key, const char *value);

/* Ask approval of a tool of group "read", "edit" or "control" through env->approve, with the "tool"
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
