/* task — say, ask and the task's lifecycle helpers shared by the loop's files: the one
 * place messages for the user are made (uimsg) and sent to the front end as events. Runs
 * on the task thread, except hew_task_respond's side (lib/task_api.c) which only touches
 * the ask fields under mu. Never holds mu while calling the front end. */
#include "task/task.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/message.h"
#include "store/store.h"
#include "base/json.h"
#include "base/redact.h"
#include "task/evkind.h"
#include "tools/execute_command.h"

/* What hew_event_json builds an event's line from (an event carries a pointer to it). */
struct hew_event_line {
    hew_task *t;
    long index;
    size_t offset;    /* the append's offset (a partial update carries only its append) */
    const char *line; /* built, or NULL */
};

const char *task_event_line(struct hew_event_line *l)
{
    if (l->line)
        return l->line;
    hew_task *t = l->t;
    buf *line = &t->event_line; /* kept from event to event: no allocation per update */
    buf_reset(line);
    if (t->ui.items[l->index].partial) /* an update carries what was appended */
        uimsg_to_json_append(&t->ui, (size_t)l->index, l->offset, line);
    else
        uimsg_to_json(&t->ui, (size_t)l->index, line);
    if (line->len && !line->err) { /* the event names its task (ids need no escaping) */
        buf_truncate(line, line->len - 1);
        buf_printf(line, ",\"task\":\"%s\"}", t->task_id);
    }
    l->line = line->len && !line->err ? line->data : "{}";
    return l->line;
}

void task_emit(hew_task *t, long i)
{
    if (i < 0 || (size_t)i >= t->ui.len)
        return;
    if (!task_persist_restore(t, i))
        return; /* a let-go text the store cannot give back: nothing to say it with */
    const uimsg *m = &t->ui.items[i];
    size_t offset = 0, delta_len = 0;
    const char *delta = uimsg_take_append(&t->ui, (size_t)i, &offset, &delta_len);
    /* Two consumers of the same message, side by side: the store (with or without a front
     * end) and the front end. Neither builds the message's JSON line unless it needs it:
     * the store writes a final message that grew by appends by one more append. */
    task_persist_ui(t, i, offset);
    if (!t->settings->on_event) {
        task_persist_let_go(t, i);
        return;
    }
    buf data = BUF_INIT(0);
    if (m->data)
        json_dump_into(m->data, &data, JSON_COMPACT | JSON_PRESERVE_ORDER);
    struct hew_event_line line = { t, i, offset, NULL };
    hew_event ev = {
        .version = HEW_EVENT_VERSION,
        .index = i,
        .ts = m->ts,
        .is_ask = m->kind == UIMSG_ASK,
        .type = m->type,
        .text = uimsg_text(&t->ui, (size_t)i),
        .data_json = m->data ? data.data : NULL,
        .partial = m->partial,
        .kind = evkind_of(m->type),
        .append_offset = offset,
        .append_text = m->has_text ? delta : NULL,
        .append_len = delta_len,
        .line_ = &line,
    };
    t->settings->on_event(t->settings->event_ud, t, &ev);
    buf_release(&data);
    task_persist_let_go(t, i); /* the front end has seen it, the store holds it */
    /* Do not sit on a copy of a huge text between messages. */
    if (t->event_line.cap > ((size_t)1 << 20))
        buf_release(&t->event_line);
}

/* The store failed on the message just made or earlier: say so, once (persist.c sits
 * below this file and says nothing itself). */
static void say_store_note(hew_task *t)
{
    char note[HEW_ERR_MSG_MAX + 64];
    if (task_persist_take_note(t, note, sizeof note))
        task_say(t, "error", note, NULL, UIMSG_WHOLE);
}

/* Says that carry what others wrote (errors of providers, MCP servers and tools; the
 * servers' notices): their text is redacted before it is stored or sent. */
static const char *const redacted_says[] = { "error", "mcp_notification" };

long task_say(hew_task *t, const char *type, const char *text, json_t *data,
              uimsg_partial partial)
{
    char *clean = NULL;
    for (size_t k = 0; text && k < sizeof redacted_says / sizeof redacted_says[0]; k++)
        if (strcmp(type, redacted_says[k]) == 0 && redact_found(text, strlen(text)))
            clean = redact_dup(text);
    long i = uimsg_put(&t->ui, UIMSG_SAY, type, clean ? clean : text, data, partial);
    free(clean);
    task_emit(t, i);
    say_store_note(t);
    return i;
}

void task_take_feedback(hew_task *t, tool_answer *a)
{
    if (!tool_answer_has_message(a))
        return;
    json_t *data = tool_answer_data(a);
    task_say(t, "user_feedback", a->text ? a->text : "", data, UIMSG_WHOLE);
    json_decref(data);
    size_t i;
    json_t *img;
    json_array_foreach(a->images, i, img)
        task_push_user_block(t, json_incref(img));
    json_decref(a->images);
    a->images = NULL;
}

void task_say_error_retry(hew_task *t, int attempt, double delay_s, const char *message,
                          bool failed)
{
    json_t *retry = json_pack("{s:i, s:i, s:f, s:s}", "attempt", attempt, "maxAttempts",
                              TASK_MAX_AUTO_RETRIES, "delaySeconds", delay_s, "errorMessage",
                              message ? message : "");
    if (failed)
        json_object_set_new(retry, "failed", json_true());
    task_say(t, "error_retry", NULL, retry, UIMSG_WHOLE);
    json_decref(retry);
}

hew_code task_ask(hew_task *t, const char *type, const char *text, json_t *data,
                  uimsg_partial partial, tool_answer *answer)
{
    if (abort_is_set(t->abort))
        return HEW_E_ABORTED;
    /* Open the rendezvous before the front end hears of the ask, so that an answer given
     * from inside the event callback is not lost. */
    if (partial != UIMSG_PARTIAL)
        task_ask_open(t);

    long i = uimsg_put(&t->ui, UIMSG_ASK, type, text, data, partial);
    task_emit(t, i);
    say_store_note(t);
    if (partial == UIMSG_PARTIAL)
        return HEW_OK;

    return task_ask_wait(t, answer);
}

void task_push_user_block(hew_task *t, json_t *b)
{
    if (!b)
        return;
    if (!t->user_content)
        t->user_content = json_array();
    json_array_append_new(t->user_content, b);
}

void task_push_user_text(hew_task *t, const char *text)
{
    task_push_user_block(t, api_msg_text(text, strlen(text)));
}

void task_finish(hew_task *t, hew_task_status status, const char *result)
{
    /* nothing the task started may outlive it (commands left running in the background) */
    execute_command_stop_background(&t->env);
    pthread_mutex_lock(&t->mu);
    bool changed = t->status == HEW_TASK_RUNNING;
    if (changed) {
        t->status = status;
        free(t->result);
        t->result = strdup(result ? result : "");
    }
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    task_totals_end(t);
    if (changed)
        task_totals_store(t, STORE_SET_STATUS);
}
