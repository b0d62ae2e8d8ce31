/* taskrun — one task run through the public API (include/hew.h) against the fake
 * provider, for the unit tests that drive the agent loop: the provider, a session on it,
 * the task, and every event the front end got, parsed, in order.
 *
 *   static int answer(taskrun *r, hew_task *t, const json_t *ev)   // this file's policy
 *   {
 *       return hew_task_respond(t, HEW_ANSWER_YES, NULL);
 *   }
 *   ...
 *   taskrun r;
 *   REQUIRE(taskrun_start(&r, &(taskrun_spec){ .scenario = "{\"responses\":[...]}",
 *                                             .task = "Paint the shed",
 *                                             .policy = answer }) == 0);
 *   CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
 *   CHECK_INT(taskrun_count_messages(&r, "followup"), 1);
 *   taskrun_free(&r);                        // CHECKs that the provider exited cleanly
 *
 * Threads: hew calls the event callback on the task's thread. It appends the parsed event
 * to r->events under r->mu and broadcasts r->cv; then, for a final ask (not a partial
 * update) and unless asks are held, it calls the policy on that same thread, outside the
 * lock. The test thread reads r->events under r->mu while the task may still run (the
 * helpers below lock); after hew_task_wait has returned nothing appends any more. Fields
 * the policy reads while the task runs are set through taskrun_set_policy,
 * taskrun_hold_asks, or under r->mu.
 *
 * Ownership: r owns the provider, the session, the task and the events; taskrun_free
 * releases them all. A test that replaces r->t (a resumed task, a successor) frees the old
 * one itself first. Events are never removed, so an event pointer the helpers return is
 * borrowed and stays valid until taskrun_free. */
#ifndef HEW_TEST_TASKRUN_H
#define HEW_TEST_TASKRUN_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>

#include "fakeprov.h"
#include "hew.h"

typedef struct taskrun taskrun;

/* Answers a final ask, on the task's thread: ev is the ask, parsed (borrowed for the
 * call); r->ud is the test file's own state. What it returns is not looked at. */
typedef int (*taskrun_policy)(taskrun *r, hew_task *t, const json_t *ev);

/* Changes the session's options before the session is made. */
typedef void (*taskrun_tweak)(hew_options *o);

struct taskrun {
    fakeprov fp;
    hew_session *s;
    hew_task *t; /* NULL until a task is started (spec.task, or by the test) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    json_t *events;        /* every event, parsed (evtext_load), oldest first */
    taskrun_policy policy; /* answers final asks; NULL: the test answers them */
    int hold_asks;         /* set: the policy is not called (asks wait for the test) */
    void *ud;              /* the test file's state, for its policy */
};

typedef struct taskrun_spec {
    const char *scenario;   /* the fake provider's scenario (JSON text: fakeprov_start) */
    const char *task;       /* the task's text; NULL: a session only, the test starts or
                               resumes the task itself into r->t */
    taskrun_tweak defaults; /* the test file's options beyond taskrun's own, or NULL */
    taskrun_tweak tweak;    /* the test's options, applied after them, or NULL */
    taskrun_policy policy;  /* in place before the task starts */
    void *ud;
} taskrun_spec;

/* Start the fake provider on spec->scenario and a session on it, then the task when
 * spec->task is set. The options are hew_options_init's with: provider "anthropic", model
 * "claude-test-model", api_key "test-key", base_url the provider's, XML tools
 * (native_tools 0), retry_base_delay_ms 10, no checkpoints, and the event callback; then
 * spec->defaults, then spec->tweak. 0 on success; -1 with a message on stderr (what was
 * started stays in r: the test stops there, as with a failed REQUIRE). */
int taskrun_start(taskrun *r, const taskrun_spec *spec);

/* Free the task (when there is one), the session and the events, stop the provider and
 * CHECK that it exited with status 0 (under ASan: no leak in it either). */
void taskrun_free(taskrun *r);

/* Set the policy, or hold asks (on != 0) or let it answer them again, while the task may
 * run. */
void taskrun_set_policy(taskrun *r, taskrun_policy policy);
void taskrun_hold_asks(taskrun *r, int on);

/* Which events a wait looks for; a field left NULL or 0 matches any event. */
typedef struct taskrun_match {
    const char *kind;   /* "say" or "ask" */
    const char *type;   /* the event's "type" ("followup", "text", ...) */
    const char *needle; /* its "text" holds it (no text counts as "") */
    int final;          /* a final event only, not a partial update */
} taskrun_match;

/* Wait until an event after the first `from` matches m, up to TASKRUN_WAIT_S seconds (a
 * safety net: a passing test never waits that long). The number of events up to and
 * including the first match (so the next wait may start there), or 0 when none came. */
#define TASKRUN_WAIT_S 30
size_t taskrun_wait(taskrun *r, size_t from, const taskrun_match *m);

/* taskrun_wait from the first event for one of the type whose text holds needle (any
 * text when NULL), partial or final: 1 when it came, 0 when not. */
int taskrun_wait_event(taskrun *r, const char *type, const char *needle);

/* How many distinct messages of a type arrived: the partial updates and re-sent updates
 * of one message (the same "index") count once. */
size_t taskrun_count_messages(taskrun *r, const char *type);

/* The last event of a type (only final ones when final is set), or NULL; borrowed. */
json_t *taskrun_last(taskrun *r, const char *type, int final);

#endif
