/* request — the current request's bookkeeping: its api_req_started message (made when the
 * request begins, changed by failures before the first chunk and by the end of the
 * stream) and the usage it reported, added to the totals once. Below the loop, the
 * attempt and the executor (all three call it; it calls none of them). Only this file
 * touches hew_task.request. Task thread only. */
#include "task/task.h"
#include "sys/clock.h"

void task_request_init(hew_task *t)
{
    t->request.index = -1;
    t->request.finished = false;
    t->request.usage = (api_usage)API_USAGE_UNKNOWN;
}

void task_request_begin(hew_task *t, const char *request)
{
    json_t *info = json_pack("{s:s}", "request", request ? request : "");
    t->request.index = task_say(t, "api_req_started", NULL, info, UIMSG_WHOLE);
    t->request.finished = false;
    json_decref(info);
}

/* A copy of the api_req_started message's data to change, or NULL when there is none. */
static json_t *data_copy(hew_task *t)
{
    if (t->request.index < 0)
        return NULL;
    json_t *data = t->ui.items[t->request.index].data;
    return data ? json_deep_copy(data) : json_object();
}

static void put(hew_task *t, json_t *data)
{
    uimsg_update(&t->ui, (size_t)t->request.index, NULL, data);
    json_decref(data);
    task_emit(t, t->request.index);
}

void task_request_failed(hew_task *t, const api_error *e, json_t *retry_status,
                         bool with_failure_message)
{
    json_t *copy = data_copy(t);
    if (!copy)
        return;
    if (with_failure_message && e)
        json_object_set_new(copy, "streamingFailedMessage", json_string(e->message));
    else
        json_object_del(copy, "streamingFailedMessage");
    if (retry_status)
        json_object_set(copy, "retryStatus", retry_status);
    json_object_set_new(copy, "cancelReason", json_string("streaming_failed"));
    put(t, copy);
}

/* The front ends skip the usage of a failed request, and Cline clears cancelReason when
 * the usage arrives; how many attempts failed stays as "retries". */
void task_request_streaming(hew_task *t, int failures)
{
    json_t *copy = failures ? data_copy(t) : NULL;
    if (!copy)
        return;
    json_object_del(copy, "cancelReason");
    json_object_del(copy, "streamingFailedMessage");
    json_object_del(copy, "retryStatus");
    json_object_set_new(copy, "retries", json_integer(failures));
    put(t, copy);
}

void task_request_finish(hew_task *t, const char *cancel_reason, const char *failure)
{
    if (t->request.index < 0 || t->request.finished)
        return;
    t->request.finished = true;
    api_usage u = t->stream.turn.usage;
    if (t->stream.turn.have_usage)
        t->request.usage = u;
    double cost = t->stream.turn.have_usage ? task_totals_add(t, &u) : -1;
    json_t *data = data_copy(t);
    if (t->stream.turn.have_usage) {
        json_object_set_new(data, "tokensIn", json_integer(u.input_uncached > 0 ? u.input_uncached : 0));
        json_object_set_new(data, "tokensOut", json_integer(u.output > 0 ? u.output : 0));
        json_object_set_new(data, "cacheWrites", json_integer(u.cache_write > 0 ? u.cache_write : 0));
        json_object_set_new(data, "cacheReads", json_integer(u.cache_read > 0 ? u.cache_read : 0));
        json_object_set_new(data, "tokensTotal", json_integer(u.input_total > 0 ? u.input_total : 0));
    }
    if (cost >= 0)
        json_object_set_new(data, "cost", json_real(cost));
    if (cancel_reason)
        json_object_set_new(data, "cancelReason", json_string(cancel_reason));
    if (failure)
        json_object_set_new(data, "streamingFailedMessage", json_string(failure));
    /* an answer the provider cut short (its output limit) or refused: said, for the front
     * ends that end a turn on it (hew acp's stopReason) */
    const api_turn *turn = &t->stream.turn;
    if (turn->complete && (turn->stop == API_STOP_LENGTH || turn->stop == API_STOP_CONTENT_FILTER))
        json_object_set_new(data, "stopReason", json_string(api_stop_name(turn->stop)));
    put(t, data);
}

void task_request_done(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    while (!t->stream.done && !abort_is_set(t->abort))
        pthread_cond_wait(&t->cv, &t->mu);
    bool ok = t->stream.done && t->stream.rc == HEW_OK;
    pthread_mutex_unlock(&t->mu);
    if (ok)
        task_request_finish(t, NULL, NULL);
}

void task_request_settle(hew_task *t, long wait_ms)
{
    long long deadline = clock_now_ms() + wait_ms;
    pthread_mutex_lock(&t->mu);
    while (!t->stream.done && !abort_is_set(t->abort) &&
           clock_cond_wait_until(&t->cv, &t->mu, deadline)) {
    }
    bool ok = t->stream.done && t->stream.rc == HEW_OK;
    pthread_mutex_unlock(&t->mu);
    if (ok)
        task_request_finish(t, NULL, NULL);
}

const api_usage *task_request_usage(const hew_task *t)
{
    return &t->request.usage;
}
