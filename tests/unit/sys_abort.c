/* Unit tests for sys/abort: flag, reason, sleepers woken at once, listeners, reset. */
#include <pthread.h>
#include <time.h>

#include "sys/abort.h"
#include "check.h"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void *trigger_later(void *ud)
{
    hew_abort *a = ud;
    struct timespec d = { 0, 50 * 1000000L };
    nanosleep(&d, NULL);
    abort_trigger(a, "user pressed Ctrl-C");
    return NULL;
}

static void test_flag_reason_reset(void)
{
    hew_abort *a = abort_new();
    REQUIRE(a != NULL);
    CHECK(!abort_is_set(a));
    CHECK_STR(abort_reason(a), "");
    abort_trigger(a, "first");
    abort_trigger(a, "second");
    CHECK(abort_is_set(a));
    CHECK_STR(abort_reason(a), "first");
    abort_reset(a);
    CHECK(!abort_is_set(a));
    CHECK(!abort_is_set(NULL));
    abort_free(a);
    abort_free(NULL);
}

static void test_sleep_wakes_on_trigger(void)
{
    hew_abort *a = abort_new();
    pthread_t th;
    pthread_create(&th, NULL, trigger_later, a);
    long t0 = now_ms();
    CHECK(abort_sleep(a, 10000));
    long waited = now_ms() - t0;
    CHECK(waited < 5000); /* woken by the trigger, not by the 10 s timeout */
    pthread_join(th, NULL);
    CHECK_STR(abort_reason(a), "user pressed Ctrl-C");
    abort_reset(a);
    CHECK(!abort_sleep(a, 20)); /* times out normally */
    CHECK(!abort_sleep(NULL, 1));
    abort_free(a);
}

static void count_call(void *ud)
{
    (*(int *)ud)++;
}

static void test_listeners(void)
{
    hew_abort *a = abort_new();
    int calls = 0, other = 0;
    int id = abort_listen(a, count_call, &calls);
    int id2 = abort_listen(a, count_call, &other);
    CHECK(id > 0 && id2 > 0 && id != id2);
    abort_unlisten(a, id2);
    abort_trigger(a, "x");
    CHECK_INT(calls, 1);
    CHECK_INT(other, 0);
    abort_unlisten(a, id);
    abort_trigger(a, "y");
    CHECK_INT(calls, 1);
    int late = 0; /* listening to a token already set runs the listener at once */
    int id3 = abort_listen(a, count_call, &late);
    CHECK_INT(late, 1);
    abort_unlisten(a, id3);
    abort_free(a);
}

int main(void)
{
    RUN(test_flag_reason_reset);
    RUN(test_sleep_wakes_on_trigger);
    RUN(test_listeners);
    return check_report();
}
