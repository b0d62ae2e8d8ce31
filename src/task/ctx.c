/* ctx — the task's side of context management: when to cut (the last request's total
 * tokens against the model's usable window), recording the deleted range with a note for
 * the user, and the view a request is built from. The arithmetic is in context/;
 * automatic condensing, which replaces the cut for capable models, is in condense.c.
 * Only this file touches hew_task.ctx. */
#include <string.h>

#include "store/store.h"
#include "task/task.h"
#include "tools/registry.h"

/* Record a new deleted range: the task state, the store, a note for the user. */
static void set_range(hew_task *t, context_range next)
{
    if (!next.has || (t->ctx.deleted.has && next.end == t->ctx.deleted.end))
        return;
    t->ctx.deleted = next;
    store_task row = STORE_TASK_INIT;
    row.has_deleted = next.has;
    row.deleted_start = (int64_t)next.start;
    row.deleted_end = (int64_t)next.end;
    task_persist_row(t, &row, STORE_SET_DELETED); /* persisted the moment it changes */
    json_t *info = json_pack("{s:I, s:I}", "start", (json_int_t)next.start, "end",
                             (json_int_t)next.end);
    task_say(t, "deleted_api_reqs", NULL, info, UIMSG_WHOLE);
    json_decref(info);
}

void task_ctx_truncate(hew_task *t, context_keep keep)
{
    set_range(t, context_next_range(t->history, t->ctx.deleted, keep));
}

int64_t task_ctx_last_total(const hew_task *t)
{
    const api_usage *u = task_request_usage(t);
    if (u->input_total < 0 && u->output < 0)
        return -1;
    /* input_total already counts cache reads and writes (normalized usage). */
    return (u->input_total > 0 ? u->input_total : 0) + (u->output > 0 ? u->output : 0);
}

/* What a tool's results are to the context collapse, from the registry's flags. */
static context_result_kind result_kind(const char *name, size_t len)
{
    char n[64];
    if (len >= sizeof n)
        return CONTEXT_RESULT_OTHER;
    memcpy(n, name, len);
    n[len] = '\0';
    const tool_def *def = registry_find(n);
    return tool_is(def, TOOL_RESULT_IS_FILE) ? CONTEXT_RESULT_READ
           : tool_is(def, TOOL_EDITS_FILES)  ? CONTEXT_RESULT_EDIT
                                             : CONTEXT_RESULT_OTHER;
}

bool task_ctx_plan(hew_task *t, context_plan *plan)
{
    int64_t total = task_ctx_last_total(t);
    if (total < 0 || context_plan_make(t->history, t->ctx.deleted, &t->ctx.rewrites,
                                       result_kind, total, t->session->model.context_window,
                                       plan) != HEW_OK)
        return false;
    /* Repeated reads collapsed first: each rewrite persisted, then applied. */
    for (size_t i = 0; i < plan->rewrites.len; i++) {
        const context_rewrite *rw = &plan->rewrites.items[i];
        task_persist_rewrite(t, rw->msg, rw->block, rw->text);
        context_rewrites_add(&t->ctx.rewrites, rw->msg, rw->block, rw->text);
    }
    return true;
}

void task_ctx_prepare(hew_task *t)
{
    if (t->ctx.decided)
        return; /* automatic condensing decided this request's context already */
    context_plan plan;
    if (!task_ctx_plan(t, &plan))
        return;
    if (plan.truncate)
        set_range(t, plan.range);
    context_plan_release(&plan);
}

size_t task_ctx_active_messages(const hew_task *t)
{
    return context_view_count(t->history, t->ctx.deleted);
}

json_t *task_ctx_view(const hew_task *t)
{
    return context_view_rw(t->history, t->ctx.deleted, &t->ctx.rewrites);
}

void task_ctx_decided(hew_task *t, bool decided)
{
    t->ctx.decided = decided;
}

bool task_ctx_can_cut(const hew_task *t)
{
    context_range next = context_next_range(t->history, t->ctx.deleted, CONTEXT_KEEP_NONE);
    return next.has && !(t->ctx.deleted.has && next.end == t->ctx.deleted.end);
}

void task_ctx_restore(hew_task *t, context_range deleted, const json_t *rewrites)
{
    t->ctx.deleted = deleted;
    context_rewrites_from_json(&t->ctx.rewrites, rewrites, NULL);
}

void task_ctx_release(hew_task *t)
{
    context_rewrites_release(&t->ctx.rewrites);
}
