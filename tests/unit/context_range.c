/* Unit tests for context/: the deleted-range arithmetic (every keep mode, odd lengths,
 * accumulated ranges, against Cline's formula for every small case), the threshold table
 * and the trigger, the truncated view (tool_use/tool_result pairing after every cut, in
 * native and XML mode, on random histories), and rewrites applied by the view. Pure: it
 * never touches a file. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "check.h"
#include "context/context.h"

static json_t *user_text(const char *t)
{
    return api_msg_user_text(t);
}

static json_t *assistant_text(const char *t)
{
    json_t *c = json_array();
    json_array_append_new(c, api_msg_text(t, strlen(t)));
    return api_msg_new("assistant", c);
}

/* user, assistant, user, ... n messages. */
static json_t *alternating(size_t n)
{
    json_t *h = json_array();
    for (size_t i = 0; i < n; i++) {
        char t[32];
        snprintf(t, sizeof t, "m%zu", i);
        json_array_append_new(h, i % 2 ? assistant_text(t) : user_text(t));
    }
    return h;
}

static context_range R(size_t a, size_t b)
{
    context_range r = { true, a, b };
    return r;
}

static const context_range NONE = { false, 0, 0 };

#define CHECK_RANGE(got, a, b)                                                             \
    do {                                                                                   \
        context_range g_ = (got);                                                          \
        check_count++;                                                                     \
        if (!g_.has || g_.start != (a) || g_.end != (b))                                   \
            check_fail(__FILE__, __LINE__, "range %s[%zu, %zu], want [%zu, %zu]",          \
                       g_.has ? "" : "(none) ", g_.start, g_.end, (size_t)(a), (size_t)(b)); \
    } while (0)

/* ---- the range -------------------------------------------------------------------------- */

static void test_keep_modes(void)
{
    json_t *h = alternating(10); /* N = 8 after the first pair */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_NONE), 2, 9);
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_LAST_TWO), 2, 7);
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_HALF), 2, 5);
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_QUARTER), 2, 7);
    json_decref(h);

    h = alternating(11); /* odd: ends on a user message; N = 9 */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_NONE), 2, 9);     /* 10 is user */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_LAST_TWO), 2, 7); /* 8 is user */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_HALF), 2, 5);     /* 9/4*2 = 4 */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_QUARTER), 2, 7);  /* 27/4/2*2 = 6 */
    json_decref(h);

    h = alternating(13); /* N = 11 */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_HALF), 2, 5);    /* 11/4*2 = 4 */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_QUARTER), 2, 9); /* 33/4=8 → 8 */
    json_decref(h);
}

static void test_small_histories(void)
{
    for (size_t n = 0; n <= 3; n++) {
        json_t *h = alternating(n);
        CHECK(!context_next_range(h, NONE, CONTEXT_KEEP_HALF).has);
        CHECK(!context_next_range(h, NONE, CONTEXT_KEEP_QUARTER).has);
        CHECK(!context_next_range(h, NONE, CONTEXT_KEEP_LAST_TWO).has);
        json_decref(h);
    }
    json_t *h = alternating(3);
    /* only a user message after the pair: nothing can go */
    CHECK(!context_next_range(h, NONE, CONTEXT_KEEP_NONE).has);
    json_decref(h);
    h = alternating(4);
    CHECK(!context_next_range(h, NONE, CONTEXT_KEEP_HALF).has);    /* 2/4*2 = 0 */
    CHECK(!context_next_range(h, NONE, CONTEXT_KEEP_QUARTER).has); /* 6/4=1 /2=0 */
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_NONE), 2, 3);
    json_decref(h);
    h = alternating(6);
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_HALF), 2, 3);
    CHECK_RANGE(context_next_range(h, NONE, CONTEXT_KEEP_QUARTER), 2, 3);
    json_decref(h);
}

static void test_accumulated(void)
{
    json_t *h = alternating(20);
    context_range r = context_next_range(h, NONE, CONTEXT_KEEP_HALF); /* N=18 → 8 */
    CHECK_RANGE(r, 2, 9);
    r = context_next_range(h, r, CONTEXT_KEEP_HALF); /* rest0=10, N=10 → 4 */
    CHECK_RANGE(r, 2, 13);
    r = context_next_range(h, r, CONTEXT_KEEP_QUARTER); /* rest0=14, N=6 → 4 */
    CHECK_RANGE(r, 2, 17);
    r = context_next_range(h, r, CONTEXT_KEEP_HALF); /* rest0=18, N=2 → 0: unchanged */
    CHECK_RANGE(r, 2, 17);
    r = context_next_range(h, r, CONTEXT_KEEP_LAST_TWO); /* N=2 → 0 */
    CHECK_RANGE(r, 2, 17);
    r = context_next_range(h, r, CONTEXT_KEEP_NONE); /* → 19 */
    CHECK_RANGE(r, 2, 19);
    CHECK_INT(context_view_count(h, r), 2);
    /* the history grows after a cut, and the range goes on from where it was */
    for (int i = 20; i < 30; i++)
        json_array_append_new(h, i % 2 ? assistant_text("x") : user_text("x"));
    r = context_next_range(h, r, CONTEXT_KEEP_HALF); /* rest0=20, N=10 → 4 */
    CHECK_RANGE(r, 2, 23);
    CHECK_INT(context_view_count(h, r), 2 + 6);
    json_decref(h);
}

/* Cline's getNextTruncationRange, written out again as the oracle. */
static context_range oracle(size_t len, const json_t *h, context_range cur, context_keep keep)
{
    long rest0 = cur.has ? (long)cur.end + 1 : 2;
    long n = (long)len - rest0, remove;
    switch (keep) {
    case CONTEXT_KEEP_NONE: remove = n > 0 ? n : 0; break;
    case CONTEXT_KEEP_LAST_TWO: remove = n - 2 > 0 ? n - 2 : 0; break;
    case CONTEXT_KEEP_HALF: remove = n > 0 ? n / 4 * 2 : 0; break;
    default: remove = n > 0 ? n * 3 / 4 / 2 * 2 : 0; break;
    }
    long end = rest0 + remove - 1;
    const char *role = end >= 0 && (size_t)end < len
                           ? json_string_value(json_object_get(json_array_get(h, (size_t)end),
                                                               "role"))
                           : NULL;
    if (role && strcmp(role, "assistant") != 0)
        end--;
    /* hew returns the current range when nothing can be removed (Cline would return a
     * range ending before its start) */
    if (remove == 0 || end < rest0)
        return cur;
    return R(2, (size_t)end);
}

static void test_against_cline_formula(void)
{
    static const context_keep keeps[] = { CONTEXT_KEEP_NONE, CONTEXT_KEEP_LAST_TWO,
                                          CONTEXT_KEEP_HALF, CONTEXT_KEEP_QUARTER };
    for (size_t len = 0; len <= 41; len++) {
        json_t *h = alternating(len);
        for (size_t k = 0; k < 4; k++) {
            /* no range, and every range ending on an assistant message */
            for (long e = 0; e < (long)len; e++) {
                context_range cur = e == 0 ? NONE : R(2, (size_t)e);
                if (e != 0 && (e < 3 || e % 2 == 0))
                    continue;
                context_range got = context_next_range(h, cur, keeps[k]);
                context_range want = oracle(len, h, cur, keeps[k]);
                check_count++;
                if (got.has != want.has || (got.has && (got.start != want.start ||
                                                        got.end != want.end)))
                    check_fail(__FILE__, __LINE__,
                               "len %zu keep %zu cur [%ld]: got %d[%zu,%zu] want %d[%zu,%zu]",
                               len, k, e, got.has, got.start, got.end, want.has, want.start,
                               want.end);
                if (got.has) {
                    /* always ends on an assistant message, never shrinks */
                    CHECK(got.end % 2 == 1 && got.end < len);
                    CHECK(!cur.has || got.end >= cur.end);
                }
            }
        }
        json_decref(h);
    }
}

static void test_not_alternating(void)
{
    /* two user messages in a row (a resumed task): the end still moves off a user */
    json_t *h = json_array();
    const char *roles = "uauuauauau";
    for (size_t i = 0; roles[i]; i++)
        json_array_append_new(h, roles[i] == 'u' ? user_text("u") : assistant_text("a"));
    context_range r = context_next_range(h, NONE, CONTEXT_KEEP_HALF); /* N=8 → 4, end 5 */
    CHECK_RANGE(r, 2, 4); /* 5 is a user message: one back, onto the assistant at 4 */
    json_decref(h);
}

/* ---- thresholds ----------------------------------------------------------------------------- */

static void test_thresholds(void)
{
    CHECK_INT(context_max_allowed(64000), 37000);
    CHECK_INT(context_max_allowed(128000), 98000);
    CHECK_INT(context_max_allowed(200000), 160000);
    CHECK_INT(context_max_allowed(1000000), 960000);  /* w - 40k */
    CHECK_INT(context_max_allowed(100000), 80000);    /* 0.8 w */
    CHECK_INT(context_max_allowed(32000), 25600);     /* 0.8 w */
    CHECK_INT(context_max_allowed(400000), 360000);   /* both equal at 200k; above: w-40k */
    CHECK_INT(context_max_allowed(0), 98000);         /* unknown: 128k */
    CHECK_INT(context_max_allowed(-5), 98000);

    CHECK(context_over(98000, 128000));
    CHECK(!context_over(97999, 128000));
    CHECK(context_over(37000, 64000));
    CHECK(!context_over(36999, 64000));
    CHECK(context_over(160000, 200000));

    CHECK_INT(context_keep_for(160000, 200000), CONTEXT_KEEP_HALF);
    CHECK_INT(context_keep_for(320000, 200000), CONTEXT_KEEP_HALF);   /* 160000 > 160000? no */
    CHECK_INT(context_keep_for(320002, 200000), CONTEXT_KEEP_QUARTER);
    CHECK_INT(context_keep_for(190000, 64000), CONTEXT_KEEP_QUARTER); /* 200k model → 64k */
    CHECK_INT(context_keep_for(70000, 64000), CONTEXT_KEEP_HALF);

    CHECK_INT(context_usage_total(1000, 200, 30000, 4000), 35200);
    CHECK_INT(context_usage_total(-1, 200, -1, 0), 200);
}

/* ---- the view: pairing ----------------------------------------------------------------------- */

static json_t *tool_use_msg(const char *text, int n, const char *const ids[])
{
    json_t *c = json_array();
    if (text)
        json_array_append_new(c, api_msg_text(text, strlen(text)));
    for (int i = 0; i < n; i++)
        json_array_append_new(c, api_msg_tool_use(ids[i], "read_file",
                                                  json_pack("{s:s}", "path", "a.c")));
    return api_msg_new("assistant", c);
}

static json_t *results_msg(int n, const char *const ids[], const char *extra)
{
    json_t *c = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(c, api_msg_tool_result(ids[i], "[read_file for 'a.c'] Result:\nx",
                                                     false));
    if (extra)
        json_array_append_new(c, api_msg_text(extra, strlen(extra)));
    return api_msg_new("user", c);
}

static bool view_ok(const json_t *h, context_range r, const context_rewrites *rw, hew_err *err)
{
    json_t *v = context_view_rw(h, r, rw);
    bool ok = api_msg_validate(v, err) == HEW_OK;
    json_decref(v);
    return ok;
}

static void test_view_native_pairing(void)
{
    const char *t1[] = { "t1" }, *t2[] = { "t2" }, *t3[] = { "t3a", "t3b" }, *t4[] = { "t4" };
    json_t *h = json_array();
    json_array_append_new(h, user_text("<task>\ndo it\n</task>"));
    json_array_append_new(h, tool_use_msg("first", 1, t1));
    json_array_append_new(h, results_msg(1, t1, "<environment_details/>"));
    json_array_append_new(h, tool_use_msg(NULL, 1, t2));
    json_array_append_new(h, results_msg(1, t2, NULL));
    json_array_append_new(h, tool_use_msg("two at once", 2, t3));
    json_array_append_new(h, results_msg(2, t3, "env"));
    json_array_append_new(h, tool_use_msg(NULL, 1, t4));
    json_array_append_new(h, results_msg(1, t4, NULL));
    json_array_append_new(h, assistant_text("done"));
    hew_err err = HEW_ERR_INIT;
    REQUIRE(api_msg_validate(h, &err) == HEW_OK);

    /* no range: the history as is */
    json_t *v = context_view(h, NONE);
    CHECK(json_equal(v, h));
    json_decref(v);

    /* [2,5]: message 6 answered message 5's two calls: both results go, its text stays */
    v = context_view(h, R(2, 5));
    REQUIRE(json_array_size(v) == 6);
    CHECK(view_ok(h, R(2, 5), NULL, &err));
    json_t *first_answer = json_array_get(v, 1);
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(first_answer, "content"), 0), "text")),
              CONTEXT_TRUNCATION_NOTE);
    CHECK_INT(json_array_size(json_object_get(first_answer, "content")), 1);
    json_t *kept = json_object_get(json_array_get(v, 2), "content");
    CHECK_INT(json_array_size(kept), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(kept, 0), "text")), "env");
    /* later pairs untouched */
    CHECK(json_equal(json_array_get(v, 3), json_array_get(h, 7)));
    CHECK(json_equal(json_array_get(v, 4), json_array_get(h, 8)));
    json_decref(v);

    /* [2,3]: message 4 held only a result: it becomes the note */
    v = context_view(h, R(2, 3));
    kept = json_object_get(json_array_get(v, 2), "content");
    CHECK_INT(json_array_size(kept), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(kept, 0), "text")),
              CONTEXT_TRUNCATION_NOTE);
    CHECK(view_ok(h, R(2, 3), NULL, &err));
    json_decref(v);

    /* every cut the range arithmetic can make keeps the view valid */
    static const context_keep keeps[] = { CONTEXT_KEEP_HALF, CONTEXT_KEEP_QUARTER,
                                          CONTEXT_KEEP_LAST_TWO, CONTEXT_KEEP_NONE };
    for (size_t k = 0; k < 4; k++) {
        context_range r = NONE;
        for (int round = 0; round < 6; round++) {
            r = context_next_range(h, r, keeps[k]);
            if (!view_ok(h, r, NULL, &err))
                check_fail(__FILE__, __LINE__, "keep %zu round %d: %s", k, round, err.msg);
            check_count++;
        }
    }
    /* the history is never modified */
    CHECK(api_msg_validate(h, &err) == HEW_OK);
    CHECK_INT(json_array_size(h), 10);
    json_decref(h);
}

static void test_view_xml_results(void)
{
    /* XML mode: results are text blocks without ids; they stay (nothing to pair) */
    json_t *h = json_array();
    json_array_append_new(h, user_text("<task>\nx\n</task>"));
    for (int i = 0; i < 5; i++) {
        json_array_append_new(h, assistant_text("<read_file><path>a.c</path></read_file>"));
        json_t *c = json_array();
        const char *r = "[read_file for 'a.c'] Result:\n1 | int x;";
        json_array_append_new(c, api_msg_text(r, strlen(r)));
        json_array_append_new(c, api_msg_text("<environment_details/>", 22));
        json_array_append_new(h, api_msg_new("user", c));
    }
    json_array_append_new(h, assistant_text("done"));
    hew_err err = HEW_ERR_INIT;
    context_range r = context_next_range(h, NONE, CONTEXT_KEEP_HALF); /* N=10 → 4: [2,5] */
    CHECK_RANGE(r, 2, 5);
    json_t *v = context_view(h, r);
    CHECK(api_msg_validate(v, &err) == HEW_OK);
    json_t *first = json_array_get(v, 2);
    CHECK(json_equal(first, json_array_get(h, 6)));
    CHECK_INT(json_array_size(v), 2 + 6);
    json_decref(v);
    json_decref(h);
}

/* Random native histories: any number of calls per answer, answered in the next user
 * message; every range any sequence of keeps produces gives a valid view. */
static void test_view_random(void)
{
    unsigned long long st = 99;
    hew_err err = HEW_ERR_INIT;
    int id = 0;
    for (int trial = 0; trial < 300; trial++) {
        json_t *h = json_array();
        json_array_append_new(h, user_text("task"));
        st = st * 6364136223846793005ULL + 1;
        size_t pairs = 1 + (size_t)(st >> 33) % 25;
        for (size_t p = 0; p < pairs; p++) {
            st = st * 6364136223846793005ULL + 1;
            int calls = (int)((st >> 33) % 4);
            char ids[3][24]; /* "toolu_" and any int */
            const char *idp[3];
            for (int c = 0; c < calls; c++) {
                snprintf(ids[c], sizeof ids[c], "toolu_%d", id++);
                idp[c] = ids[c];
            }
            json_array_append_new(h, tool_use_msg(calls ? NULL : "thinking aloud", calls, idp));
            if (p + 1 < pairs || calls)
                json_array_append_new(h, results_msg(calls, idp, calls ? NULL : "feedback"));
        }
        if (api_msg_validate(h, &err) != HEW_OK) {
            check_fail(__FILE__, __LINE__, "bad test history: %s", err.msg);
            json_decref(h);
            return;
        }
        context_range r = NONE;
        for (int round = 0; round < 8; round++) {
            st = st * 6364136223846793005ULL + 1;
            r = context_next_range(h, r, (context_keep)((st >> 33) % 4));
            check_count++;
            if (!view_ok(h, r, NULL, &err)) {
                check_fail(__FILE__, __LINE__, "trial %d round %d: %s", trial, round, err.msg);
                break;
            }
        }
        json_decref(h);
    }
}

/* ---- rewrites in the view ---------------------------------------------------------------------- */

static void test_view_rewrites(void)
{
    const char *t1[] = { "t1" }, *t2[] = { "t2" };
    json_t *h = json_array();
    json_array_append_new(h, user_text("task"));                /* 0: string content */
    json_array_append_new(h, tool_use_msg("a", 1, t1));         /* 1 */
    json_array_append_new(h, results_msg(1, t1, "env"));        /* 2 */
    json_array_append_new(h, tool_use_msg(NULL, 1, t2));        /* 3 */
    json_array_append_new(h, results_msg(1, t2, "env2"));       /* 4 */
    json_array_append_new(h, assistant_text("done"));           /* 5 */
    json_t *before = json_deep_copy(h);
    context_rewrites rw = CONTEXT_REWRITES_INIT;
    REQUIRE(context_rewrites_add(&rw, 4, 0, "old") == HEW_OK);
    REQUIRE(context_rewrites_add(&rw, 4, 0, "short result") == HEW_OK); /* latest wins */
    REQUIRE(context_rewrites_add(&rw, 4, 1, "env2'") == HEW_OK);
    REQUIRE(context_rewrites_add(&rw, 0, 0, "task'") == HEW_OK);
    REQUIRE(context_rewrites_add(&rw, 3, 0, "not a text block") == HEW_OK); /* tool_use: ignored */
    REQUIRE(context_rewrites_add(&rw, 4, 7, "no such block") == HEW_OK);
    REQUIRE(context_rewrites_add(&rw, 99, 0, "no such message") == HEW_OK);
    CHECK_STR(context_rewrites_find(&rw, 4, 0), "short result");
    CHECK(context_rewrites_find(&rw, 5, 0) == NULL);

    json_t *v = context_view_rw(h, NONE, &rw);
    json_t *r4 = json_array_get(json_object_get(json_array_get(v, 4), "content"), 0);
    CHECK_STR(json_string_value(json_object_get(r4, "content")), "short result");
    CHECK_STR(json_string_value(json_object_get(r4, "tool_use_id")), "t2");
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(json_array_get(v, 4), "content"), 1), "text")),
              "env2'");
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(json_array_get(v, 0), "content"), 0), "text")),
              "task'");
    CHECK(json_equal(json_array_get(v, 3), json_array_get(h, 3)));
    hew_err err = HEW_ERR_INIT;
    CHECK(api_msg_validate(v, &err) == HEW_OK);
    json_decref(v);
    /* with a range: rewrites of the first kept message apply before the pairing rule */
    v = context_view_rw(h, R(2, 3), &rw);
    json_t *k = json_object_get(json_array_get(v, 2), "content");
    CHECK_INT(json_array_size(k), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(k, 0), "text")), "env2'");
    json_decref(v);
    CHECK(json_equal(h, before)); /* never modified */

    /* drop_from, append, from_json */
    context_rewrites_drop_from(&rw, 4);
    CHECK_INT(rw.len, 2);
    context_rewrites other = CONTEXT_REWRITES_INIT;
    json_t *arr = json_pack("[{s:i, s:i, s:s}, {s:i, s:i, s:s}]", "msg", 2, "block", 0, "text",
                            "x", "msg", 2, "block", 1, "text", "y");
    REQUIRE(context_rewrites_from_json(&other, arr, &err) == HEW_OK);
    CHECK_INT(other.len, 2);
    REQUIRE(context_rewrites_append(&rw, &other) == HEW_OK);
    CHECK_INT(rw.len, 4);
    CHECK_STR(context_rewrites_find(&rw, 2, 1), "y");
    json_decref(arr);
    arr = json_pack("[{s:i, s:i, s:s}, {s:i, s:s}]", "msg", 2, "block", 0, "text", "x", "msg", 2,
                    "text", "no block");
    CHECK_INT(context_rewrites_from_json(&other, arr, &err), HEW_E_INVALID);
    CHECK_INT(other.len, 2); /* nothing added */
    json_decref(arr);
    context_rewrites_release(&other);
    context_rewrites_release(&rw);
    json_decref(before);
    json_decref(h);
}

int main(void)
{
    RUN(test_keep_modes);
    RUN(test_small_histories);
    RUN(test_accumulated);
    RUN(test_against_cline_formula);
    RUN(test_not_alternating);
    RUN(test_thresholds);
    RUN(test_view_native_pairing);
    RUN(test_view_xml_results);
    RUN(test_view_random);
    RUN(test_view_rewrites);
    return check_report();
}
