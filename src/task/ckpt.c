/* ckpt — the task's checkpoints (seed 000's gate, cline-spec §1.3 step 4, §10): the
 * initial commit started asynchronously with the first request (of a resumed task: its
 * first request in this run, kind "resumed"), one after each turn whose
 * tools changed something, one at attempt_completion. Tools that may change files wait for
 * every commit in flight (task_ckpt_wait), so each snapshot is of the state before
 * them. Each checkpoint is a checkpoint_created message that gets its commit hash when the
 * commit is done: the commits run on the checkpoint object's worker thread, whose callback
 * only records the result under mu; the task thread puts it on the message
 * (task_ckpt_flush). Checkpoints that cannot work (no git, a home folder as workspace) are
 * turned off with one note, never an error of the task. Only this file touches
 * hew_task.ckpt. */
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint.h"
#include "task/task.h"

/* What the worker hands back for one commit. */
typedef struct ckpt_note {
    hew_task *task;
    long msg_index;
    bool initial;
} ckpt_note;

static void commit_done(void *ud, hew_code code, const checkpoint_commit_info *info,
                        const hew_err *err)
{
    ckpt_note *note = ud;
    hew_task *t = note->task;
    pthread_mutex_lock(&t->mu);
    task_ckpt_part *p = &t->ckpt;
    if (p->nresults < TASK_CKPT_RESULTS_MAX) {
        task_ckpt_result *r = &p->results[p->nresults++];
        r->msg_index = note->msg_index;
        r->ok = code == HEW_OK;
        snprintf(r->hash, sizeof r->hash, "%s", code == HEW_OK ? info->hash : "");
        snprintf(r->error, sizeof r->error, "%s", code == HEW_OK || !err ? "" : err->msg);
    }
    if (p->in_flight > 0)
        p->in_flight--; /* open the gate, also on failure */
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    free(note);
}

static void commit(hew_task *t, checkpoint_kind kind)
{
    json_t *data = json_pack("{s:s}", "kind", checkpoint_kind_name(kind));
    long idx = task_say(t, "checkpoint_created", NULL, data, UIMSG_WHOLE);
    json_decref(data);
    ckpt_note *note = calloc(1, sizeof *note);
    hew_err err = HEW_ERR_INIT;
    if (!note) {
        hew_err_set(&err, HEW_E_NOMEM, "out of memory");
    } else {
        *note = (ckpt_note){ t, idx, kind == CHECKPOINT_INITIAL || kind == CHECKPOINT_RESUMED };
        /* Every commit in flight holds the gate: a tool that changes files must not run
         * before the snapshot of the state it changes is taken. */
        pthread_mutex_lock(&t->mu);
        t->ckpt.in_flight++;
        pthread_mutex_unlock(&t->mu);
        if (checkpoint_commit_async(t->ckpt.repo, kind, commit_done, note, &err) == HEW_OK)
            return;
        free(note);
        pthread_mutex_lock(&t->mu);
        t->ckpt.in_flight--;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
    }
    task_say(t, "error", err.msg, NULL, UIMSG_WHOLE);
}

bool task_ckpt_init(hew_task *t)
{
    t->ckpt.abort = abort_new();
    return t->ckpt.abort != NULL;
}

void task_ckpt_release(hew_task *t)
{
    abort_free(t->ckpt.abort);
    t->ckpt.abort = NULL;
}

void task_ckpt_initial(hew_task *t)
{
    if (!t->settings->checkpoints || t->ckpt.repo || t->ckpt.off)
        return;
    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = t->settings->cwd;
    o.task_id = t->task_id;
    o.data_dir = t->settings->data_dir;
    o.abort = t->ckpt.abort;
    hew_err err = HEW_ERR_INIT;
    if (checkpoint_open(&o, &t->ckpt.repo, &err) != HEW_OK) {
        t->ckpt.off = true;
        task_say(t, "info", err.msg, NULL, UIMSG_WHOLE);
        return;
    }
    commit(t, t->resume_id ? CHECKPOINT_RESUMED : CHECKPOINT_INITIAL);
}

hew_code task_ckpt_wait(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    while (t->ckpt.in_flight > 0 && !abort_is_set(t->abort))
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    return abort_is_set(t->abort) ? HEW_E_ABORTED : HEW_OK;
}

void task_ckpt_changed(hew_task *t)
{
    t->ckpt.turn_changed = true;
}

void task_ckpt_turn_end(hew_task *t, bool completed)
{
    bool changed = t->ckpt.turn_changed;
    t->ckpt.turn_changed = false;
    if (!t->ckpt.repo)
        return;
    if (completed)
        commit(t, CHECKPOINT_COMPLETION);
    else if (changed)
        commit(t, CHECKPOINT_TURN);
}

void task_ckpt_stop(hew_task *t)
{
    abort_trigger(t->ckpt.abort, "the task was aborted");
}

void task_ckpt_flush(hew_task *t)
{
    task_ckpt_result done[TASK_CKPT_RESULTS_MAX];
    pthread_mutex_lock(&t->mu);
    size_t n = t->ckpt.nresults;
    memcpy(done, t->ckpt.results, n * sizeof done[0]);
    t->ckpt.nresults = 0;
    pthread_mutex_unlock(&t->mu);
    for (size_t i = 0; i < n; i++) {
        if (done[i].msg_index < 0 || (size_t)done[i].msg_index >= t->ui.len)
            continue;
        json_t *data = json_deep_copy(t->ui.items[done[i].msg_index].data);
        if (done[i].ok)
            json_object_set_new(data, "hash", json_string(done[i].hash));
        else
            json_object_set_new(data, "error", json_string(done[i].error));
        uimsg_update(&t->ui, (size_t)done[i].msg_index, NULL, data);
        json_decref(data);
        task_emit(t, done[i].msg_index);
    }
}

void task_ckpt_close(hew_task *t)
{
    if (!t->ckpt.repo)
        return;
    checkpoint_drain(t->ckpt.repo);
    task_ckpt_flush(t);
    checkpoint_free(t->ckpt.repo);
    t->ckpt.repo = NULL;
}
