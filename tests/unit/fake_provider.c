/* Unit tests for hew-fake-provider (run as a real process through tests/support/fakeprov,
 * spoken to with libcurl): byte-exact generated streams for all four protocols, UTF-8-safe
 * deltas, fixture replay with meta status/headers, plain error responses, faults (abrupt
 * close, stall, slow first byte, malformed event), the exhausted answer, the request
 * record with masked secrets, bad-scenario errors, concurrent serving, clean shutdown, and
 * the strict default (a violation served as a 400 that uses up no response).
 * Talks only to the provider it started on 127.0.0.1; never leaves a process behind. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "fakeprov.h"

/* ---- a small libcurl client ------------------------------------------------------ */

typedef struct http_res {
    CURLcode rc;
    long status;
    buf body;
    buf headers;            /* raw header lines */
    long long t0;
    long long t_headers;    /* ms after start when the status line arrived (-1: never) */
    long long t_body;       /* ms after start when the first body byte arrived (-1: never) */
    long long t_done;
    int writes;             /* body write callbacks */
} http_res;

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    http_res *r = ud;
    if (r->t_body < 0)
        r->t_body = mono_ms() - r->t0;
    r->writes++;
    buf_append(&r->body, p, size * n);
    return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    http_res *r = ud;
    if (r->t_headers < 0)
        r->t_headers = mono_ms() - r->t0;
    buf_append(&r->headers, p, size * n);
    return size * n;
}

typedef struct http_req {
    const char *path;       /* appended to the base URL */
    const char *body;       /* POST body, or NULL for GET */
    const char *const *headers; /* NULL-terminated "Name: value" list, or NULL */
    long timeout_ms;        /* 0: 20 s */
} http_req;

static CURL *http_easy(const fakeprov *fp, const http_req *q, http_res *r,
                       struct curl_slist **hl)
{
    memset(r, 0, sizeof *r);
    buf_init(&r->body, 0);
    buf_init(&r->headers, 0);
    r->t_headers = r->t_body = -1;
    r->t0 = mono_ms();
    char url[512];
    snprintf(url, sizeof url, "%s%s", fp->url, q->path ? q->path : "/v1/messages");
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, q->timeout_ms ? q->timeout_ms : 20000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    *hl = NULL;
    for (const char *const *h = q->headers; h && *h; h++)
        *hl = curl_slist_append(*hl, *h);
    if (*hl)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hl);
    if (q->body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body);
    return c;
}

static void http_do(const fakeprov *fp, const http_req *q, http_res *r)
{
    struct curl_slist *hl;
    CURL *c = http_easy(fp, q, r, &hl);
    r->rc = curl_easy_perform(c);
    r->t_done = mono_ms() - r->t0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_cleanup(c);
    curl_slist_free_all(hl);
}

static void http_release(http_res *r)
{
    buf_release(&r->body);
    buf_release(&r->headers);
}

/* The value of header name (case-insensitive) in the raw header block, or "" */
static const char *header_of(const http_res *r, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    const char *p = r->headers.data;
    size_t n = strlen(name);
    while (p && *p) {
        const char *eol = strstr(p, "\r\n");
        if (!eol)
            break;
        if ((size_t)(eol - p) > n && strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1;
            while (*v == ' ')
                v++;
            size_t len = (size_t)(eol - v) < cap - 1 ? (size_t)(eol - v) : cap - 1;
            memcpy(out, v, len);
            out[len] = '\0';
            return out;
        }
        p = eol + 2;
    }
    return out;
}

/* These tests are about the transport (bodies, faults, records), and send requests no
 * real API would take ("{}", "not json"): the provider runs lenient, with "lenient": true
 * added to the scenario. Request validation is tested in fake_validate.c. */
static int start(fakeprov *fp, const char *scenario)
{
    json_t *sc = json_loads(scenario, 0, NULL);
    if (!json_is_object(sc)) {
        json_decref(sc);
        return fakeprov_start(fp, scenario);
    }
    json_object_set_new(sc, "lenient", json_true());
    char *text = json_dumps(sc, JSON_PRESERVE_ORDER);
    json_decref(sc);
    int rc = text ? fakeprov_start(fp, text) : -1;
    free(text);
    return rc;
}

static void stop_clean(fakeprov *fp)
{
    long long t = mono_ms();
    CHECK_INT(fakeprov_stop_status(fp), 0);
    CHECK(mono_ms() - t < 5000);
}

/* Every "data:" payload parses as JSON (except [DONE]); returns how many did not. */
static int bad_payloads(const char *body, int *count)
{
    int bad = 0;
    *count = 0;
    const char *p = body;
    while (p && *p) {
        const char *eol = strpbrk(p, "\r\n");
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len >= 5 && strncmp(p, "data:", 5) == 0) {
            const char *d = p + 5;
            size_t dl = len - 5;
            if (dl && *d == ' ')
                d++, dl--;
            if (!(dl == 6 && strncmp(d, "[DONE]", 6) == 0)) {
                (*count)++;
                json_t *j = json_loadb(d, dl, 0, NULL);
                if (!j)
                    bad++;
                json_decref(j);
            }
        }
        if (!eol)
            break;
        p = eol + 1;
    }
    return bad;
}

/* ---- byte-exact generated streams ------------------------------------------------ */

#define CASE_FIELDS                                                                        \
    "\"text\": \"Hi \u2014 ok\", \"reasoning\": \"Think.\", "                               \
    "\"tool_calls\": [{\"id\": \"call_1\", \"name\": \"read_file\", "                       \
    "\"arguments\": {\"path\": \"a.c\"}}], "                                                \
    "\"usage\": {\"input\": 10, \"output\": 5, \"cache_read\": 2, \"cache_write\": 1, "     \
    "\"reasoning\": 3}, \"delta_size\": 4"

#define AE(name, json) "event: " name "\ndata: " json "\n\n"
#define ADELTA(i, type, key, val)                                                          \
    AE("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" #i            \
                              ",\"delta\":{\"type\":\"" type "\",\"" key "\":\"" val "\"}}")

static const char expect_anthropic[] =
    AE("message_start",
       "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_fake_1\",\"type\":\"message\","
       "\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],"
       "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,"
       "\"cache_creation_input_tokens\":1,\"cache_read_input_tokens\":2,"
       "\"output_tokens\":1}}}")
    AE("content_block_start",
       "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":"
       "\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}")
    AE("ping", "{\"type\": \"ping\"}")
    ADELTA(0, "thinking_delta", "thinking", "Thin")
    ADELTA(0, "thinking_delta", "thinking", "k.")
    ADELTA(0, "signature_delta", "signature", "sig_fake_fbf5b65cf27ea271") /* hash of "Think." */
    AE("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
    AE("content_block_start",
       "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\","
       "\"text\":\"\"}}")
    ADELTA(1, "text_delta", "text", "Hi ")
    ADELTA(1, "text_delta", "text", "\xe2\x80\x94 ")
    ADELTA(1, "text_delta", "text", "ok")
    AE("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}")
    AE("content_block_start",
       "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":"
       "\"tool_use\",\"id\":\"call_1\",\"name\":\"read_file\",\"input\":{}}}")
    ADELTA(2, "input_json_delta", "partial_json", "")
    ADELTA(2, "input_json_delta", "partial_json", "{\\\"pa")
    ADELTA(2, "input_json_delta", "partial_json", "th\\\":")
    ADELTA(2, "input_json_delta", "partial_json", "\\\"a.c")
    ADELTA(2, "input_json_delta", "partial_json", "\\\"}")
    AE("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":2}")
    AE("message_delta",
       "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
       "\"stop_sequence\":null},\"usage\":{\"input_tokens\":10,"
       "\"cache_creation_input_tokens\":1,\"cache_read_input_tokens\":2,"
       "\"output_tokens\":5}}")
    AE("message_stop", "{\"type\":\"message_stop\"}");

#define CHUNK(delta, finish)                                                               \
    "data: {\"id\":\"chatcmpl-fake2\",\"object\":\"chat.completion.chunk\","               \
    "\"created\":1757412381,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":"      \
    delta ",\"logprobs\":null,\"finish_reason\":" finish "}],\"usage\":null}\n\n"

static const char expect_chat[] =
    CHUNK("{\"role\":\"assistant\",\"content\":\"\"}", "null")
    CHUNK("{\"content\":null,\"reasoning_content\":\"Thin\"}", "null")
    CHUNK("{\"content\":null,\"reasoning_content\":\"k.\"}", "null")
    CHUNK("{\"content\":\"Hi \"}", "null")
    CHUNK("{\"content\":\"\xe2\x80\x94 \"}", "null")
    CHUNK("{\"content\":\"ok\"}", "null")
    CHUNK("{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
          "\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}", "null")
    CHUNK("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"pa\"}}]}", "null")
    CHUNK("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\"}}]}", "null")
    CHUNK("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"a.c\"}}]}", "null")
    CHUNK("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"}\"}}]}", "null")
    CHUNK("{}", "\"tool_calls\"")
    "data: {\"id\":\"chatcmpl-fake2\",\"object\":\"chat.completion.chunk\","
    "\"created\":1757412381,\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{"
    "\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15,"
    "\"prompt_tokens_details\":{\"cached_tokens\":2,\"cache_write_tokens\":1},"
    "\"completion_tokens_details\":{\"reasoning_tokens\":3}}}\n\n"
    "data: [DONE]\n\n";

#define RE(type, seq, rest)                                                                \
    "event: " type "\ndata: {\"type\":\"" type "\",\"sequence_number\":" #seq rest "}\n\n"
#define RESP_OBJ(status, output, usage)                                                    \
    "{\"id\":\"resp_fake_3\",\"object\":\"response\",\"created_at\":1757413900,"            \
    "\"status\":\"" status "\",\"error\":null,\"incomplete_details\":null,"                \
    "\"model\":\"gpt-5\",\"output\":" output ",\"usage\":" usage "}"
#define RS_DONE "{\"id\":\"rs_fake_3\",\"type\":\"reasoning\",\"summary\":[{\"type\":"       \
                "\"summary_text\",\"text\":\"Think.\"}]}"
#define TEXT_PART(t) "{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"" t "\"}"
#define MSG_DONE "{\"id\":\"msg_fake_3\",\"type\":\"message\",\"status\":\"completed\","    \
                 "\"content\":[" TEXT_PART("Hi \xe2\x80\x94 ok") "],\"role\":\"assistant\"}"
#define FC(status, args) "{\"id\":\"fc_fake_3_0\",\"type\":\"function_call\",\"status\":\""  \
                 status "\",\"arguments\":\"" args "\",\"call_id\":\"call_1\",\"name\":\"read_file\"}"
#define RS_ID ",\"item_id\":\"rs_fake_3\",\"output_index\":0,\"summary_index\":0"
#define MSG_ID ",\"item_id\":\"msg_fake_3\",\"output_index\":1,\"content_index\":0"
#define FC_ID ",\"item_id\":\"fc_fake_3_0\",\"output_index\":2"

static const char expect_responses[] =
    RE("response.created", 0, ",\"response\":" RESP_OBJ("in_progress", "[]", "null"))
    RE("response.in_progress", 1, ",\"response\":" RESP_OBJ("in_progress", "[]", "null"))
    RE("response.output_item.added", 2,
       ",\"output_index\":0,\"item\":{\"id\":\"rs_fake_3\",\"type\":\"reasoning\",\"summary\":[]}")
    RE("response.reasoning_summary_part.added", 3,
       RS_ID ",\"part\":{\"type\":\"summary_text\",\"text\":\"\"}")
    RE("response.reasoning_summary_text.delta", 4, RS_ID ",\"delta\":\"Thin\"")
    RE("response.reasoning_summary_text.delta", 5, RS_ID ",\"delta\":\"k.\"")
    RE("response.reasoning_summary_text.done", 6, RS_ID ",\"text\":\"Think.\"")
    RE("response.reasoning_summary_part.done", 7,
       RS_ID ",\"part\":{\"type\":\"summary_text\",\"text\":\"Think.\"}")
    RE("response.output_item.done", 8, ",\"output_index\":0,\"item\":" RS_DONE)
    RE("response.output_item.added", 9,
       ",\"output_index\":1,\"item\":{\"id\":\"msg_fake_3\",\"type\":\"message\","
       "\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}")
    RE("response.content_part.added", 10, MSG_ID ",\"part\":" TEXT_PART(""))
    RE("response.output_text.delta", 11, MSG_ID ",\"delta\":\"Hi \",\"logprobs\":[]")
    RE("response.output_text.delta", 12, MSG_ID ",\"delta\":\"\xe2\x80\x94 \",\"logprobs\":[]")
    RE("response.output_text.delta", 13, MSG_ID ",\"delta\":\"ok\",\"logprobs\":[]")
    RE("response.output_text.done", 14,
       MSG_ID ",\"text\":\"Hi \xe2\x80\x94 ok\",\"logprobs\":[]")
    RE("response.content_part.done", 15, MSG_ID ",\"part\":" TEXT_PART("Hi \xe2\x80\x94 ok"))
    RE("response.output_item.done", 16, ",\"output_index\":1,\"item\":" MSG_DONE)
    RE("response.output_item.added", 17, ",\"output_index\":2,\"item\":" FC("in_progress", ""))
    RE("response.function_call_arguments.delta", 18, FC_ID ",\"delta\":\"{\\\"pa\"")
    RE("response.function_call_arguments.delta", 19, FC_ID ",\"delta\":\"th\\\":\"")
    RE("response.function_call_arguments.delta", 20, FC_ID ",\"delta\":\"\\\"a.c\"")
    RE("response.function_call_arguments.delta", 21, FC_ID ",\"delta\":\"\\\"}\"")
    RE("response.function_call_arguments.done", 22,
       FC_ID ",\"arguments\":\"{\\\"path\\\":\\\"a.c\\\"}\"")
    RE("response.output_item.done", 23,
       ",\"output_index\":2,\"item\":" FC("completed", "{\\\"path\\\":\\\"a.c\\\"}"))
    RE("response.completed", 24,
       ",\"response\":" RESP_OBJ(
           "completed",
           "[" RS_DONE "," MSG_DONE "," FC("completed", "{\\\"path\\\":\\\"a.c\\\"}") "]",
           "{\"input_tokens\":10,\"input_tokens_details\":{\"cached_tokens\":2},"
           "\"output_tokens\":5,\"output_tokens_details\":{\"reasoning_tokens\":3},"
           "\"total_tokens\":15}"));

#define GCHUNK(parts, finish)                                                              \
    "data: {\"candidates\": [{\"content\": {\"parts\": " parts ",\"role\": \"model\"}"      \
    finish ",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 10,"                  \
    "\"candidatesTokenCount\": 5,\"totalTokenCount\": 18,\"cachedContentTokenCount\": 2,"   \
    "\"thoughtsTokenCount\": 3},\"modelVersion\": \"gemini-2.5-pro\","                     \
    "\"responseId\": \"fake-response-4\"}\r\n\r\n"

static const char expect_gemini[] =
    GCHUNK("[{\"text\": \"Thin\",\"thought\": true}]", "")
    GCHUNK("[{\"text\": \"k.\",\"thought\": true}]", "")
    GCHUNK("[{\"text\": \"Hi \"}]", "")
    GCHUNK("[{\"text\": \"\xe2\x80\x94 \"}]", "")
    GCHUNK("[{\"text\": \"ok\"}]", "")
    GCHUNK("[{\"functionCall\": {\"name\": \"read_file\",\"args\": {\"path\": \"a.c\"}}}]", "")
    GCHUNK("[{\"text\": \"\"}]", ",\"finishReason\": \"STOP\"");

static void test_generated_byte_exact(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": ["
                       "{\"protocol\": \"anthropic\", " CASE_FIELDS "},"
                       "{\"protocol\": \"openai-chat\", " CASE_FIELDS "},"
                       "{\"protocol\": \"openai-responses\", " CASE_FIELDS "},"
                       "{\"protocol\": \"gemini\", " CASE_FIELDS "}]}") == 0);
    struct {
        const char *path, *expect, *ctype;
        size_t len;
    } cases[] = {
        {"/v1/messages", expect_anthropic, "text/event-stream; charset=utf-8",
         sizeof expect_anthropic - 1},
        {"/v1/chat/completions", expect_chat, "text/event-stream; charset=utf-8",
         sizeof expect_chat - 1},
        {"/v1/responses", expect_responses, "text/event-stream; charset=utf-8",
         sizeof expect_responses - 1},
        {"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", expect_gemini,
         "text/event-stream", sizeof expect_gemini - 1},
    };
    for (size_t i = 0; i < 4; i++) {
        http_res r;
        http_do(&fp, &(http_req){.path = cases[i].path, .body = "{}"}, &r);
        CHECK_INT(r.rc, CURLE_OK);
        CHECK_INT(r.status, 200);
        CHECK_MEM(r.body.data, r.body.len, cases[i].expect, cases[i].len);
        if (r.body.len != cases[i].len || memcmp(r.body.data, cases[i].expect, r.body.len))
            fprintf(stderr, "--- got (case %zu):\n%s\n--- expected:\n%s\n", i,
                    r.body.data ? r.body.data : "", cases[i].expect);
        char v[128];
        CHECK_STR(header_of(&r, "content-type", v, sizeof v), cases[i].ctype);
        CHECK_STR(header_of(&r, "transfer-encoding", v, sizeof v), "chunked");
        int n = 0;
        CHECK_INT(bad_payloads(r.body.data ? r.body.data : "", &n), 0);
        CHECK(n >= 7);
        http_release(&r);
    }
    stop_clean(&fp);
}

/* Natural stop reasons and the no-usage / no-tools shapes. */
static void test_generated_defaults(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": ["
                       "{\"protocol\": \"openai-chat\", \"text\": \"ok\"},"
                       "{\"protocol\": \"anthropic\", \"deltas\": [\"a\", \"bc\"], "
                       "\"stop_reason\": \"max_tokens\"},"
                       "{\"protocol\": \"openai-responses\", \"text\": \"x\", "
                       "\"stop_reason\": \"incomplete\"}]}") == 0);
    http_res r;
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK(strstr(r.body.data, "\"finish_reason\":\"stop\"") != NULL);
    CHECK(strstr(r.body.data, "\"usage\"") == NULL); /* no usage given: none sent */
    CHECK(strstr(r.body.data, "data: [DONE]\n\n") != NULL);
    http_release(&r);
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK(strstr(r.body.data, "\"text_delta\",\"text\":\"a\"}") != NULL);
    CHECK(strstr(r.body.data, "\"text_delta\",\"text\":\"bc\"}") != NULL);
    CHECK(strstr(r.body.data, "\"stop_reason\":\"max_tokens\"") != NULL);
    http_release(&r);
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK(strstr(r.body.data, "event: response.incomplete\n") != NULL);
    CHECK(strstr(r.body.data, "\"incomplete_details\":{\"reason\":\"max_output_tokens\"}") !=
          NULL);
    http_release(&r);
    stop_clean(&fp);
}

/* ---- UTF-8 deltas ---------------------------------------------------------------- */

static bool valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n)
            return false;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

static void test_utf8_deltas(void)
{
    /* 1-, 2-, 3- and 4-byte characters next to each other */
    const char *text = "h\xc3\xa9llo w\xc3\xb6rld \xf0\x9f\x9a\x80\xf0\x9f\x9a\x80 ok \xe2\x80\x94 "
                       "\xc3\xb1\xe4\xb8\xad\xe6\x96\x87";
    json_t *jt = json_string(text);
    char *quoted = json_dumps(jt, JSON_ENCODE_ANY);
    json_decref(jt);
    buf sc = BUF_INIT(0);
    buf_puts(&sc, "{\"responses\": [");
    static const int sizes[] = {1, 2, 3, 5, 7};
    for (size_t i = 0; i < 5; i++)
        buf_printf(&sc, "%s{\"protocol\": \"openai-chat\", \"text\": %s, \"delta_size\": %d}",
                   i ? "," : "", quoted, sizes[i]);
    buf_puts(&sc, "]}");
    free(quoted);
    fakeprov fp;
    int started = start(&fp, sc.data);
    buf_release(&sc);
    REQUIRE(started == 0);
    for (size_t i = 0; i < 5; i++) {
        http_res r;
        http_do(&fp, &(http_req){.path = "/v1/chat/completions", .body = "{}"}, &r);
        REQUIRE(r.rc == CURLE_OK);
        buf all = BUF_INIT(0);
        buf_puts(&all, "");
        int pieces = 0;
        const char *p = r.body.data;
        while ((p = strstr(p, "data: {"))) {
            const char *eol = strchr(p, '\n');
            json_t *chunk = json_loadb(p + 6, (size_t)(eol - p - 6), 0, NULL);
            CHECK(chunk != NULL);
            json_t *content = json_object_get(
                json_object_get(json_array_get(json_object_get(chunk, "choices"), 0), "delta"),
                "content");
            if (json_is_string(content) && json_string_length(content) > 0) {
                size_t len = json_string_length(content);
                const unsigned char *s = (const unsigned char *)json_string_value(content);
                CHECK(valid_utf8(s, len));
                /* a piece is longer than delta_size only when it is one whole character */
                if (len > (size_t)sizes[i])
                    CHECK(len <= 4 && valid_utf8(s, len) && (s[0] & 0xC0) == 0xC0);
                buf_append(&all, s, len);
                pieces++;
            }
            json_decref(chunk);
            p = eol;
        }
        CHECK_STR(all.data, text);
        CHECK(pieces >= (int)(strlen(text) / 7));
        buf_release(&all);
        http_release(&r);
    }
    stop_clean(&fp);
}

/* ---- replay ---------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf b = BUF_INIT(0);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_append(&b, tmp, n);
    fclose(f);
    return buf_detach(&b, len);
}

static void test_replay_fixture(void)
{
    fakeprov fp;
    REQUIRE(start(&fp,
                  "{\"responses\": ["
                  "{\"replay\": \"providers/anthropic_text_tool_use.sse\"},"
                  "{\"replay\": \"@FIXTURES@/providers/gemini_function_call.sse\", "
                  "\"splits\": [1, 7, 300], \"delay_ms\": 40},"
                  "{\"replay\": \"providers/openai_usage_final_chunk.sse\", \"chunk_size\": 5, "
                  "\"status\": 201, \"headers\": {\"x-fake\": \"yes\"}}]}") == 0);
    const char *files[] = {HEW_TEST_FIXTURES "/providers/anthropic_text_tool_use.sse",
                           HEW_TEST_FIXTURES "/providers/gemini_function_call.sse",
                           HEW_TEST_FIXTURES "/providers/openai_usage_final_chunk.sse"};
    for (size_t i = 0; i < 3; i++) {
        size_t len = 0;
        char *want = slurp(files[i], &len);
        REQUIRE(want != NULL);
        http_res r;
        http_do(&fp, &(http_req){.body = "{}"}, &r);
        CHECK_INT(r.rc, CURLE_OK);
        CHECK_MEM(r.body.data, r.body.len, want, len);
        char v[128];
        if (i == 0) {
            CHECK_INT(r.status, 200);
            CHECK_STR(header_of(&r, "request-id", v, sizeof v), "req_011CXqN3bVfK7yR2pT9sWmLa");
            CHECK_STR(header_of(&r, "content-type", v, sizeof v),
                      "text/event-stream; charset=utf-8");
            CHECK_STR(header_of(&r, "cache-control", v, sizeof v), "no-cache");
        } else if (i == 1) {
            CHECK_INT(r.status, 200);
            CHECK_STR(header_of(&r, "content-type", v, sizeof v), "text/event-stream");
            CHECK_STR(header_of(&r, "server", v, sizeof v), "scaffolding on HTTPServer2");
            CHECK(r.writes >= 4);       /* 1 | 6 | 293 | rest, 40 ms apart */
            CHECK(r.t_done >= 3 * 40 - 10);
        } else {
            CHECK_INT(r.status, 201); /* the entry's status and headers win over the meta */
            CHECK_STR(header_of(&r, "x-fake", v, sizeof v), "yes");
            CHECK_STR(header_of(&r, "x-request-id", v, sizeof v), "");
        }
        free(want);
        http_release(&r);
    }
    stop_clean(&fp);
}

/* ---- plain error responses ------------------------------------------------------- */

static void test_error_responses(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": ["
                       "{\"status\": 429, \"headers\": {\"retry-after\": \"2\"}, \"body\": "
                       "{\"type\": \"error\", \"error\": {\"type\": \"rate_limit_error\", "
                       "\"message\": \"slow down\"}}},"
                       "{\"body_file\": \"providers/error_overloaded_529.json\"},"
                       "{\"status\": 502, \"body\": \"<html>bad gateway</html>\"}]}") == 0);
    http_res r;
    char v[128];
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK_INT(r.rc, CURLE_OK);
    CHECK_INT(r.status, 429);
    CHECK_STR(header_of(&r, "retry-after", v, sizeof v), "2");
    CHECK_STR(header_of(&r, "content-type", v, sizeof v), "application/json");
    CHECK(header_of(&r, "content-length", v, sizeof v)[0] != '\0');
    json_t *j = json_loadb(r.body.data, r.body.len, 0, NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "error"), "type")),
              "rate_limit_error");
    json_decref(j);
    http_release(&r);

    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK_INT(r.status, 529);
    CHECK_STR(header_of(&r, "x-should-retry", v, sizeof v), "true");
    size_t len;
    char *want = slurp(HEW_TEST_FIXTURES "/providers/error_overloaded_529.json", &len);
    CHECK_MEM(r.body.data, r.body.len, want, len);
    free(want);
    http_release(&r);

    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK_INT(r.status, 502);
    CHECK_STR(header_of(&r, "content-type", v, sizeof v), "text/plain; charset=utf-8");
    CHECK_STR(r.body.data, "<html>bad gateway</html>");
    http_release(&r);
    stop_clean(&fp);
}

/* ---- faults ---------------------------------------------------------------------- */

static void test_close_after_bytes(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": ["
                       "{\"protocol\": \"anthropic\", \"id\": \"msg_same\", "
                       "\"text\": \"abcdefghijklmnopqrstuvwxyz\"},"
                       "{\"protocol\": \"anthropic\", \"id\": \"msg_same\", "
                       "\"text\": \"abcdefghijklmnopqrstuvwxyz\", \"close_after_bytes\": 100},"
                       "{\"replay\": \"providers/openai_usage_final_chunk.sse\", "
                       "\"close_after_bytes\": 333, \"chunk_size\": 50},"
                       "{\"status\": 500, \"body\": \"0123456789\", \"close_after_bytes\": 4}]}") ==
            0);
    http_res full, cut;
    http_do(&fp, &(http_req){.body = "{}"}, &full);
    CHECK_INT(full.rc, CURLE_OK);
    REQUIRE(full.body.len > 100);
    http_do(&fp, &(http_req){.body = "{}"}, &cut);
    CHECK(cut.rc != CURLE_OK);
    CHECK_INT(cut.status, 200);
    CHECK_INT(cut.body.len, 100);
    CHECK_MEM(cut.body.data, cut.body.len, full.body.data, 100);
    /* the same id and model, so the prefixes are comparable */
    http_release(&full);
    http_release(&cut);

    http_do(&fp, &(http_req){.body = "{}"}, &cut);
    CHECK(cut.rc != CURLE_OK);
    CHECK_INT(cut.body.len, 333);
    size_t len;
    char *want = slurp(HEW_TEST_FIXTURES "/providers/openai_usage_final_chunk.sse", &len);
    CHECK_MEM(cut.body.data, cut.body.len, want, 333);
    free(want);
    http_release(&cut);

    http_do(&fp, &(http_req){.body = "{}"}, &cut); /* Content-Length 10, only 4 sent */
    CHECK(cut.rc != CURLE_OK);
    CHECK_INT(cut.body.len, 4);
    http_release(&cut);
    stop_clean(&fp);
}

static int thread_count(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    int n = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Threads:", 8) == 0)
            n = (int)strtol(line + 8, NULL, 10);
    fclose(f);
    return n;
}

static void test_stall_and_delays(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": ["
                       "{\"protocol\": \"openai-chat\", \"text\": \"some text to stream\", "
                       "\"stall_after_bytes\": 50, \"stall_ms\": 1000},"
                       "{\"protocol\": \"openai-chat\", \"text\": \"x\", "
                       "\"delay_first_byte_ms\": 300},"
                       "{\"protocol\": \"openai-chat\", \"text\": \"x\", "
                       "\"delay_first_byte_ms\": 1000, \"headers_first\": true},"
                       "{\"protocol\": \"openai-chat\", \"text\": \"x\", "
                       "\"stall_after_bytes\": 10, \"stall_ms\": 600000},"
                       "{\"protocol\": \"openai-chat\", \"text\": \"after\"},"
                       "{\"protocol\": \"openai-chat\", \"text\": \"x\", "
                       "\"stall_after_bytes\": 10, \"stall_ms\": 600000}]}") == 0);
    http_res r;
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK_INT(r.rc, CURLE_OK);
    CHECK(r.t_body >= 0 && r.t_body < 700);   /* the first 50 bytes come at once */
    CHECK(r.t_done >= 990);                   /* then a 1 s pause */
    int n = 0;
    CHECK_INT(bad_payloads(r.body.data, &n), 0);
    http_release(&r);

    http_do(&fp, &(http_req){.body = "{}"}, &r); /* headers wait too */
    CHECK_INT(r.rc, CURLE_OK);
    CHECK(r.t_headers >= 290);
    http_release(&r);

    http_do(&fp, &(http_req){.body = "{}"}, &r); /* headers first, then a slow first byte */
    CHECK_INT(r.rc, CURLE_OK);
    CHECK(r.t_headers >= 0 && r.t_headers < 700);
    CHECK(r.t_body >= 990);
    http_release(&r);

    /* A client that gives up during a 10-minute stall: the stall ends with it. */
    int idle = thread_count(fp.pid);
    http_do(&fp, &(http_req){.body = "{}", .timeout_ms = 300}, &r);
    CHECK_INT(r.rc, CURLE_OPERATION_TIMEDOUT);
    CHECK_INT(r.body.len, 10);
    http_release(&r);
    long long t = mono_ms();
    while (thread_count(fp.pid) > idle && mono_ms() - t < 3000) {
        struct timespec nap = {0, 20 * 1000000L};
        nanosleep(&nap, NULL);
    }
    CHECK(thread_count(fp.pid) <= idle);

    http_do(&fp, &(http_req){.body = "{}"}, &r); /* the next request is served normally */
    CHECK_INT(r.rc, CURLE_OK);
    CHECK(strstr(r.body.data, "\"after\"") != NULL);
    http_release(&r);

    /* Shutdown during a stall is prompt: start a request in the background, then stop. */
    struct curl_slist *hl;
    http_res bg;
    CURL *c = http_easy(&fp, &(http_req){.body = "{}"}, &bg, &hl);
    CURLM *m = curl_multi_init();
    curl_multi_add_handle(m, c);
    int running = 1;
    t = mono_ms();
    while (running && bg.body.len < 10 && mono_ms() - t < 5000) {
        curl_multi_perform(m, &running);
        curl_multi_poll(m, NULL, 0, 50, NULL);
    }
    CHECK_INT(bg.body.len, 10);
    stop_clean(&fp); /* < 5 s, exit 0 */
    curl_multi_remove_handle(m, c);
    curl_easy_cleanup(c);
    curl_multi_cleanup(m);
    curl_slist_free_all(hl);
    http_release(&bg);
}

static void test_malformed(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": ["
                       "{\"protocol\": \"anthropic\", \"text\": \"hello\", \"malformed\": true},"
                       "{\"protocol\": \"gemini\", \"text\": \"hello\", \"malformed\": 0}]}") == 0);
    http_res r;
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    int n = 0;
    CHECK_INT(bad_payloads(r.body.data, &n), 1);
    /* injected right after message_start, with an event name like its neighbour */
    const char *second = strstr(r.body.data, "\n\n");
    REQUIRE(second != NULL);
    CHECK(strncmp(second + 2, "event: content_block_start\ndata: {\"fake_malformed\": tru\n\n",
                  57) == 0);
    http_release(&r);
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK_INT(bad_payloads(r.body.data, &n), 1);
    CHECK(strncmp(r.body.data, "data: {\"fake_malformed\": tru\r\n\r\n", 32) == 0);
    http_release(&r);
    stop_clean(&fp);
}

/* ---- exhausted, recording, concurrency ------------------------------------------- */

static void test_exhausted(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": [{\"protocol\": \"openai-chat\", \"text\": \"one\"}]}") ==
            0);
    http_res r;
    http_do(&fp, &(http_req){.body = "{}"}, &r);
    CHECK_INT(r.status, 200);
    http_release(&r);
    http_do(&fp, &(http_req){.body = "{\"again\": true}"}, &r);
    CHECK_INT(r.rc, CURLE_OK);
    CHECK_INT(r.status, 500);
    json_t *j = json_loadb(r.body.data, r.body.len, 0, NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "error"), "type")),
              "fake_provider_exhausted");
    json_decref(j);
    http_release(&r);
    json_t *reqs = fakeprov_requests(&fp);
    CHECK_INT(json_array_size(reqs), 2);
    CHECK(json_is_true(json_object_get(json_object_get(json_array_get(reqs, 1), "body"), "again")));
    json_decref(reqs);
    stop_clean(&fp);
}

static void test_recording(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": [{\"protocol\": \"gemini\", \"text\": \"a\"},"
                       "{\"status\": 200, \"body\": \"ok\"}, {\"status\": 204}]}") == 0);
    const char *h1[] = {"X-Goog-Api-Key: AIzaSyD-secretsecretsecret",
                        "Authorization: Bearer sk-live-abcdefghijklmnop", "X-Api-Key: short",
                        "api-key: azure-key-0123456789", "Content-Type: application/json",
                        "X-Custom: Keep Me", NULL};
    http_res r;
    http_do(&fp,
            &(http_req){.path = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
                        .body = "{\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": "
                                "\"hi \\u00e9\"}]}]}",
                        .headers = h1},
            &r);
    CHECK_INT(r.rc, CURLE_OK);
    http_release(&r);
    http_do(&fp, &(http_req){.path = "/v1/chat/completions", .body = "not json"}, &r);
    http_release(&r);
    http_do(&fp, &(http_req){.path = "/health"}, &r);
    CHECK_INT(r.status, 204);
    http_release(&r);

    json_t *reqs = fakeprov_requests(&fp);
    REQUIRE(json_array_size(reqs) == 3);
    json_t *a = json_array_get(reqs, 0);
    CHECK_INT(json_integer_value(json_object_get(a, "index")), 0);
    CHECK_STR(json_string_value(json_object_get(a, "method")), "POST");
    CHECK_STR(json_string_value(json_object_get(a, "path")),
              "/v1beta/models/gemini-2.5-pro:streamGenerateContent");
    CHECK_STR(json_string_value(json_object_get(a, "query")), "alt=sse");
    json_t *h = json_object_get(a, "headers");
    CHECK_STR(json_string_value(json_object_get(h, "x-goog-api-key")), "AIz***");
    CHECK_STR(json_string_value(json_object_get(h, "authorization")), "Bearer sk-***");
    CHECK_STR(json_string_value(json_object_get(h, "x-api-key")), "***");
    CHECK_STR(json_string_value(json_object_get(h, "api-key")), "azu***");
    CHECK_STR(json_string_value(json_object_get(h, "x-custom")), "Keep Me");
    CHECK_STR(json_string_value(json_object_get(h, "content-type")), "application/json");
    json_t *want = json_loads("{\"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": "
                              "\"hi \\u00e9\"}]}]}",
                              0, NULL);
    CHECK(json_equal(json_object_get(a, "body"), want));
    json_decref(want);
    json_t *b = json_array_get(reqs, 1);
    CHECK_INT(json_integer_value(json_object_get(b, "index")), 1);
    CHECK(json_is_null(json_object_get(b, "query")));
    CHECK_STR(json_string_value(json_object_get(b, "body")), "not json");
    json_t *c = json_array_get(reqs, 2);
    CHECK_STR(json_string_value(json_object_get(c, "method")), "GET");
    CHECK(json_is_null(json_object_get(c, "body")));
    /* no secret reaches the record file */
    size_t len;
    char *raw = slurp(fp.record_path, &len);
    CHECK(raw && !strstr(raw, "secretsecret") && !strstr(raw, "abcdefghijklmnop") &&
          !strstr(raw, "short") && !strstr(raw, "0123456789"));
    free(raw);
    json_decref(reqs);
    stop_clean(&fp);
}

static void test_concurrent(void)
{
    fakeprov fp;
    REQUIRE(start(&fp, "{\"responses\": ["
                       "{\"protocol\": \"openai-chat\", \"text\": \"slow\", "
                       "\"delay_first_byte_ms\": 2000},"
                       "{\"protocol\": \"openai-chat\", \"text\": \"fast\"}]}") == 0);
    struct curl_slist *hl;
    http_res slow;
    CURL *c = http_easy(&fp, &(http_req){.body = "{}"}, &slow, &hl);
    CURLM *m = curl_multi_init();
    curl_multi_add_handle(m, c);
    int running = 1;
    long long t = mono_ms();
    json_t *reqs = NULL;
    /* wait until the slow request has been taken (recorded) */
    while (mono_ms() - t < 5000) {
        curl_multi_perform(m, &running);
        curl_multi_poll(m, NULL, 0, 20, NULL);
        json_decref(reqs);
        reqs = fakeprov_requests(&fp);
        if (json_array_size(reqs) == 1)
            break;
    }
    json_decref(reqs);
    http_res fast;
    http_do(&fp, &(http_req){.body = "{}"}, &fast);
    CHECK_INT(fast.rc, CURLE_OK);
    CHECK(strstr(fast.body.data, "\"fast\"") != NULL);
    CHECK(mono_ms() - t < 1500); /* served while the first one still waits */
    while (running && mono_ms() - t < 5000) {
        curl_multi_perform(m, &running);
        curl_multi_poll(m, NULL, 0, 50, NULL);
    }
    CHECK(strstr(slow.body.data ? slow.body.data : "", "\"slow\"") != NULL);
    curl_multi_remove_handle(m, c);
    curl_easy_cleanup(c);
    curl_multi_cleanup(m);
    curl_slist_free_all(hl);
    http_release(&slow);
    http_release(&fast);
    stop_clean(&fp);
}

/* ---- bad scenarios --------------------------------------------------------------- */

/* Run the provider on scenario text (written to a temp file); returns the exit status
 * and the stderr text (caller frees). */
static int run_bad(const char *scenario, char **err_out)
{
    char dir[] = "/tmp/hew-fake-bad.XXXXXX";
    *err_out = NULL;
    if (!mkdtemp(dir))
        return -1;
    char path[128];
    snprintf(path, sizeof path, "%s/scenario.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(scenario, f);
    fclose(f);
    int pe[2];
    if (pipe(pe) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pe[1], STDERR_FILENO);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        close(pe[0]);
        char *argv[] = {(char *)HEW_FAKE_PROVIDER, "--scenario", path, "--quiet", NULL};
        execv(HEW_FAKE_PROVIDER, argv);
        _exit(127);
    }
    close(pe[1]);
    buf b = BUF_INIT(0);
    buf_puts(&b, "");
    char tmp[1024];
    long long t = mono_ms();
    for (;;) {
        struct pollfd pf = {.fd = pe[0], .events = POLLIN};
        if (poll(&pf, 1, 5000) <= 0 || mono_ms() - t > 5000) {
            kill(pid, SIGKILL); /* it started serving: not what we expect */
            break;
        }
        ssize_t n = read(pe[0], tmp, sizeof tmp);
        if (n <= 0)
            break;
        buf_append(&b, tmp, (size_t)n);
    }
    close(pe[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    unlink(path);
    rmdir(dir);
    *err_out = buf_detach(&b, NULL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_bad_scenarios(void)
{
    struct {
        const char *scenario, *needle;
    } cases[] = {
        {"{\"responses\": [{\"protocol\": \"anthropic\"}, {\"status\": 500}, "
         "{\"protocol\": \"foo\"}]}",
         "scenario.json: responses[2].protocol: unknown protocol \"foo\" \xe2\x80\x94 use "
         "anthropic, openai-chat, openai-responses or gemini"},
        {"{\"responses\": [", "scenario.json: line"},
        {"{\"responses\": [{\"replay\": \"no/such/file.sse\"}]}",
         "responses[0].replay: cannot open"},
        {"{\"responses\": [{\"protocol\": \"gemini\", \"dleay_ms\": 5}]}",
         "responses[0]: unknown key \"dleay_ms\""},
        {"{\"responses\": [{\"protocol\": \"openai-chat\", \"delay_ms\": -1}]}",
         "responses[0].delay_ms: must be a whole number"},
        {"{\"responses\": [{\"protocol\": \"openai-chat\", \"tool_calls\": [{\"id\": \"x\"}]}]}",
         "responses[0].tool_calls[0]: missing \"name\""},
        {"{\"responses\": [{\"protocol\": \"gemini\", \"tool_calls\": [{\"name\": \"x\", "
         "\"arguments\": \"{oops\"}]}]}",
         "responses[0].tool_calls[0].arguments: gemini"},
        {"{\"responses\": [{\"protocol\": \"anthropic\", \"text\": \"hi\", "
         "\"close_after_bytes\": 99999}]}",
         "responses[0].close_after_bytes: 99999 is past the end"},
        {"{\"responses\": [{\"model\": \"x\"}]}", "responses[0]: cannot tell what to send"},
        {"{\"response\": []}", "unknown key \"response\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err = NULL;
        int rc = run_bad(cases[i].scenario, &err);
        CHECK_INT(rc, 2);
        CHECK(err && strstr(err, cases[i].needle));
        if (!err || !strstr(err, cases[i].needle))
            fprintf(stderr, "case %zu stderr: %s\n", i, err ? err : "(none)");
        free(err);
    }
}

/* Strict by default (no "lenient"): a Gemini request answering one of two calls gets
 * Google's 400, uses up no response, and fakeprov_violations() counts it; the same
 * request made whole gets responses[0]. The rules themselves: fake_validate.c. */
static void test_strict_default(void)
{
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"responses\": [{\"protocol\": \"gemini\", "
                                "\"text\": \"fine\"}]}") == 0);
    static const char *const path = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";
#define GEM_CALLS                                                                          \
    "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]},"                      \
    "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{}}},"         \
    "{\"functionCall\":{\"name\":\"g\",\"args\":{}}}]},"                                      \
    "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"f\",\"response\":{}}}"
    http_res r;
    http_do(&fp, &(http_req){.path = path, .body = GEM_CALLS "]}]}"}, &r);
    CHECK_INT(r.status, 400);
    CHECK_STR(r.body.data,
              "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Please ensure that the "
              "number of function response parts is equal to the number of function call "
              "parts of the function call turn.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n");
    http_release(&r);
    char first[256];
    CHECK_INT(fakeprov_violations(&fp, first, sizeof first), 1);
    CHECK(strncmp(first, "Please ensure that the number of function response", 50) == 0);
    http_do(&fp,
            &(http_req){.path = path,
                        .body = GEM_CALLS ",{\"functionResponse\":{\"name\":\"g\",\"response\":{}}}]}]}"},
            &r);
#undef GEM_CALLS
    CHECK_INT(r.status, 200);
    CHECK(r.body.data && strstr(r.body.data, "\"text\": \"fine\"") != NULL);
    http_release(&r);
    CHECK_INT(fakeprov_violations(&fp, first, sizeof first), 1);
    json_t *reqs = fakeprov_requests(&fp);
    CHECK_INT(json_array_size(reqs), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(reqs, 0), "index")), 0);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(reqs, 1), "index")), 0);
    CHECK(json_object_get(json_array_get(reqs, 1), "violation") == NULL);
    json_decref(reqs);
    CHECK_INT(fakeprov_stop_status(&fp), 0);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    RUN(test_generated_byte_exact);
    RUN(test_generated_defaults);
    RUN(test_utf8_deltas);
    RUN(test_replay_fixture);
    RUN(test_error_responses);
    RUN(test_close_after_bytes);
    RUN(test_stall_and_delays);
    RUN(test_malformed);
    RUN(test_exhausted);
    RUN(test_recording);
    RUN(test_concurrent);
    RUN(test_bad_scenarios);
    RUN(test_strict_default);
    curl_global_cleanup();
    return check_report();
}
