/* clock — hew's one clock, and the one way to wait on a condition variable with a
 * timeout. Two kinds of time, never mixed:
 *   monotonic  clock_now_ms: for durations, deadlines, timeouts and throttles. It never
 *              jumps (NTP, a user changing the date, a suspended laptop do not move it);
 *              its origin is arbitrary, so only differences mean anything;
 *   wall       clock_wall_ms: milliseconds since the Unix epoch, for timestamps that a
 *              person or the store reads (a message's ts, "2 minutes ago"). Never for a
 *              timeout: it can go backwards.
 * A condition variable waited on with a timeout must be made with clock_cond_init (its
 * timed waits measured on the monotonic clock) and waited on through clock_cond_wait_ms
 * or clock_cond_wait_until, so a changed wall clock never makes a wait hang or spin.
 * Nothing else in src/ reads a clock or calls pthread_cond_timedwait
 * (scripts/check-banned holds the few exceptions below sys/ and in cli/). No state;
 * thread-safe. */
#ifndef HEW_SYS_CLOCK_H
#define HEW_SYS_CLOCK_H

#include <pthread.h>
#include <stdbool.h>

/* Milliseconds on the monotonic clock (an arbitrary origin: for differences only). */
long long clock_now_ms(void);

/* Milliseconds since the Unix epoch (the wall clock: for timestamps only). */
long long clock_wall_ms(void);

/* Initialise cv to measure its timed waits on the monotonic clock. */
void clock_cond_init(pthread_cond_t *cv);

/* pthread_cond_timedwait for at most ms (mu held, as for any wait); ms <= 0 returns at
 * once. Like any wait it may return early: the caller checks its condition again. */
void clock_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, long ms);

/* Wait on cv (mu held) until woken or until deadline_ms (clock_now_ms terms) has come.
 * False once the deadline has passed (at once when it already has), true when woken
 * before it (possibly spuriously: check the condition, then wait again with the same
 * deadline, which keeps the total bounded). */
bool clock_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, long long deadline_ms);

/* Sleep ms milliseconds on the monotonic clock (signals do not cut it short). */
void clock_sleep_ms(long ms);

#endif
