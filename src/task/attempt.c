/* attempt — attempt_api_request (seed 003): prepare the request (MCP wait, prompt, context
 * window), open the stream and PROBE THE FIRST CHUNK. A failure before the first chunk
 * leaves a clean state, so it is handled here: context window exceeded → truncate once and
 * retry; auth and billing → never retried automatically; other retryable failures → up to
 * 3 automatic retries (base, 2×base, 4×base; a longer retry-after wins); then the user is
 * asked (api_req_failed). A failure after the first chunk belongs to task_loop.
 * Runs on the task thread; sleeps only through the abort token. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/redact.h"
#include "task/task.h"

#define MAX_RETRY_AFTER_S 120.0

/* Wait until the first chunk arrives or the stream ends. */
static void wait_first_chunk(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    while (!t->stream.first_chunk && !t->stream.done && !abort_is_set(t->abort))
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

static bool never_auto_retry(const api_error *e)
{
    return e->category == API_ERR_AUTH || e->category == API_ERR_BILLING;
}

bool task_error_auto_retry(const api_error *e)
{
    return e->retryable && !never_auto_retry(e) && e->category != API_ERR_CONTEXT_WINDOW;
}

double task_retry_delay_s(const hew_task *t, const api_error *e, int attempt)
{
    double delay_s = (double)t->settings->retry_base_delay_ms / 1000.0 *
                     (double)(1L << (attempt > 0 ? attempt - 1 : 0));
    if (e->retry_after_seconds > delay_s)
        delay_s = fmin(e->retry_after_seconds, MAX_RETRY_AFTER_S);
    return delay_s;
}

/* A budget forbids this request: it is not sent; the task fails saying which budget and
 * the figures, its request marked failed (the stored conversation ends on this request's
 * user message, as after any failed request: a resume sends it). */
static bool over_budget(hew_task *t)
{
    api_error e;
    api_error_init(&e);
    json_t *data = NULL;
    if (!task_totals_budget(t, e.message, sizeof e.message, &data))
        return false;
    task_request_failed(t, &e, NULL, true);
    task_say(t, "error", e.message, data, UIMSG_WHOLE);
    json_decref(data);
    task_finish(t, HEW_TASK_FAILED, e.message);
    return true;
}

hew_code attempt_api_request(hew_task *t)
{
    if (over_budget(t))
        return HEW_E_INVALID; /* task_finish done */
    task_totals_request(t);
    int failures = 0; /* attempts of this request that failed before their first chunk */
    for (;;) {
        /* A retry goes in the mode the user chose meanwhile (hew_task_set_mode). */
        task_envd_refresh_mode(t);
        /* MCP servers still connecting are waited for (at most 10 s, never fatal). */
        task_mcp_before_request(t);
        hew_err err = HEW_ERR_INIT;
        task_ctx_prepare(t);
        if (task_stream_start(t, &err) != HEW_OK) {
            api_error e;
            api_error_init(&e);
            e.category = API_ERR_BAD_REQUEST;
            snprintf(e.message, sizeof e.message, "%s", err.msg);
            redact_inplace(e.message, sizeof e.message);
            t->stream.error = e;
            t->stream.done = true;
        } else {
            wait_first_chunk(t);
        }
        if (abort_is_set(t->abort)) {
            task_stream_join(t);
            return HEW_E_ABORTED;
        }
        pthread_mutex_lock(&t->mu);
        bool first = t->stream.first_chunk;
        pthread_mutex_unlock(&t->mu);
        if (first) {
            task_totals_failure(t, NULL); /* a failure asked about before is over */
            task_request_streaming(t, failures);
            return HEW_OK; /* streaming: task_loop consumes it */
        }

        /* Failed before the first chunk: a clean state, safe to retry. */
        task_stream_join(t);
        api_error e = t->stream.error;
        if (e.category == API_ERR_ABORTED && abort_is_set(t->abort))
            return HEW_E_ABORTED;
        failures++;

        if (e.category == API_ERR_CONTEXT_WINDOW) {
            if (!t->did_auto_truncate) {
                t->did_auto_truncate = true;
                task_ctx_truncate(t, CONTEXT_KEEP_QUARTER);
                continue;
            }
            if (task_ctx_active_messages(t) > 3) {
                snprintf(e.message, sizeof e.message, "%s",
                         "The conversation is too long for the model's context window. "
                         "Retry to remove older messages and try again.");
                t->did_auto_truncate = false; /* a retry truncates again */
            } else {
                snprintf(e.message, sizeof e.message, "%s",
                         "The conversation no longer fits in the model's context window, "
                         "even with older messages removed: the task text or the last tool "
                         "result alone is too large. Start a new task with a shorter "
                         "request, or use a model with a larger context window.");
            }
        }

        bool auto_retry = task_error_auto_retry(&e) &&
                          t->auto_retry_attempts < TASK_MAX_AUTO_RETRIES;
        if (auto_retry) {
            t->auto_retry_attempts++;
            double delay_s = task_retry_delay_s(t, &e, t->auto_retry_attempts);
            json_t *status = json_pack("{s:i, s:i, s:f, s:s}", "attempt",
                                       t->auto_retry_attempts, "maxAttempts", TASK_MAX_AUTO_RETRIES,
                                       "delaySec", delay_s, "errorSnippet", e.message);
            task_say_error_retry(t, t->auto_retry_attempts, delay_s, e.message, false);
            /* error_retry shows the error: drop it from api_req_started (no double display). */
            task_request_failed(t, &e, status, false);
            json_decref(status);
            if (abort_sleep(t->abort, (long)(delay_s * 1000.0)))
                return HEW_E_ABORTED;
            task_totals_retry(t);
            task_say(t, "api_req_retried", NULL, NULL, UIMSG_WHOLE);
            continue;
        }

        task_request_failed(t, &e, NULL, true);
        task_totals_failure(t, &e); /* what the task fails on unless retried */
        hew_log(HEW_LOG_WARN, "api", "request failed (%s, HTTP %ld): %s",
                api_error_category_name(e.category), e.http_status, e.message);
        if (task_error_auto_retry(&e)) {
            task_say_error_retry(t, TASK_MAX_AUTO_RETRIES, 0, e.message, true);
        }
        json_t *failure = json_pack("{s:s, s:s, s:I, s:b}", "message", e.message, "category",
                                    api_error_category_name(e.category), "status",
                                    (json_int_t)e.http_status, "retryable", e.retryable);
        if (t->settings->yolo) {
            json_decref(failure);
            task_say(t, "error", e.message, NULL, UIMSG_WHOLE);
            task_finish(t, HEW_TASK_FAILED, e.message);
            return HEW_E_INVALID;
        }
        tool_answer answer = { .kind = TOOL_ANSWER_NO };
        hew_code rc = task_ask(t, "api_req_failed", e.message, failure, UIMSG_WHOLE, &answer);
        json_decref(failure);
        bool again = rc == HEW_OK && answer.kind == TOOL_ANSWER_YES;
        tool_answer_release(&answer);
        if (rc != HEW_OK)
            return rc;
        if (!again) {
            task_finish(t, HEW_TASK_FAILED, e.message);
            return HEW_E_INVALID;
        }
        t->auto_retry_attempts = 0; /* the user's retry opens a new round of retries */
        t->did_auto_truncate = false;
        task_totals_retry(t);
        task_say(t, "api_req_retried", NULL, NULL, UIMSG_WHOLE);
    }
}
