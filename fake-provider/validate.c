/* validate — dispatch of the strict request checks by path, the error bodies of the four
 * APIs, the fake's thinking signatures and the helpers the per-protocol rule tables share
 * (see validate.h). Never does I/O; never copies or changes the request tree. */
#include "validate.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How each protocol is recognised and how its 400 looks on the wire. */
typedef struct validate_api {
    validate_proto proto;
    const char *name;
    const char *suffix;    /* the path ends with this (Gemini: contains it, then a verb) */
    bool (*check)(const json_t *body, validate_violation *v);
} validate_api;

static const validate_api apis[] = {
    {VALIDATE_ANTHROPIC, "anthropic", "/messages", validate_anthropic},
    {VALIDATE_OPENAI_CHAT, "openai-chat", "/chat/completions", validate_openai_chat},
    {VALIDATE_RESPONSES, "openai-responses", "/responses", validate_responses},
    {VALIDATE_GEMINI, "gemini", ":streamGenerateContent", validate_gemini},
    {VALIDATE_GEMINI, "gemini", ":generateContent", validate_gemini},
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

validate_proto validate_proto_of(const char *path)
{
    if (!path)
        return VALIDATE_NONE;
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
        if (ends_with(path, apis[i].suffix))
            return apis[i].proto;
    return VALIDATE_NONE;
}

const char *validate_proto_name(validate_proto p)
{
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
        if (apis[i].proto == p)
            return apis[i].name;
    return "none";
}

bool validate_request(validate_proto p, const json_t *body, validate_violation *v)
{
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
        if (apis[i].proto == p)
            return apis[i].check(body, v);
    return false;
}

bool validate_fail(validate_violation *v, const char *param, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    snprintf(v->param, sizeof v->param, "%s", param ? param : "");
    return true;
}

bool validate_run(const validate_rule *rules, size_t n, const json_t *body,
                  validate_violation *v)
{
    for (size_t i = 0; i < n; i++)
        if (rules[i].check(body, v))
            return true;
    return false;
}

bool validate_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && s[i] != '\f' &&
            s[i] != '\v')
            return false;
    return true;
}

void validate_list_add(char *out, size_t cap, const char *id)
{
    size_t used = strlen(out);
    if (used + 1 >= cap)
        return;
    snprintf(out + used, cap - used, "%s%s", used ? ", " : "", id ? id : "");
}

/* ---- error bodies ----------------------------------------------------------------- */

/* Anthropic: {"type":"error","error":{"type":"invalid_request_error","message":…},
 * "request_id":"req_…"}, compact, no newline (as in tests/fixtures/providers/
 * error_prompt_too_long_anthropic.json and the bodies quoted in anthropics/claude-code
 * issues #6521, #13460). */
static json_t *anthropic_body(const validate_violation *v, size_t n)
{
    char rid[64];
    snprintf(rid, sizeof rid, "req_fake_strict_%zu", n);
    return json_pack("{s:s,s:{s:s,s:s},s:s}", "type", "error", "error", "type",
                     "invalid_request_error", "message", v->message, "request_id", rid);
}

/* OpenAI (Chat and Responses): {"error":{"message","type","param","code":null}},
 * pretty-printed with four spaces and a final newline (tests/fixtures/providers/
 * error_429_openai.json; the param/code shape from the bodies quoted in
 * miurla/morphic#136 and router-for-me/CLIProxyAPI#2798). */
static json_t *openai_body(const validate_violation *v)
{
    return json_pack("{s:{s:s,s:s,s:o,s:n}}", "error", "message", v->message, "type",
                     "invalid_request_error", "param",
                     v->param[0] ? json_string(v->param) : json_null(), "code");
}

/* Gemini (google.rpc.Status): {"error":{"code":400,"message","status":"INVALID_ARGUMENT"}}
 * pretty-printed with two spaces (providers.md §5.3; google-gemini/gemini-cli#4504). */
static json_t *gemini_body(const validate_violation *v)
{
    return json_pack("{s:{s:i,s:s,s:s}}", "error", "code", 400, "message", v->message,
                     "status", "INVALID_ARGUMENT");
}

char *validate_error_body(validate_proto p, const validate_violation *v, size_t request_no)
{
    json_t *j = NULL;
    size_t flags = JSON_PRESERVE_ORDER;
    bool newline = true;
    switch (p) {
    case VALIDATE_ANTHROPIC:
        j = anthropic_body(v, request_no);
        flags |= JSON_COMPACT;
        newline = false;
        break;
    case VALIDATE_OPENAI_CHAT:
    case VALIDATE_RESPONSES:
        j = openai_body(v);
        flags |= JSON_INDENT(4);
        break;
    case VALIDATE_GEMINI:
        j = gemini_body(v);
        flags |= JSON_INDENT(2);
        break;
    case VALIDATE_NONE:
        return NULL;
    }
    char *s = j ? json_dumps(j, flags) : NULL;
    json_decref(j);
    if (!s || !newline)
        return s;
    size_t len = strlen(s);
    char *t = realloc(s, len + 2);
    if (!t) {
        free(s);
        return NULL;
    }
    t[len] = '\n';
    t[len + 1] = '\0';
    return t;
}

const char *validate_content_type(validate_proto p)
{
    return p == VALIDATE_GEMINI ? "application/json; charset=UTF-8" : "application/json";
}

const char *validate_request_id_header(validate_proto p)
{
    switch (p) {
    case VALIDATE_ANTHROPIC:
        return "request-id";
    case VALIDATE_OPENAI_CHAT:
    case VALIDATE_RESPONSES:
        return "x-request-id";
    default:
        return NULL;
    }
}

/* ---- thinking signatures -------------------------------------------------------------- */

void validate_sign_thinking(const char *text, size_t len, char *out, size_t cap)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a, 64 bits */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 1099511628211ULL;
    }
    snprintf(out, cap, "sig_fake_%016llx", (unsigned long long)h);
}
