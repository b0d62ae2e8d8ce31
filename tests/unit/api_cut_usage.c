/* api_cut_usage — a request that does not end properly still reports the usage the
 * provider had sent (issue #16, "totals that add up": a request cancelled mid-stream keeps
 * the usage it got so far). Against hew-fake-provider through api_stream: an Anthropic
 * stream cut off after message_start, one stopped by the caller's abort, and a Gemini
 * stream cut off after a chunk with usageMetadata each end with a USAGE chunk (the
 * provider's numbers) right before their ERROR; a stream cut before any usage reports
 * none. */
#include <jansson.h>
#include <string.h>

#include "api/message.h"
#include "api/request.h"
#include "api/stream.h"
#include "api/turn.h"
#include "sys/abort.h"
#include "check.h"
#include "fakeprov.h"

#define LONG_TEXT                                                                            \
    "\"text\": \"A long answer that goes on and on, word after word after word, so that the " \
    "stream is far from its end when it is cut off.\", \"delta_size\": 4"

struct run {
    api_turn turn;
    api_error err;
    hew_code rc;
    hew_abort *stop_at_text; /* triggered when the first text chunk arrives, or NULL */
    int kinds[2];            /* the last two chunk kinds */
};

static int collect(void *ud, const api_chunk *c)
{
    struct run *r = ud;
    r->kinds[0] = r->kinds[1];
    r->kinds[1] = (int)c->kind;
    api_turn_add(&r->turn, c);
    if (c->kind == API_CHUNK_TEXT && r->stop_at_text)
        abort_trigger(r->stop_at_text, "the user pressed Ctrl-C");
    return 0;
}

static void run_stream(const char *profile, const char *base, const char *model, struct run *r)
{
    api_provider p;
    api_provider_opts o = { .base_url = base, .api_key = "sk-test-secret-key-123", .model = model };
    hew_err err = HEW_ERR_INIT;
    if (api_provider_init(&p, profile, &o, &err) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "provider %s: %s", profile, err.msg);
        return;
    }
    json_t *h = json_array();
    json_array_append_new(h, api_msg_user_text("Write the essay"));
    api_request req = api_request_defaults();
    req.system = "You are hew.";
    req.messages = h;
    api_turn_init(&r->turn);
    r->kinds[0] = r->kinds[1] = -1;
    r->rc = api_stream(&p, &req, collect, r, r->stop_at_text, &r->err);
    json_decref(h);
}

static void test_anthropic_cut_after_message_start(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"responses\": [{\"protocol\": \"anthropic\", " LONG_TEXT
                                ", \"usage\": {\"input\": 700, \"output\": 90, \"cache_read\": "
                                "50, \"cache_write\": 10}, \"close_after_bytes\": 900}]}") == 0);
    struct run r;
    memset(&r, 0, sizeof r);
    run_stream("anthropic", fp.url, "claude-sonnet-4-5", &r);
    CHECK(r.rc != HEW_OK);
    CHECK(r.turn.failed && !r.turn.complete);
    CHECK(r.turn.text.len > 0); /* it was cut mid-answer, not before it */
    CHECK(r.turn.have_usage);
    CHECK_INT(r.turn.usage.input_uncached, 700);
    CHECK_INT(r.turn.usage.cache_read, 50);
    CHECK_INT(r.turn.usage.cache_write, 10);
    CHECK_INT(r.turn.usage.input_total, 760);
    CHECK_INT(r.kinds[0], API_CHUNK_USAGE); /* right before the ERROR, as chunk.h says */
    CHECK_INT(r.kinds[1], API_CHUNK_ERROR);
    api_turn_release(&r.turn);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

static void test_anthropic_stopped_by_abort(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"responses\": [{\"protocol\": \"anthropic\", " LONG_TEXT
                                ", \"usage\": {\"input\": 2000, \"output\": 500, \"cache_read\": "
                                "100, \"cache_write\": 400}, \"stall_after_bytes\": 900, "
                                "\"stall_ms\": 30000}]}") == 0);
    struct run r;
    memset(&r, 0, sizeof r);
    r.stop_at_text = abort_new();
    REQUIRE(r.stop_at_text != NULL);
    run_stream("anthropic", fp.url, "claude-sonnet-4-5", &r);
    CHECK_INT(r.rc, HEW_E_ABORTED);
    CHECK_INT(r.err.category, API_ERR_ABORTED);
    CHECK(r.turn.have_usage);
    CHECK_INT(r.turn.usage.input_uncached, 2000);
    CHECK_INT(r.turn.usage.cache_read, 100);
    CHECK_INT(r.turn.usage.cache_write, 400);
    CHECK_INT(r.kinds[0], API_CHUNK_USAGE);
    CHECK_INT(r.kinds[1], API_CHUNK_ERROR);
    api_turn_release(&r.turn);
    abort_free(r.stop_at_text);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

static void test_gemini_cut_after_a_chunk(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"responses\": [{\"protocol\": \"gemini\", " LONG_TEXT
                                ", \"usage\": {\"input\": 300, \"output\": 40}, "
                                "\"close_after_bytes\": 900}]}") == 0);
    char base[128];
    snprintf(base, sizeof base, "%s/v1beta", fp.url);
    struct run r;
    memset(&r, 0, sizeof r);
    run_stream("gemini", base, "gemini-2.5-pro", &r);
    CHECK(r.rc != HEW_OK);
    CHECK(r.turn.failed && r.turn.text.len > 0);
    CHECK(r.turn.have_usage);
    CHECK_INT(r.turn.usage.input_total, 300);
    CHECK_INT(r.turn.usage.output, 40);
    CHECK_INT(r.kinds[0], API_CHUNK_USAGE);
    CHECK_INT(r.kinds[1], API_CHUNK_ERROR);
    api_turn_release(&r.turn);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

static void test_cut_before_any_usage_reports_none(void)
{
    fakeprov fp; /* OpenAI Chat sends its usage in the last chunk only */
    REQUIRE(fakeprov_start(&fp, "{\"responses\": [{\"protocol\": \"openai-chat\", " LONG_TEXT
                                ", \"usage\": {\"input\": 300, \"output\": 40}, "
                                "\"close_after_bytes\": 900}]}") == 0);
    char base[128];
    snprintf(base, sizeof base, "%s/v1", fp.url);
    struct run r;
    memset(&r, 0, sizeof r);
    run_stream("openai", base, "gpt-4o", &r);
    CHECK(r.rc != HEW_OK);
    CHECK(r.turn.failed && r.turn.text.len > 0);
    CHECK(!r.turn.have_usage);
    CHECK_INT(r.kinds[1], API_CHUNK_ERROR);
    api_turn_release(&r.turn);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

int main(void)
{
    RUN(test_anthropic_cut_after_message_start);
    RUN(test_anthropic_stopped_by_abort);
    RUN(test_gemini_cut_after_a_chunk);
    RUN(test_cut_before_any_usage_reports_none);
    return check_report();
}
