/* The decoders' jansson-free fast paths (api/decode_fast.c, base/jscan.c): jscan's
 * strictness, and the same chunks with and without the fast paths for every fixture stream
 * and for hand-made events with escapes, surrogates, odd key orders, extra keys and broken
 * JSON. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decoder.h"
#include "base/jscan.h"
#include "api/turn.h"
#include "base/buf.h"
#include "base/json.h"
#include "check.h"

static void test_jscan_walks_and_refuses(void)
{
    jscan js;
    const char *k;
    size_t kl;
    jscan_val v;
    const char *doc = " {\"a\" : \"x\\u00e9\\ud83d\\ude80\\n\", \"b\":[1,{\"c\":null}], \"d\":-1.5e3,"
                      "\"e\":true} ";
    REQUIRE(jscan_object(&js, doc, strlen(doc)));
    REQUIRE(jscan_member(&js, &k, &kl, &v) == 1);
    CHECK(jscan_key_is(k, kl, "a"));
    buf out = BUF_INIT(0);
    CHECK(jscan_string(&v, &out));
    CHECK_STR(out.data, "x\xc3\xa9\xf0\x9f\x9a\x80\n");
    REQUIRE(jscan_member(&js, &k, &kl, &v) == 1);
    CHECK(v.kind == JSCAN_ARRAY);
    REQUIRE(jscan_member(&js, &k, &kl, &v) == 1);
    CHECK(v.kind == JSCAN_NUMBER);
    REQUIRE(jscan_member(&js, &k, &kl, &v) == 1);
    CHECK(v.kind == JSCAN_TRUE);
    CHECK_INT(jscan_member(&js, &k, &kl, &v), 0);
    CHECK(jscan_done(&js));
    buf_release(&out);

    static const char *const bad[] = {
        "{\"a\":01}", "{\"a\":1.}", "{\"a\":tru}", "{\"a\":\"\x01\"}", "{\"a\":[1,]}",
        "{\"a\":1,}", "{\"a\" 1}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12G4\"}", "{\"a\":+1}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int r = 1;
        if (jscan_object(&js, bad[i], strlen(bad[i])))
            while ((r = jscan_member(&js, &k, &kl, &v)) == 1)
                ;
        CHECK(r < 0);
    }
    /* Strings that do not decode (lone surrogates, invalid UTF-8) are refused where they
     * are met, also in a member the caller would not decode. */
    static const char *const undecodable[] = { "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00x\"}",
                                               "{\"a\":\"\xff\"}", "{\"a\":[\"\xc3\"]}" };
    for (size_t i = 0; i < sizeof undecodable / sizeof undecodable[0]; i++) {
        REQUIRE(jscan_object(&js, undecodable[i], strlen(undecodable[i])));
        CHECK_INT(jscan_member(&js, &k, &kl, &v), -1);
    }
    long long n = 0;
    jscan_val num = { .kind = JSCAN_NUMBER, .start = "-42", .len = 3 };
    CHECK(jscan_int(&num, &n) && n == -42);
    jscan_val real = { .kind = JSCAN_NUMBER, .start = "4.2", .len = 3 };
    CHECK(!jscan_int(&real, &n));
}

/* Decode body (fed in 7-byte pieces) with or without the fast paths; the debug JSON. */
static char *decode(api_protocol p, const char *body, size_t len, bool fast)
{
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(p, 200, api_turn_add, &t);
    api_decoder_set_fast_paths(d, fast);
    for (size_t i = 0; i < len; i += 7)
        api_decoder_feed(d, body + i, len - i < 7 ? len - i : 7);
    api_decoder_end(d);
    json_t *j = api_turn_debug_json(&t);
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    api_decoder_free(d);
    api_turn_release(&t);
    return s;
}

static void same_both_ways(api_protocol p, const char *body, size_t len, const char *what)
{
    char *slow = decode(p, body, len, false);
    char *fast = decode(p, body, len, true);
    check_count++;
    if (!slow || !fast || strcmp(slow, fast) != 0)
        check_fail(__FILE__, __LINE__, "%s: fast path differs:\n slow %s\n fast %s", what,
                   slow ? slow : "(null)", fast ? fast : "(null)");
    free(slow);
    free(fast);
}

static void test_fixtures_same_with_and_without_fast_paths(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/providers", HEW_TEST_FIXTURES);
    DIR *dh = opendir(dir);
    REQUIRE(dh != NULL);
    struct dirent *e;
    int checked = 0;
    while ((e = readdir(dh))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".sse") != 0)
            continue;
        api_protocol p;
        if (strncmp(e->d_name, "anthropic", 9) == 0)
            p = API_PROTO_ANTHROPIC;
        else if (strncmp(e->d_name, "openai_", 7) == 0 || strncmp(e->d_name, "openrouter", 10) == 0)
            p = API_PROTO_OPENAI_CHAT;
        else
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        REQUIRE(f != NULL);
        buf body = BUF_INIT(0);
        char tmp[4096];
        size_t got;
        while ((got = fread(tmp, 1, sizeof tmp, f)) > 0)
            buf_append(&body, tmp, got);
        fclose(f);
        same_both_ways(p, body.data, body.len, e->d_name);
        buf_release(&body);
        checked++;
    }
    closedir(dh);
    CHECK(checked >= 6);
}

static void test_handmade_events_same_both_ways(void)
{
    static const char *const anthropic[] = {
        /* escapes and surrogates in text; reversed key order; thinking; tool arguments */
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"text_delta\",\"text\":\"a\\\"b\\\\c\\u003cd\\ud83d\\ude80\"}}\n\n"
        "event: content_block_delta\ndata: {\"delta\":{\"text\":\"rev\",\"type\":\"text_delta\"},"
        "\"index\":0,\"type\":\"content_block_delta\"}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        /* an extra key, a duplicate key, a wrong type, broken JSON: the general path decides */
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\",\"extra\":1}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"dup\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":\"0\","
        "\"delta\":{\"type\":\"text_delta\",\"text\":\"y\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"text_delta\",\"text\":\"z\"}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm \\n\"}}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\","
        "\"input\":{}}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\"a\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\".c\\\"}\"}}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
        "\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    };
    for (size_t i = 0; i < sizeof anthropic / sizeof anthropic[0]; i++)
        same_both_ways(API_PROTO_ANTHROPIC, anthropic[i], strlen(anthropic[i]), "anthropic case");

    static const char *const openai[] = {
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\\u00e9\\n\"},\"logprobs\":null,"
        "\"finish_reason\":null}],\"usage\":null}\n\n"
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
        "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        /* after the finish reason: the general path (usage, errors) */
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"late\"},\"finish_reason\":null}]}\n\n"
        "data: [DONE]\n\n",
        /* invalid UTF-8 in a value the fast path skips (found by the fuzzer): jansson
         * refuses the whole event, so the fast path must too */
        "data: {\"object\":\"chat.completion.chunk\",\"service_tier\":\"\x96x\",\"choices\":"
        "[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
        /* a lone surrogate escape in a value the fast path skips: valid UTF-8 bytes, but
         * jansson refuses the event, so the fast path must too */
        "data: {\"object\":\"chat.completion.chunk\",\"id\":\"c\\ud800\",\"choices\":"
        "[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"model\":\"\\udc00\",\"choices\":"
        "[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
        /* an error key, a second choice, an unknown key, content null */
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
        "{\"content\":\"a\"}}],\"error\":{\"message\":\"boom\"}}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
        "{\"content\":\"a\"}},{\"index\":1,\"delta\":{\"content\":\"b\"}}],\"x_extra\":1}\n\n"
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
        "{\"content\":null,\"reasoning_content\":\"think\"}}]}\n\n"
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
        "{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
        "data: [DONE]\n\n",
        /* numbers jansson cannot hold, in values the fast path skips (found by the
         * fuzzer): an integer beyond long long, a negative one, a real that overflows —
         * jansson refuses the event, so the fast path must too; big but fitting numbers
         * and a real that underflows to 0 are fine for both */
        "data: {\"object\":\"chat.completion.chunk\",\"created\":17574132000000000000000,"
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"created\":-9223372036854775809,"
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"x\":1.5e999,"
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"created\":9223372036854775807,"
        "\"x\":-1e-999,\"y\":12345678901234567.5e10,"
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
    };
    for (size_t i = 0; i < sizeof openai / sizeof openai[0]; i++)
        same_both_ways(API_PROTO_OPENAI_CHAT, openai[i], strlen(openai[i]), "openai case");
}

int main(void)
{
    RUN(test_jscan_walks_and_refuses);
    RUN(test_fixtures_same_with_and_without_fast_paths);
    RUN(test_handmade_events_same_both_ways);
    return check_report();
}
