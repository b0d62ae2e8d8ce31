/* acp_update — hew's events (docs/events.md) as ACP session/update notifications: the
 * model's text and the final result as agent_message_chunk, its reasoning as
 * agent_thought_chunk (each a delta: what the message grew by since the last event),
 * every tool, command and MCP call as a tool_call (kind, title, locations, rawInput)
 * followed by tool_call_updates (a diff for an edit, the command's output, the MCP
 * server's answer, completed / failed), the plan-mode answer as a plan. Pure mapping: the
 * updates go to a sink (acp_session.c sends them). */
#include <stdlib.h>
#include <string.h>

#include "acp.h"
#include "sbuf.h"

void acp_stream_init(acp_stream *st)
{
    memset(st, 0, sizeof *st);
    st->tool_index = -1;
}

void acp_update_tool_id(long index, char *id, size_t n)
{
    snprintf(id, n, "hew-%ld", index);
}

/* ---- text chunks ------------------------------------------------------------------------ */

/* The bytes of message index sent so far (a slot, made when new: the oldest is reused). */
static size_t *sent_slot(acp_stream *st, long index, int *fresh)
{
    size_t n = sizeof st->msgs / sizeof st->msgs[0];
    for (size_t i = 0; i < st->nmsgs && i < n; i++)
        if (st->msgs[i].index == index) {
            *fresh = 0;
            return &st->msgs[i].sent;
        }
    size_t k = st->nmsgs < n ? st->nmsgs : st->nmsgs % n;
    st->nmsgs++;
    st->msgs[k].index = index;
    st->msgs[k].sent = 0;
    *fresh = 1;
    return &st->msgs[k].sent;
}

static void emit_chunk(const char *type, const char *text, size_t n, acp_update_fn emit,
                       void *ud)
{
    json_t *u = json_pack("{s:s}", "sessionUpdate", type);
    json_t *c = json_pack("{s:s}", "type", "text");
    json_object_set_new(c, "text", acp_jstr(text, n));
    json_object_set_new(u, "content", c);
    emit(ud, u);
}

/* The length of the event's whole text. */
static size_t text_len(const hew_event *ev)
{
    if (ev->append_text)
        return ev->append_offset + ev->append_len;
    return ev->text ? strlen(ev->text) : 0;
}

/* Send what message ev's text grew by, as chunks of type. A rewrite of text already sent
 * (a shorter offset) cannot be taken back: only what lies beyond is sent. */
static void stream_text(acp_stream *st, const hew_event *ev, const char *type,
                        acp_update_fn emit, void *ud)
{
    if (!ev->text)
        return;
    int fresh;
    size_t *sent = sent_slot(st, ev->index, &fresh);
    size_t len = text_len(ev);
    if (len <= *sent)
        return;
    if (fresh && st->any_text && strcmp(type, "agent_message_chunk") == 0)
        emit_chunk(type, "\n\n", 2, emit, ud); /* a new message: a new paragraph */
    emit_chunk(type, ev->text + *sent, len - *sent, emit, ud);
    *sent = len;
    if (strcmp(type, "agent_message_chunk") == 0)
        st->any_text = 1;
}

/* ---- tool calls ----------------------------------------------------------------------- */

static const struct tool_kind {
    const char *tool; /* the "tool" of a tool message's data */
    const char *kind; /* ACP ToolKind */
    const char *verb; /* the title: verb, then the path */
} tool_kinds[] = {
    { "readFile", "read", "Read" },
    { "listFilesTopLevel", "search", "List" },
    { "listFilesRecursive", "search", "List recursively" },
    { "listCodeDefinitionNames", "search", "List definitions in" },
    { "searchFiles", "search", "Search in" },
    { "editedExistingFile", "edit", "Edit" },
    { "newFileCreated", "edit", "Create" },
    { "summarizeTask", "think", "Summarize the conversation" },
};

static const struct tool_kind *kind_of(const char *tool)
{
    for (size_t i = 0; tool && i < sizeof tool_kinds / sizeof tool_kinds[0]; i++)
        if (strcmp(tool_kinds[i].tool, tool) == 0)
            return &tool_kinds[i];
    return NULL;
}

/* path made absolute against cwd (a new string). */
static char *abs_path(const char *cwd, const char *path)
{
    sbuf b = SBUF_INIT;
    if (path[0] == '/' || !cwd) {
        sbuf_puts(&b, path);
    } else if (strcmp(path, ".") == 0 || !*path) {
        sbuf_puts(&b, cwd);
    } else {
        sbuf_puts(&b, cwd);
        if (b.len && b.data[b.len - 1] != '/')
            sbuf_putc(&b, '/');
        sbuf_puts(&b, strncmp(path, "./", 2) == 0 ? path + 2 : path);
    }
    return sbuf_detach(&b);
}

/* The hunks of a unified diff (udiff.h's: hunks only) as ACP diff contents of path: each
 * hunk's old lines (context and removed) and new lines (context and added). */
static void diff_contents(json_t *content, const char *path, const char *udiff)
{
    sbuf old = SBUF_INIT, new = SBUF_INIT;
    int in_hunk = 0;
    const char *p = udiff;
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        int at_end = !*p;
        if (at_end || strncmp(p, "@@", 2) == 0) {
            if (in_hunk) {
                json_t *d = json_pack("{s:s, s:s}", "type", "diff", "path", path);
                json_object_set_new(d, "oldText", acp_jstr(old.data ? old.data : "", old.len));
                json_object_set_new(d, "newText", acp_jstr(new.data ? new.data : "", new.len));
                json_array_append_new(content, d);
            }
            sbuf_reset(&old);
            sbuf_reset(&new);
            in_hunk = !at_end;
        } else if (in_hunk && n > 0 && (p[0] == ' ' || p[0] == '-' || p[0] == '+')) {
            if (p[0] != '+') {
                sbuf_add(&old, p + 1, n - 1);
                sbuf_putc(&old, '\n');
            }
            if (p[0] != '-') {
                sbuf_add(&new, p + 1, n - 1);
                sbuf_putc(&new, '\n');
            }
        }
        if (at_end)
            break;
        p = nl ? nl + 1 : p + n;
    }
    sbuf_release(&old);
    sbuf_release(&new);
}

/* Text as a tool call's "content" entry. */
static json_t *text_content(const char *text, size_t n)
{
    json_t *c = json_pack("{s:s}", "type", "text");
    json_object_set_new(c, "text", acp_jstr(text, n));
    return json_pack("{s:s, s:o}", "type", "content", "content", c);
}

/* A command's output as content: fenced, so the client shows it as it is. */
static json_t *output_content(const char *out)
{
    sbuf b = SBUF_INIT;
    sbuf_puts(&b, "```\n");
    sbuf_puts(&b, out);
    if (b.len && b.data[b.len - 1] != '\n')
        sbuf_putc(&b, '\n');
    sbuf_puts(&b, "```");
    json_t *c = text_content(b.data ? b.data : "", b.len);
    sbuf_release(&b);
    return c;
}

/* A command in the client's terminal (its output event's data has "terminal": the
 * terminalId): the tool call's content is the terminal, which the client shows live; sent
 * at its first output event and its last. 0 when the command is not in a terminal. */
static int terminal_event(acp_stream *st, const hew_event *ev, acp_update_fn emit, void *ud)
{
    json_t *d = ev->data_json ? json_loads(ev->data_json, 0, NULL) : NULL;
    const char *id = json_string_value(json_object_get(d, "terminal"));
    if (!id) {
        json_decref(d);
        return 0;
    }
    if (!st->term_shown || !ev->partial) {
        json_t *u = json_pack("{s:s, s:s}", "sessionUpdate", "tool_call_update", "toolCallId",
                              st->tool_id);
        json_object_set_new(u, "content",
                            json_pack("[{s:s, s:s}]", "type", "terminal", "terminalId", id));
        emit(ud, u);
        st->term_shown = 1;
    }
    json_decref(d);
    return 1;
}

/* The fields of the tool call of a tool, command or MCP message (no sessionUpdate, no
 * status). full: add the content (an edit's diff) — only for a final event, a streaming
 * one is still growing. */
static json_t *tool_fields(const hew_event *ev, const char *cwd, int full)
{
    char id[32];
    acp_update_tool_id(ev->index, id, sizeof id);
    json_t *f = json_pack("{s:s}", "toolCallId", id);
    json_t *d = ev->data_json ? json_loads(ev->data_json, 0, NULL) : NULL;
    sbuf title = SBUF_INIT;
    const char *kind = "other";
    json_t *content = json_array();
    json_t *raw = NULL;
    if (ev->kind == HEW_EV_COMMAND) {
        const char *cmd = json_string_value(json_object_get(d, "command"));
        kind = "execute";
        sbuf_puts(&title, cmd ? cmd : "a command");
        raw = json_pack("{s:s}", "command", cmd ? cmd : "");
    } else if (ev->kind == HEW_EV_USE_MCP_SERVER || ev->kind == HEW_EV_COMMAND_UNSANDBOXED) {
        const char *type = json_string_value(json_object_get(d, "type"));
        const char *server = json_string_value(json_object_get(d, "serverName"));
        if (ev->kind == HEW_EV_COMMAND_UNSANDBOXED) {
            const char *cmd = json_string_value(json_object_get(d, "command"));
            kind = "execute";
            sbuf_printf(&title, "Run without the sandbox: %s", cmd ? cmd : "a command");
            raw = json_incref(d);
        } else if (type && strcmp(type, "access_mcp_resource") == 0) {
            const char *uri = json_string_value(json_object_get(d, "uri"));
            kind = "fetch";
            sbuf_printf(&title, "%s: read %s", server ? server : "MCP", uri ? uri : "");
            raw = json_pack("{s:s}", "uri", uri ? uri : "");
        } else {
            const char *tool = json_string_value(json_object_get(d, "toolName"));
            const char *args = json_string_value(json_object_get(d, "arguments"));
            sbuf_printf(&title, "%s: %s", server ? server : "MCP", tool ? tool : "a tool");
            raw = args ? json_loads(args, 0, NULL) : json_incref(json_object_get(d, "arguments"));
        }
    } else { /* a "tool" message */
        const char *tool = json_string_value(json_object_get(d, "tool"));
        const char *path = json_string_value(json_object_get(d, "path"));
        const struct tool_kind *tk = kind_of(tool);
        kind = tk ? tk->kind : "other";
        sbuf_puts(&title, tk ? tk->verb : tool ? tool : "a tool");
        if (path) {
            sbuf_printf(&title, " %s", path);
            char *abs = abs_path(cwd, path);
            if (abs)
                json_object_set_new(f, "locations", json_pack("[{s:s}]", "path", abs));
            if (full && tk && strcmp(tk->kind, "edit") == 0 && abs) {
                const char *diff = json_string_value(json_object_get(d, "diff"));
                const char *text = json_string_value(json_object_get(d, "content"));
                if (tool && strcmp(tool, "newFileCreated") == 0 && text) { /* no old text */
                    json_t *e = json_pack("{s:s, s:s, s:n}", "type", "diff", "path", abs,
                                          "oldText");
                    json_object_set_new(e, "newText", acp_jstr(text, strlen(text)));
                    json_array_append_new(content, e);
                } else if (diff && *diff) {
                    diff_contents(content, abs, diff);
                }
            }
            free(abs);
        }
        const char *regex = json_string_value(json_object_get(d, "regex"));
        if (regex)
            sbuf_printf(&title, " for /%s/", regex);
        if (full && tk && strcmp(tk->kind, "think") == 0) {
            const char *text = json_string_value(json_object_get(d, "content"));
            if (text)
                json_array_append_new(content, text_content(text, strlen(text)));
        }
        raw = json_deep_copy(d); /* the tool's parameters as hew shows them */
        json_object_del(raw, "content");
        json_object_del(raw, "diff");
    }
    json_object_set_new(f, "title", acp_jstr(title.data ? title.data : "", title.len));
    json_object_set_new(f, "kind", json_string(kind));
    if (raw)
        json_object_set_new(f, "rawInput", raw);
    if (json_array_size(content))
        json_object_set_new(f, "content", content);
    else
        json_decref(content);
    sbuf_release(&title);
    json_decref(d);
    return f;
}

json_t *acp_update_tool_fields(const hew_event *ev, const char *cwd)
{
    return tool_fields(ev, cwd, 1);
}

static void emit_tool_status(const char *id, const char *status, acp_update_fn emit, void *ud)
{
    emit(ud, json_pack("{s:s, s:s, s:s}", "sessionUpdate", "tool_call_update", "toolCallId", id,
                       "status", status));
}

void acp_update_close_tool(acp_stream *st, acp_update_fn emit, void *ud)
{
    if (st->tool_index < 0)
        return;
    emit_tool_status(st->tool_id, st->tool_failed ? "failed" : "completed", emit, ud);
    st->tool_index = -1;
    st->tool_failed = 0;
}

/* A tool, command or MCP message: the tool call opens at its first event and is updated
 * by its final one. */
static void tool_event(acp_stream *st, const hew_event *ev, int replay, const char *cwd,
                       acp_update_fn emit, void *ud)
{
    if (st->tool_index == ev->index) {
        if (ev->partial)
            return; /* still streaming: the final event brings it whole */
        json_t *f = tool_fields(ev, cwd, 1);
        json_object_set_new(f, "sessionUpdate", json_string("tool_call_update"));
        emit(ud, f);
        return;
    }
    acp_update_close_tool(st, emit, ud);
    json_t *f = tool_fields(ev, cwd, !ev->partial);
    json_object_set_new(f, "sessionUpdate", json_string("tool_call"));
    json_object_set_new(f, "status",
                        json_string(replay ? "completed" : ev->is_ask ? "pending" : "in_progress"));
    emit(ud, f);
    acp_update_tool_id(ev->index, st->tool_id, sizeof st->tool_id);
    st->tool_index = replay ? -1 : ev->index;
    st->tool_failed = 0;
    st->term_shown = 0;
    st->any_text = 0; /* text after a tool call starts a new block */
}

/* A followup question's options, as a numbered list after the question. */
static void question_options(const hew_event *ev, acp_update_fn emit, void *ud)
{
    json_t *d = ev->data_json ? json_loads(ev->data_json, 0, NULL) : NULL;
    json_t *opts = json_object_get(d, "options");
    if (json_is_string(opts)) { /* the options as the model wrote them: a JSON array */
        json_t *parsed = json_loads(json_string_value(opts), 0, NULL);
        json_decref(d);
        d = json_pack("{s:o}", "options", parsed ? parsed : json_array());
        opts = json_object_get(d, "options");
    }
    sbuf b = SBUF_INIT;
    size_t i;
    json_t *o;
    json_array_foreach(opts, i, o) {
        if (json_is_string(o))
            sbuf_printf(&b, "%s%zu. %s", i ? "\n" : "\n\n", i + 1, json_string_value(o));
    }
    if (b.len)
        emit_chunk("agent_message_chunk", b.data, b.len, emit, ud);
    sbuf_release(&b);
    json_decref(d);
}

void acp_update_event(acp_stream *st, const hew_event *ev, int replay, const char *cwd,
                      acp_update_fn emit, void *ud)
{
    switch (ev->kind) {
    case HEW_EV_TASK:
    case HEW_EV_USER_FEEDBACK: /* the user's own words: the client has them, unless loading */
        if (replay && !ev->partial && ev->text && *ev->text)
            emit_chunk("user_message_chunk", ev->text, strlen(ev->text), emit, ud);
        st->any_text = 0;
        return;
    case HEW_EV_REASONING:
        acp_update_close_tool(st, emit, ud);
        stream_text(st, ev, "agent_thought_chunk", emit, ud);
        return;
    case HEW_EV_COMPLETION_RESULT:
    case HEW_EV_TEXT:
    case HEW_EV_FOLLOWUP:
    case HEW_EV_PLAN_MODE_RESPOND:
    case HEW_EV_MISTAKE_LIMIT_REACHED:
    case HEW_EV_ERROR:
        if (ev->kind != HEW_EV_ERROR) /* an error may be the open tool's own */
            acp_update_close_tool(st, emit, ud);
        stream_text(st, ev, "agent_message_chunk", emit, ud);
        if (ev->kind == HEW_EV_FOLLOWUP && !ev->partial)
            question_options(ev, emit, ud);
        if (ev->kind == HEW_EV_PLAN_MODE_RESPOND && !ev->partial && !replay && ev->text) {
            json_t *plan = acp_update_plan(ev->text);
            if (plan)
                emit(ud, plan);
        }
        return;
    case HEW_EV_TOOL:
    case HEW_EV_COMMAND:
    case HEW_EV_USE_MCP_SERVER:
        tool_event(st, ev, replay, cwd, emit, ud);
        return;
    case HEW_EV_COMMAND_OUTPUT:
        if (st->tool_id[0] && terminal_event(st, ev, emit, ud))
            return;
        if (st->tool_id[0] && ev->text) {
            json_t *u = json_pack("{s:s, s:s}", "sessionUpdate", "tool_call_update",
                                  "toolCallId", st->tool_id);
            json_object_set_new(u, "content", json_pack("[o]", output_content(ev->text)));
            emit(ud, u);
        }
        return;
    case HEW_EV_MCP_SERVER_RESPONSE:
        if (st->tool_id[0] && ev->text && !ev->partial) {
            json_t *u = json_pack("{s:s, s:s}", "sessionUpdate", "tool_call_update",
                                  "toolCallId", st->tool_id);
            json_object_set_new(u, "content",
                                json_pack("[o]", text_content(ev->text, strlen(ev->text))));
            emit(ud, u);
        }
        return;
    case HEW_EV_API_REQ_STARTED: /* a new request: the tools of the last answer are done */
        acp_update_close_tool(st, emit, ud);
        return;
    default:
        return;
    }
}

/* ---- plans ------------------------------------------------------------------------------ */

/* The item of a list line ("- x", "* x", "1. x", "- [ ] x"), or NULL. *done: "[x]". */
static const char *list_item(const char *line, size_t n, size_t *len, int *done)
{
    size_t i = 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i < n && (line[i] == '-' || line[i] == '*' || line[i] == '+') && i + 1 < n &&
        line[i + 1] == ' ') {
        i += 2;
    } else {
        size_t d = i;
        while (i < n && line[i] >= '0' && line[i] <= '9')
            i++;
        if (i == d || i + 1 >= n || (line[i] != '.' && line[i] != ')') || line[i + 1] != ' ')
            return NULL;
        i += 2;
    }
    *done = 0;
    if (i + 3 < n && line[i] == '[' && line[i + 2] == ']' && line[i + 3] == ' ') {
        *done = line[i + 1] == 'x' || line[i + 1] == 'X';
        i += 4;
    }
    while (i < n && line[i] == ' ')
        i++;
    if (i >= n)
        return NULL;
    *len = n - i;
    return line + i;
}

json_t *acp_update_plan(const char *text)
{
    json_t *entries = json_array();
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        size_t len;
        int done;
        const char *item = list_item(p, n, &len, &done);
        if (item) {
            json_t *e = json_object();
            json_object_set_new(e, "content", acp_jstr(item, len));
            json_object_set_new(e, "priority", json_string("medium"));
            json_object_set_new(e, "status", json_string(done ? "completed" : "pending"));
            json_array_append_new(entries, e);
        }
        p += n + (nl != NULL);
    }
    if (!json_array_size(entries)) {
        json_decref(entries);
        return NULL;
    }
    return json_pack("{s:s, s:o}", "sessionUpdate", "plan", "entries", entries);
}
