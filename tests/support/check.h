/* check — the tiny unit-test harness. A test file defines test functions, lists them in
 * main with RUN(fn), and returns check_report(). CHECK* record a failure with file:line and
 * go on; REQUIRE* also return from the current test function. */
#ifndef HEW_TEST_CHECK_H
#define HEW_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

extern int check_failures;
extern int check_count;
extern const char *check_current;

void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int check_report(void);

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        check_count++;                                                                     \
        if (!(cond))                                                                       \
            check_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                            \
    } while (0)

#define REQUIRE(cond)                                                                      \
    do {                                                                                   \
        check_count++;                                                                     \
        if (!(cond)) {                                                                     \
            check_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);                          \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_INT(a, b)                                                                    \
    do {                                                                                   \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
        check_count++;                                                                     \
        if (check_a_ != check_b_)                                                          \
            check_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, check_a_,     \
                       check_b_);                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                    \
    do {                                                                                   \
        const char *check_a_ = (a), *check_b_ = (b);                                       \
        check_count++;                                                                     \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0)                     \
            check_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,           \
                       check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");    \
    } while (0)

#define CHECK_MEM(a, alen, b, blen)                                                        \
    do {                                                                                   \
        size_t check_al_ = (alen), check_bl_ = (blen);                                     \
        check_count++;                                                                     \
        if (check_al_ != check_bl_ || memcmp((a), (b), check_al_) != 0)                    \
            check_fail(__FILE__, __LINE__, "%s == %s (lengths %zu, %zu)", #a, #b,          \
                       check_al_, check_bl_);                                              \
    } while (0)

#define RUN(fn)                                                                            \
    do {                                                                                   \
        check_current = #fn;                                                               \
        fn();                                                                              \
    } while (0)

#endif
