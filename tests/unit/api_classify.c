/* api_classify — error classification beyond the shipped fixtures: every trap of
 * providers.md §0.10 and §7 (429 insufficient_quota is billing; 429 "Request too large"
 * cannot be waited out; Anthropic's 400 credit balance; Gemini's 400 API_KEY_INVALID;
 * OpenRouter's 402 affordable max_tokens; context wordings of every server, including
 * Gemini's and llama.cpp's), HTML pages, array-wrapped bodies, x-should-retry, transport
 * failures, and the retry-after parsers. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/error.h"
#include "api/retry_after.h"
#include "check.h"

#define CLASSIFY_H(status, h, n, body) api_classify(status, h, n, body, strlen(body), &e)

static api_error classify(long status, const char *body)
{
    api_error e;
    api_classify(status, NULL, 0, body, body ? strlen(body) : 0, &e);
    return e;
}

#define EXPECT(e, cat, retry)                                                                \
    do {                                                                                     \
        CHECK_STR(api_error_category_name((e).category), cat);                               \
        CHECK_INT((e).retryable, retry);                                                     \
        CHECK_INT((e).context_window_exceeded, strcmp(cat, "context_window_exceeded") == 0); \
    } while (0)

static void test_context_wordings(void)
{
    static const struct {
        long status;
        const char *body;
    } cases[] = {
        { 400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":"
               "\"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, "
               "decrease input length or `max_tokens` and try again\"}}" },
        { 400, "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"The input token count "
               "(1215307) exceeds the maximum number of tokens allowed (1048576).\",\n    "
               "\"status\": \"INVALID_ARGUMENT\"\n  }\n}\n" },
        { 400, "{\"error\":{\"code\":400,\"message\":\"request (13392 tokens) exceeds the available "
               "context size (8192 tokens), try increasing it\",\"type\":\"exceed_context_size_error\","
               "\"n_prompt_tokens\":13392,\"n_ctx\":8192}}" },
        { 400, "{\"error\":{\"message\":\"This endpoint's maximum context length is 32768 tokens. "
               "However, you requested about 42832 tokens (42832 of text input). Please reduce the "
               "length of either one, or use the \\\"middle-out\\\" transform to compress your "
               "prompt automatically.\",\"code\":400}}" },
        { 400, "{\"object\":\"error\",\"message\":\"This model's maximum context length is 16384 "
               "tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the "
               "completion). Please reduce the length of the messages or completion.\",\"type\":"
               "\"BadRequestError\",\"param\":null,\"code\":400}" },
        { 400, "{\"error\":{\"message\":\"Your input exceeds the context window of this model. "
               "Please adjust your input and try again.\",\"type\":\"invalid_request_error\","
               "\"param\":\"input\",\"code\":\"context_length_exceeded\"}}" },
        { 400, "{\"message\":\"ValidationException: Input is too long for requested model.\"}" },
        { 413, "{\"error\":{\"message\":\"prompt is too long: 250000 tokens > 200000 maximum\"}}" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        api_error e = classify(cases[i].status, cases[i].body);
        if (e.category != API_ERR_CONTEXT_WINDOW)
            check_fail(__FILE__, __LINE__, "case %zu: %s", i,
                       api_error_category_name(e.category));
        check_count++;
        CHECK(!e.retryable);
    }
}

static void test_status_traps(void)
{
    api_error e;
    e = classify(429, "{\n    \"error\": {\n        \"message\": \"You exceeded your current quota, "
                      "please check your plan and billing details.\",\n        \"type\": "
                      "\"insufficient_quota\",\n        \"param\": null,\n        \"code\": "
                      "\"insufficient_quota\"\n    }\n}\n");
    EXPECT(e, "billing", 0);
    CHECK(e.retry_after_seconds < 0);

    e = classify(429, "{\"error\":{\"message\":\"Request too large for gpt-4o in organization "
                      "org-x on tokens per min (TPM): Limit 30000, Requested 31538. The input or "
                      "output tokens must be reduced in order to run successfully. Visit "
                      "https://platform.openai.com/account/rate-limits to learn more.\",\"type\":"
                      "\"tokens\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
    EXPECT(e, "request_too_large", 0);

    e = classify(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                      "\"message\":\"Your credit balance is too low to access the Anthropic API. "
                      "Please go to Plans & Billing to upgrade or purchase credits.\"},"
                      "\"request_id\":\"req_1\"}");
    EXPECT(e, "billing", 0);

    e = classify(400, "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"API key not valid. "
                      "Please pass a valid API key.\",\n    \"status\": \"INVALID_ARGUMENT\",\n    "
                      "\"details\": [\n      {\n        \"@type\": "
                      "\"type.googleapis.com/google.rpc.ErrorInfo\",\n        \"reason\": "
                      "\"API_KEY_INVALID\",\n        \"domain\": \"googleapis.com\"\n      }\n    ]\n  "
                      "}\n}\n");
    EXPECT(e, "auth", 0);

    /* Gemini wraps errors in an array. */
    e = classify(400, "[{\"error\": {\"code\": 400, \"message\": \"API key not valid.\", "
                      "\"status\": \"INVALID_ARGUMENT\", \"details\": [{\"@type\": "
                      "\"type.googleapis.com/google.rpc.ErrorInfo\", \"reason\": "
                      "\"API_KEY_INVALID\"}]}}]");
    EXPECT(e, "auth", 0);

    e = classify(402, "{\"error\":{\"message\":\"This request requires more credits, or fewer "
                      "max_tokens. You requested up to 32000 tokens, but can only afford 27342.\","
                      "\"code\":402}}");
    EXPECT(e, "billing", 0);
    CHECK_INT(e.affordable_max_tokens, 27342);

    e = classify(401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
                      "\"message\":\"invalid x-api-key\"}}");
    EXPECT(e, "auth", 0);
    e = classify(403, "{\"error\":{\"code\":403,\"message\":\"Input flagged\",\"metadata\":"
                      "{\"reasons\":[\"violence\"],\"flagged_input\":\"...\"}}}");
    EXPECT(e, "content_policy", 0);
    e = classify(403, "{\"type\":\"error\",\"error\":{\"type\":\"permission_error\",\"message\":"
                      "\"no access\"}}");
    EXPECT(e, "auth", 0);
    e = classify(404, "{\"error\":{\"message\":\"model \\\"x\\\" not found, try pulling it first\","
                      "\"type\":\"not_found_error\",\"param\":null,\"code\":null}}");
    EXPECT(e, "not_found", 0);
    e = classify(413, "<html><head><title>413 Request Entity Too Large</title></head></html>");
    EXPECT(e, "request_too_large", 0);
    e = classify(503, "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"This model is "
                      "currently experiencing high demand. Spikes in demand are usually "
                      "temporary. Please try again later.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n");
    EXPECT(e, "overloaded", 1);
    e = classify(500, "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":"
                      "\"Internal server error\"}}");
    EXPECT(e, "server_error", 1);
    e = classify(408, "{\"error\":{\"code\":408,\"message\":\"Timed out\"}}");
    EXPECT(e, "timeout", 1);
    e = classify(422, "{\"error\":{\"message\":\"Invalid parameters\",\"code\":\"invalid\"}}");
    EXPECT(e, "bad_request", 0);
    e = classify(400, "{\"error\":{\"message\":\"Unsupported parameter: 'max_tokens' is not "
                      "supported with this model. Use 'max_completion_tokens' instead.\",\"type\":"
                      "\"invalid_request_error\",\"param\":\"max_tokens\",\"code\":"
                      "\"unsupported_parameter\"}}");
    EXPECT(e, "bad_request", 0);
    e = classify(402, "{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\"}}");
    EXPECT(e, "billing", 0);
    e = classify(400, "{\"error\":{\"message\":\"The response was filtered due to the prompt "
                      "triggering Azure OpenAI's content management policy.\",\"code\":"
                      "\"content_filter\",\"status\":400}}");
    EXPECT(e, "content_policy", 0);
}

static void test_gemini_rate_limits(void)
{
    const char *per_minute =
        "{\"error\": {\"code\": 429, \"message\": \"You exceeded your current quota, please check "
        "your plan and billing details.\\n* Quota exceeded for metric: "
        "generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 5\\n"
        "Please retry in 58.217843437s.\", \"status\": \"RESOURCE_EXHAUSTED\", \"details\": [{"
        "\"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\", \"violations\": [{"
        "\"quotaMetric\": \"generativelanguage.googleapis.com/generate_content_free_tier_requests\","
        " \"quotaId\": \"GenerateRequestsPerMinutePerProjectPerModel-FreeTier\"}]}, {\"@type\": "
        "\"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"34.4s\"}]}}";
    api_error e = classify(429, per_minute);
    EXPECT(e, "rate_limit", 1);
    CHECK(e.retry_after_seconds > 34.39 && e.retry_after_seconds < 34.41);

    const char *per_day =
        "{\"error\": {\"code\": 429, \"message\": \"quota\", \"status\": \"RESOURCE_EXHAUSTED\", "
        "\"details\": [{\"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\", "
        "\"violations\": [{\"quotaId\": \"GenerateRequestsPerDayPerProjectPerModel-FreeTier\"}]}]}}";
    e = classify(429, per_day);
    EXPECT(e, "rate_limit", 0);
}

static void test_retry_after_sources(void)
{
    http_header h[4];
    api_error e;
    h[0].name = "retry-after";
    h[0].value = "7";
    CLASSIFY_H(429, h, 1, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}");
    EXPECT(e, "rate_limit", 1);
    CHECK(e.retry_after_seconds == 7.0);

    h[0].name = "retry-after-ms";
    h[0].value = "1500";
    h[1].name = "retry-after";
    h[1].value = "9";
    CLASSIFY_H(503, h, 2, "");
    EXPECT(e, "overloaded", 1);
    CHECK(e.retry_after_seconds == 1.5);

    h[0].name = "x-should-retry";
    h[0].value = "false";
    CLASSIFY_H(500, h, 1, "{}");
    EXPECT(e, "server_error", 0);
    h[0].value = "true";
    CLASSIFY_H(409, h, 1, "{}");
    CHECK(e.retryable);
    CLASSIFY_H(401, h, 1, "{}");
    EXPECT(e, "auth", 0); /* never retried, whatever the header says */

    /* Ratelimit reset headers only matter on a rate limit. */
    h[0].name = "x-ratelimit-reset-requests";
    h[0].value = "1s";
    h[1].name = "x-ratelimit-reset-tokens";
    h[1].value = "6m0s";
    h[2].name = "x-ratelimit-remaining-requests";
    h[2].value = "0";
    CLASSIFY_H(429, h, 3, "{\"error\":{\"message\":\"Rate limit reached\"}}");
    CHECK(e.retry_after_seconds == 1.0);
    CLASSIFY_H(500, h, 3, "{}");
    CHECK(e.retry_after_seconds < 0);

    CHECK(api_retry_after_duration("6m0s") == 360.0);
    CHECK(api_retry_after_duration("12ms") == 0.012);
    CHECK(api_retry_after_duration("1h2m3.5s") == 3723.5);
    CHECK(api_retry_after_duration("34.4s") == 34.4);
    CHECK(api_retry_after_duration("abc") < 0);
    CHECK(api_retry_after_duration("") < 0);
    CHECK(api_retry_after_header("120", 0) == 120.0);
    CHECK(api_retry_after_header("-3", 0) < 0);
    CHECK(api_retry_after_header("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470) == 10.0);
    CHECK(api_retry_after_header("Wed, 21 Oct 2015 07:28:00 GMT", 1445412490) == 0.0);
    CHECK(api_retry_after_rfc3339("2015-10-21T07:28:00Z", 1445412470) == 10.0);
    CHECK(api_retry_after_rfc3339("2015-10-21T09:28:00+02:00", 1445412470) == 10.0);
    CHECK(api_retry_after_rfc3339("2015-10-21T07:27:50.5Z", 1445412470) == 0.5);
    CHECK(api_retry_after_rfc3339("yesterday", 0) < 0);
    CHECK(api_retry_after_message("Please try again in 644ms.") == 0.644);
    CHECK(api_retry_after_message("Please try again in 20s.") == 20.0);
    CHECK(api_retry_after_message("Please retry in 58.2s.") == 58.2);
    CHECK(api_retry_after_message("no hint here") < 0);

    /* Anthropic absolute reset times on a 429 */
    char when[64];
    time_t now = time(NULL) + 30;
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    h[0].name = "anthropic-ratelimit-tokens-reset";
    h[0].value = when;
    h[1].name = "anthropic-ratelimit-tokens-remaining";
    h[1].value = "0";
    CLASSIFY_H(429, h, 2, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}");
    CHECK(e.retry_after_seconds > 25 && e.retry_after_seconds <= 31);
}

static void test_odd_bodies(void)
{
    api_error e = classify(502, "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title>"
                                "</head>\n<body>cloudflare</body></html>");
    EXPECT(e, "server_error", 1);
    CHECK_STR(e.provider_message, "502 Bad Gateway");
    CHECK(strstr(e.message, "HTML") != NULL);
    e = classify(500, NULL);
    EXPECT(e, "server_error", 1);
    e = classify(400, "{\"error\":\"model is required\"}");
    EXPECT(e, "bad_request", 0);
    CHECK_STR(e.provider_message, "model is required");
    e = classify(500, "upstream connect error or disconnect/reset before headers\n");
    EXPECT(e, "server_error", 1);
    e = classify(400, "\xff\xfe garbage \x01\x02");
    EXPECT(e, "bad_request", 0);
    e = classify(200, "{\"error\":{\"message\":\"odd\"}}");
    EXPECT(e, "unknown", 0);

    hew_err he = HEW_ERR_INIT;
    hew_err_set(&he, HEW_E_NET, "cannot connect to api.example: connection refused");
    api_error_transport(&he, &e);
    EXPECT(e, "network", 1);
    hew_err_set(&he, HEW_E_TIMEOUT, "no byte for 120 s");
    api_error_transport(&he, &e);
    EXPECT(e, "timeout", 1);
    hew_err_set(&he, HEW_E_ABORTED, "stopped");
    api_error_transport(&he, &e);
    EXPECT(e, "aborted", 0);
}

int main(void)
{
    RUN(test_context_wordings);
    RUN(test_status_traps);
    RUN(test_gemini_rate_limits);
    RUN(test_retry_after_sources);
    RUN(test_odd_bodies);
    return check_report();
}
