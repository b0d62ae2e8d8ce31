/* tool — what a tool is, what it is given, and what it gives back. Each tool lives in its
 * own file under tools/ and exports one `const struct tool_def`; tools/registry.c lists
 * them in the one table (MCP tools join at run time through the same shape).
 *
 * A tool never talks to the user or the model directly: it receives a tool_env, the
 * task's services (ask, say, approval, the workspace root, the abort token), and fills a
 * tool_result with text for the model. Tools must never exit, print, or block without
 * the abort token (every wait goes through env->ask or checks abort). Errors meant for
 * the model are results (is_error), not return codes; a return code other than HEW_OK
 * means the task itself must stop (HEW_E_ABORTED) or a bug. */
#ifndef HEW_TOOLS_TOOL_H
#define HEW_TOOLS_TOOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "hew.h"
#include "sys/abort.h"
#include "base/buf.h"
#include "base/err.h"
#include "tools/mode.h"

typedef struct tool_param {
    const char *name;
    bool required;
    const char *description; /* what the model must put there (for the prompt) */
    const char *usage;       /* placeholder shown in the XML usage example */
    const char *alias;       /* another name some models give it, or NULL: a value under
                                it counts as this parameter's (never in the prompt) */
} tool_param;

/* One call of a tool as the parser assembled it. Values are borrowed, NUL-terminated. */
typedef struct tool_call {
    const char *name;
    const char *id;            /* the provider's tool_use id (native calls), or a local one */
    size_t nparams;
    const char *const *keys;   /* parameter names, in the order they appeared */
    const char *const *values;
    bool partial;              /* still streaming: the tool may only show progress */
    bool native;               /* came as a native tool call (not XML) */
    const char *invalid_args;  /* native call whose arguments were not valid JSON: why */
    const char *raw_args;      /* a complete native call's arguments as sent, or NULL */
} tool_call;

/* The value of a parameter, or NULL when absent. */
const char *tool_call_param(const tool_call *call, const char *name);

/* The value of parameter p in call, under its name or else its alias; NULL when absent. */
const char *tool_param_value(const tool_param *p, const tool_call *call);

/* What the user answered to an ask. */
typedef enum tool_answer_kind { TOOL_ANSWER_YES, TOOL_ANSWER_NO, TOOL_ANSWER_MESSAGE } tool_answer_kind;

typedef struct tool_answer {
    tool_answer_kind kind;
    char *text; /* typed feedback or answer, may be NULL; owned by the answer */
    json_t *images;   /* image blocks the person attached (api/message.h), or NULL; with
                         captions, their "NAME, WxH type" lines; both owned by the answer */
    json_t *captions;
    bool by_rule; /* a yes the front end gave by a rule the person set earlier (an editor's
                     "allow always"), not a person's yes to this very ask: never by_hand */
    bool by_hand; /* approve: a person answered yes to this very ask (not the settings,
                     not yolo, not an unattended front end): the sandbox's "auto" mode
                     then runs the command unconfined (sys/sbpolicy.h) */
} tool_answer;

void tool_answer_release(tool_answer *a);
/* The person typed a message or attached images (captions set). */
bool tool_answer_has_message(const tool_answer *a);
/* The user_feedback message's data for an answer with images ({"images": captions}, a
 * new reference), or NULL. */
json_t *tool_answer_data(const tool_answer *a);

typedef struct tool_result {
    buf text;       /* for the model */
    bool is_error;  /* the tool failed: the text says why */
    bool no_prefix; /* the text is complete as is (no "[tool] Result:" header) */
    json_t *images; /* image blocks (api_msg_image) for the model, or NULL: passed with the
                       text when the model reads images, else replaced by a note; the
                       executor releases them */
} tool_result;

/* The task's services, implemented by task/. All calls happen on the task thread. */
typedef struct tool_env tool_env;
struct tool_env {
    void *task;
    const char *cwd;
    hew_abort *abort;
    bool yolo; /* auto-approve everything; questions to the user are not possible */
    /* The user's command rules (tools/cmdpolicy.h), NULL-terminated; NULL: none. */
    const char *const *command_allow;
    const char *const *command_deny;
    struct mcp_hub *mcp; /* the session's MCP servers (mcp/hub.h), or NULL */
    const char *const *env_allow; /* variables commands get despite proc_env_is_secret
                                     (names or globs, NULL-terminated), or NULL */
    struct sbpolicy *sandbox; /* which sandbox commands get (sys/sbpolicy.h); NULL: none
                                 (commands run unconfined: tests' environments only) */
    struct egress *egress;    /* the proxy to the allowed hosts (net/egress.h), or NULL: a
                                 sandboxed command with the network off is pointed at it */
    const char *model;        /* the model in use, as the user named it ("" unknown) */
    bool model_images;        /* it reads images: a tool may return some (tool_result) */
    /* The task's mode now (the user may switch it while a tool waits); change it with
     * set_mode. */
    mode_kind (*mode_now)(tool_env *env);
    void (*set_mode)(tool_env *env, mode_kind mode);
    /* Tell the user something. partial: 1 = a preview that will grow (replaces a trailing
     * preview of the same type), 0 or 2 = complete (also completes such a preview, else
     * a new message). The same for ask. */
    void (*say)(tool_env *env, const char *type, const char *text, json_t *data, int partial);
    /* Ask and wait for the answer (HEW_E_ABORTED when the task is aborted meanwhile). A
     * partial ask (partial=1) only updates the screen and returns HEW_OK with no answer. */
    hew_code (*ask)(tool_env *env, const char *type, const char *text, json_t *data,
                    int partial, tool_answer *answer);
    /* Ask approval for a tool of an approval group unless the settings approve it:
     * "read", "edit" (outside_workspace: the path resolves outside the root), "safe_command"
     * (hew's command policy judged the command read-only and the model did not ask for
     * approval; outside_workspace: it reads outside the root), "command" (any other
     * command), "mcp" ("mcp_listed": an MCP tool its server's autoApprove list names:
     * always approved), "sandbox" (running a command without the sandbox: never approved
     * by the settings, not even yolo — a person must say yes; with nobody there
     * (unattended) it is said, refused without asking and recorded as denied). When
     * auto-approved the tool is said (type, data) and *approved is true. Otherwise the
     * user is asked (type, data): yes → approved; no or a typed message → not approved and
     * the task's "rejected" flag is set (later tools of the message are skipped). Typed
     * feedback comes back in *answer (may be NULL if not wanted; release it) and is shown
     * to the user; the tool puts it in its result (resp: "The user gave this feedback").
     * answer->by_hand says whether a person approved it (false when auto-approved).
     * Returns HEW_OK, or HEW_E_ABORTED. */
    hew_code (*approve)(tool_env *env, const char *group, bool outside_workspace,
                        const char *type, json_t *data, bool *approved, tool_answer *answer);
    /* A non-blocking ask the user may answer while the tool keeps working (Cline's
     * "Proceed While Running" on a command's output). partial=1 shows or updates it (the
     * first call opens it) and never waits; partial=2 finishes it on screen and closes it
     * (nothing waits for that final ask: it only ends the message); type NULL only
     * polls. Returns true, with *answer filled (release it), when the user answered
     * since it was opened; it is then closed: the tool ends it with partial=2 and
     * updates it no more. Front ends see it as an ask event with partial=1 and may answer
     * it with hew_task_respond while it is partial. May be NULL (no such front end). */
    bool (*ask_nowait)(tool_env *env, const char *type, const char *text, json_t *data,
                       int partial, tool_answer *answer);
    /* The task is finished with this result (attempt_completion accepted). */
    void (*complete)(tool_env *env, const char *result);
    /* Condense (the condense tool, accepted): drop the older messages from what the model
     * sees from now on — the task, the latest request and the answer holding the summary
     * stay. Returns how many messages the model no longer sees (0: nothing to drop). May be
     * NULL (then nothing is dropped). */
    size_t (*condense)(tool_env *env);
    /* Automatic condensing (summarize_task): the summary the task asked for was given.
     * From the next request on the model sees the first pair and then this tool's result
     * (the summarize request and its answer are dropped too). false, and nothing changes,
     * when no summary was asked for. May be NULL (never asked). */
    bool (*accept_summary)(tool_env *env);
    /* Whether tools of an approval group (see approve) run without asking, for a tool
     * that acts on its own (summarize_task reading the files it needs). May be NULL: no. */
    bool (*auto_approved)(tool_env *env, const char *group, bool outside_workspace);
    /* new_task accepted: the task ends, completed with result, and hands text over as
     * the next task's text (hew_task_successor). May be NULL (no new task can start). */
    void (*hand_over)(tool_env *env, const char *text, const char *result);
    /* The skill `name` (prompt/skills.h) for the model into out: its instructions and the
     * list of its files (path NULL), or that file of the skill. HEW_E_NOTFOUND (no such
     * skill: err lists those there are), HEW_E_ESCAPE, …: err says why, for the model.
     * May be NULL (the task has no skills). */
    hew_code (*use_skill)(tool_env *env, const char *name, const char *path, buf *out,
                          hew_err *err);
    /* Count a mistake of the model (missing parameter, failed edit, …) or reset. */
    void (*mistake)(tool_env *env, bool made);
    /* The front end's file access (hew_options.file_io: an editor's unsaved buffers), or
     * both NULL: the disk. Only for a text file whose path the tool has checked (resolved,
     * not ignored, no symlink, approved): abs is its canonical absolute path. file_read:
     * its whole text into *text (malloc'd, NUL-terminated; the caller frees it) and
     * *len, at most max bytes (else HEW_E_TOOBIG); file_write: replace it with
     * data[0..len). Errors (HEW_E_NOTFOUND: no such file) with a message for the model in
     * err. Both may block until the front end answers. */
    hew_code (*file_read)(tool_env *env, const char *abs, size_t max, char **text, size_t *len,
                          hew_err *err);
    hew_code (*file_write)(tool_env *env, const char *abs, const char *data, size_t len,
                           hew_err *err);
    /* The front end's command runner (hew_options.cmd_runner: an editor's terminal), or
     * NULL: hew runs commands. execute_command uses it only for a command that runs
     * without the sandbox. */
    const hew_cmd_runner *cmd_runner;
};

/* Say the person's answer a as a user_feedback message (its images' captions in its
 * data), when it has a message (tool_answer_has_message). */
void tool_say_feedback(tool_env *env, const tool_answer *a);

typedef hew_code (*tool_run_fn)(tool_env *env, const tool_call *call, tool_result *out);
/* Show a partial (still streaming) call to the user; optional. */
typedef void (*tool_partial_fn)(tool_env *env, const tool_call *call);
/* A short description of the call for result headers: "[read_file for 'src/a.c']". */
typedef void (*tool_describe_fn)(const tool_call *call, buf *out);

/* What a tool is, as flags of its tool_def. registry.c's table is the one place that
 * says what each tool is: the prompt, the executor, the presenter and the task test these
 * flags, never a tool's name. A tool with none of them is an ordinary act-mode tool that
 * may change the workspace. */
enum tool_flag {
    /* Changes nothing outside hew: may run before the initial checkpoint commit, and a
     * turn that used only such tools needs no checkpoint. Never with TOOL_EDITS_FILES. */
    TOOL_READ_ONLY = 1u << 0,
    /* Writes files of the workspace: refused in PLAN MODE under strict plan; the prompt's
     * EDITING FILES section is there when one is offered. */
    TOOL_EDITS_FILES = 1u << 1,
    /* Ends the turn with a question to the user (followup, completion, plan respond, new
     * task, condense): the request's cost is shown before the question. */
    TOOL_ASKS_USER = 1u << 2,
    /* Useless without someone to answer it: not offered when every action is approved
     * automatically (yolo). Implies TOOL_ASKS_USER. */
    TOOL_NEEDS_ANSWER = 1u << 3,
    /* Offered only in PLAN MODE; the prompt's ACT MODE AND PLAN MODE section is there
     * when the table holds one. */
    TOOL_PLAN_ONLY = 1u << 4,
    /* Offered only while the task asks for a summary (automatic condensing); its
     * `context` parameter is the summary the next requests start from. */
    TOOL_SUMMARY = 1u << 5,
    /* Works with MCP servers: offered only while one is connected. */
    TOOL_MCP = 1u << 6,
    /* Calls any MCP server's tool by name: with native tool calling each server tool is a
     * function of its own, so it is not listed there, but a call of it is still accepted.
     * Implies TOOL_MCP. */
    TOOL_MCP_GATEWAY = 1u << 7,
    /* Presents the task's result: a completed task that is resumed reopens the call. */
    TOOL_COMPLETES = 1u << 8,
    /* Its result, after the header line, is the content of the file its `path` names:
     * the context collapse may replace an older one by a note when a later view of the
     * file covers it (context.h). Implies TOOL_READ_ONLY. (A TOOL_EDITS_FILES result
     * holds the file's <final_file_content> the same way.) */
    TOOL_RESULT_IS_FILE = 1u << 9,
    /* Loads an Agent Skill: offered only when the task has skills (prompt/skills.h). */
    TOOL_SKILLS = 1u << 10,
};

typedef struct tool_def {
    const char *name;
    const char *description;       /* for the prompt and native schemas */
    const tool_param *params;
    size_t nparams;
    unsigned flags;                /* enum tool_flag, or-ed */
    tool_run_fn run;
    tool_partial_fn partial;       /* may be NULL */
    tool_describe_fn describe;     /* may be NULL: "[name]" or "[name for '<first param>']" */
} tool_def;

/* Whether def has every flag of flags (false for NULL: an unknown tool has none). */
static inline bool tool_is(const tool_def *def, unsigned flags)
{
    return def && (def->flags & flags) == flags;
}

/* Append "[name for 'value']" (or "[name]") for a call, using def->describe if set. */
void tool_describe(const tool_def *def, const tool_call *call, buf *out);

/* Result helpers: set the text (printf-style) and the error flag. */
void tool_result_printf(tool_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tool_result_error(tool_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
