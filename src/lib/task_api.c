/* task_api — the public session and task API of include/hew.h: options and their
 * defaults, resolving the provider and the model, starting the task thread, answering
 * asks, aborting, waiting. The loop itself is in task/. Never prints or exits. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/message.h"
#include "api/model.h"
#include "api/provider.h"
#include "base/json.h"
#include "base/redact.h"
#include "lib/lib_pending.h"
#include "lib/lib_store.h"
#include "net/http.h"
#include "sys/clock.h"
#include "lib/mcp_session.h"
#include "task/task.h"

void hew_options_init(hew_options *o)
{
    memset(o, 0, sizeof *o);
    o->provider = "anthropic";
    o->mode = NULL;
    o->auto_approve_read = 1;
    o->parallel_tool_calls = 1;
    o->native_tools = -1;
    o->max_consecutive_mistakes = 3;
    o->retry_base_delay_ms = 2000;
    o->request_timeout_ms = 600000;
    o->idle_timeout_ms = 120000;
    o->checkpoints = 1;
    o->auto_condense = -1;
    o->persist = 1;
    o->mcp = 1;
    o->rules_global = o->rules_clinerules = o->rules_cursorrules = 1;
    o->rules_windsurfrules = o->rules_agents = o->rules_clineignore = 1;
}

static char *dup_opt(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* A copy of a NULL-terminated list of strings (NULL stays NULL); false when memory runs
 * out. */
static bool dup_list(const char *const *list, char ***out)
{
    *out = NULL;
    if (!list)
        return true;
    size_t n = 0;
    while (list[n])
        n++;
    char **copy = calloc(n + 1, sizeof *copy);
    if (!copy)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(copy[i] = strdup(list[i]))) {
            while (i)
                free(copy[--i]);
            free(copy);
            return false;
        }
    *out = copy;
    return true;
}

static void free_list(char **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

static void settings_release(task_settings *s)
{
    free_list(s->env_allow);
    free(s->provider);
    free(s->model);
    free(s->api_key);
    free(s->base_url);
    free(s->cwd);
    free(s->data_dir);
    free(s->language);
    free_list(s->command_allow);
    free_list(s->command_deny);
    free(s->protocol);
}

/* The model description of hew_options.model_info on top of the table's entry. */
static hew_code apply_model_info(api_model *m, const char *info, hew_err *err)
{
    json_t *desc = NULL;
    hew_code rc = json_parse(info, strlen(info), "model_info", &desc, err);
    if (rc == HEW_OK)
        rc = api_model_from_json(desc, m, err);
    json_decref(desc);
    return rc;
}

hew_code hew_model_info_check(const char *json, char *err, size_t errlen)
{
    api_model m = api_model_lookup(NULL, NULL);
    hew_err e = HEW_ERR_INIT;
    if (!json || apply_model_info(&m, json, &e) != HEW_OK)
        return lib_fail(HEW_E_INVALID, err, errlen, json ? e.msg : "no model description");
    return HEW_OK;
}

/* The model o names, as a session would see it; false when o->model_info is wrong. */
static bool options_model(const hew_options *o, api_model *m)
{
    const char *provider = o && o->provider ? o->provider : "anthropic";
    const char *model = o ? o->model : NULL;
    if (!model || !*model) {
        const api_profile *p = api_profile_find(provider);
        model = p ? p->default_model : NULL;
    }
    *m = api_model_lookup(provider, model);
    hew_err e = HEW_ERR_INIT;
    return !(o && o->model_info && apply_model_info(m, o->model_info, &e) != HEW_OK);
}

int hew_options_model_known(const hew_options *o)
{
    api_model m;
    return options_model(o, &m) && m.known ? 1 : 0;
}

int hew_options_thinking_supported(const hew_options *o)
{
    api_model m;
    return options_model(o, &m) && m.thinking ? 1 : 0;
}

#define ANTHROPIC_MIN_THINKING 1024

/* What the session's requests carry of the asked thinking budget: nothing for a model
 * that cannot think; Anthropic's minimum; an effort for OpenAI-style reasoning models. */
static void session_thinking(hew_session *s)
{
    long asked = s->settings.thinking_budget;
    if (asked <= 0 || !s->model.thinking)
        return;
    s->thinking_budget = asked;
    if (s->provider.protocol == API_PROTO_ANTHROPIC && asked < ANTHROPIC_MIN_THINKING)
        s->thinking_budget = ANTHROPIC_MIN_THINKING;
    if (s->model.reasoning_effort)
        s->reasoning_effort = asked < 4096 ? "low" : asked < 16384 ? "medium" : "high";
}

hew_code hew_session_new(const hew_options *o, hew_session **out, char *err, size_t errlen)
{
    if (out)
        *out = NULL;
    if (!out || !o)
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "no options or no place for the session (NULL)");
    hew_session *s = calloc(1, sizeof *s);
    if (!s)
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    task_settings *st = &s->settings;
    char cwd[PATH_MAX];
    const char *dir = o->cwd;
    if (!dir)
        dir = getcwd(cwd, sizeof cwd);
    char *real = dir ? realpath(dir, NULL) : NULL;
    if (!real) {
        free(s);
        return lib_fail(HEW_E_NOTFOUND, err, errlen,
                        "the workspace directory does not exist or cannot be read");
    }
    st->cwd = real;
    st->provider = dup_opt(o->provider ? o->provider : "anthropic");
    st->model = dup_opt(o->model);
    st->api_key = dup_opt(o->api_key);
    st->base_url = dup_opt(o->base_url);
    st->protocol = dup_opt(o->protocol);
    snprintf(st->mode, sizeof st->mode, "%s", o->mode && strcmp(o->mode, "plan") == 0 ? "plan" : "act");
    st->mode_chosen = o->mode != NULL;
    st->yolo = o->yolo;
    st->auto_approve_read = o->auto_approve_read;
    st->auto_approve_read_outside = o->auto_approve_read_outside;
    st->auto_approve_edit = o->auto_approve_edit;
    st->auto_approve_edit_outside = o->auto_approve_edit_outside;
    st->auto_approve_safe_commands = o->auto_approve_safe_commands;
    st->auto_approve_all_commands = o->auto_approve_all_commands;
    st->auto_approve_mcp = o->auto_approve_mcp;
    st->parallel_tool_calls = o->parallel_tool_calls;
    st->native_tools = o->native_tools;
    st->max_consecutive_mistakes = o->max_consecutive_mistakes > 0 ? o->max_consecutive_mistakes : 3;
    st->retry_base_delay_ms = o->retry_base_delay_ms >= 0 ? o->retry_base_delay_ms : 2000;
    st->request_timeout_ms = o->request_timeout_ms;
    st->idle_timeout_ms = o->idle_timeout_ms;
    st->thinking_budget = o->thinking_budget > 0 ? o->thinking_budget : 0;
    st->checkpoints = o->checkpoints != 0;
    st->auto_condense = o->auto_condense < 0 ? -1 : o->auto_condense != 0;
    st->strict_plan = o->strict_plan != 0;
    st->language = dup_opt(o->language && *o->language ? o->language : NULL);
    st->rules_global = o->rules_global != 0;
    st->rules_clinerules = o->rules_clinerules != 0;
    st->rules_cursorrules = o->rules_cursorrules != 0;
    st->rules_windsurfrules = o->rules_windsurfrules != 0;
    st->rules_agents = o->rules_agents != 0;
    st->rules_clineignore = o->rules_clineignore != 0;
    st->persist = o->persist != 0;
    st->data_dir = dup_opt(o->data_dir);
    st->on_event = o->on_event;
    st->event_ud = o->event_ud;
    if (!dup_list(o->env_allow, &st->env_allow) ||
        !dup_list(o->command_allow, &st->command_allow) ||
        !dup_list(o->command_deny, &st->command_deny)) {
        settings_release(st);
        free(s);
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    }

    hew_err e = HEW_ERR_INIT;
    api_provider_opts po = { st->base_url, st->api_key, st->model, st->protocol };
    hew_code rc = api_provider_init(&s->provider, st->provider, &po, &e);
    if (rc != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
        settings_release(st);
        free(s);
        return rc;
    }
    /* the key is redacted from everything stored, shown or logged from now on */
    redact_secret_add(s->provider.api_key);
    redact_secret_add(st->api_key);
    s->provider.deadline_ms = st->request_timeout_ms;
    s->provider.idle_timeout_ms = st->idle_timeout_ms;
    s->model = api_model_lookup(st->provider, s->provider.model);
    if (o->model_info && apply_model_info(&s->model, o->model_info, &e) != HEW_OK) {
        settings_release(st);
        free(s);
        return lib_fail(HEW_E_INVALID, err, errlen, e.msg);
    }
    s->native_tools = st->native_tools < 0 ? s->model.native_tools : st->native_tools != 0;
    s->auto_condense = st->auto_condense < 0 ? s->model.next_gen : st->auto_condense != 0;
    session_thinking(s);
    lib_pending_start(st->data_dir); /* what killed writes left goes; this one's are listed */
    lib_session_mcp_start(s, o);
    *out = s;
    return HEW_OK;
}

void hew_session_free(hew_session *s)
{
    if (!s)
        return;
    http_warmup_join(s->warmup);
    lib_session_mcp_stop(s);
    settings_release(&s->settings);
    free(s);
}

static void wake_task(void *ud)
{
    hew_task *t = ud;
    pthread_mutex_lock(&t->mu);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

/* A new task's id: the time in ms, never one this process gave out before (two tasks in
 * the same millisecond get consecutive ones), so the store keeps it as is. */
static long long next_task_id(void)
{
    static _Atomic long long last;
    long long now = clock_wall_ms(), prev = atomic_load(&last);
    for (;;) {
        long long id = now > prev ? now : prev + 1;
        if (atomic_compare_exchange_weak(&last, &prev, id))
            return id;
    }
}

static void task_free_state(hew_task *t)
{
    task_stream_reset(t);
    api_turn_release(&t->stream.turn);
    abort_free(t->stream.abort);
    abort_free(t->ckpt_abort);
    abort_free(t->abort);
    uimsg_list_release(&t->ui);
    json_decref(t->history);
    context_rewrites_release(&t->rewrites);
    if (t->rules_loaded)
        rules_set_release(&t->rules);
    json_decref(t->user_content);
    tool_answer_release(&t->ask_answer);
    buf_release(&t->say_scratch);
    buf_release(&t->event_line);
    buf_release(&t->persist_line);
    text_cleaner_release(&t->cleaner);
    free(t->loop_signature);
    free(t->task_text);
    free(t->resume_id);
    free(t->completed_result);
    free(t->result);
    free(t->successor);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static hew_task *task_launch(hew_session *s, const char *text, const char *resume_id,
                             char *err, size_t errlen)
{
    hew_task *t = calloc(1, sizeof *t);
    if (!t) {
        lib_set_err(err, errlen, "out of memory");
        return NULL;
    }
    t->session = s;
    t->settings = &s->settings;
    pthread_mutex_init(&t->mu, NULL);
    clock_cond_init(&t->cv);
    t->abort = abort_new();
    t->stream.abort = abort_new();
    t->ckpt_abort = abort_new();
    /* The id is known before the thread starts (a resumed task keeps its own), so
     * hew_task_id is stable from the first call and only this thread writes it. */
    if (resume_id)
        snprintf(t->task_id, sizeof t->task_id, "%s", resume_id);
    else
        snprintf(t->task_id, sizeof t->task_id, "%lld", next_task_id());
    t->task_text = strdup(text);
    t->resume_id = resume_id ? strdup(resume_id) : NULL;
    t->history = json_array();
    t->status = HEW_TASK_RUNNING;
    t->api_req_index = -1;
    buf_init(&t->say_scratch, 0);
    buf_init(&t->event_line, 0);
    buf_init(&t->persist_line, 0);
    t->persist_pending = -1;
    text_cleaner_init(&t->cleaner, false);
    t->clean_msg = -1;
    t->request_usage = (api_usage)API_USAGE_UNKNOWN;
    api_turn_init(&t->stream.turn);
    t->totals = (api_usage){ 0, 0, 0, 0, 0, 0, -1.0 };
    memcpy(t->mode, s->settings.mode, sizeof t->mode);
    if (!t->abort || !t->stream.abort || !t->ckpt_abort || !t->task_text || !t->history ||
        (resume_id && !t->resume_id)) {
        lib_set_err(err, errlen, "out of memory");
        task_free_state(t);
        return NULL;
    }
    /* Wake the task thread's waits (asks, the stream) at once on abort; the listener
     * lives as long as the token. */
    abort_listen(t->abort, wake_task, t);
    if (pthread_create(&t->thread, NULL, task_main, t) != 0) {
        lib_set_err(err, errlen, "cannot start the task thread");
        task_free_state(t);
        return NULL;
    }
    t->thread_started = true;
    /* libcurl loads while the task opens its store, ready by the first request. Only
     * now: a thread started while it loads waits for it (the loader's lock). */
    if (!s->warmup)
        s->warmup = http_warmup_start();
    return t;
}

/* task_launch's answer as the API's: a task, or the code of its failure (it fails only
 * for memory or a thread that cannot start). */
static hew_code launched(hew_task *t, hew_task **out)
{
    *out = t;
    return t ? HEW_OK : HEW_E_NOMEM;
}

hew_code hew_task_start(hew_session *s, const char *text, hew_task **out, char *err,
                        size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the task (out is NULL)");
    *out = NULL;
    if (!s || !text || !*text)
        return lib_fail(HEW_E_INVALID, err, errlen, "no task text given");
    return launched(task_launch(s, text, NULL, err, errlen), out);
}

hew_code hew_task_resume(hew_session *s, const char *task_id, hew_task **out, char *err,
                         size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the task (out is NULL)");
    *out = NULL;
    if (!s || !task_id || !*task_id)
        return lib_fail(HEW_E_INVALID, err, errlen, "no task id given");
    if (!s->settings.persist)
        return lib_fail(HEW_E_STATE, err, errlen,
                        "cannot resume: the task store is turned off (persist = 0)");
    if (strlen(task_id) >= sizeof ((hew_task *)0)->task_id)
        return lib_fail(HEW_E_NOTFOUND, err, errlen,
                        "no such task in the history: the id is too long (see `hew history`)");
    return launched(task_launch(s, "", task_id, err, errlen), out);
}

const char *hew_task_id(const hew_task *t)
{
    return t->task_id;
}

hew_code hew_task_respond(hew_task *t, hew_answer answer, const char *text)
{
    if (!t || (answer != HEW_ANSWER_YES && answer != HEW_ANSWER_NO &&
               answer != HEW_ANSWER_MESSAGE))
        return HEW_E_INVALID;
    pthread_mutex_lock(&t->mu);
    if (!t->ask_waiting || t->ask_answered) {
        pthread_mutex_unlock(&t->mu);
        return HEW_E_STATE;
    }
    tool_answer_release(&t->ask_answer);
    t->ask_answer.kind = answer == HEW_ANSWER_YES  ? TOOL_ANSWER_YES
                         : answer == HEW_ANSWER_NO ? TOOL_ANSWER_NO
                                                   : TOOL_ANSWER_MESSAGE;
    t->ask_answer.text = text ? strdup(text) : NULL;
    t->ask_answered = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return HEW_OK;
}

hew_code hew_task_set_mode(hew_task *t, const char *mode)
{
    if (!t || !mode || (strcmp(mode, "act") != 0 && strcmp(mode, "plan") != 0))
        return HEW_E_INVALID;
    pthread_mutex_lock(&t->mu);
    snprintf(t->mode, sizeof t->mode, "%s", mode);
    pthread_mutex_unlock(&t->mu);
    return HEW_OK;
}

void hew_task_abort(hew_task *t, const char *reason)
{
    if (!t)
        return;
    abort_trigger(t->abort, reason && *reason ? reason : "aborted by the user");
    abort_trigger(t->stream.abort, "the task was aborted");
}

hew_task_status hew_task_wait(hew_task *t)
{
    if (t->thread_started) {
        pthread_join(t->thread, NULL);
        t->thread_started = false;
    }
    return hew_task_status_now(t);
}

hew_task_status hew_task_status_now(const hew_task *t)
{
    hew_task *m = (hew_task *)t;
    pthread_mutex_lock(&m->mu);
    hew_task_status s = m->status;
    pthread_mutex_unlock(&m->mu);
    return s;
}

const char *hew_task_result(const hew_task *t)
{
    return t->result ? t->result : "";
}

void hew_task_totals(const hew_task *t, hew_totals *task, hew_totals *run)
{
    static const hew_totals none = { 0, 0, 0, 0, 0, 0 };
    if (!t) {
        if (task)
            *task = none;
        if (run)
            *run = none;
        return;
    }
    task_totals_get((hew_task *)t, task, run); /* only its mutex changes */
}

const char *hew_task_successor(const hew_task *t)
{
    hew_task *m = (hew_task *)t;
    pthread_mutex_lock(&m->mu);
    const char *text = m->successor;
    pthread_mutex_unlock(&m->mu);
    return text;
}

void hew_task_free(hew_task *t)
{
    if (!t)
        return;
    if (t->thread_started) {
        hew_task_abort(t, "the task was freed");
        hew_task_wait(t);
    }
    task_free_state(t);
}
