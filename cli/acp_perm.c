/* acp_perm — the task's approvals as ACP session/request_permission: the client picks
 * allow once / allow always / reject once / reject always, and the answer goes to the
 * task (hew_task_respond). What hew's auto-approval settings allow never gets here (the
 * task says it instead of asking). An "always" choice holds for the rest of the session,
 * for what the key names: file edits, file reads, one exact command line, one MCP tool.
 * Edits of hew's own control files and runs without the sandbox get no "always": a
 * person says yes to each. */
#include <stdlib.h>
#include <string.h>

#include "acp.h"
#include "sbuf.h"

struct perm {
    acp_session *s;
    long id;     /* the request's rpc id */
    long index;  /* the ask's message index */
    char *key;   /* what an "always" choice covers, or NULL */
};

/* The key an "always" choice of this ask is remembered under, and what it covers for the
 * option's name; NULL when the ask gets none. A new string. */
static char *perm_key(const hew_event *ev, sbuf *label)
{
    json_t *d = ev->data_json ? json_loads(ev->data_json, 0, NULL) : NULL;
    sbuf k = SBUF_INIT;
    if (ev->kind == HEW_EV_TOOL && !json_object_get(d, "controlFile")) {
        const char *tool = json_string_value(json_object_get(d, "tool"));
        if (tool && (strcmp(tool, "editedExistingFile") == 0 || strcmp(tool, "newFileCreated") == 0)) {
            sbuf_puts(&k, "edit");
            sbuf_puts(label, "file edits");
        } else if (tool) {
            sbuf_puts(&k, "read");
            sbuf_puts(label, "reading files");
        }
    } else if (ev->kind == HEW_EV_COMMAND) {
        const char *cmd = json_string_value(json_object_get(d, "command"));
        if (cmd) {
            sbuf_printf(&k, "command:%s", cmd);
            sbuf_printf(label, "`%s`", cmd);
        }
    } else if (ev->kind == HEW_EV_USE_MCP_SERVER) {
        const char *server = json_string_value(json_object_get(d, "serverName"));
        const char *tool = json_string_value(json_object_get(d, "toolName"));
        const char *uri = json_string_value(json_object_get(d, "uri"));
        if (server && (tool || uri)) {
            sbuf_printf(&k, "mcp:%s/%s", server, tool ? tool : uri);
            sbuf_printf(label, "%s: %s", server, tool ? tool : uri);
        }
    }
    json_decref(d);
    if (!k.len) {
        sbuf_release(&k);
        return NULL;
    }
    return sbuf_detach(&k);
}

/* Say the tool call's new status (locked). A rejected one is done: it will not run. */
static void tell_status(acp_session *s, long index, int allowed)
{
    char id[32];
    acp_update_tool_id(index, id, sizeof id);
    acp_stream *st = acp_session_stream(s);
    if (!allowed && st->tool_index == index)
        st->tool_index = -1; /* closed here, as failed */
    acp_session_update(s, json_pack("{s:s, s:s, s:s}", "sessionUpdate", "tool_call_update",
                                    "toolCallId", id, "status",
                                    allowed ? "in_progress" : "failed"));
}

static const struct option_row {
    const char *id; /* optionId and kind */
    int allow;
    int always;
} option_rows[] = {
    { "allow_once", 1, 0 },
    { "allow_always", 1, 1 },
    { "reject_once", 0, 0 },
    { "reject_always", 0, 1 },
};

static void on_reply(void *ud, json_t *result, json_t *error)
{
    struct perm *p = ud;
    acp_session *s = p->s;
    pthread_mutex_lock(acp_session_lock(s));
    long *slot = acp_session_perm_slot(s);
    if (*slot == p->id) {
        *slot = -1;
        json_t *outcome = json_object_get(result, "outcome");
        const char *what = json_string_value(json_object_get(outcome, "outcome"));
        const char *picked = json_string_value(json_object_get(outcome, "optionId"));
        const struct option_row *row = NULL;
        for (size_t i = 0; !error && what && strcmp(what, "selected") == 0 && picked &&
                           i < sizeof option_rows / sizeof option_rows[0]; i++)
            if (strcmp(option_rows[i].id, picked) == 0)
                row = &option_rows[i];
        int allow = row && row->allow; /* cancelled, an error, an unknown option: no */
        if (row && row->always && p->key)
            json_object_set_new(acp_session_always(s), p->key,
                                json_string(allow ? "allow" : "reject"));
        hew_task *task = acp_session_task(s);
        if (task)
            hew_task_respond(task, allow ? HEW_ANSWER_YES : HEW_ANSWER_NO, NULL);
        tell_status(s, p->index, allow);
    }
    pthread_mutex_unlock(acp_session_lock(s));
    free(p->key);
    free(p);
}

static void emit_to(void *ud, json_t *update)
{
    acp_session_update(ud, update);
}

void acp_perm_ask(acp_session *s, hew_task *task, const hew_event *ev)
{
    sbuf label = SBUF_INIT;
    char *key = perm_key(ev, &label);
    const char *always = key ? json_string_value(json_object_get(acp_session_always(s), key)) : NULL;
    acp_stream *st = acp_session_stream(s);
    json_t *fields = acp_update_tool_fields(ev, acp_session_cwd(s));
    if (st->tool_index != ev->index) { /* an ask that opened no tool call (the sandbox's) */
        acp_update_close_tool(st, emit_to, s);
        json_t *open = json_deep_copy(fields);
        json_object_set_new(open, "sessionUpdate", json_string("tool_call"));
        json_object_set_new(open, "status", json_string("pending"));
        acp_session_update(s, open);
        st->tool_index = ev->index;
        acp_update_tool_id(ev->index, st->tool_id, sizeof st->tool_id);
        st->tool_failed = 0;
    }
    if (always) { /* chosen before for the rest of the session */
        int allow = strcmp(always, "allow") == 0;
        /* the person's earlier "always", not a yes to this very ask: still sandboxed */
        hew_task_respond(task, allow ? HEW_ANSWER_YES_BY_RULE : HEW_ANSWER_NO, NULL);
        tell_status(s, ev->index, allow);
        json_decref(fields);
        free(key);
        sbuf_release(&label);
        return;
    }
    json_t *options = json_array();
    for (size_t i = 0; i < sizeof option_rows / sizeof option_rows[0]; i++) {
        const struct option_row *r = &option_rows[i];
        if (r->always && !key)
            continue;
        sbuf name = SBUF_INIT;
        sbuf_puts(&name, r->always ? (r->allow ? "Always allow " : "Always reject ")
                                   : (r->allow ? "Allow" : "Reject"));
        if (r->always)
            sbuf_puts(&name, label.data ? label.data : "");
        json_t *o = json_pack("{s:s, s:s}", "optionId", r->id, "kind", r->id);
        json_object_set_new(o, "name", acp_jstr(name.data ? name.data : "", name.len));
        json_array_append_new(options, o);
        sbuf_release(&name);
    }
    sbuf_release(&label);
    json_object_set_new(fields, "status", json_string("pending"));
    json_t *params = json_pack("{s:s, s:o, s:o}", "sessionId", acp_session_id(s), "toolCall",
                               fields, "options", options);
    struct perm *p = calloc(1, sizeof *p);
    if (!p) {
        json_decref(params);
        free(key);
        hew_task_respond(task, HEW_ANSWER_NO, NULL);
        return;
    }
    p->s = s;
    p->index = ev->index;
    p->key = key;
    long *slot = acp_session_perm_slot(s);
    p->id = acp_rpc_request(acp_session_rpc(s), "session/request_permission", params, on_reply, p);
    if (p->id < 0) {
        free(p->key);
        free(p);
        hew_task_respond(task, HEW_ANSWER_NO, NULL);
        return;
    }
    *slot = p->id;
}
