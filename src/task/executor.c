/* executor — runs one complete tool block (Cline's ToolExecutor): the rejection and
 * one-tool-per-message gates, required parameters, loop detection, approval through
 * ask, the tool itself, and the result for the model paired with its tool_use id. Also
 * the tool_env services tools get. Runs on the task thread; never holds mu while a tool
 * runs, so the stream keeps being read during an approval. */
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "prompt/prompt.h"
#include "task/denied.h"
#include "task/responses.h"
#include "task/task.h"
#include "sys/clock.h"
#include "sys/proc.h"
#include "tools/registry.h"

#define RESULT_MAX ((size_t)8 << 20)
/* how long an approval waits for its answer's end, to show the request's usage first */
#define SETTLE_BEFORE_ASK_MS 1000

/* ---- the services tools get (tool_env) ------------------------------------------------ */

static hew_task *task_of(tool_env *env)
{
    return env->task;
}

/* A tool's complete say or ask replaces the partial preview of the same type it showed
 * while its block streamed (Cline's handlers remove that preview before asking), so both
 * 0 and 2 complete a trailing partial message of the same type; otherwise they append. */
static uimsg_partial partial_of(int p)
{
    return p == 1 ? UIMSG_PARTIAL : UIMSG_FINAL;
}

static void env_say(tool_env *env, const char *type, const char *text, json_t *data, int partial)
{
    task_say(task_of(env), type, text, data, partial_of(partial));
}

/* Nobody could approve (hew_options.unattended) and the answer was no: the action is
 * recorded as denied, with what would have allowed it (group NULL: an ask only yolo
 * skips). */
static void note_denied(hew_task *t, const char *group, bool outside, const char *type,
                        const json_t *data)
{
    if (t->settings->unattended)
        task_totals_denied(t, denied_entry(t->settings, group, outside, type, data,
                                           t->tool_running));
}

/* The images a person attached to an answer the running tool got: kept for after the
 * tool's result (executor_run), where Cline puts them too; the answer keeps their
 * captions, for the tool's user_feedback. */
static void keep_answer_images(hew_task *t, tool_answer *answer)
{
    if (!answer || !answer->images)
        return;
    if (!t->answer_images) {
        t->answer_images = answer->images;
    } else {
        json_array_extend(t->answer_images, answer->images);
        json_decref(answer->images);
    }
    answer->images = NULL;
}

static hew_code env_ask(tool_env *env, const char *type, const char *text, json_t *data,
                        int partial, tool_answer *answer)
{
    hew_task *t = task_of(env);
    hew_code rc = task_ask(t, type, text, data, partial_of(partial), answer);
    /* a message typed as the answer (feedback on a completion, an answer to a question)
     * is a prompt: the UserPromptSubmit hooks see it; a refused one is dropped unsaid
     * and the same question is asked again */
    while (rc == HEW_OK && partial != 1 && answer && answer->text && *answer->text) {
        buf context = BUF_INIT(0);
        bool refused = task_hook_prompt(t, answer->text, &context);
        if (!refused && context.len)
            task_push_user_text(t, context.data);
        buf_release(&context);
        if (!refused)
            break;
        tool_answer_release(answer);
        rc = abort_is_set(t->abort) ? HEW_E_ABORTED
                                    : task_ask(t, type, text, data, partial_of(partial), answer);
    }
    /* an ask of a tool that only approval answers no (new_task, condense); questions and
     * the completion are answered with a message or yes */
    if (rc == HEW_OK && partial != 1 && answer && answer->kind == TOOL_ANSWER_NO)
        note_denied(t, NULL, false, type, data);
    if (rc == HEW_OK)
        keep_answer_images(t, answer);
    return rc;
}

/* A non-blocking ask (tool.h): opens the ask rendezvous without waiting, so that
 * hew_task_respond can answer it while the tool works; the answer is taken by a later
 * call. Same mutex rule as task_ask: never held while the front end is called. */
static bool env_ask_nowait(tool_env *env, const char *type, const char *text, json_t *data,
                           int partial, tool_answer *answer)
{
    hew_task *t = task_of(env);
    bool got = task_ask_poll(t, type && partial == 1, type && partial == 2, answer);
    if (got)
        keep_answer_images(t, answer);
    if (got || !type)
        return got;
    long i = uimsg_put(&t->ui, UIMSG_ASK, type, text, data, partial_of(partial));
    task_emit(t, i);
    return false;
}

/* Cline's auto-approval rules: "local" needs the group's flag; "outside the workspace"
 * needs it and the group's outside flag; a command hew judged read-only (safe_command)
 * needs the safe-commands flag, and the read-outside flags when it reads outside the
 * workspace; any other command needs both the safe-commands and the all-commands flags.
 * (A command a deny rule refuses never gets here.) */
static bool auto_approved(const task_settings *s, const char *group, bool outside)
{
    if (strcmp(group, "sandbox") == 0)
        return false; /* leaving the sandbox: a person decides, whatever the settings */
    if (s->yolo)
        return true;
    if (strcmp(group, "control") == 0)
        return false; /* hew's control files: the user decides, whatever the auto-approval */
    if (strcmp(group, "read") == 0)
        return s->auto_approve_read && (!outside || s->auto_approve_read_outside);
    if (strcmp(group, "edit") == 0)
        return s->auto_approve_edit && (!outside || s->auto_approve_edit_outside);
    if (strcmp(group, "safe_command") == 0)
        return s->auto_approve_safe_commands &&
               (!outside || (s->auto_approve_read && s->auto_approve_read_outside));
    if (strcmp(group, "command") == 0)
        return s->auto_approve_safe_commands && s->auto_approve_all_commands;
    if (strcmp(group, "mcp") == 0)
        return s->auto_approve_mcp;
    if (strcmp(group, "mcp_listed") == 0)
        return true;
    return false;
}

static hew_code env_approve(tool_env *env, const char *group, bool outside, const char *type,
                            json_t *data, bool *approved, tool_answer *answer)
{
    hew_task *t = task_of(env);
    /* a PreToolUse hook's "allow" skips the prompt, never for hew's control files nor
     * for leaving the sandbox (and it is no person's yes); its "ask" asks where hew would
     * not (yolo aside) */
    bool hook_allows = t->hook_permission == HOOKS_PERMISSION_ALLOW &&
                       strcmp(group, "control") != 0 && strcmp(group, "sandbox") != 0;
    bool hook_asks = t->hook_permission == HOOKS_PERMISSION_ASK && !t->settings->yolo;
    if ((auto_approved(t->settings, group, outside) && !hook_asks) || hook_allows) {
        task_say(t, type, NULL, data, UIMSG_FINAL);
        *approved = true;
        return HEW_OK;
    }
    tool_answer a = { .kind = TOOL_ANSWER_NO };
    if (strcmp(group, "sandbox") == 0 && t->settings->unattended) {
        /* nobody can answer, and an unattended front end's "yes" (yolo) is no person's:
         * said, refused, recorded as denied */
        task_say(t, type, NULL, data, UIMSG_FINAL);
        *approved = false;
        note_denied(t, group, outside, type, data);
        if (answer)
            *answer = a;
        return HEW_OK;
    }
    /* a person answers: the request's usage and cost are shown first, with it, not
     * after the answer, when the answer's end is there or about to be (one that goes on
     * streaming is not waited for: its tools run while it streams) */
    if (!t->settings->unattended) /* a front end's policy answers at once: no wait */
        task_request_settle(t, SETTLE_BEFORE_ASK_MS);
    hew_code rc = task_ask(t, type, NULL, data, UIMSG_FINAL, &a);
    if (rc != HEW_OK)
        return rc;
    *approved = a.kind == TOOL_ANSWER_YES;
    a.by_hand = *approved && !t->settings->unattended && !a.by_rule;
    if (!*approved) {
        t->did_reject_tool = true;
        note_denied(t, group, outside, type, data);
    }
    if (tool_answer_has_message(&a)) {
        json_t *said = tool_answer_data(&a);
        task_say(t, "user_feedback", a.text ? a.text : "", said, UIMSG_WHOLE);
        json_decref(said);
    }
    keep_answer_images(t, &a);
    if (answer)
        *answer = a;
    else
        tool_answer_release(&a);
    return HEW_OK;
}

static void env_complete(tool_env *env, const char *result)
{
    hew_task *t = task_of(env);
    t->did_complete = true;
    task_finish(t, HEW_TASK_COMPLETED, result);
}

static size_t env_condense(tool_env *env)
{
    hew_task *t = task_of(env);
    task_hook_pre_compact(t, true);
    size_t before = task_ctx_active_messages(t);
    task_ctx_truncate(t, CONTEXT_KEEP_NONE);
    size_t after = task_ctx_active_messages(t);
    return before > after ? before - after : 0;
}

static bool env_accept_summary(tool_env *env)
{
    return task_condense_accept(task_of(env));
}

static bool env_auto_approved(tool_env *env, const char *group, bool outside)
{
    return auto_approved(task_of(env)->settings, group, outside);
}

/* The successor's text is set before the status changes, so a front end that sees the
 * task completed finds it. */
static void env_hand_over(tool_env *env, const char *text, const char *result)
{
    hew_task *t = task_of(env);
    char *copy = strdup(text ? text : "");
    pthread_mutex_lock(&t->mu);
    free(t->successor);
    t->successor = copy;
    pthread_mutex_unlock(&t->mu);
    t->did_complete = true;
    task_finish(t, HEW_TASK_COMPLETED, result);
}

static void env_mistake(tool_env *env, bool made)
{
    hew_task *t = task_of(env);
    if (made)
        t->consecutive_mistakes++;
    else
        t->consecutive_mistakes = 0;
}

static void env_set_mode(tool_env *env, mode_kind mode)
{
    task_mode_set(task_of(env), mode);
}

static hew_code env_use_skill(tool_env *env, const char *name, const char *path, buf *out,
                              hew_err *err)
{
    return task_use_skill(task_of(env), name, path, out, err);
}

static mode_kind env_mode_now(tool_env *env)
{
    return task_mode_get(task_of(env));
}

void executor_env_init(hew_task *t)
{
    tool_env *e = &t->env;
    e->task = t;
    e->cwd = t->settings->cwd;
    e->abort = t->abort;
    e->yolo = t->settings->yolo;
    e->command_allow = (const char *const *)t->settings->command_allow;
    e->command_deny = (const char *const *)t->settings->command_deny;
    e->mcp = t->session->mcp;
    e->mode_now = env_mode_now;
    e->set_mode = env_set_mode;
    e->say = env_say;
    e->ask = env_ask;
    e->approve = env_approve;
    e->ask_nowait = env_ask_nowait;
    e->complete = env_complete;
    e->mistake = env_mistake;
    e->condense = env_condense;
    e->accept_summary = env_accept_summary;
    e->auto_approved = env_auto_approved;
    e->hand_over = env_hand_over;
    e->use_skill = env_use_skill;
    /* (the key hew uses is a registered secret since hew_session_new: it never reaches a
     * child process, whatever variable it came from) */
    e->env_allow = (const char *const *)t->settings->env_allow;
    e->sandbox = t->settings->sandbox;
    e->egress = t->settings->egress;
    e->model = t->session->provider.model;
    e->model_images = t->session->model.images;
    task_file_io_init(t);
    e->cmd_runner = t->settings->cmd_runner.start ? &t->settings->cmd_runner : NULL;
}

/* ---- results ----------------------------------------------------------------------------- */

/* Add a result for the model: a tool_result paired with the call's id for native calls,
 * a text block for XML calls. */
static void push_result(hew_task *t, const tool_call *call, const char *text, bool is_error)
{
    if (call->native && call->id)
        task_push_user_block(t, api_msg_tool_result(call->id, text, is_error));
    else
        task_push_user_text(t, text);
}

static void push_described(hew_task *t, const tool_def *def, const tool_call *call,
                           const char *text, bool is_error)
{
    buf out = BUF_INIT(RESULT_MAX);
    tool_describe(def, call, &out);
    buf_printf(&out, " Result:\n%s", text && *text ? text : "(the tool returned nothing)");
    push_result(t, call, out.data ? out.data : "", is_error);
    buf_release(&out);
}

/* Images a tool returned (an MCP server's, say): inside the tool_result of a native call,
 * after the text of an XML one; for a model that does not read images, a note instead. */
static void push_images(hew_task *t, const tool_call *call, json_t *images)
{
    size_t n = json_array_size(images);
    if (!n)
        return;
    if (!t->session->model.images) {
        char note[200];
        snprintf(note, sizeof note,
                 "[%zu image%s came with this result, but the model in use does not read "
                 "images, so %s left out]",
                 n, n == 1 ? "" : "s", n == 1 ? "it was" : "they were");
        task_push_user_text(t, note);
        return;
    }
    size_t last = json_array_size(t->user_content);
    json_t *prev = last ? json_array_get(t->user_content, last - 1) : NULL;
    json_t *inner = prev && call->native && call->id &&
                            strcmp(api_msg_block_type(prev), "tool_result") == 0
                        ? json_object_get(prev, "content")
                        : NULL;
    if (json_is_string(inner)) { /* the result's text becomes its first block */
        json_t *blocks = json_array();
        json_array_append_new(blocks, api_msg_text(json_string_value(inner),
                                                   json_string_length(inner)));
        json_object_set_new(prev, "content", blocks);
        inner = blocks;
    }
    size_t i;
    json_t *img;
    json_array_foreach(images, i, img) {
        if (json_is_array(inner))
            json_array_append(inner, img);
        else
            task_push_user_block(t, json_incref(img));
    }
}

/* ---- loop detection ----------------------------------------------------------------------- */

/* name + parameters sorted by name (task_progress ignored), as compact JSON. */
static char *call_signature(const tool_call *call)
{
    json_t *o = json_object();
    for (size_t i = 0; i < call->nparams; i++)
        if (strcmp(call->keys[i], "task_progress") != 0)
            json_object_set_new(o, call->keys[i], json_string(call->values[i]));
    json_t *sig = json_pack("{s:s, s:o}", "tool", call->name, "params", o);
    char *s = sig ? json_dumps(sig, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(sig);
    return s;
}

/* Count identical consecutive calls; returns the count for this call. */
static int loop_track(hew_task *t, const tool_call *call)
{
    char *sig = call_signature(call);
    if (sig && t->loop_signature && strcmp(sig, t->loop_signature) == 0) {
        free(sig);
        return ++t->loop_count;
    }
    free(t->loop_signature);
    t->loop_signature = sig;
    t->loop_count = 1;
    return 1;
}

/* ---- the executor --------------------------------------------------------------------- */

void executor_partial(hew_task *t, const tool_call *call)
{
    const tool_def *def = registry_find(call->name);
    if (!def || !def->partial || t->did_reject_tool)
        return;
    def->partial(&t->env, call);
}

static hew_code executor_run_one(hew_task *t, const tool_call *call);

hew_code executor_run(hew_task *t, const tool_call *call)
{
    /* A native call of an MCP tool ("<server>__<tool>") is the use_mcp_tool call it
     * stands for; its result keeps the native call's id. */
    task_mcp_call mapped;
    bool is_mcp = !registry_find(call->name) && task_mcp_map_call(t, call, &mapped);
    hew_code rc = executor_run_one(t, is_mcp ? &mapped.call : call);
    if (is_mcp)
        task_mcp_call_release(&mapped);
    task_mcp_drain(t);
    return rc;
}

/* The user's hooks before a tool: PreToolUse (a block: the tool is not run, the model
 * is told why), then Stop for a tool that completes the task (a block: the model goes
 * on). true: refused, the result pushed. */
static bool hooks_refuse(hew_task *t, const tool_def *def, const tool_call *call, buf *msg)
{
    buf why = BUF_INIT(HOOKS_OUTPUT_MAX);
    const char *what = NULL;
    if (task_hook_pre_tool(t, call, &why, &t->hook_permission))
        what = "PreToolUse";
    else if (tool_is(def, TOOL_COMPLETES) && task_hook_stop(t, &why))
        what = "Stop";
    if (what) {
        t->hook_permission = HOOKS_PERMISSION_NONE;
        buf_reset(msg);
        if (strcmp(what, "Stop") == 0)
            buf_printf(msg, "The task is not complete yet: a Stop hook asked you to go on: "
                            "%s", why.data ? why.data : "");
        else
            buf_printf(msg, "This tool was not run: a PreToolUse hook blocked it: %s",
                       why.data ? why.data : "");
        task_say(t, "notice", msg->data, NULL, UIMSG_WHOLE);
        buf reply = BUF_INIT(RESULT_MAX);
        resp_tool_error(&reply, msg->data ? msg->data : "");
        push_described(t, def, call, reply.data, true);
        buf_release(&reply);
    }
    buf_release(&why);
    return what != NULL;
}

static hew_code executor_run_one(hew_task *t, const tool_call *call)
{
    const tool_def *def = registry_find(call->name);
    buf msg = BUF_INIT(RESULT_MAX);
    hew_code rc = HEW_OK;

    if (t->did_reject_tool) {
        buf desc = BUF_INIT(0);
        tool_describe(def, call, &desc);
        resp_skipped_after_rejection(&msg, desc.data ? desc.data : call->name, call->partial);
        push_result(t, call, msg.data, true);
        buf_release(&desc);
        goto done;
    }
    if (!t->settings->parallel_tool_calls && t->did_already_use_tool) {
        resp_tool_already_used(&msg, call->name);
        push_result(t, call, msg.data, true);
        goto done;
    }
    if (!def) {
        resp_unknown_tool(&msg, call->name);
        push_result(t, call, msg.data, true);
        t->consecutive_mistakes++;
        goto mark_used;
    }
    prompt_ctx pc;
    task_prompt_ctx(t, &pc);
    bool strict_refusal = pc.strict_plan && pc.mode == MODE_PLAN &&
                          tool_is(def, TOOL_EDITS_FILES);
    if (strict_refusal) {
        buf why = BUF_INIT(0);
        buf_printf(&why, "%s is not available in PLAN MODE: files are not changed while "
                         "planning. Finish the plan with plan_mode_respond; the user switches "
                         "to ACT MODE to carry it out.",
                   def->name);
        task_say(t, "error", why.data, NULL, UIMSG_WHOLE);
        resp_tool_error(&msg, why.data ? why.data : "");
        buf_release(&why);
        push_described(t, def, call, msg.data, true);
        goto mark_used;
    }
    /* The MCP gateway (use_mcp_tool) is left out of the native tool list (each MCP tool
     * is listed itself) but still works when the model calls it. */
    bool mcp_call_ok = tool_is(def, TOOL_MCP_GATEWAY) && pc.nmcp > 0;
    if (!mcp_call_ok && !prompt_tool_offered(&pc, def)) {
        buf why = BUF_INIT(0);
        buf_printf(&why, "The tool %s is not available now (%s MODE%s). Use one of the tools "
                         "offered in the system prompt.",
                   def->name, mode_title(pc.mode),
                   t->settings->yolo ? ", every action approved automatically" : "");
        resp_tool_error(&msg, why.data ? why.data : "");
        buf_release(&why);
        push_described(t, def, call, msg.data, true);
        t->consecutive_mistakes++;
        goto mark_used;
    }
    if (call->invalid_args) {
        buf err = BUF_INIT(0);
        buf_printf(&err, "The arguments of this call are not valid JSON (%s). Call the tool "
                         "again with a complete JSON object.", call->invalid_args);
        resp_tool_error(&msg, err.data);
        buf_release(&err);
        task_say(t, "error", msg.data, NULL, UIMSG_WHOLE);
        push_described(t, def, call, msg.data, true);
        t->consecutive_mistakes++;
        goto mark_used;
    }
    for (size_t i = 0; i < def->nparams; i++) {
        const tool_param *p = &def->params[i];
        const char *v = tool_param_value(p, call);
        if (p->required && (!v || !*v)) {
            buf note = BUF_INIT(0);
            buf_printf(&note, "hew tried to use %s without a value for the required parameter "
                              "'%s'. Retrying...", def->name, p->name);
            task_say(t, "error", note.data, NULL, UIMSG_WHOLE);
            buf_release(&note);
            resp_missing_param(&msg, def->name, p->name, call->native);
            push_described(t, def, call, msg.data, true);
            t->consecutive_mistakes++;
            goto mark_used;
        }
    }

    if (tool_is(def, TOOL_ASKS_USER))
        task_request_done(t); /* the request's cost is shown before the question */
    if (hooks_refuse(t, def, call, &msg))
        goto mark_used;
    int repeats = loop_track(t, call);
    tool_result result = { BUF_INIT(RESULT_MAX), false, false, NULL };
    task_totals_tool_call(t);
    t->tool_running = def->name;
    long long started = clock_now_ms();
    rc = def->run(&t->env, call, &result);
    long long ran_ms = clock_now_ms() - started;
    t->tool_running = NULL;
    t->hook_permission = HOOKS_PERMISSION_NONE;
    if (rc == HEW_OK) {
        if (repeats >= 3)
            resp_loop_warning(&result.text, call->name, repeats);
        if (!tool_is(def, TOOL_READ_ONLY) && !result.is_error)
            task_ckpt_changed(t); /* worth a checkpoint after the turn */
        if (repeats >= 5)
            t->consecutive_mistakes = t->settings->max_consecutive_mistakes;
        else if (!result.is_error)
            t->consecutive_mistakes = 0;
        if (result.text.err) {
            buf_reset(&result.text);
            buf_puts(&result.text, "(the tool's output was too large to return)");
        }
        if (result.no_prefix)
            push_result(t, call, result.text.data ? result.text.data : "", result.is_error);
        else
            push_described(t, def, call, result.text.data, result.is_error);
        push_images(t, call, result.images);
        push_images(t, call, t->answer_images); /* the person's, after the tool's */
        task_hook_post_tool(t, call, result.text.data ? result.text.data : "",
                            result.is_error, ran_ms);
    }
    json_decref(result.images);
    json_decref(t->answer_images);
    t->answer_images = NULL;
    buf_release(&result.text);
mark_used:
    if (!t->settings->parallel_tool_calls)
        t->did_already_use_tool = true;
done:
    buf_release(&msg);
    return rc;
}
