/* ctx — the task's side of context management: when to cut (the last request's total
 * tokens against the model's usable window), recording the deleted range with a note for
 * the user, and the view a request is built from. The arithmetic is in context/. */
#include "store/store.h"
#include "task/task.h"

void task_ctx_truncate(hew_task *t, context_keep keep)
{
    context_range next = context_next_range(t->history, t->deleted, keep);
    if (next.has && (!t->deleted.has || next.end != t->deleted.end)) {
        t->deleted = next;
        task_persist_row(t, STORE_SET_DELETED); /* persisted the moment it changes */
        json_t *info = json_pack("{s:I, s:I}", "start", (json_int_t)next.start, "end",
                                 (json_int_t)next.end);
        task_say(t, "deleted_api_reqs", NULL, info, UIMSG_WHOLE);
        json_decref(info);
    }
}

void task_ctx_prepare(hew_task *t)
{
    const api_usage *u = &t->request_usage;
    if (u->input_total < 0 && u->output < 0)
        return;
    int64_t total = (u->input_total > 0 ? u->input_total : 0) + (u->output > 0 ? u->output : 0);
    int64_t allowed = context_max_allowed(t->session->model.context_window);
    if (total < allowed)
        return;
    task_ctx_truncate(t, total / 2 > allowed ? CONTEXT_KEEP_QUARTER : CONTEXT_KEEP_HALF);
}

size_t task_ctx_active_messages(const hew_task *t)
{
    return context_view_count(t->history, t->deleted);
}

json_t *task_ctx_view(const hew_task *t)
{
    return context_view(t->history, t->deleted);
}
