/* plan — a prepared response: body, event boundaries and write cuts (see plan.h).
 * Never does I/O; never knows which protocol or HTTP library is in use. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void plan_init(fp_plan *p)
{
    memset(p, 0, sizeof *p);
    p->status = 200;
    p->headers = json_object();
    p->chunked = true;
    buf_init(&p->body, PLAN_BODY_MAX);
    p->faults.close_after_bytes = -1;
    p->faults.stall_after_bytes = -1;
    p->faults.malformed_at = -1;
}

void plan_release(fp_plan *p)
{
    json_decref(p->headers);
    buf_release(&p->body);
    free(p->events);
    free(p->cuts);
    free(p->faults.splits);
    memset(p, 0, sizeof *p);
}

void plan_set_header(fp_plan *p, const char *name, const char *value)
{
    const char *key;
    json_t *v;
    void *tmp;
    if (!p->headers)
        return;
    json_object_foreach_safe(p->headers, tmp, key, v)
    {
        if (strcasecmp(key, name) == 0)
            json_object_del(p->headers, key);
    }
    if (json_object_set_new(p->headers, name, json_string(value)) != 0)
        p->body.err = HEW_E_NOMEM;
}

static void push_event_end(fp_plan *p, size_t end)
{
    if (p->body.err)
        return;
    if (p->nevents == p->events_cap) {
        size_t cap = p->events_cap ? p->events_cap * 2 : 32;
        size_t *v = realloc(p->events, cap * sizeof *v);
        if (!v) {
            p->body.err = HEW_E_NOMEM;
            return;
        }
        p->events = v;
        p->events_cap = cap;
    }
    p->events[p->nevents++] = end;
}

void plan_add_event(fp_plan *p, const char *data, size_t len)
{
    buf_append(&p->body, data, len);
    push_event_end(p, p->body.len);
}

void plan_insert_event(fp_plan *p, size_t k, const char *data, size_t len)
{
    if (k >= p->nevents) {
        plan_add_event(p, data, len);
        return;
    }
    size_t at = k == 0 ? 0 : p->events[k - 1];
    buf nb = BUF_INIT(PLAN_BODY_MAX);
    buf_append(&nb, p->body.data, at);
    buf_append(&nb, data, len);
    buf_append(&nb, p->body.data + at, p->body.len - at);
    if (nb.err) {
        p->body.err = nb.err;
        buf_release(&nb);
        return;
    }
    buf_release(&p->body);
    p->body = nb;
    push_event_end(p, 0); /* make room; fixed up below */
    if (p->body.err)
        return;
    for (size_t i = p->nevents - 1; i > k; i--)
        p->events[i] = p->events[i - 1] + len;
    p->events[k] = at + len;
}

void plan_add_raw_sse(fp_plan *p, const char *data, size_t len)
{
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        size_t end = 0;
        if (data[i] == '\n' && i + 1 < len && data[i + 1] == '\n')
            end = i + 2;
        else if (data[i] == '\r' && i + 1 < len && data[i + 1] == '\r')
            end = i + 2;
        else if (data[i] == '\r' && i + 3 < len && memcmp(data + i, "\r\n\r\n", 4) == 0)
            end = i + 4;
        if (end) {
            plan_add_event(p, data + start, end - start);
            start = end;
            i = end - 1;
        }
    }
    if (start < len)
        plan_add_event(p, data + start, len - start);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

hew_code plan_finish(fp_plan *p, const char *what, hew_err *err)
{
    if (!p->headers)
        return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", what);
    if (buf_check(&p->body, what, err) != HEW_OK)
        return err ? err->code : HEW_E_NOMEM;
    const fp_faults *f = &p->faults;
    size_t len = p->body.len;
    size_t max = 3 + p->nevents + f->nsplits;
    if (f->chunk_size)
        max += len / f->chunk_size + 1;
    size_t *cuts = malloc(max * sizeof *cuts);
    if (!cuts)
        return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", what);
    size_t n = 0;
    if (f->splits) {
        for (size_t i = 0; i < f->nsplits; i++)
            if (f->splits[i] > 0 && f->splits[i] < len)
                cuts[n++] = f->splits[i];
    } else if (f->chunk_size) {
        for (size_t off = f->chunk_size; off < len; off += f->chunk_size)
            cuts[n++] = off;
    } else {
        for (size_t i = 0; i < p->nevents; i++)
            if (p->events[i] > 0 && p->events[i] < len)
                cuts[n++] = p->events[i];
    }
    if (f->close_after_bytes > 0 && (size_t)f->close_after_bytes < len)
        cuts[n++] = (size_t)f->close_after_bytes;
    if (f->stall_after_bytes > 0 && (size_t)f->stall_after_bytes < len)
        cuts[n++] = (size_t)f->stall_after_bytes;
    cuts[n++] = len;
    qsort(cuts, n, sizeof *cuts, cmp_size);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || cuts[u - 1] != cuts[i])
            cuts[u++] = cuts[i];
    free(p->cuts);
    p->cuts = cuts;
    p->ncuts = u;
    return HEW_OK;
}

size_t plan_next_cut(const fp_plan *p, size_t pos)
{
    /* binary search for the first cut > pos */
    size_t lo = 0, hi = p->ncuts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->cuts[mid] <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->ncuts ? p->cuts[lo] : p->body.len;
}
