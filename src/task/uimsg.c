/* uimsg — the say/ask message list and its JSON form (see uimsg.h). Never blocks. */
#include "task/uimsg.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"

long long uimsg_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}

static void uimsg_release_one(uimsg *m)
{
    free(m->type);
    free(m->text);
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

static int set_text(uimsg *m, const char *text)
{
    char *copy = NULL;
    if (text && !(copy = strdup(text)))
        return -1;
    free(m->text);
    m->text = copy;
    return 0;
}

static void set_data(uimsg *m, json_t *data)
{
    json_incref(data);
    json_decref(m->data);
    m->data = data;
}

long uimsg_put(uimsg_list *l, uimsg_kind kind, const char *type, const char *text,
               json_t *data, uimsg_partial partial)
{
    if (partial != UIMSG_WHOLE && l->len > 0) {
        uimsg *last = &l->items[l->len - 1];
        if (last->partial && last->kind == kind && strcmp(last->type, type) == 0) {
            if (set_text(last, text) != 0)
                return -1;
            set_data(last, data);
            last->partial = partial == UIMSG_PARTIAL;
            return (long)(l->len - 1);
        }
    }
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        uimsg *grown = realloc(l->items, cap * sizeof *grown);
        if (!grown)
            return -1;
        l->items = grown;
        l->cap = cap;
    }
    uimsg m = { uimsg_now_ms(), kind, strdup(type), NULL, NULL, partial == UIMSG_PARTIAL };
    if (!m.type || set_text(&m, text) != 0) {
        uimsg_release_one(&m);
        return -1;
    }
    set_data(&m, data);
    l->items[l->len] = m;
    return (long)l->len++;
}

long uimsg_find_last(const uimsg_list *l, int kind, const char *type)
{
    for (size_t i = l->len; i-- > 0;)
        if ((kind < 0 || (int)l->items[i].kind == kind) && strcmp(l->items[i].type, type) == 0)
            return (long)i;
    return -1;
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

void uimsg_to_json(const uimsg_list *l, size_t i, buf *out)
{
    if (i >= l->len)
        return;
    const uimsg *m = &l->items[i];
    /* Written by hand: the text can be megabytes long and is re-sent with every partial
     * update, so it goes through the memcpy-speed escaper, not a JSON tree. */
    buf_printf(out, "{\"v\":%d,\"index\":%zu,\"ts\":%lld,\"kind\":\"%s\",\"type\":",
               UIMSG_SCHEMA_VERSION, i, m->ts, m->kind == UIMSG_ASK ? "ask" : "say");
    json_escape_into(out, m->type, strlen(m->type));
    buf_printf(out, ",\"partial\":%s", m->partial ? "true" : "false");
    if (m->text) {
        buf_puts(out, ",\"text\":");
        json_escape_into(out, m->text, strlen(m->text));
    }
    if (m->data) {
        buf_puts(out, ",\"data\":");
        json_dump_into(m->data, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
    }
    buf_putc(out, '}');
}
