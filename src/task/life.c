/* life — a task's life: task_new makes it (the mutex, the condition variable on the
 * monotonic clock, the abort tokens, each part's initial state), task_start runs
 * task_main on its own thread, task_abort stops it from any thread, task_join waits for
 * it, task_free ends and frees it. The one place a hew_task is allocated and freed:
 * lib/task_api.c only translates the public API to these. Never says anything, never
 * touches the store, never frees a task whose thread still runs. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sys/clock.h"
#include "task/task.h"

static void wake_task(void *ud)
{
    hew_task *t = ud;
    pthread_mutex_lock(&t->mu);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

/* A new task's id: the time in ms, never one this process gave out before (two tasks in
 * the same millisecond get consecutive ones), so the store keeps it as is. */
static long long next_task_id(void)
{
    static _Atomic long long last;
    long long now = clock_wall_ms(), prev = atomic_load(&last);
    for (;;) {
        long long id = now > prev ? now : prev + 1;
        if (atomic_compare_exchange_weak(&last, &prev, id))
            return id;
    }
}

/* Everything a task holds (its thread joined or never started). */
static void release(hew_task *t)
{
    task_stream_reset(t);
    api_turn_release(&t->stream.turn);
    free(t->stream.spill_dir);
    abort_free(t->stream.abort);
    task_ckpt_release(t);
    abort_free(t->abort);
    uimsg_list_release(&t->ui);
    json_decref(t->history);
    task_ctx_release(t);
    task_prompt_release(t);
    json_decref(t->user_content);
    task_ask_release(t);
    task_present_release(t);
    buf_release(&t->event_line);
    task_persist_release(t);
    task_totals_release(t);
    free(t->loop_signature);
    json_decref(t->answer_images);
    free(t->task_text);
    json_decref(t->task_images);
    json_decref(t->task_captions);
    free(t->resume_id);
    free(t->completed_result);
    free(t->kept_status);
    free(t->kept_result);
    free(t->result);
    free(t->successor);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

void task_attach_images(hew_task *t, json_t *images, json_t *captions)
{
    json_decref(t->task_images);
    json_decref(t->task_captions);
    t->task_images = images;
    t->task_captions = captions;
}

hew_task *task_new(hew_session *s, const char *text, const char *resume_id, hew_err *err)
{
    hew_task *t = calloc(1, sizeof *t);
    if (!t) {
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
        return NULL;
    }
    t->session = s;
    t->settings = &s->settings;
    pthread_mutex_init(&t->mu, NULL);
    clock_cond_init(&t->cv); /* its timed waits measure the monotonic clock */
    t->abort = abort_new();
    t->stream.abort = abort_new();
    /* The id is known before the thread starts (a resumed task keeps its own), so
     * hew_task_id is stable from the first call and only this thread writes it. */
    if (resume_id)
        snprintf(t->task_id, sizeof t->task_id, "%s", resume_id);
    else if (s->settings.task_id)
        snprintf(t->task_id, sizeof t->task_id, "%s", s->settings.task_id);
    else
        snprintf(t->task_id, sizeof t->task_id, "%lld", next_task_id());
    t->task_text = strdup(text ? text : "");
    t->resume_id = resume_id ? strdup(resume_id) : NULL;
    t->history = json_array();
    t->status = HEW_TASK_RUNNING;
    task_present_init(t);
    buf_init(&t->event_line, 0);
    task_persist_init(t);
    api_turn_init(&t->stream.turn);
    task_mode_set(t, s->settings.mode);
    task_request_init(t);
    task_totals_init(t);
    bool ckpt = task_ckpt_init(t);
    if (!t->abort || !t->stream.abort || !ckpt || !t->task_text || !t->history ||
        (resume_id && !t->resume_id)) {
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
        release(t);
        return NULL;
    }
    /* Wake the task thread's waits (asks, the stream) at once on abort; the listener
     * lives as long as the token. */
    abort_listen(t->abort, wake_task, t);
    return t;
}

hew_code task_start(hew_task *t, hew_err *err)
{
    if (t->thread_started)
        return hew_err_set(err, HEW_E_INVALID, "the task runs already");
    if (pthread_create(&t->thread, NULL, task_main, t) != 0)
        return hew_err_set(err, HEW_E_INTERNAL, "cannot start the task thread");
    t->thread_started = true;
    return HEW_OK;
}

void task_abort(hew_task *t, const char *reason)
{
    if (!t)
        return;
    abort_trigger(t->abort, reason && *reason ? reason : "aborted by the user");
    abort_trigger(t->stream.abort, "the task was aborted");
}

void task_join(hew_task *t)
{
    if (!t->thread_started)
        return;
    pthread_join(t->thread, NULL);
    t->thread_started = false;
}

void task_free(hew_task *t)
{
    if (!t)
        return;
    if (t->thread_started) {
        task_abort(t, "the task was freed");
        task_join(t);
    }
    release(t);
}

hew_task_status task_status(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    hew_task_status s = t->status;
    pthread_mutex_unlock(&t->mu);
    return s;
}

const char *task_result(const hew_task *t)
{
    return t->result ? t->result : "";
}

const char *task_successor(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    const char *text = t->successor;
    pthread_mutex_unlock(&t->mu);
    return text;
}
