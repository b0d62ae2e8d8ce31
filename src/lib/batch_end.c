/* batch_end — the task_end lines of a child's `--json` output, read as the bytes come
 * (see batch_end.h). It must never hold more than the one line that may be an end line,
 * and never do I/O. */
#include "lib/batch_end.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { LINE_UNDECIDED, LINE_KEEP, LINE_SKIP };

#define END_HEAD 64 /* bytes in which an end line says "kind":"end" */

static const char end_key[] = "\"kind\":\"end\"";

void batch_end_init(batch_end *e)
{
    memset(e, 0, sizeof *e);
    buf_init(&e->line, BATCH_END_LINE_MAX);
    e->state = LINE_UNDECIDED;
}

static const json_t *num_at(const json_t *o, const char *key, const json_t *alt,
                            const char *alt_key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v) && alt)
        v = json_object_get(alt, alt_key);
    return json_is_number(v) ? v : NULL;
}

static long long int_at(const json_t *o, const char *key, const json_t *alt, const char *alt_key)
{
    const json_t *v = num_at(o, key, alt, alt_key);
    return v ? (long long)json_number_value(v) : 0;
}

/* A whole line that may be a task_end. */
static void end_line(batch_end *e, const char *s, size_t n)
{
    json_t *o = json_loadb(s, n, 0, NULL);
    const char *kind = json_string_value(json_object_get(o, "kind"));
    if (!json_is_object(o) || !kind || strcmp(kind, "end") != 0) {
        json_decref(o);
        return;
    }
    const json_t *usage = json_object_get(o, "usage");
    const json_t *totals = json_object_get(o, "totals");
    if (!json_is_object(usage))
        usage = NULL;
    if (!json_is_object(totals))
        totals = NULL;
    e->input_tokens += int_at(usage, "input_tokens", totals, "tokens_in");
    e->output_tokens += int_at(usage, "output_tokens", totals, "tokens_out");
    e->cache_read_tokens += int_at(usage, "cache_read_tokens", totals, "cache_reads");
    e->cache_write_tokens += int_at(usage, "cache_write_tokens", totals, "cache_writes");
    e->requests += int_at(o, "requests", totals, "requests");
    const json_t *cost = num_at(o, "cost_usd", totals, "cost");
    e->cost_usd += cost ? json_number_value(cost) : 0;
    e->ends++;
    const char *status = json_string_value(json_object_get(o, "status"));
    free(e->status);
    e->status = status ? strdup(status) : NULL;
    const char *result = json_string_value(json_object_get(o, "result"));
    free(e->result);
    e->result = result ? strndup(result, BATCH_END_RESULT_MAX) : NULL;
    const char *reason = json_string_value(json_object_get(o, "reason"));
    free(e->reason);
    e->reason = reason ? strdup(reason) : NULL;
    json_t *denied = json_object_get(o, "denied");
    json_decref(e->denied);
    e->denied = json_is_array(denied) ? json_incref(denied) : NULL;
    json_decref(o);
}

static void line_done(batch_end *e)
{
    if (e->state != LINE_SKIP && e->line.len && e->line.err == HEW_OK)
        end_line(e, e->line.data, e->line.len);
    buf_reset(&e->line);
    e->state = LINE_UNDECIDED;
}

void batch_end_feed(batch_end *e, const char *d, size_t n)
{
    while (n) {
        const char *nl = memchr(d, '\n', n);
        size_t k = nl ? (size_t)(nl - d) : n;
        if (e->state != LINE_SKIP)
            buf_append(&e->line, d, k);
        if (e->state == LINE_UNDECIDED && (e->line.len >= END_HEAD || nl)) {
            size_t head = e->line.len < END_HEAD ? e->line.len : END_HEAD;
            bool end = e->line.data && memmem(e->line.data, head, end_key, sizeof end_key - 1);
            e->state = end ? LINE_KEEP : LINE_SKIP;
            if (!end)
                buf_reset(&e->line);
        }
        if (nl) {
            line_done(e);
            k++;
        }
        d += k;
        n -= k;
    }
}

void batch_end_finish(batch_end *e)
{
    if (e->line.len)
        line_done(e);
}

void batch_end_release(batch_end *e)
{
    if (!e)
        return;
    buf_release(&e->line);
    free(e->status);
    free(e->result);
    free(e->reason);
    json_decref(e->denied);
    e->status = e->result = e->reason = NULL;
    e->denied = NULL;
}
