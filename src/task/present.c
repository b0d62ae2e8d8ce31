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
#include "sys/clock.h"
#include "task/text_clean.h"
#include "tools/registry.h"

/* Partial text is shown at most every 40 ms (a screen needs no more); the final text
 * always at once. The interval only saves redraws: an update costs what was appended
 * (the cleaner works by appends, the event carries the append), not the text's length. */
#define PARTIAL_TEXT_INTERVAL_MS 40

static void task_present_reset_text(hew_task *t);

void task_present_init(hew_task *t)
{
    buf_init(&t->present.scratch, 0);
    text_cleaner_init(&t->present.cleaner, false);
    t->present.msg = -1;
}

void task_present_release(hew_task *t)
{
    buf_release(&t->present.scratch);
    text_cleaner_release(&t->present.cleaner);
}

bool task_present_past(const hew_task *t, size_t n)
{
    return t->present.index >= n;
}

void task_present_reset(hew_task *t)
{
    t->present.index = 0;
    t->present.seq = 0;
    t->present.last_partial_ms = 0;
    task_present_reset_text(t);
}

/* The block presented is finished: the next one starts fresh. */
static void next_block(hew_task *t)
{
    size_t next = t->present.index + 1;
    task_present_reset(t);
    t->present.index = next;
}

/* Text and reasoning, under mu: the block's new bytes cleaned straight into its message
 * (one copy of the text, work in proportion to what was appended). Returns the index of
 * the message to emit, or -1 when there is nothing to say yet (a partial text that
 * cleans to nothing makes no message). */
/* The text being cleaned is given up (its message stays as it is). */
static void task_present_reset_text(hew_task *t)
{
    text_cleaner_release(&t->present.cleaner);
    buf_reset(&t->present.scratch);
    t->present.msg = -1;
    t->present.started = false;
}

static long present_text(hew_task *t, const block *b, const char *type, uimsg_partial up)
{
    size_t from = 0, len = 0;
    const char *text = block_text_from(b, &from, &len); /* the text from position from on */
    size_t n = from + len;
    long i = t->present.msg;
    if (i >= 0 && ((size_t)i + 1 != t->ui.len || !t->ui.items[i].partial)) {
        /* another message came after it: this text goes on as a new message, which starts
         * with what the old one shows — the cleaner's output so far, so the cleaner goes
         * on from where it is (the block's start is gone: dropped as it was shown) */
        const char *shown = uimsg_text(&t->ui, (size_t)i);
        buf_reset(&t->present.scratch);
        buf_append(&t->present.scratch, shown ? shown : "", shown ? strlen(shown) : 0);
        i = -1;
    }
    if (!t->present.started) {
        t->present.cleaner.verbatim = b->type != BLOCK_TEXT;
        t->present.started = true;
    }
    bool partial = up == UIMSG_PARTIAL;
    size_t changed = 0;
    buf *out = i >= 0 ? uimsg_text_buf(&t->ui, (size_t)i) : &t->present.scratch;
    text_cleaner_feed_from(&t->present.cleaner, text, from, n, partial, out, &changed);
    if (i >= 0) {
        uimsg_text_changed(&t->ui, (size_t)i, changed, up);
    } else {
        if (!t->present.scratch.len && partial)
            return -1;
        i = uimsg_put_buf(&t->ui, UIMSG_SAY, type, up, &t->present.scratch);
    }
    /* what the cleaner has consumed is in the message now: the block gives it up */
    parser_drop_text(t->stream.parser, t->present.index, t->present.cleaner.in);
    t->present.msg = partial ? i : -1;
    return i;
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
    if (!task_tools_blocked(t) && !tool_is(def, TOOL_READ_ONLY)) {
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
        if (t->present.index >= n) {
            pthread_mutex_unlock(&t->mu);
            return HEW_OK;
        }
        const block *b = parser_block(t->stream.parser, t->present.index);
        bool blocked = task_tools_blocked(t);
        if (b->partial && !blocked) {
            if (b->seq == t->present.seq) {
                pthread_mutex_unlock(&t->mu); /* nothing new in this block */
                return HEW_OK;
            }
            if (b->type != BLOCK_TOOL_USE &&
                clock_now_ms() - t->present.last_partial_ms < PARTIAL_TEXT_INTERVAL_MS) {
                pthread_mutex_unlock(&t->mu); /* shown a moment ago: coalesce */
                return HEW_OK;
            }
        }
        if (b->type != BLOCK_TOOL_USE) {
            bool partial = b->partial;
            uimsg_partial up = partial ? UIMSG_PARTIAL : UIMSG_FINAL;
            t->present.seq = b->seq;
            long said = blocked ? -1
                                : present_text(t, b, b->type == BLOCK_TEXT ? "text" : "reasoning",
                                               up);
            if (!partial) /* shown whole: its message holds it now, the history the turn's */
                parser_release_text(t->stream.parser, t->present.index);
            pthread_mutex_unlock(&t->mu);
            if (said >= 0)
                task_emit(t, said);
            if (partial)
                t->present.last_partial_ms = clock_now_ms();
            if (partial && !task_tools_blocked(t))
                return HEW_OK;
            next_block(t);
            continue;
        }
        snapshot s;
        snapshot_take(b, &s);
        pthread_mutex_unlock(&t->mu);

        t->present.seq = s.seq;
        hew_code rc = present_tool(t, &s);
        bool advance = !s.partial || task_tools_blocked(t);
        snapshot_release(&s);
        if (rc != HEW_OK)
            return rc;
        if (!advance)
            return HEW_OK;
        /* The block is finished: go on with the next one at once if it is there. */
        next_block(t);
    }
}
