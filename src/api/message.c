/* message — constructors and the validator for hew's conversation format (see
 * message.h). Builds jansson values only; never does I/O, never sends raw invalid UTF-8. */
#include "api/message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"

static json_t *api_msg_tool_result_blocks(const char *tool_use_id, json_t *content,
                                          bool is_error);

static json_t *s(const char *v)
{
    return json_string_lossy(v ? v : "", v ? strlen(v) : 0);
}

json_t *api_msg_text(const char *text, size_t len)
{
    hew_code st = HEW_OK;
    json_t *b = json_object();
    json_obj_put(b, "type", json_string("text"), &st);
    json_obj_put(b, "text", json_string_lossy(text ? text : "", text ? len : 0), &st);
    if (st != HEW_OK) {
        json_decref(b);
        return NULL;
    }
    return b;
}

json_t *api_msg_image(const char *media_type, const char *base64_data)
{
    hew_code st = HEW_OK;
    json_t *src = json_object();
    json_obj_put(src, "type", json_string("base64"), &st);
    json_obj_put(src, "media_type", s(media_type), &st);
    json_obj_put(src, "data", s(base64_data), &st);
    json_t *b = json_object();
    json_obj_put(b, "type", json_string("image"), &st);
    json_obj_put(b, "source", src, &st);
    if (st != HEW_OK) {
        json_decref(b);
        return NULL;
    }
    return b;
}

json_t *api_msg_tool_use(const char *id, const char *name, json_t *input)
{
    hew_code st = HEW_OK;
    json_t *b = json_object();
    json_obj_put(b, "type", json_string("tool_use"), &st);
    json_obj_put(b, "id", s(id), &st);
    json_obj_put(b, "name", s(name), &st);
    json_obj_put(b, "input", input ? input : json_object(), &st);
    if (st != HEW_OK) {
        json_decref(b);
        return NULL;
    }
    return b;
}

json_t *api_msg_tool_result(const char *tool_use_id, const char *content, bool is_error)
{
    return api_msg_tool_result_blocks(tool_use_id, s(content), is_error);
}

/* content (an array of text/image blocks) is stolen. */
static json_t *api_msg_tool_result_blocks(const char *tool_use_id, json_t *content,
                                          bool is_error)
{
    hew_code st = HEW_OK;
    json_t *b = json_object();
    json_obj_put(b, "type", json_string("tool_result"), &st);
    json_obj_put(b, "tool_use_id", s(tool_use_id), &st);
    json_obj_put(b, "content", content, &st);
    json_obj_put(b, "is_error", json_boolean(is_error), &st);
    if (st != HEW_OK) {
        json_decref(b);
        return NULL;
    }
    return b;
}

json_t *api_msg_thinking(const char *thinking, size_t len, const char *signature)
{
    hew_code st = HEW_OK;
    json_t *b = json_object();
    json_obj_put(b, "type", json_string("thinking"), &st);
    json_obj_put(b, "thinking", json_string_lossy(thinking ? thinking : "", thinking ? len : 0),
                 &st);
    if (signature)
        json_obj_put(b, "signature", s(signature), &st);
    if (st != HEW_OK) {
        json_decref(b);
        return NULL;
    }
    return b;
}

json_t *api_msg_redacted_thinking(const char *data)
{
    hew_code st = HEW_OK;
    json_t *b = json_object();
    json_obj_put(b, "type", json_string("redacted_thinking"), &st);
    json_obj_put(b, "data", s(data), &st);
    if (st != HEW_OK) {
        json_decref(b);
        return NULL;
    }
    return b;
}

json_t *api_msg_new(const char *role, json_t *content)
{
    hew_code st = HEW_OK;
    json_t *m = json_object();
    json_obj_put(m, "role", s(role), &st);
    json_obj_put(m, "content", content ? content : json_array(), &st);
    if (st != HEW_OK) {
        json_decref(m);
        return NULL;
    }
    return m;
}

json_t *api_msg_user_text(const char *text)
{
    json_t *content = json_array();
    hew_code st = HEW_OK;
    json_arr_push(content, api_msg_text(text, text ? strlen(text) : 0), &st);
    if (st != HEW_OK) {
        json_decref(content);
        return NULL;
    }
    return api_msg_new("user", content);
}

json_t *api_msg_blocks(const json_t *msg, json_t **tmp)
{
    *tmp = NULL;
    json_t *c = json_object_get(msg, "content");
    if (json_is_array(c))
        return c;
    if (json_is_string(c)) {
        json_t *arr = json_array();
        hew_code st = HEW_OK;
        json_arr_push(arr, api_msg_text(json_string_value(c), json_string_length(c)), &st);
        if (st != HEW_OK) {
            json_decref(arr);
            return NULL;
        }
        *tmp = arr;
        return arr;
    }
    return NULL;
}

const char *api_msg_block_type(const json_t *block)
{
    const char *t = json_string_value(json_object_get(block, "type"));
    return t ? t : "";
}

char *api_msg_tool_result_text(const json_t *block)
{
    const json_t *c = json_object_get(block, "content");
    buf out = BUF_INIT(0);
    buf_puts(&out, "");
    if (json_is_string(c)) {
        buf_append(&out, json_string_value(c), json_string_length(c));
    } else {
        size_t i;
        json_t *b;
        bool first = true;
        json_array_foreach(c, i, b) {
            const char *t = api_msg_block_type(b);
            if (!first)
                buf_putc(&out, '\n');
            first = false;
            if (strcmp(t, "text") == 0) {
                const json_t *tx = json_object_get(b, "text");
                buf_append(&out, json_string_value(tx) ? json_string_value(tx) : "",
                           json_string_length(tx));
            } else if (strcmp(t, "image") == 0) {
                buf_puts(&out, "[image]");
            }
        }
    }
    return buf_detach(&out, NULL);
}

/* ---- validation --------------------------------------------------------------------- */

static hew_code need_string(const json_t *b, const char *key, const char *path, hew_err *err)
{
    if (!json_is_string(json_object_get(b, key)))
        return hew_err_set(err, HEW_E_INVALID, "%s.%s: expected a string, got %s", path, key,
                           json_type_phrase(json_object_get(b, key)));
    return HEW_OK;
}

static bool in_list(const char *id, const json_t *ids)
{
    size_t i;
    json_t *v;
    json_array_foreach(ids, i, v) if (strcmp(json_string_value(v), id) == 0) return true;
    return false;
}

hew_code api_msg_validate(const json_t *messages, hew_err *err)
{
    if (!json_is_array(messages))
        return hew_err_set(err, HEW_E_INVALID, "messages: expected an array, got %s",
                           json_type_phrase(messages));
    json_t *open_ids = json_array(); /* tool_use ids of the last assistant message */
    json_t *all_ids = json_array();
    hew_code rc = open_ids && all_ids ? HEW_OK : HEW_E_NOMEM;
    size_t i;
    json_t *m;
    json_array_foreach(messages, i, m) {
        if (rc != HEW_OK)
            break;
        char path[96];
        snprintf(path, sizeof path, "messages[%zu]", i);
        const char *role = json_string_value(json_object_get(m, "role"));
        if (!role || (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0)) {
            rc = hew_err_set(err, HEW_E_INVALID,
                             "%s.role: expected \"user\" or \"assistant\"", path);
            break;
        }
        bool user = role[0] == 'u';
        const json_t *content = json_object_get(m, "content");
        if (json_is_string(content))
            continue;
        if (!json_is_array(content)) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s.content: expected a string or an array, got %s",
                             path, json_type_phrase(content));
            break;
        }
        if (!user)
            json_array_clear(open_ids);
        size_t k;
        json_t *b;
        json_array_foreach(content, k, b) {
            char bp[128];
            snprintf(bp, sizeof bp, "%s.content[%zu]", path, k);
            const char *t = api_msg_block_type(b);
            if (strcmp(t, "text") == 0) {
                rc = need_string(b, "text", bp, err);
            } else if (strcmp(t, "image") == 0) {
                const json_t *src = json_object_get(b, "source");
                if (!user)
                    rc = hew_err_set(err, HEW_E_INVALID, "%s: images belong in user messages", bp);
                else if (!json_is_object(src) ||
                         !json_is_string(json_object_get(src, "media_type")) ||
                         !json_is_string(json_object_get(src, "data")))
                    rc = hew_err_set(err, HEW_E_INVALID,
                                     "%s.source: expected {type, media_type, data}", bp);
            } else if (strcmp(t, "tool_use") == 0) {
                if (user) {
                    rc = hew_err_set(err, HEW_E_INVALID, "%s: tool_use belongs in assistant messages", bp);
                } else if ((rc = need_string(b, "id", bp, err)) == HEW_OK &&
                           (rc = need_string(b, "name", bp, err)) == HEW_OK) {
                    const char *id = json_string_value(json_object_get(b, "id"));
                    if (!json_is_object(json_object_get(b, "input")))
                        rc = hew_err_set(err, HEW_E_INVALID, "%s.input: expected an object", bp);
                    else if (!id[0] || in_list(id, all_ids))
                        rc = hew_err_set(err, HEW_E_INVALID, "%s.id: \"%s\" is empty or used twice",
                                         bp, id);
                    else if (json_array_append_new(open_ids, json_string(id)) ||
                             json_array_append_new(all_ids, json_string(id)))
                        rc = HEW_E_NOMEM;
                }
            } else if (strcmp(t, "tool_result") == 0) {
                const json_t *c = json_object_get(b, "content");
                if (!user)
                    rc = hew_err_set(err, HEW_E_INVALID, "%s: tool_result belongs in user messages", bp);
                else if ((rc = need_string(b, "tool_use_id", bp, err)) != HEW_OK)
                    ;
                else if (!in_list(json_string_value(json_object_get(b, "tool_use_id")), open_ids))
                    rc = hew_err_set(err, HEW_E_INVALID,
                                     "%s: tool_result for unknown tool_use_id \"%s\"", bp,
                                     json_string_value(json_object_get(b, "tool_use_id")));
                else if (c && !json_is_string(c) && !json_is_array(c))
                    rc = hew_err_set(err, HEW_E_INVALID,
                                     "%s.content: expected a string or an array", bp);
            } else if (strcmp(t, "thinking") == 0) {
                rc = user ? hew_err_set(err, HEW_E_INVALID, "%s: thinking belongs in assistant messages", bp)
                          : need_string(b, "thinking", bp, err);
            } else if (strcmp(t, "redacted_thinking") == 0) {
                rc = user ? hew_err_set(err, HEW_E_INVALID, "%s: redacted_thinking belongs in assistant messages", bp)
                          : need_string(b, "data", bp, err);
            } else {
                rc = hew_err_set(err, HEW_E_INVALID, "%s.type: unknown block type \"%s\"", bp, t);
            }
            if (rc != HEW_OK)
                break;
        }
    }
    json_decref(open_ids);
    json_decref(all_ids);
    return rc;
}

/* ---- tool calls as text ----------------------------------------------------------------- */

/* A tool call as the XML a model writes in XML tool mode: <name><param>value</param></name>. */
static void tool_use_xml(const json_t *b, buf *out)
{
    const char *name = json_string_value(json_object_get(b, "name"));
    name = name && *name ? name : "tool";
    buf_printf(out, "<%s>", name);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(b, "input"), k, v) {
        buf_printf(out, "\n<%s>", k);
        if (json_is_string(v)) {
            buf_append(out, json_string_value(v), json_string_length(v));
        } else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            buf_puts(out, s ? s : "");
            free(s);
        }
        buf_printf(out, "</%s>", k);
    }
    buf_printf(out, "\n</%s>", name);
}

static bool has_tool_blocks(const json_t *messages)
{
    size_t i, j;
    json_t *m, *b;
    json_array_foreach(messages, i, m) {
        json_array_foreach(json_object_get(m, "content"), j, b) {
            const char *t = api_msg_block_type(b);
            if (strcmp(t, "tool_use") == 0 || strcmp(t, "tool_result") == 0)
                return true;
        }
    }
    return false;
}

/* One block of the text-only history (appended to out). */
static void block_as_text(const json_t *b, json_t *out, hew_code *st)
{
    const char *t = api_msg_block_type(b);
    buf text = BUF_INIT(0);
    if (strcmp(t, "tool_use") == 0) {
        tool_use_xml(b, &text);
    } else if (strcmp(t, "tool_result") == 0) {
        char *s = api_msg_tool_result_text(b);
        buf_puts(&text, s && *s ? s : "(the tool returned nothing)");
        free(s);
    } else {
        json_arr_push(out, json_incref((json_t *)b), st);
        return;
    }
    json_arr_push(out, api_msg_text(text.data ? text.data : "", text.len), st);
    buf_release(&text);
    if (strcmp(t, "tool_result") == 0) { /* its images stay, as the user's */
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(b, "content"), i, c)
            if (strcmp(api_msg_block_type(c), "image") == 0)
                json_arr_push(out, json_incref(c), st);
    }
}

json_t *api_msg_tools_as_text(const json_t *messages)
{
    if (!has_tool_blocks(messages))
        return json_incref((json_t *)messages);
    json_t *out = json_array();
    hew_code st = out ? HEW_OK : HEW_E_NOMEM;
    size_t i, j;
    json_t *m, *b;
    json_array_foreach(messages, i, m) {
        if (st != HEW_OK)
            break;
        json_t *content = json_object_get(m, "content");
        if (!json_is_array(content)) {
            json_arr_push(out, json_incref(m), &st);
            continue;
        }
        json_t *blocks = json_array();
        json_array_foreach(content, j, b)
            block_as_text(b, blocks, &st);
        json_t *copy = json_copy(m);
        if (!blocks || !copy || json_object_set_new(copy, "content", blocks) != 0) {
            json_decref(copy);
            st = HEW_E_NOMEM;
            break;
        }
        json_arr_push(out, copy, &st);
    }
    if (st != HEW_OK) {
        json_decref(out);
        return NULL;
    }
    return out;
}
