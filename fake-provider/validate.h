/* validate — the strict side of hew-fake-provider: every request to a provider path is
 * checked the way the real API checks it, and a violation is answered with that API's own
 * HTTP 400 body, so a client that sends a conversation the real service would refuse
 * fails against the fake too.
 *
 * The protocol is chosen by the request path alone (the scenario's responses say nothing
 * about what the client sent): /v1/messages -> Anthropic, .../chat/completions -> OpenAI
 * Chat, .../responses -> OpenAI Responses, ...:streamGenerateContent or :generateContent ->
 * Gemini. Any other path is not validated.
 *
 * The rules live in one file per protocol (validate_anthropic.c, validate_openai_chat.c,
 * validate_responses.c, validate_gemini.c), each a table of small checks run in order;
 * every check names the rule it mirrors and where the rule and its message text come
 * from. The first failing check wins, as on the real services. Checks read the parsed
 * jansson tree in place (requests may be megabytes): they never copy it and never keep a
 * reference.
 *
 * This module never does I/O and never changes the request. It must never report a
 * violation the real API would accept: a false positive is worse than a missing rule, so
 * a rule whose real behaviour is unsure is left out (and said so where it would be). */
#ifndef HEW_FAKE_VALIDATE_H
#define HEW_FAKE_VALIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum validate_proto {
    VALIDATE_NONE,        /* a path no rule applies to */
    VALIDATE_ANTHROPIC,
    VALIDATE_OPENAI_CHAT,
    VALIDATE_RESPONSES,
    VALIDATE_GEMINI,
} validate_proto;

/* One violation: the API's message text and, for OpenAI, its "param" ("" = null). */
typedef struct validate_violation {
    char message[2048];
    char param[160];
} validate_violation;

/* The protocol a request path (without the query) speaks. */
validate_proto validate_proto_of(const char *path);

/* The protocol's name for logs ("anthropic", ...; "none"). */
const char *validate_proto_name(validate_proto p);

/* Check body (the parsed request, borrowed; NULL when the body was not JSON) against p's
 * rules. true: a violation, described in *v; false: the request is valid (and *v is
 * untouched). VALIDATE_NONE is always valid. */
bool validate_request(validate_proto p, const json_t *body, validate_violation *v);

/* The HTTP 400 body the real API sends for v, byte-shaped as that service sends it
 * (Anthropic compact with a request_id, OpenAI and Gemini pretty-printed). request_no
 * makes the Anthropic request id. A new string the caller frees; NULL when out of
 * memory. */
char *validate_error_body(validate_proto p, const validate_violation *v, size_t request_no);

/* The content-type of p's error body, and the response header carrying its request id
 * (NULL: none). */
const char *validate_content_type(validate_proto p);
const char *validate_request_id_header(validate_proto p);

/* The signature the fake gives a thinking text it generated: "sig_fake_" and 16 hex
 * digits of a hash of the text, so a thinking block sent back altered is detected.
 * Writes at most cap bytes (cap >= 26 holds it whole). */
void validate_sign_thinking(const char *text, size_t len, char *out, size_t cap);

/* ---- shared by the per-protocol files ------------------------------------------------ */

/* Fill v (printf-style message; param may be NULL for none) and return true. */
bool validate_fail(validate_violation *v, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A check: true when it found a violation (and filled v). */
typedef bool (*validate_check)(const json_t *body, validate_violation *v);

/* One rule of a protocol's table. */
typedef struct validate_rule {
    const char *name;     /* what is checked, for the reader */
    validate_check check;
} validate_rule;

/* Run rules in order; true on the first violation. */
bool validate_run(const validate_rule *rules, size_t n, const json_t *body,
                  validate_violation *v);

/* true when s (len bytes) is empty or only whitespace. */
bool validate_blank(const char *s, size_t len);

/* Append id to a comma-separated list in out (capped, never overflows). */
void validate_list_add(char *out, size_t cap, const char *id);

/* The protocol entry points (one file each). */
bool validate_anthropic(const json_t *body, validate_violation *v);
bool validate_openai_chat(const json_t *body, validate_violation *v);
bool validate_responses(const json_t *body, validate_violation *v);
bool validate_gemini(const json_t *body, validate_violation *v);

#endif
