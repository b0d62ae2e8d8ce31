/* block — the append-only list of message blocks (see block.h). */
#include "parse/block.h"

#include <stdlib.h>
#include <string.h>

void blocklist_init(blocklist *l, size_t max_bytes)
{
    memset(l, 0, sizeof *l);
    l->max_bytes = max_bytes;
}

static void param_release(block_param *p)
{
    free(p->name);
    if (p->val) {
        tval_release(p->val);
        free(p->val);
    }
    if (p->shadow) {
        tval_release(p->shadow);
        free(p->shadow);
    }
    memset(p, 0, sizeof *p);
}

void block_params_clear(block *b)
{
    for (size_t i = 0; i < b->nparams; i++)
        param_release(&b->params[i]);
    b->nparams = 0;
}

static void block_free(block *b)
{
    if (!b)
        return;
    tval_release(&b->content);
    free(b->name);
    free(b->id);
    block_params_clear(b);
    free(b->params);
    free(b->args_error);
    buf_release(&b->args);
    free(b);
}

void blocklist_release(blocklist *l)
{
    for (size_t i = 0; i < l->n; i++)
        block_free(l->v[i]);
    free(l->v);
    size_t max = l->max_bytes;
    blocklist_init(l, max);
}

block *blocklist_add(blocklist *l, block_type type)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        block **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->type = type;
    b->partial = true;
    b->index = l->n;
    tval_init(&b->content, type == BLOCK_REASONING ? TVAL_RAW : TVAL_TRIM, l->max_bytes);
    buf_init(&b->args, l->max_bytes);
    if (l->dirty_from > l->n)
        l->dirty_from = l->n;
    l->v[l->n++] = b;
    b->seq = ++l->seq;
    return b;
}

void blocklist_touch(blocklist *l, block *b)
{
    b->seq = ++l->seq;
    if (l->dirty_from > b->index)
        l->dirty_from = b->index;
}

void blocklist_complete(blocklist *l, block *b)
{
    if (!b->partial)
        return;
    b->partial = false;
    blocklist_touch(l, b);
}

size_t blocklist_dirty_from(const blocklist *l)
{
    return l->dirty_from < l->n ? l->dirty_from : l->n;
}

void blocklist_clean(blocklist *l)
{
    l->dirty_from = SIZE_MAX;
}

/* The parameter called name (len bytes), or NULL. */
static block_param *block_param_find(const block *b, const char *name, size_t len)
{
    for (size_t i = b->nparams; i-- > 0;)
        if (strlen(b->params[i].name) == len && memcmp(b->params[i].name, name, len) == 0)
            return &b->params[i];
    return NULL;
}

block_param *block_param_get(block *b, const char *name, size_t len, enum tval_mode mode,
                             size_t max_bytes)
{
    block_param *p = block_param_find(b, name, len);
    return p ? p : block_param_add(b, name, len, mode, max_bytes);
}

block_param *block_param_add(block *b, const char *name, size_t len, enum tval_mode mode,
                             size_t max_bytes)
{
    block_param *p;
    if (b->nparams == b->capparams) {
        size_t cap = b->capparams ? b->capparams * 2 : 4;
        block_param *v = realloc(b->params, cap * sizeof *v);
        if (!v)
            return NULL;
        b->params = v;
        b->capparams = cap;
    }
    p = &b->params[b->nparams];
    memset(p, 0, sizeof *p);
    p->name = strndup(name, len);
    p->val = malloc(sizeof *p->val);
    if (!p->name || !p->val) {
        free(p->name);
        free(p->val);
        memset(p, 0, sizeof *p);
        return NULL;
    }
    tval_init(p->val, mode, max_bytes);
    b->nparams++;
    return p;
}

const char *block_text(const block *b, size_t *len)
{
    return tval_str(&b->content, len);
}

const char *block_text_from(const block *b, size_t *from, size_t *len)
{
    *from = tval_dropped(&b->content);
    return tval_str(&b->content, len);
}

const char *block_param_name(const block *b, size_t i)
{
    return i < b->nparams ? b->params[i].name : NULL;
}

const char *block_param_value(const block *b, size_t i, size_t *len)
{
    if (i >= b->nparams) {
        if (len)
            *len = 0;
        return "";
    }
    return tval_str(b->params[i].val, len);
}

const char *block_param_lookup(const block *b, const char *name, size_t *len)
{
    block_param *p = block_param_find(b, name, strlen(name));
    return p ? tval_str(p->val, len) : NULL;
}
