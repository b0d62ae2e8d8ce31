/* mcp — the task's side of MCP (see task.h, "MCP"): it listens to the session's hub for
 * notices and says them on the task thread, freezes what the servers offer at each
 * request (so the prompt, the native tool list and the mapping of native names agree for
 * the whole turn), and maps native "<server>__<tool>" calls to use_mcp_tool. Only this
 * file touches hew_task.mcp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "base/log.h"
#include "mcp/hub.h"
#include "task/task.h"
#include "sys/ignore.h"

#define MCP_WAIT_MS 10000L          /* attemptApiRequest waits at most this for servers,
                                       once per task */
#define MCP_NOTICES_MAX (64 * 1024) /* queued notice text; more is dropped until said */

static void on_notice(void *ud, const char *server, const char *text)
{
    hew_task *t = ud;
    pthread_mutex_lock(&t->mu);
    if (t->mcp.notices.len < MCP_NOTICES_MAX) {
        buf_printf(&t->mcp.notices, "[%s] %s", server, text);
        buf_putc(&t->mcp.notices, '\n');
    }
    pthread_mutex_unlock(&t->mu);
}

void task_mcp_begin(hew_task *t)
{
    buf_init(&t->mcp.notices, MCP_NOTICES_MAX + 4096);
    if (t->session->mcp_problem)
        task_say(t, "error", t->session->mcp_problem, NULL, UIMSG_WHOLE);
    /* Once per session: the workspace's own servers were not started (untrusted). */
    if (t->session->trust_notice &&
        !__atomic_exchange_n(&t->session->trust_notice_said, 1, __ATOMIC_SEQ_CST)) {
        json_t *data = t->session->trust_notice_data
                           ? json_loads(t->session->trust_notice_data, 0, NULL)
                           : NULL;
        task_say(t, "notice", t->session->trust_notice, data, UIMSG_WHOLE);
        json_decref(data);
    }
    if (t->session->mcp)
        mcp_hub_set_listener(t->session->mcp, on_notice, t);
}

const mcp_snapshot *task_mcp_snapshot(const hew_task *t)
{
    return t->mcp.snap;
}

void task_mcp_drain(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    char *text = t->mcp.notices.len ? buf_detach(&t->mcp.notices, NULL) : NULL;
    pthread_mutex_unlock(&t->mu);
    if (!text)
        return;
    char *line = text;
    while (*line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (*line)
            task_say(t, "mcp_notification", line, NULL, UIMSG_WHOLE);
        if (!nl)
            break;
        line = nl + 1;
    }
    free(text);
}

/* Once per session: an MCP server whose tools name files, in a workspace with a
 * .clineignore. hew refuses calls whose arguments name ignored paths, but what the server
 * reads on its own (a listing, a search) it cannot see: say so. */
static void warn_file_servers(hew_task *t)
{
    const mcp_snapshot *snap = t->mcp.snap;
    if (!snap || !snap->nnative || __atomic_load_n(&t->session->mcp_ignore_warned,
                                                   __ATOMIC_ACQUIRE))
        return;
    buf names = BUF_INIT(4096);
    for (size_t i = 0; i < snap->nnative; i++) {
        const mcp_native_tool *nt = &snap->native[i];
        if (!mcp_schema_names_files(nt->input_schema))
            continue;
        if (names.data && strstr(names.data, nt->server))
            continue; /* listed (a name inside another only shortens the list) */
        buf_printf(&names, "%s%s", names.len ? ", " : "", nt->server);
    }
    ignore *ig = NULL;
    hew_err err = HEW_ERR_INIT;
    bool has_ignore = names.len && ignore_load_cline(t->settings->cwd, &ig, &err) == HEW_OK &&
                      !ignore_is_empty(ig);
    ignore_free(ig);
    if (has_ignore &&
        !__atomic_exchange_n(&t->session->mcp_ignore_warned, true, __ATOMIC_ACQ_REL)) {
        buf text = BUF_INIT(8192);
        buf_printf(&text,
                   "The MCP server%s %s read%s files, and this workspace has a .clineignore: "
                   "hew refuses MCP calls whose arguments name an ignored path, but cannot "
                   "see what a server reads on its own (a listing or a search may still show "
                   "ignored files). Disable the server (hew mcp) if that matters.",
                   strchr(names.data, ',') ? "s" : "", names.data,
                   strchr(names.data, ',') ? "" : "s");
        if (text.err == HEW_OK)
            task_say(t, "mcp_notification", text.data, NULL, UIMSG_WHOLE);
        buf_release(&text);
    }
    buf_release(&names);
}

/* Servers still on their first connection attempt are waited for, at most MCP_WAIT_MS
 * and once per task (Cline's attemptApiRequest: pWaitFor with a 10 s timeout, the timeout
 * only logged, never fatal). A server that did not make it in time is said (a notice) and
 * logged, once; the task goes on without its tools, which join a later request when the
 * server connects. */
static void wait_for_servers(hew_task *t)
{
    mcp_hub *hub = t->session->mcp;
    if (!hub || t->mcp.waited)
        return;
    t->mcp.waited = true;
    if (mcp_hub_wait_ready(hub, MCP_WAIT_MS, t->abort) || abort_is_set(t->abort))
        return;
    json_t *status = mcp_hub_status_json(hub);
    json_t *names = json_array();
    buf list = BUF_INIT(4096);
    size_t i;
    json_t *srv;
    json_array_foreach(status, i, srv) {
        const char *name = json_string_value(json_object_get(srv, "name"));
        const char *st = json_string_value(json_object_get(srv, "status"));
        if (!name || !st || strcmp(st, "connecting") != 0)
            continue;
        json_array_append_new(names, json_string(name));
        buf_printf(&list, "%s%s", list.len ? ", " : "", name);
    }
    buf text = BUF_INIT(8192);
    buf_printf(&text,
               "The MCP server%s %s did not finish connecting within %ld s: this task goes "
               "on without %s tools for now (they join a later request once connected). "
               "Check the server with `hew mcp` if it never connects.",
               json_array_size(names) == 1 ? "" : "s", list.len ? list.data : "(unknown)",
               MCP_WAIT_MS / 1000, json_array_size(names) == 1 ? "its" : "their");
    hew_log(HEW_LOG_WARN, "mcp", "waited %ld ms for MCP servers to connect, going on without: %s",
            MCP_WAIT_MS, list.len ? list.data : "(unknown)");
    json_t *data = json_pack("{s:s, s:O, s:I}", "kind", "mcp_wait_timeout", "servers", names,
                             "waited_ms", (json_int_t)MCP_WAIT_MS);
    task_say(t, "notice", text.data ? text.data : "MCP servers did not connect in time", data,
             UIMSG_WHOLE);
    json_decref(data);
    json_decref(names);
    json_decref(status);
    buf_release(&text);
    buf_release(&list);
}

void task_mcp_before_request(hew_task *t)
{
    mcp_hub *hub = t->session->mcp;
    if (!hub)
        return;
    wait_for_servers(t);
    mcp_snapshot *snap = mcp_hub_snapshot(hub);
    if (snap) {
        mcp_snapshot_free(t->mcp.snap);
        t->mcp.snap = snap;
    }
    task_mcp_drain(t);
    warn_file_servers(t);
}

bool task_mcp_map_call(hew_task *t, const tool_call *native, task_mcp_call *out)
{
    memset(out, 0, sizeof *out);
    const mcp_native_tool *nt = mcp_snapshot_native_find(t->mcp.snap, native->name);
    if (!nt)
        return false;
    out->arguments = strdup(native->raw_args && *native->raw_args ? native->raw_args : "{}");
    if (!out->arguments)
        return false;
    out->keys[0] = "server_name";
    out->values[0] = nt->server;
    out->keys[1] = "tool_name";
    out->values[1] = nt->tool;
    out->keys[2] = "arguments";
    out->values[2] = out->arguments;
    out->call = *native;
    out->call.name = "use_mcp_tool";
    out->call.nparams = 3;
    out->call.keys = out->keys;
    out->call.values = out->values;
    return true;
}

void task_mcp_call_release(task_mcp_call *c)
{
    free(c->arguments);
    c->arguments = NULL;
}

void task_mcp_end(hew_task *t)
{
    if (t->session->mcp)
        mcp_hub_drop_listener(t->session->mcp, t);
    mcp_snapshot_free(t->mcp.snap);
    t->mcp.snap = NULL;
    buf_release(&t->mcp.notices);
}

/* ---- /mcp:SERVER:PROMPT ------------------------------------------------------------------
 * A user message (or the content of its <task>, <feedback>, <answer> or <user_message>
 * tag) that starts with /mcp:SERVER:PROMPT gets the server's prompt (prompts/get, with
 * the NAME=VALUE words that follow as its arguments) in front of the rest of the text:
 *     <mcp_prompt server="SERVER" name="PROMPT">\n[role] text…\n</mcp_prompt>\n + rest */

static const char *const prompt_tags[] = { "<task>", "<feedback>", "<answer>",
                                           "<user_message>" };

/* Where the command starts in text, or NULL. */
static const char *find_prompt_command(const char *text)
{
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    if (strncmp(p, "/mcp:", 5) == 0)
        return p;
    for (size_t i = 0; i < sizeof prompt_tags / sizeof prompt_tags[0]; i++) {
        const char *tag = strstr(text, prompt_tags[i]);
        if (!tag)
            continue;
        p = tag + strlen(prompt_tags[i]);
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (strncmp(p, "/mcp:", 5) == 0)
            return p;
    }
    return NULL;
}

/* The prompt's messages as text. */
static void put_prompt_messages(const json_t *result, buf *out)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(result, "messages"), i, m) {
        const char *role = json_string_value(json_object_get(m, "role"));
        const json_t *content = json_object_get(m, "content");
        const char *text = json_string_value(json_object_get(content, "text"));
        const json_t *resource = json_object_get(content, "resource");
        if (!text && resource)
            text = json_string_value(json_object_get(resource, "text"));
        buf_printf(out, "[%s] %s\n", role ? role : "user", text ? text : "(non-text content)");
    }
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
}

/* Rewrite one text; NULL when it has no command (or the command failed: said). */
static char *rewrite_prompt(hew_task *t, const char *text)
{
    const char *cmd = find_prompt_command(text);
    if (!cmd || !t->session->mcp)
        return NULL;
    const char *server = cmd + 5, *p = server;
    while (name_char(*p))
        p++;
    if (*p != ':' || p == server)
        return NULL;
    char *server_name = strndup(server, (size_t)(p - server));
    const char *prompt = ++p;
    while (name_char(*p) || *p == '/')
        p++;
    char *prompt_name = p > prompt ? strndup(prompt, (size_t)(p - prompt)) : NULL;
    /* NAME=VALUE words right after the command are the prompt's arguments. */
    json_t *args = json_object();
    for (;;) {
        const char *w = p;
        while (*w == ' ' || *w == '\t')
            w++;
        const char *eq = w;
        while (name_char(*eq))
            eq++;
        if (eq == w || *eq != '=')
            break;
        const char *v = eq + 1, *end = v;
        while (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '<')
            end++;
        char *key = strndup(w, (size_t)(eq - w));
        json_object_set_new(args, key, json_stringn(v, (size_t)(end - v)));
        free(key);
        p = end;
    }
    char *out = NULL;
    if (server_name && prompt_name) {
        /* The first message comes before the request's wait for servers. */
        wait_for_servers(t);
        json_t *result = NULL;
        hew_err err = HEW_ERR_INIT;
        if (mcp_hub_get_prompt(t->session->mcp, server_name, prompt_name,
                               json_object_size(args) ? args : NULL, t->abort, &result,
                               &err) == HEW_OK) {
            buf b = BUF_INIT(0);
            buf_append(&b, text, (size_t)(cmd - text));
            buf_printf(&b, "<mcp_prompt server=\"%s\" name=\"%s\">\n", server_name, prompt_name);
            put_prompt_messages(result, &b);
            buf_puts(&b, "</mcp_prompt>\n");
            while (*p == ' ' || *p == '\t')
                p++;
            buf_puts(&b, p);
            out = buf_detach(&b, NULL);
            json_t *info = json_pack("{s:s}", "command", "mcp prompt");
            task_say(t, "info", NULL, info, UIMSG_WHOLE);
            json_decref(info);
        } else {
            char msg[HEW_ERR_MSG_MAX + 64];
            snprintf(msg, sizeof msg, "/mcp:%s:%s: %s", server_name, prompt_name, err.msg);
            task_say(t, "error", msg, NULL, UIMSG_WHOLE);
        }
        json_decref(result);
    }
    json_decref(args);
    free(server_name);
    free(prompt_name);
    return out;
}

void task_mcp_rewrite_prompts(hew_task *t, json_t *content)
{
    size_t i;
    json_t *b;
    json_array_foreach(content, i, b) {
        const char *text = json_string_value(json_object_get(b, "text"));
        if (!text || strcmp(api_msg_block_type(b), "text") != 0)
            continue;
        char *rewritten = rewrite_prompt(t, text);
        if (rewritten) {
            json_object_set_new(b, "text", json_string(rewritten));
            free(rewritten);
            return; /* one command per message */
        }
    }
}
