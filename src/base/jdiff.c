/* jdiff — the first difference between two JSON documents (see jdiff.h). Pure: no I/O,
 * every shown value capped. */
#include "base/jdiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/* s[0..n) shown as a JSON string around byte at (the first difference), capped. */
static void show_string(const char *s, size_t n, size_t at, char *out, size_t cap)
{
    size_t from = at > 40 ? at - 40 : 0;
    while (from > 0 && from < n && ((unsigned char)s[from] & 0xC0) == 0x80)
        from--; /* start on a character */
    buf b = BUF_INIT(4 * JDIFF_SHOW_MAX);
    if (from)
        buf_printf(&b, "…(%zu bytes) ", from);
    buf_putc(&b, '"');
    size_t shown = 0;
    for (size_t i = from; i < n && shown < 120; i++, shown++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            buf_printf(&b, "\\%c", c);
        else if (c == '\n')
            buf_puts(&b, "\\n");
        else if (c < 0x20 || c == 0x7f)
            buf_printf(&b, "\\u%04x", c);
        else
            buf_putc(&b, (char)c);
    }
    buf_putc(&b, '"');
    if (from + shown < n)
        buf_printf(&b, " …(%zu more bytes)", n - from - shown);
    if (at < n || from)
        buf_printf(&b, " [differs at byte %zu]", at);
    snprintf(out, cap, "%s", b.data ? b.data : "\"\"");
    buf_release(&b);
}

/* A value shown as compact JSON, capped (a cut ends in "…"). */
static void show(const json_t *v, char *out, size_t cap)
{
    if (!v) {
        snprintf(out, cap, "(missing)");
        return;
    }
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
    if (!text) {
        snprintf(out, cap, "(a %s)", json_is_object(v) ? "object" : "value");
        return;
    }
    size_t n = strlen(text);
    if (n < cap) {
        memcpy(out, text, n + 1);
    } else {
        size_t keep = cap - 4;
        while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
            keep--;
        memcpy(out, text, keep);
        memcpy(out + keep, "…", 4); /* 3 bytes and the NUL */
    }
    free(text);
}

static bool ident(const char *k)
{
    if (!*k || (*k >= '0' && *k <= '9'))
        return false;
    for (const char *c = k; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            return false;
    return true;
}

/* path + one step, cut at the cap (a cut path still says where it started). */
static void step_key(const char *path, const char *key, char *out, size_t cap)
{
    if (ident(key))
        snprintf(out, cap, "%s.%s", path, key);
    else {
        char q[256];
        show_string(key, strlen(key), strlen(key), q, sizeof q);
        snprintf(out, cap, "%s[%s]", path, q);
    }
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool diff_at(const json_t *want, const json_t *got, const char *path, jdiff *d);

static bool diff_objects(const json_t *want, const json_t *got, const char *path, jdiff *d)
{
    size_t n = json_object_size(want) + json_object_size(got), k = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) { /* cannot sort: still a true answer, only the place is coarse */
        if (json_equal((json_t *)want, (json_t *)got))
            return true;
        snprintf(d->path, sizeof d->path, "%s", path);
        show(want, d->want, sizeof d->want);
        show(got, d->got, sizeof d->got);
        return false;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)want, key, v)
        keys[k++] = key;
    json_object_foreach((json_t *)got, key, v)
        if (!json_object_get(want, key))
            keys[k++] = key;
    qsort(keys, k, sizeof *keys, cmp_keys);
    bool same = true;
    for (size_t i = 0; i < k && same; i++) {
        char sub[JDIFF_PATH_MAX];
        step_key(path, keys[i], sub, sizeof sub);
        same = diff_at(json_object_get(want, keys[i]), json_object_get(got, keys[i]), sub, d);
    }
    free(keys);
    return same;
}

static bool diff_at(const json_t *want, const json_t *got, const char *path, jdiff *d)
{
    if (want && got && json_is_object(want) && json_is_object(got))
        return diff_objects(want, got, path, d);
    if (want && got && json_is_array(want) && json_is_array(got)) {
        size_t nw = json_array_size(want), ng = json_array_size(got);
        for (size_t i = 0; i < nw || i < ng; i++) {
            char sub[JDIFF_PATH_MAX];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!diff_at(json_array_get(want, i), json_array_get(got, i), sub, d))
                return false;
        }
        return true;
    }
    if (want && got && json_is_number(want) && json_is_number(got) &&
        json_number_value(want) == json_number_value(got) &&
        (!json_is_integer(want) || !json_is_integer(got) ||
         json_integer_value(want) == json_integer_value(got)))
        return true;
    if (want && got && json_equal((json_t *)want, (json_t *)got))
        return true;
    snprintf(d->path, sizeof d->path, "%s", path);
    if (want && got && json_is_string(want) && json_is_string(got)) {
        const char *a = json_string_value(want), *b = json_string_value(got);
        size_t na = json_string_length(want), nb = json_string_length(got), at = 0;
        while (at < na && at < nb && a[at] == b[at])
            at++;
        show_string(a, na, at, d->want, sizeof d->want);
        show_string(b, nb, at, d->got, sizeof d->got);
        return false;
    }
    show(want, d->want, sizeof d->want);
    show(got, d->got, sizeof d->got);
    return false;
}

bool jdiff_first(const json_t *want, const json_t *got, jdiff *d)
{
    memset(d, 0, sizeof *d);
    return diff_at(want, got, "$", d);
}

bool jdiff_text(const char *want, size_t want_len, const char *got, size_t got_len, jdiff *d)
{
    memset(d, 0, sizeof *d);
    json_t *a = json_loadb(want, want_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    json_t *b = json_loadb(got, got_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    bool same;
    if (a && b) {
        same = diff_at(a, b, "$", d);
    } else {
        size_t at = 0;
        while (at < want_len && at < got_len && want[at] == got[at])
            at++;
        same = want_len == got_len && at == want_len;
        if (!same) {
            snprintf(d->path, sizeof d->path, "$");
            show_string(want, want_len, at, d->want, sizeof d->want);
            show_string(got, got_len, at, d->got, sizeof d->got);
        }
    }
    json_decref(a);
    json_decref(b);
    return same;
}
