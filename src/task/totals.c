/* totals — the task's usage, cost and request count added up (issue #16, "totals that add
 * up"): the one source that the store row, `hew history`, hew_task_totals (the terminal's
 * status line and /cost) and `hew -p --json`'s end line read. Totals only grow: a resumed
 * task starts from its stored row, and a row that was never read is never written over.
 * Only this file touches hew_task.totals. Runs on the task thread; the copies for the
 * front end change under mu. It never prices anything itself (api/cost.c does) and never
 * says anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cost.h"
#include "store/store.h"
#include "sys/clock.h"
#include "task/exitclass.h"
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
    t->totals.started_ms = clock_now_ms();
    t->totals.failure = API_ERR_NONE;
}

void task_totals_release(hew_task *t)
{
    json_decref(t->totals.denied);
    t->totals.denied = NULL;
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

/* ---- the outcome ------------------------------------------------------------------------ */

void task_totals_tool_call(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    t->totals.tool_calls++;
    pthread_mutex_unlock(&t->mu);
}

void task_totals_retry(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    t->totals.retries++;
    pthread_mutex_unlock(&t->mu);
}

void task_totals_failure(hew_task *t, const api_error *e)
{
    pthread_mutex_lock(&t->mu);
    t->totals.failure = e ? e->category : API_ERR_NONE;
    t->totals.failure_retryable = e && e->retryable;
    pthread_mutex_unlock(&t->mu);
}

void task_totals_denied(hew_task *t, json_t *entry)
{
    if (!entry)
        return;
    pthread_mutex_lock(&t->mu);
    if (!t->totals.denied)
        t->totals.denied = json_array();
    json_array_append_new(t->totals.denied, entry); /* steals, also on failure */
    pthread_mutex_unlock(&t->mu);
}

void task_totals_end(hew_task *t)
{
    long long now = clock_now_ms();
    pthread_mutex_lock(&t->mu);
    if (!t->totals.ended_ms)
        t->totals.ended_ms = now;
    pthread_mutex_unlock(&t->mu);
}

/* The budgets by a table: what each counts against its limit. */
typedef struct budget_use {
    double spent, limit;
} budget_use;

static budget_use use_requests(const hew_task *t)
{
    return (budget_use){ (double)t->totals.requests, (double)t->settings->max_requests };
}

static budget_use use_cost(const hew_task *t)
{
    return (budget_use){ t->totals.cost, t->settings->max_cost_usd };
}

static const struct {
    const char *name;
    budget_use (*use)(const hew_task *t);
    const char *fmt; /* the figures: spent, limit */
    const char *flag;
} budgets[] = {
    { "max_requests", use_requests, "%.0f requests were sent, the limit is %.0f",
      "--max-requests" },
    { "max_cost", use_cost, "the task cost $%.6f, the limit is $%.6f", "--max-cost" },
};

bool task_totals_budget(hew_task *t, char *why, size_t n, json_t **data)
{
    *data = NULL;
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        budget_use u = budgets[i].use(t);
        if (u.limit <= 0 || u.spent < u.limit)
            continue;
        char figures[160];
        snprintf(figures, sizeof figures, budgets[i].fmt, u.spent, u.limit);
        snprintf(why, n,
                 "The task stopped: its budget ran out (%s): %s. It is saved: resume it "
                 "with a larger %s to go on.",
                 budgets[i].name, figures, budgets[i].flag);
        *data = json_pack("{s:s, s:f, s:f}", "budget", budgets[i].name, "limit", u.limit,
                          "spent", u.spent);
        pthread_mutex_lock(&t->mu);
        t->totals.budget = true;
        pthread_mutex_unlock(&t->mu);
        return true;
    }
    return false;
}

hew_code task_totals_outcome(hew_task *t, hew_outcome *out, char **denied_json)
{
    long long now = clock_now_ms();
    pthread_mutex_lock(&t->mu);
    task_totals_part *p = &t->totals;
    exitclass_facts f = {
        .status = t->status,
        .budget = p->budget,
        .failure = t->status == HEW_TASK_FAILED ? p->failure : API_ERR_NONE,
        .failure_retryable = p->failure_retryable,
        .denied = json_array_size(p->denied),
    };
    hew_exit_class c = exitclass_of(&f);
    *out = (hew_outcome){
        .status = t->status,
        .exit_code = c,
        .reason = t->status == HEW_TASK_RUNNING ? "running" : exitclass_name(c),
        .error_category = f.failure != API_ERR_NONE ? api_error_category_name(f.failure) : "",
        .tool_calls = p->tool_calls,
        .retries = p->retries,
        .duration_ms = (p->ended_ms ? p->ended_ms : now) - p->started_ms,
        .denied = (long long)f.denied,
    };
    char *list = NULL;
    if (denied_json)
        list = p->denied ? json_dumps(p->denied, JSON_COMPACT | JSON_PRESERVE_ORDER)
                         : strdup("[]");
    pthread_mutex_unlock(&t->mu);
    if (denied_json) {
        if (!list)
            return HEW_E_NOMEM;
        *denied_json = list; /* malloc'd: hew_free is free */
    }
    return HEW_OK;
}
