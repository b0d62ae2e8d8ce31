/* loop — task_loop (Cline's initiateTaskLoop + recursivelyMakeClineRequests, written as a
 * loop instead of a recursion): one turn = the user content + environment details appended
 * to the history, attempt_api_request, the stream consumed while the presenter works, the
 * answer recorded, and the tool results (paired with their tool_use ids) as the next user
 * content. Also the turn-level rules: the no-tool nudge, empty answers, the mistake limit,
 * failures after the first chunk, abort. Runs on the task thread only. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/message.h"
#include "store/store.h"
#include "sys/clock.h"
#include "prompt/slash.h"
#include "tools/workspace.h"
#include "task/responses.h"
#include "task/task.h"

#define CONSUME_WAIT_MS 40

/* ---- helpers --------------------------------------------------------------------------- */

/* Slash commands and workflows in the user's text blocks (task, feedback, answers). */
static void rewrite_slash_commands(hew_task *t, json_t *content)
{
    slash_opts so = slash_defaults(t->settings->cwd);
    so.xml_tools = !t->session->native_tools;
    size_t i;
    json_t *b;
    json_array_foreach(content, i, b) {
        const char *text = json_string_value(json_object_get(b, "text"));
        if (!text || strcmp(api_msg_block_type(b), "text") != 0)
            continue;
        slash_result r = SLASH_RESULT_INIT;
        if (slash_rewrite(text, &so, &r, NULL) == HEW_OK && r.kind != SLASH_NONE && r.text) {
            json_object_set_new(b, "text", json_string(r.text));
            json_t *info = json_pack("{s:s}", "command", r.command ? r.command : "");
            task_say(t, "info", NULL, info, UIMSG_WHOLE);
            json_decref(info);
        }
        slash_result_release(&r);
    }
}

/* Tool results first (in their order), then the rest: what every protocol wants right
 * after an assistant message with tool calls. */
static json_t *order_user_content(json_t *content)
{
    json_t *ordered = json_array();
    for (int pass = 0; pass < 2; pass++) {
        size_t i;
        json_t *b;
        json_array_foreach(content, i, b) {
            bool result = strcmp(api_msg_block_type(b), "tool_result") == 0;
            if (result == (pass == 0))
                json_array_append(ordered, b);
        }
    }
    return ordered;
}

/* A readable copy of the request for the api_req_started message. */
static char *request_text(const json_t *content)
{
    buf out = BUF_INIT(0);
    size_t i;
    json_t *b;
    json_array_foreach(content, i, b) {
        if (out.len)
            buf_puts(&out, "\n\n");
        const char *type = api_msg_block_type(b);
        if (strcmp(type, "text") == 0) {
            buf_puts(&out, json_string_value(json_object_get(b, "text")));
        } else if (strcmp(type, "tool_result") == 0) {
            char *text = api_msg_tool_result_text(b);
            buf_puts(&out, text ? text : "");
            free(text);
        } else {
            buf_printf(&out, "[%s]", type);
        }
    }
    return buf_detach(&out, NULL);
}

/* Append the turn's user message and announce the request. A request that asks for a
 * summary (automatic condensing) carries the instruction instead of the details. */
static void begin_request(hew_task *t, bool first_turn)
{
    if (!task_condense_begin(t)) {
        rewrite_slash_commands(t, t->user_content);
        task_mcp_rewrite_prompts(t, t->user_content);
        buf details = BUF_INIT(0);
        task_envd_build(t, first_turn, &details);
        task_push_user_text(t, details.data ? details.data : "");
        buf_release(&details);
    }

    json_t *content = order_user_content(t->user_content);
    json_decref(t->user_content);
    t->user_content = NULL;
    char *request = request_text(content);
    task_request_begin(t, request);
    free(request);
    json_array_append_new(t->history, api_msg_new("user", content));
    task_persist_api(t);
    task_persist_row(t, NULL, STORE_SET_MODE);

    /* Per-turn state (Cline's step 9). */
    t->did_reject_tool = false;
    t->did_already_use_tool = false;
    t->did_auto_truncate = false;
    task_present_reset(t);
}

/* Append text to the last text block of an assistant message (or add one). */
static void append_marker(json_t *msg, const char *marker)
{
    json_t *content = json_object_get(msg, "content");
    for (size_t i = json_array_size(content); i-- > 0;) {
        json_t *b = json_array_get(content, i);
        if (strcmp(api_msg_block_type(b), "text") == 0) {
            buf joined = BUF_INIT(0);
            buf_puts(&joined, json_string_value(json_object_get(b, "text")));
            buf_puts(&joined, marker);
            json_object_set_new(b, "text", json_string(joined.data ? joined.data : ""));
            buf_release(&joined);
            return;
        }
    }
    json_array_append_new(content, api_msg_text(marker + 2, strlen(marker + 2)));
}

/* Every tool_use of the answer needs a result in the next user message: a call that did
 * not get one gets `text`. */
static void ensure_results(hew_task *t, const json_t *assistant, const char *text)
{
    json_t *content = json_object_get(assistant, "content");
    size_t i, j;
    json_t *b, *r;
    json_array_foreach(content, i, b) {
        if (strcmp(api_msg_block_type(b), "tool_use") != 0)
            continue;
        const char *id = json_string_value(json_object_get(b, "id"));
        bool found = false;
        json_array_foreach(t->user_content, j, r) {
            const char *rid = json_string_value(json_object_get(r, "tool_use_id"));
            if (rid && id && strcmp(rid, id) == 0)
                found = true;
        }
        if (!found && id)
            task_push_user_block(t, api_msg_tool_result(id, text, true));
    }
}

/* Is tool_use id taken: by an earlier message of the history, or by block `upto` of msg? */
static bool tool_id_taken(const json_t *history, const json_t *msg, size_t upto, const char *id)
{
    size_t i, j;
    json_t *m, *b;
    json_array_foreach(history, i, m) {
        json_array_foreach(json_object_get(m, "content"), j, b) {
            const char *bid = json_string_value(json_object_get(b, "id"));
            if (bid && strcmp(bid, id) == 0 && strcmp(api_msg_block_type(b), "tool_use") == 0)
                return true;
        }
    }
    json_array_foreach(json_object_get(msg, "content"), j, b) {
        if (j >= upto)
            break;
        const char *bid = json_string_value(json_object_get(b, "id"));
        if (bid && strcmp(bid, id) == 0 && strcmp(api_msg_block_type(b), "tool_use") == 0)
            return true;
    }
    return false;
}

/* Tool call ids are unique in a conversation (Anthropic refuses a repeated one), but not
 * every provider makes them so: Gemini sends none (the decoder derives one from the
 * response id, or from the call itself when there is none), and some OpenAI-compatible
 * servers count from call_0 in every answer. A repeated id gets a suffix, on the call
 * and on the result the tool already gave (the next user content): the provider sees
 * consistent pairs. */
static void unique_tool_ids(hew_task *t, json_t *msg)
{
    size_t i, j;
    json_t *b, *r;
    json_array_foreach(json_object_get(msg, "content"), i, b) {
        const char *id = json_string_value(json_object_get(b, "id"));
        if (strcmp(api_msg_block_type(b), "tool_use") != 0 || !id ||
            (*id && !tool_id_taken(t->history, msg, i, id)))
            continue;
        char fresh[128];
        for (unsigned n = 2;; n++) {
            snprintf(fresh, sizeof fresh, "%.100s_%u", *id ? id : "call", n);
            if (!tool_id_taken(t->history, msg, i, fresh))
                break;
        }
        /* its result: the first one with this id that an earlier call of this answer,
         * keeping the id, does not own */
        size_t owned = 0;
        json_t *e;
        json_array_foreach(json_object_get(msg, "content"), j, e) {
            const char *eid = json_string_value(json_object_get(e, "id"));
            if (j >= i)
                break;
            owned += eid && strcmp(eid, id) == 0 && strcmp(api_msg_block_type(e), "tool_use") == 0;
        }
        json_array_foreach(t->user_content, j, r) {
            const char *rid = json_string_value(json_object_get(r, "tool_use_id"));
            if (rid && strcmp(rid, id) == 0 && owned-- == 0) {
                json_object_set_new(r, "tool_use_id", json_string(fresh));
                break;
            }
        }
        json_object_set_new(b, "id", json_string(fresh)); /* id is dead from here */
    }
}

/* The answer as an assistant message of the history, with a marker when cut short. */
static bool record_answer(hew_task *t, const char *marker)
{
    pthread_mutex_lock(&t->mu);
    json_t *msg = api_turn_to_message(&t->stream.turn);
    pthread_mutex_unlock(&t->mu);
    if (!msg)
        return false;
    /* The answer lives in msg now: its other copies (the parser's blocks, the turn's
     * text) go before msg is persisted, so that they do not add to that moment's memory
     * (the stream is joined; its usage was counted by task_request_finish, and the next request
     * starts with task_stream_reset anyway). */
    task_stream_drop_answer(t);
    json_t *content = json_object_get(msg, "content");
    bool has_content = json_array_size(content) > 0;
    if (!has_content && !marker) {
        json_decref(msg);
        return false;
    }
    if (marker)
        append_marker(msg, marker);
    unique_tool_ids(t, msg);
    ensure_results(t, msg,
                   marker == RESP_INTERRUPTED_BY_USER
                       ? RESP_TOOL_INTERRUPTED
                       : "This tool was not run: the answer was interrupted before it.");
    json_array_append_new(t->history, msg);
    task_persist_api(t);
    return has_content;
}

/* The task stops with the results of its last answer's tool calls not sent (aborted at a
 * tool, or the completion accepted): they join the stored history as the next user
 * message, so that the conversation never ends on an unanswered tool call and a resumed
 * task sends what really happened. */
static void keep_open_results(hew_task *t)
{
    size_t n = json_array_size(t->history);
    const char *role = n ? json_string_value(json_object_get(json_array_get(t->history, n - 1),
                                                             "role"))
                         : NULL;
    if (!role || strcmp(role, "assistant") != 0 || !t->user_content)
        return;
    json_t *results = json_array();
    size_t i;
    json_t *b;
    json_array_foreach(t->user_content, i, b)
        if (strcmp(api_msg_block_type(b), "tool_result") == 0)
            json_array_append(results, b);
    if (json_array_size(results) == 0) {
        json_decref(results);
        return;
    }
    json_array_append_new(t->history, api_msg_new("user", results));
    task_persist_api(t);
}

/* ---- consuming the stream ----------------------------------------------------------------- */

/* Present blocks while the stream runs, until the stream is done and every block has been
 * presented (or the stream failed). Interrupts the stream after a rejection or, with
 * parallel tool calling off, after the first tool. */
static hew_code consume_stream(hew_task *t)
{
    bool interrupted = false;
    for (;;) {
        /* What the presenter is about to see: a block added or completed while it works
         * (a tool waiting for approval, a front end slow to take an event) is then
         * presented at once, not after the timed wake below (the signal went out while
         * nobody waited for it). */
        pthread_mutex_lock(&t->mu);
        uint64_t seen = t->stream.shape;
        pthread_mutex_unlock(&t->mu);
        hew_code rc = present_assistant_message(t);
        if (rc != HEW_OK)
            return rc;
        if (!interrupted && task_tools_blocked(t)) {
            interrupted = true;
            abort_trigger(t->stream.abort, "interrupted by a tool result");
        }
        pthread_mutex_lock(&t->mu);
        size_t n = parser_count(t->stream.parser);
        bool done = t->stream.done;
        bool failed = done && t->stream.rc != HEW_OK && !interrupted;
        if (done && (task_present_past(t, n) || failed)) {
            pthread_mutex_unlock(&t->mu);
            return HEW_OK;
        }
        /* Woken at once for new or completed blocks (stream.c); otherwise every 40 ms to
         * show a growing block. */
        if (!done && !abort_is_set(t->abort) && t->stream.shape == seen) {
            long long until = clock_now_ms() + CONSUME_WAIT_MS;
            while (t->stream.shape == seen && !t->stream.done && !abort_is_set(t->abort))
                if (!clock_cond_wait_until(&t->cv, &t->mu, until))
                    break;
        }
        pthread_mutex_unlock(&t->mu);
    }
}

static bool has_tool_use(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    bool found = false;
    size_t n = t->stream.parser ? parser_count(t->stream.parser) : 0;
    for (size_t i = 0; i < n && !found; i++)
        found = parser_block(t->stream.parser, i)->type == BLOCK_TOOL_USE;
    pthread_mutex_unlock(&t->mu);
    return found;
}

/* ---- retries of whole turns ---------------------------------------------------------- */

/* Wait before an automatic retry of a turn, saying so: as long as attempt_api_request
 * waits (the server's retry-after when e has one, e may be NULL). false: aborted. */
static bool retry_pause(hew_task *t, const char *message, const api_error *e)
{
    t->auto_retry_attempts++;
    api_error none;
    api_error_init(&none);
    double delay_s = task_retry_delay_s(t, e ? e : &none, t->auto_retry_attempts);
    task_say_error_retry(t, t->auto_retry_attempts, delay_s, message, false);
    if (abort_sleep(t->abort, (long)(delay_s * 1000.0)))
        return false;
    task_totals_retry(t);
    return true;
}

/* Ask whether to retry after the automatic retries ran out, or at once for an error that
 * is not retried unasked (e, may be NULL: then only the message is known). HEW_OK +
 * *again. */
static hew_code ask_retry(hew_task *t, const char *message, const api_error *e, bool *again)
{
    if (!e || task_error_auto_retry(e))
        task_say_error_retry(t, TASK_MAX_AUTO_RETRIES, 0, message, true);
    task_totals_failure(t, e); /* what the task fails on unless retried */
    *again = false;
    if (t->settings->yolo)
        return HEW_OK;
    tool_answer answer = { .kind = TOOL_ANSWER_NO };
    json_t *info = e ? json_pack("{s:s, s:s, s:I, s:b}", "message", message, "category",
                                 api_error_category_name(e->category), "status",
                                 (json_int_t)e->http_status, "retryable", e->retryable)
                     : json_pack("{s:s}", "message", message);
    hew_code rc = task_ask(t, "api_req_failed", message, info, UIMSG_WHOLE, &answer);
    json_decref(info);
    *again = rc == HEW_OK && answer.kind == TOOL_ANSWER_YES;
    tool_answer_release(&answer);
    if (*again) {
        t->auto_retry_attempts = 0;
        task_totals_retry(t);
    }
    return rc;
}

/* ---- one turn after another ---------------------------------------------------------- */

typedef enum turn_outcome { TURN_NEXT, TURN_NO_TOOLS, TURN_END } turn_outcome;

/* The mistake limit (Cline step 2). Returns TURN_END when the task must stop. */
static turn_outcome check_mistake_limit(hew_task *t)
{
    int max = t->settings->max_consecutive_mistakes;
    if (t->consecutive_mistakes < max)
        return TURN_NEXT;
    if (t->settings->yolo) {
        buf msg = BUF_INIT(0);
        buf_printf(&msg, "The task failed: the model made %d mistakes in a row (auto-approve "
                         "mode cannot ask you for help). Try a more capable model, or run "
                         "the task interactively.", t->consecutive_mistakes);
        task_say(t, "error", msg.data, NULL, UIMSG_WHOLE);
        task_finish(t, HEW_TASK_FAILED, msg.data);
        buf_release(&msg);
        return TURN_END;
    }
    tool_answer answer = { .kind = TOOL_ANSWER_NO };
    hew_code rc = task_ask(t, "mistake_limit_reached",
                           "The model seems stuck: it made several mistakes in a row. Tell it "
                           "how to proceed, or let it try again.",
                           NULL, UIMSG_WHOLE, &answer);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        return TURN_END;
    }
    if (answer.kind == TOOL_ANSWER_NO && !tool_answer_has_message(&answer)) {
        tool_answer_release(&answer);
        task_finish(t, HEW_TASK_FAILED, "stopped by the user after repeated mistakes");
        return TURN_END;
    }
    if (tool_answer_has_message(&answer)) {
        buf fb = BUF_INIT(0);
        resp_mistake_feedback(&fb, answer.text ? answer.text : "");
        /* added to the next user message, as Cline does: the tool results it holds
         * answer the last answer's calls and must go too; the images after it */
        task_push_user_text(t, fb.data);
        buf_release(&fb);
        task_take_feedback(t, &answer);
    }
    tool_answer_release(&answer);
    t->consecutive_mistakes = 0;
    t->auto_retry_attempts = 0;
    free(t->loop_signature);
    t->loop_signature = NULL;
    t->loop_count = 0;
    return TURN_NEXT;
}

/* Cline's recursivelyMakeClineRequests, iterated. */
static turn_outcome make_requests(hew_task *t, bool first_turn)
{
    for (;; first_turn = false) {
        if (abort_is_set(t->abort))
            return TURN_END;
        if (check_mistake_limit(t) == TURN_END)
            return TURN_END;
        task_ckpt_flush(t);
        begin_request(t, first_turn);

        hew_code rc = attempt_api_request(t);
        if (rc != HEW_OK)
            return TURN_END; /* aborted, or the user gave up (task_finish done) */
        /* The initial checkpoint (of a resumed task: of this run): started once the
         * request is on its way (it costs a few git calls), before any tool can run;
         * tools that change files wait for it. Once per run (a no-op after). */
        task_ckpt_initial(t);

        rc = consume_stream(t);
        if (rc == HEW_E_ABORTED || abort_is_set(t->abort)) {
            abort_trigger(t->stream.abort, "task aborted");
            task_stream_join(t);
            task_request_finish(t, "user_cancelled", NULL);
            record_answer(t, RESP_INTERRUPTED_BY_USER);
            return TURN_END;
        }
        task_stream_join(t);

        bool interrupted = task_tools_blocked(t);
        if (t->stream.rc != HEW_OK && !interrupted) {
            /* Failed after the first chunk: keep what came, marked, then retry or ask. */
            const char *msg = t->stream.error.message;
            task_request_finish(t, "streaming_failed", msg);
            record_answer(t, RESP_INTERRUPTED_BY_API_ERROR);
            task_push_user_text(t, "[Your previous answer was cut off by a connection or "
                                   "provider error. Continue the task from where it "
                                   "stopped.]");
            /* Retried unasked only by its class, as before the first chunk: never an
             * error a retry would hit again (an answer too large, a refused request),
             * never auth or billing; a retry-after is honoured. */
            const api_error *fe = &t->stream.error;
            if (task_error_auto_retry(fe) && t->auto_retry_attempts < TASK_MAX_AUTO_RETRIES) {
                if (!retry_pause(t, msg, fe))
                    return TURN_END;
                continue;
            }
            bool again = false;
            if (ask_retry(t, msg, fe, &again) != HEW_OK)
                return TURN_END;
            if (!again) {
                task_finish(t, HEW_TASK_FAILED, msg);
                return TURN_END;
            }
            continue;
        }

        task_request_finish(t, NULL, NULL);
        const char *marker = NULL;
        if (t->did_reject_tool)
            marker = RESP_INTERRUPTED_BY_FEEDBACK;
        else if (interrupted)
            marker = RESP_INTERRUPTED_BY_TOOL;
        bool used_tool = has_tool_use(t);
        bool had_content = record_answer(t, marker);
        task_stream_reset(t); /* the answer is in the history now: drop its other copies */
        task_ckpt_flush(t);
        task_ckpt_turn_end(t, t->did_complete);
        if (!had_content && !marker) {
            /* An empty answer: nothing to show, nothing to run. */
            task_say(t, "error",
                     "The provider returned an empty answer (no text, no tool call). "
                     "Retrying the request may help.",
                     NULL, UIMSG_WHOLE);
            json_array_append_new(t->history,
                                  api_msg_new("assistant",
                                              json_pack("[o]", api_msg_text(
                                                  RESP_EMPTY_ANSWER_PLACEHOLDER,
                                                  strlen(RESP_EMPTY_ANSWER_PLACEHOLDER)))));
            task_persist_api(t);
            const char *why = "No answer was received from the model.";
            if (t->auto_retry_attempts < TASK_MAX_AUTO_RETRIES) {
                if (!retry_pause(t, why, NULL))
                    return TURN_END;
                return TURN_NO_TOOLS;
            }
            bool again = false;
            if (ask_retry(t, why, NULL, &again) != HEW_OK)
                return TURN_END;
            if (!again) {
                task_finish(t, HEW_TASK_FAILED, why);
                return TURN_END;
            }
            return TURN_NO_TOOLS;
        }
        if (t->did_complete)
            return TURN_END;
        if (!used_tool) {
            buf nudge = BUF_INIT(0);
            resp_no_tools_used(&nudge, t->session->native_tools);
            task_push_user_text(t, nudge.data);
            buf_release(&nudge);
            t->consecutive_mistakes++;
        }
        t->auto_retry_attempts = 0;
    }
}

void *task_main(void *arg)
{
    hew_task *t = arg;
    executor_env_init(t);
    bool first_turn = true;
    task_persist_open(t, t->resume_id);
    task_totals_begin(t);
    if (t->resume_id) {
        if (task_resume_prepare(t) != HEW_OK) {
            task_persist_close(t);
            if (abort_is_set(t->abort))
                task_finish(t, HEW_TASK_ABORTED, abort_reason(t->abort));
            return NULL; /* task_resume_prepare said why */
        }
        first_turn = false;
        buf context = BUF_INIT(0);
        task_hook_session_start(t, true, &context);
        if (context.len)
            task_push_user_text(t, context.data);
        buf_release(&context);
    } else {
        char note[HEW_ERR_MSG_MAX + 64];
        if (task_persist_take_note(t, note, sizeof note))
            task_say(t, "error", note, NULL, UIMSG_WHOLE);
        /* the hooks first: a prompt a hook refuses is never shown, stored or sent */
        buf context = BUF_INIT(0);
        task_hook_session_start(t, false, &context);
        if (task_hook_prompt(t, t->task_text, &context) || abort_is_set(t->abort)) {
            buf_release(&context);
            store_task erased = STORE_TASK_INIT; /* the refused prompt is not kept */
            erased.title = "[refused by a UserPromptSubmit hook]";
            task_persist_row(t, &erased, STORE_SET_TITLE);
            if (!abort_is_set(t->abort))
                task_finish(t, HEW_TASK_FAILED, "a UserPromptSubmit hook refused the task");
            else
                task_finish(t, HEW_TASK_ABORTED, abort_reason(t->abort));
            task_persist_close(t);
            return NULL;
        }
        json_t *said = json_array_size(t->task_captions)
                           ? json_pack("{s:O}", "images", t->task_captions)
                           : NULL;
        task_say(t, "task", t->task_text, said, UIMSG_WHOLE);
        json_decref(said);
        buf first = BUF_INIT(0);
        buf_printf(&first, "<task>\n%s\n</task>", t->task_text);
        task_push_user_text(t, first.data);
        buf_release(&first);
        size_t i;
        json_t *img;
        json_array_foreach(t->task_images, i, img) /* the user's images, after the text */
            task_push_user_block(t, json_incref(img));
        if (context.len)
            task_push_user_text(t, context.data);
        buf_release(&context);
    }
    task_mcp_begin(t);

    while (!abort_is_set(t->abort)) {
        turn_outcome out = make_requests(t, first_turn);
        first_turn = false;
        if (out == TURN_END)
            break;
        buf nudge = BUF_INIT(0);
        resp_no_tools_used(&nudge, t->session->native_tools);
        task_push_user_text(t, nudge.data);
        buf_release(&nudge);
        t->consecutive_mistakes++;
    }
    task_stream_join(t);
    keep_open_results(t);
    if (abort_is_set(t->abort))
        task_ckpt_stop(t); /* no waiting on git */
    task_ckpt_close(t);
    ws_read_cache_forget(&t->env, NULL); /* the task's read cache goes with it */
    task_mcp_end(t);
    if (abort_is_set(t->abort))
        task_finish(t, HEW_TASK_ABORTED, abort_reason(t->abort));
    else
        task_finish(t, HEW_TASK_FAILED, "the task ended without a result");
    task_persist_close(t);
    return NULL;
}
