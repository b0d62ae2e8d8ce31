/* decode_throughput — MB/s of SSE input through each protocol decoder (api_decoder:
 * SSE framing + JSON + chunk emission), fed in 16 KiB reads as a socket would deliver
 * them. Each body is generated in the protocol's real shape (text deltas of ~40 bytes
 * with multi-byte characters, reasoning, a tool call with argument fragments, usage and
 * the terminal event). Exits non-zero when a decoded result is wrong, so a fast but
 * broken decoder never passes. Usage: decode_throughput [MB per protocol, default 32]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/decoder.h"
#include "base/buf.h"

#define DELTA "Grüße — the parser reads \\\"quoted\\\" text; "
#define DELTA_DECODED "Grüße — the parser reads \"quoted\" text; "

struct tally {
    size_t text, reasoning, args, tools, usage, ends, errors;
    unsigned long long hash;
};

static int on_chunk(void *ud, const api_chunk *c)
{
    struct tally *t = ud;
    switch (c->kind) {
    case API_CHUNK_TEXT:
        t->text += c->len;
        for (size_t i = 0; i < c->len; i++)
            t->hash = (t->hash ^ (unsigned char)c->text[i]) * 1099511628211ULL;
        break;
    case API_CHUNK_REASONING:
        t->reasoning += c->len;
        break;
    case API_CHUNK_TOOL_DELTA:
        t->args += c->tool.args_len;
        if (c->tool.name)
            t->tools++;
        break;
    case API_CHUNK_USAGE:
        t->usage++;
        break;
    case API_CHUNK_END:
        t->ends++;
        break;
    case API_CHUNK_ERROR:
        t->errors++;
        break;
    }
    return 0;
}

/* Build a body of about target bytes; *ndeltas gets the number of text deltas. */
static void build(api_protocol p, size_t target, buf *b, size_t *ndeltas)
{
    size_t n = 0;
    switch (p) {
    case API_PROTO_ANTHROPIC:
        buf_puts(b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"
                    "\"msg_1\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
                    "event: content_block_start\ndata: {\"type\":\"content_block_start\","
                    "\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
        while (b->len < target) {
            buf_puts(b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                        "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" DELTA
                        "\"}}\n\n");
            n++;
        }
        buf_puts(b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\""
                    ":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":"
                    "\"read_file\",\"input\":{}}}\n\n"
                    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\""
                    ":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":"
                    "\\\"a.c\\\"}\"}}\n\n"
                    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{"
                    "\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":99}}\n\n"
                    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
        break;
    case API_PROTO_OPENAI_CHAT:
        while (b->len < target) {
            buf_puts(b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
                        "\"created\":1757412381,\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,"
                        "\"delta\":{\"content\":\"" DELTA "\"},\"logprobs\":null,"
                        "\"finish_reason\":null}],\"usage\":null}\n\n");
            n++;
        }
        buf_puts(b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                    "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\","
                    "\"arguments\":\"{\\\"path\\\":\\\"a.c\\\"}\"}}]},\"finish_reason\":null}]}\n\n"
                    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
                    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":99}}\n\n"
                    "data: [DONE]\n\n");
        break;
    case API_PROTO_OPENAI_RESPONSES:
        while (b->len < target) {
            buf_puts(b, "event: response.output_text.delta\ndata: {\"type\":"
                        "\"response.output_text.delta\",\"sequence_number\":12,\"item_id\":"
                        "\"msg_1\",\"output_index\":1,\"content_index\":0,\"delta\":\"" DELTA
                        "\",\"logprobs\":[]}\n\n");
            n++;
        }
        buf_puts(b, "event: response.output_item.added\ndata: {\"type\":"
                    "\"response.output_item.added\",\"output_index\":2,\"item\":{\"type\":"
                    "\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":"
                    "\"read_file\",\"arguments\":\"\"}}\n\n"
                    "event: response.function_call_arguments.delta\ndata: {\"type\":"
                    "\"response.function_call_arguments.delta\",\"output_index\":2,\"delta\":"
                    "\"{\\\"path\\\":\\\"a.c\\\"}\"}\n\n"
                    "event: response.completed\ndata: {\"type\":\"response.completed\","
                    "\"response\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":99}}}\n\n");
        break;
    case API_PROTO_GEMINI:
        while (b->len < target) {
            buf_puts(b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"" DELTA
                        "\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": "
                        "{\"promptTokenCount\": 10,\"totalTokenCount\": 12},\"modelVersion\": "
                        "\"gemini-2.5-pro\",\"responseId\": \"r1\"}\r\n\r\n");
            n++;
        }
        buf_puts(b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": "
                    "{\"name\": \"read_file\",\"args\": {\"path\": \"a.c\"}}}],\"role\": "
                    "\"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": "
                    "{\"promptTokenCount\": 10,\"candidatesTokenCount\": 99}}\r\n\r\n");
        break;
    }
    *ndeltas = n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    long mb = argc > 1 ? strtol(argv[1], NULL, 10) : 32;
    if (mb < 1)
        mb = 1;
    size_t target = (size_t)mb << 20;
    size_t delta_len = strlen(DELTA_DECODED);
    unsigned long long want_hash_one = 14695981039346656037ULL;
    int failed = 0;
    static const api_protocol protos[] = { API_PROTO_ANTHROPIC, API_PROTO_OPENAI_CHAT,
                                           API_PROTO_OPENAI_RESPONSES, API_PROTO_GEMINI };
    printf("%-18s %10s %10s %12s\n", "protocol", "MB", "MB/s", "chunks/s");
    for (size_t k = 0; k < 4; k++) {
        buf body = BUF_INIT(target + (1 << 20));
        size_t ndeltas;
        build(protos[k], target, &body, &ndeltas);
        if (body.err) {
            fprintf(stderr, "decode_throughput: cannot build the body\n");
            return 2;
        }
        struct tally t = { 0 };
        t.hash = want_hash_one;
        api_decoder *d = api_decoder_new(protos[k], 200, on_chunk, &t);
        double t0 = now_s();
        for (size_t at = 0; at < body.len; at += 16384)
            api_decoder_feed(d, body.data + at, body.len - at < 16384 ? body.len - at : 16384);
        api_decoder_end(d);
        double dt = now_s() - t0;
        bool complete = api_decoder_complete(d);
        size_t chunks = api_decoder_chunks(d);
        api_decoder_free(d);

        unsigned long long want = want_hash_one;
        for (size_t i = 0; i < ndeltas; i++)
            for (size_t j = 0; j < delta_len; j++)
                want = (want ^ (unsigned char)DELTA_DECODED[j]) * 1099511628211ULL;
        bool ok = complete && t.errors == 0 && t.ends == 1 && t.text == ndeltas * delta_len &&
                  t.hash == want && t.tools == 1 && t.args == strlen("{\"path\":\"a.c\"}") &&
                  t.usage == 1;
        double mbs = (double)body.len / (1 << 20);
        printf("%-18s %10.1f %10.1f %12.0f%s\n", api_protocol_name(protos[k]), mbs, mbs / dt,
               (double)chunks / dt, ok ? "" : "  WRONG RESULT");
        if (!ok) {
            fprintf(stderr,
                    "decode_throughput: %s decoded wrongly (complete %d, errors %zu, ends %zu, "
                    "text %zu/%zu, tools %zu, args %zu, usage %zu)\n",
                    api_protocol_name(protos[k]), complete, t.errors, t.ends, t.text,
                    ndeltas * delta_len, t.tools, t.args, t.usage);
            failed = 1;
        }
        buf_release(&body);
    }
    return failed;
}
