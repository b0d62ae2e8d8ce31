/* clockms — monotonic and wall milliseconds for the `hew` command (see clockms.h). It must
 * never measure an interval on the wall clock. */
#include "clockms.h"

#include <time.h>

static long long ms_at(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}

long long clockms_mono(void)
{
    return ms_at(CLOCK_MONOTONIC);
}

long long clockms_wall(void)
{
    return ms_at(CLOCK_REALTIME);
}
