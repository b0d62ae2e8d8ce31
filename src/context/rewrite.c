/* context/rewrite — the list of context rewrites (see context.h): what the model sees of
 * a block instead of its stored text. A plain owned list; it never touches the history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context/context.h"

void context_rewrites_release(context_rewrites *rw)
{
    if (!rw)
        return;
    for (size_t i = 0; i < rw->len; i++)
        free(rw->items[i].text);
    free(rw->items);
    rw->items = NULL;
    rw->len = rw->cap = 0;
}

static hew_code reserve(context_rewrites *rw, size_t more)
{
    if (rw->len + more <= rw->cap)
        return HEW_OK;
    size_t cap = rw->cap ? rw->cap : 8;
    while (cap < rw->len + more)
        cap *= 2;
    context_rewrite *n = realloc(rw->items, cap * sizeof *n);
    if (!n)
        return HEW_E_NOMEM;
    rw->items = n;
    rw->cap = cap;
    return HEW_OK;
}

hew_code context_rewrites_add(context_rewrites *rw, size_t msg, size_t block, const char *text)
{
    if (!text)
        return HEW_E_INVALID;
    if (reserve(rw, 1) != HEW_OK)
        return HEW_E_NOMEM;
    char *t = strdup(text);
    if (!t)
        return HEW_E_NOMEM;
    rw->items[rw->len++] = (context_rewrite){ msg, block, t };
    return HEW_OK;
}

hew_code context_rewrites_append(context_rewrites *dst, const context_rewrites *src)
{
    if (!src || src->len == 0)
        return HEW_OK;
    if (reserve(dst, src->len) != HEW_OK)
        return HEW_E_NOMEM;
    size_t before = dst->len;
    for (size_t i = 0; i < src->len; i++) {
        if (context_rewrites_add(dst, src->items[i].msg, src->items[i].block,
                                 src->items[i].text) != HEW_OK) {
            while (dst->len > before)
                free(dst->items[--dst->len].text);
            return HEW_E_NOMEM;
        }
    }
    return HEW_OK;
}

const char *context_rewrites_find(const context_rewrites *rw, size_t msg, size_t block)
{
    if (!rw)
        return NULL;
    for (size_t i = rw->len; i-- > 0;)
        if (rw->items[i].msg == msg && rw->items[i].block == block)
            return rw->items[i].text;
    return NULL;
}

void context_rewrites_drop_from(context_rewrites *rw, size_t msg)
{
    size_t w = 0;
    for (size_t i = 0; i < rw->len; i++) {
        if (rw->items[i].msg >= msg)
            free(rw->items[i].text);
        else
            rw->items[w++] = rw->items[i];
    }
    rw->len = w;
}

hew_code context_rewrites_from_json(context_rewrites *rw, const json_t *arr, hew_err *err)
{
    if (!arr)
        return HEW_OK;
    if (!json_is_array(arr))
        return hew_err_set(err, HEW_E_INVALID, "context rewrites: expected an array");
    size_t before = rw->len;
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        json_t *msg = json_object_get(o, "msg"), *block = json_object_get(o, "block");
        const char *text = json_string_value(json_object_get(o, "text"));
        hew_code rc = HEW_OK;
        if (!json_is_integer(msg) || !json_is_integer(block) || !text ||
            json_integer_value(msg) < 0 || json_integer_value(block) < 0)
            rc = hew_err_set(err, HEW_E_INVALID,
                             "context rewrites[%zu]: expected {msg, block, text}", i);
        else if (context_rewrites_add(rw, (size_t)json_integer_value(msg),
                                      (size_t)json_integer_value(block), text) != HEW_OK)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        if (rc != HEW_OK) {
            while (rw->len > before)
                free(rw->items[--rw->len].text);
            return rc;
        }
    }
    return HEW_OK;
}
