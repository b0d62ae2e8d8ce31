/* cli_approval_view — an edit's diff at its approval (cli/approval_view.c): the "+N −M"
 * counts (hunk headers and ---/+++ lines not counted), the gutter's line numbers (the new
 * file's for added and context lines, the old file's for removed ones, each hunk from its
 * header), the cut with "… K more lines" and the hint, no styles without colour, and the
 * number of lines an approval shows on a terminal of a given height. */
#include <stdlib.h>
#include <string.h>

#include "approval_view.h"
#include "check.h"

static const char *const diff = "@@ -1,4 +1,4 @@\n"
                                " one\n"
                                "-two\n"
                                "+TWO\n"
                                " three\n"
                                " four\n"
                                "@@ -20,2 +20,3 @@\n"
                                " twenty\n"
                                "+added\n"
                                " twenty-one\n";

static void test_counts(void)
{
    diffstat st;
    approval_diffstat(diff, &st);
    CHECK(st.added == 2 && st.removed == 1 && st.lines == 10);
    approval_diffstat("--- a\n+++ b\n+x\n", &st);
    CHECK(st.added == 1 && st.removed == 0 && st.lines == 3);
    approval_diffstat("", &st);
    CHECK(st.added == 0 && st.removed == 0 && st.lines == 0);
    sbuf b = SBUF_INIT;
    approval_stat_text(&b, &(diffstat){ 150, 0, 151 }, 0);
    CHECK_STR(b.data, "  +150 −0");
    sbuf_release(&b);
}

static void test_gutter(void)
{
    sbuf b = SBUF_INIT;
    size_t left = approval_diff_render(&b, diff, (size_t)-1, 0, " — v");
    CHECK(left == 0);
    CHECK_STR(b.data, "        @@ -1,4 +1,4 @@\n"
                      "      1  one\n"
                      "      2 -two\n"
                      "      2 +TWO\n"
                      "      3  three\n"
                      "      4  four\n"
                      "        @@ -20,2 +20,3 @@\n"
                      "     20  twenty\n"
                      "     21 +added\n"
                      "     22  twenty-one\n");
    sbuf_release(&b);
}

static void test_cut(void)
{
    sbuf b = SBUF_INIT;
    size_t left = approval_diff_render(&b, diff, 3, 0, " — v shows them all");
    CHECK(left == 7);
    CHECK_STR(b.data, "        @@ -1,4 +1,4 @@\n"
                      "      1  one\n"
                      "      2 -two\n"
                      "  … 7 more lines — v shows them all\n");
    sbuf_release(&b);
    left = approval_diff_render(&b, "+a\n+b\n", 1, 0, NULL);
    CHECK(left == 1);
    CHECK_STR(b.data, "      1 +a\n  … 1 more line\n");
    sbuf_release(&b);
    /* with colour: the styles are there, the text the same */
    approval_diff_render(&b, "+a\n", 5, 1, NULL);
    CHECK(strstr(b.data, "\033[32m+a\033[0m") != NULL);
    sbuf_release(&b);
}

static void test_limit(void)
{
    CHECK(approval_diff_limit(40) == 32);
    CHECK(approval_diff_limit(24) == 16);
    CHECK(approval_diff_limit(10) == 5); /* never fewer than 5 */
    CHECK(approval_diff_limit(0) == 5);
}

int main(void)
{
    RUN(test_counts);
    RUN(test_gutter);
    RUN(test_cut);
    RUN(test_limit);
    return check_report();
}
