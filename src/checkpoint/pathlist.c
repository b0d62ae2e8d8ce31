/* pathlist — lists of workspace-relative paths (see pathlist.h). Pure memory work: it must
 * never touch the file system and never alter a path's bytes. */
#include "checkpoint/pathlist.h"

#include <stdlib.h>
#include <string.h>

void pathlist_release(pathlist *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->status);
    *l = (pathlist)PATHLIST_INIT;
}

/* Append a copy of p[0..len) with a status letter (0 for none). */
static void pathlist_add(pathlist *l, const char *p, size_t len, char status)
{
    if (l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = true;
            return;
        }
        l->v = v;
        char *st = realloc(l->status, cap);
        if (!st) {
            l->oom = true;
            return;
        }
        l->status = st;
        l->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        l->oom = true;
        return;
    }
    memcpy(copy, p, len);
    copy[len] = '\0';
    l->v[l->n] = copy;
    l->status[l->n] = status;
    l->n++;
}

void pathlist_add_str(pathlist *l, const char *p, char status)
{
    pathlist_add(l, p, strlen(p), status);
}

void pathlist_add_z(pathlist *l, const char *data, size_t len)
{
    size_t i = 0;
    while (i < len) {
        const char *nul = memchr(data + i, '\0', len - i);
        size_t end = nul ? (size_t)(nul - data) : len;
        if (end > i)
            pathlist_add(l, data + i, end - i, 0);
        i = end + 1;
    }
}

void pathlist_add_tagged_z(pathlist *l, const char *data, size_t len)
{
    size_t i = 0;
    while (i < len) {
        const char *nul = memchr(data + i, '\0', len - i);
        size_t end = nul ? (size_t)(nul - data) : len;
        if (end >= i + 3 && data[i + 1] == ' ')
            pathlist_add(l, data + i + 2, end - i - 2, data[i]);
        i = end + 1;
    }
}

static int cmp_bytes(const char *a, const char *b)
{
    /* strcmp compares as unsigned char, which is git's order too. */
    return strcmp(a, b);
}

struct tagged {
    char *p;
    char st;
};

static int cmp_tagged(const void *a, const void *b)
{
    const struct tagged *x = a, *y = b;
    return cmp_bytes(x->p, y->p);
}

void pathlist_sort_unique(pathlist *l)
{
    if (l->n < 2)
        return;
    struct tagged *t = malloc(l->n * sizeof *t);
    if (!t) {
        l->oom = true;
        return;
    }
    for (size_t i = 0; i < l->n; i++)
        t[i] = (struct tagged){ l->v[i], l->status[i] };
    /* A stable order for equal keys is not needed: duplicates carry the same path and the
     * first status kept is any one of them; callers that care add each path once. */
    qsort(t, l->n, sizeof *t, cmp_tagged);
    size_t out = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (out && strcmp(t[i].p, l->v[out - 1]) == 0) {
            free(t[i].p);
            continue;
        }
        l->v[out] = t[i].p;
        l->status[out] = t[i].st;
        out++;
    }
    l->n = out;
    free(t);
}

static int cmp_key(const void *key, const void *elem)
{
    return cmp_bytes(key, *(char *const *)elem);
}

bool pathlist_has(const pathlist *l, const char *p)
{
    if (!l->n)
        return false;
    return bsearch(p, l->v, l->n, sizeof *l->v, cmp_key) != NULL;
}

hew_code pathlist_check(const pathlist *l, hew_err *err)
{
    if (l->oom)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory while listing workspace files");
    return HEW_OK;
}
