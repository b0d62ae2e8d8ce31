/* hook — where a task meets the user's hooks (src/hooks/): one function per event, each
 * called from one place (the executor around a tool and before a completion, the loop for
 * the task's prompt and its start or resume, condensing before it compacts). It builds
 * the event, runs the session's hooks, says each run as a "hook" event, and hands the
 * caller the outcome; the caller decides what a block means there. Owns the task's
 * hooks part (task.h). Task thread only; never holds mu while a hook runs. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "sys/path.h"
#include "sys/sbpolicy.h"
#include "task/task.h"

/* Each hook that ran: a "hook" say (docs/events.md) with what it decided. */
static void report(void *ud, const hooks_report *r)
{
    hew_task *t = ud;
    json_t *data = json_pack("{s:s, s:s, s:s, s:i, s:b, s:I, s:s}", "hook_event_name",
                             hooks_event_name(r->event), "command", r->command, "source",
                             r->source, "exit_code", r->exit_code, "timed_out", r->timed_out,
                             "duration_ms", (json_int_t)r->duration_ms, "decision",
                             r->decision);
    task_say(t, "hook", r->message && *r->message ? r->message : NULL, data, UIMSG_WHOLE);
    json_decref(data);
}

static bool any(const hew_task *t, hooks_event e)
{
    return hooks_set_count(t->session->hooks, e) > 0;
}

/* Run event in's hooks; warnings and a stop are said here. true: the task was stopped
 * ("continue": false; the task is aborted with the hook's reason). */
static bool run(hew_task *t, hooks_input *in, hooks_outcome *out)
{
    in->session_id = t->task_id;
    in->transcript_path = NULL;
    in->cwd = t->settings->cwd;
    /* Hooks run "sandboxed when the mode says so": as a command approved by hand (a hook is
     * a command the user wrote, or read and trusted with `hew trust`; Claude Code runs
     * hooks with the user's rights), so "auto" leaves them unconfined and a mode the user
     * set (read-only, workspace-write) confines them too. A sandbox that cannot be set up
     * makes each hook a warning, never an unconfined run. */
    const sandbox *sb = NULL;
    hew_err e = HEW_ERR_INIT;
    bool sb_failed = sbpolicy_sandbox(t->env.sandbox, sbpolicy_pick(t->env.sandbox, true), -1,
                                      &sb, &e) != HEW_OK;
    hooks_run_opts o = {
        .project_dir = t->settings->cwd,
        .env_allow = (const char *const *)t->settings->env_allow,
        .abort = t->abort,
        .report = report,
        .ud = t,
        .sandbox = sb,
        .sandbox_error = sb_failed ? e.msg : NULL,
    };
    hooks_run(t->session->hooks, in, &o, out);
    if (out->warnings.len)
        task_say(t, "notice", out->warnings.data, NULL, UIMSG_WHOLE);
    if (!out->stop)
        return false;
    buf why = BUF_INIT(0);
    buf_printf(&why, "A %s hook stopped the task: %s", hooks_event_name(in->event),
               out->reason.data ? out->reason.data : "");
    task_say(t, "error", why.data, NULL, UIMSG_WHOLE);
    abort_trigger(t->abort, why.data ? why.data : "stopped by a hook");
    if (t->stream.abort)
        abort_trigger(t->stream.abort, "the task was aborted");
    buf_release(&why);
    return true;
}

/* The context hooks added, as the block the model reads. */
static void context_block(buf *b, hooks_event e, const buf *context)
{
    if (!context->len)
        return;
    buf_printf(b, "%s<hook_context event=\"%s\">\n%s\n</hook_context>", b->len ? "\n\n" : "",
               hooks_event_name(e), context->data);
}

/* ... in the next user message. */
static void push_context(hew_task *t, hooks_event e, const buf *context)
{
    buf b = BUF_INIT(0);
    context_block(&b, e, context);
    if (b.len)
        task_push_user_text(t, b.data);
    buf_release(&b);
}

/* The call's parameters as an object (an MCP call's arguments parsed), plus the keys
 * Claude Code's hooks read for the same tools: file_path (absolute) beside path, and
 * content / command as they are. */
static json_t *tool_input(hew_task *t, const tool_call *call)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < call->nparams; i++) {
        if (strcmp(call->keys[i], "task_progress") == 0)
            continue;
        json_t *v = NULL;
        if (strcmp(call->keys[i], "arguments") == 0)
            v = json_loads(call->values[i], 0, NULL);
        json_object_set_new(o, call->keys[i], v ? v : json_string(call->values[i]));
    }
    const char *path = tool_call_param(call, "path");
    if (o && path && *path) {
        char *joined = path[0] == '/' ? NULL : path_join(t->settings->cwd, path);
        char *abs = path_normalize(joined ? joined : path);
        json_object_set_new(o, "file_path", json_string(abs ? abs : path));
        free(abs);
        free(joined);
    }
    return o;
}

static void tool_of(hooks_input *in, const tool_call *call)
{
    in->tool_name = call->name;
    if (strcmp(call->name, "use_mcp_tool") == 0) {
        in->mcp_server = tool_call_param(call, "server_name");
        in->mcp_tool = tool_call_param(call, "tool_name");
    }
}

bool task_hook_pre_tool(hew_task *t, const tool_call *call, buf *reason,
                        hooks_permission *permission)
{
    *permission = HOOKS_PERMISSION_NONE;
    if (!any(t, HOOKS_PRE_TOOL_USE))
        return false;
    json_t *input = tool_input(t, call);
    hooks_input in = { .event = HOOKS_PRE_TOOL_USE, .tool_input = input };
    tool_of(&in, call);
    hooks_outcome out;
    bool stopped = run(t, &in, &out);
    bool blocked = out.block || stopped;
    if (blocked)
        buf_puts(reason, out.reason.data ? out.reason.data : "blocked by a hook");
    else
        *permission = out.permission;
    push_context(t, HOOKS_PRE_TOOL_USE, &out.context);
    hooks_outcome_release(&out);
    json_decref(input);
    return blocked;
}

void task_hook_post_tool(hew_task *t, const tool_call *call, const char *result, bool failed,
                         long long ms)
{
    if (!any(t, HOOKS_POST_TOOL_USE))
        return;
    json_t *input = tool_input(t, call);
    hooks_input in = { .event = HOOKS_POST_TOOL_USE, .tool_input = input,
                       .tool_response = result ? result : "", .tool_failed = failed,
                       .tool_ms = ms };
    tool_of(&in, call);
    hooks_outcome out;
    run(t, &in, &out);
    if (out.block && out.reason.len) { /* the tool ran already: the model is told why */
        buf b = BUF_INIT(0);
        buf_printf(&b, "A PostToolUse hook objected to the result of %s: %s", call->name,
                   out.reason.data);
        task_push_user_text(t, b.data ? b.data : "");
        buf_release(&b);
    }
    push_context(t, HOOKS_POST_TOOL_USE, &out.context);
    hooks_outcome_release(&out);
    json_decref(input);
}

bool task_hook_prompt(hew_task *t, const char *prompt, buf *context)
{
    if (!any(t, HOOKS_USER_PROMPT_SUBMIT))
        return false;
    hooks_input in = { .event = HOOKS_USER_PROMPT_SUBMIT, .prompt = prompt };
    hooks_outcome out;
    bool stopped = run(t, &in, &out);
    bool blocked = out.block || stopped;
    if (out.block) {
        buf b = BUF_INIT(0);
        buf_printf(&b, "A UserPromptSubmit hook refused the message, so it was not sent: %s",
                   out.reason.data ? out.reason.data : "");
        task_say(t, "error", b.data, NULL, UIMSG_WHOLE);
        buf_release(&b);
    } else {
        context_block(context, HOOKS_USER_PROMPT_SUBMIT, &out.context);
    }
    hooks_outcome_release(&out);
    return blocked;
}

void task_hook_session_start(hew_task *t, bool resume, buf *context)
{
    if (t->session->hooks_notice &&
        !__atomic_exchange_n(&t->session->hooks_notice_said, 1, __ATOMIC_SEQ_CST))
        task_say(t, "notice", t->session->hooks_notice, NULL, UIMSG_WHOLE);
    if (!any(t, HOOKS_SESSION_START))
        return;
    hooks_input in = { .event = HOOKS_SESSION_START, .source = resume ? "resume" : "startup",
                       .prompt = resume ? NULL : t->task_text };
    hooks_outcome out;
    run(t, &in, &out);
    context_block(context, HOOKS_SESSION_START, &out.context);
    hooks_outcome_release(&out);
}

bool task_hook_stop(hew_task *t, buf *reason)
{
    if (!any(t, HOOKS_STOP))
        return false;
    hooks_input in = { .event = HOOKS_STOP, .stop_hook_active = t->hooks.stop_active };
    hooks_outcome out;
    bool stopped = run(t, &in, &out);
    bool go_on = out.block && !stopped;
    if (go_on && t->hooks.stop_blocks >= TASK_HOOK_STOP_BLOCKS_MAX) {
        buf b = BUF_INIT(0);
        buf_printf(&b, "The Stop hooks kept the model going %d times in a row; this time the "
                       "task completes anyway.", t->hooks.stop_blocks);
        task_say(t, "notice", b.data, NULL, UIMSG_WHOLE);
        buf_release(&b);
        go_on = false;
    }
    if (go_on) {
        t->hooks.stop_blocks++;
        buf_puts(reason, out.reason.data ? out.reason.data : "a Stop hook asked to go on");
    } else {
        t->hooks.stop_blocks = 0;
    }
    t->hooks.stop_active = go_on;
    push_context(t, HOOKS_STOP, &out.context);
    hooks_outcome_release(&out);
    return go_on;
}

void task_hook_pre_compact(hew_task *t, bool manual)
{
    if (!any(t, HOOKS_PRE_COMPACT))
        return;
    hooks_input in = { .event = HOOKS_PRE_COMPACT, .trigger = manual ? "manual" : "auto" };
    hooks_outcome out;
    run(t, &in, &out);
    push_context(t, HOOKS_PRE_COMPACT, &out.context);
    hooks_outcome_release(&out);
}
