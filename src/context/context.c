/* context — deleted-range arithmetic, the truncated view with rewrites applied, the
 * thresholds and the truncation decision (see context.h). Never modifies the history it
 * is given. */
#include "context/context.h"

#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "base/json.h"

const char CONTEXT_TRUNCATION_NOTE[] =
    "[NOTE] Some earlier messages of this conversation were removed to keep it inside the "
    "context window. The user's original task is still above; the messages in between are "
    "gone. Keep this in mind, and pay most attention to the latest messages.";

static bool is_assistant(const json_t *history, size_t i)
{
    const char *role = json_string_value(json_object_get(json_array_get(history, i), "role"));
    return role && strcmp(role, "assistant") == 0;
}

context_range context_next_range(const json_t *history, context_range cur, context_keep keep)
{
    size_t len = json_array_size(history);
    size_t rest0 = cur.has ? cur.end + 1 : 2;
    if (len <= rest0)
        return cur;
    size_t n = len - rest0;
    size_t remove;
    switch (keep) {
    case CONTEXT_KEEP_NONE:
        remove = n;
        break;
    case CONTEXT_KEEP_LAST_TWO:
        remove = n > 2 ? n - 2 : 0;
        break;
    case CONTEXT_KEEP_HALF:
        remove = n / 4 * 2;
        break;
    default:
        remove = n * 3 / 4 / 2 * 2;
        break;
    }
    if (remove == 0)
        return cur;
    size_t end = rest0 + remove - 1;
    if (!is_assistant(history, end))
        end--;
    if (end < rest0)
        return cur;
    context_range r = { true, 2, end };
    return r;
}

size_t context_view_count(const json_t *history, context_range range)
{
    size_t len = json_array_size(history);
    if (!range.has || range.end < 2 || range.end >= len)
        return len;
    return len - (range.end - range.start + 1);
}

/* Does message msg (assistant) hold a tool_use with this id? */
static bool has_tool_use(const json_t *msg, const char *id)
{
    json_t *content = json_object_get(msg, "content");
    size_t i;
    json_t *b;
    json_array_foreach(content, i, b) {
        const char *type = json_string_value(json_object_get(b, "type"));
        const char *bid = json_string_value(json_object_get(b, "id"));
        if (type && strcmp(type, "tool_use") == 0 && bid && strcmp(bid, id) == 0)
            return true;
    }
    return false;
}

/* Message i of the history with its rewritten blocks replaced (a new reference; the
 * message itself, referenced again, when nothing applies). */
static json_t *apply_rewrites(const json_t *msg, size_t i, const context_rewrites *rw,
                              const unsigned char *marked)
{
    if (!rw || !marked || !marked[i])
        return json_incref((json_t *)msg);
    json_t *tmp = NULL;
    json_t *blocks = api_msg_blocks(msg, &tmp);
    json_t *out = json_array();
    size_t j;
    json_t *b;
    json_array_foreach(blocks, j, b) {
        const char *text = context_rewrites_find(rw, i, j);
        const char *type = api_msg_block_type(b);
        if (text && (strcmp(type, "text") == 0 || strcmp(type, "tool_result") == 0)) {
            json_t *nb = json_copy(b);
            json_object_set_new(nb, strcmp(type, "text") == 0 ? "text" : "content",
                                json_string_lossy(text, strlen(text)));
            json_array_append_new(out, nb);
        } else {
            json_array_append(out, b);
        }
    }
    json_decref(tmp);
    json_t *copy = json_copy((json_t *)msg);
    json_object_set_new(copy, "content", out);
    return copy;
}

/* One flag per history message: does a rewrite name it? NULL when none does. */
static unsigned char *mark_rewrites(const context_rewrites *rw, size_t len)
{
    if (!rw || rw->len == 0 || len == 0)
        return NULL;
    unsigned char *m = calloc(len, 1);
    if (!m)
        return NULL;
    for (size_t k = 0; k < rw->len; k++)
        if (rw->items[k].msg < len)
            m[rw->items[k].msg] = 1;
    return m;
}

json_t *context_view_rw(const json_t *history, context_range range, const context_rewrites *rw)
{
    size_t len = json_array_size(history);
    json_t *view = json_array();
    unsigned char *marked = mark_rewrites(rw, len);
    if (!range.has || range.end < 2 || range.end >= len) {
        for (size_t i = 0; i < len; i++)
            json_array_append_new(view, apply_rewrites(json_array_get(history, i), i, rw, marked));
        free(marked);
        return view;
    }
    json_array_append_new(view, apply_rewrites(json_array_get(history, 0), 0, rw, marked));
    /* The first answer's tool calls lost their results with the range: the model sees
     * the truncation note in its place. */
    json_t *first_answer = json_copy(json_array_get(history, 1));
    json_t *note = json_array();
    json_array_append_new(note, api_msg_text(CONTEXT_TRUNCATION_NOTE, strlen(CONTEXT_TRUNCATION_NOTE)));
    json_object_set_new(first_answer, "content", note);
    json_array_append_new(view, first_answer);
    for (size_t i = range.end + 1; i < len; i++) {
        json_t *msg = apply_rewrites(json_array_get(history, i), i, rw, marked);
        if (i != range.end + 1) {
            json_array_append_new(view, msg);
            continue;
        }
        /* The first kept message: drop results whose tool_use is gone. */
        json_t *prev = json_array_get(view, json_array_size(view) - 1);
        json_t *tmp = NULL;
        json_t *blocks = api_msg_blocks(msg, &tmp);
        json_t *kept = json_array();
        size_t j;
        json_t *b;
        json_array_foreach(blocks, j, b) {
            const char *type = json_string_value(json_object_get(b, "type"));
            const char *id = json_string_value(json_object_get(b, "tool_use_id"));
            if (type && strcmp(type, "tool_result") == 0 && (!id || !has_tool_use(prev, id)))
                continue;
            json_array_append(kept, b);
        }
        json_decref(tmp);
        if (json_array_size(kept) == 0)
            json_array_append_new(kept, api_msg_text(CONTEXT_TRUNCATION_NOTE,
                                                     strlen(CONTEXT_TRUNCATION_NOTE)));
        json_t *copy = json_copy(msg);
        json_decref(msg);
        json_object_set_new(copy, "content", kept);
        json_array_append_new(view, copy);
    }
    free(marked);
    return view;
}

json_t *context_view(const json_t *history, context_range range)
{
    return context_view_rw(history, range, NULL);
}

int64_t context_max_allowed(int64_t w)
{
    if (w <= 0)
        w = 128000;
    switch (w) {
    case 64000:
        return w - 27000;
    case 128000:
        return w - 30000;
    case 200000:
        return w - 40000;
    default: {
        int64_t a = w - 40000, b = (int64_t)((double)w * 0.8);
        return a > b ? a : b;
    }
    }
}

/* ---- the trigger and the decision ---------------------------------------------------------- */

int64_t context_usage_total(int64_t tokens_in, int64_t tokens_out, int64_t cache_reads,
                            int64_t cache_writes)
{
    int64_t v[4] = { tokens_in, tokens_out, cache_reads, cache_writes }, total = 0;
    for (int i = 0; i < 4; i++)
        if (v[i] > 0)
            total += v[i];
    return total;
}

bool context_over(int64_t total, int64_t context_window)
{
    return total >= context_max_allowed(context_window);
}

context_keep context_keep_for(int64_t total, int64_t context_window)
{
    return total / 2 > context_max_allowed(context_window) ? CONTEXT_KEEP_QUARTER
                                                            : CONTEXT_KEEP_HALF;
}

hew_code context_plan_make(const json_t *history, context_range cur,
                           const context_rewrites *existing, context_result_fn kinds,
                           int64_t last_total_tokens, int64_t context_window,
                           context_plan *out)
{
    memset(out, 0, sizeof *out);
    out->range = cur;
    out->keep = CONTEXT_KEEP_HALF;
    if (!context_over(last_total_tokens, context_window))
        return HEW_OK;
    out->over = true;
    out->keep = context_keep_for(last_total_tokens, context_window);
    hew_code rc = context_collapse_reads(history, cur, existing, kinds, &out->rewrites,
                                         &out->savings);
    if (rc != HEW_OK) {
        context_plan_release(out);
        return rc;
    }
    if (out->rewrites.len > 0 && out->savings >= CONTEXT_COLLAPSE_ENOUGH)
        return HEW_OK;
    context_range next = context_next_range(history, cur, out->keep);
    out->truncate = next.has && (!cur.has || next.end != cur.end);
    out->range = next;
    return HEW_OK;
}

void context_plan_release(context_plan *p)
{
    if (p)
        context_rewrites_release(&p->rewrites);
}
