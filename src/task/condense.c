/* condense — automatic condensing (Cline's auto-condense, cline-spec §6.4): when the last
 * request came near the context window, the next request asks the model for a structured
 * summary instead of dropping older messages; once summarize_task took the summary, the
 * request after it shows the model only the first pair and the continuation prompt (the
 * summarize request and its answer are hidden with the rest). Never loops: a summary
 * that does not come is given up after one request, and the cut of ctx.c (truncation)
 * takes over until a request is under the threshold again.
 *
 * State (task.h, task_condense_part; only this file touches it) lives in memory; what a crash must not lose is derived
 * from the stored history on resume: a last answer that called summarize_task after a
 * request that asked for it is accepted again, and a request that asked and got no
 * answer asks again. Task thread only. */
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "task/task.h"
#include "tools/registry.h"
#include "tools/summarize_task.h"

/* ---- the history, read ---------------------------------------------------------------- */

static bool text_has(const json_t *b, const char *needle)
{
    const char *text = json_string_value(json_object_get(b, "text"));
    return text && strstr(text, needle) != NULL;
}

static bool text_starts(const json_t *b, const char *prefix)
{
    const char *text = json_string_value(json_object_get(b, "text"));
    return text && strncmp(text, prefix, strlen(prefix)) == 0;
}

static bool role_is(const json_t *msg, const char *role)
{
    const char *r = json_string_value(json_object_get(msg, "role"));
    return r && strcmp(r, role) == 0;
}

/* The message is a user message that asked for the summary. */
static bool asks_for_summary(const json_t *msg)
{
    if (!role_is(msg, "user"))
        return false;
    json_t *tmp = NULL;
    const json_t *blocks = api_msg_blocks(msg, &tmp);
    bool found = false;
    size_t i;
    const json_t *b;
    json_array_foreach(blocks, i, b)
        found = found || text_has(b, SUMMARIZE_TASK_INSTRUCTION_TAG);
    json_decref(tmp);
    return found;
}

/* The context of an XML <summarize_task> call in text (trimmed), or NULL. */
static char *xml_summary(const char *text)
{
    const char *call = strstr(text, "<summarize_task>");
    const char *open = call ? strstr(call, "<context>") : NULL;
    if (!open)
        return NULL;
    open += strlen("<context>");
    const char *close = strstr(open, "</context>");
    if (!close)
        close = open + strlen(open);
    while (open < close && strchr(" \t\r\n", *open))
        open++;
    while (close > open && strchr(" \t\r\n", close[-1]))
        close--;
    return strndup(open, (size_t)(close - open));
}

/* The summary an assistant message gave with summarize_task (native or XML), or NULL. */
static char *summary_of(const json_t *msg)
{
    if (!role_is(msg, "assistant"))
        return NULL;
    json_t *tmp = NULL;
    const json_t *blocks = api_msg_blocks(msg, &tmp);
    char *summary = NULL;
    size_t i;
    const json_t *b;
    json_array_foreach(blocks, i, b) {
        const char *type = api_msg_block_type(b);
        const char *name = json_string_value(json_object_get(b, "name"));
        if (!summary && strcmp(type, "tool_use") == 0 && name &&
            tool_is(registry_find(name), TOOL_SUMMARY)) {
            const char *c = json_string_value(json_object_get(json_object_get(b, "input"), "context"));
            summary = c && *c ? strdup(c) : NULL;
        } else if (!summary && strcmp(type, "text") == 0) {
            summary = xml_summary(json_string_value(json_object_get(b, "text")));
        }
    }
    json_decref(tmp);
    return summary;
}

/* ---- the three steps ------------------------------------------------------------------- */

/* The hidden answer's tool results go on as text: as tool_results they would answer a
 * tool_use the model no longer sees (and the view would drop them). */
static void results_as_text(hew_task *t)
{
    size_t i;
    json_t *b;
    json_array_foreach(t->user_content, i, b) {
        if (strcmp(api_msg_block_type(b), "tool_result") != 0)
            continue;
        char *text = api_msg_tool_result_text(b);
        json_t *as_text = api_msg_text(text ? text : "", text ? strlen(text) : 0);
        free(text);
        if (as_text)
            json_array_set_new(t->user_content, i, as_text);
    }
}

/* The summary was accepted: drop everything after the first pair, this request's user
 * message excepted (it holds the continuation prompt). */
static void cut_after_summary(hew_task *t)
{
    t->condense.state = TASK_CONDENSE_NONE;
    task_ctx_decided(t, true); /* the last usage measured the conversation before the cut */
    results_as_text(t);
    size_t before = task_ctx_active_messages(t);
    task_ctx_truncate(t, CONTEXT_KEEP_NONE);
    size_t after = task_ctx_active_messages(t);
    if (before <= after)
        return; /* cut before a crash already: said then */
    json_t *info = json_pack("{s:I}", "removed", (json_int_t)(before - after));
    task_say(t, "condensed",
             "The conversation was condensed automatically: the model goes on from its "
             "summary instead of the older messages.",
             info, UIMSG_WHOLE);
    json_decref(info);
}

/* The summary did not come (another answer, an error): truncation instead, until a
 * request is under the threshold again. */
static void give_up_summary(hew_task *t)
{
    t->condense.state = TASK_CONDENSE_NONE;
    t->condense.blocked = true;
}

/* Whether this request should ask for a summary instead of cutting. Applies the
 * collapse of repeated reads first (ctx.c), which may make either unnecessary. */
static bool summary_needed(hew_task *t)
{
    int64_t total = task_ctx_last_total(t);
    if (!t->session->auto_condense || total < 0)
        return false;
    if (!context_over(total, t->session->model.context_window)) {
        t->condense.blocked = false;
        return false;
    }
    if (t->condense.blocked || task_ctx_active_messages(t) <= 2)
        return false;
    if (!task_ctx_can_cut(t))
        return false; /* nothing the summary could replace */
    context_plan plan;
    if (!task_ctx_plan(t, &plan))
        return false;
    bool needed = !(plan.rewrites.len > 0 && plan.savings >= CONTEXT_COLLAPSE_ENOUGH);
    context_plan_release(&plan);
    task_ctx_decided(t, true);
    return needed;
}

static void ask_for_summary(hew_task *t)
{
    task_hook_pre_compact(t, false);
    t->condense.state = TASK_CONDENSE_ASKED;
    task_ctx_decided(t, true);
    int64_t total = task_ctx_last_total(t);
    json_t *info = json_pack("{s:I, s:I}", "tokens", (json_int_t)(total > 0 ? total : 0),
                             "limit",
                             (json_int_t)context_max_allowed(t->session->model.context_window));
    task_say(t, "condensing",
             "The conversation is close to the model's context window: the model is asked "
             "to summarise it, and the task goes on from the summary.",
             info, UIMSG_WHOLE);
    json_decref(info);
    buf instruction = BUF_INIT(0);
    summarize_task_instruction(t->session->native_tools, &instruction);
    task_push_user_text(t, instruction.data ? instruction.data : "");
    buf_release(&instruction);
}

bool task_condense_begin(hew_task *t)
{
    task_ctx_decided(t, false);
    if (t->condense.state == TASK_CONDENSE_ACCEPTED) {
        cut_after_summary(t);
        return false;
    }
    if (t->condense.state == TASK_CONDENSE_ASKED) {
        give_up_summary(t);
        return false;
    }
    bool rearm = t->condense.rearm && t->session->auto_condense;
    t->condense.rearm = false;
    if (!rearm && !summary_needed(t))
        return false;
    ask_for_summary(t);
    return true;
}

bool task_condense_accept(hew_task *t)
{
    if (t->condense.state != TASK_CONDENSE_ASKED)
        return false;
    t->condense.state = TASK_CONDENSE_ACCEPTED;
    return true;
}

bool task_condense_asked(const hew_task *t)
{
    return t->condense.state == TASK_CONDENSE_ASKED;
}

/* ---- resume ------------------------------------------------------------------------------ */

/* Drop the instruction from the taken-back user content; true when it was there. */
static bool take_instruction_back(hew_task *t)
{
    for (size_t i = json_array_size(t->user_content); i-- > 0;) {
        if (text_starts(json_array_get(t->user_content, i), SUMMARIZE_TASK_INSTRUCTION_TAG)) {
            json_array_remove(t->user_content, i);
            return true;
        }
    }
    return false;
}

static bool has_continuation(const hew_task *t)
{
    size_t i;
    json_t *b;
    json_array_foreach(t->user_content, i, b)
        if (text_starts(b, SUMMARIZE_TASK_CONTINUATION_START))
            return true;
    return false;
}

void task_condense_resume(hew_task *t)
{
    bool asked = take_instruction_back(t); /* the request went, no answer was stored */
    size_t n = json_array_size(t->history);
    char *summary = NULL;
    if (n >= 2 && asks_for_summary(json_array_get(t->history, n - 2))) {
        summary = summary_of(json_array_get(t->history, n - 1));
        asked = asked || !summary; /* an answer cut short, without the summary */
    }
    if (summary) {
        /* the summary was given: the conversation goes on from it */
        if (!has_continuation(t)) {
            buf text = BUF_INIT(0);
            summarize_task_continuation(&t->env, summary, &text);
            task_push_user_text(t, text.data ? text.data : "");
            buf_release(&text);
        }
        t->condense.state = TASK_CONDENSE_ACCEPTED;
    } else if (asked) {
        t->condense.rearm = true; /* asked, never answered: ask again */
    }
    free(summary);
}
