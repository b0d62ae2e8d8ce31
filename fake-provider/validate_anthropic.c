/* validate_anthropic — the Anthropic Messages API's request rules, as a table of checks
 * run in order (see validate.h). Every message text is the API's own, taken from the 400
 * bodies users quote (sources beside each check). Consecutive messages of the same role
 * are one turn for the API ("Consecutive user or assistant turns in your request will be
 * combined into a single turn", Messages API reference), so tool pairing is checked per
 * turn. Never copies or changes the request. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "validate.h"
#include "validate_image.h"

#define ID_LIST_MAX 1024

static const json_t *messages_of(const json_t *body)
{
    return json_object_get(body, "messages");
}

static const char *role_of(const json_t *m)
{
    return json_string_value(json_object_get(m, "role"));
}

static const char *type_of(const json_t *b)
{
    const char *t = json_string_value(json_object_get(b, "type"));
    return t ? t : "";
}

static bool is_type(const json_t *b, const char *t)
{
    return strcmp(type_of(b), t) == 0;
}

/* The body must be a JSON object at all. Message text: our wording (no quoted sample of
 * the API's answer to a non-object body was found). */
static bool check_object(const json_t *body, validate_violation *v)
{
    if (json_is_object(body))
        return false;
    return validate_fail(v, NULL, "The request body is not valid JSON: expected an object");
}

/* model and max_tokens are required (Messages API reference: both "required"); the
 * validation error names the field: "max_tokens: Field required" (pydantic-style
 * locations, as in "messages.1.content.0.signature: Field required"). */
static bool check_required(const json_t *body, validate_violation *v)
{
    static const char *const fields[] = {"model", "max_tokens", "messages"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!json_object_get(body, fields[i]))
            return validate_fail(v, NULL, "%s: Field required", fields[i]);
    if (!json_is_array(messages_of(body)))
        return validate_fail(v, NULL, "messages: Input should be a valid list");
    return false;
}

/* Roles are "user" or "assistant" only; there is no "system" role in messages (Messages
 * API reference, "messages[].role": enum user, assistant). */
static bool check_roles(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *m;
    json_array_foreach(messages_of(body), i, m) {
        const char *r = role_of(m);
        if (!r || (strcmp(r, "user") != 0 && strcmp(r, "assistant") != 0))
            return validate_fail(v, NULL, "messages.%zu.role: Input should be 'user' or "
                                          "'assistant'", i);
    }
    return false;
}

/* The first message must use the user role (Messages API reference: "the first message
 * must always use the user role"; the API's text: "messages: first message must use the
 * \"user\" role", lobehub/lobehub#1601). */
static bool check_first_user(const json_t *body, validate_violation *v)
{
    const json_t *m0 = json_array_get(messages_of(body), 0);
    if (!m0)
        return validate_fail(v, NULL, "messages: at least one message is required");
    if (strcmp(role_of(m0), "user") != 0)
        return validate_fail(v, NULL, "messages: first message must use the \"user\" role");
    return false;
}

/* Every message has non-empty content, except that the last one may be an empty
 * assistant prefill ("messages.0: all messages must have non-empty content except for the
 * optional final assistant message", anthropics/claude-code#6774). */
static bool check_nonempty(const json_t *body, validate_violation *v)
{
    const json_t *msgs = messages_of(body);
    size_t n = json_array_size(msgs), i;
    const json_t *m;
    json_array_foreach(msgs, i, m) {
        const json_t *c = json_object_get(m, "content");
        if (!c)
            return validate_fail(v, NULL, "messages.%zu.content: Field required", i);
        bool empty = json_is_string(c) ? json_string_length(c) == 0
                                       : json_is_array(c) && json_array_size(c) == 0;
        if (empty && !(i + 1 == n && strcmp(role_of(m), "assistant") == 0))
            return validate_fail(v, NULL,
                                 "messages.%zu: all messages must have non-empty content "
                                 "except for the optional final assistant message",
                                 i);
    }
    return false;
}

/* Blocks carry the fields their type requires (Messages API reference, content block
 * shapes): thinking {thinking, signature}, redacted_thinking {data}, tool_use {id, name,
 * input}, tool_result {tool_use_id}. The error's location names the block type and the
 * field: "…content.0.thinking.signature: Field required" (WordPress/ai-provider-for-
 * anthropic#27). A tool_use id must match ^[a-zA-Z0-9_-]+$
 * ("messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
 * HKUDS/nanobot#4356 and agents that replayed other providers' ids). */
static bool id_ok(const char *id)
{
    if (!id || !*id)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            return false;
    return true;
}

static bool check_block_fields(const json_t *body, validate_violation *v)
{
    static const struct {
        const char *type;
        const char *fields[3];
    } required[] = {
        {"thinking", {"thinking", "signature", NULL}},
        {"redacted_thinking", {"data", NULL, NULL}},
        {"tool_use", {"id", "name", "input"}},
        {"tool_result", {"tool_use_id", NULL, NULL}},
        {"text", {"text", NULL, NULL}},
    };
    size_t i;
    const json_t *m;
    json_array_foreach(messages_of(body), i, m) {
        const json_t *c = json_object_get(m, "content");
        size_t k;
        const json_t *b;
        json_array_foreach(c, k, b) {
            for (size_t r = 0; r < sizeof required / sizeof required[0]; r++) {
                if (!is_type(b, required[r].type))
                    continue;
                for (size_t f = 0; f < 3 && required[r].fields[f]; f++)
                    if (!json_object_get(b, required[r].fields[f]))
                        return validate_fail(v, NULL, "messages.%zu.content.%zu.%s.%s: Field "
                                                      "required",
                                             i, k, required[r].type, required[r].fields[f]);
            }
            if (is_type(b, "tool_use") &&
                !id_ok(json_string_value(json_object_get(b, "id"))))
                return validate_fail(v, NULL,
                                     "messages.%zu.content.%zu.tool_use.id: String should "
                                     "match "
                                     "pattern '^[a-zA-Z0-9_-]+$'",
                                     i, k);
        }
    }
    return false;
}

/* Text blocks: an empty one is refused anywhere ("messages: text content blocks must be
 * non-empty", anthropics/claude-code#59812); a whitespace-only one is refused when its
 * message has no other non-whitespace text ("messages: text content blocks must contain
 * non-whitespace text", anthropics/claude-code#23369; the exact condition measured in
 * LibreChat-AI/agents#124: [' '] and ['\n'] refused, [' ', 'real'] accepted). A blank
 * block beside a tool_use, tool_result, image or thinking block is let through: no
 * measurement of that case was found. A string content counts as one text block. */
static bool text_blank(const json_t *b, bool *empty)
{
    const json_t *t = json_object_get(b, "text");
    *empty = json_string_length(t) == 0;
    return validate_blank(json_string_value(t) ? json_string_value(t) : "",
                          json_string_length(t));
}

static bool check_text_blocks(const json_t *body, validate_violation *v)
{
    const json_t *msgs = messages_of(body);
    size_t n = json_array_size(msgs), i;
    const json_t *m;
    json_array_foreach(msgs, i, m) {
        const json_t *c = json_object_get(m, "content");
        bool last_assistant = i + 1 == n && strcmp(role_of(m), "assistant") == 0;
        if (json_is_string(c)) {
            if (json_string_length(c) && validate_blank(json_string_value(c),
                                                        json_string_length(c)) &&
                !last_assistant)
                return validate_fail(v, NULL, "messages: text content blocks must contain "
                                              "non-whitespace text");
            continue;
        }
        bool has_blank = false, has_text = false;
        size_t k;
        const json_t *b;
        json_array_foreach(c, k, b) {
            if (is_type(b, "tool_result")) {
                size_t j;
                const json_t *x;
                json_array_foreach(json_object_get(b, "content"), j, x) {
                    bool e;
                    if (is_type(x, "text") && (text_blank(x, &e), e))
                        return validate_fail(v, NULL, "messages: text content blocks must "
                                                      "be non-empty");
                }
            }
            if (!is_type(b, "text")) {
                has_text = true; /* other content: see above */
                continue;
            }
            bool empty;
            bool blank = text_blank(b, &empty);
            if (empty)
                return validate_fail(v, NULL, "messages: text content blocks must be "
                                              "non-empty");
            has_blank |= blank;
            has_text |= !blank;
        }
        if (has_blank && !has_text && !last_assistant)
            return validate_fail(v, NULL, "messages: text content blocks must contain "
                                          "non-whitespace text");
    }
    return false;
}

/* At most 4 blocks with cache_control over tools, system and messages ("A maximum of 4
 * blocks with cache_control may be provided. Found 5.", tghamm/Anthropic.SDK#50; prompt
 * caching docs: "You can define up to 4 cache breakpoints"). */
static size_t count_cache(const json_t *arr)
{
    size_t n = 0, i;
    const json_t *b;
    json_array_foreach(arr, i, b) {
        if (json_object_get(b, "cache_control"))
            n++;
        n += count_cache(json_object_get(b, "content"));
    }
    return n;
}

static bool check_cache_control(const json_t *body, validate_violation *v)
{
    size_t n = count_cache(json_object_get(body, "tools")) +
               count_cache(json_object_get(body, "system"));
    size_t i;
    const json_t *m;
    json_array_foreach(messages_of(body), i, m)
        n += count_cache(json_object_get(m, "content"));
    if (n > 4)
        return validate_fail(v, NULL,
                             "A maximum of 4 blocks with cache_control may be provided. "
                             "Found %zu.",
                             n);
    return false;
}

/* tool_use ids are unique over the whole request ("messages.1.content.1: `tool_use` ids
 * must be unique", anthropics/claude-code#20901). */
static bool check_unique_ids(const json_t *body, validate_violation *v)
{
    const json_t *msgs = messages_of(body);
    size_t i;
    const json_t *m;
    json_array_foreach(msgs, i, m) {
        size_t k;
        const json_t *b;
        json_array_foreach(json_object_get(m, "content"), k, b) {
            if (!is_type(b, "tool_use"))
                continue;
            const char *id = json_string_value(json_object_get(b, "id"));
            /* any earlier tool_use with the same id? */
            for (size_t i2 = 0; i2 <= i; i2++) {
                const json_t *c2 = json_object_get(json_array_get(msgs, i2), "content");
                size_t lim = i2 == i ? k : json_array_size(c2);
                for (size_t k2 = 0; k2 < lim; k2++) {
                    const json_t *b2 = json_array_get(c2, k2);
                    if (is_type(b2, "tool_use") &&
                        strcmp(json_string_value(json_object_get(b2, "id")), id) == 0)
                        return validate_fail(v, NULL,
                                             "messages.%zu.content.%zu: `tool_use` ids must "
                                             "be unique",
                                             i, k);
                }
            }
        }
    }
    return false;
}

/* A request whose messages hold tool_use or tool_result blocks must define tools
 * ("Requests which include tool_use or tool_result blocks must define tools.",
 * anthropics/anthropic-sdk-python#494): a conversation taken over by a request without
 * native tools must carry its earlier calls as text. */
static bool check_tools_defined(const json_t *body, validate_violation *v)
{
    if (json_array_size(json_object_get(body, "tools")) > 0)
        return false;
    size_t i;
    const json_t *m;
    json_array_foreach(messages_of(body), i, m) {
        size_t k;
        const json_t *b;
        json_array_foreach(json_object_get(m, "content"), k, b)
            if (is_type(b, "tool_use") || is_type(b, "tool_result"))
                return validate_fail(v, NULL, "Requests which include tool_use or tool_result "
                                              "blocks must define tools.");
    }
    return false;
}

/* A turn: messages [first, end) of one role. */
typedef struct turn {
    size_t first, end;
} turn;

static turn next_turn(const json_t *msgs, size_t from)
{
    turn t = {from, from};
    size_t n = json_array_size(msgs);
    if (from >= n)
        return t;
    const char *r = role_of(json_array_get(msgs, from));
    while (t.end < n && strcmp(role_of(json_array_get(msgs, t.end)), r) == 0)
        t.end++;
    return t;
}

/* Does assistant turn a hold a tool_use with this id? */
static bool turn_has_use(const json_t *msgs, turn a, const char *id)
{
    for (size_t i = a.first; i < a.end; i++) {
        size_t k;
        const json_t *b;
        json_array_foreach(json_object_get(json_array_get(msgs, i), "content"), k, b)
            if (is_type(b, "tool_use") && id &&
                strcmp(json_string_value(json_object_get(b, "id")), id) == 0)
                return true;
    }
    return false;
}

/* Is there a tool_result for id among the leading tool_result blocks of user turn u? */
static bool turn_leads_with_result(const json_t *msgs, turn u, const char *id)
{
    for (size_t i = u.first; i < u.end; i++) {
        size_t k;
        const json_t *b;
        json_array_foreach(json_object_get(json_array_get(msgs, i), "content"), k, b) {
            if (!is_type(b, "tool_result"))
                return false; /* the leading run of results ends here */
            const char *rid = json_string_value(json_object_get(b, "tool_use_id"));
            if (rid && strcmp(rid, id) == 0)
                return true;
        }
        if (!json_is_array(json_object_get(json_array_get(msgs, i), "content")))
            return false; /* a string content is text */
    }
    return false;
}

/* Every tool_use is answered by a tool_result with its id, FIRST in the very next user
 * message ("messages.33: `tool_use` ids were found without `tool_result` blocks
 * immediately after: toolu_…. Each `tool_use` block must have a corresponding
 * `tool_result` block in the next message.", Kilo-Org/kilocode#5163; the tool use docs:
 * "tool_result blocks must come FIRST in the content array"). A tool_use in a final
 * assistant message (a prefill, nothing after it) is not checked: no sample of the API's
 * answer to that was found.
 *
 * No tool_result without its tool_use in the previous assistant message
 * ("messages.12.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_….
 * Each `tool_result` block must have a corresponding `tool_use` block in the previous
 * message.", router-for-me/CLIProxyAPI#497, anthropics/claude-code#13460). */
static bool check_tool_pairs(const json_t *body, validate_violation *v)
{
    const json_t *msgs = messages_of(body);
    size_t n = json_array_size(msgs);
    turn prev = {0, 0};
    bool have_prev = false;
    for (size_t at = 0; at < n;) {
        turn t = next_turn(msgs, at);
        bool user = strcmp(role_of(json_array_get(msgs, t.first)), "user") == 0;
        if (user) {
            for (size_t i = t.first; i < t.end; i++) {
                size_t k;
                const json_t *b;
                json_array_foreach(json_object_get(json_array_get(msgs, i), "content"), k, b) {
                    if (!is_type(b, "tool_result"))
                        continue;
                    const char *id = json_string_value(json_object_get(b, "tool_use_id"));
                    if (!have_prev || !turn_has_use(msgs, prev, id))
                        return validate_fail(v, NULL,
                                             "messages.%zu.content.%zu: unexpected "
                                             "`tool_use_id` found in `tool_result` blocks: "
                                             "%s. Each `tool_result` block must have a "
                                             "corresponding `tool_use` block in the previous "
                                             "message.",
                                             i, k, id ? id : "");
                }
            }
        } else if (t.end < n) {
            turn u = next_turn(msgs, t.end);
            char missing[ID_LIST_MAX] = "";
            size_t where = SIZE_MAX;
            for (size_t i = t.first; i < t.end; i++) {
                size_t k;
                const json_t *b;
                json_array_foreach(json_object_get(json_array_get(msgs, i), "content"), k, b) {
                    const char *id = json_string_value(json_object_get(b, "id"));
                    if (!is_type(b, "tool_use") || !id || turn_leads_with_result(msgs, u, id))
                        continue;
                    if (where == SIZE_MAX)
                        where = i;
                    validate_list_add(missing, sizeof missing, id);
                }
            }
            if (where != SIZE_MAX)
                return validate_fail(v, NULL,
                                     "messages.%zu: `tool_use` ids were found without "
                                     "`tool_result` blocks immediately after: %s. Each "
                                     "`tool_use` block must have a corresponding "
                                     "`tool_result` block in the next message.",
                                     where, missing);
        }
        prev = t;
        have_prev = !user;
        at = t.end;
    }
    return false;
}

/* A thinking block goes back exactly as it came: the signature covers its text. The fake
 * signs the thinking it generates (validate_sign_thinking), so one of its own signatures
 * that no longer matches the text is refused ("messages.1.content.0: Invalid `signature`
 * in `thinking` block", lbjlaq/Antigravity-Manager#498); an empty signature too.
 * Signatures the fake did not make (replayed recordings, a scenario's own) are opaque and
 * accepted. */
static bool signature_ok(const json_t *b)
{
    const char *sig = json_string_value(json_object_get(b, "signature"));
    if (!sig || !*sig)
        return false;
    static const char prefix[] = "sig_fake_";
    size_t pl = sizeof prefix - 1;
    if (strncmp(sig, prefix, pl) != 0 || strlen(sig) != pl + 16 ||
        strspn(sig + pl, "0123456789abcdef") != 16)
        return true; /* not one of ours */
    const json_t *t = json_object_get(b, "thinking");
    char want[32];
    validate_sign_thinking(json_string_value(t) ? json_string_value(t) : "",
                           json_string_length(t), want, sizeof want);
    return strcmp(want, sig) == 0;
}

static bool check_thinking_signatures(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *m;
    json_array_foreach(messages_of(body), i, m) {
        size_t k;
        const json_t *b;
        json_array_foreach(json_object_get(m, "content"), k, b)
            if (is_type(b, "thinking") && !signature_ok(b))
                return validate_fail(v, NULL,
                                     "messages.%zu.content.%zu: Invalid `signature` in "
                                     "`thinking` block",
                                     i, k);
    }
    return false;
}

/* With thinking enabled, the assistant turn of an unfinished tool loop must start with
 * its thinking block ("messages.1.content.0.type: Expected `thinking` or
 * `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant`
 * message must start with a thinking block (preceeding the lastmost set of `tool_use` and
 * `tool_result` blocks). …", n8n-io/n8n#22550, anomalyco/opencode#3077; extended thinking
 * docs: "you must pass thinking blocks back to the API for the last assistant message").
 * Checked only where every reading of the rule agrees: the request ends with a user turn
 * holding tool results, and no assistant turn since the last user turn without tool
 * results starts with thinking. */
static bool turn_has_result(const json_t *msgs, turn u)
{
    for (size_t i = u.first; i < u.end; i++) {
        size_t k;
        const json_t *b;
        json_array_foreach(json_object_get(json_array_get(msgs, i), "content"), k, b)
            if (is_type(b, "tool_result"))
                return true;
    }
    return false;
}

/* The turn that ends just before message end (end > 0). */
static turn prev_turn(const json_t *msgs, size_t end)
{
    turn t = {end - 1, end};
    const char *r = role_of(json_array_get(msgs, end - 1));
    while (t.first > 0 && strcmp(role_of(json_array_get(msgs, t.first - 1)), r) == 0)
        t.first--;
    return t;
}

static bool check_thinking_kept(const json_t *body, validate_violation *v)
{
    const char *mode = json_string_value(json_object_get(json_object_get(body, "thinking"),
                                                         "type"));
    if (!mode || (strcmp(mode, "enabled") != 0 && strcmp(mode, "adaptive") != 0))
        return false;
    const json_t *msgs = messages_of(body);
    size_t n = json_array_size(msgs);
    if (n == 0)
        return false;
    turn last = prev_turn(msgs, n);
    if (strcmp(role_of(json_array_get(msgs, last.first)), "user") != 0 ||
        !turn_has_result(msgs, last))
        return false;
    /* walk back over the tool loop: assistant turns and user turns of tool results */
    size_t first_assistant = SIZE_MAX;
    for (size_t end = n; end > 0;) {
        turn t = prev_turn(msgs, end);
        end = t.first;
        const json_t *m = json_array_get(msgs, t.first);
        if (strcmp(role_of(m), "user") == 0) {
            if (!turn_has_result(msgs, t))
                break;
            continue;
        }
        const json_t *b0 = json_array_get(json_object_get(m, "content"), 0);
        if (is_type(b0, "thinking") || is_type(b0, "redacted_thinking"))
            return false;
        first_assistant = t.first;
    }
    if (first_assistant == SIZE_MAX)
        return false;
    const json_t *b0 = json_array_get(json_object_get(json_array_get(msgs, first_assistant),
                                                      "content"),
                                      0);
    return validate_fail(v, NULL,
                         "messages.%zu.content.0.type: Expected `thinking` or "
                         "`redacted_thinking`, but found `%s`. When `thinking` is enabled, a "
                         "final `assistant` message must start with a thinking block "
                         "(preceeding the lastmost set of `tool_use` and `tool_result` "
                         "blocks). We recommend you include thinking blocks from previous "
                         "turns. To avoid this requirement, disable `thinking`. Please "
                         "consult our documentation at "
                         "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
                         first_assistant, b0 ? type_of(b0) : "text");
}

/* A final assistant message (a prefill) may not end with whitespace ("messages: final
 * assistant content cannot end with trailing whitespace", tailcallhq/forgecode#1872;
 * a final assistant message is a prefill, Messages API docs). */
static bool check_prefill(const json_t *body, validate_violation *v)
{
    const json_t *msgs = messages_of(body);
    const json_t *last = json_array_get(msgs, json_array_size(msgs) - 1);
    if (!last || strcmp(role_of(last), "assistant") != 0)
        return false;
    const json_t *c = json_object_get(last, "content");
    const json_t *t = json_is_string(c) ? c
                                        : json_object_get(json_array_get(c, json_array_size(c) - 1),
                                                          "text");
    if (json_is_array(c) && !is_type(json_array_get(c, json_array_size(c) - 1), "text"))
        return false;
    size_t len = json_string_length(t);
    const char *s = json_string_value(t);
    if (s && len && validate_blank(s + len - 1, 1))
        return validate_fail(v, NULL, "messages: final assistant content cannot end with "
                                      "trailing whitespace");
    return false;
}

/* An image block: source {type "base64", media_type, data} (url and file sources are let
 * through unread). Messages as the API words them: the media type list ("...media_type:
 * Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"), the 5 MB cap
 * on the base64 text ("image exceeds 5 MB maximum: 5591868 bytes > 5242880 bytes"; both
 * quoted in the Portkey error library, Anthropic #10498/#10499), "Image does not match the
 * provided media type image/png" (anthropics/claude-code issues) and "Could not process
 * image" for bytes that do not decode. */
#define ANTHROPIC_IMAGE_MAX ((size_t)5 << 20)

static bool image_fails(const json_t *b, const char *where, validate_violation *v)
{
    const json_t *src = json_object_get(b, "source");
    if (!json_is_object(src))
        return validate_fail(v, NULL, "%s.source: Field required", where);
    const char *st = json_string_value(json_object_get(src, "type"));
    if (st && (strcmp(st, "url") == 0 || strcmp(st, "file") == 0))
        return false;
    if (!st || strcmp(st, "base64") != 0)
        return validate_fail(v, NULL, "%s.source: Input tag '%s' found using 'type' does not "
                                      "match any of the expected tags: 'base64', 'url', 'file'",
                             where, st ? st : "");
    const json_t *mt = json_object_get(src, "media_type");
    const json_t *data = json_object_get(src, "data");
    if (!mt)
        return validate_fail(v, NULL, "%s.source.base64.media_type: Field required", where);
    if (!json_is_string(data))
        return validate_fail(v, NULL, "%s.source.base64.data: Field required", where);
    const char *actual = NULL;
    switch (validate_image(json_string_value(mt), json_string_value(data),
                           json_string_length(data), ANTHROPIC_IMAGE_MAX, &actual)) {
    case VIMG_OK:
        return false;
    case VIMG_MEDIA_TYPE:
        return validate_fail(v, NULL, "%s.source.base64.media_type: Input should be "
                                      "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
                             where);
    case VIMG_TOO_BIG:
        return validate_fail(v, NULL, "%s.source.base64: image exceeds 5 MB maximum: %zu bytes "
                                      "> %zu bytes", where, json_string_length(data),
                             ANTHROPIC_IMAGE_MAX);
    case VIMG_MISMATCH:
        return validate_fail(v, NULL, "%s.source.base64.data: Image does not match the "
                                      "provided media type %s", where,
                             json_string_value(mt));
    case VIMG_BASE64:
        return validate_fail(v, NULL, "%s.source.base64.data: Invalid base64 data", where);
    case VIMG_NOT_IMAGE:
        break;
    }
    return validate_fail(v, NULL, "%s.source.base64.data: Could not process image", where);
}

static bool check_images(const json_t *body, validate_violation *v)
{
    size_t i;
    const json_t *m;
    char where[160];
    json_array_foreach(messages_of(body), i, m) {
        size_t k;
        const json_t *b;
        json_array_foreach(json_object_get(m, "content"), k, b) {
            if (is_type(b, "image")) {
                snprintf(where, sizeof where, "messages.%zu.content.%zu.image", i, k);
                if (image_fails(b, where, v))
                    return true;
            } else if (is_type(b, "tool_result")) {
                size_t j;
                const json_t *x;
                json_array_foreach(json_object_get(b, "content"), j, x) {
                    snprintf(where, sizeof where,
                             "messages.%zu.content.%zu.tool_result.content.%zu.image", i, k, j);
                    if (is_type(x, "image") && image_fails(x, where, v))
                        return true;
                }
            }
        }
    }
    return false;
}

static const validate_rule rules[] = {
    {"a JSON object", check_object},
    {"model, max_tokens, messages present", check_required},
    {"roles user/assistant", check_roles},
    {"non-empty content", check_nonempty},
    {"block fields, tool_use id pattern", check_block_fields},
    {"first message from the user", check_first_user},
    {"no empty or blank text blocks", check_text_blocks},
    {"at most 4 cache_control breakpoints", check_cache_control},
    {"unique tool_use ids", check_unique_ids},
    {"tool_use answered first in the next turn; no stray tool_result", check_tool_pairs},
    {"thinking signatures match their text", check_thinking_signatures},
    {"thinking kept for the tool loop when enabled", check_thinking_kept},
    {"no trailing whitespace in a prefill", check_prefill},
    {"images: base64 of a known type, at most 5 MB, decodable", check_images},
    {"tools defined when tool blocks are sent", check_tools_defined},
};

bool validate_anthropic(const json_t *body, validate_violation *v)
{
    return validate_run(rules, sizeof rules / sizeof rules[0], body, v);
}
