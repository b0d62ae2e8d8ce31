/* Unit tests of sys/clock, the one clock: the wall clock is the epoch's, the monotonic one
 * never goes back, a timed wait on a clock_cond_init variable measures the monotonic clock
 * (it never gives up before its deadline, and a wake-up before it is told apart), sleeps
 * last at least what was asked. No assertion bounds how long anything took. */
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "sys/clock.h"
#include "check.h"

static void test_wall_is_the_epoch(void)
{
    long long before = (long long)time(NULL);
    long long wall_s = clock_wall_ms() / 1000;
    long long after = (long long)time(NULL);
    CHECK(wall_s >= before && wall_s <= after);
}

static void test_monotonic_never_goes_back(void)
{
    long long prev = clock_now_ms();
    for (int i = 0; i < 100000; i++) {
        long long now = clock_now_ms();
        if (now < prev) {
            CHECK(now >= prev);
            break;
        }
        prev = now;
    }
}

struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool flag;
};

static void *set_flag(void *ud)
{
    struct waiter *w = ud;
    pthread_mutex_lock(&w->mu);
    w->flag = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* A deadline in the past gives up at once; a wait on a monotonic variable never gives up
 * before its deadline (a variable measuring the wall clock would take the monotonic
 * deadline for a moment decades ago and give up at once). */
static void test_wait_until_the_deadline(void)
{
    struct waiter w = { .flag = false };
    pthread_mutex_init(&w.mu, NULL);
    clock_cond_init(&w.cv);
    pthread_mutex_lock(&w.mu);
    CHECK(!clock_cond_wait_until(&w.cv, &w.mu, clock_now_ms() - 1));
    long long deadline = clock_now_ms() + 30;
    while (clock_cond_wait_until(&w.cv, &w.mu, deadline))
        ; /* spurious wake-ups: wait again with the same deadline */
    CHECK(clock_now_ms() >= deadline);
    clock_cond_wait_ms(&w.cv, &w.mu, 25);
    clock_cond_wait_ms(&w.cv, &w.mu, 0); /* nothing to wait for: returns */
    clock_cond_wait_ms(&w.cv, &w.mu, -5);
    pthread_mutex_unlock(&w.mu);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
}

/* A signal before a far deadline ends the wait with true. */
static void test_woken_before_the_deadline(void)
{
    struct waiter w = { .flag = false };
    pthread_mutex_init(&w.mu, NULL);
    clock_cond_init(&w.cv);
    pthread_t th;
    pthread_mutex_lock(&w.mu);
    REQUIRE(pthread_create(&th, NULL, set_flag, &w) == 0);
    long long deadline = clock_now_ms() + 10L * 60 * 1000; /* a safety net only */
    bool woken = true;
    while (!w.flag && woken)
        woken = clock_cond_wait_until(&w.cv, &w.mu, deadline);
    CHECK(w.flag);
    CHECK(woken);
    CHECK(clock_now_ms() < deadline);
    pthread_mutex_unlock(&w.mu);
    pthread_join(th, NULL);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
}

static void test_sleep_lasts(void)
{
    long long start = clock_now_ms();
    clock_sleep_ms(20);
    CHECK(clock_now_ms() - start >= 20);
    clock_sleep_ms(0);
    clock_sleep_ms(-1);
}

int main(void)
{
    RUN(test_wall_is_the_epoch);
    RUN(test_monotonic_never_goes_back);
    RUN(test_wait_until_the_deadline);
    RUN(test_woken_before_the_deadline);
    RUN(test_sleep_lasts);
    return check_report();
}
