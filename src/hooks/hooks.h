/* hooks — commands the user configures to run at points of a task, compatible with Claude
 * Code's hooks (and Cline's .clinerules/hooks scripts mapped onto the same events). The
 * manual for users is docs/hooks.md; this header is the manual for the code.
 *
 * Two halves:
 *   - a hooks_set (config.c): the hooks of a session, parsed from Claude Code's JSON shape
 *     {"PreToolUse": [{"matcher": "execute_command|Bash", "hooks": [{"type": "command",
 *     "command": "...", "timeout": 60}]}], ...} and from Cline's hook scripts (an
 *     executable file named after its hook in a folder). Parsing is strict: an unknown
 *     event, a matcher that is not a regular expression, a hook without a command, a bad
 *     timeout is HEW_E_INVALID with the file and the JSON key named. The set is
 *     read-only once made, shared by every task of the session.
 *   - a run (run.c): the hooks of one event that match, each run through sys/proc
 *     ($SHELL -c COMMAND, or the Cline script itself) in the workspace, the event as JSON
 *     on stdin, stdout and stderr captured (capped), a timeout that kills the group; the
 *     outcomes combined into one hooks_outcome the caller (task/hook.c) acts on.
 *
 * Trust is not decided here: lib/ reads the project's hook files only when the user
 * trusts them (lib/trust.h) and hands their bytes to hooks_set_add_json. Nothing here
 * reads a project file by itself, prints, or exits. */
#ifndef HEW_HOOKS_HOOKS_H
#define HEW_HOOKS_HOOKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "sys/abort.h"

struct sandbox;

/* The events, by Claude Code's names. */
typedef enum hooks_event {
    HOOKS_PRE_TOOL_USE,
    HOOKS_POST_TOOL_USE,
    HOOKS_USER_PROMPT_SUBMIT,
    HOOKS_STOP,
    HOOKS_SESSION_START,
    HOOKS_PRE_COMPACT,
    HOOKS_NEVENTS
} hooks_event;

/* Limits (one place). */
#define HOOKS_TIMEOUT_DEFAULT_S 60
#define HOOKS_TIMEOUT_MAX_S 3600
#define HOOKS_OUTPUT_MAX ((size_t)64 << 10)    /* of a hook's stdout, and of its stderr */
#define HOOKS_CONTEXT_MAX ((size_t)10000)      /* context one event adds (Claude Code's) */
#define HOOKS_FILE_MAX ((size_t)1 << 20)       /* a hooks file, a Cline script */
#define HOOKS_MAX 256                           /* hooks of a set */

/* "PreToolUse" ...; NULL for a value out of range. */
const char *hooks_event_name(hooks_event e);

/* ---- the set (config.c) --------------------------------------------------------------- */

typedef struct hooks_set hooks_set;

/* An empty set; NULL when out of memory. free(NULL) is a no-op. */
hooks_set *hooks_set_new(void);
void hooks_set_free(hooks_set *s);

/* Add the hooks of a JSON text. text is the whole file when key is NULL (.hew/hooks.json:
 * {"hooks": {...}} or the events object itself), else the value of `key` in it
 * (.claude/settings.json: "hooks"; a missing key adds nothing). source names the file in
 * errors and events. HEW_E_INVALID: "<source>: hooks.PreToolUse[0].matcher: not a regular
 * expression (...)", and nothing of this text was added. */
hew_code hooks_set_add_json(hooks_set *s, const char *text, size_t len, const char *key,
                            const char *source, hew_err *err);
/* The same from a parsed value: the object of events (what "hooks" holds). */
hew_code hooks_set_add_value(hooks_set *s, const json_t *events, const char *source,
                             hew_err *err);

/* Cline's hooks. The file names Cline knows and the event each maps onto. */
typedef struct hooks_cline_name {
    const char *file;      /* "PreToolUse", "TaskStart", ... */
    hooks_event event;
    const char *source;    /* SessionStart: "startup" / "resume" only; else NULL */
} hooks_cline_name;
/* The table (its entries end with file NULL). */
const hooks_cline_name *hooks_cline_names(void);
/* Add one Cline script: `path` is run as it is (it must be executable; its shebang says
 * how), speaking Cline's JSON; `name` one of the table's files (HEW_E_INVALID otherwise).
 * shown: how the script is named in events (the file in the user's folder or the
 * workspace's). */
hew_code hooks_set_add_cline(hooks_set *s, const char *name, const char *path,
                             const char *shown, hew_err *err);
/* Every executable Cline script of a folder (missing folder: nothing). */
hew_code hooks_set_add_cline_dir(hooks_set *s, const char *dir, hew_err *err);

/* The hooks as `hew trust` shows them: [{"name", "event", "command", "timeout_s"}], in
 * order. A new reference (NULL: out of memory). */
json_t *hooks_set_describe(const hooks_set *s);

/* Hooks of event e in the set (0 for NULL). */
size_t hooks_set_count(const hooks_set *s, hooks_event e);

/* Does the matcher of hook i of event e take this tool? The matcher is a POSIX extended
 * regular expression matched against the WHOLE name ("Edit|Write" as ^(Edit|Write)$),
 * "" or "*" or none matches all; it is tried on hew's tool name and on the names Claude
 * Code gives the same tool (Bash for execute_command, Edit, Write, Read, Glob, Grep,
 * mcp__SERVER__TOOL for use_mcp_tool of SERVER's TOOL). Events without tools match all. */
bool hooks_matches(const hooks_set *s, hooks_event e, size_t i, const char *tool,
                   const char *mcp_server, const char *mcp_tool);
/* The Claude Code names of hew's tool (a static, NULL-terminated list; never NULL). */
const char *const *hooks_tool_aliases(const char *tool);

/* ---- a run (run.c) -------------------------------------------------------------------- */

/* What an event carries (strings borrowed for the call; NULL: absent). */
typedef struct hooks_input {
    hooks_event event;
    const char *session_id;      /* the task's id */
    const char *transcript_path; /* NULL: null */
    const char *cwd;             /* the workspace */
    const char *tool_name;       /* Pre/PostToolUse: hew's name */
    const char *mcp_server, *mcp_tool; /* use_mcp_tool's, for the matcher */
    const json_t *tool_input;    /* Pre/PostToolUse: the parameters, an object */
    const char *tool_response;   /* PostToolUse: what the model is told */
    bool tool_failed;            /* PostToolUse */
    long long tool_ms;           /* PostToolUse: how long it ran */
    const char *prompt;          /* UserPromptSubmit */
    bool stop_hook_active;       /* Stop: the model goes on because a Stop hook said so */
    const char *source;          /* SessionStart: "startup" | "resume" */
    const char *trigger;         /* PreCompact: "auto" | "manual" */
} hooks_input;

/* One hook that ran, for the caller to show and log (borrowed during the callback). */
typedef struct hooks_report {
    hooks_event event;
    const char *command;    /* as configured, or the Cline script */
    const char *source;     /* the file it came from */
    int exit_code;          /* -1 when it did not exit on its own */
    bool timed_out;
    long long duration_ms;
    const char *decision;   /* "allow", "deny", "ask", "block", "stop", "warn", "none" */
    const char *message;    /* the reason or warning (may be "") */
} hooks_report;

typedef void (*hooks_report_fn)(void *ud, const hooks_report *r);

typedef struct hooks_run_opts {
    const char *project_dir;          /* CLAUDE_PROJECT_DIR / HEW_PROJECT_DIR, and the cwd */
    const char *const *env_allow;     /* proc_env_for_command's allow list */
    hew_abort *abort;                 /* stops a running hook (may be NULL) */
    hooks_report_fn report;           /* may be NULL */
    void *ud;
    const struct sandbox *sandbox;    /* sys/sandbox.h: the hooks run confined in it; NULL:
                                         unconfined (the mode is danger-full-access) */
    const char *sandbox_error;        /* non-NULL: the sandbox the mode asks for could not
                                         be set up; no hook runs (each is a warning that
                                         says this), never unconfined */
} hooks_run_opts;

/* What the hooks of one event decided, combined in the order they ran. */
typedef enum hooks_permission {
    HOOKS_PERMISSION_NONE,  /* no hook said (hew's approval rules decide) */
    HOOKS_PERMISSION_ALLOW, /* skip the approval prompt hew would show (never hew's deny
                               rules, its control files or the sandbox) */
    HOOKS_PERMISSION_ASK    /* ask even where hew would not */
} hooks_permission;

typedef struct hooks_outcome {
    bool block;                 /* exit 2, "decision": "block", "permissionDecision":
                                   "deny", Cline's "cancel": true */
    bool stop;                  /* "continue": false: the task stops */
    hooks_permission permission;
    buf reason;                 /* why it blocked (stderr, "reason", ...) or stopReason */
    buf context;                /* additionalContext / plain stdout / contextModification,
                                   joined by blank lines (HOOKS_CONTEXT_MAX) */
    buf warnings;               /* other exits, timeouts, bad output: for the user */
    size_t ran;                 /* hooks that ran */
} hooks_outcome;

void hooks_outcome_init(hooks_outcome *o);
void hooks_outcome_release(hooks_outcome *o);

/* Run the matching hooks of in->event one after the other; the first that blocks or stops
 * ends the run (the rest do not run). Never fails: a hook that cannot start is a warning.
 * out is initialised here. */
void hooks_run(const hooks_set *s, const hooks_input *in, const hooks_run_opts *o,
               hooks_outcome *out);

/* The event's JSON for hook i (Claude Code's shape, or Cline's for a Cline script): a new
 * string (tests read it; hooks_run builds the same). */
char *hooks_input_json(const hooks_set *s, size_t i, const hooks_input *in);

#endif
