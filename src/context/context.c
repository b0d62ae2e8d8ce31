/* context — deleted-range arithmetic and the truncated view (see context.h). Never
 * modifies the history it is given. */
#include "context/context.h"

#include <string.h>

#include "api/message.h"

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

json_t *context_view(const json_t *history, context_range range)
{
    size_t len = json_array_size(history);
    json_t *view = json_array();
    if (!range.has || range.end < 2 || range.end >= len) {
        for (size_t i = 0; i < len; i++)
            json_array_append(view, json_array_get(history, i));
        return view;
    }
    json_array_append(view, json_array_get(history, 0));
    /* The first answer's tool calls lost their results with the range: the model sees
     * the truncation note in its place. */
    json_t *first_answer = json_copy(json_array_get(history, 1));
    json_t *note = json_array();
    json_array_append_new(note, api_msg_text(CONTEXT_TRUNCATION_NOTE, strlen(CONTEXT_TRUNCATION_NOTE)));
    json_object_set_new(first_answer, "content", note);
    json_array_append_new(view, first_answer);
    for (size_t i = range.end + 1; i < len; i++) {
        json_t *msg = json_array_get(history, i);
        if (i != range.end + 1) {
            json_array_append(view, msg);
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
        json_object_set_new(copy, "content", kept);
        json_array_append_new(view, copy);
    }
    return view;
}

int64_t context_max_allowed(int64_t w)
{
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
