/* clockms — the clock of the `hew` command. cli/ sees only include/hew.h, so it cannot use
 * the library's sys/clock; this is its one small copy (monotonic for intervals, wall for
 * the events' ts), and no other file of cli/ reads a clock (scripts/check-banned). */
#ifndef HEW_CLI_CLOCKMS_H
#define HEW_CLI_CLOCKMS_H

/* Milliseconds on the monotonic clock (differences only: throttles, timeouts). */
long long clockms_mono(void);

/* Milliseconds since the Unix epoch: the clock of the events' "ts". */
long long clockms_wall(void);

#endif
