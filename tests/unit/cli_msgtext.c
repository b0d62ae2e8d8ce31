/* cli_msgtext — the terminal's copy of a growing message (cli/msgtext.c): whatever the
 * appends (pieces cut anywhere, inside escape sequences, CR LF pairs and UTF-8
 * characters; tails rewritten a little or far back; another message in between), its
 * sanitised text after each update is what sanitising the whole text then gives
 * (termsafe_dup, growing or complete), and an update that only appends sanitises only the
 * appended bytes (it goes on from where the last one ended, never from the start). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "msgtext.h"
#include "termsafe.h"

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* Bytes that keep the sanitiser busy: escapes (SGR and others), CR, UTF-8 pieces. */
static const char *const pieces[] = { "a", "bc", "\n", "\r", "\r\n", "\033[31m", "\033[2J",
                                      "\033]52;c;SGk=\007", "\xc3\xa9", "\xe2\x80\xae",
                                      "\xf0\x9f\x98\x80", "\xc3", "\x80", "\t", " word ",
                                      "\033", "[", "m", "\x9b" };

static void check_safe(msgtext *m, const char *raw, int complete, unsigned seed)
{
    size_t n = 0;
    const char *got = msgtext_safe(m, complete, &n);
    char *want = termsafe_dup(raw, complete);
    REQUIRE(got != NULL && want != NULL);
    check_count++;
    if (n != strlen(want) || memcmp(got, want, n) != 0)
        check_fail(__FILE__, __LINE__, "seed %u: sanitised text differs (%zu bytes, want %zu)",
                   seed, n, strlen(want));
    free(want);
}

static void test_random_appends_and_rewrites(void)
{
    for (unsigned k = 0; k < 400; k++) {
        unsigned seed = k * 7919u + 3;
        msgtext m;
        msgtext_init(&m);
        char raw[4096];
        size_t len = 0;
        long index = 1;
        for (int step = 0; step < 60; step++) {
            size_t off = len;
            unsigned r = rnd(&seed) % 10;
            if (r == 0 && len) /* rewrite a short tail */
                off = len - 1 - rnd(&seed) % (len < 8 ? len : 8);
            else if (r == 1 && len) /* rewrite from anywhere */
                off = rnd(&seed) % len;
            else if (r == 2 && step > 30) { /* another message: starts over from 0 */
                index++;
                off = 0;
            }
            char add[256];
            size_t n = 0;
            for (unsigned p = rnd(&seed) % 6; p > 0; p--) {
                const char *s = pieces[rnd(&seed) % (sizeof pieces / sizeof pieces[0])];
                size_t sl = strlen(s);
                if (n + sl < sizeof add && off + n + sl < sizeof raw - 1) {
                    memcpy(add + n, s, sl);
                    n += sl;
                }
            }
            REQUIRE(msgtext_apply(&m, index, off, add, n) == 0);
            memcpy(raw + off, add, n);
            len = off + n;
            raw[len] = '\0';
            size_t rl = 0;
            const char *r2 = msgtext_raw(&m, &rl);
            CHECK_MEM(r2, rl, raw, len);
            if (rnd(&seed) % 4) /* sometimes several appends before the terminal looks */
                check_safe(&m, raw, 0, seed);
        }
        check_safe(&m, raw, 1, seed);
        /* after the complete text, an update still gives the right text */
        REQUIRE(msgtext_apply(&m, index, len, "x\033[1m", 5) == 0);
        memcpy(raw + len, "x\033[1m", 6);
        check_safe(&m, raw, 0, seed);
        msgtext_release(&m);
    }
}

/* An update that appends sanitises from where the last one ended: the point it started
 * from is the previous length, whatever the length. */
static void test_an_append_goes_on_from_the_end(void)
{
    msgtext m;
    msgtext_init(&m);
    enum { LONG = 200000 };
    char *big = malloc(LONG);
    REQUIRE(big != NULL);
    for (size_t i = 0; i < LONG; i++)
        big[i] = i % 50 == 49 ? '\n' : 'a' + (char)(i % 26);
    REQUIRE(msgtext_apply(&m, 3, 0, big, LONG) == 0);
    REQUIRE(msgtext_safe(&m, 0, NULL) != NULL);
    for (int i = 0; i < 5; i++) {
        size_t before = m.fed;
        REQUIRE(msgtext_apply(&m, 3, before, "more ", 5) == 0);
        size_t n = 0;
        REQUIRE(msgtext_safe(&m, 0, &n) != NULL);
        REQUIRE(m.nmarks > 0);
        CHECK_INT(m.marks[m.nmarks - 1].raw, before); /* fed from the old end on */
        CHECK_INT(n, before + 5);
    }
    /* a rewrite of the last few bytes goes back to a kept point, not to 0 */
    size_t end = m.fed;
    REQUIRE(msgtext_apply(&m, 3, end - 3, "XYZW", 4) == 0);
    REQUIRE(msgtext_safe(&m, 0, NULL) != NULL);
    CHECK(m.marks[m.nmarks - 1].raw >= end - 5);
    free(big);
    msgtext_release(&m);
}

int main(void)
{
    RUN(test_random_appends_and_rewrites);
    RUN(test_an_append_goes_on_from_the_end);
    return check_report();
}
