/* clock — the monotonic clock for timeouts: now in milliseconds, and a wait on a
 * condition variable for at most some milliseconds. Condition variables waited on this
 * way must be made with pthread_condattr_setclock(CLOCK_MONOTONIC) (clock_cond_init). */
#ifndef HEW_SYS_CLOCK_H
#define HEW_SYS_CLOCK_H

#include <pthread.h>

/* Milliseconds on the monotonic clock (an arbitrary origin: for differences only). */
long long clock_now_ms(void);

/* Initialise cv to measure its timed waits on the monotonic clock. */
void clock_cond_init(pthread_cond_t *cv);

/* pthread_cond_timedwait for at most ms (mu held, as for any wait). */
void clock_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, long ms);

#endif
