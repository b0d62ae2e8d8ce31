/* taskrun — a task run against the fake provider for the unit tests: start, event
 * recording with a per-test policy that answers asks, waits and counts over the events,
 * free (taskrun.h). */
#include "taskrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "evtext.h"

static const char *str_of(const json_t *ev, const char *key)
{
    return json_string_value(json_object_get(ev, key));
}

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    taskrun *r = ud;
    json_t *j = evtext_load(r->events, ev);
    if (!j) {
        fprintf(stderr, "event is not JSON: %s\n", hew_event_json(ev));
        abort();
    }
    pthread_mutex_lock(&r->mu);
    json_array_append(r->events, j);
    pthread_cond_broadcast(&r->cv);
    taskrun_policy policy = r->hold_asks ? NULL : r->policy;
    pthread_mutex_unlock(&r->mu);
    if (ev->is_ask && !ev->partial && policy)
        policy(r, t, j);
    json_decref(j);
}

int taskrun_start(taskrun *r, const taskrun_spec *spec)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->events = json_array();
    r->policy = spec->policy;
    r->ud = spec->ud;
    if (fakeprov_start(&r->fp, spec->scenario) != 0)
        return -1;
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-test-model";
    o.api_key = "test-key";
    o.base_url = r->fp.url;
    o.native_tools = 0;
    o.retry_base_delay_ms = 10;
    o.checkpoints = 0; /* the tests of checkpoints turn them on in a workspace of their own */
    o.on_event = on_event;
    o.event_ud = r;
    if (spec->defaults)
        spec->defaults(&o);
    if (spec->tweak)
        spec->tweak(&o);
    char err[512];
    if (hew_session_new(&o, &r->s, err, sizeof err) != HEW_OK || !r->s) {
        fprintf(stderr, "session: %s\n", err);
        return -1;
    }
    if (!spec->task)
        return 0;
    if (hew_task_start(r->s, spec->task, &r->t, err, sizeof err) != HEW_OK || !r->t) {
        fprintf(stderr, "task: %s\n", err);
        return -1;
    }
    return 0;
}

void taskrun_free(taskrun *r)
{
    hew_task_free(r->t);
    hew_session_free(r->s);
    CHECK_INT(fakeprov_stop_status(&r->fp), 0);
    json_decref(r->events);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
}

void taskrun_set_policy(taskrun *r, taskrun_policy policy)
{
    pthread_mutex_lock(&r->mu);
    r->policy = policy;
    pthread_mutex_unlock(&r->mu);
}

void taskrun_hold_asks(taskrun *r, int on)
{
    pthread_mutex_lock(&r->mu);
    r->hold_asks = on;
    pthread_mutex_unlock(&r->mu);
}

static int field_is(const json_t *ev, const char *key, const char *want)
{
    const char *have = str_of(ev, key);
    return !want || (have && strcmp(have, want) == 0);
}

static int matches(const json_t *ev, const taskrun_match *m)
{
    const char *text = str_of(ev, "text");
    return field_is(ev, "kind", m->kind) && field_is(ev, "type", m->type) &&
           (!m->final || !json_is_true(json_object_get(ev, "partial"))) &&
           (!m->needle || strstr(text ? text : "", m->needle));
}

size_t taskrun_wait(taskrun *r, size_t from, const taskrun_match *m)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += TASKRUN_WAIT_S;
    pthread_mutex_lock(&r->mu);
    size_t found = 0;
    for (;;) {
        for (size_t i = from; !found && i < json_array_size(r->events); i++)
            if (matches(json_array_get(r->events, i), m))
                found = i + 1;
        if (found || pthread_cond_timedwait(&r->cv, &r->mu, &until) != 0)
            break;
    }
    pthread_mutex_unlock(&r->mu);
    return found;
}

int taskrun_wait_event(taskrun *r, const char *type, const char *needle)
{
    return taskrun_wait(r, 0, &(taskrun_match){ .type = type, .needle = needle }) != 0;
}

size_t taskrun_count_messages(taskrun *r, const char *type)
{
    size_t n = 0, i;
    long last = -1;
    json_t *ev;
    pthread_mutex_lock(&r->mu);
    json_array_foreach(r->events, i, ev) {
        long index = (long)json_integer_value(json_object_get(ev, "index"));
        if (field_is(ev, "type", type) && index > last) {
            n++;
            last = index;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

json_t *taskrun_last(taskrun *r, const char *type, int final)
{
    json_t *found = NULL, *ev;
    size_t i;
    pthread_mutex_lock(&r->mu);
    json_array_foreach(r->events, i, ev)
        if (field_is(ev, "type", type) &&
            (!final || !json_is_true(json_object_get(ev, "partial"))))
            found = ev;
    pthread_mutex_unlock(&r->mu);
    return found;
}
