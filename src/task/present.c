/* present — present_assistant_message (seed 000): walks the answer's blocks by
 * current_index and pushes each to the user or the tool executor. Cline's lock + "pending
 * updates" flag become the task mutex + condition variable: the stream thread changes the
 * blocks under mu and signals; this function copies the block it looks at under mu (the
 * cloneDeep of the seed), releases mu, and only then says or runs anything — so the
 * stream keeps being read while a tool waits for approval. Index past the end is normal
 * (wait for the stream). Runs on the task thread only. */
#include <stdlib.h>
#include <string.h>

#include "task/task.h"
#include "task/text_clean.h"
#include "tools/registry.h"

/* Partial text is shown at most every 40 ms, and less often as it grows (each update
 * re-sends the whole text: 20 ns per byte of pause keeps that cost a small fraction of
 * the stream however long the text gets); the final text always at once. */
#define PARTIAL_TEXT_INTERVAL_MS 40
#define PARTIAL_TEXT_NS_PER_BYTE 20

/* Texts at least this long are cleaned straight into their message (see below). */
#define LARGE_TEXT 4096

static long long partial_interval_ms(size_t len)
{
    return PARTIAL_TEXT_INTERVAL_MS + (long long)(len * PARTIAL_TEXT_NS_PER_BYTE / 1000000);
}

/* A copy of one tool block, taken under mu (text blocks are cleaned straight from the
 * block instead). */
typedef struct snapshot {
    block_type type;
    bool partial;
    bool native;
    uint64_t seq;
    char *name;
    char *id;
    char *args_error;
    char *raw_args;     /* a complete native call's arguments as received */
    size_t nparams;
    char **keys;
    char **values;
} snapshot;

static void snapshot_release(snapshot *s)
{
    free(s->name);
    free(s->id);
    free(s->args_error);
    free(s->raw_args);
    for (size_t i = 0; i < s->nparams; i++) {
        free(s->keys[i]);
        free(s->values[i]);
    }
    free(s->keys);
    free(s->values);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void snapshot_take(const block *b, snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->type = b->type;
    s->partial = b->partial;
    s->native = b->native;
    s->seq = b->seq;
    s->name = dup_or_null(b->name);
    s->id = dup_or_null(b->id);
    s->args_error = dup_or_null(b->args_error);
    if (b->native && !b->partial)
        s->raw_args = strndup(b->args.data ? b->args.data : "", b->args.len);
    s->keys = calloc(b->nparams + 1, sizeof *s->keys);
    s->values = calloc(b->nparams + 1, sizeof *s->values);
    if (!s->keys || !s->values)
        return;
    for (size_t i = 0; i < b->nparams; i++) {
        size_t n = 0;
        const char *v = block_param_value(b, i, &n);
        s->keys[i] = strdup(block_param_name(b, i));
        s->values[i] = strndup(v ? v : "", n);
        s->nparams++;
    }
}

bool task_tools_blocked(const hew_task *t)
{
    return t->did_reject_tool || (!t->settings->parallel_tool_calls && t->did_already_use_tool);
}

static hew_code present_tool(hew_task *t, const snapshot *s)
{
    tool_call call = {
        .name = s->name ? s->name : "",
        .id = s->id,
        .nparams = s->nparams,
        .keys = (const char *const *)s->keys,
        .values = (const char *const *)s->values,
        .partial = s->partial,
        .native = s->native,
        .invalid_args = s->args_error,
        .raw_args = s->raw_args,
    };
    if (s->partial && !task_tools_blocked(t)) {
        executor_partial(t, &call); /* UI only; it runs when complete */
        return HEW_OK;
    }
    /* The checkpoint gate (seed 000): a tool that may change the workspace waits for the
     * initial checkpoint commit; read-only tools go ahead. */
    const tool_def *def = registry_find(call.name);
    if (!task_tools_blocked(t) && (!def || !def->read_only)) {
        hew_code rc = task_ckpt_wait(t);
        if (rc != HEW_OK)
            return rc;
    }
    return executor_run(t, &call);
}

hew_code present_assistant_message(hew_task *t)
{
    for (;;) {
        if (abort_is_set(t->abort))
            return HEW_E_ABORTED;
        pthread_mutex_lock(&t->mu);
        size_t n = t->stream.parser ? parser_count(t->stream.parser) : 0;
        if (t->current_index >= n) {
            pthread_mutex_unlock(&t->mu);
            return HEW_OK;
        }
        const block *b = parser_block(t->stream.parser, t->current_index);
        bool blocked = task_tools_blocked(t);
        if (b->partial && !blocked) {
            if (b->seq == t->presented_seq) {
                pthread_mutex_unlock(&t->mu); /* nothing new in this block */
                return HEW_OK;
            }
            if (b->type != BLOCK_TOOL_USE &&
                task_now_ms() - t->last_partial_say_ms < partial_interval_ms(b->content.text.len)) {
                pthread_mutex_unlock(&t->mu); /* shown a moment ago: coalesce */
                return HEW_OK;
            }
        }
        if (b->type != BLOCK_TOOL_USE) {
            /* Text and reasoning: cleaned straight from the block into a buffer the task
             * keeps (no copy of the block, no allocation per update), then said. */
            bool partial = b->partial;
            block_type type = b->type;
            const char *say_type = type == BLOCK_TEXT ? "text" : "reasoning";
            uimsg_partial up = partial ? UIMSG_PARTIAL : UIMSG_FINAL;
            t->presented_seq = b->seq;
            size_t len = 0;
            const char *text = block_text(b, &len);
            if (!text)
                text = "";
            long said = -1;
            if (!blocked && len >= LARGE_TEXT) {
                /* A long text is cleaned straight into its message: one copy, not two
                 * (it cannot clean down to nothing, so the message is never empty). */
                buf *into = uimsg_put_text(&t->ui, UIMSG_SAY, say_type, up, &said);
                if (into && type == BLOCK_TEXT)
                    text_clean(text, len, partial, into);
                else if (into)
                    buf_append(into, text, len);
            } else {
                buf_reset(&t->say_scratch);
                if (!blocked && type == BLOCK_TEXT)
                    text_clean(text, len, partial, &t->say_scratch);
                else if (!blocked)
                    buf_append(&t->say_scratch, text, len);
            }
            pthread_mutex_unlock(&t->mu);
            if (said >= 0)
                task_emit(t, said);
            else if (!blocked && (t->say_scratch.len || !partial))
                task_say(t, say_type, t->say_scratch.data ? t->say_scratch.data : "", NULL, up);
            if (partial)
                t->last_partial_say_ms = task_now_ms();
            if (partial && !task_tools_blocked(t))
                return HEW_OK;
            t->current_index++;
            t->presented_seq = 0;
            t->last_partial_say_ms = 0;
            continue;
        }
        snapshot s;
        snapshot_take(b, &s);
        pthread_mutex_unlock(&t->mu);

        t->presented_seq = s.seq;
        hew_code rc = present_tool(t, &s);
        bool advance = !s.partial || task_tools_blocked(t);
        snapshot_release(&s);
        if (rc != HEW_OK)
            return rc;
        if (!advance)
            return HEW_OK;
        /* The block is finished: go on with the next one at once if it is there. */
        t->current_index++;
        t->presented_seq = 0;
        t->last_partial_say_ms = 0;
    }
}
