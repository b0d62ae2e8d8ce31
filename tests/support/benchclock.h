/* benchclock — what every bench/ program measures with: a monotonic clock in ms, and
 * sorting a run's samples (for a median and a worst). Test support, linked into the
 * benches with the rest of tests/support. */
#ifndef HEW_TEST_BENCHCLOCK_H
#define HEW_TEST_BENCHCLOCK_H

#include <stddef.h>

/* CLOCK_MONOTONIC in milliseconds, with fractions. */
double bench_now_ms(void);

/* Sort v[0..n) ascending: then v[n / 2] is the median and v[n - 1] the worst. */
void bench_sort(double *v, size_t n);

#endif
