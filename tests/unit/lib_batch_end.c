/* Tests for lib/batch_end, the reader of a child's --json output for `hew batch`: the
 * same answer whatever the cuts of the bytes (whole, one byte at a time, odd chunks); the
 * newer task_end fields and the older "totals" object; two end lines (a hand-over) add
 * up with the last status winning; an event whose text merely mentions "kind":"end" and
 * a line too long to be held are not end lines; a last line without a newline counts
 * only at finish. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/batch_end.h"

static const char stream_old[] =
    "{\"v\":2,\"kind\":\"say\",\"type\":\"task\",\"text\":\"do it\"}\n"
    "{\"v\":2,\"kind\":\"say\",\"type\":\"text\",\"text\":\"{\\\"kind\\\":\\\"end\\\"} \\\"kind\\\":\\\"end\\\"\"}\n"
    "{\"v\":2,\"kind\":\"end\",\"type\":\"task_end\",\"task\":\"1\",\"status\":\"completed\","
    "\"result\":\"first\",\"next_task\":\"2\",\"totals\":{\"tokens_in\":100,\"tokens_out\":10,"
    "\"cache_reads\":5,\"cache_writes\":1,\"cost\":0.25,\"requests\":2}}\n"
    "{\"v\":2,\"kind\":\"say\",\"type\":\"task\",\"text\":\"go on\"}\n"
    "{\"v\":2,\"kind\":\"end\",\"type\":\"task_end\",\"task\":\"2\",\"status\":\"failed\","
    "\"result\":\"it broke\",\"usage\":{\"input_tokens\":7,\"output_tokens\":3,"
    "\"cache_read_tokens\":2,\"cache_write_tokens\":4},\"cost_usd\":0.5,\"requests\":1,"
    "\"totals\":{\"tokens_in\":999,\"tokens_out\":999,\"cache_reads\":999,"
    "\"cache_writes\":999,\"cost\":9,\"requests\":9},\"reason\":\"denied\","
    "\"denied\":[{\"type\":\"command\",\"command\":\"make\"}]}\n";

static void check_both(const batch_end *e)
{
    CHECK_INT(e->ends, 2);
    CHECK_STR(e->status, "failed");
    CHECK_STR(e->result, "it broke");
    /* the first from "totals", the second from the newer fields (they win over totals) */
    CHECK_INT(e->input_tokens, 107);
    CHECK_INT(e->output_tokens, 13);
    CHECK_INT(e->cache_read_tokens, 7);
    CHECK_INT(e->cache_write_tokens, 5);
    CHECK_INT(e->requests, 3);
    CHECK(e->cost_usd > 0.7499 && e->cost_usd < 0.7501);
    CHECK_STR(e->reason, "denied");
    CHECK(json_is_array(e->denied) && json_array_size(e->denied) == 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(e->denied, 0), "command")), "make");
}

static void test_cuts(void)
{
    size_t n = strlen(stream_old);
    size_t steps[] = { n, 1, 2, 7, 63, 64, 65, 100 };
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        batch_end e;
        batch_end_init(&e);
        for (size_t i = 0; i < n; i += steps[s])
            batch_end_feed(&e, stream_old + i, i + steps[s] > n ? n - i : steps[s]);
        batch_end_finish(&e);
        check_both(&e);
        batch_end_release(&e);
    }
}

static void test_no_newline(void)
{
    const char *line = "{\"v\":2,\"kind\":\"end\",\"status\":\"completed\",\"requests\":4}";
    batch_end e;
    batch_end_init(&e);
    batch_end_feed(&e, line, strlen(line));
    CHECK_INT(e.ends, 0); /* not yet: the line may go on */
    batch_end_finish(&e);
    CHECK_INT(e.ends, 1);
    CHECK_STR(e.status, "completed");
    CHECK_INT(e.requests, 4);
    CHECK(e.result == NULL);
    batch_end_release(&e);
    batch_end_release(&e); /* harmless twice */
}

static void test_not_end_lines(void)
{
    batch_end e;
    batch_end_init(&e);
    /* "kind":"end" past the first 64 bytes: an ordinary event that quotes it raw */
    const char *late = "{\"v\":2,\"kind\":\"say\",\"type\":\"text\",\"partial\":false,\"index\":3,"
                       "\"x\":{\"kind\":\"end\",\"status\":\"completed\"}}\n";
    batch_end_feed(&e, late, strlen(late));
    /* in the first bytes but not the line's kind */
    const char *inner = "{\"a\":{\"kind\":\"end\"},\"kind\":\"say\",\"status\":\"completed\"}\n";
    batch_end_feed(&e, inner, strlen(inner));
    /* not JSON */
    const char *bad = "{\"kind\":\"end\", oops\n";
    batch_end_feed(&e, bad, strlen(bad));
    batch_end_finish(&e);
    CHECK_INT(e.ends, 0);
    CHECK(e.status == NULL);
    batch_end_release(&e);
}

static void test_result_cut(void)
{
    size_t big = 5000;
    char *line = malloc(big + 100);
    REQUIRE(line);
    int k = snprintf(line, 100, "{\"v\":2,\"kind\":\"end\",\"status\":\"failed\",\"result\":\"");
    memset(line + k, 'r', big);
    memcpy(line + k + big, "\"}\n", 4);
    batch_end e;
    batch_end_init(&e);
    batch_end_feed(&e, line, strlen(line));
    CHECK_INT(e.ends, 1);
    REQUIRE(e.result != NULL);
    CHECK_INT(strlen(e.result), BATCH_END_RESULT_MAX);
    batch_end_release(&e);
    free(line);
}

int main(void)
{
    RUN(test_cuts);
    RUN(test_no_newline);
    RUN(test_not_end_lines);
    RUN(test_result_cut);
    return check_report();
}
