/* reqcheck — the contract rules that matter most, checked on a recorded request body
 * (tests/support/fakeprov.h fakeprov_requests, "body"): every tool call the request's
 * history carries is answered right after it, and no tool result stands without its
 * call. One check per wire protocol; each names the provider rule it mirrors and the
 * error text the real API gives, so a failing test reads like the 400 a user would get.
 *
 * It is the test side's own minimal check, not the strict fake provider
 * (fake-provider/validate*.c): it must never pass a body the real API refuses for these
 * rules, and never judge anything else. Pure: no I/O, no allocation kept. */
#ifndef HEW_TEST_REQCHECK_H
#define HEW_TEST_REQCHECK_H

#include <jansson.h>
#include <stddef.h>

typedef enum reqcheck_proto {
    REQCHECK_ANTHROPIC,        /* body.messages, Anthropic Messages */
    REQCHECK_OPENAI_CHAT,      /* body.messages, OpenAI Chat Completions */
    REQCHECK_OPENAI_RESPONSES, /* body.input, OpenAI Responses */
    REQCHECK_GEMINI            /* body.contents, Gemini generateContent */
} reqcheck_proto;

/* 0 when body keeps the rules; else -1 with the rule that broke in rule (a short stable
 * name such as "anthropic.tool_use_unanswered", for grouping) and what broke, with the
 * JSON path, in why. rule and why are always NUL-terminated when their size is > 0. */
int reqcheck_body(reqcheck_proto proto, const json_t *body, char *rule, size_t rulelen,
                  char *why, size_t whylen);

#endif
