/* resume — a stored task back into the loop, as Cline's resumeTaskFromHistory does: the
 * messages replayed to the front end; a trailing resume ask and an unfinished request
 * record dropped; the user asked whether (and how) to go on; the model told that the task
 * was interrupted and how long ago, with the user's new instructions if any. A last user
 * message that never got an answer is taken back and sent again with the resumption, and
 * every tool call of the last answer that has no result gets one (Cline's "interrupted"
 * text) first in it: every provider refuses a tool call left unanswered (HTTP 400).
 * Task thread only; everything it changes is written back to the store. */
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "store/store.h"
#include "sys/clock.h"
#include "task/responses.h"
#include "task/task.h"
#include "tools/registry.h"

static bool unfinished_request(const uimsg *m)
{
    if (strcmp(m->type, "api_req_started") != 0 || !m->data)
        return false;
    return !json_object_get(m->data, "cost") && !json_object_get(m->data, "cancelReason") &&
           !json_object_get(m->data, "tokensOut");
}

static void ago(long long ms, buf *out)
{
    long long s = ms / 1000;
    if (s < 60)
        buf_printf(out, "%lld seconds ago", s);
    else if (s < 3600)
        buf_printf(out, "%lld minutes ago", s / 60);
    else if (s < 86400)
        buf_printf(out, "%lld hours ago", s / 3600);
    else
        buf_printf(out, "%lld days ago", s / 86400);
}

/* Does the next user content already answer tool call id? */
static bool answered(const hew_task *t, const char *id)
{
    size_t i;
    json_t *b;
    json_array_foreach(t->user_content, i, b) {
        const char *rid = json_string_value(json_object_get(b, "tool_use_id"));
        if (rid && strcmp(rid, id) == 0 && strcmp(api_msg_block_type(b), "tool_result") == 0)
            return true;
    }
    return false;
}

/* Every tool call of the last answer gets a result in the resumption message (Cline's
 * resumeTaskFromHistory): the attempt_completion of a completed task says the user came
 * back; any other call was interrupted. */
static void answer_open_calls(hew_task *t, bool completed)
{
    size_t n = json_array_size(t->history);
    json_t *last = n ? json_array_get(t->history, n - 1) : NULL;
    const char *role = json_string_value(json_object_get(last, "role"));
    if (!role || strcmp(role, "assistant") != 0)
        return;
    json_t *tmp = NULL;
    json_t *blocks = api_msg_blocks(last, &tmp);
    size_t i;
    json_t *b;
    json_array_foreach(blocks, i, b) {
        const char *id = json_string_value(json_object_get(b, "id"));
        if (strcmp(api_msg_block_type(b), "tool_use") != 0 || !id || answered(t, id))
            continue;
        const char *name = json_string_value(json_object_get(b, "name"));
        bool reopened = completed && name && tool_is(registry_find(name), TOOL_COMPLETES);
        task_push_user_block(t, api_msg_tool_result(id, reopened ? RESP_COMPLETION_REOPENED
                                                                 : RESP_TOOL_INTERRUPTED,
                                                    !reopened));
    }
    json_decref(tmp);
}

hew_code task_resume_prepare(hew_task *t)
{
    buf why = BUF_INIT(0);
    buf_printf(&why, "cannot resume task %s: ", t->resume_id);
    if (task_persist_off(t, &why)) {
        task_say(t, "error", why.data, NULL, UIMSG_WHOLE);
        task_finish(t, HEW_TASK_FAILED, why.data);
        buf_release(&why);
        return HEW_E_NOTFOUND;
    }
    buf_release(&why);
    store_loaded l = STORE_LOADED_INIT;
    hew_err err = HEW_ERR_INIT;
    if (task_persist_load(t, &l, &err) != HEW_OK) {
        task_say(t, "error", err.msg, NULL, UIMSG_WHOLE);
        task_finish(t, HEW_TASK_FAILED, err.msg);
        return err.code;
    }
    /* The loop state. */
    json_decref(t->history);
    t->history = json_incref(l.history);
    context_range deleted = { .has = l.task.has_deleted,
                              .start = (size_t)l.task.deleted_start,
                              .end = (size_t)l.task.deleted_end };
    /* (the totals were loaded when the store opened: task_totals_begin) */
    task_ctx_restore(t, deleted, l.rewrites);
    /* The mode the user chose for this session wins; else the task's own. */
    if (l.task.mode && !t->settings->mode_chosen)
        task_mode_set(t, mode_or(l.task.mode, MODE_ACT));
    free(t->task_text);
    t->task_text = strdup(l.task.title ? l.task.title : "");
    long long last_ms = l.task.updated_ms;

    /* The messages, without a trailing resume ask or an unfinished request record. */
    size_t i;
    json_t *ev;
    json_array_foreach(l.ui, i, ev)
        uimsg_load(&t->ui, ev);
    while (t->ui.len) {
        const uimsg *m = &t->ui.items[t->ui.len - 1];
        if ((m->kind == UIMSG_ASK && (strcmp(m->type, "resume_task") == 0 ||
                                      strcmp(m->type, "resume_completed_task") == 0)) ||
            unfinished_request(m))
            uimsg_truncate(&t->ui, t->ui.len - 1);
        else
            break;
    }
    task_persist_ui_truncate(t, t->ui.len);
    bool completed = l.task.status && strcmp(l.task.status, "completed") == 0;
    pthread_mutex_lock(&t->mu);
    free(t->kept_status);
    free(t->kept_result);
    t->kept_status = l.task.status ? strdup(l.task.status) : NULL;
    t->kept_result = l.task.result ? strdup(l.task.result) : NULL;
    pthread_mutex_unlock(&t->mu);
    if (completed) {
        /* it stays completed in the store unless this run completes it again */
        free(t->completed_result);
        t->completed_result = strdup(l.task.result ? l.task.result : "");
    }
    store_loaded_release(&l);
    for (size_t k = 0; k < t->ui.len; k++)
        task_emit(t, (long)k); /* the front end sees the conversation so far */

    /* Ask how to go on. */
    tool_answer answer = { .kind = TOOL_ANSWER_YES };
    hew_code rc = task_ask(t, completed ? "resume_completed_task" : "resume_task", NULL, NULL,
                           UIMSG_WHOLE, &answer);
    if (rc != HEW_OK)
        return rc;
    if (answer.kind == TOOL_ANSWER_NO && !tool_answer_has_message(&answer)) {
        tool_answer_release(&answer);
        task_finish(t, HEW_TASK_ABORTED, "the user did not resume the task");
        return HEW_E_ABORTED;
    }
    /* the user's new message goes through the UserPromptSubmit hooks: refused, it is not
     * said, stored or sent, and the task does not go on */
    buf context = BUF_INIT(0);
    if (answer.text && *answer.text && task_hook_prompt(t, answer.text, &context)) {
        buf_release(&context);
        tool_answer_release(&answer);
        task_finish(t, HEW_TASK_FAILED, "a UserPromptSubmit hook refused the message");
        return HEW_E_ABORTED;
    }
    pthread_mutex_lock(&t->mu);
    t->status = HEW_TASK_RUNNING;
    free(t->kept_status); /* the user goes on: from here the run's status is stored */
    free(t->kept_result);
    t->kept_status = t->kept_result = NULL;
    pthread_mutex_unlock(&t->mu);

    /* A last user message with no answer is taken back and goes again. */
    size_t n = json_array_size(t->history);
    json_t *last = n ? json_array_get(t->history, n - 1) : NULL;
    const char *role = json_string_value(json_object_get(last, "role"));
    if (role && strcmp(role, "user") == 0) {
        json_t *tmp = NULL;
        json_t *blocks = api_msg_blocks(last, &tmp);
        size_t j;
        json_t *b;
        json_array_foreach(blocks, j, b) {
            const char *text = json_string_value(json_object_get(b, "text"));
            if (text && strstr(text, "<environment_details>") == text)
                continue; /* fresh details come with the new message */
            task_push_user_block(t, json_deep_copy(b));
        }
        json_decref(tmp);
        json_array_remove(t->history, n - 1);
        task_persist_api_truncate(t, n - 1);
    }
    answer_open_calls(t, completed);
    task_condense_resume(t); /* stopped while condensing: go on with it */
    buf note = BUF_INIT(0);
    buf_puts(&note, "[TASK RESUMPTION] This task was interrupted ");
    ago(clock_wall_ms() - last_ms, &note);
    buf_puts(&note, ". It may or may not be finished: look at where it stopped before going "
                    "on. The workspace may have changed since, so read files again before "
                    "relying on what you saw earlier. If the last tool use was not answered, "
                    "assume it did not happen.");
    if (answer.text && *answer.text) /* images alone follow the note by themselves */
        buf_printf(&note, "\n\nNew instructions for the rest of the task:\n<user_message>\n%s\n"
                          "</user_message>",
                   answer.text);
    task_push_user_text(t, note.data);
    task_take_feedback(t, &answer); /* said; its images after the note, as Cline sends them */
    if (context.len)
        task_push_user_text(t, context.data);
    buf_release(&context);
    buf_release(&note);
    tool_answer_release(&answer);
    task_persist_row(t, NULL, STORE_SET_STATUS);
    return HEW_OK;
}
