/* hooks run — running the hooks of one event: the event as JSON on stdin (Claude Code's
 * shape, or Cline's for a Cline script), the process through sys/proc (its group killed at
 * the timeout), stdout and stderr captured with a cap, and what each hook said combined
 * into one outcome. Never blocks past a hook's timeout, never lets a hook's output grow
 * without bound, never decides anything a hook did not say. */
#include "hooks/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/log.h"
#include "base/utf8.h"
#include "sys/clock.h"
#include "sys/proc.h"

void hooks_outcome_init(hooks_outcome *o)
{
    memset(o, 0, sizeof *o);
    buf_init(&o->reason, HOOKS_OUTPUT_MAX);
    buf_init(&o->context, HOOKS_CONTEXT_MAX + 1);
    buf_init(&o->warnings, HOOKS_OUTPUT_MAX);
}

void hooks_outcome_release(hooks_outcome *o)
{
    buf_release(&o->reason);
    buf_release(&o->context);
    buf_release(&o->warnings);
}

/* ---- the event's JSON ------------------------------------------------------------------ */

static json_t *str_or_null(const char *s)
{
    return s ? json_string_lossy(s, strlen(s)) : json_null();
}

static json_t *claude_json(const hooks_input *in)
{
    json_t *o = json_object();
    json_object_set_new(o, "session_id", str_or_null(in->session_id));
    json_object_set_new(o, "transcript_path", str_or_null(in->transcript_path));
    json_object_set_new(o, "cwd", str_or_null(in->cwd));
    json_object_set_new(o, "hook_event_name", json_string(hooks_event_name(in->event)));
    switch (in->event) {
    case HOOKS_PRE_TOOL_USE:
    case HOOKS_POST_TOOL_USE:
        json_object_set_new(o, "tool_name", str_or_null(in->tool_name));
        json_object_set_new(o, "tool_input", in->tool_input ? json_deep_copy(in->tool_input)
                                                            : json_object());
        if (in->event == HOOKS_PRE_TOOL_USE)
            break;
        json_object_set_new(o, "tool_response", str_or_null(in->tool_response));
        json_object_set_new(o, "tool_failed", json_boolean(in->tool_failed));
        break;
    case HOOKS_USER_PROMPT_SUBMIT:
        json_object_set_new(o, "prompt", str_or_null(in->prompt));
        break;
    case HOOKS_STOP:
        json_object_set_new(o, "stop_hook_active", json_boolean(in->stop_hook_active));
        break;
    case HOOKS_SESSION_START:
        json_object_set_new(o, "source", str_or_null(in->source));
        break;
    case HOOKS_PRE_COMPACT:
        json_object_set_new(o, "trigger", str_or_null(in->trigger));
        json_object_set_new(o, "custom_instructions", json_string(""));
        break;
    case HOOKS_NEVENTS:
        break;
    }
    return o;
}

/* Cline's hook input (its .clinerules/hooks README). */
static json_t *cline_json(const hooks_hook *h, const hooks_input *in)
{
    char ts[32];
    snprintf(ts, sizeof ts, "%lld", clock_wall_ms());
    json_t *o = json_object();
    json_object_set_new(o, "clineVersion", json_string("hew"));
    json_object_set_new(o, "hookName", json_string(h->cline_name));
    json_object_set_new(o, "timestamp", json_string(ts));
    json_object_set_new(o, "taskId", str_or_null(in->session_id));
    json_object_set_new(o, "workspaceRoots", json_pack("[o]", str_or_null(in->cwd)));
    json_object_set_new(o, "userId", json_string(""));
    json_t *meta = json_pack("{s:o, s:o}", "taskId", str_or_null(in->session_id), "ulid",
                             str_or_null(in->session_id));
    json_t *params = in->tool_input ? json_deep_copy(in->tool_input) : json_object();
    switch (in->event) {
    case HOOKS_PRE_TOOL_USE:
        json_object_set_new(o, "preToolUse", json_pack("{s:o, s:o}", "toolName",
                                                       str_or_null(in->tool_name), "parameters",
                                                       json_incref(params)));
        break;
    case HOOKS_POST_TOOL_USE:
        json_object_set_new(o, "postToolUse",
                            json_pack("{s:o, s:O, s:o, s:b, s:I}", "toolName",
                                      str_or_null(in->tool_name), "parameters", params, "result",
                                      str_or_null(in->tool_response), "success",
                                      !in->tool_failed, "executionTimeMs",
                                      (json_int_t)in->tool_ms));
        break;
    case HOOKS_USER_PROMPT_SUBMIT:
        json_object_set_new(o, "userPromptSubmit", json_pack("{s:o, s:[]}", "prompt",
                                                             str_or_null(in->prompt),
                                                             "attachments"));
        break;
    case HOOKS_SESSION_START:
        if (strcmp(h->cline_name, "TaskStart") == 0) {
            json_object_set_new(meta, "initialTask", str_or_null(in->prompt));
            json_object_set_new(o, "taskStart", json_pack("{s:O}", "taskMetadata", meta));
        } else {
            json_object_set_new(o, "taskResume", json_pack("{s:O, s:{}}", "taskMetadata", meta,
                                                           "previousState"));
        }
        break;
    case HOOKS_STOP:
        json_object_set_new(o, "taskComplete", json_pack("{s:O}", "taskMetadata", meta));
        break;
    case HOOKS_PRE_COMPACT:
        json_object_set_new(o, "preCompact", json_pack("{s:s}", "compactionStrategy",
                                                       in->trigger && strcmp(in->trigger,
                                                                             "manual") == 0
                                                           ? "manual"
                                                           : "auto"));
        break;
    case HOOKS_NEVENTS:
        break;
    }
    json_decref(params);
    json_decref(meta);
    return o;
}

static char *input_json(const hooks_hook *h, const hooks_input *in)
{
    json_t *o = h->cline ? cline_json(h, in) : claude_json(in);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

char *hooks_input_json(const hooks_set *s, size_t i, const hooks_input *in)
{
    const hooks_hook *h = hooks_set_nth(s, in->event, i);
    return h ? input_json(h, in) : NULL;
}

/* ---- one hook ----------------------------------------------------------------------- */

typedef struct capture {
    buf out, err;
} capture;

/* Keep what fits under each cap; the rest is dropped (the buf's sticky error is not
 * used: a prefix is kept). */
static void keep(buf *b, const char *data, size_t len)
{
    size_t room = b->max > b->len ? b->max - b->len : 0;
    buf_append(b, data, len < room ? len : room);
}

static void on_output(void *ud, int stream, const char *data, size_t len)
{
    capture *c = ud;
    keep(stream == PROC_STDERR ? &c->err : &c->out, data, len);
}

typedef struct feeder {
    proc *p;
    const char *data;
    size_t len;
} feeder;

/* stdin is written by its own thread while the hook's output is read: a hook that writes
 * before it reads, or never reads, cannot block hew (its end closes the pipe). */
static void *feed(void *arg)
{
    feeder *f = arg;
    (void)proc_write(f->p, f->data, f->len, NULL);
    proc_close_stdin(f->p);
    return NULL;
}

/* Trailing and leading white space off (in place). */
static const char *trimmed(buf *b)
{
    if (!b->data)
        return "";
    while (b->len && strchr(" \t\r\n", b->data[b->len - 1]))
        b->data[--b->len] = '\0';
    const char *p = b->data;
    while (*p && strchr(" \t\r\n", *p))
        p++;
    return p;
}

static void add_line(buf *b, const char *sep, const char *text)
{
    if (!text || !*text)
        return;
    if (b->len)
        buf_puts(b, sep);
    size_t room = b->max > b->len + 1 ? b->max - b->len - 1 : 0;
    size_t n = strlen(text);
    buf_append(b, text, n <= room ? n : utf8_cut(text, n, room));
}

static const char *shown_command(const hooks_hook *h)
{
    return h->command ? h->command : h->script;
}

/* What one hook's exit and output say, into out; returns the decision word. */
static const char *judge(const hooks_hook *h, const proc_status *st, capture *c,
                         hooks_outcome *out, buf *message)
{
    const char *err = trimmed(&c->err);
    if (st->end == PROC_TIMED_OUT) {
        buf_printf(message, "the hook `%s` (%s) did not finish within %ld s and was stopped",
                   shown_command(h), hooks_event_name(h->event), h->timeout_ms / 1000);
        return "warn";
    }
    if (st->end != PROC_EXITED) {
        buf_printf(message, "the hook `%s` (%s) was stopped before it finished",
                   shown_command(h), hooks_event_name(h->event));
        return "warn";
    }
    if (st->exit_code == 2) {
        out->block = true;
        buf_puts(message, *err ? err : "blocked by a hook");
        return "block";
    }
    if (st->exit_code != 0) {
        buf_printf(message, "the hook `%s` (%s) failed with exit code %d%s%s",
                   shown_command(h), hooks_event_name(h->event), st->exit_code,
                   *err ? ": " : "", err);
        return "warn";
    }
    const char *so = trimmed(&c->out);
    json_t *j = *so == '{' ? json_loads(so, 0, NULL) : NULL;
    bool plain_context = h->event == HOOKS_USER_PROMPT_SUBMIT ||
                         h->event == HOOKS_SESSION_START;
    if (!json_is_object(j)) {
        json_decref(j);
        if (*so == '{' && !plain_context)
            buf_printf(message, "the hook `%s` (%s) printed something that is not a JSON "
                       "object; it was ignored", shown_command(h), hooks_event_name(h->event));
        if (plain_context && *so)
            add_line(&out->context, "\n\n", so);
        return message->len ? "warn" : "none";
    }
    const char *decision = "none";
    if (h->cline) {
        const char *why = json_string_value(json_object_get(j, "errorMessage"));
        add_line(&out->context, "\n\n",
                 json_string_value(json_object_get(j, "contextModification")));
        if (json_is_true(json_object_get(j, "cancel"))) {
            out->block = true;
            buf_puts(message, why && *why ? why : "cancelled by a Cline hook");
            decision = "block";
        } else if (why && *why) {
            buf_puts(message, why);
            decision = "warn";
        }
        json_decref(j);
        return decision;
    }
    const json_t *hso = json_object_get(j, "hookSpecificOutput");
    add_line(&out->context, "\n\n",
             json_string_value(json_object_get(hso, "additionalContext")));
    const char *sysmsg = json_string_value(json_object_get(j, "systemMessage"));
    if (sysmsg && *sysmsg)
        add_line(&out->warnings, "\n", sysmsg);
    const char *pd = h->event == HOOKS_PRE_TOOL_USE
                         ? json_string_value(json_object_get(hso, "permissionDecision"))
                         : NULL;
    const char *pdr = json_string_value(json_object_get(hso, "permissionDecisionReason"));
    const char *dec = json_string_value(json_object_get(j, "decision"));
    const char *reason = json_string_value(json_object_get(j, "reason"));
    if (json_is_false(json_object_get(j, "continue"))) {
        const char *sr = json_string_value(json_object_get(j, "stopReason"));
        out->stop = true;
        buf_puts(message, sr && *sr ? sr : "stopped by a hook");
        decision = "stop";
    } else if ((pd && strcmp(pd, "deny") == 0) || (dec && strcmp(dec, "block") == 0)) {
        out->block = true;
        const char *why = pd && strcmp(pd, "deny") == 0 ? pdr : reason;
        buf_puts(message, why && *why ? why : "blocked by a hook");
        decision = pd && strcmp(pd, "deny") == 0 ? "deny" : "block";
    } else if (pd && strcmp(pd, "ask") == 0) {
        out->permission = HOOKS_PERMISSION_ASK;
        buf_puts(message, pdr ? pdr : "");
        decision = "ask";
    } else if ((pd && strcmp(pd, "allow") == 0) ||
               (h->event == HOOKS_PRE_TOOL_USE && dec && strcmp(dec, "approve") == 0)) {
        if (out->permission != HOOKS_PERMISSION_ASK)
            out->permission = HOOKS_PERMISSION_ALLOW;
        buf_puts(message, pdr ? pdr : reason ? reason : "");
        decision = "allow";
    }
    json_decref(j);
    return decision;
}

/* Start one hook, feed it the event, wait for its end. */
static void run_one(const hooks_hook *h, const char *json, const hooks_run_opts *o,
                    hooks_outcome *out)
{
    const char *shell = getenv("SHELL");
    if (!shell || shell[0] != '/')
        shell = "/bin/sh";
    const char *argv_cmd[] = { shell, "-c", h->command, NULL };
    const char *argv_script[] = { h->script, NULL };
    proc_env env = PROC_ENV_INIT;
    proc_env_for_command(&env, o->env_allow);
    if (o->project_dir) {
        proc_env_set(&env, "CLAUDE_PROJECT_DIR", o->project_dir);
        proc_env_set(&env, "HEW_PROJECT_DIR", o->project_dir);
    }
    capture c = { BUF_INIT(HOOKS_OUTPUT_MAX), BUF_INIT(HOOKS_OUTPUT_MAX) };
    proc_opts po = {
        .argv = h->command ? argv_cmd : argv_script,
        .cwd = o->project_dir,
        .envp = proc_env_list(&env),
        .separate_stderr = true,
        .stdin_pipe = true,
        .timeout_ms = h->timeout_ms,
        .abort = o->abort,
        .on_output = on_output,
        .ud = &c,
        .sandbox = o->sandbox,
    };
    long long t0 = clock_now_ms();
    proc *p = NULL;
    hew_err e = HEW_ERR_INIT;
    proc_status st = { .end = PROC_EXITED, .exit_code = -1 };
    buf message = BUF_INIT(HOOKS_OUTPUT_MAX);
    const char *decision;
    if (o->sandbox_error) {
        buf_printf(&message, "the hook `%s` (%s) did not run: its sandbox could not be set "
                   "up: %s", shown_command(h), hooks_event_name(h->event), o->sandbox_error);
        decision = "warn";
        st.end = PROC_KILLED;
    } else if (proc_start(&po, &p, &e) != HEW_OK) {
        buf_printf(&message, "the hook `%s` (%s) could not start: %s", shown_command(h),
                   hooks_event_name(h->event), e.msg);
        decision = "warn";
        st.end = PROC_KILLED;
    } else {
        feeder f = { p, json, strlen(json) };
        pthread_t th;
        bool fed = pthread_create(&th, NULL, feed, &f) == 0;
        if (!fed)
            feed(&f);
        proc_wait(p, &st);
        if (fed)
            pthread_join(th, NULL);
        proc_free(p);
        decision = judge(h, &st, &c, out, &message);
    }
    long long ms = clock_now_ms() - t0;
    out->ran++;
    const char *msg = message.data ? message.data : "";
    if (strcmp(decision, "block") == 0 || strcmp(decision, "deny") == 0 ||
        strcmp(decision, "stop") == 0)
        add_line(&out->reason, "\n", msg);
    else if (strcmp(decision, "warn") == 0)
        add_line(&out->warnings, "\n", msg);
    hew_log(strcmp(decision, "warn") == 0 ? HEW_LOG_WARN : HEW_LOG_INFO, "hooks",
            "%s hook `%s` from %s: exit %d%s, %lld ms, decision %s%s%s",
            hooks_event_name(h->event), shown_command(h), h->source,
            st.end == PROC_EXITED ? st.exit_code : -1,
            st.end == PROC_TIMED_OUT ? " (timed out)" : "", ms, decision, *msg ? ": " : "", msg);
    if (o->report) {
        hooks_report r = {
            .event = h->event,
            .command = shown_command(h),
            .source = h->source,
            .exit_code = st.end == PROC_EXITED ? st.exit_code : -1,
            .timed_out = st.end == PROC_TIMED_OUT,
            .duration_ms = ms,
            .decision = decision,
            .message = msg,
        };
        o->report(o->ud, &r);
    }
    buf_release(&message);
    buf_release(&c.out);
    buf_release(&c.err);
    proc_env_release(&env);
}

void hooks_run(const hooks_set *s, const hooks_input *in, const hooks_run_opts *o,
               hooks_outcome *out)
{
    hooks_outcome_init(out);
    for (size_t i = 0; s && i < s->n; i++) {
        const hooks_hook *h = &s->hooks[i];
        if (h->event != in->event ||
            !hooks_hook_matches(h, in->tool_name, in->mcp_server, in->mcp_tool))
            continue;
        if (h->only_source && (!in->source || strcmp(h->only_source, in->source) != 0))
            continue;
        if (o->abort && abort_is_set(o->abort))
            break;
        char *json = input_json(h, in);
        if (!json) {
            add_line(&out->warnings, "\n", "out of memory: a hook was not run");
            continue;
        }
        run_one(h, json, o, out);
        free(json);
        if (out->block || out->stop)
            break;
    }
}
