/* Tests for the public batch runner (hew_batch_* of include/hew.h) with a stand-in child
 * (tests/e2e/data/batch_child.sh, through hew_batch_options.program): options that cannot
 * work are refused with a reason; every task gets exactly one result, the callbacks never
 * run two at once, the progress only moves forward and the summary adds up; a batch runs
 * once; hew_batch_stop from another thread starts no new task and lets the running ones
 * report. (The binary's side, with the real hew, is tests/e2e/batch.sh.) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "hew.h"
#include "tmpdir.h"

static char child[1024];
static char *logdir;

typedef struct seen {
    atomic_int inside; /* callbacks running now */
    int overlap;
    int results;
    long last_done;
    int backwards;
    char ids[64][32];
    char status[64][32];
} seen;

static void enter(seen *s)
{
    if (atomic_fetch_add(&s->inside, 1) != 0)
        s->overlap = 1;
}

static void on_result(void *ud, const hew_batch_result *r)
{
    seen *s = ud;
    enter(s);
    if (s->results < 64) {
        snprintf(s->ids[s->results], sizeof s->ids[0], "%s", r->id);
        snprintf(s->status[s->results], sizeof s->status[0], "%s", r->status);
    }
    s->results++;
    CHECK(r->json && r->json[0] == '{' && strstr(r->json, "\"line\":") != NULL);
    atomic_fetch_sub(&s->inside, 1);
}

static void on_progress(void *ud, const hew_batch_progress *p)
{
    seen *s = ud;
    enter(s);
    if (p->done < s->last_done)
        s->backwards = 1;
    s->last_done = p->done;
    CHECK(p->done <= p->total && p->running >= 0 && p->completed + p->failed == p->done);
    atomic_fetch_sub(&s->inside, 1);
}

static const char *status_of(const seen *s, const char *id)
{
    for (int i = 0; i < s->results && i < 64; i++)
        if (strcmp(s->ids[i], id) == 0)
            return s->status[i];
    return NULL;
}

static void test_refused(void)
{
    hew_batch_options o;
    hew_batch_options_init(&o);
    o.tasks = "{\"prompt\": \"ok\"}\n";
    o.tasks_len = strlen(o.tasks);
    o.program = child;
    hew_batch *b = (hew_batch *)1;
    char err[256] = "";
    o.shard_index = 2;
    o.shard_count = 2;
    CHECK_INT(hew_batch_new(&o, &b, err, sizeof err), HEW_E_INVALID);
    CHECK(b == NULL);
    CHECK(strstr(err, "below the count") != NULL);
    o.shard_index = o.shard_count = 0;
    o.jobs = -1;
    CHECK_INT(hew_batch_new(&o, &b, err, sizeof err), HEW_E_INVALID);
    o.jobs = 1;
    o.program = "/nonexistent/hew";
    CHECK_INT(hew_batch_new(&o, &b, err, sizeof err), HEW_E_NOTFOUND);
    CHECK(strstr(err, "/nonexistent/hew") != NULL);
    hew_batch_free(NULL);
    hew_batch_stop(NULL);
}

static void test_run(void)
{
    const char *tasks = "{\"id\": \"a\", \"prompt\": \"ok a\"}\n"
                        "{\"id\": \"b\", \"prompt\": \"endnew\"}\n"
                        "\n"
                        "{\"id\": \"c\", \"prompt\": \"noend\"}\n"
                        "{\"id\": \"a\", \"prompt\": \"ok again\"}\n"
                        "{\"id\": \"e\", \"prompt\": \"ok e\"}\n";
    hew_batch_options o;
    hew_batch_options_init(&o);
    o.tasks = tasks;
    o.tasks_len = strlen(tasks);
    o.program = child;
    o.jobs = 3;
    seen s;
    memset(&s, 0, sizeof s);
    o.on_result = on_result;
    o.on_progress = on_progress;
    o.ud = &s;
    hew_batch *b = NULL;
    char err[256] = "";
    REQUIRE(hew_batch_new(&o, &b, err, sizeof err) == HEW_OK);
    hew_batch_progress sum;
    CHECK_INT(hew_batch_run(b, &sum, err, sizeof err), HEW_OK);
    CHECK_INT(s.results, 5);
    CHECK_INT(sum.total, 5);
    CHECK_INT(sum.done, 5);
    CHECK_INT(sum.completed, 2); /* "endnew" exits 7: an action was denied */
    CHECK_INT(sum.failed, 3);
    CHECK_INT(sum.running, 0);
    CHECK(!sum.stopped);
    CHECK(!s.overlap);
    CHECK(!s.backwards);
    CHECK_INT(s.last_done, 5);
    CHECK_STR(status_of(&s, "b"), "completed");
    CHECK_STR(status_of(&s, "c"), "failed");
    CHECK_STR(status_of(&s, "e"), "completed");
    int invalid = 0; /* the second "a" */
    for (int i = 0; i < s.results; i++)
        invalid += strcmp(s.ids[i], "a") == 0 && strcmp(s.status[i], "invalid") == 0;
    CHECK_INT(invalid, 1);
    /* Once only. */
    CHECK_INT(hew_batch_run(b, &sum, err, sizeof err), HEW_E_STATE);
    CHECK_INT(s.results, 5);
    hew_batch_free(b);
}

static void *stopper(void *arg)
{
    hew_batch *b = arg;
    char p1[1200], p2[1200];
    snprintf(p1, sizeof p1, "%s/wait1.running", logdir);
    snprintf(p2, sizeof p2, "%s/wait2.running", logdir);
    for (int i = 0; i < 6000 && (access(p1, F_OK) != 0 || access(p2, F_OK) != 0); i++)
        usleep(10000); /* wait for both to run (a safety net of 60 s) */
    hew_batch_stop(b);
    return NULL;
}

static void test_stop(void)
{
    const char *tasks = "{\"id\": \"w1\", \"prompt\": \"wait1\"}\n"
                        "{\"id\": \"w2\", \"prompt\": \"wait2\"}\n"
                        "{\"id\": \"w3\", \"prompt\": \"wait3\"}\n";
    hew_batch_options o;
    hew_batch_options_init(&o);
    o.tasks = tasks;
    o.tasks_len = strlen(tasks);
    o.program = child;
    o.jobs = 2;
    seen s;
    memset(&s, 0, sizeof s);
    o.on_result = on_result;
    o.ud = &s;
    hew_batch *b = NULL;
    char err[256] = "";
    REQUIRE(hew_batch_new(&o, &b, err, sizeof err) == HEW_OK);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, stopper, b) == 0);
    hew_batch_progress sum;
    CHECK_INT(hew_batch_run(b, &sum, err, sizeof err), HEW_OK);
    pthread_join(t, NULL);
    CHECK(sum.stopped);
    CHECK_INT(sum.done, 2);
    CHECK_INT(s.results, 2);
    CHECK_STR(status_of(&s, "w1"), "aborted");
    CHECK_STR(status_of(&s, "w2"), "aborted");
    CHECK(status_of(&s, "w3") == NULL);
    char p3[1200];
    snprintf(p3, sizeof p3, "%s/wait3.args", logdir);
    CHECK(access(p3, F_OK) != 0); /* never started */
    hew_batch_free(b);
}

int main(void)
{
    snprintf(child, sizeof child, "%s/../e2e/data/batch_child.sh", HEW_TEST_FIXTURES);
    logdir = tmpdir_make("batch");
    if (!logdir)
        return 1;
    setenv("BATCH_LOG", logdir, 1); /* before hew_batch_new: the children's environment */
    RUN(test_refused);
    RUN(test_run);
    RUN(test_stop);
    tmpdir_remove(logdir);
    free(logdir);
    return check_report();
}
