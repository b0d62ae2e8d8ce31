/* check — failure reporting for the unit-test harness (see check.h). */
#include "check.h"

#include <stdarg.h>

int check_failures;
int check_count;
const char *check_current = "?";

void check_fail(const char *file, int line, const char *fmt, ...)
{
    check_failures++;
    fprintf(stderr, "FAIL %s:%d [%s] ", file, line, check_current);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int check_report(void)
{
    fprintf(stderr, "%d checks, %d failures\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
