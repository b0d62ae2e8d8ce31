/* render_plain — the task as a readable transcript on a plain stream (no cursor moves, so
 * it works in a pipe, a CI log or the demo): streamed text printed as it grows, each tool
 * as one line, command output as it comes, the result, errors, and the cost of each
 * request. Colour only when asked (a TTY without NO_COLOR). Never reads input, and never
 * writes text from outside hew (the model's, files', commands', MCP servers') unless it
 * went through termsafe first: the only escapes on the stream are its own colours. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hew.h"
#include "sbuf.h"
#include "termsafe.h"

struct render_plain {
    FILE *out;
    int color;
    long stream_index;   /* the message being streamed, or -1 */
    size_t printed;      /* how much of its text is on the screen */
    int at_line_start;
    termsafe ts;         /* the streamed message's sanitiser: a delta may end mid-sequence */
    sbuf safe;           /* its output, reused */
};

render_plain *render_plain_new(FILE *out, int color)
{
    render_plain *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->out = out;
    r->color = color;
    r->stream_index = -1;
    r->at_line_start = 1;
    return r;
}

void render_plain_free(render_plain *r)
{
    if (r)
        sbuf_release(&r->safe);
    free(r);
}

static const char *sgr(const render_plain *r, const char *code)
{
    return r->color ? code : "";
}

static void put_text(render_plain *r, const char *s, size_t n)
{
    if (!n)
        return;
    fwrite(s, 1, n, r->out);
    r->at_line_start = s[n - 1] == '\n';
}

/* Text with `prefix` at the start of each of its lines. */
static void put_prefixed(render_plain *r, const char *s, size_t n, const char *prefix)
{
    while (n) {
        if (r->at_line_start)
            fputs(prefix, r->out);
        const char *nl = memchr(s, '\n', n);
        size_t len = nl ? (size_t)(nl - s) + 1 : n;
        put_text(r, s, len);
        s += len;
        n -= len;
    }
}

/* What the sanitiser still holds of a stream that ends (or was left), out now. */
static void flush_held(render_plain *r)
{
    sbuf_reset(&r->safe);
    termsafe_finish(&r->ts, &r->safe);
    put_text(r, r->safe.data, r->safe.len);
}

static void end_line(render_plain *r)
{
    flush_held(r);
    if (!r->at_line_start) {
        fputc('\n', r->out);
        r->at_line_start = 1;
    }
}

/* Print what is new in a growing message: its append (docs/events.md), or its text; each
 * line after `prefix`. */
static void stream(render_plain *r, const hew_event *ev, const char *style, const char *prefix,
                   int final)
{
    const char *text = ev->text ? ev->text : "";
    /* the message's length from its append: no pass over the whole text per update */
    size_t len = ev->append_text ? ev->append_offset + ev->append_len : strlen(text);
    if (r->stream_index != ev->index) {
        end_line(r);
        r->stream_index = ev->index;
        r->printed = 0;
    }
    if (len < r->printed) { /* the text was cut back (a half-written tag removed) */
        size_t decided = r->printed - termsafe_held(&r->ts); /* held bytes: fed again */
        termsafe_init(&r->ts);
        r->printed = len < decided ? len : decided;
    }
    const char *from = ev->append_text && r->printed >= ev->append_offset
                           ? ev->append_text + (r->printed - ev->append_offset)
                           : text + r->printed;
    sbuf_reset(&r->safe);
    termsafe_feed(&r->ts, &r->safe, from, len - r->printed);
    if (final)
        termsafe_finish(&r->ts, &r->safe);
    fputs(sgr(r, style), r->out);
    put_prefixed(r, r->safe.data, r->safe.len, prefix);
    fputs(sgr(r, "\033[0m"), r->out);
    r->printed = len;
    if (final) {
        end_line(r);
        r->stream_index = -1;
    }
    fflush(r->out);
}

static const char *data_str(const json_t *data, const char *key)
{
    const char *s = json_string_value(json_object_get(data, key));
    return s ? s : "";
}

/* One line for a tool: what it does and on what. */
static void tool_line(render_plain *r, const json_t *data, int ask)
{
    const char *tool = data_str(data, "tool");
    static const struct {
        const char *tool, *verb;
    } verbs[] = {
        { "readFile", "read" },
        { "newFileCreated", "create" },
        { "editedExistingFile", "edit" },
        { "listFilesTopLevel", "list" },
        { "listFilesRecursive", "list (recursive)" },
        { "listCodeDefinitionNames", "definitions in" },
        { "searchFiles", "search" },
    };
    const char *verb = tool;
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strcmp(tool, verbs[i].tool) == 0)
            verb = verbs[i].verb;
    end_line(r);
    fprintf(r->out, "%s▸ %s %s", sgr(r, "\033[36m"), verb, data_str(data, "path"));
    if (*data_str(data, "regex"))
        fprintf(r->out, " /%s/", data_str(data, "regex"));
    if (ask)
        fputs("  (needs approval)", r->out);
    fprintf(r->out, "%s\n", sgr(r, "\033[0m"));
}

/* The three kinds streamed as they grow (their text is sanitised piece by piece). */
static int streamed(const hew_event *ev)
{
    return (ev->kind == HEW_EV_TEXT && !ev->is_ask) || ev->kind == HEW_EV_REASONING ||
           ev->kind == HEW_EV_COMMAND_OUTPUT;
}

void render_plain_event(render_plain *r, const hew_event *raw)
{
    /* Everything printed from the event is sanitised: the payload's strings here, the
     * text of a finished event here, a streamed text in stream(). */
    json_t *data = raw->data_json ? json_loads(raw->data_json, 0, NULL) : NULL;
    termsafe_json(data);
    hew_event safe = *raw;
    char *safe_text = NULL;
    if (raw->text && !raw->partial && !streamed(raw)) {
        safe_text = termsafe_dup(raw->text, 1);
        safe.text = safe_text ? safe_text : "";
    }
    const hew_event *ev = &safe;
    hew_event_kind k = ev->kind;
    if (k == HEW_EV_TEXT && !ev->is_ask) {
        stream(r, ev, "", "", !ev->partial);
    } else if (k == HEW_EV_REASONING) { /* without colour, set apart by a bar */
        stream(r, ev, "\033[2m", r->color ? "" : "│ ", !ev->partial);
    } else if (k == HEW_EV_COMMAND_OUTPUT) {
        stream(r, ev, "\033[2m", "", !ev->partial);
    } else if (ev->partial) {
        /* other partial updates: shown when final */
    } else if (k == HEW_EV_TASK) {
        fprintf(r->out, "%s● task:%s %s\n", sgr(r, "\033[1m"), sgr(r, "\033[0m"),
                ev->text ? ev->text : "");
    } else if (k == HEW_EV_TOOL) {
        tool_line(r, data, ev->is_ask);
    } else if (k == HEW_EV_USE_MCP_SERVER && data) {
        end_line(r);
        bool resource = strcmp(data_str(data, "type"), "access_mcp_resource") == 0;
        fprintf(r->out, "%s▸ mcp %s: %s %s%s%s\n", sgr(r, "\033[36m"), data_str(data, "serverName"),
                resource ? "read" : data_str(data, "toolName"),
                resource ? data_str(data, "uri") : data_str(data, "arguments"),
                ev->is_ask ? "  (needs approval)" : "", sgr(r, "\033[0m"));
    } else if (k == HEW_EV_MCP_SERVER_RESPONSE || k == HEW_EV_MCP_NOTIFICATION) {
        end_line(r);
        const char *text = ev->text ? ev->text : "";
        size_t n = strcspn(text, "\n"), shown = n > 200 ? 200 : n;
        while (shown < n && shown > 0 && ((unsigned char)text[shown] & 0xC0) == 0x80)
            shown--; /* never half a character */
        fprintf(r->out, "%s  %s%.*s%s%s\n", sgr(r, "\033[2m"),
                k == HEW_EV_MCP_SERVER_RESPONSE ? "→ " : "", (int)shown, text,
                n > 200 || text[n] ? " …" : "", sgr(r, "\033[0m"));
    } else if (k == HEW_EV_COMMAND) {
        end_line(r);
        fprintf(r->out, "%s$ %s%s\n", sgr(r, "\033[33m"),
                data ? data_str(data, "command") : (ev->text ? ev->text : ""),
                sgr(r, "\033[0m"));
        const char *why = data_str(json_object_get(data, "policy"), "reason");
        if (ev->is_ask && *why) /* why hew asks (the policy's reason is printable) */
            fprintf(r->out, "%s  needs approval: %s%s\n", sgr(r, "\033[2m"), why,
                    sgr(r, "\033[0m"));
        const json_t *sb = json_object_get(data, "sandbox");
        if (sb && strcmp(data_str(sb, "mode"), "danger-full-access") != 0)
            fprintf(r->out, "%s  sandbox: %s (%s)%s\n", sgr(r, "\033[2m"), data_str(sb, "mode"),
                    data_str(sb, "backend"), sgr(r, "\033[0m"));
    } else if (k == HEW_EV_SANDBOX_DENIED) {
        end_line(r);
        fprintf(r->out, "%s! the sandbox stopped it: %s%s\n", sgr(r, "\033[31m"),
                ev->text ? ev->text : "", sgr(r, "\033[0m"));
    } else if (k == HEW_EV_COMMAND_UNSANDBOXED) {
        end_line(r);
        fprintf(r->out, "%s$ %s  (%s without the sandbox: %s)%s\n", sgr(r, "\033[33m"),
                data_str(data, "command"), ev->is_ask ? "asks to run it" : "not run",
                data_str(data, "reason"), sgr(r, "\033[0m"));
    } else if (k == HEW_EV_COMPLETION_RESULT && !ev->is_ask) {
        end_line(r);
        fprintf(r->out, "%s✓ %s%s\n", sgr(r, "\033[32m"), ev->text ? ev->text : "",
                sgr(r, "\033[0m"));
    } else if (k == HEW_EV_NOTICE) {
        end_line(r);
        fprintf(r->out, "%s! %s%s\n", sgr(r, "\033[33m"), ev->text ? ev->text : "",
                sgr(r, "\033[0m"));
    } else if (k == HEW_EV_ERROR) {
        end_line(r);
        fprintf(r->out, "%s! %s%s\n", sgr(r, "\033[31m"), ev->text ? ev->text : "",
                sgr(r, "\033[0m"));
    } else if (k == HEW_EV_ERROR_RETRY && data) {
        end_line(r);
        fprintf(r->out, "%s! %s — retry %lld of %lld%s\n", sgr(r, "\033[31m"),
                data_str(data, "errorMessage"),
                (long long)json_integer_value(json_object_get(data, "attempt")),
                (long long)json_integer_value(json_object_get(data, "maxAttempts")),
                sgr(r, "\033[0m"));
    } else if (k == HEW_EV_CONDENSING || k == HEW_EV_CONDENSED || k == HEW_EV_NEW_TASK) {
        end_line(r);
        fprintf(r->out, "%s↪ %s%s\n", sgr(r, "\033[35m"), ev->text ? ev->text : "",
                sgr(r, "\033[0m"));
    } else if (k == HEW_EV_FOLLOWUP && ev->is_ask) {
        end_line(r);
        fprintf(r->out, "? %s\n", ev->text ? ev->text : "");
    } else if (k == HEW_EV_USER_FEEDBACK) {
        end_line(r);
        fprintf(r->out, "%s> %s%s\n", sgr(r, "\033[2m"), ev->text ? ev->text : "",
                sgr(r, "\033[0m"));
    } else if (k == HEW_EV_API_REQ_STARTED && data &&
               json_object_get(data, "tokensOut")) {
        end_line(r);
        double cost = json_number_value(json_object_get(data, "cost"));
        fprintf(r->out, "%s  [tokens: %lld in (+%lld cached), %lld out",
                sgr(r, "\033[2m"),
                (long long)json_integer_value(json_object_get(data, "tokensIn")),
                (long long)json_integer_value(json_object_get(data, "cacheReads")),
                (long long)json_integer_value(json_object_get(data, "tokensOut")));
        if (json_object_get(data, "cost"))
            fprintf(r->out, ", $%.4f", cost);
        fprintf(r->out, "]%s\n", sgr(r, "\033[0m"));
    }
    fflush(r->out);
    json_decref(data);
    free(safe_text);
}
