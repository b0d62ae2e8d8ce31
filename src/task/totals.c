/* totals — the task's usage, cost and request count added up (issue #16, "totals that add
 * up"): the one source that the store row, `hew history`, hew_task_totals (the terminal's
 * status line and /cost) and `hew -p --json`'s end line read. Totals only grow: a resumed
 * task starts from its stored row, and a row that was never read is never written over.
 * Runs on the task thread; the copies for the front end change under mu. It never prices
 * anything itself (api/cost.c does) and never says anything. */
#include <string.h>

#include "api/cost.h"
#include "store/store.h"
#include "task/task.h"

static long long positive(int64_t v)
{
    return v > 0 ? (long long)v : 0;
}

/* Hand the front end its copies (and persist the totals when they changed). */
static void publish(hew_task *t, bool changed)
{
    hew_totals now = {
        .tokens_in = positive(t->totals.input_uncached),
        .tokens_out = positive(t->totals.output),
        .cache_reads = positive(t->totals.cache_read),
        .cache_writes = positive(t->totals.cache_write),
        .cost = t->task_cost > 0 ? t->task_cost : 0,
        .requests = positive(t->requests),
    };
    pthread_mutex_lock(&t->mu);
    t->shown = now;
    t->shown_run = t->run;
    pthread_mutex_unlock(&t->mu);
    if (changed)
        task_persist_row(t, STORE_SET_USAGE);
}

void task_totals_load(hew_task *t, const store_task *row)
{
    t->totals.input_uncached = row->tokens_in;
    t->totals.output = row->tokens_out;
    t->totals.cache_read = row->cache_reads;
    t->totals.cache_write = row->cache_writes;
    t->task_cost = row->cost;
    t->requests = row->requests;
    t->totals_known = true;
    publish(t, false);
}

void task_totals_request(hew_task *t)
{
    t->requests++;
    t->run.requests++;
    publish(t, true);
}

double task_totals_add(hew_task *t, const api_usage *u)
{
    double cost = api_cost_usd(&t->session->model, u);
    api_usage *tot = &t->totals;
    tot->input_uncached += positive(u->input_uncached);
    tot->output += positive(u->output);
    tot->cache_read += positive(u->cache_read);
    tot->cache_write += positive(u->cache_write);
    t->run.tokens_in += positive(u->input_uncached);
    t->run.tokens_out += positive(u->output);
    t->run.cache_reads += positive(u->cache_read);
    t->run.cache_writes += positive(u->cache_write);
    if (cost > 0) {
        t->task_cost += cost;
        t->run.cost += cost;
    }
    publish(t, true);
    return cost;
}

void task_totals_get(hew_task *t, hew_totals *task, hew_totals *run)
{
    pthread_mutex_lock(&t->mu);
    if (task)
        *task = t->shown;
    if (run)
        *run = t->shown_run;
    pthread_mutex_unlock(&t->mu);
}
