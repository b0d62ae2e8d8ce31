/* task_totals — the task's totals through the public API (hew_task_totals,
 * hew_history_json) against the fake provider (issue #16, "totals that add up"), with
 * claude-sonnet-4-5's prices ($3 in, $15 out, $0.30 cache read, $3.75 cache write per
 * million) and numbers pinned from the scenarios:
 *   - a request that succeeds after a 500 keeps its tokens and cost, and its
 *     api_req_started is no longer a failed one (no cancelReason / retryStatus /
 *     streamingFailedMessage; retries: 1);
 *   - a task aborted mid-stream keeps the usage of message_start, and resumed in the same
 *     session it adds to it: the task's totals are the sum, the run's only what the
 *     resumed run added, the stored row the same numbers;
 *   - a resume that fails (a stored message is damaged) leaves the stored totals as they
 *     were (before, the failure wrote zeros over them);
 *   - the outcome (issue #18, hew_task_outcome): an unattended session's refused write is
 *     a denial named with what allows it (class 7), an attended one's "no" is not; a
 *     max_requests budget stops the task before the request past it (class 6); tool calls
 *     are counted. */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "taskrun.h"
#include "tmpdir.h"

static char *data_dir;

/* Answer every ask yes (accept, retry, go on), tool approvals no when deny_tools is set. */
static int deny_tools;

static int answer(taskrun *r, hew_task *t, const json_t *ev)
{
    (void)r;
    const char *type = json_string_value(json_object_get(ev, "type"));
    return hew_task_respond(t, deny_tools && strcmp(type, "tool") == 0 ? HEW_ANSWER_NO
                                                                        : HEW_ANSWER_YES,
                            NULL);
}

/* The options of the next run_start beyond the defaults (budgets, unattended). */
static hew_options next_opts;

static void totals_options(hew_options *o)
{
    o->model = "claude-sonnet-4-5";
    o->data_dir = data_dir;
    o->unattended = next_opts.unattended;
    o->max_requests = next_opts.max_requests;
    o->max_cost_usd = next_opts.max_cost_usd;
    memset(&next_opts, 0, sizeof next_opts);
}

/* The provider and a session on it; the test starts its task into r->t. */
static int run_start(taskrun *r, const char *scenario)
{
    deny_tools = 0;
    return taskrun_start(r, &(taskrun_spec){ .scenario = scenario, .defaults = totals_options,
                                             .policy = answer });
}

static double price(double in, double out, double cr, double cw)
{
    return (in * 3.0 + cr * 0.30 + cw * 3.75 + out * 15.0) / 1e6;
}

#define CHECK_COST(a, b) CHECK(fabs((a) - (b)) < 1e-12)

static void check_totals(const hew_totals *t, long long in, long long out, long long cr,
                         long long cw, double cost, long long requests)
{
    CHECK_INT(t->tokens_in, in);
    CHECK_INT(t->tokens_out, out);
    CHECK_INT(t->cache_reads, cr);
    CHECK_INT(t->cache_writes, cw);
    CHECK_COST(t->cost, cost);
    CHECK_INT(t->requests, requests);
}

/* The stored row of a task agrees with t exactly. */
static void check_stored(const char *id, const hew_totals *t)
{
    hew_options o;
    hew_options_init(&o);
    o.data_dir = data_dir;
    char err[256];
    char *js = NULL;
    (void)hew_history_json(&o, id, NULL, 0, &js, err, sizeof err);
    REQUIRE(js != NULL);
    json_t *list = json_loads(js, 0, NULL);
    hew_free(js);
    json_t *row = json_array_get(list, 0);
    REQUIRE(json_array_size(list) == 1);
    CHECK_STR(json_string_value(json_object_get(row, "id")), id);
    CHECK_INT(json_integer_value(json_object_get(row, "tokens_in")), t->tokens_in);
    CHECK_INT(json_integer_value(json_object_get(row, "tokens_out")), t->tokens_out);
    CHECK_INT(json_integer_value(json_object_get(row, "cache_reads")), t->cache_reads);
    CHECK_INT(json_integer_value(json_object_get(row, "cache_writes")), t->cache_writes);
    CHECK(json_real_value(json_object_get(row, "cost")) == t->cost);
    CHECK_INT(json_integer_value(json_object_get(row, "requests")), t->requests);
    json_decref(list);
}

#define COMPLETE_WITH(usage)                                                                \
    "{\"protocol\":\"anthropic\",\"text\":\"<attempt_completion>\\n<result>\\nDone.\\n"     \
    "</result>\\n</attempt_completion>\",\"usage\":" usage "}"

static void test_retried_request_keeps_its_usage(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"status\":500,\"body\":{\"type\":\"error\","
                          "\"error\":{\"type\":\"api_error\",\"message\":\"Internal server "
                          "error\"}}}," COMPLETE_WITH("{\"input\":1200,\"output\":85,"
                                                      "\"cache_read\":1024,\"cache_write\":300}")
                          "]}") == 0);
    char err[256];
    (void)hew_task_start(r.s, "Retry me", &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *ev = taskrun_last(&r, "api_req_started", 0);
    REQUIRE(ev != NULL);
    json_t *d = json_object_get(ev, "data");
    CHECK(json_object_get(d, "cancelReason") == NULL);
    CHECK(json_object_get(d, "retryStatus") == NULL);
    CHECK(json_object_get(d, "streamingFailedMessage") == NULL);
    CHECK_INT(json_integer_value(json_object_get(d, "retries")), 1);
    CHECK_INT(json_integer_value(json_object_get(d, "tokensIn")), 1200);
    CHECK_INT(json_integer_value(json_object_get(d, "tokensOut")), 85);
    CHECK_COST(json_real_value(json_object_get(d, "cost")), 0.0063072);
    hew_totals task, run_tot;
    hew_task_totals(r.t, &task, &run_tot);
    check_totals(&task, 1200, 85, 1024, 300, 0.0063072, 1);
    check_totals(&run_tot, 1200, 85, 1024, 300, 0.0063072, 1);
    check_stored(hew_task_id(r.t), &task);
    taskrun_free(&r);
}

static void test_totals_grow_across_abort_and_resume(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Reading the "
                          "whole thing carefully first, this takes a while\",\"delta_size\":4,"
                          "\"stall_after_bytes\":900,\"stall_ms\":30000,\"usage\":{\"input\":"
                          "2000,\"output\":500,\"cache_read\":100,\"cache_write\":400}},"
                          COMPLETE_WITH("{\"input\":3000,\"output\":40,\"cache_read\":2000,"
                                        "\"cache_write\":0}") "]}") == 0);
    char err[256];
    (void)hew_task_start(r.s, "a long job", &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    REQUIRE(taskrun_wait_event(&r, "text", NULL));
    hew_task_abort(r.t, "Ctrl-C");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    double first = price(2000, 0, 100, 400); /* message_start's usage */
    CHECK_COST(first, 0.00753);
    hew_totals task, run_tot;
    hew_task_totals(r.t, &task, &run_tot);
    check_totals(&task, 2000, 0, 100, 400, first, 1);
    check_totals(&run_tot, 2000, 0, 100, 400, first, 1);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(r.t));
    check_stored(id, &task);
    hew_task_free(r.t);

    (void)hew_task_resume(r.s, id, &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    double second = price(3000, 40, 2000, 0);
    CHECK_COST(second, 0.0102);
    hew_task_totals(r.t, &task, &run_tot);
    check_totals(&task, 5000, 40, 2100, 400, first + second, 2);
    check_totals(&run_tot, 3000, 40, 2000, 0, second, 1);
    check_stored(id, &task);
    taskrun_free(&r);
}

static void test_failed_resume_keeps_the_stored_totals(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" COMPLETE_WITH("{\"input\":1200,\"output\":85,"
                                                           "\"cache_read\":1024,"
                                                           "\"cache_write\":300}") "]}") == 0);
    char err[256];
    (void)hew_task_start(r.s, "Keep my totals", &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    hew_totals before;
    hew_task_totals(r.t, &before, NULL);
    check_totals(&before, 1200, 85, 1024, 300, 0.0063072, 1);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(r.t));
    hew_task_free(r.t);
    r.t = NULL;

    /* Damage one stored message: the task can no longer be loaded. */
    char path[4200];
    snprintf(path, sizeof path, "%s/hew.db", data_dir);
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    char sql[256];
    snprintf(sql, sizeof sql,
             "UPDATE api_messages SET json = 'not json' WHERE ord = 0 AND tid = "
             "(SELECT tid FROM tasks WHERE id = '%s')", id);
    CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
    CHECK_INT(sqlite3_changes(db), 1);
    sqlite3_close(db);

    (void)hew_task_resume(r.s, id, &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK(hew_task_wait(r.t) != HEW_TASK_RUNNING); /* it could not go on */
    hew_totals task, run_tot;
    hew_task_totals(r.t, &task, &run_tot);
    check_totals(&task, 1200, 85, 1024, 300, 0.0063072, 1);
    check_totals(&run_tot, 0, 0, 0, 0, 0, 0);
    check_stored(id, &before); /* never zeroed */
    taskrun_free(&r);
}

#define WRITE_THEN_COMPLETE                                                                 \
    "{\"protocol\":\"anthropic\",\"text\":\"<write_to_file>\\n<path>x.txt</path>\\n"  \
    "<content>\\nx\\n</content>\\n</write_to_file>\"}," COMPLETE_WITH("{\"input\":10,\"output\":1}")

static void test_outcome_denied_when_unattended(void)
{
    for (int unattended = 0; unattended < 2; unattended++) {
        taskrun r;
        next_opts.unattended = unattended;
        REQUIRE(run_start(&r, "{\"responses\":[" WRITE_THEN_COMPLETE "]}") == 0);
        deny_tools = 1;
        char err[256];
        (void)hew_task_start(r.s, "Write x.txt", &r.t, err, sizeof err);
        REQUIRE(r.t != NULL);
        CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
        hew_outcome oc;
        char *denied = NULL;
        CHECK_INT(hew_task_outcome(r.t, &oc, &denied), HEW_OK);
        CHECK_INT(oc.exit_code, unattended ? HEW_EXIT_DENIED : HEW_EXIT_COMPLETED);
        CHECK_STR(oc.reason, unattended ? "denied" : "completed");
        CHECK_INT(oc.denied, unattended);
        CHECK_INT(oc.tool_calls, 2); /* the refused write and the completion */
        CHECK_INT(oc.retries, 0);
        CHECK(oc.duration_ms >= 0);
        CHECK_STR(denied, unattended ? "[{\"type\":\"tool\",\"tool\":\"write_to_file\","
                                       "\"path\":\"x.txt\",\"allow\":[\"edit\"]}]"
                                     : "[]");
        hew_free(denied);
        taskrun_free(&r);
    }
}

static void test_outcome_budget(void)
{
    taskrun r;
    next_opts.max_requests = 1;
    REQUIRE(run_start(&r, "{\"responses\":[" WRITE_THEN_COMPLETE "]}") == 0);
    char err[256];
    (void)hew_task_start(r.s, "Write x.txt", &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_FAILED);
    hew_outcome oc;
    CHECK_INT(hew_task_outcome(r.t, &oc, NULL), HEW_OK);
    CHECK_INT(oc.exit_code, HEW_EXIT_BUDGET);
    CHECK_STR(oc.reason, "budget");
    CHECK_STR(oc.error_category, "");
    hew_totals task;
    hew_task_totals(r.t, &task, NULL);
    CHECK_INT(task.requests, 1); /* the second was never sent */
    CHECK(taskrun_wait_event(&r, "error", NULL));
    taskrun_free(&r);
}

int main(void)
{
    data_dir = tmpdir_make("task-totals");
    if (!data_dir)
        return 1;
    RUN(test_retried_request_keeps_its_usage);
    RUN(test_totals_grow_across_abort_and_resume);
    RUN(test_failed_resume_keeps_the_stored_totals);
    RUN(test_outcome_denied_when_unattended);
    RUN(test_outcome_budget);
    tmpdir_remove(data_dir);
    free(data_dir);
    return check_report();
}
