/* api_stream — end to end against hew-fake-provider: for each protocol a generated stream
 * decodes (through net/http + net/sse + the decoder) to exactly the scripted turn, and the
 * request hew sent has the protocol's documented shape (path, auth header, roles, tools,
 * cache_control on the system prompt and the last two user messages, stream options,
 * tool results tied to their calls). Also: an error status is classified from status,
 * headers and body; a stream dropped after the first chunk is a network error flagged
 * after_first_chunk; an abort stops a stalled stream quickly; the bytes of a request are
 * the same every time it is built. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/message.h"
#include "api/request.h"
#include "api/stream.h"
#include "api/turn.h"
#include "sys/abort.h"
#include "base/json.h"
#include "check.h"
#include "fakeprov.h"

static json_t *history(void)
{
    json_t *input = json_pack("{s:s}", "path", "src/main.c");
    json_t *a = json_array();
    json_array_append_new(a, api_msg_thinking("look first", 10, "sig_abc"));
    json_array_append_new(a, api_msg_text("Reading it.", 11));
    json_array_append_new(a, api_msg_tool_use("toolu_1", "read_file", input));
    json_t *u = json_array();
    json_array_append_new(u, api_msg_tool_result("toolu_1", "int main(void) { return 0; }", false));
    json_array_append_new(u, api_msg_text("<environment_details>cwd</environment_details>", 46));
    json_t *h = json_array();
    json_array_append_new(h, api_msg_user_text("Fix the bug in main.c"));
    json_array_append_new(h, api_msg_new("assistant", a));
    json_array_append_new(h, api_msg_new("user", u));
    return h;
}

static json_t *schema(void)
{
    return json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties", "path", "type",
                     "string", "required", "path");
}

struct run {
    api_turn turn;
    api_error err;
    hew_code rc;
};

static void run_stream(const char *profile, const char *base, const char *model, struct run *out,
                       hew_abort *abort)
{
    api_provider p;
    api_provider_opts o = { .base_url = base, .api_key = "sk-test-secret-key-123", .model = model };
    hew_err err = HEW_ERR_INIT;
    if (api_provider_init(&p, profile, &o, &err) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "provider %s: %s", profile, err.msg);
        return;
    }
    json_t *h = history();
    json_t *sch = schema();
    api_tool tool = { "read_file", "Read a file", sch };
    api_request r = api_request_defaults();
    r.system = "You are hew.";
    r.messages = h;
    r.tools = &tool;
    r.ntools = 1;
    api_turn_init(&out->turn);
    out->rc = api_stream(&p, &r, api_turn_add, &out->turn, abort, &out->err);
    json_decref(sch);
    json_decref(h);
}

static const char *jstr(const json_t *root, const char *path)
{
    const char *s = json_string_value(json_path_get(root, path));
    return s ? s : "(none)";
}

/* A generated turn in every protocol: the decoded result equals the script. */
static const char *const scripted_turn =
    "\"reasoning\": \"Think — briefly.\", \"text\": \"Grüße! <read_file> soon 🚀\", "
    "\"tool_calls\": [{\"id\": \"%s\", \"name\": \"read_file\", \"arguments\": "
    "{\"path\": \"src/a \\\"b\\\".c\"}}], \"delta_size\": 3";

static void check_turn(const char *what, const struct run *r, bool ids)
{
    if (r->rc != HEW_OK)
        check_fail(__FILE__, __LINE__, "%s: rc %d: %s", what, r->rc, r->err.message);
    check_count++;
    CHECK_STR(r->turn.text.data, "Grüße! <read_file> soon 🚀");
    CHECK_STR(r->turn.reasoning.data, "Think — briefly.");
    REQUIRE(r->turn.ncalls == 1);
    CHECK_STR(r->turn.calls[0].name, "read_file");
    CHECK_STR(r->turn.calls[0].args.data, "{\"path\":\"src/a \\\"b\\\".c\"}");
    if (ids)
        CHECK(strncmp(r->turn.calls[0].id, "call_", 5) == 0 ||
              strncmp(r->turn.calls[0].id, "toolu_", 6) == 0);
    else
        CHECK(r->turn.calls[0].id_synthesized);
    CHECK(r->turn.complete);
    CHECK_INT(r->turn.stop, API_STOP_TOOL_CALLS);
}

static void test_anthropic(void)
{
    char sc[1024];
    snprintf(sc, sizeof sc,
             "{\"responses\": [{\"protocol\": \"anthropic\", %s, \"usage\": {\"input\": 100, "
             "\"output\": 20, \"cache_read\": 50, \"cache_write\": 10}}]}",
             scripted_turn);
    char tmp[1024];
    snprintf(tmp, sizeof tmp, sc, "toolu_9");
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, tmp) == 0);
    struct run r;
    run_stream("anthropic", fp.url, "claude-sonnet-4-5", &r, NULL);
    check_turn("anthropic", &r, true);
    CHECK_INT(r.turn.usage.input_total, 160);
    CHECK_INT(r.turn.usage.input_uncached, 100);
    CHECK_INT(r.turn.usage.output, 20);
    CHECK(r.turn.blocks && r.turn.blocks[0].signature != NULL);

    json_t *reqs = fakeprov_requests(&fp);
    json_t *q = json_array_get(reqs, 0);
    CHECK_STR(jstr(q, "path"), "/v1/messages");
    CHECK_STR(jstr(q, "headers.anthropic-version"), "2023-06-01");
    CHECK(strncmp(jstr(q, "headers.x-api-key"), "sk-***", 6) == 0);
    CHECK(json_path_get(q, "headers.authorization") == NULL);
    const json_t *b = json_object_get(q, "body");
    CHECK(json_is_true(json_object_get(b, "stream")));
    CHECK(json_integer_value(json_object_get(b, "max_tokens")) > 0);
    CHECK_STR(jstr(b, "system[0].type"), "text");
    CHECK_STR(jstr(b, "system[0].cache_control.type"), "ephemeral");
    CHECK_STR(jstr(b, "messages[0].role"), "user");
    CHECK_STR(jstr(b, "messages[1].role"), "assistant");
    CHECK_STR(jstr(b, "messages[2].role"), "user");
    CHECK_STR(jstr(b, "messages[0].content[0].cache_control.type"), "ephemeral");
    CHECK_STR(jstr(b, "messages[2].content[1].cache_control.type"), "ephemeral");
    CHECK(json_path_get(b, "messages[2].content[0].cache_control") == NULL);
    CHECK(json_path_get(b, "messages[1].content[0].cache_control") == NULL);
    CHECK_STR(jstr(b, "messages[1].content[0].type"), "thinking");
    CHECK_STR(jstr(b, "messages[1].content[0].signature"), "sig_abc");
    CHECK_STR(jstr(b, "messages[1].content[2].type"), "tool_use");
    CHECK_STR(jstr(b, "messages[2].content[0].type"), "tool_result");
    CHECK_STR(jstr(b, "messages[2].content[0].tool_use_id"), "toolu_1");
    CHECK_STR(jstr(b, "tools[0].name"), "read_file");
    CHECK_STR(jstr(b, "tools[0].input_schema.type"), "object");
    json_decref(reqs);
    api_turn_release(&r.turn);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

static void test_openai_chat(void)
{
    char sc[1024], tmp[1024];
    snprintf(sc, sizeof sc,
             "{\"responses\": [{\"protocol\": \"openai-chat\", %s, \"usage\": {\"input\": 100, "
             "\"output\": 20, \"cache_read\": 40, \"reasoning\": 5}}]}",
             scripted_turn);
    snprintf(tmp, sizeof tmp, sc, "call_9");
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, tmp) == 0);
    char base[128];
    snprintf(base, sizeof base, "%s/v1", fp.url);
    struct run r;
    run_stream("openai", base, "gpt-4.1", &r, NULL);
    check_turn("openai-chat", &r, true);
    CHECK_INT(r.turn.usage.input_total, 100);
    CHECK_INT(r.turn.usage.input_uncached, 60);
    CHECK_INT(r.turn.usage.reasoning, 5);

    json_t *reqs = fakeprov_requests(&fp);
    json_t *q = json_array_get(reqs, 0);
    CHECK_STR(jstr(q, "path"), "/v1/chat/completions");
    CHECK(strncmp(jstr(q, "headers.authorization"), "Bearer sk-***", 13) == 0);
    const json_t *b = json_object_get(q, "body");
    CHECK(json_is_true(json_path_get(b, "stream_options.include_usage")));
    CHECK_STR(jstr(b, "messages[0].role"), "system");
    CHECK_STR(jstr(b, "messages[1].role"), "user");
    CHECK_STR(jstr(b, "messages[2].role"), "assistant");
    CHECK_STR(jstr(b, "messages[2].tool_calls[0].id"), "toolu_1");
    CHECK_STR(jstr(b, "messages[2].tool_calls[0].type"), "function");
    CHECK_STR(jstr(b, "messages[2].tool_calls[0].function.arguments"), "{\"path\":\"src/main.c\"}");
    CHECK_STR(jstr(b, "messages[3].role"), "tool");
    CHECK_STR(jstr(b, "messages[3].tool_call_id"), "toolu_1");
    CHECK_STR(jstr(b, "messages[4].role"), "user");
    CHECK_STR(jstr(b, "tools[0].type"), "function");
    CHECK_STR(jstr(b, "tools[0].function.name"), "read_file");
    CHECK_STR(jstr(b, "tools[0].function.parameters.type"), "object");
    CHECK(json_path_get(b, "max_completion_tokens") != NULL);
    json_decref(reqs);
    api_turn_release(&r.turn);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

static void test_openai_responses(void)
{
    char sc[1024], tmp[1024];
    snprintf(sc, sizeof sc,
             "{\"responses\": [{\"protocol\": \"openai-responses\", %s, \"usage\": {\"input\": "
             "100, \"output\": 20, \"cache_read\": 30, \"reasoning\": 7}}]}",
             scripted_turn);
    snprintf(tmp, sizeof tmp, sc, "call_7");
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, tmp) == 0);
    char base[128];
    snprintf(base, sizeof base, "%s/v1", fp.url);
    api_provider p;
    api_provider_opts o = { .base_url = base, .api_key = "sk-test-secret-key-123",
                            .model = "gpt-5", .protocol = "openai-responses" };
    REQUIRE(api_provider_init(&p, "openai", &o, NULL) == HEW_OK);
    json_t *h = history();
    json_t *sch = schema();
    api_tool tool = { "read_file", "Read a file", sch };
    api_request rq = api_request_defaults();
    rq.system = "You are hew.";
    rq.messages = h;
    rq.tools = &tool;
    rq.ntools = 1;
    rq.reasoning_effort = "medium";
    struct run r;
    api_turn_init(&r.turn);
    r.rc = api_stream(&p, &rq, api_turn_add, &r.turn, NULL, &r.err);
    check_turn("openai-responses", &r, true);
    CHECK_STR(r.turn.calls[0].id, "call_7");
    CHECK_INT(r.turn.usage.input_uncached, 70);

    json_t *reqs = fakeprov_requests(&fp);
    const json_t *b = json_path_get(json_array_get(reqs, 0), "body");
    CHECK_STR(jstr(json_array_get(reqs, 0), "path"), "/v1/responses");
    CHECK_STR(jstr(b, "instructions"), "You are hew.");
    CHECK(json_is_false(json_object_get(b, "store")));
    CHECK_STR(jstr(b, "input[0].role"), "user");
    CHECK_STR(jstr(b, "input[1].role"), "assistant");
    CHECK_STR(jstr(b, "input[2].type"), "function_call");
    CHECK_STR(jstr(b, "input[2].call_id"), "toolu_1");
    CHECK_STR(jstr(b, "input[3].type"), "function_call_output");
    CHECK_STR(jstr(b, "input[3].call_id"), "toolu_1");
    CHECK_STR(jstr(b, "tools[0].type"), "function");
    CHECK_STR(jstr(b, "tools[0].name"), "read_file");
    CHECK_STR(jstr(b, "reasoning.effort"), "medium");
    json_decref(reqs);
    json_decref(sch);
    json_decref(h);
    api_turn_release(&r.turn);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

static void test_gemini(void)
{
    char sc[1024], tmp[1024];
    snprintf(sc, sizeof sc,
             "{\"responses\": [{\"protocol\": \"gemini\", %s, \"usage\": {\"input\": 100, "
             "\"output\": 20, \"cache_read\": 30, \"reasoning\": 7}}]}",
             scripted_turn);
    snprintf(tmp, sizeof tmp, sc, "unused");
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, tmp) == 0);
    char base[128];
    snprintf(base, sizeof base, "%s/v1beta", fp.url);
    struct run r;
    run_stream("gemini", base, "gemini-2.5-pro", &r, NULL);
    check_turn("gemini", &r, false);
    CHECK_INT(r.turn.usage.input_total, 100);
    CHECK_INT(r.turn.usage.output, 27);
    CHECK_INT(r.turn.usage.reasoning, 7);

    json_t *reqs = fakeprov_requests(&fp);
    json_t *q = json_array_get(reqs, 0);
    CHECK_STR(jstr(q, "path"), "/v1beta/models/gemini-2.5-pro:streamGenerateContent");
    CHECK_STR(jstr(q, "query"), "alt=sse");
    CHECK(strncmp(jstr(q, "headers.x-goog-api-key"), "sk-***", 6) == 0);
    const json_t *b = json_object_get(q, "body");
    CHECK_STR(jstr(b, "systemInstruction.parts[0].text"), "You are hew.");
    CHECK_STR(jstr(b, "contents[0].role"), "user");
    CHECK_STR(jstr(b, "contents[1].role"), "model");
    CHECK_STR(jstr(b, "contents[1].parts[1].functionCall.name"), "read_file");
    CHECK_STR(jstr(b, "contents[2].parts[0].functionResponse.name"), "read_file");
    CHECK_STR(jstr(b, "tools[0].functionDeclarations[0].name"), "read_file");
    CHECK(json_path_get(b, "generationConfig.maxOutputTokens") != NULL);
    json_decref(reqs);
    api_turn_release(&r.turn);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

static void *abort_later(void *ab)
{
    usleep(300 * 1000);
    abort_trigger(ab, "the test stops it");
    return NULL;
}

static void test_errors(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"responses\": ["
                                "{\"body_file\": \"providers/error_429_openai.json\"},"
                                "{\"protocol\": \"openai-chat\", \"text\": \"This answer never "
                                "finishes, it is long enough to be cut.\", \"close_after_bytes\": 400},"
                                "{\"protocol\": \"anthropic\", \"text\": \"slow\", "
                                "\"delay_first_byte_ms\": 5000},"
                                "{\"protocol\": \"openai-chat\", \"text\": \"x\", \"malformed\": 1},"
                                "{\"status\": 502, \"body\": \"<html><head><title>502 Bad Gateway"
                                "</title></head></html>\"}"
                                "]}") == 0);
    char base[128];
    snprintf(base, sizeof base, "%s/v1", fp.url);
    struct run r;
    run_stream("openai", base, "gpt-4o", &r, NULL);
    CHECK_INT(r.rc, HEW_E_HTTP);
    CHECK_INT(r.err.category, API_ERR_RATE_LIMIT);
    CHECK(r.err.retryable);
    CHECK(r.err.retry_after_seconds > 4.6 && r.err.retry_after_seconds < 4.7);
    CHECK(!r.err.after_first_chunk);
    CHECK(r.turn.failed);
    api_turn_release(&r.turn);

    run_stream("openai", base, "gpt-4o", &r, NULL);
    CHECK_INT(r.rc, HEW_E_NET);
    CHECK_INT(r.err.category, API_ERR_NETWORK);
    CHECK(r.err.after_first_chunk);
    CHECK(r.turn.failed && !r.turn.complete);
    api_turn_release(&r.turn);

    hew_abort *ab = abort_new();
    pthread_t th;
    pthread_create(&th, NULL, abort_later, ab);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_stream("anthropic", fp.url, "claude-sonnet-4-5", &r, ab);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_join(th, NULL);
    CHECK_INT(r.rc, HEW_E_ABORTED);
    CHECK_INT(r.err.category, API_ERR_ABORTED);
    CHECK(t1.tv_sec - t0.tv_sec < 3);
    abort_free(ab);
    api_turn_release(&r.turn);

    run_stream("openai", base, "gpt-4o", &r, NULL);
    CHECK_INT(r.rc, HEW_E_PROTOCOL);
    CHECK_INT(r.err.category, API_ERR_SERVER);
    CHECK(r.err.retryable);
    api_turn_release(&r.turn);

    run_stream("openai", base, "gpt-4o", &r, NULL);
    CHECK_INT(r.rc, HEW_E_HTTP);
    CHECK_INT(r.err.category, API_ERR_SERVER);
    CHECK(strstr(r.err.message, "502 Bad Gateway") != NULL);
    api_turn_release(&r.turn);
    fakeprov_stop(&fp);

    /* Nobody listening. */
    run_stream("openai", "http://127.0.0.1:1/v1", "gpt-4o", &r, NULL);
    CHECK_INT(r.rc, HEW_E_NET);
    CHECK_INT(r.err.category, API_ERR_NETWORK);
    api_turn_release(&r.turn);
}

static void test_request_bytes_are_stable(void)
{
    static const char *const profiles[] = { "anthropic", "openai", "openrouter", "deepseek",
                                            "gemini", "xai", "groq" };
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        api_provider p;
        api_provider_opts o = { .api_key = "k-123456789012" };
        REQUIRE(api_provider_init(&p, profiles[i], &o, NULL) == HEW_OK);
        json_t *h = history();
        json_t *sch = schema();
        api_tool tool = { "read_file", "Read a file", sch };
        api_request r = api_request_defaults();
        r.system = "sys";
        r.messages = h;
        r.tools = &tool;
        r.ntools = 1;
        api_http a, b;
        REQUIRE(api_build(&p, &r, &a, NULL) == HEW_OK);
        json_t *h2 = json_deep_copy(h);
        r.messages = h2;
        REQUIRE(api_build(&p, &r, &b, NULL) == HEW_OK);
        CHECK_STR(a.body, b.body);
        CHECK_STR(a.url, b.url);
        /* The key appears only in the auth header. */
        CHECK(strstr(a.body, "k-123456789012") == NULL);
        api_http_release(&a);
        api_http_release(&b);
        json_decref(h2);
        json_decref(sch);
        json_decref(h);
    }
    /* An invalid history is refused with a path. */
    api_provider p;
    api_provider_opts o = { .api_key = "k" };
    REQUIRE(api_provider_init(&p, "anthropic", &o, NULL) == HEW_OK);
    json_t *h = json_pack("[{s:s,s:[{s:s,s:s,s:s}]}]", "role", "user", "content", "type",
                          "tool_result", "tool_use_id", "nope", "content", "x");
    api_request r = api_request_defaults();
    r.messages = h;
    api_http a;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(api_build(&p, &r, &a, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "messages[0].content[0]") != NULL);
    json_decref(h);
}

int main(void)
{
    RUN(test_anthropic);
    RUN(test_openai_chat);
    RUN(test_openai_responses);
    RUN(test_gemini);
    RUN(test_errors);
    RUN(test_request_bytes_are_stable);
    return check_report();
}
