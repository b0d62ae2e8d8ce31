/* clock — monotonic and wall milliseconds, bounded condition waits and sleeps (see
 * clock.h). It must never measure a timeout on the wall clock. */
#include "sys/clock.h"

#include <errno.h>
#include <time.h>

static long long ms_of(const struct timespec *ts)
{
    return (long long)ts->tv_sec * 1000LL + ts->tv_nsec / 1000000L;
}

/* The monotonic instant deadline_ms as a timespec. */
static struct timespec ts_of(long long deadline_ms)
{
    struct timespec ts = { .tv_sec = (time_t)(deadline_ms / 1000),
                           .tv_nsec = (long)(deadline_ms % 1000) * 1000000L };
    return ts;
}

long long clock_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ms_of(&ts);
}

long long clock_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ms_of(&ts);
}

void clock_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

bool clock_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, long long deadline_ms)
{
    if (clock_now_ms() >= deadline_ms)
        return false;
    struct timespec until = ts_of(deadline_ms);
    return pthread_cond_timedwait(cv, mu, &until) != ETIMEDOUT;
}

void clock_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, long ms)
{
    if (ms > 0)
        clock_cond_wait_until(cv, mu, clock_now_ms() + ms);
}

void clock_sleep_ms(long ms)
{
    if (ms <= 0)
        return;
    struct timespec until = ts_of(clock_now_ms() + ms);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
        ;
}
