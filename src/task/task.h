/* task — one conversation with the model: the state the agent loop shares between its
 * threads (DESIGN.md, "Concurrency model"). The stream thread of a request decodes the
 * provider's answer and feeds the parser under `mu`, then signals `cv`; the task thread
 * runs task_loop / attempt_api_request / present_assistant_message and is the only one
 * that says or asks anything; the front end answers asks through hew_task_respond (any
 * thread, under `mu`).
 *
 * Field groups say who may touch them:
 *   [const]   set before the task thread starts, read-only after;
 *   [mu]      any thread, holding mu;
 *   [task]    the task thread only (no lock needed).
 * Nothing here may block while holding mu. */
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
#include "context/context.h"
#include "hew.h"
#include "parse/parser.h"
#include "prompt/rules.h"
#include "task/settings.h"
#include "task/text_clean.h"
#include "task/uimsg.h"
#include "tools/tool.h"

/* Automatic condensing (condense.c): NONE → ASKED (this request asks the model for a
 * summary) → ACCEPTED (summarize_task took it: the next request drops everything but the
 * first pair, the summarize request and its answer included) → NONE. */
typedef enum task_condense {
    TASK_CONDENSE_NONE,
    TASK_CONDENSE_ASKED,
    TASK_CONDENSE_ACCEPTED
} task_condense;

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

/* One request's stream, between the stream thread and the task thread. */
typedef struct task_stream {
    pthread_t thread;           /* [task] */
    bool running;               /* [task] the thread was started and not joined */
    hew_abort *abort;           /* [const per request] stops this request only */
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

struct hew_task {
    hew_session *session;              /* [const] */
    const task_settings *settings;     /* [const] the session's */
    pthread_t thread;                  /* [const] */
    bool thread_started;
    char *task_text;                   /* [const] */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    hew_abort *abort;                  /* the user's abort */

    /* The pending ask [mu]. */
    bool ask_waiting;
    bool ask_answered;
    tool_answer ask_answer;

    /* [mu] */
    hew_task_status status;
    char *result;                      /* completion result or failure reason */
    char *successor;                   /* new_task accepted: the next task's text */
    char mode[8];                      /* "act" / "plan" */
    task_stream stream;
    int checkpoints_in_flight;         /* checkpoint commits not yet done (the gate) */
    task_ckpt_result ckpt_results[TASK_CKPT_RESULTS_MAX]; /* finished, not yet shown */
    size_t ckpt_nresults;

    /* [task] */
    uimsg_list ui;
    json_t *history;                   /* the API conversation (api/message.h) */
    json_t *user_content;              /* the next user message's blocks */
    size_t current_index;              /* presenter: the block being presented */
    uint64_t presented_seq;            /* presenter: seq of the block when last shown */
    long long last_partial_say_ms;     /* presenter: coalescing of partial text */
    bool did_reject_tool;
    bool did_already_use_tool;
    bool did_complete;                 /* attempt_completion accepted */
    bool did_auto_truncate;            /* context-window retry done for this request */
    int consecutive_mistakes;
    int auto_retry_attempts;
    char *loop_signature;              /* loop detection: the last call's signature */
    int loop_count;
    long api_req_index;                /* ui index of the current api_req_started */
    bool api_req_finished;             /* its usage and cost were recorded */
    api_usage request_usage;           /* of the current request */
    double task_cost;
    context_range deleted;             /* context: the deleted range of the history */
    context_rewrites rewrites;         /* context: blocks replaced (repeated reads) */
    bool ctx_prepared;                 /* context: this request's cut is decided already */
    task_condense condense;            /* automatic condensing (condense.c) */
    bool condense_blocked;             /* the model did not summarise: truncate until a
                                          request is under the threshold again */
    bool condense_rearm;               /* resumed mid-condense: ask for the summary again */
    rules_set rules;                   /* the rule files as last read (stream.c) */
    bool rules_loaded;
    long long rules_loaded_ms;
    tool_env env;                      /* what tools get */
    char task_id[32];                  /* [const] */
    struct checkpoint *ckpt;           /* the workspace's checkpoints, or NULL */
    bool ckpt_off;                     /* checkpoints could not start (said once) */
    hew_abort *ckpt_abort;             /* stops checkpoint git calls at task end only */
    bool turn_changed;                 /* a tool of this turn may have changed files */
    struct store *store;               /* the conversation's persistence, or NULL */
    struct store_lock *store_lock;     /* this process owns the task */
    hew_err store_err;                 /* why the store could not open (said once) */
    size_t api_stored;                 /* history entries already in the store */
    api_usage totals;                  /* the task's token totals (totals.c) */
    int64_t requests;                  /* the task's API requests (totals.c) */
    bool totals_known;                 /* totals, task_cost and requests hold the stored
                                          task's (a new task, or its row was read): only
                                          then are they written back */
    hew_totals run;                    /* what this run added (totals.c) */
    hew_totals shown, shown_run;       /* [mu] copies for hew_task_totals */
    char *resume_id;                   /* [const] the stored task to resume, or NULL */
    char *completed_result;            /* resumed a completed task: its stored result (it
                                          stays completed unless this run completes it) */
    buf say_scratch;                   /* presenter: a text's cleaned start before it
                                          makes a message (then moved into it) */
    text_cleaner cleaner;              /* presenter: the text block being shown */
    long clean_msg;                    /* presenter: the message it cleans into, or -1 */
    bool clean_started;
    buf event_line;                    /* task_emit: the event's JSON line */
    buf persist_line;                  /* persist: a message's whole JSON, when written */
    long persist_pending;              /* persist: a partial message not written yet, or -1 */
    struct mcp_snapshot *mcp_snap;     /* [task] what the MCP servers offered at the last
                                          request (prompt, native tools, name mapping) */
    buf mcp_notices;                   /* [mu] MCP notices not yet said, one per line */
    bool mcp_waited;                   /* [task] the wait for connecting servers is over
                                          (once per task, at most MCP_WAIT_MS) */
};

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
/* A new answer: the presenter starts at its first block (present.c). */
void task_present_reset(hew_task *t);

/* The checkpoint gate (seed 000): wait, without holding mu afterwards, while checkpoint
 * commits (the initial one, a turn's) are in progress. HEW_E_ABORTED when aborted. */
hew_code task_checkpoint_wait(hew_task *t);

/* Checkpoints (ckpt.c): the initial one (first request, asynchronous, gates tools that
 * may change files), one of a kind (checkpoint_kind), results onto their messages, and
 * the end (waits for commits in flight). */
void task_ckpt_initial(hew_task *t);
void task_ckpt_commit(hew_task *t, int kind);
void task_ckpt_flush(hew_task *t);
void task_ckpt_close(hew_task *t);

/* Persistence (persist.c): open (create the task row, or take a stored one), every UI
 * event, new history entries, the task row, close; and the note when it cannot work. */
hew_code task_persist_open(hew_task *t, const char *resume_id);
void task_persist_note_failure(hew_task *t);
/* Message index was made or changed: store it. json[0..len) is its whole JSON form
 * (uimsg_to_json) when the caller has it, else NULL (built here when written). A partial
 * message is written at most once per store interval; task_persist_flush writes the
 * latest version of one not written yet (done before any other write, and at close). */
void task_persist_ui(hew_task *t, long index, const char *json, size_t len);
void task_persist_flush(hew_task *t);
void task_persist_api(hew_task *t);
void task_persist_row(hew_task *t, unsigned fields);
void task_persist_close(hew_task *t);

/* Resume (resume.c): rebuild the loop state of a stored task and ask the user how to go
 * on; fills t->user_content with the resumption message. HEW_OK to run the loop. */
hew_code task_resume_prepare(hew_task *t);

/* Totals (totals.c): the one place the task's usage, cost and request count grow.
 * load: the stored task's row (resume) becomes the starting point; request: a request is
 * being sent; add: a request's usage (its cost by the model's prices, or the one the
 * provider reported), returns that cost in USD or -1 when unknown; get: the copies the
 * front end reads (any thread). Each change is persisted and published at once. */
struct store_task;
void task_totals_load(hew_task *t, const struct store_task *row);
void task_totals_request(hew_task *t);
double task_totals_add(hew_task *t, const api_usage *u);
void task_totals_get(hew_task *t, hew_totals *task, hew_totals *run);

/* The mode changed while the request waited to be sent again (a retry): its user
 * message's environment details say the mode the user chose now (history and store). */
void task_env_refresh_mode(hew_task *t);

/* Wait for the request's stream to end and record its usage and cost now (before a tool
 * asks the user something, so the front end shows the request's cost first). */
void task_request_done(hew_task *t);

/* Run one complete tool block through approval, execution and result formatting. */
hew_code executor_run(hew_task *t, const tool_call *call);
/* Show a partial tool block (UI only). */
void executor_partial(hew_task *t, const tool_call *call);
/* Fill t->env with the task's services. */
void executor_env_init(hew_task *t);

/* ---- MCP (mcp.c) ------------------------------------------------------------------------
 * begin: listen to the session's MCP hub (notices are queued under mu) and say a settings
 * problem once; before_request: wait (at most 10 s, once per task; a timeout is said as a
 * notice of kind "mcp_wait_timeout" and logged) for servers still on their first
 * connection, freeze what they offer for this request, say the queued notices; drain: say
 * the queued notices; map_call: a native call of "<server>__<tool>" as the use_mcp_tool
 * call it stands for (false when it is none; release with task_mcp_call_release); end:
 * stop listening, forget the snapshot. */
void task_mcp_begin(hew_task *t);
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

/* ---- say / ask (task.c) ---------------------------------------------------------------- */

long task_say(hew_task *t, const char *type, const char *text, json_t *data,
              uimsg_partial partial);
/* The error_retry message: {attempt, maxAttempts, delaySeconds, errorMessage[, failed]}. */
void task_say_error_retry(hew_task *t, int attempt, double delay_s, const char *message,
                          bool failed);
/* Ask and wait (partial asks do not wait and leave *answer alone). HEW_E_ABORTED. */
hew_code task_ask(hew_task *t, const char *type, const char *text, json_t *data,
                  uimsg_partial partial, tool_answer *answer);
/* Re-send message i as an event after changing it. */
void task_emit(hew_task *t, long i);

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

/* The prompt context of the task as it stands (stream.c): mode, tools, model facts. mode
 * is the caller's buffer the context points into. */
struct prompt_ctx;
void task_prompt_ctx(hew_task *t, struct prompt_ctx *pc, char mode[8]);

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

#endif
