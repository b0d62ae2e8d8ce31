/* uimsg — the say/ask message list and its JSON form (see uimsg.h). Never blocks. */
#include "task/uimsg.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "sys/clock.h"

static void uimsg_release_one(uimsg *m)
{
    free(m->type);
    buf_release(&m->text);
    json_decref(m->data);
}

void uimsg_list_release(uimsg_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        uimsg_release_one(&l->items[i]);
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

static void lower_dirty(uimsg *m, size_t from)
{
    if (from < m->dirty)
        m->dirty = from;
}

/* A whole new text: what it shares with the old one at the start is not new (a caller
 * that re-sends a growing text whole still gets append events). */
static int set_text(uimsg *m, const char *text)
{
    size_t same = 0;
    m->spilled = false; /* a new text: nothing of the old one is kept or compared */
    if (text && m->has_text) {
        size_t n = strlen(text);
        size_t max = n < m->text.len ? n : m->text.len;
        while (same < max && text[same] == m->text.data[same])
            same++;
        while (same > 0 && ((unsigned char)text[same] & 0xC0) == 0x80)
            same--; /* an append starts on a character, never inside one */
        lower_dirty(m, same);
        buf_truncate(&m->text, same);
        buf_append(&m->text, text + same, n - same);
    } else {
        buf_reset(&m->text);
        lower_dirty(m, 0);
        if (text)
            buf_puts(&m->text, text);
    }
    m->has_text = text != NULL;
    return m->text.err ? -1 : 0;
}

static void set_data(uimsg *m, json_t *data)
{
    json_incref(data);
    json_decref(m->data);
    m->data = data;
}

/* The message a put with this kind, type and partial flag lands on (updated in place or
 * appended), with its data replaced; NULL when out of memory. */
static uimsg *put_slot(uimsg_list *l, uimsg_kind kind, const char *type, json_t *data,
                       uimsg_partial partial, long *index)
{
    if (partial != UIMSG_WHOLE && l->len > 0) {
        uimsg *last = &l->items[l->len - 1];
        if (last->partial && last->kind == kind && strcmp(last->type, type) == 0) {
            set_data(last, data);
            last->partial = partial == UIMSG_PARTIAL;
            *index = (long)(l->len - 1);
            return last;
        }
    }
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        uimsg *grown = realloc(l->items, cap * sizeof *grown);
        if (!grown)
            return NULL;
        l->items = grown;
        l->cap = cap;
    }
    uimsg *m = &l->items[l->len];
    memset(m, 0, sizeof *m);
    m->ts = clock_wall_ms();
    m->kind = kind;
    m->type = strdup(type);
    m->partial = partial == UIMSG_PARTIAL;
    buf_init(&m->text, 0);
    if (!m->type)
        return NULL;
    set_data(m, data);
    *index = (long)l->len++;
    return m;
}

long uimsg_put(uimsg_list *l, uimsg_kind kind, const char *type, const char *text,
               json_t *data, uimsg_partial partial)
{
    long index = -1;
    uimsg *m = put_slot(l, kind, type, data, partial, &index);
    if (!m || set_text(m, text) != 0)
        return -1;
    return index;
}

long uimsg_put_buf(uimsg_list *l, uimsg_kind kind, const char *type, uimsg_partial partial,
                   buf *text)
{
    long index = -1;
    uimsg *m = put_slot(l, kind, type, NULL, partial, &index);
    if (!m)
        return -1;
    buf_release(&m->text);
    m->text = *text;
    buf_init(text, m->text.max);
    m->has_text = true;
    m->dirty = 0;
    return index;
}

buf *uimsg_text_buf(uimsg_list *l, size_t i)
{
    return i < l->len ? &l->items[i].text : NULL;
}

void uimsg_text_changed(uimsg_list *l, size_t i, size_t from, uimsg_partial partial)
{
    if (i >= l->len)
        return;
    uimsg *m = &l->items[i];
    m->has_text = true;
    lower_dirty(m, from);
    if (partial != UIMSG_WHOLE)
        m->partial = partial == UIMSG_PARTIAL;
}

const char *uimsg_take_append(uimsg_list *l, size_t i, size_t *offset, size_t *len)
{
    *offset = 0;
    *len = 0;
    if (i >= l->len || !l->items[i].has_text)
        return "";
    uimsg *m = &l->items[i];
    size_t from = m->dirty < m->text.len ? m->dirty : m->text.len;
    m->dirty = m->text.len;
    *offset = from;
    *len = m->text.len - from;
    return m->text.data ? m->text.data + from : "";
}

long uimsg_load(uimsg_list *l, const json_t *ev)
{
    const char *kind = json_string_value(json_object_get(ev, "kind"));
    const char *type = json_string_value(json_object_get(ev, "type"));
    if (!kind || !type)
        return -1;
    json_t *data = json_object_get(ev, "data");
    long index = uimsg_put(l, strcmp(kind, "ask") == 0 ? UIMSG_ASK : UIMSG_SAY, type,
                           json_string_value(json_object_get(ev, "text")),
                           json_is_object(data) ? data : NULL, UIMSG_WHOLE);
    if (index >= 0) {
        uimsg *m = &l->items[index];
        json_t *ts = json_object_get(ev, "ts");
        if (json_is_integer(ts))
            m->ts = json_integer_value(ts);
        m->partial = json_is_true(json_object_get(ev, "partial"));
    }
    return index;
}

void uimsg_truncate(uimsg_list *l, size_t n)
{
    while (l->len > n)
        uimsg_release_one(&l->items[--l->len]);
}

const char *uimsg_text(const uimsg_list *l, size_t i)
{
    if (i >= l->len || !l->items[i].has_text || l->items[i].spilled)
        return NULL;
    return l->items[i].text.data ? l->items[i].text.data : "";
}

void uimsg_text_spill(uimsg_list *l, size_t i)
{
    if (i >= l->len || l->items[i].partial || !l->items[i].has_text)
        return;
    uimsg *m = &l->items[i];
    buf_release(&m->text);
    m->dirty = 0;
    m->spilled = true;
}

bool uimsg_is_spilled(const uimsg_list *l, size_t i)
{
    return i < l->len && l->items[i].spilled;
}

void uimsg_text_restore(uimsg_list *l, size_t i, buf *text)
{
    if (i >= l->len)
        return;
    uimsg *m = &l->items[i];
    buf_release(&m->text);
    m->text = *text;
    buf_init(text, m->text.max);
    m->has_text = true;
    m->spilled = false;
    m->dirty = m->text.len;
}

void uimsg_update(uimsg_list *l, size_t i, const char *text, json_t *data)
{
    if (i >= l->len)
        return;
    if (text)
        set_text(&l->items[i], text);
    if (data)
        set_data(&l->items[i], data);
}

static void to_json(const uimsg_list *l, size_t i, bool append, size_t offset, buf *out)
{
    const uimsg *m = &l->items[i];
    /* Written by hand: the text can be megabytes long (a final message carries it whole),
     * so it goes through the memcpy-speed escaper, not a JSON tree. */
    buf_printf(out, "{\"v\":%d,\"index\":%zu,\"ts\":%lld,\"kind\":\"%s\",\"type\":",
               UIMSG_SCHEMA_VERSION, i, m->ts, m->kind == UIMSG_ASK ? "ask" : "say");
    json_escape_into(out, m->type, strlen(m->type));
    buf_printf(out, ",\"partial\":%s", m->partial ? "true" : "false");
    if (m->has_text && append && m->partial) {
        size_t from = offset < m->text.len ? offset : m->text.len;
        buf_printf(out, ",\"append\":{\"offset\":%zu,\"text\":", from);
        json_escape_into(out, m->text.data ? m->text.data + from : "", m->text.len - from);
        buf_putc(out, '}');
    } else if (m->has_text) {
        buf_puts(out, ",\"text\":");
        json_escape_into(out, m->text.data ? m->text.data : "", m->text.len);
    }
    if (m->data) {
        buf_puts(out, ",\"data\":");
        json_dump_into(m->data, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
    }
    buf_putc(out, '}');
}

void uimsg_to_json(const uimsg_list *l, size_t i, buf *out)
{
    if (i < l->len)
        to_json(l, i, false, 0, out);
}

void uimsg_to_json_append(const uimsg_list *l, size_t i, size_t offset, buf *out)
{
    if (i < l->len)
        to_json(l, i, true, offset, out);
}
