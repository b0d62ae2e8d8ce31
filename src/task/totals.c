/* totals — the task's usage, cost and request count added up (issue #16, "totals that add
 * up"): the one source that the store row, `hew history`, hew_task_totals (the terminal's
 * status line and /cost) and `hew -p --json`'s end line read. Totals only grow: a resumed
 * task starts from its stored row, and a row that was never read is never written over.
 * Only this file touches hew_task.totals. Runs on the task thread; the copies for the
 * front end change under mu. It never prices anything itself (api/cost.c does) and never
 * says anything. */
#include <string.h>

#include "api/cost.h"
#include "store/store.h"
#include "task/task.h"

static long long positive(int64_t v)
{
    return v > 0 ? (long long)v : 0;
}

void task_totals_store(hew_task *t, unsigned also)
{
    const task_totals_part *p = &t->totals;
    store_task row = STORE_TASK_INIT;
    row.tokens_in = p->usage.input_uncached;
    row.tokens_out = p->usage.output;
    row.cache_reads = p->usage.cache_read;
    row.cache_writes = p->usage.cache_write;
    row.cost = p->cost;
    row.requests = p->requests;
    /* never zero a row we did not read */
    task_persist_row(t, &row, also | (p->known ? (unsigned)STORE_SET_USAGE : 0u));
}

/* Hand the front end its copies (and persist the totals when they changed). */
static void publish(hew_task *t, bool changed)
{
    task_totals_part *p = &t->totals;
    hew_totals now = {
        .tokens_in = positive(p->usage.input_uncached),
        .tokens_out = positive(p->usage.output),
        .cache_reads = positive(p->usage.cache_read),
        .cache_writes = positive(p->usage.cache_write),
        .cost = p->cost > 0 ? p->cost : 0,
        .requests = positive(p->requests),
    };
    pthread_mutex_lock(&t->mu);
    p->shown = now;
    p->shown_run = p->run;
    pthread_mutex_unlock(&t->mu);
    if (changed)
        task_totals_store(t, 0);
}

void task_totals_init(hew_task *t)
{
    memset(&t->totals, 0, sizeof t->totals);
    t->totals.usage = (api_usage){ 0, 0, 0, 0, 0, 0, -1.0 };
}

void task_totals_begin(hew_task *t)
{
    task_totals_part *p = &t->totals;
    if (!t->resume_id) {
        p->known = true; /* a new row: its totals are ours */
        return;
    }
    /* The stored totals are where a resumed task goes on from (never from zero, even when
     * loading the rest of it fails later). */
    store_task row = STORE_TASK_INIT;
    if (task_persist_stored_row(t, &row)) {
        p->usage.input_uncached = row.tokens_in;
        p->usage.output = row.tokens_out;
        p->usage.cache_read = row.cache_reads;
        p->usage.cache_write = row.cache_writes;
        p->cost = row.cost;
        p->requests = row.requests;
        p->known = true;
        publish(t, false);
    }
    store_task_release(&row);
}

void task_totals_request(hew_task *t)
{
    t->totals.requests++;
    t->totals.run.requests++;
    publish(t, true);
}

double task_totals_add(hew_task *t, const api_usage *u)
{
    task_totals_part *p = &t->totals;
    double cost = api_cost_usd(&t->session->model, u);
    p->usage.input_uncached += positive(u->input_uncached);
    p->usage.output += positive(u->output);
    p->usage.cache_read += positive(u->cache_read);
    p->usage.cache_write += positive(u->cache_write);
    p->run.tokens_in += positive(u->input_uncached);
    p->run.tokens_out += positive(u->output);
    p->run.cache_reads += positive(u->cache_read);
    p->run.cache_writes += positive(u->cache_write);
    if (cost > 0) {
        p->cost += cost;
        p->run.cost += cost;
    }
    publish(t, true);
    return cost;
}

void task_totals_get(hew_task *t, hew_totals *task, hew_totals *run)
{
    pthread_mutex_lock(&t->mu);
    if (task)
        *task = t->totals.shown;
    if (run)
        *run = t->totals.shown_run;
    pthread_mutex_unlock(&t->mu);
}
