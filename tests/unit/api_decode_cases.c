/* api_decode_cases — the stream shapes providers.md describes beyond the shipped fixtures:
 * Ollama HTML-escaped text and whole tool calls, llama.cpp's legacy `error:` line, vLLM's
 * flat error, Azure's prompt-filter chunk, OpenRouter reasoning_details, tool indices
 * that start at 1 or interleave, length-truncated tool arguments, Anthropic redacted
 * thinking over CRLF, tools without arguments, the context-window stop, Responses
 * failed/incomplete, Gemini errors (bare, in arrays), blocked prompts, stable synthesized
 * ids, truncated streams of every protocol, a callback that stops, and HTML bodies. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/decoder.h"
#include "api/turn.h"
#include "check.h"

static json_t *decode_split(api_protocol p, const char *body, size_t step)
{
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(p, 200, api_turn_add, &t);
    size_t len = strlen(body);
    for (size_t at = 0; at < len; at += step)
        api_decoder_feed(d, body + at, len - at < step ? len - at : step);
    api_decoder_end(d);
    api_decoder_free(d);
    json_t *o = api_turn_debug_json(&t);
    api_turn_release(&t);
    return o;
}

/* Decode whole and byte by byte; both must agree. */
static json_t *decode(api_protocol p, const char *body)
{
    json_t *a = decode_split(p, body, strlen(body) + 1);
    json_t *b = decode_split(p, body, 1);
    check_count++;
    if (!json_equal(a, b))
        check_fail(__FILE__, __LINE__, "byte-by-byte decode differs");
    json_decref(b);
    return a;
}

static const char *S(const json_t *o, const char *path)
{
    const json_t *v = o;
    char key[64];
    while (*path && v) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        if (key[0] >= '0' && key[0] <= '9')
            v = json_array_get(v, strtoul(key, NULL, 10));
        else
            v = json_object_get(v, key);
        path += n + (dot ? 1 : 0);
    }
    if (!v)
        return "(missing)";
    if (json_is_null(v))
        return "(null)";
    if (json_is_true(v))
        return "true";
    if (json_is_false(v))
        return "false";
    return json_is_string(v) ? json_string_value(v) : "(other)";
}

static long long I(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(json_object_get(o, a), b);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static void test_ollama_escaped_and_whole_call(void)
{
    json_t *o = decode(
        API_PROTO_OPENAI_CHAT,
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
        "\"delta\":{\"role\":\"assistant\",\"content\":\"\\u003cread_file\\u003e a \\u0026 b\"},"
        "\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
        "\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"call_ab12cd34\","
        "\"index\":0,\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":"
        "\"{\\\"path\\\":\\\"a.c\\\"}\"}}]},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
        "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":\"tool_calls\"}]}\n\n"
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":"
        "{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n\n"
        "data: [DONE]\n\n");
    CHECK_STR(S(o, "text"), "<read_file> a & b");
    CHECK_STR(S(o, "tool_calls.0.id"), "call_ab12cd34");
    CHECK_STR(S(o, "tool_calls.0.arguments"), "{\"path\":\"a.c\"}");
    CHECK_STR(S(o, "stop_reason"), "tool_calls");
    CHECK_INT(I(o, "usage", "input_tokens_total"), 10);
    CHECK_INT(I(o, "usage", "input_tokens_uncached"), 10);
    CHECK_STR(S(o, "usage.cache_read_tokens"), "(null)");
    CHECK_STR(S(o, "stream_complete"), "true");
    json_decref(o);
}

static void test_llamacpp_legacy_error_line(void)
{
    json_t *o = decode(API_PROTO_OPENAI_CHAT,
                       "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},"
                       "\"finish_reason\":null}],\"object\":\"chat.completion.chunk\"}\n\n"
                       "error: {\"code\":500,\"message\":\"the request exceeds the available "
                       "context size, try increasing it\",\"type\":\"server_error\"}\n\n");
    CHECK_STR(S(o, "text"), "Hel");
    CHECK_STR(S(o, "stream_complete"), "false");
    CHECK_STR(S(o, "stop_reason"), "error");
    CHECK_STR(S(o, "error.category"), "context_window_exceeded");
    json_decref(o);

    /* Same line with a generic message: a server error, retryable. */
    o = decode(API_PROTO_OPENAI_CHAT,
               "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n"
               "error: {\"code\":500,\"message\":\"slot unavailable\",\"type\":\"server_error\"}\n\n");
    CHECK_STR(S(o, "error.category"), "server_error");
    CHECK_STR(S(o, "error.retryable"), "true");
    json_decref(o);
}

static void test_vllm_flat_error_midstream(void)
{
    json_t *o = decode(API_PROTO_OPENAI_CHAT,
                       "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
                       "data: {\"object\":\"error\",\"message\":\"This model's maximum context "
                       "length is 16384 tokens. However, you requested 122946 tokens (112946 in "
                       "the messages, 10000 in the completion). Please reduce the length of the "
                       "messages or completion.\",\"type\":\"BadRequestError\",\"param\":null,"
                       "\"code\":400}\n\n"
                       "data: [DONE]\n\n");
    CHECK_STR(S(o, "error.category"), "context_window_exceeded");
    CHECK_STR(S(o, "error.context_window_exceeded"), "true");
    CHECK_STR(S(o, "stream_complete"), "false");
    json_decref(o);
}

static void test_azure_prompt_filter_first_chunk(void)
{
    json_t *o = decode(
        API_PROTO_OPENAI_CHAT,
        "data: {\"choices\":[],\"created\":0,\"id\":\"\",\"model\":\"\",\"object\":\"\","
        "\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{\"hate\":"
        "{\"filtered\":false,\"severity\":\"safe\"}}}]}\n\n"
        "data: {\"choices\":[{\"content_filter_results\":{},\"delta\":{\"content\":\"Hi\","
        "\"role\":\"assistant\"},\"finish_reason\":null,\"index\":0}],\"object\":"
        "\"chat.completion.chunk\"}\n\n"
        "data: {\"choices\":[{\"content_filter_results\":{},\"delta\":{},\"finish_reason\":"
        "\"content_filter\",\"index\":0}],\"object\":\"chat.completion.chunk\"}\n\n"
        "data: [DONE]\n\n");
    CHECK_STR(S(o, "text"), "Hi");
    CHECK_STR(S(o, "stop_reason"), "content_filter");
    CHECK_STR(S(o, "stream_complete"), "true");
    CHECK_STR(S(o, "usage"), "(null)");
    json_decref(o);
}

static void test_tool_index_one_interleaved_and_truncated(void)
{
    json_t *o = decode(
        API_PROTO_OPENAI_CHAT,
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c1\","
        "\"type\":\"function\",\"function\":{\"name\":\"a\",\"arguments\":\"\"}}]}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":2,\"id\":\"c2\","
        "\"type\":\"function\",\"function\":{\"name\":\"b\",\"arguments\":\"{\\\"x\\\"\"}}]}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":"
        "{\"arguments\":\"{}\"}}]}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":2,\"function\":"
        "{\"arguments\":\":1\"}}]}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
        "data: [DONE]\n\n");
    CHECK_STR(S(o, "tool_calls.0.id"), "c1");
    CHECK_STR(S(o, "tool_calls.0.arguments"), "{}");
    CHECK_STR(S(o, "tool_calls.1.id"), "c2");
    CHECK_STR(S(o, "tool_calls.1.arguments"), "{\"x\":1");
    CHECK_STR(S(o, "stop_reason"), "length");
    CHECK_STR(S(o, "tool_args_truncated"), "true");
    json_decref(o);
}

static void test_openrouter_reasoning_details(void)
{
    const char *body =
        ": OPENROUTER PROCESSING\n\n"
        "data: {\"id\":\"gen-1\",\"provider\":\"Anthropic\",\"choices\":[{\"index\":0,\"delta\":"
        "{\"role\":\"assistant\",\"content\":\"\",\"reasoning\":\"Think\",\"reasoning_details\":"
        "[{\"type\":\"reasoning.text\",\"text\":\"Think\",\"format\":\"anthropic-claude-v1\","
        "\"index\":0}]},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"gen-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\","
        "\"reasoning\":null,\"reasoning_details\":[{\"type\":\"reasoning.text\",\"signature\":"
        "\"sig1\",\"format\":\"anthropic-claude-v1\",\"index\":0}]},\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"gen-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Done\"},"
        "\"finish_reason\":\"stop\",\"native_finish_reason\":\"end_turn\"}],\"usage\":{"
        "\"prompt_tokens\":100,\"completion_tokens\":20,\"total_tokens\":120,\"cost\":0.00123,"
        "\"is_byok\":false,\"prompt_tokens_details\":{\"cached_tokens\":40,"
        "\"cache_write_tokens\":10},\"cost_details\":{\"upstream_inference_cost\":null},"
        "\"completion_tokens_details\":{\"reasoning_tokens\":5}}}\n\n"
        "data: [DONE]\n\n";
    json_t *o = decode(API_PROTO_OPENAI_CHAT, body);
    CHECK_STR(S(o, "reasoning"), "Think");
    CHECK_STR(S(o, "text"), "Done");
    CHECK_INT(I(o, "usage", "input_tokens_uncached"), 50);
    CHECK_INT(I(o, "usage", "cache_write_tokens"), 10);
    const json_t *cost = json_object_get(json_object_get(o, "usage"), "cost_usd");
    CHECK(json_is_real(cost) && json_real_value(cost) > 0.00122 && json_real_value(cost) < 0.00124);
    json_decref(o);

    /* The assistant message keeps the details (with the signature) to send back. */
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(API_PROTO_OPENAI_CHAT, 200, api_turn_add, &t);
    api_decoder_feed(d, body, strlen(body));
    api_decoder_end(d);
    api_decoder_free(d);
    json_t *m = api_turn_to_message(&t);
    const json_t *blk = json_array_get(json_object_get(m, "content"), 0);
    CHECK_STR(json_string_value(json_object_get(blk, "type")), "thinking");
    CHECK_INT(json_array_size(json_object_get(blk, "hew_reasoning_details")), 2);
    json_decref(m);
    api_turn_release(&t);
}

static void test_anthropic_redacted_crlf_noargs_context_stop(void)
{
    json_t *o = decode(
        API_PROTO_ANTHROPIC,
        "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\","
        "\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":0,"
        "\"cache_read_input_tokens\":5,\"output_tokens\":1}}}\r\n\r\n"
        "event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgB\"}}\r\n\r\n"
        "event: content_block_stop\r\ndata: {\"type\":\"content_block_stop\",\"index\":0}\r\n\r\n"
        "event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":1,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"list\","
        "\"input\":{}}}\r\n\r\n"
        "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\r\n\r\n"
        "event: content_block_stop\r\ndata: {\"type\":\"content_block_stop\",\"index\":1}\r\n\r\n"
        "event: some_future_event\r\ndata: {\"type\":\"some_future_event\"}\r\n\r\n"
        "event: message_delta\r\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
        "\"model_context_window_exceeded\"},\"usage\":{\"output_tokens\":7}}\r\n\r\n"
        "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n");
    CHECK_STR(S(o, "tool_calls.0.id"), "toolu_1");
    CHECK_STR(S(o, "tool_calls.0.arguments"), "");
    CHECK_STR(S(o, "stop_reason"), "length");
    CHECK_STR(S(o, "stop_reason_raw"), "model_context_window_exceeded");
    CHECK_INT(I(o, "usage", "input_tokens_total"), 15);
    CHECK_INT(I(o, "usage", "output_tokens"), 7);
    CHECK_STR(S(o, "stream_complete"), "true");
    json_decref(o);
}

static void test_anthropic_message_roundtrip(void)
{
    const char *body =
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\"}}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"signature_delta\",\"signature\":\"SIG\"}}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
        "\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"RED\"}}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"n\",\"input\":{}}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":1}\"}}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
        "\"tool_use\"},\"usage\":{\"output_tokens\":3}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(API_PROTO_ANTHROPIC, 200, api_turn_add, &t);
    api_decoder_feed(d, body, strlen(body));
    api_decoder_end(d);
    api_decoder_free(d);
    json_t *m = api_turn_to_message(&t);
    char *s = json_dumps(m, JSON_COMPACT);
    CHECK_STR(s, "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hm\","
                 "\"signature\":\"SIG\"},{\"type\":\"redacted_thinking\",\"data\":\"RED\"},"
                 "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"n\",\"input\":{\"a\":1}}]}");
    free(s);
    json_decref(m);
    api_turn_release(&t);
}

static void test_anthropic_truncated_and_second_message(void)
{
    json_t *o = decode(API_PROTO_ANTHROPIC,
                       "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
                       "{\"id\":\"m1\"}}\n\nevent: content_block_delta\ndata: {\"type\":"
                       "\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
                       "\"text\":\"hi\"}}\n\n");
    CHECK_STR(S(o, "text"), "hi");
    CHECK_STR(S(o, "stream_complete"), "false");
    CHECK_STR(S(o, "error.category"), "server_error");
    CHECK_STR(S(o, "error.retryable"), "true");
    json_decref(o);
    o = decode(API_PROTO_ANTHROPIC,
               "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\"}}\n\n"
               "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\"}}\n\n"
               "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m2\"}}\n\n"
               "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    CHECK_STR(S(o, "stream_complete"), "false");
    json_decref(o);
    /* An event that is not JSON ends the stream with an error. */
    o = decode(API_PROTO_ANTHROPIC, "event: message_start\ndata: {nope\n\n");
    CHECK_STR(S(o, "error.category"), "server_error");
    json_decref(o);
}

static void test_responses_failed_and_incomplete(void)
{
    json_t *o = decode(
        API_PROTO_OPENAI_RESPONSES,
        "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"
        "\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\"}}\n\n"
        "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,"
        "\"response\":{\"id\":\"resp_1\",\"status\":\"failed\",\"error\":{\"code\":"
        "\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of "
        "this model. Please adjust your input and try again.\"},\"usage\":null}}\n\n");
    CHECK_STR(S(o, "error.category"), "context_window_exceeded");
    CHECK_STR(S(o, "error.retryable"), "false");
    CHECK_STR(S(o, "stop_reason"), "error");
    json_decref(o);

    o = decode(API_PROTO_OPENAI_RESPONSES,
               "event: error\ndata: {\"type\":\"error\",\"sequence_number\":2,\"error\":{\"type\":"
               "\"insufficient_quota\",\"code\":\"insufficient_quota\",\"message\":\"You exceeded "
               "your current quota, please check your plan and billing details.\",\"param\":null}}"
               "\n\nevent: response.failed\ndata: {\"type\":\"response.failed\",\"response\":"
               "{\"error\":{\"code\":\"insufficient_quota\",\"message\":\"x\"}}}\n\n");
    CHECK_STR(S(o, "error.category"), "billing");
    json_decref(o);

    o = decode(API_PROTO_OPENAI_RESPONSES,
               "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\","
               "\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":"
               "\"call_1\",\"name\":\"f\",\"arguments\":\"\"}}\n\n"
               "event: response.function_call_arguments.delta\ndata: {\"type\":"
               "\"response.function_call_arguments.delta\",\"output_index\":0,\"delta\":\"{\\\"a\"}\n\n"
               "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":"
               "{\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"usage\":{"
               "\"input_tokens\":9,\"output_tokens\":4}}}\n\n");
    CHECK_STR(S(o, "stop_reason"), "length");
    CHECK_STR(S(o, "tool_calls.0.id"), "call_1");
    CHECK_STR(S(o, "tool_args_truncated"), "true");
    CHECK_STR(S(o, "stream_complete"), "true");
    json_decref(o);

    /* arguments only in .done (no deltas) */
    o = decode(API_PROTO_OPENAI_RESPONSES,
               "data: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"type\":"
               "\"function_call\",\"call_id\":\"call_9\",\"name\":\"g\",\"arguments\":\"\"}}\n\n"
               "data: {\"type\":\"response.function_call_arguments.done\",\"output_index\":1,"
               "\"arguments\":\"{\\\"b\\\":2}\"}\n\n"
               "data: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"type\":"
               "\"function_call\",\"call_id\":\"call_9\",\"name\":\"g\",\"arguments\":\"{\\\"b\\\":2}\"}}\n\n"
               "data: {\"type\":\"response.completed\",\"response\":{}}\n\n");
    CHECK_STR(S(o, "tool_calls.0.arguments"), "{\"b\":2}");
    CHECK_STR(S(o, "stop_reason"), "tool_calls");
    json_decref(o);

    o = decode(API_PROTO_OPENAI_RESPONSES,
               "data: {\"type\":\"response.output_text.delta\",\"delta\":\"x\"}\n\n");
    CHECK_STR(S(o, "stream_complete"), "false");
    json_decref(o);
}

static void test_gemini_errors_blocked_ids(void)
{
    json_t *o = decode(API_PROTO_GEMINI,
                       "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"a\"}],"
                       "\"role\": \"model\"},\"index\": 0}]}\r\n\r\n"
                       "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is "
                       "overloaded. Please try again later.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n");
    CHECK_STR(S(o, "text"), "a");
    CHECK_STR(S(o, "error.category"), "overloaded");
    CHECK_STR(S(o, "error.retryable"), "true");
    json_decref(o);

    o = decode(API_PROTO_GEMINI,
               "data: [{\"error\": {\"code\": 429,\"message\": \"Resource exhausted\",\"status\": "
               "\"RESOURCE_EXHAUSTED\",\"details\": [{\"@type\": "
               "\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\": \"12s\"}]}}]\r\n\r\n");
    CHECK_STR(S(o, "error.category"), "rate_limit");
    const json_t *ra = json_object_get(json_object_get(o, "error"), "retry_after_seconds");
    CHECK(json_is_number(ra) && json_number_value(ra) == 12.0);
    json_decref(o);

    o = decode(API_PROTO_GEMINI,
               "data: {\"promptFeedback\": {\"blockReason\": \"SAFETY\"},\"usageMetadata\": "
               "{\"promptTokenCount\": 5,\"totalTokenCount\": 5}}\r\n\r\n");
    CHECK_STR(S(o, "stop_reason"), "content_filter");
    CHECK_STR(S(o, "stream_complete"), "true");
    json_decref(o);

    o = decode(API_PROTO_GEMINI,
               "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"cut\"}]},"
               "\"finishReason\": \"MAX_TOKENS\"}]}\r\n\r\n");
    CHECK_STR(S(o, "stop_reason"), "length");
    json_decref(o);

    o = decode(API_PROTO_GEMINI,
               "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"no end\"}]}}]}\r\n\r\n");
    CHECK_STR(S(o, "stream_complete"), "false");
    json_decref(o);

    o = decode(API_PROTO_GEMINI, "data: {\"candidates\": [{\"finishReason\": "
                                 "\"MALFORMED_FUNCTION_CALL\"}]}\r\n\r\n");
    CHECK_STR(S(o, "stop_reason"), "error");
    CHECK_STR(S(o, "error.retryable"), "true");
    json_decref(o);
}

struct ids {
    char id[2][160];
    int n;
    bool synth;
};

static int collect_ids(void *ud, const api_chunk *c)
{
    struct ids *x = ud;
    if (c->kind == API_CHUNK_TOOL_DELTA && c->tool.id && x->n < 2) {
        snprintf(x->id[x->n++], sizeof x->id[0], "%s", c->tool.id);
        x->synth = c->tool.id_synthesized;
    }
    return 0;
}

static void test_gemini_synthesized_ids_are_stable(void)
{
    const char *body =
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"a\","
        "\"args\": {\"x\": 1}},\"thoughtSignature\": \"S\"},{\"functionCall\": {\"name\": \"b\","
        "\"args\": {}}}]},\"finishReason\": \"STOP\"}],\"responseId\": \"r-1_x\"}\r\n\r\n";
    struct ids a = { 0 }, b = { 0 };
    api_decoder *d = api_decoder_new(API_PROTO_GEMINI, 200, collect_ids, &a);
    api_decoder_feed(d, body, strlen(body));
    api_decoder_end(d);
    api_decoder_free(d);
    d = api_decoder_new(API_PROTO_GEMINI, 200, collect_ids, &b);
    for (size_t i = 0; body[i]; i++)
        api_decoder_feed(d, body + i, 1);
    api_decoder_end(d);
    api_decoder_free(d);
    CHECK_INT(a.n, 2);
    CHECK(a.synth);
    CHECK_STR(a.id[0], b.id[0]);
    CHECK_STR(a.id[1], b.id[1]);
    CHECK(strcmp(a.id[0], a.id[1]) != 0);
    CHECK_STR(a.id[0], "call_r1x_0");

    api_turn t;
    api_turn_init(&t);
    d = api_decoder_new(API_PROTO_GEMINI, 200, api_turn_add, &t);
    api_decoder_feed(d, body, strlen(body));
    api_decoder_end(d);
    api_decoder_free(d);
    json_t *m = api_turn_to_message(&t);
    const json_t *tu = json_array_get(json_object_get(m, "content"), 0);
    CHECK_STR(json_string_value(json_object_get(tu, "thought_signature")), "S");
    CHECK_STR(json_string_value(json_object_get(tu, "id")), "call_r1x_0");
    json_decref(m);
    api_turn_release(&t);
}

static void test_openai_no_done_and_finish_error(void)
{
    json_t *o = decode(API_PROTO_OPENAI_CHAT,
                       "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},"
                       "\"finish_reason\":\"stop\"}]}\n\n");
    CHECK_STR(S(o, "stream_complete"), "false");
    CHECK_STR(S(o, "error.category"), "server_error");
    json_decref(o);
    o = decode(API_PROTO_OPENAI_CHAT,
               "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},"
               "\"finish_reason\":\"error\"}]}\n\ndata: [DONE]\n\n");
    CHECK_STR(S(o, "stream_complete"), "false");
    CHECK_STR(S(o, "stop_reason"), "error");
    json_decref(o);
    /* [DONE] split and data without a space */
    o = decode(API_PROTO_OPENAI_CHAT,
               "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ud83d\\ude80\"},"
               "\"finish_reason\":\"stop\"}]}\r\rdata:[DONE]\r\r");
    CHECK_STR(S(o, "text"), "\xF0\x9F\x9A\x80");
    CHECK_STR(S(o, "stream_complete"), "true");
    json_decref(o);
}

static void test_html_and_empty_bodies(void)
{
    json_t *o = decode(API_PROTO_OPENAI_CHAT,
                       "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad "
                       "Gateway</h1></center><hr><center>nginx</center></body></html>\n");
    CHECK_STR(S(o, "stream_complete"), "false");
    CHECK(strstr(S(o, "error.message"), "502 Bad Gateway") != NULL);
    json_decref(o);
    o = decode(API_PROTO_ANTHROPIC, "");
    CHECK_STR(S(o, "stream_complete"), "false");
    CHECK_STR(S(o, "error.category"), "server_error");
    json_decref(o);
}

static int stop_after_first(void *ud, const api_chunk *c)
{
    (void)c;
    (*(int *)ud)++;
    return 1;
}

static void test_callback_stop(void)
{
    int n = 0;
    api_decoder *d = api_decoder_new(API_PROTO_OPENAI_CHAT, 200, stop_after_first, &n);
    const char *body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
                       "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\n";
    CHECK_INT(api_decoder_feed(d, body, strlen(body)), HEW_E_ABORTED);
    api_decoder_end(d);
    CHECK_INT(n, 1);
    CHECK(!api_decoder_complete(d));
    api_decoder_free(d);
}

int main(void)
{
    RUN(test_ollama_escaped_and_whole_call);
    RUN(test_llamacpp_legacy_error_line);
    RUN(test_vllm_flat_error_midstream);
    RUN(test_azure_prompt_filter_first_chunk);
    RUN(test_tool_index_one_interleaved_and_truncated);
    RUN(test_openrouter_reasoning_details);
    RUN(test_anthropic_redacted_crlf_noargs_context_stop);
    RUN(test_anthropic_message_roundtrip);
    RUN(test_anthropic_truncated_and_second_message);
    RUN(test_responses_failed_and_incomplete);
    RUN(test_gemini_errors_blocked_ids);
    RUN(test_gemini_synthesized_ids_are_stable);
    RUN(test_openai_no_done_and_finish_error);
    RUN(test_html_and_empty_bodies);
    RUN(test_callback_stop);
    return check_report();
}
