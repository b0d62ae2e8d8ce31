/* bench/abort — how fast a stop acts (the 100 ms the issues ask of Ctrl-C, Esc and ACP's
 * session/cancel), measured here rather than asserted in tests, where a loaded machine
 * would make a timing flaky. From the moment the stop is given to the moment the waiter
 * returns: a command's process group stopped by its abort token, and by proc_kill from
 * another thread; a task stopped (hew_task_abort) while the provider stalls mid-stream,
 * and while it waits at a question, through the public API against the fake provider.
 * Prints the median and the worst of RUNS each, and the goal (< 100 ms); exits non-zero
 * only when a run failed (a goal missed is reported, not fatal: sanitizer builds are
 * slower). Never uses a shell but the commands' own. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchclock.h"
#include "fakeprov.h"
#include "hew.h"
#include "sys/abort.h"
#include "sys/proc.h"

#define RUNS 15
#define GOAL_MS 100.0

static void report(const char *what, double *v, int n)
{
    bench_sort(v, (size_t)n);
    double median = v[n / 2], worst = v[n - 1];
    printf("abort: %-34s median %7.2f ms  worst %7.2f ms  (goal < %.0f ms)%s\n", what, median,
           worst, GOAL_MS, worst < GOAL_MS ? "" : "  MISSED");
}

/* ---- a command -------------------------------------------------------------------------- */

struct trigger {
    hew_abort *abort; /* fire this, or else */
    proc *p;          /* kill this */
    double fired_ms;
};

static void *fire(void *ud)
{
    struct trigger *t = ud;
    nanosleep(&(struct timespec){ 0, 50 * 1000000L }, NULL); /* the command is running */
    t->fired_ms = bench_now_ms();
    if (t->abort)
        abort_trigger(t->abort, "bench");
    else
        proc_kill(t->p);
    return NULL;
}

/* One command stopped by its token (by_kill 0) or by proc_kill: ms, or -1. */
static double stop_command(int by_kill)
{
    hew_abort *a = by_kill ? NULL : abort_new();
    const char *argv[] = { "/bin/sh", "-c", "sleep 100 & sleep 100", NULL };
    proc_opts o = { .argv = argv, .abort = a };
    proc *p = NULL;
    if (proc_start(&o, &p, NULL) != HEW_OK) {
        abort_free(a);
        return -1;
    }
    struct trigger t = { a, by_kill ? p : NULL, 0 };
    pthread_t th;
    pthread_create(&th, NULL, fire, &t);
    proc_status st;
    proc_wait(p, &st);
    double done = bench_now_ms();
    pthread_join(th, NULL);
    proc_free(p);
    abort_free(a);
    int ok = st.end == (by_kill ? PROC_KILLED : PROC_ABORTED);
    return ok ? done - t.fired_ms : -1;
}

/* ---- a task ----------------------------------------------------------------------------- */

struct waitev {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const char *want; /* the event type that says the moment has come */
    int seen;
};

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    (void)t;
    struct waitev *w = ud;
    pthread_mutex_lock(&w->mu);
    if (ev->type && strcmp(ev->type, w->want) == 0)
        w->seen = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* One task stopped once an event of type want came: ms from hew_task_abort to
 * hew_task_wait's return, or -1. */
static double stop_task(const char *scenario, const char *want)
{
    fakeprov fp;
    if (fakeprov_start(&fp, scenario) != 0)
        return -1;
    struct waitev w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, want, 0 };
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-sonnet-4-5";
    o.api_key = "bench-key";
    o.base_url = fp.url;
    o.native_tools = 0;
    o.persist = 0;
    o.checkpoints = 0;
    o.on_event = on_event;
    o.event_ud = &w;
    hew_session *s = NULL;
    hew_task *t = NULL;
    char err[512];
    double took = -1;
    if (hew_session_new(&o, &s, err, sizeof err) == HEW_OK &&
        hew_task_start(s, "bench", &t, err, sizeof err) == HEW_OK) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 30;
        pthread_mutex_lock(&w.mu);
        while (!w.seen && pthread_cond_timedwait(&w.cv, &w.mu, &until) == 0)
            ;
        int seen = w.seen;
        pthread_mutex_unlock(&w.mu);
        if (seen) {
            double t0 = bench_now_ms();
            hew_task_abort(t, "bench");
            if (hew_task_wait(t) == HEW_TASK_ABORTED)
                took = bench_now_ms() - t0;
        }
    } else {
        fprintf(stderr, "abort: %s\n", err);
    }
    hew_task_free(t);
    hew_session_free(s);
    fakeprov_stop(&fp);
    return took;
}

#define STALLED                                                                             \
    "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Thinking about it for a long "   \
    "while, word after word\",\"delta_size\":4,\"stall_after_bytes\":600,"                   \
    "\"stall_ms\":60000}]}"
#define QUESTION                                                                            \
    "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"<ask_followup_question>"         \
    "<question>Which?</question></ask_followup_question>\"}]}"

int main(void)
{
    double v[RUNS];
    struct {
        const char *what;
        int kind; /* 0 token, 1 kill, 2 stream, 3 question */
    } cases[] = {
        { "command, by its abort token", 0 },
        { "command, by proc_kill", 1 },
        { "task, while the stream stalls", 2 },
        { "task, while it waits at a question", 3 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int i = 0; i < RUNS; i++) {
            int k = cases[c].kind;
            v[i] = k < 2 ? stop_command(k) : k == 2 ? stop_task(STALLED, "text")
                                                    : stop_task(QUESTION, "followup");
            if (v[i] < 0) {
                fprintf(stderr, "abort: a run of \"%s\" failed\n", cases[c].what);
                return 1;
            }
        }
        report(cases[c].what, v, RUNS);
    }
    return 0;
}
