/* hew.h — the public API of libhew, the library behind the `hew` coding agent.
 * Everything an embedding program (an editor, a tool, the hew CLI itself) may use is
 * declared here (and the error codes in hew_code.h, which it includes); nothing else in
 * src/ is an interface. libhew.so and libhew.a export these hew_ names and no other.
 *
 * The contract every call follows:
 *   - A call that can fail returns a hew_code: HEW_OK (0) on success, else the code of
 *     the failure (hew_strerror / hew_code_name name it). What it makes comes back
 *     through out-parameters (hew_session **out, char **out, ...): a pointer
 *     out-parameter is set to NULL first and to the result on HEW_OK, so a caller may
 *     also test it. No call returns -1, an HTTP status or a count in place of a code: a
 *     distinction the caller needs (a server replaced rather than added, the HTTP status
 *     a provider answered) is an out-parameter too.
 *   - A call given an err buffer (char *err, size_t errlen; err may be NULL, errlen 0)
 *     writes into it, on failure, a NUL-terminated message a user can act on (what
 *     failed, and what to do); it is cut to errlen. On HEW_OK it is left alone.
 *   - Calls that cannot fail return their answer directly: void, a predicate's 1/0, a
 *     status, or a string owned by the object it describes ("valid until ...").
 *   - What hew allocates and hands out (every char ** out-parameter) is released with
 *     hew_free, never with the embedder's free(): the library may use another allocator.
 *     Objects have their own destructor (hew_session_free, hew_task_free).
 *   - Strings in are UTF-8, NUL-terminated, and borrowed for the call unless a call says
 *     it keeps them; options are copied by hew_session_new. */
#ifndef HEW_H
#define HEW_H

#include <stddef.h>

#include "hew_code.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version -------------------------------------------------------------------------
 *
 * The header's version is in these macros; the library's, at run time, from
 * hew_version() / hew_version_number(). An embedder linked against libhew.so checks that
 * the library it got is the one it was compiled for:
 *     if (hew_version_number() / 1000 != HEW_VERSION_NUMBER / 1000) refuse to run;
 * (the same major and minor: while the major is 0, a minor release may change the ABI,
 * and the soname, libhew.so.0, names only the major). */
#define HEW_VERSION_MAJOR 0
#define HEW_VERSION_MINOR 6
#define HEW_VERSION_PATCH 0
#define HEW_VERSION_STR2_(x) #x
#define HEW_VERSION_STR_(a, b, c)                                                          \
    HEW_VERSION_STR2_(a) "." HEW_VERSION_STR2_(b) "." HEW_VERSION_STR2_(c)
/* "MAJOR.MINOR.PATCH" */
#define HEW_VERSION HEW_VERSION_STR_(HEW_VERSION_MAJOR, HEW_VERSION_MINOR, HEW_VERSION_PATCH)
/* MAJOR * 1000000 + MINOR * 1000 + PATCH: 0.1.0 is 1000. */
#define HEW_VERSION_NUMBER                                                                 \
    (HEW_VERSION_MAJOR * 1000000 + HEW_VERSION_MINOR * 1000 + HEW_VERSION_PATCH)

/* The library's version as "MAJOR.MINOR.PATCH" (its HEW_VERSION); a static string. */
HEW_API const char *hew_version(void);
/* The library's HEW_VERSION_NUMBER. */
HEW_API int hew_version_number(void);

/* Release what hew allocated and handed out (the strings of char ** out-parameters).
 * NULL is a no-op. */
HEW_API void hew_free(void *p);

/* ---- Sessions and tasks --------------------------------------------------------------
 *
 * A session holds the settings (provider, model, workspace, approvals); a task is one
 * conversation with the model, run by the agent loop on its own thread. Everything the
 * task says or asks reaches the front end through on_event, called ON THE TASK'S THREAD,
 * one event at a time, in order; the callback must not block for long (copy what it
 * needs; answer asks from any thread with hew_task_respond, also from inside the
 * callback). Events follow docs/events.md (schema version HEW_EVENT_VERSION). */

#define HEW_EVENT_VERSION 2

typedef struct hew_session hew_session;
typedef struct hew_task hew_task;

/* What a message is, as an enum beside its type string (docs/events.md): a front end
 * switches on it instead of comparing strings. Say or ask is is_ask. A type this
 * version of hew.h does not list is HEW_EV_OTHER (read `type`). */
typedef enum hew_event_kind {
    HEW_EV_OTHER = 0,
    HEW_EV_TASK, HEW_EV_TEXT, HEW_EV_REASONING, HEW_EV_API_REQ_STARTED,
    HEW_EV_API_REQ_RETRIED, HEW_EV_API_REQ_FAILED, HEW_EV_ERROR_RETRY, HEW_EV_ERROR,
    HEW_EV_INFO, HEW_EV_NOTICE, HEW_EV_USER_FEEDBACK, HEW_EV_COMPLETION_RESULT,
    HEW_EV_FOLLOWUP, HEW_EV_PLAN_MODE_RESPOND, HEW_EV_MISTAKE_LIMIT_REACHED,
    HEW_EV_RESUME_TASK, HEW_EV_RESUME_COMPLETED_TASK, HEW_EV_DELETED_API_REQS,
    HEW_EV_CONDENSING, HEW_EV_CONDENSED, HEW_EV_NEW_TASK, HEW_EV_TOOL, HEW_EV_COMMAND,
    HEW_EV_COMMAND_OUTPUT, HEW_EV_USE_MCP_SERVER, HEW_EV_MCP_SERVER_REQUEST_STARTED,
    HEW_EV_MCP_SERVER_RESPONSE, HEW_EV_MCP_NOTIFICATION, HEW_EV_LOAD_MCP_DOCUMENTATION,
    HEW_EV_CHECKPOINT_CREATED, HEW_EV_CLINEIGNORE_ERROR, HEW_EV_DIFF_ERROR,
    HEW_EV_SANDBOX_DENIED, HEW_EV_COMMAND_UNSANDBOXED,
    HEW_EV_HOOK /* a user's hook ran (docs/hooks.md) */
} hew_event_kind;

/* The kind of a type string (HEW_EV_OTHER for NULL or one not listed): for events rebuilt
 * from stored JSON lines. */
HEW_API hew_event_kind hew_event_kind_of(const char *type);

/* One update of a message. A message grows by appends: every event of a message with
 * text says what changed since the previous event of the same index — its text is the
 * previous text cut to append_offset, then append_text (append_len bytes). So a front end
 * keeps its own copy of each message's text and applies the appends; a partial update of
 * a long text then costs what was appended. The first event of a message has offset 0.
 * `text` is the whole text now, borrowed (no copy is made for it). In the JSON line a
 * partial update carries only "append" ({"offset","text"}), a final or whole message
 * only "text" (docs/events.md, schema version 2). */
typedef struct hew_event {
    int version;           /* HEW_EVENT_VERSION */
    long index;            /* the message's index; a partial update repeats it */
    long long ts;          /* ms since the epoch, when the message was first added */
    int is_ask;            /* 1: the task waits for hew_task_respond (unless partial) */
    const char *type;      /* "text", "tool", "completion_result", ... */
    const char *text;      /* plain text (the whole text so far), or NULL */
    const char *data_json; /* structured payload as compact JSON, or NULL */
    int partial;           /* 1 while the message is still growing */
    hew_event_kind kind;   /* the type as an enum */
    size_t append_offset;  /* text = previous text[0..append_offset) + append_text */
    const char *append_text; /* the bytes after append_offset ("" when none; NULL when
                                the message has no text) */
    size_t append_len;
    struct hew_event_line *line_; /* hew's own, for hew_event_json (NULL in an event a
                                     front end made itself) */
} hew_event;

/* The whole event as one JSON line (no newline), with the task's id ("task"), as
 * docs/events.md describes it. Built on the first call for this event and kept until
 * the callback returns: a front end that never asks (it reads the fields) pays nothing
 * for it — not even for a final message of megabytes, whose line would be a second copy
 * of its text. Borrowed: valid during the callback. "{}" for an event made by hand
 * (line_ NULL) or when out of memory. (Before 0.2 this was the field `json`.) */
HEW_API const char *hew_event_json(const hew_event *ev);

/* All pointers in ev are valid only during the call. */
typedef void (*hew_event_fn)(void *ud, hew_task *task, const hew_event *ev);

/* ---- File access through the front end ----------------------------------------------
 *
 * An editor embedding hew (hew acp's client, say) may hold files the user is editing and
 * has not saved. With a hew_file_io in hew_options.file_io, the file tools read and
 * write a text file through it instead of the disk: read_file's text and the content an
 * edit (write_to_file, replace_in_file) starts from come from read, and the approved edit
 * goes to write. Everything else stays as it is: the path is resolved and checked on the
 * disk first — inside the workspace or approved outside, not .clineignored (nor a hard
 * link of such a file), no symlink swapped in, hew's control files asking for approval —
 * and only then is the hook called with the checked absolute path; a file that is not on
 * the disk is a new file (read_file: not found); images and binary files (by the disk's
 * bytes) are read from the disk; the folders of a new file are made on the disk before
 * write. Both are called on the task's thread and may block (until the editor answers);
 * they should return soon after hew_task_abort. A code other than HEW_OK is a failure of
 * the tool, its message (err) told to the model. Checkpoints and the rest of hew read the
 * disk. */

/* Hands read's bytes to hew: call it once or more (the text is the bytes in order). */
typedef void (*hew_file_put_fn)(void *sink, const char *bytes, size_t n);

typedef struct hew_file_io {
    /* The whole text of the file at path (absolute) through put(sink, ...). HEW_OK;
     * HEW_E_NOTFOUND (no such file), or another code, with why in err. */
    hew_code (*read)(void *ud, const char *path, hew_file_put_fn put, void *sink, char *err,
                     size_t errlen);
    /* Replace the text of the file at path (absolute; created when missing) with
     * text[0..len) (UTF-8, with the file's own line endings). HEW_OK, or a code with why
     * in err. */
    hew_code (*write)(void *ud, const char *path, const char *text, size_t len, char *err,
                      size_t errlen);
    void *ud;
} hew_file_io;

/* ---- Commands through the front end -------------------------------------------------
 *
 * An editor embedding hew (hew acp's client, say) may offer its own terminal, where the
 * user watches a command run. With a hew_cmd_runner in hew_options.cmd_runner,
 * execute_command runs a command through it ONLY when hew would run that command without
 * its sandbox (docs/sandbox.md: the user chose danger-full-access, or a person approved
 * this very command under "auto", or approved running it again without the sandbox): the
 * front end's terminal is outside hew's sandbox and environment scrubbing, so a command
 * hew would confine always runs in hew's own sandbox. Everything else stays as for a
 * command hew runs: the command rules, the approval, hooks, the timeout, the abort
 * (hew_task_abort: kill) and the output's head + tail caps. The front end's terminal has
 * its own environment, not the scrubbed one hew gives a command: hew redacts the secrets
 * it knows (the API key, MCP values, vendors' key shapes) from the output before the
 * model or an event sees it. A command in the front end's terminal cannot be left
 * running in the background (its output is shown as it comes; no "proceed while
 * running").
 *
 * hew calls start once; then output again and again (about every 100 ms, on the task's
 * thread) until it says the command ended; kill on the timeout or an abort; and release
 * once at the end, whatever happened, when start succeeded. All may block briefly (a
 * round trip to the editor) and should return soon after hew_task_abort. */

/* How a command in the front end's terminal stands (output fills it in). */
typedef struct hew_cmd_state {
    int done;        /* 1: it ended */
    int exit_code;   /* its exit code once done, or -1 when a signal ended it */
    char signal[16]; /* then the signal's name ("SIGTERM"), else "" */
    int truncated;   /* 1: the output handed over is only its end (the runner's limit) */
} hew_cmd_state;

typedef struct hew_cmd_runner {
    /* Start `shell -c command` (shell: the user's $SHELL, as hew would run it) in cwd
     * (the workspace, absolute). HEW_OK with *run (the runner's handle) and name: what
     * the front end calls this run (an editor's terminal id; NUL-terminated, "" for none),
     * passed in the command_output events' data as "terminal". Another code, with why in
     * err: the command was not run (the model is told). */
    hew_code (*start)(void *ud, const char *shell, const char *command, const char *cwd,
                      void **run, char *name, size_t namelen, char *err, size_t errlen);
    /* The command's whole output so far (stdout and stderr as the terminal shows them),
     * through put(sink, ...), and *state. Returns at once. HEW_E_ABORTED: the front end
     * gave up waiting (hew stops the command as on an abort); another code, with why in
     * err: hew stops the command and tells the model. */
    hew_code (*output)(void *ud, void *run, hew_file_put_fn put, void *sink,
                       hew_cmd_state *state, char *err, size_t errlen);
    /* Stop it (its whole process tree): the timeout or an abort. May be called on a
     * command that already ended. */
    void (*kill)(void *ud, void *run);
    /* Done with run: free what it holds (the editor's terminal). */
    void (*release)(void *ud, void *run);
    void *ud;
} hew_cmd_runner;

typedef struct hew_options {
    const char *provider;   /* "anthropic", "openai", "openai-compatible", "openrouter",
                               "deepseek", "gemini", "xai", "groq" */
    const char *model;      /* NULL: the profile's default */
    const char *model_info; /* the model described as JSON, for a model hew's table does
                               not know (or to correct it): {"context_window",
                               "max_output", "input_price", "output_price",
                               "cache_read_price", "cache_write_price" (USD per million
                               tokens), "images", "thinking", "native_tools",
                               "reasoning_effort", "next_gen"}, every key optional;
                               NULL: the table's entry or safe defaults */
    const char *api_key;    /* NULL: the profile's environment variable */
    const char *base_url;   /* NULL: the profile's URL */
    const char *cwd;        /* the workspace; NULL: the current directory */
    const char *mode;       /* "act" or "plan"; NULL (default): act for a new task, the
                               stored task's own mode for a resumed one */
    int yolo;               /* approve everything and never ask (default 0) */
    int auto_approve_read;          /* read-only tools inside the workspace (default 1) */
    int auto_approve_read_outside;  /* ... and outside it (needs the above too; default 0) */
    int auto_approve_edit;          /* file edits inside the workspace (default 0) */
    int auto_approve_edit_outside;  /* ... and outside it (needs the above too; default 0) */
    int auto_approve_safe_commands; /* commands hew judges read-only (or a command_allow
                                       rule allows), unless the model marks them
                                       requires_approval; one that reads outside the
                                       workspace needs auto_approve_read_outside too
                                       (default 0) */
    int auto_approve_all_commands;  /* every other command too, but never a denied one
                                       (needs the above too; default 0) */
    int auto_approve_mcp;           /* MCP tools and resources (default 0) */
    int parallel_tool_calls;        /* run every tool of a message (default 1) */
    int native_tools;       /* -1 from the model table (default), 0 XML, 1 native */
    int max_consecutive_mistakes;   /* default 3 */
    long retry_base_delay_ms;       /* automatic retries wait 1, 2, 4 times this (2000) */
    long request_timeout_ms;        /* overall deadline per request (default 600000) */
    long idle_timeout_ms;           /* no data from the provider (default 120000) */
    long thinking_budget;           /* tokens; 0 off (default). Sent only to models that
                                       can think (hew_options_thinking_supported):
                                       Anthropic budget_tokens (at least 1024), Gemini
                                       thinkingBudget, OpenRouter reasoning.max_tokens;
                                       OpenAI-style reasoning models get an effort
                                       instead (< 4096 low, < 16384 medium, else high) */
    const char *language;           /* the language the model answers in ("German"); NULL:
                                       the user's */
    int strict_plan;                /* PLAN MODE refuses file edits outright (default 0) */
    /* Where the model's instructions come from; each source can be turned off (all on by
     * default): ~/.config/hew/rules/, .clinerules, .cursorrules and .cursor/rules/,
     * .windsurfrules, AGENTS.md files, the .clineignore text. */
    int rules_global, rules_clinerules, rules_cursorrules, rules_windsurfrules, rules_agents,
        rules_clineignore;
    int persist;                    /* keep every task in hew's store (data_dir/hew.db) so
                                       it can be resumed and listed (default 1) */
    int checkpoints;                /* snapshot the workspace in a shadow git repository
                                       as the task goes (default 1) */
    int auto_condense;              /* near the context limit, have the model summarise
                                       the conversation and go on from the summary instead
                                       of dropping older messages: -1 (default) for the
                                       model families that do it well (Claude 4+, GPT-5,
                                       Gemini 2.5, Grok 4, ...), 1 for any model, 0 never */
    const char *data_dir;           /* hew's data (checkpoints, tasks, trust); NULL:
                                       $HEW_DATA_DIR when set (the `hew --data-dir`
                                       folder: the log goes there too), else
                                       $XDG_DATA_HOME/hew, else ~/.local/share/hew.
                                       persist = 0 and checkpoints = 0 write nothing
                                       there (`hew --ephemeral`) */
    int mcp;                        /* connect the MCP servers of the settings files when
                                       the session starts (default 1) */
    const char *mcp_settings;       /* the user's MCP settings file; NULL:
                                       $XDG_CONFIG_HOME/hew/mcp.json (the workspace's
                                       .hew/mcp.json is read too, either way, when the
                                       user trusts it: "Workspace trust" below) */
    int trust_workspace;            /* trust the workspace's project files for this
                                       session only, as they are when it starts, without
                                       storing anything (`--trust`; default 0: only what
                                       hew_trust_grant stored is trusted) */
    hew_event_fn on_event;
    void *event_ud;
    const char *const *env_allow;   /* environment variables that commands get although
                                       their names (or values) look secret: names or
                                       fnmatch globs ("MY_TOKEN", "CI_*"), NULL-terminated;
                                       NULL: none. Copied by hew_session_new. By default
                                       commands never see *_TOKEN, *_SECRET*, *_PASSWORD,
                                       *KEY (as a word), AWS_* secrets or hew's own key. */
    /* The user's command rules (NULL-terminated lists of patterns, copied into the
     * session; NULL: none): a command prefix ("git status") or a glob ("npm test*",
     * "rm -rf*"), matched against each simple command of a line and, for deny, the whole
     * line. A command allow matches runs like a read-only one under
     * auto_approve_safe_commands; one deny matches is refused, never run, whatever the
     * approvals (yolo too), and the model is told which rule refused it. Only the user
     * should allow: a front end must not take allow rules from a project's files. */
    const char *const *command_allow;
    const char *const *command_deny;
    /* The wire protocol: "anthropic", "openai-chat", "openai-responses" or "gemini";
     * NULL (default): the provider's own (an OpenAI-compatible server that speaks the
     * Responses API, say) — for provider "openai", the Responses API for the models OpenAI
     * serves only there (gpt-5-codex, gpt-5.1-codex…, codex-mini, o3-pro, o1-pro,
     * gpt-5-pro). hew_session_new refuses another word. */
    const char *protocol;
    /* Record and replay (docs/replay.md). record_dir: save every exchange with the
     * provider (request body, response bytes, status, headers, timing; never the key)
     * into this folder, which must not hold a recording yet (`--record DIR`); NULL: none.
     * clock_s: the wall clock, in seconds since the epoch, for what the model is told (the
     * environment details' time), called on the task's thread; NULL: the system clock
     * (hew_replay_apply sets the recorded values). task_id: the id of a new task instead of
     * one made from the clock (a replay's: the recorded one); NULL: made. machine_os,
     * machine_shell, machine_home: what the system prompt tells the model about the
     * machine ("Linux 6.1", "/bin/bash", "/home/me"); NULL: this machine's (uname, $SHELL,
     * $HOME). Only what the model is told changes: commands run in the real shell. */
    const char *record_dir;
    long long (*clock_s)(void *ud);
    void *clock_ud;
    const char *task_id;
    const char *machine_os, *machine_shell, *machine_home;
    /* Budgets of a task (0, the default: none), counted over the whole task, a resumed
     * task's earlier runs included: a request is not sent once max_requests requests were
     * sent, nor once the reported cost reached max_cost_usd (the cost of a request is only
     * known after it). The task then fails with an "error" event naming the budget and
     * the figures, its conversation stored and resumable (with a larger budget it goes
     * on); hew_task_outcome says HEW_EXIT_BUDGET. */
    double max_cost_usd;
    long max_requests;
    /* Nobody is there to approve (a headless or CI front end): every approval it answers
     * with no is recorded as denied for want of approval, with what would have allowed it
     * (hew_task_outcome's denied list; class HEW_EXIT_DENIED). Default 0. */
    int unattended;
    /* More sources of instructions, beside rules_agents (on by default): Claude Code's
     * CLAUDE.md files (with CLAUDE.local.md, .claude/CLAUDE.md, ~/.claude/CLAUDE.md and
     * their @path imports) and Gemini CLI's GEMINI.md files (and ~/.gemini/GEMINI.md). */
    int rules_claude, rules_gemini;
    /* Agent Skills (docs/skills.md): the SKILL.md folders of the workspace's .hew/skills,
     * .claude/skills and .agents/skills and the user's ~/.config/hew/skills and
     * ~/.claude/skills, offered by name and description, loaded by the model with the
     * use_skill tool when a task needs one. Default 1; 0: none offered. */
    int skills;
    /* The sandbox of the commands the model runs (issue #19; docs/sandbox.md). mode:
     * NULL or "auto" (default): a command the user approved by hand runs unconfined (the
     * user read it), every other one (auto-approved, yolo, unattended) under
     * "workspace-write"; "read-only", "workspace-write" or "danger-full-access": that
     * mode for every command, approved by hand or not. hew_session_new refuses another
     * word. The model's requires_approval never widens it. writable_roots: more
     * folders commands may write under workspace-write, absolute (the workspace and the
     * temp dir always are), NULL-terminated; NULL: none. network: 1 lets sandboxed
     * commands use the network (default 0: off). allow_hosts: the hosts a sandboxed
     * command may still reach with the network off, through hew's egress proxy
     * (NULL-terminated; NULL: none). hidden: more paths sandboxed commands can neither
     * read nor write (the --api-key-file's file; hew's data and config folders always
     * are), absolute, NULL-terminated. backend: NULL or "auto" (Landlock, else
     * bubblewrap), "landlock" or "bwrap". All copied by hew_session_new. A front end must
     * take none of them from a project's files: a repository must not widen its own
     * sandbox. */
    const char *sandbox_mode;
    const char *const *sandbox_writable_roots;
    int sandbox_network;
    const char *const *sandbox_allow_hosts;
    const char *const *sandbox_hidden;
    const char *sandbox_backend;
    /* The user's hooks (docs/hooks.md): the JSON text of Claude Code's "hooks" object
     * ({"PreToolUse": [{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}],
     * ...}), from the user's own settings only; NULL: none. hooks_source names where it
     * came from in errors ("~/.config/hew/config.json"; NULL: "hew_options.hooks").
     * hew_session_new refuses a malformed one (HEW_E_INVALID naming the file and the key).
     * The workspace's hooks (.hew/hooks.json, .claude/settings.json, .clinerules/hooks/)
     * are added only when the user trusts them ("Workspace trust"); Cline's user folders
     * (~/Documents/Cline/Hooks, ~/Documents/Cline/Rules/Hooks) always. */
    const char *hooks;
    const char *hooks_source;
    /* The file tools read and write text files through the front end ("File access
     * through the front end" above; copied by hew_session_new); NULL (default): the
     * disk. Both of read and write must be set. */
    const hew_file_io *file_io;
    /* Commands hew would run without the sandbox run through the front end ("Commands
     * through the front end" above; copied by hew_session_new); NULL (default): hew runs
     * them. All of start, output, kill and release must be set. */
    const hew_cmd_runner *cmd_runner;
} hew_options;

/* Fill o with the defaults above. */
HEW_API void hew_options_init(hew_options *o);

/* 1 when the model o names (NULL: the provider's default) can take a thinking budget
 * (extended thinking or reasoning, by hew's model table), else 0: a thinking_budget is
 * then not sent, and a front end should say so. */
HEW_API int hew_options_thinking_supported(const hew_options *o);

/* 1 when the model o names (NULL: the provider's default) reads images (hew's model
 * table, or o->model_info's "images"), else 0: hew_task_start_images refuses images for
 * it, and a front end should not offer to attach them. */
HEW_API int hew_options_images_supported(const hew_options *o);

/* 1 when hew knows the model o names (its table, or o->model_info), else 0: it then
 * assumes a small context window, no images, no thinking and no prices; a front end
 * should say how to describe the model (hew_options.model_info). */
HEW_API int hew_options_model_known(const hew_options *o);

/* The model a session on o would use, as a JSON object in *out (hew_free it): {"model"
 * (the name: o->model, or the provider's default resolved, "claude-sonnet-4-5-20250929"),
 * "provider_default" (true when o names none), "family" (the table's row it matched, ""
 * unknown), "known", "context_window", "max_output", "images", "thinking", "prices"
 * (whether hew can put a cost on its requests), "input_price", "output_price" (USD per
 * million tokens, only with prices)}. An unknown model shows what hew assumes about it.
 * o->model_info is applied. HEW_E_INVALID for an unknown provider or a bad model_info. */
HEW_API hew_code hew_model_json(const hew_options *o, char **out, char *err, size_t errlen);

/* The models hew's table lists for o->provider (every vendor's for openrouter and
 * openai-compatible), as a JSON array in *out (hew_free it) of objects as hew_model_json's
 * (their "model" the table's family name). Other names work too (dated, vendor-prefixed,
 * or unknown ones, with the assumptions hew_model_json shows). */
HEW_API hew_code hew_models_json(const hew_options *o, char **out, char *err, size_t errlen);

/* Check a model description (the JSON of hew_options.model_info): HEW_OK, or
 * HEW_E_INVALID with what is wrong in err (the key and what to write). */
HEW_API hew_code hew_model_info_check(const char *json, char *err, size_t errlen);

/* A new session in *out (strings in o are copied). HEW_E_INVALID for options that cannot
 * be used (unknown provider or protocol, no API key, a bad model_info, ...), with why in
 * err. */
HEW_API hew_code hew_session_new(const hew_options *o, hew_session **out, char *err, size_t errlen);
/* Free a session; every task of it must have been freed. NULL is a no-op. */
HEW_API void hew_session_free(hew_session *s);

/* Start a task with the user's text; the loop runs on a new thread; the task in *out.
 * A code with a message in err when it cannot start. */
HEW_API hew_code hew_task_start(hew_session *s, const char *text, hew_task **out, char *err,
                                size_t errlen);

/* The most images one task may start with. */
#define HEW_TASK_IMAGES_MAX 20

/* Start a task like hew_task_start, with images after the text in its first message:
 * paths (relative to the process's current directory, not confined to the workspace: the
 * user chose them) of PNG, JPEG, GIF or WebP files, at most HEW_TASK_IMAGES_MAX. Each is
 * checked and scaled down to what the providers take (a long side of at most 1568 px, 5 MB
 * of base64; PNG stays PNG, JPEG stays JPEG; man hew, IMAGES) before the task starts; the
 * task message's data lists them ({"images": ["shot.png, 1568x882 png, scaled from
 * 3136x1764"]}, docs/events.md). nimages 0 is hew_task_start. HEW_E_INVALID (err says
 * which file and why) for a file that is no image, is damaged or too large, and for a
 * model that does not read images (hew_session's model: its name is in err);
 * HEW_E_NOTFOUND for a file that does not exist. */
HEW_API hew_code hew_task_start_images(hew_session *s, const char *text,
                                       const char *const *images, size_t nimages,
                                       hew_task **out, char *err, size_t errlen);

/* An image the user attaches: a file, or its bytes in memory (raw, or in base64 as an
 * editor or a web client sends them). */
typedef struct hew_image {
    const char *path; /* a file (relative to the process's current directory); NULL: data */
    const char *data; /* without a path: the image's len bytes, or their base64 (the
                         standard alphabet with padding, no white space) when base64 is 1 */
    size_t len;
    int base64;
    const char *name; /* data's name in the captions (NULL: "image N", N from 1) */
} hew_image;

/* hew_task_start_images with images given as hew_image (files or bytes). The bytes are
 * copied: they need to live only for the call. */
HEW_API hew_code hew_task_start_with_images(hew_session *s, const char *text,
                                            const hew_image *images, size_t nimages,
                                            hew_task **out, char *err, size_t errlen);

/* Whether path is an image hew can attach (PNG, JPEG, GIF or WebP, known by its bytes),
 * and its size in pixels, from its header (the file is not decoded: a damaged one is
 * found by hew_task_start_images). HEW_OK; HEW_E_NOTFOUND (no such file, or a
 * directory); HEW_E_INVALID (not such an image: err says what it is); HEW_E_IO. Either
 * pointer may be NULL. For a front end that recognises image paths the user pastes. */
HEW_API hew_code hew_image_probe(const char *path, int *width, int *height, char *err,
                                 size_t errlen);

/* Resume a stored task (its id from hew_task_id or the history): the conversation so far
 * is replayed through on_event, then a resume_task (or resume_completed_task) ask asks
 * whether to go on — yes, or a message with new instructions. The task in *out; a code
 * with a message in err when it cannot start; a task that cannot be loaded fails (its
 * status) with the reason. */
HEW_API hew_code hew_task_resume(hew_session *s, const char *task_id, hew_task **out, char *err,
                                 size_t errlen);

/* The task's id in the store (stable across resumes; set when the task starts, changed
 * only in the rare case of two tasks started in the same millisecond, before the task's
 * first event). Valid until hew_task_free. */
HEW_API const char *hew_task_id(const hew_task *t);

/* HEW_ANSWER_YES_BY_RULE: yes, given by the front end on a rule the person set earlier
 * (an editor's "allow always" for this command line), not by a person to this very ask.
 * It approves like YES, but never counts as approved by hand: under the sandbox's "auto"
 * mode the command still runs confined (a person's YES runs it unconfined), since what a
 * remembered command line runs may have changed since (a script the model edited). */
typedef enum hew_answer {
    HEW_ANSWER_YES,
    HEW_ANSWER_NO,
    HEW_ANSWER_MESSAGE,
    HEW_ANSWER_YES_BY_RULE
} hew_answer;

/* Answer the pending ask: yes / no (with optional text: feedback), or a typed message.
 * HEW_OK, HEW_E_STATE when no ask is pending, HEW_E_INVALID for a NULL task or an
 * answer outside hew_answer. */
HEW_API hew_code hew_task_respond(hew_task *t, hew_answer answer, const char *text);

/* Whether the images would be taken by hew_task_start_with_images or
 * hew_task_respond_with_images in session s: each read or decoded, checked and prepared
 * as they do (the work is done and dropped), the count and the session's model checked.
 * The same codes and messages. For a front end that must refuse a bad image before it
 * starts something it cannot take back (resuming a stored task, which marks it resumed). */
HEW_API hew_code hew_images_check(hew_session *s, const hew_image *images, size_t nimages,
                                  char *err, size_t errlen);

/* hew_task_respond with images attached to the answer (at most HEW_TASK_IMAGES_MAX),
 * checked and scaled as hew_task_start_images does, before the answer is given. They go
 * to the model with the answer, as Cline sends them: after the answer in the result of the
 * question, the completion or the plan it answers (an answer of images alone is an
 * answer), after the tool's result for feedback on an approval, and in the message that
 * goes on with a resumed task. The user_feedback event that shows the answer lists them
 * in its data ({"images": [...]}, docs/events.md), and the stored task keeps them.
 * HEW_E_INVALID (err says which image and why) for an image that is none, is damaged or
 * too large, for a model that does not read images, and for images with
 * HEW_ANSWER_YES_BY_RULE; HEW_E_NOTFOUND for a missing file; HEW_E_STATE when no ask is
 * pending. nimages 0 is hew_task_respond. Nothing is answered when it fails: the ask
 * still waits. */
HEW_API hew_code hew_task_respond_with_images(hew_task *t, hew_answer answer, const char *text,
                                              const hew_image *images, size_t nimages,
                                              char *err, size_t errlen);

/* Switch between "act" and "plan" mode; takes effect from the next request. To leave a
 * pending plan_mode_respond for act mode, switch, then answer it (HEW_ANSWER_YES).
 * HEW_OK, or HEW_E_INVALID for a NULL task or another word. */
HEW_API hew_code hew_task_set_mode(hew_task *t, const char *mode);

/* Stop the task: the stream, a running command and a pending ask stop within 100 ms.
 * The history stays consistent and resumable. reason may be NULL. */
HEW_API void hew_task_abort(hew_task *t, const char *reason);

typedef enum hew_task_status {
    HEW_TASK_RUNNING,
    HEW_TASK_COMPLETED, /* attempt_completion accepted */
    HEW_TASK_FAILED,    /* an error the user could not or did not recover from */
    HEW_TASK_ABORTED
} hew_task_status;

/* Wait for the task's thread to end; returns its final status. */
HEW_API hew_task_status hew_task_wait(hew_task *t);
HEW_API hew_task_status hew_task_status_now(const hew_task *t);
/* The completion result, or the reason of a failure or abort; "" while running. Valid
 * until hew_task_free. */
HEW_API const char *hew_task_result(const hew_task *t);
/* Free a task (aborts and waits if still running). NULL is a no-op. */
HEW_API void hew_task_free(hew_task *t);

/* What a task's requests used and cost, added up: the one source of the totals that the
 * store (hew_history_json), the api_req_started events and `hew -p --json`'s end line
 * agree with. Tokens as the api_req_started events count them: tokens_in is the uncached
 * input; a request cancelled or cut off counts the usage the provider had sent (e.g.
 * Anthropic's message_start). requests: the API requests sent (api_req_started
 * messages; the automatic retries of one are not counted apart). */
typedef struct hew_totals {
    long long tokens_in, tokens_out, cache_reads, cache_writes;
    double cost; /* USD; requests of a model without prices add nothing */
    long long requests;
} hew_totals;

/* The task's totals (task: everything it used since it was first started, a resumed
 * task's earlier runs included; once the stored task is loaded, a moment after
 * hew_task_resume) and what this hew_task added (run: since hew_task_start or
 * hew_task_resume). They only grow. Either pointer may be NULL; any thread, any time
 * until hew_task_free; all zeros for t NULL. */
HEW_API void hew_task_totals(const hew_task *t, hew_totals *task, hew_totals *run);

/* How a task ended, as the exit status a headless front end gives (`hew -p`; the table
 * and its precedence are in docs/events.md, "Exit status"): */
typedef enum hew_exit_class {
    HEW_EXIT_COMPLETED = 0,   /* completed, nothing denied */
    HEW_EXIT_FAILED = 1,      /* the task failed (the model gave up, a request refused
                                 as malformed, the mistake limit, ...) */
    HEW_EXIT_CONFIG = 2,      /* a usage or configuration error (at run time: the provider
                                 does not know the model or the URL, a 404) */
    HEW_EXIT_REFUSED = 3,     /* credentials or account refused: 401, 403, billing, an
                                 exhausted quota (not a rate limit that retries outlast) */
    HEW_EXIT_UNAVAILABLE = 4, /* the provider stayed unavailable after the automatic
                                 retries: 5xx, overloaded, rate limited, network, timeouts */
    HEW_EXIT_TIMEOUT = 5,     /* the front end's own time limit stopped it (hew -p
                                 --timeout; the library reports such a stop as
                                 HEW_EXIT_INTERRUPTED: the front end knows why it aborted) */
    HEW_EXIT_BUDGET = 6,      /* max_cost_usd or max_requests ran out */
    HEW_EXIT_DENIED = 7,      /* it ended while actions were denied for want of approval
                                 (hew_options.unattended) */
    HEW_EXIT_INTERRUPTED = 130 /* stopped (hew_task_abort) */
} hew_exit_class;

/* The outcome of a task (of this hew_task's run: since hew_task_start or
 * hew_task_resume), beside its totals (hew_task_totals). */
typedef struct hew_outcome {
    hew_task_status status;
    hew_exit_class exit_code;  /* HEW_EXIT_COMPLETED while running */
    const char *reason;        /* the class as a word: "completed", "failed", "config",
                                  "refused", "unavailable", "budget", "denied",
                                  "interrupted"; "running" before the end (static) */
    const char *error_category; /* the provider error the task failed on
                                   (docs/events.md api_req_failed categories), or "" */
    long long tool_calls;      /* tool calls that reached their tool: run, or refused
                                  (asked and denied); not those rejected before (an
                                  unknown tool, a missing parameter, skipped after a
                                  denial) */
    long long retries;         /* requests sent again after a failure (automatic, or
                                  the answer yes to api_req_failed) */
    long long duration_ms;     /* from the start of this run to its end (or now) */
    long long denied;          /* actions denied for want of approval */
} hew_outcome;

/* The task's outcome into *out, and, when denied_json is not NULL, the denied actions as
 * a JSON array in *denied_json (hew_free): [{"type" (the ask: "tool", "command",
 * "use_mcp_server", "new_task", "condense"), "tool" (the tool's name), "path" | "command"
 * | "server" + "mcp_tool", "outside" (a path outside the workspace), "control" (one of
 * hew's control files), "allow" (the auto-approve words that would have allowed it:
 * "read-outside", "edit", "edit-outside", "commands", "all-commands", "mcp", or "yolo"
 * when nothing narrower does), "rule" (for a command: the allow rule that would let it
 * run with "commands", when one does)}]. Any thread, any time until hew_task_free.
 * HEW_E_INVALID for a NULL t or out, HEW_E_NOMEM. */
HEW_API hew_code hew_task_outcome(const hew_task *t, hew_outcome *out, char **denied_json);

/* The task this one handed over to, or NULL. When the model proposes a new task (its
 * new_task tool: a new_task ask whose text is the context it prepared) and the user
 * answers yes (with yolo: without asking), the task ends HEW_TASK_COMPLETED with a result
 * saying so, and this returns the new task's text: the context. The front end goes on
 * with hew_task_start(session, text) (the new task's first message is the context), or
 * ignores it to stop there. NULL for every other ending. Valid until hew_task_free. */
HEW_API const char *hew_task_successor(const hew_task *t);

/* ---- Replay ---------------------------------------------------------------------------
 *
 * `hew replay DIR`: run a recorded task again (hew_options.record_dir wrote DIR) offline,
 * through hew's real HTTP and decoding path: a server on 127.0.0.1 (an ephemeral port)
 * answers request k with the recorded response k — status, headers, bytes — after checking
 * that the body hew sent is the recorded body k (compared as JSON). The first request that
 * differs (or one beyond the recording) is answered with an HTTP 400 naming the request and
 * the first differing JSON path with both values, and every later one the same, so the task
 * stops there. Tools run for real in the workspace: a changed workspace changes the tool
 * results and so the next request. docs/replay.md describes the recording. */
typedef struct hew_replay hew_replay;

/* Read and check the recording in dir and start its server. HEW_E_NOTFOUND (no such
 * folder, not a recording), HEW_E_CORRUPT (a file missing or cut: which), HEW_E_INVALID
 * (another format version), with why in err. */
HEW_API hew_code hew_replay_open(const char *dir, hew_replay **out, char *err, size_t errlen);
/* Set o up to run the recorded task against the server: provider, model (and its
 * model_info when one was given), protocol, mode, tool format, the approval and prompt
 * options and the machine facts as recorded; base_url the server's;
 * api_key a dummy; clock_s, clock_ud and task_id the recorded ones; persist, checkpoints
 * and mcp off. Leaves cwd, on_event and event_ud alone. o borrows strings from r. */
HEW_API void hew_replay_apply(const hew_replay *r, hew_options *o);
/* The recorded task's text, and the time zone its clock was read in (TZ's form, "" when
 * the recording does not say); valid until hew_replay_free. */
HEW_API const char *hew_replay_task_text(const hew_replay *r);
/* The workspace this replay runs in (NULL: the current directory). When its real path is
 * not the recorded one, every occurrence of the recorded path in a recorded request body
 * is read as this one before the compare (the system prompt and the environment details
 * name it), so a task recorded in /home/me/proj replays in a copy at /tmp/ci/proj. What
 * the model itself wrote is not mapped: an absolute path in a recorded answer still names
 * the recorded folder. HEW_E_NOTFOUND when cwd cannot be read. */
HEW_API hew_code hew_replay_set_cwd(hew_replay *r, const char *cwd, char *err, size_t errlen);
/* Stream each answer at the recorded pace (the head after the recorded wait, each piece
 * of the body at its recorded offset) instead of at once (paced 0, the default). */
HEW_API void hew_replay_set_paced(hew_replay *r, int paced);
HEW_API const char *hew_replay_tz(const hew_replay *r);
/* Stop the server and judge the run (call after the task ended): HEW_OK when every
 * recorded request came and matched; HEW_E_STALE when one differed, came beyond the
 * recording, or the task ended before the recording did — err says which request and
 * where. *matched (may be NULL) gets the number of requests that matched. */
HEW_API hew_code hew_replay_finish(hew_replay *r, long *matched, char *err, size_t errlen);
HEW_API void hew_replay_free(hew_replay *r);

/* ---- Task history --------------------------------------------------------------------
 *
 * The tasks hew keeps (hew_options.persist) in its store, <data_dir>/hew.db: of o only
 * data_dir is used (and cwd by hew_history_latest); o may be NULL (the defaults). Each call
 * opens the store, does one thing and closes it; any number of hew processes may share
 * the store. Failures return a code with a message a user can act on in err.
 * A task is a JSON object: {"id", "title", "workspace", "created_ms", "updated_ms",
 * "status" ("running", "completed", "failed", "aborted", "imported"), "result" (or null),
 * "provider", "model", "mode", "tokens_in", "tokens_out", "cache_reads", "cache_writes",
 * "cost" (USD), "requests" (hew_totals), "messages" (API messages stored)}. Strings returned
 * in *out are new (hew_free). */

/* The tasks, newest first (last written first), as a JSON array. search NULL/"": all;
 * else a full-text search of the messages: first the tasks whose messages hold every word
 * of search (split at white space; the last word also matches as the start of a longer
 * one; case and Latin diacritics ignored; quotes, *, -, OR, NEAR( are plain text), best
 * match first, then the tasks whose title, workspace, result or id hold search as a
 * case-insensitive substring but no message does, newest first. (Only the first 256 KiB
 * of a message's text are searched.) When searching, each task also has "snippet": a
 * window of the best matching message's text with each matched word between U+0002 and
 * U+0003 (characters never in the text; "…" where text was left out), and "match_index":
 * that message's index (its event's "index"); both null for a task that matched only by
 * its row. workspace NULL: any, else only that directory's tasks; limit <= 0: no limit. */
HEW_API hew_code hew_history_json(const hew_options *o, const char *search, const char *workspace,
                                  int limit, char **out, char *err, size_t errlen);
/* One task as a JSON object; with_events non-zero adds "events": its messages as the
 * event objects of docs/events.md, by index (a missing index is null). HEW_E_NOTFOUND
 * when there is no such task. */
HEW_API hew_code hew_history_task_json(const hew_options *o, const char *id, int with_events,
                                       char **out, char *err, size_t errlen);
/* Delete a task and everything of it. HEW_E_NOTFOUND when there is no such task,
 * HEW_E_BUSY when it is running (another hew holds it). */
HEW_API hew_code hew_history_delete(const hew_options *o, const char *id, char *err, size_t errlen);
/* Write the task to dir (created if needed) in Cline's layout: api_conversation_history
 * .json, ui_messages.json, task_metadata.json. */
HEW_API hew_code hew_history_export(const hew_options *o, const char *id, const char *dir,
                                    char *err, size_t errlen);
/* Import a task directory of that layout (one hew exported, or one of Cline's); workspace
 * (may be NULL) overrides the recorded one. The new task's id goes to id_out (may be
 * NULL; 64 bytes are enough). */
HEW_API hew_code hew_history_import(const hew_options *o, const char *dir, const char *workspace,
                                    char *id_out, size_t id_len, char *err, size_t errlen);
/* The id of the newest task of workspace (NULL: o->cwd, else the current directory) in
 * *out, for "go on with the latest task"; HEW_E_NOTFOUND with the reason when there is
 * none. */
HEW_API hew_code hew_history_latest(const hew_options *o, const char *workspace, char **out,
                                    char *err, size_t errlen);

/* ---- Agent Skills --------------------------------------------------------------------
 *
 * The skills a task in workspace o->cwd (NULL: the current directory) would be offered
 * (docs/skills.md): {"enabled": o->skills != 0, "skills": [{"name", "description",
 * "path" (its SKILL.md), "scope" ("project" or "user")}], "notices": ["skill FILE left
 * out: why", …]} (none found when enabled is false). A new string in *out (hew_free). */
HEW_API hew_code hew_skills_json(const hew_options *o, char **out, char *err, size_t errlen);

/* ---- Checkpoints ---------------------------------------------------------------------
 *
 * The checkpoints of a stored task (hew_options.checkpoints): snapshots of its workspace
 * in a shadow git repository in data_dir, one per checkpoint_created message of the task
 * (the first request, each turn whose tools changed something, attempt_completion). Of o
 * only data_dir is used; o may be NULL. A checkpoint is named by CHECKPOINT: its number
 * "N" in the list (1 = the first), or a commit hash (7 or more hex digits) — a listed
 * checkpoint's, or a restore's safety checkpoint (files only). Diff and restore take the
 * task's lock: a task running in another hew is refused ("stop it first"); listing
 * only reads. The workspace's own git repository is never touched. Failures return a code
 * with a message a user can act on in err; strings returned in *out are new JSON
 * (hew_free). */

/* The task's checkpoints in order, as a JSON array of {"n" (the number), "index" (its
 * message's index among the task's events), "kind" ("initial", "turn", "completion",
 * ...), "hash" (the commit, null when it failed or never finished: then "error" may say
 * why), "ts" (ms since the epoch)}. [] when it has none. */
HEW_API hew_code hew_checkpoints_json(const hew_options *o, const char *task_id, char **out,
                                      char *err, size_t errlen);

/* The changes from checkpoint `from` to checkpoint `to`, or to the workspace now when to
 * is NULL or "": {"from", "from_n", "to" (null: now), "to_n", "patch" (a unified diff),
 * "truncated" (the patch was cut at 4 MiB), "files": [{"status" (A added, M modified,
 * D deleted, R renamed, T type changed, C copied), "path", ["old_path"]}]}. */
HEW_API hew_code hew_checkpoint_diff(const hew_options *o, const char *task_id, const char *from,
                                     const char *to, char **out, char *err, size_t errlen);

/* Restore task `task_id` to checkpoint `target`; mode "files", "task" or "both" (NULL:
 * files, the one that can be undone; both: files first, the conversation only when they
 * succeed).
 *   files: the workspace's files as they were at the checkpoint. The current state is
 *     saved first as a safety checkpoint: restoring to it (its hash, mode "files") undoes
 *     the restore. Only files the task's checkpoints track change; files the checkpoints
 *     never saved (the user's untracked or ignored files, nested .git folders) are kept.
 *   task: the stored conversation cut back to the checkpoint: its events after the
 *     checkpoint's message are removed, and the API history is cut to what it held then —
 *     request k (the k-th api_req_started event) sent the k-th user message of the
 *     history; an initial checkpoint keeps the history through the user message of the
 *     last request before it (its answer is dropped; a resumed task sends it again), any
 *     other checkpoint keeps it through that request's answer (up to the next user
 *     message, which carried the tool results). The task's totals are not changed.
 * Returns a report: {"mode", "n" (null for a hash not in the list), "target" (the hash),
 * "files": {"safety" (restore to it to undo), "restored", "written", "deleted", "kept"
 * (arrays of paths)}, "task": {"api_messages_before", "api_messages_after",
 * "ui_messages_removed", "requests_removed", "cost_removed" (USD of the removed
 * requests)}} with "files" / "task" present as the mode says. */
HEW_API hew_code hew_checkpoint_restore(const hew_options *o, const char *task_id,
                                        const char *target, const char *mode, char **out, char *err,
                                        size_t errlen);

/* ---- Checks (hew doctor) -------------------------------------------------------------
 *
 * Each looks at one thing hew needs and says what it found in detail (never a key). */

/* Ask the provider o names (o->provider, base_url, api_key, model as for a session; o may
 * be NULL: the defaults) whether it is there: one GET of its model list ({base}/v1/models
 * for Anthropic, {base}/models otherwise) with the key (none when no key is known), 3 s
 * to connect, 5 s in all. HEW_OK when it answered, with the HTTP status in *http_status
 * (may be NULL; any status means reachable; 401 or 403 with a key: the key was refused);
 * HEW_E_NET (or HEW_E_TIMEOUT) when it could not be reached; HEW_E_INVALID when o names
 * no usable provider (unknown, no base URL). detail says what was asked and what came
 * back, either way. */
HEW_API hew_code hew_probe_provider(const hew_options *o, long *http_status, char *detail,
                                    size_t n);

/* hew's data directory (o->data_dir, else $HEW_DATA_DIR, else $XDG_DATA_HOME/hew; o may
 * be NULL) can be written and its task store opens (created when missing) and passes
 * SQLite's quick_check. HEW_OK; HEW_E_IO when the directory cannot be made or written;
 * HEW_E_CORRUPT when the store does not open or is damaged. detail says what was found,
 * either way. */
HEW_API hew_code hew_check_store(const hew_options *o, char *detail, size_t n);

/* Run `program --version` (found in PATH, through hew's one way of starting children,
 * 3 s at most). HEW_OK with the first line of its output in version, or a code with why
 * it could not run or failed in version (HEW_E_NOTFOUND: not in PATH). */
HEW_API hew_code hew_program_version(const char *program, char *version, size_t n);

/* What the sandbox of commands is under o (its sandbox_* settings and cwd; o may be NULL:
 * the defaults), as a JSON object in *out (hew_free it): {"mode" (the setting: "auto",
 * "read-only", "workspace-write", "danger-full-access"), "applies" (the mode a command
 * the user did not approve by hand gets), "backend" (what confines it: "landlock",
 * "bwrap", or "none" when nothing does), "gaps" (what the backend cannot enforce, one
 * phrase a line; "" none), "error" (only when it cannot be set up: why, and what to do),
 * "landlock_abi" (0: none), "seccomp", "userns" (booleans), "bwrap" (the path of a
 * working bubblewrap, "" none), "network" (boolean)}. Prepares the sandbox once to know
 * (nothing runs). HEW_OK; HEW_E_INVALID for a sandbox setting hew_session_new would
 * refuse (err says which); HEW_E_NOMEM. */
HEW_API hew_code hew_sandbox_report(const hew_options *o, char **out, char *err, size_t errlen);

/* ---- MCP settings ----------------------------------------------------------------------
 *
 * The files that say which MCP servers hew connects to: the user's
 * $XDG_CONFIG_HOME/hew/mcp.json (~/.config/hew/mcp.json) and a workspace's .hew/mcp.json,
 * in the {"mcpServers": {"NAME": {...}}} shape of Cline's and Claude Desktop's files (man
 * hew, MCP SERVERS). Edits are atomic and keep everything else in the file as it was.
 * Failures return -1 / NULL with a message a user can act on in err (the file, the JSON
 * path, what to write instead). Strings returned in *out are new (hew_free). */

/* The settings file to edit, in *out: the workspace's .hew/mcp.json at the workspace root
 * of cwd (hew_workspace_root; cwd NULL: the current directory) when project is non-zero,
 * else the user's. An edited workspace file is untrusted until trusted again ("Workspace
 * trust"). HEW_E_NOTFOUND when there is none (no HOME nor XDG_CONFIG_HOME; no workspace
 * root). */
HEW_API hew_code hew_mcp_settings_path(const char *cwd, int project, char **out, char *err,
                                       size_t errlen);
/* Add server name to the file at path (created when missing), or replace the one of that
 * name where it stands. def_json is the server's JSON object ({"command": ..., "args":
 * [...]} or {"url": ...}), checked by the rules of the settings first and written as
 * given (${env:VAR} stays a reference). HEW_OK with *replaced (may be NULL) 0 when the
 * server is new, 1 when it replaced one; a code on an error (the file is unchanged). */
HEW_API hew_code hew_mcp_settings_put(const char *path, const char *name, const char *def_json,
                                      int *replaced, char *err, size_t errlen);
/* Remove server name from the file at path: HEW_OK done, HEW_E_NOTFOUND when it is not
 * there (err says so; the file is unchanged), another code on another error. */
HEW_API hew_code hew_mcp_settings_remove(const char *path, const char *name, char *err,
                                         size_t errlen);
/* The servers of a settings file (hew's, Cline's cline_mcp_settings.json, Claude
 * Desktop's claude_desktop_config.json), for importing them: a JSON array of {"name",
 * "server" (its object as written), "renamed_from" (only when the file's name is not one
 * hew allows, such as Cline's "github.com/owner/repo": the name hew uses instead)}, in
 * file order; [] when the file has none. Every server is checked by the rules first: one
 * that breaks them fails the whole read. A code with err when the file is missing
 * (HEW_E_NOTFOUND) or wrong. */
HEW_API hew_code hew_mcp_settings_servers(const char *path, char **out, char *err, size_t errlen);

/* ---- MCP servers of a session ---------------------------------------------------------
 *
 * A session connects every enabled server of its MCP settings (hew_options.mcp) in the
 * background as soon as it is created, each on its own, reconnecting a server that fails
 * or dies with backoff. A task's first request waits at most 10 s for servers still
 * connecting. Their tools reach the model (use_mcp_tool, or one native tool per MCP tool
 * named "<server>__<tool>"), with approval unless auto_approve_mcp or the server's
 * autoApprove list says otherwise; notices ("[server] connected: 12 tools", a server's log
 * messages) reach the running task as "mcp_notification" messages. */

/* Every server of the session as a JSON array in *out (hew_free it): [{"name", "status"
 * ("connecting", "connected", "disconnected", "disabled"), "error", "transport", "server"
 * (its name and version), "tools": [{"name", "description", "input_schema",
 * "auto_approve"}], "resources", "resource_templates", "prompts", "source"}]; plus, when
 * the settings could not be used, one {"settings_error": "..."} entry. The servers of the
 * workspace's untrusted .hew/mcp.json follow with "status": "untrusted" (never started)
 * and what they would run, as the servers of hew_trust_check describe them, plus
 * "source" and "error"; a file that does not parse gives one {"settings_untrusted": why}
 * entry. HEW_E_NOMEM when memory ran out, HEW_E_INVALID for a NULL session. */
HEW_API hew_code hew_mcp_status_json(hew_session *s, char **out);

/* Wait until no server is on its first connection attempt, at most timeout_ms: HEW_OK
 * when none is (or there are no servers), HEW_E_TIMEOUT when some still are. */
HEW_API hew_code hew_mcp_wait(hew_session *s, long timeout_ms);

/* Sessions of the same workspace and MCP settings share their servers: a front end that
 * replaces a session (to change the mode, yolo or the model) keeps the servers connected
 * when it creates the new session before freeing the old one.
 *
 * Read the MCP settings again: servers whose settings changed are restarted, new ones
 * started, removed ones stopped; the others keep their connection. HEW_OK, or a code with
 * why in err (the servers then stay as they were). */
HEW_API hew_code hew_mcp_reload(hew_session *s, char *err, size_t errlen);

/* Without a session (`hew mcp list`): read the MCP settings for o->cwd (o may be NULL:
 * the current directory and the default files), connect every enabled server (of the
 * workspace's file only when it is trusted, or o->trust_workspace), wait for them at most
 * timeout_ms, and return what hew_mcp_status_json would (plus a {"settings_warning":
 * "..."} entry when the settings had warnings), in *out; the servers are stopped before
 * it returns. A code with why in err when the settings cannot be used. */
HEW_API hew_code hew_mcp_probe(const hew_options *o, long timeout_ms, char **out, char *err,
                               size_t errlen);

/* ---- Workspace trust ------------------------------------------------------------------
 *
 * A workspace's project files that can start processes, reach the network with the
 * user's credentials or change approvals — today .hew/mcp.json (its servers are programs
 * hew starts and URLs it sends headers to) — are ignored until the user trusts them:
 * never parsed for servers, no ${env:…} in them expanded, nothing started. Trust is kept
 * in <data_dir>/trust.json (hew_options.data_dir's rule), keyed by the workspace root's
 * resolved path and the SHA-256 of each file's exact content: an edited file, or one
 * added later, is untrusted again. A session may instead trust the files for its run only
 * (hew_options.trust_workspace). Project files are read from the workspace root only
 * (hew_workspace_root), never from other ancestors.
 *
 * Of o only data_dir is used (o may be NULL: the default). dir NULL: the current
 * directory. Strings returned in *out are new (hew_free); failures return a code with a
 * message a user can act on in err. */

/* The workspace root of dir: the top level of the git repository containing it when that
 * repository's .git (and its folder) belong to the current user (git's safe.directory
 * rule), else dir itself — resolved, absolute, in *out. A code (HEW_E_NOTFOUND: dir
 * does not exist) when dir does not exist or is not a folder. */
HEW_API hew_code hew_workspace_root(const char *dir, char **out, char *err, size_t errlen);

/* What trust would cover in dir's workspace, and whether it is trusted, as JSON:
 *   {"root", "store" (the trust file), "state": "none" (no file that needs trust) |
 *    "trusted" (every one as it is now) | "untrusted" (at least one is not),
 *    "files": [{"path" (under the root, ".hew/mcp.json"), "file" (absolute), "what",
 *               "sha256", "state": "trusted" | "untrusted" | "changed" (trusted once,
 *               edited since), "servers": [{"name", "transport", "command" (the command
 *               line as written, quoted, control characters escaped: safe to print),
 *               "argv" (as written), "url" (as written), "url_shown" (safe to print),
 *               "headers" and "env" (their names only, safe to print; never values),
 *               "disabled"}], "error" (the file does not parse: why)}],
 *    "problem" (the trust file cannot be read: why; nothing is trusted meanwhile)}
 * Nothing is started and no ${env:…} is expanded to make it. */
HEW_API hew_code hew_trust_check(const hew_options *o, const char *dir, char **out, char *err,
                                 size_t errlen);

/* Trust exactly what report (a hew_trust_check answer, as text) showed: each file's
 * sha256 for its root. Refused with HEW_E_STALE when a file changed since the report was
 * made (look again), HEW_E_INVALID when the report is not one or names a file trust does
 * not cover. HEW_OK when stored (a report with no files stores nothing). */
HEW_API hew_code hew_trust_grant(const hew_options *o, const char *report_json, char *err,
                                 size_t errlen);

/* Forget the trust of dir's workspace: HEW_OK with *was_trusted (may be NULL) 1 when it
 * was trusted, 0 when it was not (nothing to forget); a code on an error. */
HEW_API hew_code hew_trust_revoke(const hew_options *o, const char *dir, int *was_trusted,
                                  char *err, size_t errlen);

/* The trusted workspaces as a JSON array of {"root", "trusted_ms", "files": [{"path",
 * "sha256"}]}, by root. */
HEW_API hew_code hew_trust_list(const hew_options *o, char **out, char *err, size_t errlen);

/* ---- Lookups for front ends ----------------------------------------------------------
 * What a terminal's completion needs to offer only what works: the model names hew's
 * table knows, and whether the workspace's .clineignore hides a path. */

/* The model ids of hew's table ("claude-sonnet-4-5", "gpt-5", ...: family names a
 * provider accepts as they are), in table order: up to cap of them into out (static
 * strings, never freed); returns how many there are (call with cap 0 to count). */
HEW_API size_t hew_model_names(const char **out, size_t cap);

/* Whether the .clineignore of workspace (NULL: the current directory) hides path, given
 * relative to it ("src/a.c"; a trailing '/' names a directory; "./" and repeated '/' are
 * allowed): *ignored 1 when the file or one of its parent directories is ignored (the
 * tools refuse it), else 0. A path outside the workspace (absolute, or with "..") is
 * never ignored, as in Cline. HEW_OK; HEW_E_INVALID for a NULL or empty path; a code
 * with why in err when the .clineignore cannot be read. */
HEW_API hew_code hew_path_ignored(const char *workspace, const char *path, int *ignored,
                                  char *err, size_t errlen);

/* 1 when a task's message starting with `/name` (name without the slash) runs one of the
 * prompt layer's commands — a built-in (/newtask, /smol, /compact, /newrule, /reportbug)
 * or a workflow file of workspace (NULL: the current directory; .clinerules/workflows/)
 * or of the global workflow folder — else 0 (the message would reach the model as it
 * is). A front end uses it to catch mistyped commands before they are sent. */
HEW_API int hew_slash_known(const char *workspace, const char *name);

/* ---- Batches ---------------------------------------------------------------------------
 *
 * Many tasks from a file of JSON lines (`hew batch`, docs/batch.md), each run as a child
 * process `PROGRAM -p --json --cwd CWD FLAGS…` with its prompt on the child's standard
 * input, up to `jobs` at once: a crash or hang of one never touches another, and a
 * process costs milliseconds. Each line is {"id", "prompt", "cwd"} plus optional options,
 * each mapped onto the `hew -p` flag of the same meaning (docs/batch.md lists them); a bad
 * line or a missing cwd fails that task, with its reason, never the batch. A child gets
 * the whole environment of the caller (it is hew: it needs the API key). */

typedef struct hew_batch hew_batch;

/* One task's end, as the result line `hew batch` prints. Valid during the callback. */
typedef struct hew_batch_result {
    const char *id;     /* the task's id ("line-N" when the line gave none) */
    long line;          /* its 1-based line number in the tasks text */
    const char *status; /* the child's task_end status ("completed", "failed", …), or
                           "invalid" (not a task), "timeout", "crashed", "interrupted",
                           "failed" (no task_end line) */
    int exit_code;      /* the child's exit status; invalid 2, timeout 5, crashed 128+sig */
    const char *json;   /* the whole result line: compact JSON, no newline
                           (docs/batch.md: id, status, exit_code, usage, cost_usd,
                           duration_ms, events, error, reason, denied, line,
                           requests, max_rss_kb) */
} hew_batch_result;

/* Where the batch stands. */
typedef struct hew_batch_progress {
    long total;     /* the tasks of this shard */
    long done;      /* ended (a result was given) */
    long running;   /* children running now */
    long completed; /* ended with exit code 0 */
    long failed;    /* ended otherwise */
    long long elapsed_ms;
    int stopped;    /* hew_batch_stop was called */
} hew_batch_progress;

typedef struct hew_batch_options {
    const char *tasks;  /* the JSON lines (copied by hew_batch_new) */
    size_t tasks_len;
    int jobs;           /* children at once; 0: the number of online CPUs (at most 1024) */
    int shard_index;    /* with shard_count > 0: only the lines whose 0-based index (every */
    int shard_count;    /* line counts, blank and bad ones too) is shard_index mod count */
    const char *events_dir; /* NULL: events not kept; else DIR/<id>.jsonl (the child's
                               --json stdout; the id made file-safe) and DIR/<id>.stderr
                               (made when the child writes there); DIR is created */
    long timeout_s;     /* each task's --timeout unless its line says; 0: none. A child
                           still running HEW_BATCH_TIMEOUT_GRACE_S later is killed */
    const char *program;           /* the hew to run; NULL: this executable */
    const char *const *child_args; /* NULL-terminated flags for every child, before the
                                      line's own (which win); NULL: none */
    /* Called one at a time (never two at once), on the runner's threads. */
    void (*on_result)(void *ud, const hew_batch_result *r);
    void (*on_progress)(void *ud, const hew_batch_progress *p); /* about once a second
                                                                   and at every change */
    void *ud;
} hew_batch_options;

#define HEW_BATCH_TIMEOUT_GRACE_S 5

/* Fill o with the defaults (everything 0 / NULL). */
HEW_API void hew_batch_options_init(hew_batch_options *o);
/* Read the tasks and check the options (the lines themselves are checked as they run):
 * the batch in *out; HEW_E_INVALID (a shard index not below the count, a negative
 * number) or HEW_E_NOTFOUND (program) with why in err. */
HEW_API hew_code hew_batch_new(const hew_batch_options *o, hew_batch **out, char *err,
                               size_t errlen);
/* Run every task of the shard (once: a second call is HEW_E_STATE); returns when all
 * have ended, or after hew_batch_stop when the running ones have. *summary (may be NULL)
 * gets the final counts. HEW_OK however the tasks ended; a code only when the runner
 * itself cannot work (the events folder cannot be made, no thread). */
HEW_API hew_code hew_batch_run(hew_batch *b, hew_batch_progress *summary, char *err,
                               size_t errlen);
/* Start no more tasks, and send the running children's process groups SIGTERM (SIGKILL
 * to those still there 2 s later); their results still come. Any thread; not from
 * a signal handler. */
HEW_API void hew_batch_stop(hew_batch *b);
/* Free a batch that is not running. NULL is a no-op. */
HEW_API void hew_batch_free(hew_batch *b);

/* ---- The log ---------------------------------------------------------------------------
 *
 * hew's diagnostic log (MCP servers' stderr, reconnects, checkpoints, warnings): one file,
 * $XDG_STATE_HOME/hew/hew.log (by default ~/.local/state/hew/hew.log; with HEW_DATA_DIR
 * set, $HEW_DATA_DIR/log/hew.log), created 0600 in a
 * 0700 folder, rotated at 5 MB (hew.log.1 … hew.log.3), every line redacted (API keys,
 * tokens, passwords). The level comes from HEW_LOG (error, warn, info — the default —,
 * debug). A library that does not call hew_log_enable writes no log. */

/* Turn the log on, in dir (NULL: the default folder above). Nothing is opened until the
 * first line is written, so a command that logs nothing costs nothing. HEW_OK, or
 * HEW_E_NOTFOUND with the reason in err (no HOME or XDG_STATE_HOME to find the folder). */
HEW_API hew_code hew_log_enable(const char *dir, char *err, size_t errlen);

/* The log file's path (where it is or will be) into path (n bytes, cut to fit): HEW_OK,
 * or HEW_E_STATE when the log is off. */
HEW_API hew_code hew_log_path(char *path, size_t n);

#ifdef __cplusplus
}
#endif

#endif
