/* acp — `hew acp`: hew as an Agent Client Protocol agent (docs/acp.md). An editor (Zed,
 * Neovim's CodeCompanion, JetBrains, ...) starts `hew acp` and speaks JSON-RPC 2.0 with it
 * over stdin/stdout, one JSON message per line (the official SDK's ndJsonStream). Nothing
 * but protocol is written to stdout; diagnostics go to hew's log (and stderr).
 *
 * The pieces, one file each:
 *   acp_rpc.c      the framing: reading lines, writing messages (one lock), the agent's
 *                  own requests to the client and the routing of their answers;
 *   acp.c          `hew acp [options]`: the read loop and the method table (initialize,
 *                  session/new, session/load, session/set_mode, session/prompt,
 *                  session/cancel), params checks, the end at stdin EOF;
 *   acp_session.c  one ACP session = one hew session + the hew task it drives: prompts
 *                  become the task's start / answers / resumes, the task's end or its
 *                  question to the user ends the turn with a stopReason;
 *   acp_update.c   hew events -> session/update notifications (message and thought
 *                  chunks, tool_call / tool_call_update with kind, title, locations,
 *                  rawInput, diff and command output, plan);
 *   acp_perm.c     approvals -> session/request_permission and the "always" choices;
 *   acp_mcp.c      the client's MCP servers, written into a settings file hew reads.
 *
 *   acp_image.c    the prompt's image blocks as hew_image (base64 in the request's JSON);
 *   acp_fs.c       the client's files (fs/read_text_file, fs/write_text_file) as hew's
 *                  file access hook (hew_options.file_io);
 *   acp_term.c     the client's terminal (terminal/create, output, kill, release) as
 *                  hew's command runner (hew_options.cmd_runner), for unconfined commands;
 *
 * Threads: the main thread reads stdin and answers requests; each task's events arrive
 * on the task's thread; a waiter thread per task notices its end. The task's thread
 * sends the client requests of its own (fs/...) and waits for their answers, which the
 * main thread routes to it. A session's state is
 * guarded by its lock; the rpc's writes by the rpc's own. */
#ifndef HEW_CLI_ACP_H
#define HEW_CLI_ACP_H

#include <jansson.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "hew.h"

/* JSON-RPC error codes (the ACP schema's ErrorCode). */
#define ACP_PARSE_ERROR -32700
#define ACP_INVALID_REQUEST -32600
#define ACP_METHOD_NOT_FOUND -32601
#define ACP_INVALID_PARAMS -32602
#define ACP_INTERNAL_ERROR -32603
#define ACP_NOT_FOUND -32002
#define ACP_AUTH_REQUIRED -32000 /* no API key: the message says which variable to set */

/* The ACP protocol version hew speaks (the SDK's PROTOCOL_VERSION). */
#define ACP_PROTOCOL_VERSION 1

/* ---- acp_rpc.c: the wire ------------------------------------------------------------- */

/* Called with the client's answer to one of our requests: result or error (the other
 * NULL), both borrowed; on the main thread. */
typedef void (*acp_reply_fn)(void *ud, json_t *result, json_t *error);

typedef struct acp_rpc acp_rpc;

/* The rpc on out (stdout); a new one or NULL when out of memory. */
acp_rpc *acp_rpc_new(FILE *out);
/* Free it; replies never answered are dropped. NULL is a no-op. */
void acp_rpc_free(acp_rpc *r);
/* Write one message (a compact JSON line) under the write lock; any thread. Steals msg. */
void acp_rpc_send(acp_rpc *r, json_t *msg);
/* A response: result stolen (NULL: {}); id borrowed. */
void acp_rpc_result(acp_rpc *r, json_t *id, json_t *result);
/* An error response: id borrowed (NULL: null), message as given. */
void acp_rpc_error(acp_rpc *r, json_t *id, int code, const char *message);
/* A notification; params stolen. */
void acp_rpc_notify(acp_rpc *r, const char *method, json_t *params);
/* A request to the client; params stolen. fn(ud, ...) runs when the answer comes (on the
 * main thread, from acp_rpc_route). Returns the request's id (> 0), or -1 when it could
 * not be sent (fn is then never called). */
long acp_rpc_request(acp_rpc *r, const char *method, json_t *params, acp_reply_fn fn, void *ud);
/* Call every request's fn with neither result nor error (no answer will come: the client
 * went away), on the calling thread, and forget them. */
void acp_rpc_drop_all(acp_rpc *r);
/* msg is a response (it has no "method"): hand it to the request's fn. 0 when it matched
 * one of ours, -1 when not (ignored). */
int acp_rpc_route(acp_rpc *r, json_t *msg);
/* Give up request id (on the main thread): its fn is called now with neither result nor
 * error, and a late answer is ignored. 0, or -1 when it was answered already. */
int acp_rpc_cancel(acp_rpc *r, long id);

/* An answer awaited on another thread than the main one (which routes the answers): pass
 * acp_wait_reply and the acp_wait to acp_rpc_request, then acp_wait_for. */
typedef struct acp_wait {
    pthread_mutex_t m;
    sem_t done;     /* posted once, by the reply */
    json_t *result; /* a copy of the answer's (owned), or NULL */
    json_t *error;  /* a copy of the error's (owned), or NULL; both NULL: no answer will
                       come (or out of memory) */
} acp_wait;
void acp_wait_init(acp_wait *w);
void acp_wait_release(acp_wait *w);
void acp_wait_reply(void *ud, json_t *result, json_t *error); /* an acp_reply_fn */
void acp_wait_for(acp_wait *w);

/* A JSON string of s[0..n) — UTF-8 as is, invalid bytes replaced by '?' (never NULL
 * unless out of memory). */
json_t *acp_jstr(const char *s, size_t n);

/* ---- acp_session.c: sessions ---------------------------------------------------------- */

typedef struct acp_session acp_session;
typedef struct acp_images acp_images; /* a prompt's images (acp_image.c) */

/* What every session of this `hew acp` shares. */
typedef struct acp_server {
    acp_rpc *rpc;
    const cli_options *co; /* the command line's options (their strings borrowed) */
    json_t *client_caps;   /* the client's capabilities from initialize (owned) */
    acp_session **sessions;
    size_t nsessions;
    int initialized;
} acp_server;

/* session/new and session/load. cwd must be absolute. mcp_servers: the client's list
 * (borrowed; may be NULL). load_id NULL: a new session, its id in *out's acp_session_id;
 * else the stored task of that id: its conversation is sent as session/update
 * notifications before this returns, and the next prompt resumes the task. 0, or -1 with
 * the JSON-RPC error in *code and err. */
int acp_session_open(acp_server *srv, const char *cwd, json_t *mcp_servers, const char *load_id,
                     acp_session **out, int *code, char *err, size_t errlen);
const char *acp_session_id(const acp_session *s);
/* The session with that id, or NULL. */
acp_session *acp_session_find(acp_server *srv, const char *id);
/* The session's modes as a SessionModeState (a new object). */
json_t *acp_session_modes(const acp_session *s);
/* session/prompt with the prompt's text (may be "" when there are images) and images
 * (borrowed: used before this returns, or copied): the turn starts; its response is sent
 * when the turn ends. The prompt starts the session's task (text needed), answers the
 * task's question (hew_task_respond_with_images: an image the library refuses fails the
 * prompt, and the question still waits for the next one), or resumes a stopped task (its
 * resume ask answered by the text and images; a refused image fails the prompt and the
 * next prompt answers the ask). 0, or -1 with the error (code, err) to answer at once. */
int acp_session_prompt(acp_session *s, json_t *req_id, const char *text,
                       const acp_images *images, int *code, char *err, size_t errlen);
/* session/cancel: stop the running turn (its prompt answers "cancelled"). */
void acp_session_cancel(acp_session *s);
/* A request of the task's thread to the client (fs/...), waited for: 0 with *result (a
 * new reference), or -1 with why in err (the client's error message; no answer because
 * the turn was cancelled or the client went away). params stolen. */
int acp_session_call(acp_session *s, const char *method, json_t *params, json_t **result,
                     char *err, size_t errlen);
/* 1 when session/cancel came for the running turn (the task's calls are refused). */
int acp_session_cancelled(acp_session *s);
/* The session's config options (a new array): "mode" (act, plan) and "model" (the model
 * in use, then hew's table's models of the provider: hew_models_json). */
json_t *acp_session_config_options(const acp_session *s);
/* session/set_config_option "model": a value of the "model" option. Between turns only:
 * a task waiting for the next prompt is stopped (stored) and the next prompt resumes it
 * with the model. 0, or -1 with the JSON-RPC error (code, err). */
int acp_session_set_model(acp_session *s, const char *model, int *code, char *err,
                          size_t errlen);
/* session/set_mode: "act" or "plan". 0, or -1 with why in err. */
int acp_session_set_mode(acp_session *s, const char *mode, char *err, size_t errlen);
/* End the session (stdin closed): a finished turn's pending completion is accepted, a
 * running task stopped; waits for its thread. Then frees it. */
void acp_session_close(acp_session *s);

/* ---- acp_update.c: events -> session/update -------------------------------------------- */

/* What the mapping keeps between events of one task (acp_session owns one). */
typedef struct acp_stream {
    struct {
        long index;
        size_t sent; /* bytes of the message's text sent as chunks */
    } msgs[8];       /* the messages streaming now, newest last (a ring) */
    size_t nmsgs;
    long tool_index;  /* the tool call open now (its message index), -1 none */
    char tool_id[32]; /* its toolCallId */
    int tool_failed;  /* it was rejected */
    int any_text;     /* message text was sent since the last tool call */
    int term_shown;   /* the open tool call's terminal content was sent */
} acp_stream;

void acp_stream_init(acp_stream *st);

/* The sink of the mapping: a session/update with update (stolen) for the session. */
typedef void (*acp_update_fn)(void *ud, json_t *update);

/* Map one event to updates (zero or more calls of emit). replay: the event is a stored
 * one of a conversation being loaded (session/load): the user's messages are shown too,
 * and tools are shown as done. cwd: the workspace, for absolute paths. */
void acp_update_event(acp_stream *st, const hew_event *ev, int replay, const char *cwd,
                      acp_update_fn emit, void *ud);
/* Close the open tool call (completed, or failed when it was rejected). */
void acp_update_close_tool(acp_stream *st, acp_update_fn emit, void *ud);
/* The tool call an approval ask is about, as the fields of a ToolCallUpdate (a new
 * object: toolCallId, title, kind, locations, rawInput, content). */
json_t *acp_update_tool_fields(const hew_event *ev, const char *cwd);
/* The tool call's id for the message index. */
void acp_update_tool_id(long index, char *id, size_t n);
/* A plan (the plan-mode answer): its list items as a "plan" update (a new object), or NULL
 * when the text has no list. */
json_t *acp_update_plan(const char *text);

/* ---- acp_perm.c: approvals ------------------------------------------------------------- */

/* An approval ask of the task (tool, command, MCP, a run without the sandbox): answered
 * at once by an "always" choice made before, else asked with session/request_permission;
 * the answer goes to the task (hew_task_respond). Called on the task's thread with the
 * session's lock held. */
void acp_perm_ask(acp_session *s, hew_task *task, const hew_event *ev);

/* For acp_perm.c: the session's pieces it needs. */
acp_rpc *acp_session_rpc(acp_session *s);
const char *acp_session_cwd(const acp_session *s);
json_t *acp_session_always(acp_session *s); /* key -> "allow" | "reject" (owned by s) */
pthread_mutex_t *acp_session_lock(acp_session *s);
hew_task *acp_session_task(acp_session *s);
/* Send a session/update from a locked context (update stolen). */
void acp_session_update(acp_session *s, json_t *update);
/* The permission request pending now (its rpc id; -1 none). */
long *acp_session_perm_slot(acp_session *s);
/* The event mapping's state (the open tool call). */
acp_stream *acp_session_stream(acp_session *s);

/* ---- acp_image.c: the prompt's images ---------------------------------------------------- */

/* The images of one prompt, as the library takes them. An item added from a block points
 * at the block's base64 string (blocks[i] keeps the block); a kept one points at a copy
 * of its own (copies[i]). Zero-initialise it ({0}). */
struct acp_images {
    hew_image items[HEW_TASK_IMAGES_MAX];
    json_t *blocks[HEW_TASK_IMAGES_MAX]; /* the block items[i] points into, or NULL */
    char *copies[HEW_TASK_IMAGES_MAX];   /* items[i]'s data and name when copied, or NULL */
    size_t n;
};

/* Add the prompt's image block (its index in the prompt, for errors): a hew_image of its
 * base64 data (named by the base name of its uri, if it has one), the block referenced.
 * 0, or -1 with why in err (a type hew does not attach, data that is not a string, too
 * many). The bytes themselves are checked by the library when it takes them. */
int acp_images_add(acp_images *im, json_t *block, size_t index, char *err, size_t errlen);
/* Copy src's images into dst (which owns them then, and shares nothing with src or the
 * prompt's JSON): for images used after the request, on another thread. 0, or -1 out of
 * memory (dst empty). */
int acp_images_keep(acp_images *dst, const acp_images *src);
/* Drop the references and copies; im is empty again. */
void acp_images_release(acp_images *im);

/* ---- acp_fs.c: the client's files --------------------------------------------------------- */

/* Fill io with the hooks that read and write files through the client (fs/read_text_file,
 * fs/write_text_file) for session s when the client's capabilities (initialize) offer
 * both; 1 then, else 0 (io untouched: the disk). */
int acp_fs_hooks(acp_session *s, const json_t *client_caps, hew_file_io *io);

/* ---- acp_term.c: the client's terminal ------------------------------------------------------ */

/* Fill cr with the hooks that run commands in the client's terminal (terminal/create,
 * terminal/output, terminal/kill, terminal/release) for session s when the client's
 * capabilities (initialize) say terminal: true; 1 then, else 0 (cr untouched: hew runs
 * them). hew uses it only for commands it would run without the sandbox. */
int acp_term_hooks(acp_session *s, const json_t *client_caps, hew_cmd_runner *cr);

/* ---- acp_mcp.c: the client's MCP servers ------------------------------------------------ */

/* Write the settings file a session reads its MCP servers from: the user's own settings
 * file (user_file, may be missing) plus the client's servers (the ACP McpServer list:
 * stdio {name, command, args, env[]}, http/sse {type, name, url, headers[]}), into a new
 * private file; its path in *out (free it; remove the file when done). NULL *out and 0
 * when the client gave none (the user's file is used as is). -1 with why in err. */
int acp_mcp_settings(json_t *servers, const char *user_file, char **out, char *err,
                     size_t errlen);

#endif
