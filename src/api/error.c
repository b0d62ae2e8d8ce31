/* error — classifies provider failures into api_error values (rules in error.h). It reads
 * any body shape defensively (JSON of every provider, arrays, HTML pages, plain text,
 * nothing), never fails and never echoes a credential it was not sent. */
#include "api/error.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/retry_after.h"
#include "base/buf.h"
#include "base/redact.h"
#include "base/utf8.h"

static const char *const category_names[] = {
    [API_ERR_NONE] = "none",
    [API_ERR_CONTEXT_WINDOW] = "context_window_exceeded",
    [API_ERR_AUTH] = "auth",
    [API_ERR_BILLING] = "billing",
    [API_ERR_RATE_LIMIT] = "rate_limit",
    [API_ERR_OVERLOADED] = "overloaded",
    [API_ERR_SERVER] = "server_error",
    [API_ERR_NOT_FOUND] = "not_found",
    [API_ERR_CONTENT_POLICY] = "content_policy",
    [API_ERR_REQUEST_TOO_LARGE] = "request_too_large",
    [API_ERR_RESPONSE_TOO_LARGE] = "response_too_large",
    [API_ERR_NETWORK] = "network",
    [API_ERR_TIMEOUT] = "timeout",
    [API_ERR_BAD_REQUEST] = "bad_request",
    [API_ERR_ABORTED] = "aborted",
    [API_ERR_UNKNOWN] = "unknown",
};

const char *api_error_category_name(api_error_category c)
{
    if ((unsigned)c >= sizeof category_names / sizeof category_names[0])
        return "unknown";
    return category_names[c];
}

void api_error_init(api_error *e)
{
    memset(e, 0, sizeof *e);
    e->category = API_ERR_NONE;
    e->retry_after_seconds = -1;
    e->affordable_max_tokens = -1;
}

/* ---- text helpers ------------------------------------------------------------------ */

/* Copy s[0..n) into dst as one readable line: invalid UTF-8 repaired, control characters
 * and whitespace runs folded into one space, trimmed, cut at a character boundary. */
static void copy_line(char *dst, size_t cap, const char *s, size_t n)
{
    buf clean = BUF_INIT(n * 3 + 16);
    utf8_sanitize(s, n, &clean);
    size_t o = 0;
    bool space = true; /* drop leading space */
    for (size_t i = 0; clean.data && i < clean.len && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)clean.data[i];
        if (c < 0x20 || c == 0x7f || c == ' ') {
            if (!space)
                dst[o++] = ' ';
            space = true;
            continue;
        }
        dst[o++] = (char)c;
        space = false;
    }
    while (o > 0 && dst[o - 1] == ' ')
        o--;
    o = utf8_cut(dst, o, o);
    dst[o] = '\0';
    buf_release(&clean);
}

/* Lowercased copy with whitespace runs folded to one space, for wording checks. */
static void fold(char *dst, size_t cap, const char *s)
{
    size_t o = 0;
    bool space = false;
    for (; s && *s && o + 1 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (isspace(c)) {
            space = true;
            continue;
        }
        if (space && o > 0 && o + 2 < cap)
            dst[o++] = ' ';
        space = false;
        dst[o++] = (char)tolower(c);
    }
    dst[o] = '\0';
}

static bool has(const char *folded, const char *needle)
{
    return strstr(folded, needle) != NULL;
}

/* All needles appear in order. */
static bool has_seq(const char *folded, const char *a, const char *b)
{
    const char *p = strstr(folded, a);
    return p && strstr(p + strlen(a), b);
}

/* ---- what a body says -------------------------------------------------------------- */

typedef struct einfo {
    char message[API_ERROR_PROVIDER_MESSAGE_MAX];
    char type[64];
    char code[64];   /* string code, or the integer code printed */
    long code_num;   /* an integer code (OpenRouter/Gemini/vLLM/llama.cpp status), or 0 */
    char gstatus[48]; /* Gemini google.rpc status ("RESOURCE_EXHAUSTED") */
    char reason[64];  /* Gemini ErrorInfo.reason ("API_KEY_INVALID") */
    double retry_delay; /* Gemini RetryInfo.retryDelay, or -1 */
    bool per_day_quota;
    bool moderation;  /* OpenRouter moderation metadata (reasons / flagged_input) */
    bool html;
    bool found;       /* anything error-like was recognised */
} einfo;

static void einfo_init(einfo *x)
{
    memset(x, 0, sizeof *x);
    x->retry_delay = -1;
}

static void set_str(char *dst, size_t cap, const json_t *v)
{
    if (json_is_string(v))
        copy_line(dst, cap, json_string_value(v), json_string_length(v));
    else if (json_is_integer(v))
        snprintf(dst, cap, "%lld", (long long)json_integer_value(v));
}

static void read_details(einfo *x, const json_t *details)
{
    size_t i;
    json_t *d;
    json_array_foreach(details, i, d) {
        const char *t = json_string_value(json_object_get(d, "@type"));
        if (!t)
            continue;
        if (strstr(t, "ErrorInfo"))
            set_str(x->reason, sizeof x->reason, json_object_get(d, "reason"));
        else if (strstr(t, "RetryInfo"))
            x->retry_delay =
                api_retry_after_duration(json_string_value(json_object_get(d, "retryDelay")));
        else if (strstr(t, "QuotaFailure")) {
            size_t j;
            json_t *v;
            json_array_foreach(json_object_get(d, "violations"), j, v) {
                const char *q = json_string_value(json_object_get(v, "quotaId"));
                const char *m = json_string_value(json_object_get(v, "quotaMetric"));
                if ((q && strcasestr(q, "PerDay")) || (m && strcasestr(m, "per_day")))
                    x->per_day_quota = true;
            }
        }
    }
}

/* Read an error object: {message,type,code,status,details,metadata,param}. */
static void read_error_object(einfo *x, const json_t *e)
{
    const json_t *msg = json_object_get(e, "message");
    if (!json_is_string(msg))
        msg = json_object_get(e, "msg");
    if (!json_is_string(msg))
        msg = json_object_get(e, "detail");
    set_str(x->message, sizeof x->message, msg);
    const json_t *type = json_object_get(e, "type");
    if (json_is_string(type) && strcmp(json_string_value(type), "error") != 0)
        set_str(x->type, sizeof x->type, type);
    const json_t *code = json_object_get(e, "code");
    set_str(x->code, sizeof x->code, code);
    if (json_is_integer(code))
        x->code_num = (long)json_integer_value(code);
    else if (json_is_string(code)) {
        char *end;
        long v = strtol(json_string_value(code), &end, 10);
        if (*end == '\0' && v >= 100 && v <= 599)
            x->code_num = v;
    }
    const json_t *st = json_object_get(e, "status");
    if (json_is_string(st))
        set_str(x->gstatus, sizeof x->gstatus, st);
    else if (json_is_integer(st) && !x->code_num)
        x->code_num = (long)json_integer_value(st);
    read_details(x, json_object_get(e, "details"));
    const json_t *md = json_object_get(e, "metadata");
    if (json_is_object(md)) {
        if (json_object_get(md, "reasons") || json_object_get(md, "flagged_input"))
            x->moderation = true;
        if (!x->type[0])
            set_str(x->type, sizeof x->type, json_object_get(md, "error_type"));
    }
    x->found = x->message[0] || x->type[0] || x->code[0] || x->gstatus[0];
}

static void read_json(einfo *x, const json_t *root)
{
    if (json_is_array(root))
        root = json_array_get(root, 0); /* Gemini: [{"error":{...}}] */
    if (!json_is_object(root))
        return;
    const json_t *e = json_object_get(root, "error");
    if (json_is_object(e)) {
        read_error_object(x, e);
        /* Responses puts code/message at the top of an error event in the SDK's model. */
        if (!x->message[0])
            set_str(x->message, sizeof x->message, json_object_get(root, "message"));
        return;
    }
    if (json_is_string(e)) { /* Ollama native {"error":"..."} */
        set_str(x->message, sizeof x->message, e);
        x->found = true;
        return;
    }
    const json_t *resp = json_object_get(root, "response"); /* Responses response.failed */
    if (json_is_object(resp) && json_is_object(json_object_get(resp, "error"))) {
        read_error_object(x, json_object_get(resp, "error"));
        return;
    }
    /* vLLM flat {"object":"error",...}, Responses {"type":"error","code","message"},
     * FastAPI {"detail": ...}, plain {"message": ...}. */
    read_error_object(x, root);
    const json_t *detail = json_object_get(root, "detail");
    if (!x->message[0] && detail && !json_is_string(detail)) {
        char *dump = json_dumps(detail, JSON_COMPACT);
        if (dump) {
            copy_line(x->message, sizeof x->message, dump, strlen(dump));
            free(dump);
        }
        x->found = true;
    }
}

/* The text of an HTML page: its <title>, else its first <h1>, else the tag-stripped text. */
static void read_html(einfo *x, const char *s, size_t n)
{
    x->html = true;
    x->found = true;
    static const char *const tags[][2] = { { "<title", "</title" }, { "<h1", "</h1" } };
    for (size_t t = 0; t < 2; t++) {
        const char *open = memmem(s, n, tags[t][0], strlen(tags[t][0]));
        if (!open) {
            /* case-insensitive fallback */
            for (size_t i = 0; i + strlen(tags[t][0]) <= n; i++)
                if (strncasecmp(s + i, tags[t][0], strlen(tags[t][0])) == 0) {
                    open = s + i;
                    break;
                }
        }
        if (!open)
            continue;
        const char *gt = memchr(open, '>', n - (size_t)(open - s));
        if (!gt)
            continue;
        const char *start = gt + 1;
        size_t rest = n - (size_t)(start - s);
        const char *end = NULL;
        for (size_t i = 0; i + strlen(tags[t][1]) <= rest; i++)
            if (strncasecmp(start + i, tags[t][1], strlen(tags[t][1])) == 0) {
                end = start + i;
                break;
            }
        if (end && end > start) {
            copy_line(x->message, sizeof x->message, start, (size_t)(end - start));
            if (x->message[0])
                return;
        }
    }
    char text[API_ERROR_PROVIDER_MESSAGE_MAX];
    size_t o = 0;
    bool in_tag = false;
    for (size_t i = 0; i < n && o + 1 < sizeof text; i++) {
        if (s[i] == '<')
            in_tag = true;
        else if (s[i] == '>')
            in_tag = false;
        else if (!in_tag)
            text[o++] = s[i];
    }
    copy_line(x->message, sizeof x->message, text, o);
}

static bool looks_html(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i < n && s[i] != '<')
        return false;
    size_t lim = n < 512 ? n : 512;
    for (size_t j = i; j + 5 <= lim; j++)
        if (strncasecmp(s + j, "<html", 5) == 0 || strncasecmp(s + j, "<!doc", 5) == 0 ||
            strncasecmp(s + j, "<head", 5) == 0 || strncasecmp(s + j, "<body", 5) == 0 ||
            strncasecmp(s + j, "<titl", 5) == 0 || strncasecmp(s + j, "<h1", 3) == 0)
            return true;
    return false;
}

static void read_body(einfo *x, const char *body, size_t n)
{
    if (!body || n == 0)
        return;
    json_error_t je;
    json_t *root = json_loadb(body, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (root) {
        read_json(x, root);
        if (!x->found && json_is_string(root)) {
            set_str(x->message, sizeof x->message, root);
            x->found = x->message[0] != '\0';
        }
        json_decref(root);
        if (x->found)
            return;
    }
    if (looks_html(body, n)) {
        read_html(x, body, n);
        return;
    }
    /* Plain text: the first non-empty line(s), folded. */
    size_t lim = n < API_ERROR_PROVIDER_MESSAGE_MAX ? n : API_ERROR_PROVIDER_MESSAGE_MAX - 1;
    copy_line(x->message, sizeof x->message, body, utf8_cut(body, n, lim));
    x->found = x->message[0] != '\0';
}

/* ---- decisions --------------------------------------------------------------------- */

static bool eq(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}

static bool billing_wording(const char *m)
{
    return has(m, "credit balance") || has(m, "insufficient balance") ||
           has(m, "insufficient credit") || has(m, "insufficient_quota") ||
           has(m, "requires more credits") || has(m, "exceeded your current quota") ||
           has(m, "out of credits") || has(m, "insufficient funds") ||
           has(m, "payment required") || has(m, "billing details") ||
           has(m, "purchase credits") || has(m, "spend limit");
}

static bool context_wording(const char *m)
{
    static const char *const plain[] = {
        "context length", "context window", "context limit", "maximum context",
        "contextlength", "contextwindow", "too many tokens", "too many token",
        "input is too long", "prompt is too long", "prompt too long",
        "reduce the length of the messages", "exceeds the available context size",
        "exceed context limit", "exceeds context limit", "context size",
        "token limit exceeded", "maximum number of tokens allowed",
        "exceeds the maximum context", "exceeds the model's maximum",
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (has(m, plain[i]))
            return true;
    /* "tokens exceed", "token exceeds", "input tokens exceeds" (Cline's word rule). */
    if (has(m, "tokens exceed") || has(m, "token exceed"))
        return true;
    return has_seq(m, "input token count", "exceeds the maximum") ||
           has_seq(m, "requested input length", "exceeds") ||
           has_seq(m, "input length", "exceed");
}

static bool rate_wording(const char *m)
{
    return has(m, "rate limit") || has(m, "rate_limit") || has(m, "ratelimit") ||
           has(m, "per minute") || has(m, "too many requests");
}

static api_error_category decide(long status, const einfo *x, const char *m, bool in_stream,
                                 bool *not_retryable)
{
    const char *type = x->type, *code = x->code, *gs = x->gstatus;
    long st = status;
    if (in_stream && x->code_num >= 400 && x->code_num <= 599)
        st = x->code_num; /* OpenRouter/Gemini put the would-be status in the body */

    if (eq(code, "context_length_exceeded") || eq(type, "context_length_exceeded") ||
        eq(type, "exceed_context_size_error") || eq(code, "exceed_context_size_error"))
        return API_ERR_CONTEXT_WINDOW;

    if (eq(code, "insufficient_quota") || eq(type, "insufficient_quota"))
        return API_ERR_BILLING; /* OpenAI: a 429 that waiting cannot fix */

    /* 429 and Gemini RESOURCE_EXHAUSTED: rate limits, whatever the wording says (Gemini's
     * free tier says "You exceeded your current quota ... billing details" for a
     * per-minute limit it lifts in seconds). */
    if (st == 429 || eq(type, "rate_limit_error") || eq(code, "rate_limit_exceeded") ||
        eq(gs, "RESOURCE_EXHAUSTED")) {
        if (strncmp(m, "request too large", 17) == 0 || has(m, "must be reduced in order to run"))
            return API_ERR_REQUEST_TOO_LARGE;
        if (x->per_day_quota)
            *not_retryable = true;
        return API_ERR_RATE_LIMIT;
    }

    if (st == 402 || eq(type, "billing_error") || eq(code, "insufficient_credits") ||
        eq(code, "insufficient_balance") || billing_wording(m))
        return API_ERR_BILLING;

    if (st == 401 || eq(code, "invalid_api_key") || eq(type, "authentication_error") ||
        eq(x->reason, "API_KEY_INVALID") || eq(gs, "UNAUTHENTICATED") ||
        ((st == 400 || st == 403 || in_stream) &&
         (has(m, "api key not valid") || has(m, "invalid api key") ||
          has(m, "incorrect api key") || has(m, "invalid x-api-key") ||
          has(m, "api_key_invalid"))))
        return API_ERR_AUTH;

    if (st == 403 && x->moderation)
        return API_ERR_CONTENT_POLICY;
    if (eq(code, "content_filter") || eq(code, "content_policy_violation") ||
        eq(type, "content_filter") || has(m, "content management policy") ||
        has(m, "content policy") || (x->moderation && st >= 400 && st < 500))
        return API_ERR_CONTENT_POLICY;

    if (st == 403 || eq(type, "permission_error") || eq(gs, "PERMISSION_DENIED"))
        return API_ERR_AUTH;

    bool context_status = st == 400 || st == 413 || st == 422 || in_stream || st == 0;
    if (context_status && st != 429 && !rate_wording(m) && context_wording(m))
        return API_ERR_CONTEXT_WINDOW;

    if (st == 413 || eq(type, "request_too_large") || eq(code, "request_too_large"))
        return API_ERR_REQUEST_TOO_LARGE;

    if (st == 529 || eq(type, "overloaded_error") || eq(gs, "UNAVAILABLE") || st == 503 ||
        ((st >= 500 || in_stream) && (has(m, "overloaded") || has(m, "high demand"))))
        return API_ERR_OVERLOADED;

    if (st == 408 || eq(gs, "DEADLINE_EXCEEDED"))
        return API_ERR_TIMEOUT;

    if (st == 404 || eq(type, "not_found_error") || eq(gs, "NOT_FOUND"))
        return API_ERR_NOT_FOUND;

    if (st >= 500 || eq(type, "server_error") || eq(type, "api_error") ||
        eq(type, "timeout_error") || eq(gs, "INTERNAL") || eq(type, "provider_unavailable"))
        return API_ERR_SERVER;

    if (st >= 400 && st < 500)
        return API_ERR_BAD_REQUEST;
    if (eq(type, "invalid_request_error") || eq(gs, "INVALID_ARGUMENT") ||
        eq(gs, "FAILED_PRECONDITION"))
        return API_ERR_BAD_REQUEST;

    /* An error inside a 2xx stream that says nothing specific: the server failed mid-way. */
    if (in_stream)
        return API_ERR_SERVER;
    return API_ERR_UNKNOWN;
}

static bool category_retryable(api_error_category c, long status)
{
    switch (c) {
    case API_ERR_RATE_LIMIT:
    case API_ERR_OVERLOADED:
    case API_ERR_SERVER:
    case API_ERR_TIMEOUT:
    case API_ERR_NETWORK:
        return true;
    case API_ERR_BAD_REQUEST:
        return status == 409; /* conflict: the SDKs retry it */
    default:
        return false;
    }
}

static bool never_retry(api_error_category c)
{
    return c == API_ERR_CONTEXT_WINDOW || c == API_ERR_BILLING || c == API_ERR_AUTH ||
           c == API_ERR_REQUEST_TOO_LARGE || c == API_ERR_RESPONSE_TOO_LARGE ||
           c == API_ERR_CONTENT_POLICY;
}

static void appendf(char *dst, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *dst, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(dst);
    if (used + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dst + used, cap - used, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n >= cap - used) {
        size_t len = utf8_cut(dst, cap - 1, cap - 1);
        dst[len] = '\0';
    }
}

/* A provider may echo the key it was sent ("Incorrect API key provided: sk-proj-…"):
 * nothing of an error leaves this module with a secret in it. */
static void redact_error(api_error *e)
{
    redact_inplace(e->provider_message, sizeof e->provider_message);
    redact_inplace(e->message, sizeof e->message);
    redact_inplace(e->code, sizeof e->code);
}

static void compose(api_error *e, bool in_stream, bool html)
{
    redact_inplace(e->provider_message, sizeof e->provider_message);
    char where[96];
    if (in_stream)
        snprintf(where, sizeof where, "an error inside the response stream");
    else if (e->http_status > 0)
        snprintf(where, sizeof where, "HTTP %ld%s", e->http_status, html ? ", an HTML page" : "");
    else
        snprintf(where, sizeof where, "no response");
    const char *pm = e->provider_message[0] ? e->provider_message : "no details given";

    const char *what, *todo;
    switch (e->category) {
    case API_ERR_CONTEXT_WINDOW:
        what = "The conversation no longer fits in the model's context window";
        todo = "Compact or truncate the history (hew does this once by itself), or start a "
               "new task.";
        break;
    case API_ERR_AUTH:
        what = "The provider rejected the credentials";
        todo = "Check the API key (its environment variable or the config) and that it "
               "belongs to this provider and may use this model.";
        break;
    case API_ERR_BILLING:
        what = "The account is out of credits or quota";
        todo = "Add credits or check the plan and billing settings; retrying will not help.";
        break;
    case API_ERR_RATE_LIMIT:
        what = "The provider is rate limiting this account";
        todo = e->retryable ? "Wait and retry." : "The quota for today is used up: wait "
                                                  "until it resets or raise the limit.";
        break;
    case API_ERR_OVERLOADED:
        what = "The provider is overloaded";
        todo = "This is temporary: retry after a short wait.";
        break;
    case API_ERR_SERVER:
        what = "The provider failed while handling the request";
        todo = "This is usually temporary: retry.";
        break;
    case API_ERR_NOT_FOUND:
        what = "The provider does not know this model or endpoint";
        todo = "Check the model name and the base URL.";
        break;
    case API_ERR_CONTENT_POLICY:
        what = "The provider's content policy blocked the request";
        todo = "Rephrase the request or remove the flagged content.";
        break;
    case API_ERR_REQUEST_TOO_LARGE:
        what = "The request is too large for the provider";
        todo = "Send less: shorten the history, drop large attachments or lower max_tokens; "
               "waiting will not help.";
        break;
    case API_ERR_TIMEOUT:
        what = "The request timed out";
        todo = "Check the network and the server, then retry.";
        break;
    case API_ERR_NETWORK:
        what = "Could not talk to the provider";
        todo = "Check the network connection, proxy settings and the base URL, then retry.";
        break;
    case API_ERR_BAD_REQUEST:
        what = "The provider refused the request as invalid";
        todo = "Check the model and its settings (some models refuse some options); if "
               "they are right, this is a bug in hew worth reporting.";
        break;
    case API_ERR_ABORTED:
        what = "The request was stopped";
        todo = "Nothing to do.";
        break;
    default:
        what = "The provider returned an unexpected error";
        todo = "Retry; if it persists, check the provider's status page.";
        break;
    }
    e->message[0] = '\0';
    appendf(e->message, sizeof e->message, "%s (%s: \"%s\"). %s", what, where, pm, todo);
    if (e->retryable && e->retry_after_seconds >= 0)
        appendf(e->message, sizeof e->message, " The server asks to wait %.3g s.",
                e->retry_after_seconds);
    if (e->affordable_max_tokens >= 0)
        appendf(e->message, sizeof e->message,
                " A request with max_tokens of at most %ld can still succeed.",
                e->affordable_max_tokens);
}

static api_bucket bucket_of(const einfo *x, const char *m)
{
    if (eq(x->type, "tokens") || has(m, "tokens per min") || has(m, "(tpm)"))
        return API_BUCKET_TOKENS;
    if (eq(x->type, "requests") || has(m, "requests per min") || has(m, "(rpm)"))
        return API_BUCKET_REQUESTS;
    return API_BUCKET_UNKNOWN;
}

static void finish(api_error *out, long status, const einfo *x, const http_header *h, size_t nh,
                   bool in_stream)
{
    char m[API_ERROR_PROVIDER_MESSAGE_MAX * 2];
    fold(m, sizeof m, x->message);
    bool not_retryable = false;
    api_error_category c = decide(status, x, m, in_stream, &not_retryable);
    out->category = c;
    out->http_status = status;
    out->context_window_exceeded = c == API_ERR_CONTEXT_WINDOW;
    snprintf(out->provider_message, sizeof out->provider_message, "%s", x->message);
    const char *code = x->code[0] ? x->code : x->type[0] ? x->type : x->gstatus;
    snprintf(out->code, sizeof out->code, "%s", code);

    bool retry = category_retryable(c, in_stream && x->code_num ? x->code_num : status) &&
                 !not_retryable;
    const char *sr = api_header_get(h, nh, "x-should-retry");
    if (sr && !never_retry(c)) {
        if (eq(sr, "true"))
            retry = true;
        else if (eq(sr, "false"))
            retry = false;
    }
    out->retryable = retry;

    out->retry_after_seconds = -1;
    if (retry) {
        time_t now = time(NULL);
        double d = api_retry_after_explicit(h, nh, now);
        if (d < 0)
            d = x->retry_delay;
        if (d < 0 && c == API_ERR_RATE_LIMIT)
            d = api_retry_after_ratelimit(h, nh, bucket_of(x, m), now);
        if (d < 0)
            d = api_retry_after_message(x->message);
        out->retry_after_seconds = d;
    }

    if (c == API_ERR_BILLING) {
        const char *p = strstr(m, "can only afford ");
        if (p) {
            char *end;
            long v = strtol(p + 16, &end, 10);
            if (end != p + 16 && v >= 0)
                out->affordable_max_tokens = v;
        }
    }
    compose(out, in_stream, x->html);
    redact_error(out);
}

void api_classify(long status, const http_header *headers, size_t nheaders, const char *body,
                  size_t body_len, api_error *out)
{
    api_error_init(out);
    einfo x;
    einfo_init(&x);
    read_body(&x, body, body_len);
    if (!x.message[0] && status > 0) {
        const char *phrase = status == 502   ? "Bad Gateway"
                             : status == 503 ? "Service Unavailable"
                             : status == 504 ? "Gateway Timeout"
                             : status == 500 ? "Internal Server Error"
                                             : "empty body";
        snprintf(x.message, sizeof x.message, "%s", phrase);
    }
    finish(out, status, &x, headers, nheaders, false);
}

void api_classify_stream_json(const void *json, long http_status, api_error *out)
{
    api_error_init(out);
    einfo x;
    einfo_init(&x);
    read_json(&x, json);
    if (!x.message[0])
        snprintf(x.message, sizeof x.message, "%s",
                 x.code[0] ? x.code : "the stream reported an error without a message");
    finish(out, http_status, &x, NULL, 0, true);
}

/* An error hew found in a 200 stream itself: its class, code and what happened. */
static void stream_error(api_error *out, api_error_category category, bool retryable,
                         const char *code, const char *what)
{
    api_error_init(out);
    out->category = category;
    out->retryable = retryable;
    out->http_status = 200;
    snprintf(out->code, sizeof out->code, "%s", code);
    copy_line(out->provider_message, sizeof out->provider_message, what, strlen(what));
    out->message[0] = '\0';
}

void api_error_stream(api_error *out, const char *what)
{
    stream_error(out, API_ERR_SERVER, true, "incomplete_stream", what);
    appendf(out->message, sizeof out->message,
            "The response stream broke off before the provider finished the turn (%s). "
            "Whatever arrived is incomplete; retry the request.",
            out->provider_message);
    redact_error(out);
}

void api_error_not_stream(long status, const char *body, size_t body_len, api_error *out)
{
    api_classify(status, NULL, 0, body, body_len, out);
    out->retryable = false;
    out->retry_after_seconds = -1;
    if (out->category != API_ERR_UNKNOWN)
        return;
    out->category = API_ERR_SERVER;
    out->message[0] = '\0';
    appendf(out->message, sizeof out->message,
            "The server answered HTTP %ld with something that is not an event stream (\"%s\"). "
            "Check the base URL: it must point at the provider's API, not at a web page. A "
            "retry would get the same answer, so hew does not retry it.",
            status, out->provider_message[0] ? out->provider_message : "no details given");
    redact_error(out);
}

void api_error_too_large(api_error *out, const char *what)
{
    stream_error(out, API_ERR_RESPONSE_TOO_LARGE, false, "response_too_large", what);
    appendf(out->message, sizeof out->message,
            "The model's answer is too large for hew to take in (%s). A retry would get the "
            "same kind of answer and fail the same way, so hew does not retry it. Ask for "
            "smaller steps: have the model write a big file in parts (the start with "
            "write_to_file, the rest with replace_in_file), or split the task.",
            out->provider_message);
    redact_error(out);
}

void api_error_transport(const hew_err *err, api_error *out)
{
    api_error_init(out);
    const char *msg = err && err->msg[0] ? err->msg : "unknown transport failure";
    copy_line(out->provider_message, sizeof out->provider_message, msg, strlen(msg));
    hew_code code = err ? err->code : HEW_E_INTERNAL;
    switch (code) {
    case HEW_E_NET:
        out->category = API_ERR_NETWORK;
        out->retryable = true;
        break;
    case HEW_E_TIMEOUT:
        out->category = API_ERR_TIMEOUT;
        out->retryable = true;
        break;
    case HEW_E_ABORTED:
        out->category = API_ERR_ABORTED;
        break;
    default:
        out->category = API_ERR_UNKNOWN;
        break;
    }
    snprintf(out->code, sizeof out->code, "%s", hew_code_name(code));
    compose(out, false, false);
    redact_error(out);
}
