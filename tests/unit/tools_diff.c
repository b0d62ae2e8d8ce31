/* Unit tests of SEARCH/REPLACE application (tools/diff_apply) — every matching strategy,
 * legacy markers, several blocks, failures — and of the unified diff (tools/udiff). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tools/diff_apply.h"
#include "tools/udiff.h"

/* Apply diff to orig; returns the new text (caller frees) or NULL with *why set. */
static char *apply(const char *orig, const char *diff, diff_stats *st, char **why)
{
    buf out = BUF_INIT(0), msg = BUF_INIT(0);
    hew_code rc = diff_apply(orig, strlen(orig), diff, strlen(diff), &out, &msg, st);
    *why = msg.data ? strdup(msg.data) : NULL;
    buf_release(&msg);
    if (rc != HEW_OK) {
        buf_release(&out);
        return NULL;
    }
    return buf_detach(&out, NULL);
}

static const char *file =
    "int main(void)\n"
    "{\n"
    "    int a = 1;\n"
    "    int b = 2;\n"
    "    return a + b;\n"
    "}\n";

static void test_exact(void)
{
    diff_stats st;
    char *why = NULL;
    char *r = apply(file, "------- SEARCH\n    int b = 2;\n=======\n    int b = 3;\n+++++++ REPLACE\n",
                    &st, &why);
    REQUIRE(r != NULL);
    CHECK(strstr(r, "int b = 3;") && !strstr(r, "int b = 2;"));
    CHECK_INT(st.blocks, 1);
    CHECK_INT(st.by_strategy[DIFF_EXACT], 1);
    free(r);
    free(why);
}

static void test_line_trimmed(void)
{
    diff_stats st;
    char *why = NULL;
    /* Indentation differs: exact fails, trimmed lines match. */
    char *r = apply(file, "------- SEARCH\nint a = 1;\n  int b = 2;\n=======\n    int a = 10;\n    int b = 20;\n+++++++ REPLACE\n",
                    &st, &why);
    REQUIRE(r != NULL);
    CHECK_STR(r, "int main(void)\n{\n    int a = 10;\n    int b = 20;\n    return a + b;\n}\n");
    CHECK_INT(st.by_strategy[DIFF_LINE_TRIMMED], 1);
    free(r);
    free(why);
}

static void test_block_anchor(void)
{
    diff_stats st;
    char *why = NULL;
    /* First and last lines match, the middle is stale. */
    char *r = apply(file, "------- SEARCH\n{\n    int a = 100;\n    int b = 200;\n    return a + b;\n=======\n{\n    return 3;\n+++++++ REPLACE\n",
                    &st, &why);
    REQUIRE(r != NULL);
    CHECK_STR(r, "int main(void)\n{\n    return 3;\n}\n");
    CHECK_INT(st.by_strategy[DIFF_BLOCK_ANCHOR], 1);
    free(r);
    free(why);
}

static void test_out_of_order_and_several_blocks(void)
{
    diff_stats st;
    char *why = NULL;
    char *r = apply(file,
                    "------- SEARCH\n    return a + b;\n=======\n    return a * b;\n+++++++ REPLACE\n"
                    "------- SEARCH\n    int a = 1;\n=======\n    int a = 5;\n+++++++ REPLACE\n",
                    &st, &why);
    REQUIRE(r != NULL);
    CHECK(strstr(r, "int a = 5;") && strstr(r, "return a * b;"));
    CHECK_INT(st.blocks, 2);
    CHECK_INT(st.by_strategy[DIFF_EXACT], 1);
    CHECK_INT(st.by_strategy[DIFF_OUT_OF_ORDER], 1);
    free(r);
    free(why);

    /* In order, three blocks, one deletion. */
    r = apply(file,
              "------- SEARCH\n{\n=======\n{ /* body */\n+++++++ REPLACE\n\n"
              "------- SEARCH\n    int b = 2;\n=======\n+++++++ REPLACE\n"
              "------- SEARCH\n}\n=======\n} /* end */\n+++++++ REPLACE\n",
              &st, &why);
    REQUIRE(r != NULL);
    CHECK_STR(r, "int main(void)\n{ /* body */\n    int a = 1;\n    return a + b;\n} /* end */\n");
    CHECK_INT(st.blocks, 3);
    free(r);
    free(why);
}

static void test_legacy_markers(void)
{
    char *why = NULL;
    char *r = apply(file, "<<<<<<< SEARCH\n    int a = 1;\n=======\n    int a = 7;\n>>>>>>> REPLACE\n",
                    NULL, &why);
    REQUIRE(r != NULL);
    CHECK(strstr(r, "int a = 7;") != NULL);
    free(r);
    free(why);
    /* Longer marker runs and a trailing '>' are accepted too. */
    r = apply(file, "---------- SEARCH>\n    int a = 1;\n==========\n    int a = 8;\n++++++++++ REPLACE>\n",
              NULL, &why);
    REQUIRE(r != NULL);
    CHECK(strstr(r, "int a = 8;") != NULL);
    free(r);
    free(why);
}

static void test_failures(void)
{
    char *why = NULL;
    /* No match: the block is named and shown. */
    char *r = apply(file,
                    "------- SEARCH\n    int a = 1;\n=======\n    int a = 2;\n+++++++ REPLACE\n"
                    "------- SEARCH\n    nothing like this\n=======\nx\n+++++++ REPLACE\n",
                    NULL, &why);
    CHECK(r == NULL);
    REQUIRE(why != NULL);
    CHECK(strstr(why, "block 2") != NULL);
    CHECK(strstr(why, "nothing like this") != NULL);
    CHECK(strstr(why, "does not match anything") != NULL);
    free(why);

    /* Empty SEARCH on a non-empty file. */
    r = apply(file, "------- SEARCH\n=======\nnew\n+++++++ REPLACE\n", NULL, &why);
    CHECK(r == NULL);
    CHECK(why && strstr(why, "empty SEARCH") != NULL);
    free(why);

    /* No blocks at all. */
    r = apply(file, "just some text\n", NULL, &why);
    CHECK(r == NULL);
    CHECK(why && strstr(why, "No SEARCH/REPLACE block") != NULL);
    free(why);

    /* A SEARCH without a separator. */
    r = apply(file, "------- SEARCH\n    int a = 1;\n", NULL, &why);
    CHECK(r == NULL);
    CHECK(why && strstr(why, "no =======") != NULL);
    free(why);

    /* Two blocks claiming the same text. */
    r = apply(file,
              "------- SEARCH\n    int a = 1;\n=======\nA\n+++++++ REPLACE\n"
              "------- SEARCH\n    int a = 1;\n    int b = 2;\n=======\nB\n+++++++ REPLACE\n",
              NULL, &why);
    CHECK(r == NULL);
    CHECK(why && strstr(why, "same text") != NULL);
    free(why);
}

static void test_empty_file_and_missing_end_marker(void)
{
    char *why = NULL;
    char *r = apply("", "------- SEARCH\n=======\nhello\n+++++++ REPLACE\n", NULL, &why);
    REQUIRE(r != NULL);
    CHECK_STR(r, "hello\n");
    free(r);
    free(why);
    /* The last REPLACE marker may be missing; a half marker at the end is dropped. */
    r = apply(file, "------- SEARCH\n    int a = 1;\n=======\n    int a = 9;\n+++", NULL, &why);
    REQUIRE(r != NULL);
    CHECK(strstr(r, "int a = 9;\n    int b") != NULL);
    free(r);
    free(why);
}

static void test_first_match_only(void)
{
    char *why = NULL;
    char *r = apply("x\nx\nx\n", "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n", NULL, &why);
    REQUIRE(r != NULL);
    CHECK_STR(r, "y\nx\nx\n");
    free(r);
    free(why);
}

static char *udiff(const char *a, const char *b)
{
    buf out = BUF_INIT(0);
    udiff_make(a, strlen(a), b, strlen(b), &out);
    char *s = buf_detach(&out, NULL);
    return s;
}

static void test_udiff(void)
{
    char *d = udiff("a\nb\nc\n", "a\nb\nc\n");
    CHECK_STR(d, "");
    free(d);
    d = udiff("a\nb\nc\n", "a\nB\nc\n");
    CHECK_STR(d, "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    free(d);
    d = udiff("", "new\n");
    CHECK_STR(d, "@@ -0,0 +1,1 @@\n+new\n");
    free(d);
    d = udiff("x\n", "x");
    CHECK_STR(d, "@@ -1,1 +1,1 @@\n-x\n+x\n\\ No newline at end of file\n");
    free(d);
    /* Two distant changes: two hunks with three lines of context. */
    d = udiff("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n");
    CHECK_STR(d, "@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n");
    free(d);
    /* A huge rewrite stays linear: remove-all + add-all. */
    buf a = BUF_INIT(0), b = BUF_INIT(0);
    for (int i = 0; i < 20000; i++) {
        buf_printf(&a, "a%d\n", i);
        buf_printf(&b, "b%d\n", i);
    }
    buf out = BUF_INIT(0);
    udiff_make(a.data, a.len, b.data, b.len, &out);
    CHECK(out.len > a.len + b.len);
    CHECK(strncmp(out.data, "@@ -1,20000 +1,20000 @@\n", 24) == 0);
    buf_release(&out);
    buf_release(&a);
    buf_release(&b);
}

int main(void)
{
    RUN(test_exact);
    RUN(test_line_trimmed);
    RUN(test_block_anchor);
    RUN(test_out_of_order_and_several_blocks);
    RUN(test_legacy_markers);
    RUN(test_failures);
    RUN(test_empty_file_and_missing_end_marker);
    RUN(test_first_match_only);
    RUN(test_udiff);
    return check_report();
}
