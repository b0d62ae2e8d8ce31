/* task — one conversation with the model: the state the agent loop shares between its
 * threads (DESIGN.md, "Concurrency model"). The stream thread of a request decodes the
 * provider's answer and feeds the parser under `mu`, then signals `cv`; the task thread
 * runs task_loop / attempt_api_request / present_assistant_message and is the only one
 * that says or asks anything; the front end answers asks through hew_task_respond (any
 * thread, under `mu`). life.c alone makes and frees a task (task_new / task_free).
 *
 * Field groups say who may touch them:
 *   [const]   set before the task thread starts, read-only after;
 *   [mu]      any thread, holding mu;
 *   [task]    the task thread only (no lock needed).
 * Nothing here may block while holding mu. The state is split into parts, each a struct
 * owned by one file (below, "the parts"): only that file touches its fields.
 *
 * Calls between the files of task/ point down, never around (file → the files it calls;
 * a file calls only files below it in this list). scripts/check-task reads the graph from
 * the objects' symbol tables (nm) and fails on a cycle or on a part touched by another
 * file than its owner; ctest runs it (check/task).
 *   life      → loop (the thread); ask ckpt ctx mode prompt request stream text_clean
 *               totals uimsg (each part's init and release)
 *   loop      → resume attempt stream present executor envd responses ckpt mcp condense
 *               request persist task totals hook
 *   resume    → condense ctx mode persist responses task uimsg hook
 *   attempt   → stream envd ctx mcp request task totals
 *   stream    → present (a new answer) prompt mcp ctx
 *   present   → executor ckpt text_clean task uimsg
 *   executor  → prompt ckpt mcp condense ctx request ask mode responses task totals
 *               denied uimsg hook
 *   envd      → request mode
 *   prompt    → mcp condense mode task
 *   ckpt      → task uimsg
 *   mcp       → task
 *   condense  → ctx task hook
 *   hook      → task                 (the user's hooks, src/hooks/)
 *   ctx       → request persist task
 *   request   → task totals uimsg
 *   task      → ask evkind totals persist uimsg      (say, ask, emit, finish)
 *   totals    → persist exitclass
 *   persist   → mode uimsg;  ask, evkind, mode, uimsg, text_clean, responses, denied,
 *               exitclass: leaves
 * The executor settles the request (task_request_done, request.c) before a tool asks,
 * instead of calling back into the loop; the presenter waits at the checkpoint gate
 * through ckpt.c. */
#ifndef HEW_TASK_TASK_H
#define HEW_TASK_TASK_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "api/chunk.h"
#include "api/error.h"
#include "api/turn.h"
#include "sys/abort.h"
#include "base/buf.h"
#include "tools/mode.h"
#include "context/context.h"
#include "hew.h"
#include "hooks/hooks.h"
#include "parse/parser.h"
#include "prompt/rules.h"
#include "prompt/skills.h"
#include "task/settings.h"
#include "task/text_clean.h"
#include "task/uimsg.h"
#include "tools/tool.h"

/* ---- the parts of a task's state ------------------------------------------------------
 * Each part is a struct owned by one file: only that file touches its fields; every other
 * file calls that file's functions (declared below). Parts marked [mu] are changed under
 * the task's mutex (other threads reach them); the rest are [task]. */

/* The pending ask (ask.c) [mu]: the rendezvous between the task thread, which asks and
 * waits, and the front end, which answers through hew_task_respond (any thread). */
typedef struct task_ask_part {
    bool waiting;
    bool answered;
    tool_answer answer;
} task_ask_part;

/* The current request's bookkeeping (request.c) [task]: its api_req_started message and
 * the usage it reported. */
typedef struct task_request_part {
    long index;                        /* ui index of the current api_req_started, or -1 */
    bool finished;                     /* its usage and cost were recorded */
    api_usage usage;                   /* of the last request that reported one */
} task_request_part;

/* The context window (ctx.c) [task]. */
typedef struct task_ctx_part {
    context_range deleted;             /* the deleted range of the history */
    context_rewrites rewrites;         /* blocks replaced (repeated reads) */
    bool decided;                      /* this request's cut is decided already */
} task_ctx_part;

/* Automatic condensing (condense.c) [task]: NONE → ASKED (this request asks the model for
 * a summary) → ACCEPTED (summarize_task took it: the next request drops everything but the
 * first pair, the summarize request and its answer included) → NONE. */
typedef enum task_condense {
    TASK_CONDENSE_NONE,
    TASK_CONDENSE_ASKED,
    TASK_CONDENSE_ACCEPTED
} task_condense;

typedef struct task_condense_part {
    task_condense state;
    bool blocked;                      /* the model did not summarise: truncate until a
                                          request is under the threshold again */
    bool rearm;                        /* resumed mid-condense: ask for the summary again */
} task_condense_part;

/* A finished checkpoint commit, waiting to be put on its message (ckpt.c). */
typedef struct task_ckpt_result {
    long msg_index;
    bool ok;
    char hash[72]; /* CHECKPOINT_HASH_MAX (65) fits */
    char error[HEW_ERR_MSG_MAX];
} task_ckpt_result;

#define TASK_CKPT_RESULTS_MAX 16

struct checkpoint;
struct store;
struct store_lock;
struct mcp_snapshot;

/* Checkpoints (ckpt.c). */
typedef struct task_ckpt_part {
    struct checkpoint *repo;           /* [task] the workspace's checkpoints, or NULL */
    bool off;                          /* [task] checkpoints could not start (said once) */
    hew_abort *abort;                  /* [const] stops checkpoint git calls at task end */
    bool turn_changed;                 /* [task] a tool of this turn may have changed files */
    int in_flight;                     /* [mu] commits not yet done (the gate) */
    task_ckpt_result results[TASK_CKPT_RESULTS_MAX]; /* [mu] finished, not yet shown */
    size_t nresults;                   /* [mu] */
} task_ckpt_part;

/* The rule files and the skills as last read (prompt.c) [task]. */
typedef struct task_rules_part {
    rules_set set;
    bool loaded;
    long long loaded_ms;
    skills_set skills;       /* found with the rules, on the same schedule */
    buf skills_text;         /* skills_render of them: the prompt's SKILLS list */
} task_rules_part;

/* MCP (mcp.c). */
typedef struct task_mcp_part {
    struct mcp_snapshot *snap;         /* [task] what the servers offered at the last
                                          request (prompt, native tools, name mapping) */
    buf notices;                       /* [mu] notices not yet said, one per line */
    bool waited;                       /* [task] the wait for connecting servers is over
                                          (once per task, at most MCP_WAIT_MS) */
} task_mcp_part;

/* Persistence (persist.c): the task's store and what of the task is in it. */
typedef struct task_persist_part {
    struct store *store;               /* [task] the conversation's store, or NULL */
    struct store_lock *lock;           /* [task] this process owns the task */
    hew_err err;                       /* [task] why the store could not open (said once) */
    size_t api_stored;                 /* [task] history entries already in the store */
    buf line;                          /* [task] a message's whole JSON, when written */
    long pending;                      /* [task] a partial message not written yet, or -1 */
    long append;                       /* [task] the partial message the store holds a
                                          version of that it grows by appends, or -1 */
    size_t stored;                     /* [task] the length of its text in the store */
    size_t from;                       /* [task] its text changed from here since */
    long exact;                        /* [task] the final message whose text the store
                                          holds byte for byte (finished by an append), or
                                          -1: the one that may be let go */
} task_persist_part;

/* The presenter (present.c): where it is in the answer and the text block it shows. */
typedef struct task_present_part {
    size_t index;                      /* [task] the block being presented */
    uint64_t seq;                      /* [task] seq of the block when last shown */
    long long last_partial_ms;         /* [task] coalescing of partial text */
    buf scratch;                       /* [task] a text's cleaned start before it makes a
                                          message (then moved into it) */
    text_cleaner cleaner;              /* [task] the text block being shown */
    long msg;                          /* [task] the message it cleans into, or -1 */
    bool started;                      /* [task] */
} task_present_part;

/* Totals (totals.c): the task's usage, cost and request count. */
typedef struct task_totals_part {
    api_usage usage;                   /* [task] the task's token totals */
    double cost;                       /* [task] the task's cost in USD */
    int64_t requests;                  /* [task] the task's API requests */
    bool known;                        /* [task] usage, cost and requests hold the stored
                                          task's (a new task, or its row was read): only
                                          then are they written back */
    hew_totals run;                    /* [task] what this run added */
    hew_totals shown, shown_run;       /* [mu] copies for hew_task_totals */
    /* the outcome's facts (hew_task_outcome), this run's [mu] */
    long long tool_calls, retries;
    long long started_ms, ended_ms;    /* clock_now_ms at task_new and at the end (0: not
                                          ended) */
    json_t *denied;                    /* denied for want of approval (denied.h entries) */
    api_error_category failure;        /* the provider error the task may fail on */
    bool failure_retryable;
    bool budget;                       /* a budget stopped the task */
} task_totals_part;

/* The user's hooks (hook.c) [task]: a Stop hook made the model go on (stop_hook_active
 * of the next Stop), and how many times in a row. */
typedef struct task_hooks_part {
    bool stop_active;
    int stop_blocks;
} task_hooks_part;

/* One request's stream, between the stream thread and the task thread (stream.c starts,
 * feeds and resets it; the loop, the attempt and the presenter read it under mu). */
typedef struct task_stream {
    pthread_t thread;           /* [task] */
    bool running;               /* [task] the thread was started and not joined */
    hew_abort *abort;           /* [const per request] stops this request only */
    char *spill_dir;            /* [task] where a long answer's text waits on disk: the
                                   store's folder (persist.c), or NULL (no store) */
    /* [mu] */
    parser *parser;             /* the blocks of this answer */
    api_turn turn;              /* the same chunks, collected for the history */
    bool first_chunk;           /* a non-error chunk arrived */
    bool done;                  /* the stream thread finished */
    hew_code rc;                /* its result (HEW_OK: complete) */
    api_error error;            /* when rc != HEW_OK */
    hew_err parse_err;          /* the parser refused input (too big, out of memory) */
    uint64_t version;           /* grows with every chunk */
    uint64_t shape;             /* grows with every change the presenter must see at once
                                   (a block added or completed, the first chunk, the end):
                                   the changes stream.c signals */
} task_stream;

/* Made and freed by life.c (task_new / task_free), nowhere else. */
struct hew_task {
    hew_session *session;              /* [const] */
    const task_settings *settings;     /* [const] the session's */
    pthread_t thread;                  /* [const] (life.c) */
    bool thread_started;               /* (life.c) */
    char *task_text;                   /* [const] */
    json_t *task_images;               /* [const] image blocks (api/image.h) that follow the
                                          task text in the first message, or NULL
                                          (task_attach_images, before task_start) */
    json_t *task_captions;             /* [const] one line per image ("shot.png, 800x600
                                          png"), for the task message's data, or NULL */

    pthread_mutex_t mu;
    pthread_cond_t cv;                 /* on the monotonic clock (clock_cond_init) */
    hew_abort *abort;                  /* the user's abort */

    /* [mu] the task's outcome (task_finish; read through life.c) */
    hew_task_status status;
    char *result;                      /* completion result or failure reason */
    char *successor;                   /* new_task accepted: the next task's text */
    mode_kind mode;                    /* [mu] (mode.c) */
    task_stream stream;

    /* the parts */
    task_ask_part ask;                 /* ask.c */
    task_request_part request;         /* request.c */
    task_ctx_part ctx;                 /* ctx.c */
    task_condense_part condense;       /* condense.c */
    task_ckpt_part ckpt;               /* ckpt.c */
    task_rules_part rules;             /* prompt.c */
    task_mcp_part mcp;                 /* mcp.c */
    task_totals_part totals;           /* totals.c */
    task_present_part present;         /* present.c */
    task_persist_part persist;         /* persist.c */
    task_hooks_part hooks;             /* hook.c */

    /* [task] the turn (loop.c, present.c, executor.c) */
    uimsg_list ui;
    json_t *history;                   /* the API conversation (api/message.h) */
    json_t *user_content;              /* the next user message's blocks */
    bool did_reject_tool;
    bool did_already_use_tool;
    bool did_complete;                 /* attempt_completion accepted */
    bool did_auto_truncate;            /* context-window retry done for this request */
    int consecutive_mistakes;
    int auto_retry_attempts;
    char *loop_signature;              /* loop detection: the last call's signature */
    int loop_count;
    tool_env env;                      /* what tools get */
    char task_id[32];                  /* [const] */
    char *resume_id;                   /* [const] the stored task to resume, or NULL */
    const char *tool_running;          /* [task] the tool executor_run runs, or NULL */
    hooks_permission hook_permission;  /* [task] what the PreToolUse hooks said of the tool
                                          executor_run runs (executor.c) */
    json_t *answer_images;             /* [task] image blocks the person attached to the
                                          answers the running tool got: after its result
                                          (executor.c), or NULL */
    char *completed_result;            /* resumed a completed task: its stored result (it
                                          stays completed unless this run completes it) */
    char *kept_status, *kept_result;   /* [mu] resumed: the stored status and result, kept in
                                          the store until the user goes on with the task (a
                                          resume answered no, stopped or refused at its ask
                                          leaves the row as it was); NULL after */
    buf event_line;                    /* task_emit: the event's JSON line */
};

/* ---- life (life.c): the one place a task is made, started, joined and freed ----------- */

/* A new task of session s, not started: the task text (resume_id NULL) or the stored task
 * to resume (text ""). NULL (err says why) when memory runs out. */
hew_task *task_new(hew_session *s, const char *text, const char *resume_id, hew_err *err);
/* Images for the first user message (an array of image blocks) and their captions (an
 * array of strings, shown as the task message's data {"images": [...]}); both stolen,
 * either may be NULL. Only before task_start, on a new (not resumed) task. */
void task_attach_images(hew_task *t, json_t *images, json_t *captions);
/* Run task_main on the task's own thread. HEW_E_INTERNAL when it cannot start. */
hew_code task_start(hew_task *t, hew_err *err);
/* Stop the task (any thread): its waits wake, its request stops. */
void task_abort(hew_task *t, const char *reason);
/* Wait for the task's thread to end (no-op when it never started or was joined). */
void task_join(hew_task *t);
/* Abort and join a running task, then free everything it holds. NULL is a no-op. */
void task_free(hew_task *t);
/* The outcome (any thread): the status now; the result (valid until task_free; "" when
 * none); the successor's text (new_task) or NULL. */
hew_task_status task_status(hew_task *t);
const char *task_result(const hew_task *t);
const char *task_successor(hew_task *t);

/* ---- mode (mode.c) [mu] ------------------------------------------------------------------ */
mode_kind task_mode_get(hew_task *t);
void task_mode_set(hew_task *t, mode_kind m);

/* ---- ask (ask.c): the ask rendezvous ------------------------------------------------------
 * open: a new ask is pending (before the front end hears of it, so that an answer given
 * from inside the event callback is not lost); wait: until it is answered
 * (HEW_OK, *answer taken) or the task is aborted (HEW_E_ABORTED), then closed; poll: the
 * non-blocking side (tool_env.ask_nowait): take an answer when there is one (true), else
 * open a pending ask when open is set and none is, close it when close is set; respond:
 * the front end's answer (any thread), HEW_E_STATE when no ask is pending or it was
 * answered already (text is copied); by_rule: a yes the front end gave by a rule, not a
 * person's (tool_answer.by_rule); images and captions (NULL: none) are taken, also when
 * it fails. pending: an ask waits for its answer. release: at task_free. */
void task_ask_open(hew_task *t);
hew_code task_ask_wait(hew_task *t, tool_answer *answer);
bool task_ask_poll(hew_task *t, bool open, bool close, tool_answer *answer);
hew_code task_ask_respond(hew_task *t, tool_answer_kind kind, const char *text, bool by_rule,
                          json_t *images, json_t *captions);
bool task_ask_pending(hew_task *t);
void task_ask_release(hew_task *t);

/* ---- the request (request.c): its api_req_started message and usage ---------------------
 * init: no request yet (task_new); begin: say api_req_started for the request text; failed: put a failure before the first
 * chunk (and the retry status, may be NULL) on it; streaming: it streams after `failures`
 * failed attempts (the failure goes, "retries" stays); finish: its usage and cost (once);
 * done: wait for the stream to end, then finish (before a tool asks the user something,
 * so the front end shows the request's cost first); usage: the last reported usage. */
void task_request_init(hew_task *t);
void task_request_begin(hew_task *t, const char *request);
void task_request_failed(hew_task *t, const api_error *e, json_t *retry_status,
                         bool with_failure_message);
void task_request_streaming(hew_task *t, int failures);
void task_request_finish(hew_task *t, const char *cancel_reason, const char *failure);
void task_request_done(hew_task *t);
/* As task_request_done, waiting at most wait_ms for the stream to end: an answer that
 * goes on after a tool (the provider still sending) is not waited for. */
void task_request_settle(hew_task *t, long wait_ms);
const api_usage *task_request_usage(const hew_task *t);

/* ---- the loop (loop.c, attempt.c, present.c, executor.c) ------------------------------ */

/* Automatic retries of a failed request or turn before the user is asked. */
#define TASK_MAX_AUTO_RETRIES 3

/* Tools are skipped for the rest of this answer: one was rejected, or (parallel tool calls
 * off) one already ran. */
bool task_tools_blocked(const hew_task *t);

/* The thread body: the whole task. */
void *task_main(void *arg);

/* Open the request's stream and wait for its first chunk, retrying (or asking) on
 * failures before it. HEW_OK: the stream is running (t->stream). HEW_E_ABORTED: the task
 * was aborted. Anything else: the user gave up (the task ends). */
hew_code attempt_api_request(hew_task *t);

/* Whether a failed request may be retried without asking, by its class — the same rule
 * before and after the first chunk: the error says a retry can help (api/error.h), and it
 * is not auth, billing or the context window (those are never retried unasked). The
 * caller still counts the attempts against TASK_MAX_AUTO_RETRIES. */
bool task_error_auto_retry(const api_error *e);

/* The pause before automatic retry number attempt (1-based): the base delay doubled per
 * attempt, or the server's retry-after when that is longer (at most 120 s). Seconds. */
double task_retry_delay_s(const hew_task *t, const api_error *e, int attempt);

/* Present as many blocks as are ready (seed 000). HEW_E_ABORTED when aborted. */
hew_code present_assistant_message(hew_task *t);
/* A new answer: the presenter starts at its first block (present.c). init/release: at
 * task_new/task_free; past: every one of the answer's n blocks was presented. */
void task_present_reset(hew_task *t);
void task_present_init(hew_task *t);
void task_present_release(hew_task *t);
bool task_present_past(const hew_task *t, size_t n);

/* Checkpoints (ckpt.c): init/release (task_new/task_free; false: out of memory); the
 * initial one (first request, asynchronous, gates tools that may change files); the gate
 * (seed 000: wait, without holding mu afterwards, while commits are in progress;
 * HEW_E_ABORTED when aborted); a tool changed files; the turn's end (a completion or a
 * changing turn commits); results onto their messages; stop (git calls end at once: the
 * task was aborted); and the end (waits for commits in flight). */
bool task_ckpt_init(hew_task *t);
void task_ckpt_release(hew_task *t);
void task_ckpt_initial(hew_task *t);
hew_code task_ckpt_wait(hew_task *t);
void task_ckpt_changed(hew_task *t);
void task_ckpt_turn_end(hew_task *t, bool completed);
void task_ckpt_flush(hew_task *t);
void task_ckpt_stop(hew_task *t);
void task_ckpt_close(hew_task *t);

/* Persistence (persist.c): open (create the task row, or take a stored one), every UI
 * event, new history entries, the task row, close. row: the fields named (store.h
 * STORE_SET_*): status and mode it reads itself, usage and the deleted range come from
 * the part that owns them in `given` (NULL when neither is named). stored_row: the stored
 * task's row (resume), false when there is none. A store that fails turns persistence
 * off and leaves a note: take_note hands it over once (false: none), for the caller to
 * say. */
struct store_task;
hew_code task_persist_open(hew_task *t, const char *resume_id);
bool task_persist_take_note(hew_task *t, char *out, size_t cap);
/* Message index was made or changed: store it. from: its text changed from this offset on
 * since its previous event (uimsg_take_append's offset; 0 for a new message). A partial
 * message is written at most once per store interval, by what was appended once the store
 * has it; task_persist_flush writes the latest version of one not written yet (done
 * before any other write, and at close). A final message that grew by appends is
 * finished by one more (store_ui_finish): its whole form is never built. */
void task_persist_ui(hew_task *t, long index, size_t from);
void task_persist_flush(hew_task *t);
/* Let go of message index's text when it is final, long (256 KiB or more) and the store
 * holds it byte for byte (uimsg_text_spill): after its event, so that a finished answer
 * of megabytes is not kept beside the history's copy. restore: a spilled text read back
 * from the store before the message is said or stored whole again; false (logged) when
 * the store could not give it back — the message is then not rewritten. */
void task_persist_let_go(hew_task *t, long index);
bool task_persist_restore(hew_task *t, long index);
void task_persist_api(hew_task *t);
void task_persist_row(hew_task *t, const struct store_task *given, unsigned fields);
bool task_persist_stored_row(hew_task *t, struct store_task *row);
void task_persist_close(hew_task *t);
/* init/release: at task_new/task_free. For the other parts: rewrite, a context rewrite
 * stored; api_last, the history's last message (n: the history's length) stored again when
 * the store has it already; off: true when there is no store, with why appended to `why`
 * (said by the caller: no note follows); load: the stored task (resume), its history then
 * counted as stored; ui_truncate / api_truncate: the stored messages cut to len. */
struct store_loaded;
void task_persist_init(hew_task *t);
void task_persist_release(hew_task *t);
void task_persist_rewrite(hew_task *t, size_t msg, size_t block, const char *text);
void task_persist_api_last(hew_task *t, size_t n, const json_t *last);
bool task_persist_off(hew_task *t, buf *why);
hew_code task_persist_load(hew_task *t, struct store_loaded *l, hew_err *err);
void task_persist_ui_truncate(hew_task *t, size_t len);
void task_persist_api_truncate(hew_task *t, size_t len);

/* Resume (resume.c): rebuild the loop state of a stored task and ask the user how to go
 * on; fills t->user_content with the resumption message. HEW_OK to run the loop. */
hew_code task_resume_prepare(hew_task *t);

/* Totals (totals.c): the one place the task's usage, cost and request count grow.
 * init: zero (task_new); begin: a new task's totals are its own, a resumed task's start
 * from its stored row (right after task_persist_open); request: a request is
 * being sent; add: a request's usage (its cost by the model's prices, or the one the
 * provider reported), returns that cost in USD or -1 when unknown; get: the copies the
 * front end reads (any thread). Each change is persisted and published at once. */
void task_totals_init(hew_task *t);
void task_totals_begin(hew_task *t);
void task_totals_request(hew_task *t);
double task_totals_add(hew_task *t, const api_usage *u);
void task_totals_get(hew_task *t, hew_totals *task, hew_totals *run);
/* Write the task row's usage (when the totals are known) together with the fields also
 * names (task_persist_row). */
void task_totals_store(hew_task *t, unsigned also);
/* The outcome's facts (hew_task_outcome; exitclass.h decides the class from them):
 * tool_call: a tool call reached its tool; retry: a request is sent again after a
 * failure; failure: the provider error the task asks about or fails on (NULL: none any
 * more: a request streamed); denied: an action refused for want of approval (steals
 * entry, a denied.h object); end: the task ended (its duration stops); budget: whether a
 * budget (max_requests, max_cost_usd) forbids the next request — then true, with what
 * ran out said in why (for the user) and *data ({budget, limit, spent}, new), and the
 * fact recorded; outcome: the public outcome; release: at task_free. */
void task_totals_tool_call(hew_task *t);
void task_totals_retry(hew_task *t);
void task_totals_failure(hew_task *t, const api_error *e);
void task_totals_denied(hew_task *t, json_t *entry);
void task_totals_end(hew_task *t);
bool task_totals_budget(hew_task *t, char *why, size_t n, json_t **data);
hew_code task_totals_outcome(hew_task *t, hew_outcome *out, char **denied_json);
void task_totals_release(hew_task *t);

/* The environment details (envd.c): the <environment_details> block of a turn (time,
 * the workspace listing on the first turn, commands in the background, context window
 * usage, the mode) appended to out; refresh_mode: the mode changed while the request
 * waited to be sent again (a retry): its user message's details say the mode the user
 * chose now (history and store). */
void task_envd_build(hew_task *t, bool first_turn, buf *out);
void task_envd_refresh_mode(hew_task *t);

/* Run one complete tool block through approval, execution and result formatting. */
hew_code executor_run(hew_task *t, const tool_call *call);
/* Show a partial tool block (UI only). */
void executor_partial(hew_task *t, const tool_call *call);
/* Fill t->env with the task's services. */
void executor_env_init(hew_task *t);
/* Set t->env's file_read and file_write to the front end's hook (hew_options.file_io), or
 * NULL without one (fileio.c). */
void task_file_io_init(hew_task *t);

/* ---- MCP (mcp.c) ------------------------------------------------------------------------
 * begin: listen to the session's MCP hub (notices are queued under mu) and say a settings
 * problem once; before_request: wait (at most 10 s, once per task; a timeout is said as a
 * notice of kind "mcp_wait_timeout" and logged) for servers still on their first
 * connection, freeze what they offer for this request, say the queued notices; drain: say
 * the queued notices; map_call: a native call of "<server>__<tool>" as the use_mcp_tool
 * call it stands for (false when it is none; release with task_mcp_call_release); end:
 * stop listening, forget the snapshot. */
void task_mcp_begin(hew_task *t);
/* The snapshot of the last request (NULL before the first, or without servers). */
const struct mcp_snapshot *task_mcp_snapshot(const hew_task *t);
void task_mcp_before_request(hew_task *t);
void task_mcp_drain(hew_task *t);
typedef struct task_mcp_call {
    tool_call call;
    const char *keys[3];
    const char *values[3];
    char *arguments;
} task_mcp_call;
bool task_mcp_map_call(hew_task *t, const tool_call *native, task_mcp_call *out);
void task_mcp_call_release(task_mcp_call *c);
void task_mcp_end(hew_task *t);
/* /mcp:SERVER:PROMPT [NAME=VALUE]... at the start of a user message (or of its <task>,
 * <feedback>, <answer> or <user_message> content): the server's prompt goes in front of
 * the rest, in <mcp_prompt server=… name=…>. A failure is said; the text stays. */
void task_mcp_rewrite_prompts(hew_task *t, json_t *content);

/* ---- the user's hooks (hook.c; docs/hooks.md) ------------------------------------------
 * pre_tool: before a tool runs; true: a hook blocked it (reason says why, for the model),
 * else *permission is what the hooks said of its approval. post_tool: after it ran, with
 * the result the model gets. prompt: the user's task text; true: refused (said).
 * session_start: the task starts or resumes. Both append the context hooks added to
 * *context (a <hook_context> block) for the caller to put after the prompt. stop: the
 * model completes; true: a hook wants it to go on (reason), at most
 * TASK_HOOK_STOP_BLOCKS_MAX times in a row. pre_compact: before the conversation is
 * condensed (manual: the model's condense tool, else automatic). A hook's "continue":
 * false aborts the task with its reason. */
#define TASK_HOOK_STOP_BLOCKS_MAX 5
bool task_hook_pre_tool(hew_task *t, const tool_call *call, buf *reason,
                        hooks_permission *permission);
void task_hook_post_tool(hew_task *t, const tool_call *call, const char *result, bool failed,
                         long long ms);
bool task_hook_prompt(hew_task *t, const char *prompt, buf *context);
void task_hook_session_start(hew_task *t, bool resume, buf *context);
bool task_hook_stop(hew_task *t, buf *reason);
void task_hook_pre_compact(hew_task *t, bool manual);

/* ---- say / ask (task.c) ---------------------------------------------------------------- */

long task_say(hew_task *t, const char *type, const char *text, json_t *data,
              uimsg_partial partial);
/* Say the person's answer as a user_feedback message (its images' captions in its data)
 * when it has a message (tool_answer_has_message); its images then join the next user
 * message (after what is there), and leave the answer. */
void task_take_feedback(hew_task *t, tool_answer *a);
/* The error_retry message: {attempt, maxAttempts, delaySeconds, errorMessage[, failed]}. */
void task_say_error_retry(hew_task *t, int attempt, double delay_s, const char *message,
                          bool failed);
/* Ask and wait (partial asks do not wait and leave *answer alone). HEW_E_ABORTED. */
hew_code task_ask(hew_task *t, const char *type, const char *text, json_t *data,
                  uimsg_partial partial, tool_answer *answer);
/* Re-send message i as an event after changing it. */
void task_emit(hew_task *t, long i);
/* The JSON line of an event task_emit made (hew_event_json), built on the first call. */
struct hew_event_line;
const char *task_event_line(struct hew_event_line *l);

/* Add a block to the next user message (steals block). */
void task_push_user_block(hew_task *t, json_t *b);
void task_push_user_text(hew_task *t, const char *text);

/* End the task with a status and a result text. */
void task_finish(hew_task *t, hew_task_status status, const char *result);

/* The stream (stream.c): build the request (system prompt, history view, tools) and
 * start its thread; join it; forget the last one. */
hew_code task_stream_start(hew_task *t, hew_err *err);
void task_stream_join(hew_task *t);
void task_stream_reset(hew_task *t);
/* Free the joined stream's copies of the answer (the parser and its blocks, the turn)
 * once the answer is in the history; the rest (error, rc) stays until the reset. */
void task_stream_drop_answer(hew_task *t);

/* The prompt (prompt.c): the context of the task as it stands (mode, tools, model facts,
 * MCP servers; no rules); the system prompt of a request for pc, with the rule files
 * (read again when older than 15 s) rendered for the paths in play (a new string the
 * caller frees, NULL when memory runs out); release: the rules part (task_free). */
struct prompt_ctx;
void task_prompt_ctx(hew_task *t, struct prompt_ctx *pc);
char *task_prompt_system(hew_task *t, struct prompt_ctx *pc);
void task_prompt_release(hew_task *t);
/* use_skill (tool_env.use_skill): the skill `name` of those the prompt lists. */
hew_code task_use_skill(hew_task *t, const char *name, const char *path, buf *out,
                        hew_err *err);

/* The context window (ctx.c): cut before a request when the last one came close to the
 * window; truncate on a context-window error; the view the model gets. */
void task_ctx_prepare(hew_task *t);
void task_ctx_truncate(hew_task *t, context_keep keep);
/* The last request's total tokens (in + out + cache), or -1 when unknown. */
int64_t task_ctx_last_total(const hew_task *t);
/* context_plan_make for the last request, the collapse's rewrites persisted and applied;
 * false when there is no plan (usage unknown, out of memory). Release the plan. */
bool task_ctx_plan(hew_task *t, context_plan *plan);
size_t task_ctx_active_messages(const hew_task *t);
json_t *task_ctx_view(const hew_task *t);
/* decided: this request's cut is (true) or is not yet (false) decided by condensing;
 * can_cut: truncation would remove messages now; restore: a stored task's range and
 * rewrites (resume); release: at task_free. */
void task_ctx_decided(hew_task *t, bool decided);
bool task_ctx_can_cut(const hew_task *t);
void task_ctx_restore(hew_task *t, context_range deleted, const json_t *rewrites);
void task_ctx_release(hew_task *t);

/* Automatic condensing (condense.c, cline-spec §6.4), at the start of each request before
 * its environment details: makes the cut of an accepted summary, gives up on a summary
 * that did not come (truncation instead), or decides to ask for one. true: this request
 * asks for the summary (its user content ends with the instruction, no environment
 * details). */
bool task_condense_begin(hew_task *t);
/* summarize_task took the summary (tool_env.accept_summary). false when none was asked. */
bool task_condense_accept(hew_task *t);
/* Resume: a conversation stopped mid-condense goes on with it (resume.c, after the last
 * unanswered user message was taken back into t->user_content). */
void task_condense_resume(hew_task *t);
/* This request asks the model for a summary (the prompt offers summarize_task). */
bool task_condense_asked(const hew_task *t);

#endif
