/* Unit tests for the file-read collapse of context/ (cline-spec §6.3) and the truncation
 * decision: which views of a file are collapsed (XML text results, native tool_result
 * blocks, line windows, write/replace final contents, <file_content> mentions, errors,
 * paths spelled differently), what the rewrites say, idempotence, the savings ratio and
 * its 30 % rule, and context_plan_make below and above the threshold. Pure: it never
 * touches a file. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "check.h"
#include "context/context.h"

static const context_range NONE = { false, 0, 0 };

/* hew's tools as the task tells them apart (from the registry's flags). */
static context_result_kind kinds(const char *name, size_t len)
{
    static const struct {
        const char *name;
        context_result_kind kind;
    } tools[] = { { "read_file", CONTEXT_RESULT_READ },
                  { "write_to_file", CONTEXT_RESULT_EDIT },
                  { "replace_in_file", CONTEXT_RESULT_EDIT } };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (strlen(tools[i].name) == len && memcmp(tools[i].name, name, len) == 0)
            return tools[i].kind;
    return CONTEXT_RESULT_OTHER;
}

static json_t *assistant(const char *t)
{
    json_t *c = json_array();
    json_array_append_new(c, api_msg_text(t, strlen(t)));
    return api_msg_new("assistant", c);
}

/* A user message with these text blocks (NULL-terminated). */
static json_t *user(const char *first, ...)
{
    json_t *c = json_array();
    va_list ap;
    va_start(ap, first);
    for (const char *t = first; t; t = va_arg(ap, const char *))
        json_array_append_new(c, api_msg_text(t, strlen(t)));
    va_end(ap);
    return api_msg_new("user", c);
}

static char *read_result(const char *path, const char *body)
{
    size_t n = strlen(path) + strlen(body) + 64;
    char *s = malloc(n);
    snprintf(s, n, "[read_file for '%s'] Result:\n%s", path, body);
    return s;
}

static char *collapsed_read(const char *path)
{
    size_t n = strlen(path) + strlen(CONTEXT_DUPLICATE_READ_NOTE) + 64;
    char *s = malloc(n);
    snprintf(s, n, "[read_file for '%s'] Result:\n%s", path, CONTEXT_DUPLICATE_READ_NOTE);
    return s;
}

/* history: task, answer, then (user, assistant) for each user text given. */
static json_t *history_of(const char *const users[], size_t n)
{
    json_t *h = json_array();
    json_array_append_new(h, user("<task>\nwork\n</task>", NULL));
    json_array_append_new(h, assistant("ok"));
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(h, user(users[i], "<environment_details/>", NULL));
        json_array_append_new(h, assistant("next"));
    }
    return h;
}

static char *big(char c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* ---- XML-mode reads ------------------------------------------------------------------------ */

static void test_xml_reads(void)
{
    char *body = big('x', 3000);
    char *ra = read_result("src/a.c", body), *rb = read_result("src/b.c", body);
    const char *users[] = { ra, rb, ra, "nothing", ra };
    json_t *h = history_of(users, 5); /* reads of a.c at 2, 6, 10; b.c at 4 */
    context_rewrites out = CONTEXT_REWRITES_INIT;
    double ratio = -1;
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, &ratio) == HEW_OK);
    REQUIRE(out.len == 2);
    char *want = collapsed_read("src/a.c");
    CHECK_INT(out.items[0].msg, 2);
    CHECK_INT(out.items[0].block, 0);
    CHECK_STR(out.items[0].text, want);
    CHECK_INT(out.items[1].msg, 6);
    CHECK_STR(out.items[1].text, want);
    /* ratio: the bytes saved over the bytes the model sees */
    size_t total = 0;
    for (size_t i = 0; i < json_array_size(h); i++) {
        json_t *c = json_object_get(json_array_get(h, i), "content");
        for (size_t j = 0; j < json_array_size(c); j++)
            total += json_string_length(json_object_get(json_array_get(c, j), "text"));
    }
    double expect = 2.0 * (double)(strlen(ra) - strlen(want)) / (double)total;
    CHECK(ratio > expect - 1e-9 && ratio < expect + 1e-9);
    CHECK(ratio > 0.30);

    /* applied, nothing more to do */
    context_rewrites again = CONTEXT_REWRITES_INIT;
    REQUIRE(context_collapse_reads(h, NONE, &out, kinds, &again, &ratio) == HEW_OK);
    CHECK_INT(again.len, 0);
    CHECK(ratio == 0);
    /* the view shows the notes, the latest read whole */
    json_t *v = context_view_rw(h, NONE, &out);
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(json_array_get(v, 2), "content"), 0), "text")),
              want);
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(json_array_get(v, 10), "content"), 0), "text")),
              ra);
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(json_array_get(v, 4), "content"), 0), "text")),
              rb);
    json_decref(v);

    /* a later read: the one that was latest is collapsed now, by a new rewrite */
    json_array_append_new(h, user(ra, NULL));
    REQUIRE(context_collapse_reads(h, NONE, &out, kinds, &again, &ratio) == HEW_OK);
    CHECK_INT(again.len, 1);
    CHECK_INT(again.items[0].msg, 10);

    /* reads inside the deleted range are not looked at */
    context_rewrites cut = CONTEXT_REWRITES_INIT;
    context_range r = { true, 2, 7 };
    REQUIRE(context_collapse_reads(h, r, NULL, kinds, &cut, &ratio) == HEW_OK);
    CHECK_INT(cut.len, 1); /* 10 (covered by 12); 2 and 6 are gone already */
    CHECK_INT(cut.items[0].msg, 10);
    context_rewrites_release(&cut);

    context_rewrites_release(&again);
    context_rewrites_release(&out);
    free(want);
    free(ra);
    free(rb);
    free(body);
    json_decref(h);
}

/* ---- native tool_result blocks -------------------------------------------------------------- */

static void test_native_results(void)
{
    char *body = big('y', 2000);
    char *ra = read_result("./lib//a.c", body), *ra2 = read_result("lib/a.c", body);
    json_t *h = json_array();
    json_array_append_new(h, user("task", NULL));
    json_array_append_new(h, assistant("ok"));
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "toolu_%d", i);
        json_t *c = json_array();
        json_array_append_new(c, api_msg_tool_use(id, "read_file", json_pack("{s:s}", "path", "a")));
        json_array_append_new(h, api_msg_new("assistant", c));
        c = json_array();
        /* an error result (i == 1) is not a view of the file */
        json_array_append_new(c, api_msg_tool_result(id, i == 0 ? ra : ra2, i == 1));
        json_array_append_new(c, api_msg_text("env", 3));
        json_array_append_new(h, api_msg_new("user", c));
    }
    /* 0 task, 1 ok, 2 a(use0), 3 u(res0), 4 a, 5 u(res1 error), 6 a, 7 u(res2) */
    context_rewrites out = CONTEXT_REWRITES_INIT;
    double ratio;
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, &ratio) == HEW_OK);
    REQUIRE(out.len == 1);
    CHECK_INT(out.items[0].msg, 3);
    CHECK_INT(out.items[0].block, 0);
    char *want = collapsed_read("./lib//a.c");
    CHECK_STR(out.items[0].text, want);
    json_t *v = context_view_rw(h, NONE, &out);
    json_t *b = json_array_get(json_object_get(json_array_get(v, 3), "content"), 0);
    CHECK_STR(json_string_value(json_object_get(b, "type")), "tool_result");
    CHECK_STR(json_string_value(json_object_get(b, "tool_use_id")), "toolu_0");
    CHECK_STR(json_string_value(json_object_get(b, "content")), want);
    hew_err err = HEW_ERR_INIT;
    CHECK(api_msg_validate(v, &err) == HEW_OK);
    json_decref(v);
    context_rewrites_release(&out);
    free(want);
    free(ra);
    free(ra2);
    free(body);
    json_decref(h);
}

/* ---- windows, writes, mentions ----------------------------------------------------------------- */

static void test_windows(void)
{
    char *fill = big('f', 2000), tmp[3000];
    snprintf(tmp, sizeof tmp, "1 | %s\n\n(Showing lines 1-100 of 500. Continue with "
                              "start_line=101 to read more.)", fill);
    char *w1 = read_result("a.c", tmp);
    snprintf(tmp, sizeof tmp, "200 | %s\n\n(Showing lines 200-300 of 500. Continue with "
                              "start_line=301 to read more.)", fill);
    char *w2 = read_result("a.c", tmp);
    snprintf(tmp, sizeof tmp, "[File already read] ...\n\n1 | %s\n\n---\n\n[FILE TRUNCATED: "
                              "the lines asked for are more than 100 KB; only lines 1-100 of "
                              "500 are shown. Continue with start_line=101]", fill);
    char *w3 = read_result("a.c", tmp);
    snprintf(tmp, sizeof tmp, "1 | %s\n\n(The file has 500 lines.)", fill);
    char *whole = read_result("a.c", tmp);
    free(fill);
    const char *users[] = { w1, w2, w3 };
    json_t *h = history_of(users, 3); /* 2: 1-100, 4: 200-300, 6: 1-100 */
    context_rewrites out = CONTEXT_REWRITES_INIT;
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    REQUIRE(out.len == 1); /* only the first 1-100: the 200-300 window is not covered */
    CHECK_INT(out.items[0].msg, 2);
    context_rewrites_release(&out);
    json_decref(h);

    const char *users2[] = { w1, w2, whole };
    h = history_of(users2, 3); /* a later whole read covers every window */
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 2);
    context_rewrites_release(&out);
    json_decref(h);

    const char *users3[] = { whole, w1 }; /* a window does not cover the whole file */
    h = history_of(users3, 2);
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 0);
    context_rewrites_release(&out);
    json_decref(h);
    free(w1);
    free(w2);
    free(w3);
    free(whole);
}

static void test_writes(void)
{
    char *body = big('z', 1000);
    char *r = read_result("a.c", body);
    char w[2000];
    snprintf(w, sizeof w,
             "[write_to_file for 'a.c'] Result:\nThe content was written to a.c.\n\n"
             "<final_file_content path=\"a.c\">\n%.500s\n</final_file_content>\n\nIMPORTANT: "
             "base any further change on it.",
             body);
    char rej[] = "[replace_in_file for 'a.c'] Result:\nThe user denied this operation.";
    const char *users[] = { r, w, rej, r };
    json_t *h = history_of(users, 4); /* read 2, write 4, rejected 6 (no content), read 8 */
    context_rewrites out = CONTEXT_REWRITES_INIT;
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    REQUIRE(out.len == 2);
    CHECK_INT(out.items[0].msg, 2);
    CHECK_INT(out.items[1].msg, 4);
    /* the write keeps its words, only the content goes */
    char want[2000];
    snprintf(want, sizeof want,
             "[write_to_file for 'a.c'] Result:\nThe content was written to a.c.\n\n"
             "<final_file_content path=\"a.c\"> %s </final_file_content>\n\nIMPORTANT: base any "
             "further change on it.",
             CONTEXT_DUPLICATE_READ_NOTE);
    CHECK_STR(out.items[1].text, want);
    /* idempotent on the rewritten write too */
    context_rewrites again = CONTEXT_REWRITES_INIT;
    REQUIRE(context_collapse_reads(h, NONE, &out, kinds, &again, NULL) == HEW_OK);
    CHECK_INT(again.len, 0);
    context_rewrites_release(&again);
    context_rewrites_release(&out);
    json_decref(h);

    /* a write's final content is a whole view: it hides an earlier read */
    const char *users2[] = { r, w };
    h = history_of(users2, 2);
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    CHECK(out.len == 1 && out.items[0].msg == 2);
    context_rewrites_release(&out);
    json_decref(h);
    free(r);
    free(body);
}

static void test_mentions(void)
{
    char *fx = big('x', 500), *fy = big('y', 500), m1[2000], m2[1000], m3[1000];
    snprintf(m1, sizeof m1, "Look at these:\n<file_content path=\"x.c\">\n%s\n</file_content>\n"
                            "<file_content path=\"y.c\">\n%s\n</file_content>\nthanks", fx, fy);
    snprintf(m2, sizeof m2, "again <file_content path=\"x.c\">\n%s2\n</file_content>", fx);
    snprintf(m3, sizeof m3, "<file_content path=\"y.c\">\n%s\n</file_content>", fy);
    json_t *h = json_array();
    json_array_append_new(h, user("task", NULL));
    json_array_append_new(h, assistant("ok"));
    json_array_append_new(h, user("[ask_followup_question for 'q'] Result:", m1, NULL));
    json_array_append_new(h, assistant("a"));
    json_array_append_new(h, user(m2, NULL));
    context_rewrites out = CONTEXT_REWRITES_INIT;
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    REQUIRE(out.len == 1);
    CHECK_INT(out.items[0].msg, 2);
    CHECK_INT(out.items[0].block, 1);
    char want[2000];
    snprintf(want, sizeof want,
             "Look at these:\n<file_content path=\"x.c\">%s</file_content>\n"
             "<file_content path=\"y.c\">\n%s\n</file_content>\nthanks",
             CONTEXT_DUPLICATE_READ_NOTE, fy);
    CHECK_STR(out.items[0].text, want);
    context_rewrites again = CONTEXT_REWRITES_INIT;
    REQUIRE(context_collapse_reads(h, NONE, &out, kinds, &again, NULL) == HEW_OK);
    CHECK_INT(again.len, 0);
    /* y.c mentioned again later: collapsed in the already rewritten text */
    json_array_append_new(h, assistant("b"));
    json_array_append_new(h, user(m3, NULL));
    REQUIRE(context_collapse_reads(h, NONE, &out, kinds, &again, NULL) == HEW_OK);
    REQUIRE(again.len == 1);
    snprintf(want, sizeof want,
             "Look at these:\n<file_content path=\"x.c\">%s</file_content>\n"
             "<file_content path=\"y.c\">%s</file_content>\nthanks",
             CONTEXT_DUPLICATE_READ_NOTE, CONTEXT_DUPLICATE_READ_NOTE);
    CHECK_STR(again.items[0].text, want);
    /* other tools' results and unmatched headers are not views; a tiny read whose note
     * would be longer is left alone */
    context_rewrites_release(&again);
    context_rewrites_release(&out);
    json_decref(h);
    free(fx);
    free(fy);
    const char *odd[] = { "[list_files for 'a.c'] Result:\nx", "[read_file for 'a.c'] Resultx",
                          "[read_file for a.c] Result:\nx", "[list_files for 'a.c'] Result:\ny",
                          "[read_file for 'a.c'] Result:\nint x;",
                          "[read_file for 'a.c'] Result:\nint x;" };
    h = history_of(odd, 6);
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 0);
    context_rewrites_release(&out);
    json_decref(h);
}

/* ---- the 30 % rule and the plan ----------------------------------------------------------------- */

static void test_plan(void)
{
    char *bigbody = big('b', 40000), *small = big('s', 1000), *chat = big('c', 4000);
    char *rb = read_result("a.c", bigbody), *rs = read_result("a.c", small);
    /* large duplicate reads: the collapse is enough */
    const char *users[] = { rb, chat, rb, chat, chat, chat, chat, chat };
    json_t *h = history_of(users, 8); /* 18 messages */
    context_plan p;
    REQUIRE(context_plan_make(h, NONE, NULL, kinds, 50000, 128000, &p) == HEW_OK);
    CHECK(!p.over && !p.truncate && p.rewrites.len == 0 && !p.range.has); /* below 98k */
    context_plan_release(&p);
    REQUIRE(context_plan_make(h, NONE, NULL, kinds, 100000, 128000, &p) == HEW_OK);
    CHECK(p.over);
    CHECK_INT(p.keep, CONTEXT_KEEP_HALF);
    CHECK_INT(p.rewrites.len, 1);
    CHECK(p.savings >= CONTEXT_COLLAPSE_ENOUGH);
    CHECK(!p.truncate);
    CHECK(!p.range.has);
    context_plan_release(&p);
    json_decref(h);

    /* small duplicates: saved, but not enough, so also cut */
    const char *users2[] = { rs, chat, rs, chat, chat, chat, chat, chat };
    h = history_of(users2, 8);
    REQUIRE(context_plan_make(h, NONE, NULL, kinds, 100000, 128000, &p) == HEW_OK);
    CHECK(p.over);
    CHECK_INT(p.rewrites.len, 1);
    CHECK(p.savings > 0 && p.savings < CONTEXT_COLLAPSE_ENOUGH);
    CHECK(p.truncate);
    context_range want = context_next_range(h, NONE, CONTEXT_KEEP_HALF);
    CHECK(p.range.has && p.range.start == want.start && p.range.end == want.end);
    context_plan_release(&p);
    /* far over (a smaller model): a quarter is kept */
    REQUIRE(context_plan_make(h, NONE, NULL, kinds, 300000, 128000, &p) == HEW_OK);
    CHECK_INT(p.keep, CONTEXT_KEEP_QUARTER);
    want = context_next_range(h, NONE, CONTEXT_KEEP_QUARTER);
    CHECK(p.truncate && p.range.end == want.end);
    context_plan_release(&p);
    /* no duplicates at all: cut */
    const char *users3[] = { chat, chat, chat, chat };
    json_decref(h);
    h = history_of(users3, 4);
    REQUIRE(context_plan_make(h, NONE, NULL, kinds, 100000, 128000, &p) == HEW_OK);
    CHECK(p.truncate && p.rewrites.len == 0 && p.savings == 0);
    context_plan_release(&p);
    /* nothing left to cut: over, but the range stays */
    context_range all = context_next_range(h, NONE, CONTEXT_KEEP_NONE);
    REQUIRE(context_plan_make(h, all, NULL, kinds, 100000, 128000, &p) == HEW_OK);
    CHECK(p.over && !p.truncate && p.range.end == all.end);
    context_plan_release(&p);
    json_decref(h);
    free(rb);
    free(rs);
    free(bigbody);
    free(small);
    free(chat);
}

/* Which results are reads is the caller's answer, not a name context knows: a tool the
 * classifier calls a read is collapsed whatever its name, and without a classifier no
 * tool result is a view. */
static context_result_kind peek_reads(const char *name, size_t len)
{
    return len == 4 && memcmp(name, "peek", 4) == 0 ? CONTEXT_RESULT_READ : CONTEXT_RESULT_OTHER;
}

static void test_classifier_decides(void)
{
    char body[2000];
    memset(body, 'x', sizeof body - 1);
    body[sizeof body - 1] = '\0';
    char peek[2100], read[2100];
    snprintf(peek, sizeof peek, "[peek for 'a.c'] Result:\n%s", body);
    snprintf(read, sizeof read, "[read_file for 'a.c'] Result:\n%s", body);
    const char *peeks[] = { peek, peek };
    json_t *h = history_of(peeks, 2);
    context_rewrites out = CONTEXT_REWRITES_INIT;
    REQUIRE(context_collapse_reads(h, NONE, NULL, peek_reads, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 1);
    if (out.len)
        CHECK_INT(out.items[0].msg, 2);
    context_rewrites_release(&out);
    REQUIRE(context_collapse_reads(h, NONE, NULL, NULL, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 0);
    json_decref(h);
    const char *reads[] = { read, read };
    h = history_of(reads, 2);
    REQUIRE(context_collapse_reads(h, NONE, NULL, peek_reads, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 0); /* read_file is not a read to this caller */
    REQUIRE(context_collapse_reads(h, NONE, NULL, NULL, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 0);
    REQUIRE(context_collapse_reads(h, NONE, NULL, kinds, &out, NULL) == HEW_OK);
    CHECK_INT(out.len, 1);
    context_rewrites_release(&out);
    json_decref(h);
}

int main(void)
{
    RUN(test_xml_reads);
    RUN(test_native_results);
    RUN(test_windows);
    RUN(test_writes);
    RUN(test_mentions);
    RUN(test_plan);
    RUN(test_classifier_decides);
    return check_report();
}
