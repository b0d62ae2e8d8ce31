/* evtext — the events' appends applied, as a front end applies them (see evtext.h). */
#include "evtext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *why, const hew_event *ev)
{
    fprintf(stderr, "evtext: %s: %s\n", why, ev ? hew_event_json(ev) : "");
    abort();
}

char *evtext_apply(const char *prev, size_t offset, const char *append, size_t len)
{
    size_t have = prev ? strlen(prev) : 0;
    if (offset > have)
        die("an append past the end of the text so far", NULL);
    char *s = malloc(offset + len + 1);
    if (!s)
        abort();
    if (offset)
        memcpy(s, prev, offset);
    if (len)
        memcpy(s + offset, append, len);
    s[offset + len] = '\0';
    return s;
}

/* The text of the latest earlier event of message index, or NULL. */
static const char *previous_text(const json_t *events, json_int_t index)
{
    for (size_t k = json_array_size(events); k-- > 0;) {
        const json_t *e = json_array_get(events, k);
        if (json_integer_value(json_object_get(e, "index")) == index &&
            json_object_get(e, "index"))
            return json_string_value(json_object_get(e, "text"));
    }
    return NULL;
}

json_t *evtext_load(const json_t *events, const hew_event *ev)
{
    json_t *j = json_loads(hew_event_json(ev), 0, NULL);
    if (!j)
        die("not JSON", ev);
    json_t *app = json_object_get(j, "append");
    const char *prev = previous_text(events, (json_int_t)ev->index);
    if (ev->append_text) { /* the C event's append fits the text so far */
        char *s = evtext_apply(prev, ev->append_offset, ev->append_text, ev->append_len);
        if (!ev->text || strcmp(s, ev->text) != 0)
            die("the C event's append does not give its text", ev);
        free(s);
    }
    if (ev->partial && ev->text) {
        if (!app || json_object_get(j, "text"))
            die("a partial update must carry \"append\", not \"text\"", ev);
        const char *a = json_string_value(json_object_get(app, "text"));
        json_int_t off = json_integer_value(json_object_get(app, "offset"));
        if (!a || off < 0)
            die("a malformed append", ev);
        char *s = evtext_apply(prev, (size_t)off, a, json_string_length(json_object_get(app, "text")));
        if (strcmp(s, ev->text) != 0)
            die("the line's append does not give the text", ev);
        json_object_set_new(j, "text", json_string(s));
        free(s);
    } else if (app) {
        die("only a partial update carries \"append\"", ev);
    }
    return j;
}
