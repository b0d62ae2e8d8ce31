/* mcp — the task's side of MCP (see task.h, "MCP"): it listens to the session's hub for
 * notices and says them on the task thread, freezes what the servers offer at each
 * request (so the prompt, the native tool list and the mapping of native names agree for
 * the whole turn), and maps native "<server>__<tool>" calls to use_mcp_tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/hub.h"
#include "task/task.h"

#define MCP_WAIT_MS 10000L          /* attemptApiRequest waits at most this for servers */
#define MCP_NOTICES_MAX (64 * 1024) /* queued notice text; more is dropped until said */

static void on_notice(void *ud, const char *server, const char *text)
{
    hew_task *t = ud;
    pthread_mutex_lock(&t->mu);
    if (t->mcp_notices.len < MCP_NOTICES_MAX) {
        buf_printf(&t->mcp_notices, "[%s] %s", server, text);
        buf_putc(&t->mcp_notices, '\n');
    }
    pthread_mutex_unlock(&t->mu);
}

void task_mcp_begin(hew_task *t)
{
    buf_init(&t->mcp_notices, MCP_NOTICES_MAX + 4096);
    if (t->session->mcp_problem)
        task_say(t, "error", t->session->mcp_problem, NULL, UIMSG_WHOLE);
    if (t->session->mcp)
        mcp_hub_set_listener(t->session->mcp, on_notice, t);
}

void task_mcp_drain(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    char *text = t->mcp_notices.len ? buf_detach(&t->mcp_notices, NULL) : NULL;
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

void task_mcp_before_request(hew_task *t)
{
    mcp_hub *hub = t->session->mcp;
    if (!hub)
        return;
    /* Servers still connecting are waited for (Cline: at most 10 s, never fatal). */
    mcp_hub_wait_ready(hub, MCP_WAIT_MS, t->abort);
    mcp_snapshot *snap = mcp_hub_snapshot(hub);
    if (snap) {
        mcp_snapshot_free(t->mcp_snap);
        t->mcp_snap = snap;
    }
    task_mcp_drain(t);
}

bool task_mcp_map_call(hew_task *t, const tool_call *native, task_mcp_call *out)
{
    memset(out, 0, sizeof *out);
    const mcp_native_tool *nt = mcp_snapshot_native_find(t->mcp_snap, native->name);
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
        mcp_hub_set_listener(t->session->mcp, NULL, NULL);
    mcp_snapshot_free(t->mcp_snap);
    t->mcp_snap = NULL;
    buf_release(&t->mcp_notices);
}
