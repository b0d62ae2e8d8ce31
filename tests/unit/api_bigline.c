/* api_bigline — big answers and the errors a retry would hit again, at the decoder: a
 * 2 MB tool call that arrives whole in one SSE line (Gemini's functionCall, an
 * OpenAI-compatible server's whole tool_calls) decodes, fed as libcurl hands it over; a
 * line past LIMITS_STREAM_LINE, or more tool calls than a turn holds, fails once as
 * response_too_large, not retryable, with a message that says so and what to do; a 200
 * whose body is no event stream (a web page) is not retryable either. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decoder.h"
#include "api/error.h"
#include "api/turn.h"
#include "base/limits.h"
#include "check.h"

#define FEED 16384 /* what libcurl hands over at a time (CURL_MAX_WRITE_SIZE) */

/* Decode body in FEED-byte pieces; returns the turn's debug JSON. */
static json_t *decode(api_protocol p, const char *body, size_t len)
{
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(p, 200, api_turn_add, &t);
    for (size_t at = 0; at < len && !api_decoder_finished(d); at += FEED)
        api_decoder_feed(d, body + at, len - at < FEED ? len - at : FEED);
    api_decoder_end(d);
    api_decoder_free(d);
    json_t *o = api_turn_debug_json(&t);
    api_turn_release(&t);
    return o;
}

/* n bytes of file content: lines of 63 letters and a newline. Caller frees. */
static char *content(size_t n)
{
    static const char line[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n";
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = line[i % (sizeof line - 1)];
    s[n] = '\0';
    return s;
}

/* The write_to_file arguments of a call, checked: path and content as sent. */
static void check_args(const json_t *turn, const char *want_content)
{
    const json_t *call = json_array_get(json_object_get(turn, "tool_calls"), 0);
    REQUIRE(call != NULL);
    CHECK_STR(json_string_value(json_object_get(call, "name")), "write_to_file");
    const char *raw = json_string_value(json_object_get(call, "arguments"));
    REQUIRE(raw != NULL);
    json_t *args = json_loads(raw, 0, NULL);
    REQUIRE(args != NULL);
    CHECK_STR(json_string_value(json_object_get(args, "path")), "big.txt");
    const json_t *c = json_object_get(args, "content");
    CHECK_INT(json_string_length(c), strlen(want_content));
    CHECK(json_is_string(c) && strcmp(json_string_value(c), want_content) == 0);
    json_decref(args);
}

/* Gemini: the whole functionCall in one data line of about 2.1 MB. */
static void test_gemini_2mb_call_in_one_line(void)
{
    char *text = content((size_t)2 << 20);
    json_t *chunk = json_pack(
        "{s:[{s:{s:[{s:{s:s, s:{s:s, s:s}}}], s:s}, s:s}]}", "candidates", "content", "parts",
        "functionCall", "name", "write_to_file", "args", "path", "big.txt", "content", text,
        "role", "model", "finishReason", "STOP");
    char *data = json_dumps(chunk, JSON_COMPACT);
    size_t dl = strlen(data);
    CHECK(dl > ((size_t)2 << 20)); /* one line, past the old 1 MiB cap */
    char *body = malloc(dl + 16);
    int n = snprintf(body, dl + 16, "data: %s\r\n\r\n", data);
    json_t *o = decode(API_PROTO_GEMINI, body, (size_t)n);
    CHECK(json_is_true(json_object_get(o, "stream_complete")));
    CHECK(json_is_null(json_object_get(o, "error")));
    check_args(o, text);
    json_decref(o);
    free(body);
    free(data);
    json_decref(chunk);
    free(text);
}

/* OpenAI Chat from a compatible server (Ollama): the whole tool call in one chunk. */
static void test_chat_2mb_call_in_one_line(void)
{
    char *text = content((size_t)2 << 20);
    json_t *args = json_pack("{s:s, s:s}", "path", "big.txt", "content", text);
    char *args_text = json_dumps(args, JSON_COMPACT);
    json_t *chunk = json_pack(
        "{s:[{s:i, s:{s:s, s:[{s:i, s:s, s:s, s:{s:s, s:s}}]}, s:s}]}", "choices", "index", 0,
        "delta", "role", "assistant", "tool_calls", "index", 0, "id", "call_big", "type",
        "function", "function", "name", "write_to_file", "arguments", args_text,
        "finish_reason", "tool_calls");
    char *data = json_dumps(chunk, JSON_COMPACT);
    size_t dl = strlen(data);
    char *body = malloc(dl + 32);
    int n = snprintf(body, dl + 32, "data: %s\n\ndata: [DONE]\n\n", data);
    json_t *o = decode(API_PROTO_OPENAI_CHAT, body, (size_t)n);
    CHECK(json_is_true(json_object_get(o, "stream_complete")));
    check_args(o, text);
    json_decref(o);
    free(body);
    free(data);
    json_decref(chunk);
    free(args_text);
    json_decref(args);
    free(text);
}

static void check_too_large(const json_t *o)
{
    const json_t *e = json_object_get(o, "error");
    REQUIRE(json_is_object(e));
    CHECK_STR(json_string_value(json_object_get(e, "category")), "response_too_large");
    CHECK(json_is_false(json_object_get(e, "retryable")));
    const char *m = json_string_value(json_object_get(e, "message"));
    REQUIRE(m != NULL);
    CHECK(strstr(m, "too large") != NULL);
    CHECK(strstr(m, "does not retry") != NULL);
    CHECK(strstr(m, "in parts") != NULL);
    CHECK(json_is_false(json_object_get(o, "stream_complete")));
}

/* One line a byte past the cap: a clean error as soon as it is past, never more memory. */
static void test_line_past_the_cap(void)
{
    size_t n = LIMITS_STREAM_LINE + 1;
    char *body = malloc(n + 1);
    memcpy(body, "data: {\"x\":\"", 12);
    memset(body + 12, 'a', n - 12);
    body[n] = '\0';
    json_t *o = decode(API_PROTO_GEMINI, body, n);
    check_too_large(o);
    const char *m = json_string_value(json_object_get(json_object_get(o, "error"), "message"));
    char lim[32];
    snprintf(lim, sizeof lim, "%zu bytes", (size_t)LIMITS_STREAM_LINE);
    CHECK(m && strstr(m, lim) != NULL);
    json_decref(o);

    /* Exactly at the cap is still fine (a line, then the end). */
    body[LIMITS_STREAM_LINE] = '\0';
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(API_PROTO_GEMINI, 200, api_turn_add, &t);
    for (size_t at = 0; at < LIMITS_STREAM_LINE; at += FEED)
        api_decoder_feed(d, body + at,
                         LIMITS_STREAM_LINE - at < FEED ? LIMITS_STREAM_LINE - at : FEED);
    CHECK(!api_decoder_finished(d)); /* no error yet: the line is not past the cap */
    api_decoder_free(d);
    api_turn_release(&t);
    free(body);
}

/* More tool calls than one turn may hold: too large, not a broken stream to retry. */
static void test_too_many_calls(void)
{
    size_t cap = 300 * 160 + 64;
    char *body = malloc(cap);
    size_t at = 0;
    for (int i = 0; i < 300; i++)
        at += (size_t)snprintf(body + at, cap - at,
                               "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{"
                               "\"index\":%d,\"id\":\"c%d\",\"type\":\"function\",\"function\":"
                               "{\"name\":\"read_file\",\"arguments\":\"{}\"}}]}}]}\n\n",
                               i, i);
    json_t *o = decode(API_PROTO_OPENAI_CHAT, body, at);
    check_too_large(o);
    json_decref(o);
    free(body);
}

/* A 200 whose body is a web page: the same URL gives it again, so not retryable, and the
 * message points at the base URL. */
static void test_web_page_is_not_retried(void)
{
    const char *page = "<!DOCTYPE html><html><head><title>Open WebUI</title></head><body>"
                       "</body></html>\n";
    json_t *o = decode(API_PROTO_OPENAI_CHAT, page, strlen(page));
    const json_t *e = json_object_get(o, "error");
    REQUIRE(json_is_object(e));
    CHECK(json_is_false(json_object_get(e, "retryable")));
    const char *m = json_string_value(json_object_get(e, "message"));
    CHECK(m && strstr(m, "base URL") != NULL);
    CHECK(m && strstr(m, "Open WebUI") != NULL);
    json_decref(o);
}

static void test_category_name(void)
{
    CHECK_STR(api_error_category_name(API_ERR_RESPONSE_TOO_LARGE), "response_too_large");
    api_error e;
    api_error_too_large(&e, "what it was");
    CHECK(!e.retryable);
    CHECK(strstr(e.message, "what it was") != NULL);
}

int main(void)
{
    RUN(test_gemini_2mb_call_in_one_line);
    RUN(test_chat_2mb_call_in_one_line);
    RUN(test_line_past_the_cap);
    RUN(test_too_many_calls);
    RUN(test_web_page_is_not_retried);
    RUN(test_category_name);
    return check_report();
}
