/* task_life — the life of a task (src/task/life.c): made and freed without ever running,
 * started once only, freed (or aborted) while its thread waits at an ask, and its
 * condition variable measuring timed waits on the monotonic clock. Run under ASan: a
 * leak, a thread left running or a use after free fails the test. Waits for events, with
 * generous timeouts only as a safety net. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/clock.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "task/task.h"
#include "tmpdir.h"

#define SAFETY_MS 60000L

/* The model asks a question (XML tools). */
static const char ask_scenario[] =
    "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Let me ask.\\n"
    "<ask_followup_question>\\n<question>Which colour?</question>\\n"
    "</ask_followup_question>\",\"usage\":{\"input\":100,\"output\":10}}]}";

/* The model is done at once. */
static const char done_scenario[] =
    "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Done.\\n<attempt_completion>\\n"
    "<result>All done.</result>\\n</attempt_completion>\",\"usage\":{\"input\":100,"
    "\"output\":10}}]}";

typedef struct run {
    fakeprov fp;
    char *workspace;
    hew_session *s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int asks;        /* complete asks seen */
    json_t *says;    /* every complete say: [type, text] */
    bool answer_yes; /* answer every ask yes (else asks wait) */
    const char *data_dir; /* non-NULL: persist there */
} run;

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    run *r = ud;
    if (ev->partial)
        return;
    pthread_mutex_lock(&r->mu);
    if (!ev->is_ask)
        json_array_append_new(r->says, json_pack("[ss]", ev->type, ev->text ? ev->text : ""));
    else
        r->asks++;
    bool yes = ev->is_ask && r->answer_yes;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (yes) /* from inside the callback: the ask is open before the front end hears of it */
        hew_task_respond(t, HEW_ANSWER_YES, NULL);
}

/* A session against the fake provider (scenario NULL: no provider, the task never
 * starts). */
static int run_open_in(run *r, const char *scenario, const char *data_dir)
{
    memset(r, 0, sizeof *r);
    r->says = json_array();
    r->data_dir = data_dir;
    pthread_mutex_init(&r->mu, NULL);
    clock_cond_init(&r->cv);
    r->workspace = tmpdir_make("life");
    if (!r->workspace)
        return -1;
    if (scenario && fakeprov_start(&r->fp, scenario) != 0)
        return -1;
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-test-model";
    o.api_key = "test-key";
    o.base_url = scenario ? r->fp.url : "http://127.0.0.1:9";
    o.native_tools = 0;
    o.checkpoints = 0;
    o.persist = data_dir != NULL;
    o.data_dir = data_dir;
    o.mcp = 0;
    o.cwd = r->workspace;
    o.on_event = on_event;
    o.event_ud = r;
    char err[512];
    if (hew_session_new(&o, &r->s, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "session: %s\n", err);
        return -1;
    }
    return 0;
}

static int run_open(run *r, const char *scenario)
{
    return run_open_in(r, scenario, NULL);
}

static void run_close(run *r, bool provider)
{
    hew_session_free(r->s);
    if (provider)
        CHECK_INT(fakeprov_stop_status(&r->fp), 0);
    tmpdir_remove(r->workspace);
    free(r->workspace);
    json_decref(r->says);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
}

/* Wait until the task asks (true), or the safety net runs out. */
static bool wait_ask(run *r)
{
    long long until = clock_now_ms() + SAFETY_MS, now;
    pthread_mutex_lock(&r->mu);
    while (r->asks == 0 && (now = clock_now_ms()) < until)
        clock_cond_wait_ms(&r->cv, &r->mu, (long)(until - now));
    bool asked = r->asks > 0;
    pthread_mutex_unlock(&r->mu);
    return asked;
}

/* Made and freed without a thread: everything it holds goes (ASan), nothing runs. */
static void test_free_before_start(void)
{
    run r;
    REQUIRE(run_open(&r, NULL) == 0);
    hew_err err = HEW_ERR_INIT;
    hew_task *t = task_new(r.s, "never run", NULL, &err);
    REQUIRE(t != NULL);
    CHECK(t->task_id[0] != '\0');
    CHECK_INT(task_status(t), HEW_TASK_RUNNING);
    CHECK_STR(task_result(t), "");
    CHECK(task_successor(t) == NULL);
    task_join(t); /* never started: returns at once */
    task_free(t);
    task_free(NULL); /* a no-op */

    /* a resumed one too (its id is its own from the start) */
    t = task_new(r.s, "", "1234567", &err);
    REQUIRE(t != NULL);
    CHECK_STR(t->task_id, "1234567");
    task_abort(t, "stopped before it started");
    task_free(t);
    run_close(&r, false);
}

/* The task's condition variable measures its timed waits on the monotonic clock: a wait
 * of 50 ms lasts 50 ms (on the wall clock's it would end at once: a monotonic deadline
 * is long past on the wall clock). Only a lower bound: load makes it longer, never
 * shorter. */
static void test_timed_wait_is_monotonic(void)
{
    run r;
    REQUIRE(run_open(&r, NULL) == 0);
    hew_err err = HEW_ERR_INIT;
    hew_task *t = task_new(r.s, "wait", NULL, &err);
    REQUIRE(t != NULL);
    long long start = clock_now_ms(), waited = 0;
    pthread_mutex_lock(&t->mu);
    /* a spurious wake-up may end one wait early: wait until 50 ms have passed */
    for (int i = 0; i < 1000 && (waited = clock_now_ms() - start) < 50; i++)
        clock_cond_wait_ms(&t->cv, &t->mu, 50 - (long)waited);
    pthread_mutex_unlock(&t->mu);
    CHECK(clock_now_ms() - start >= 50);
    task_free(t);
    run_close(&r, false);
}

/* A task starts once: a second start is refused and starts no second thread. */
static void test_start_twice(void)
{
    run r;
    REQUIRE(run_open(&r, ask_scenario) == 0);
    hew_err err = HEW_ERR_INIT;
    hew_task *t = task_new(r.s, "Ask me a question.", NULL, &err);
    REQUIRE(t != NULL);
    REQUIRE(task_start(t, &err) == HEW_OK);
    hew_err again = HEW_ERR_INIT;
    CHECK_INT(task_start(t, &again), HEW_E_INVALID);
    CHECK(again.msg[0] != '\0');
    CHECK(wait_ask(&r));
    task_free(t); /* aborts the ask, joins the one thread */
    run_close(&r, true);
}

/* Freed while its thread waits at an ask nobody answers: the free aborts the ask, joins
 * the thread and frees everything (no hang, no leak, no use after free). */
static void test_free_while_waiting_at_an_ask(void)
{
    run r;
    REQUIRE(run_open(&r, ask_scenario) == 0);
    hew_err err = HEW_ERR_INIT;
    hew_task *t = task_new(r.s, "Ask me a question.", NULL, &err);
    REQUIRE(t != NULL);
    REQUIRE(task_start(t, &err) == HEW_OK);
    REQUIRE(wait_ask(&r));
    CHECK_INT(task_status(t), HEW_TASK_RUNNING);
    task_free(t);
    run_close(&r, true);
}

/* Aborted at an ask, then joined: the ask ends, the task says it was aborted; an answer
 * after that is refused (no ask is pending), and the free after the join is plain. */
static void test_abort_at_an_ask_then_join(void)
{
    run r;
    REQUIRE(run_open(&r, ask_scenario) == 0);
    hew_err err = HEW_ERR_INIT;
    hew_task *t = task_new(r.s, "Ask me a question.", NULL, &err);
    REQUIRE(t != NULL);
    REQUIRE(task_start(t, &err) == HEW_OK);
    REQUIRE(wait_ask(&r));
    task_abort(t, "the user left");
    task_join(t);
    CHECK_INT(task_status(t), HEW_TASK_ABORTED);
    CHECK_STR(task_result(t), "the user left");
    CHECK_INT(task_ask_respond(t, TOOL_ANSWER_YES, NULL, false, NULL, NULL), HEW_E_STATE);
    task_join(t); /* joined already: returns at once */
    task_free(t);
    run_close(&r, true);
}

/* Where say number i (of type, with text containing needle) is, or -1. */
static int say_index(run *r, const char *type, const char *needle)
{
    size_t i;
    json_t *e;
    json_array_foreach(r->says, i, e) {
        const char *ty = json_string_value(json_array_get(e, 0));
        const char *text = json_string_value(json_array_get(e, 1));
        if (strcmp(ty, type) == 0 && (!needle || strstr(text, needle)))
            return (int)i;
    }
    return -1;
}

/* A store that cannot open is said once, before the task, as an error the user sees (the
 * store now leaves the note and the saying files say it; persist.c says nothing): the task
 * goes on and completes. */
static void test_store_that_cannot_open_is_said_once(void)
{
    char *dir = tmpdir_make("life-store");
    REQUIRE(dir != NULL);
    char blocker[600];
    snprintf(blocker, sizeof blocker, "%s/not-a-dir", dir);
    FILE *f = fopen(blocker, "w"); /* the data folder is a file: the store cannot open */
    REQUIRE(f != NULL);
    fclose(f);
    run r;
    REQUIRE(run_open_in(&r, done_scenario, blocker) == 0);
    r.answer_yes = true; /* the completion is accepted */
    hew_err err = HEW_ERR_INIT;
    hew_task *t = task_new(r.s, "Finish.", NULL, &err);
    REQUIRE(t != NULL);
    REQUIRE(task_start(t, &err) == HEW_OK);
    task_join(t);
    CHECK_INT(task_status(t), HEW_TASK_COMPLETED);
    int note = say_index(&r, "error", "This task is not being saved");
    int task = say_index(&r, "task", NULL);
    CHECK(note >= 0);
    CHECK(task > note); /* said before the task starts */
    int notes = 0;
    size_t i;
    json_t *e;
    json_array_foreach(r.says, i, e)
        notes += strstr(json_string_value(json_array_get(e, 1)), "not being saved") != NULL;
    CHECK_INT(notes, 1);
    task_free(t);
    run_close(&r, true);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    RUN(test_free_before_start);
    RUN(test_timed_wait_is_monotonic);
    RUN(test_start_twice);
    RUN(test_free_while_waiting_at_an_ask);
    RUN(test_abort_at_an_ask_then_join);
    RUN(test_store_that_cannot_open_is_said_once);
    return check_report();
}
