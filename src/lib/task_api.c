/* task_api — the public session and task API of include/hew.h: options and their
 * defaults, resolving the provider and the model, starting the task thread, answering
 * asks, aborting, waiting. The loop itself is in task/. Never prints or exits. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/message.h"
#include "api/model.h"
#include "api/provider.h"
#include "base/json.h"
#include "base/redact.h"
#include "lib/hooks_session.h"
#include "lib/image_api.h"
#include "lib/lib_pending.h"
#include "lib/lib_record.h"
#include "lib/lib_store.h"
#include "net/egress.h"
#include "net/http.h"
#include "sys/clock.h"
#include "sys/sbpolicy.h"
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
    o->rules_claude = o->rules_gemini = 1;
    o->skills = 1;
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
    free(s->task_id);
    free(s->machine_os);
    free(s->machine_shell);
    free(s->machine_home);
    free(s->sandbox_mode);
    free(s->sandbox_backend);
    free_list(s->sandbox_writable_roots);
    free_list(s->sandbox_hidden);
    free_list(s->sandbox_allow_hosts);
    sbpolicy_free(s->sandbox);
    egress_free(s->egress);
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

int hew_options_images_supported(const hew_options *o)
{
    api_model m;
    return options_model(o, &m) && m.images ? 1 : 0;
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
    st->mode = mode_or(o->mode, MODE_ACT);
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
    st->rules_claude = o->rules_claude != 0;
    st->rules_gemini = o->rules_gemini != 0;
    st->rules_clineignore = o->rules_clineignore != 0;
    st->skills = o->skills != 0;
    st->persist = o->persist != 0;
    st->data_dir = dup_opt(o->data_dir);
    st->max_cost_usd = o->max_cost_usd > 0 ? o->max_cost_usd : 0;
    st->max_requests = o->max_requests > 0 ? o->max_requests : 0;
    st->unattended = o->unattended != 0;
    st->on_event = o->on_event;
    st->event_ud = o->event_ud;
    st->clock_s = o->clock_s;
    st->clock_ud = o->clock_ud;
    st->task_id = dup_opt(o->task_id && *o->task_id ? o->task_id : NULL);
    st->machine_os = dup_opt(o->machine_os);
    st->machine_shell = dup_opt(o->machine_shell);
    st->machine_home = dup_opt(o->machine_home);
    st->sandbox_mode = dup_opt(o->sandbox_mode);
    st->sandbox_backend = dup_opt(o->sandbox_backend);
    st->sandbox_network = o->sandbox_network != 0;
    if (o->file_io && (!o->file_io->read || !o->file_io->write)) {
        settings_release(st);
        free(s);
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "hew_options.file_io needs both read and write (or leave it NULL: "
                        "the disk)");
    }
    if (o->file_io)
        st->file_io = *o->file_io;
    if (o->cmd_runner && (!o->cmd_runner->start || !o->cmd_runner->output ||
                          !o->cmd_runner->kill || !o->cmd_runner->release)) {
        settings_release(st);
        free(s);
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "hew_options.cmd_runner needs start, output, kill and release (or "
                        "leave it NULL: hew runs commands)");
    }
    if (o->cmd_runner)
        st->cmd_runner = *o->cmd_runner;
    if (!dup_list(o->env_allow, &st->env_allow) ||
        !dup_list(o->command_allow, &st->command_allow) ||
        !dup_list(o->command_deny, &st->command_deny) ||
        !dup_list(o->sandbox_writable_roots, &st->sandbox_writable_roots) ||
        !dup_list(o->sandbox_hidden, &st->sandbox_hidden) ||
        !dup_list(o->sandbox_allow_hosts, &st->sandbox_allow_hosts)) {
        settings_release(st);
        free(s);
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    }

    hew_err e = HEW_ERR_INIT;
    /* the hosts sandboxed commands may reach with the network off: through hew's proxy,
     * whose port is the one the sandbox lets them connect to */
    if (st->sandbox_allow_hosts && st->sandbox_allow_hosts[0] && !st->sandbox_network &&
        egress_start((const char *const *)st->sandbox_allow_hosts, &st->egress, &e) !=
            HEW_OK) {
        settings_release(st);
        free(s);
        return lib_fail(e.code, err, errlen, e.msg);
    }
    /* which sandbox commands get: a bad word or path is refused here, before anything
     * starts */
    sbpolicy_opts sbo = {
        .mode = st->sandbox_mode,
        .backend = st->sandbox_backend,
        .cwd = st->cwd,
        .writable_roots = (const char *const *)st->sandbox_writable_roots,
        .hidden = (const char *const *)st->sandbox_hidden,
        .data_dir = st->data_dir,
        .network = st->sandbox_network,
        .proxy_port = st->egress ? egress_port(st->egress) : 0,
    };
    if (sbpolicy_new(&sbo, &st->sandbox, &e) != HEW_OK) {
        settings_release(st);
        free(s);
        return lib_fail(e.code, err, errlen, e.msg);
    }
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
    if (lib_session_hooks_start(s, o, &e) != HEW_OK) {
        settings_release(st);
        free(s);
        return lib_fail(e.code, err, errlen, e.msg);
    }
    if (o->record_dir && lib_record_open(s, o->record_dir, o->model_info, &e) != HEW_OK) {
        lib_session_hooks_stop(s);
        settings_release(st);
        free(s);
        return lib_fail(e.code, err, errlen, e.msg);
    }
    /* what killed writes left goes; this one's are listed — unless the session keeps
     * nothing in the data folder (hew --ephemeral): then it writes nothing there at all */
    if (st->persist || st->checkpoints)
        lib_pending_start(st->data_dir);
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
    lib_session_hooks_stop(s);
    lib_record_close(s);
    settings_release(&s->settings);
    free(s);
}

/* A task of s made and started (task/life.c) into *out, or the code of the failure
 * (memory, a thread that cannot start) with err. */
static hew_code task_launch(hew_session *s, const char *text, const char *resume_id,
                            json_t *images, json_t *captions, hew_task **out, char *err,
                            size_t errlen)
{
    hew_err e = HEW_ERR_INIT;
    hew_task *t = task_new(s, text, resume_id, &e);
    if (t)
        task_attach_images(t, images, captions);
    else {
        json_decref(images);
        json_decref(captions);
    }
    if (t)
        lib_record_manifest(s, text, t->task_id, resume_id != NULL);
    if (t && task_start(t, &e) != HEW_OK) {
        task_free(t);
        t = NULL;
    }
    if (!t)
        return lib_fail(e.code != HEW_OK ? e.code : HEW_E_NOMEM, err, errlen, e.msg);
    /* libcurl loads while the task opens its store, ready by the first request. Only
     * now: a thread started while it loads waits for it (the loader's lock). */
    if (!s->warmup)
        s->warmup = http_warmup_start();
    *out = t;
    return HEW_OK;
}

hew_code hew_task_start(hew_session *s, const char *text, hew_task **out, char *err,
                        size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the task (out is NULL)");
    *out = NULL;
    if (!s || !text || !*text)
        return lib_fail(HEW_E_INVALID, err, errlen, "no task text given");
    return task_launch(s, text, NULL, NULL, NULL, out, err, errlen);
}

hew_code hew_task_start_with_images(hew_session *s, const char *text,
                                    const hew_image *images, size_t nimages, hew_task **out,
                                    char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the task (out is NULL)");
    *out = NULL;
    if (!s || !text || !*text)
        return lib_fail(HEW_E_INVALID, err, errlen, "no task text given");
    hew_err e = HEW_ERR_INIT;
    json_t *blocks = NULL, *captions = NULL;
    hew_code rc = lib_images_prepare(images, nimages, s->model.images, s->provider.model,
                                     &blocks, &captions, &e);
    if (rc != HEW_OK)
        return lib_fail(rc, err, errlen, e.msg);
    return task_launch(s, text, NULL, blocks, captions, out, err, errlen);
}

hew_code hew_images_check(hew_session *s, const hew_image *images, size_t nimages, char *err,
                          size_t errlen)
{
    if (!s)
        return lib_fail(HEW_E_INVALID, err, errlen, "no session given");
    hew_err e = HEW_ERR_INIT;
    json_t *blocks = NULL, *captions = NULL;
    hew_code rc = lib_images_prepare(images, nimages, s->model.images, s->provider.model,
                                     &blocks, &captions, &e);
    json_decref(blocks);
    json_decref(captions);
    return rc == HEW_OK ? HEW_OK : lib_fail(rc, err, errlen, e.msg);
}

hew_code hew_task_start_images(hew_session *s, const char *text, const char *const *images,
                               size_t nimages, hew_task **out, char *err, size_t errlen)
{
    if (nimages > HEW_TASK_IMAGES_MAX || (nimages && !images))
        return hew_task_start_with_images(s, text, NULL, nimages, out, err, errlen);
    hew_image files[HEW_TASK_IMAGES_MAX];
    for (size_t i = 0; i < nimages; i++)
        files[i] = (hew_image){ .path = images[i] ? images[i] : "" };
    return hew_task_start_with_images(s, text, files, nimages, out, err, errlen);
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
    return task_launch(s, "", task_id, NULL, NULL, out, err, errlen);
}

const char *hew_task_id(const hew_task *t)
{
    return t->task_id;
}

static bool answer_known(hew_answer a)
{
    return a == HEW_ANSWER_YES || a == HEW_ANSWER_NO || a == HEW_ANSWER_MESSAGE ||
           a == HEW_ANSWER_YES_BY_RULE;
}

static tool_answer_kind answer_kind(hew_answer a)
{
    return a == HEW_ANSWER_YES || a == HEW_ANSWER_YES_BY_RULE ? TOOL_ANSWER_YES
           : a == HEW_ANSWER_NO                               ? TOOL_ANSWER_NO
                                                              : TOOL_ANSWER_MESSAGE;
}

hew_code hew_task_respond(hew_task *t, hew_answer answer, const char *text)
{
    if (!t || !answer_known(answer))
        return HEW_E_INVALID;
    return task_ask_respond(t, answer_kind(answer), text, answer == HEW_ANSWER_YES_BY_RULE,
                            NULL, NULL);
}

hew_code hew_task_respond_with_images(hew_task *t, hew_answer answer, const char *text,
                                      const hew_image *images, size_t nimages, char *err,
                                      size_t errlen)
{
    if (!t || !answer_known(answer))
        return lib_fail(HEW_E_INVALID, err, errlen,
                        !t ? "no task given" : "the answer is not one of hew_answer");
    if (nimages && answer == HEW_ANSWER_YES_BY_RULE)
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "a yes by a rule carries no images: a person attaches them");
    if (!task_ask_pending(t)) /* before the images are read: a cheap refusal */
        return lib_fail(HEW_E_STATE, err, errlen, "the task is not waiting for an answer");
    hew_err e = HEW_ERR_INIT;
    json_t *blocks = NULL, *captions = NULL;
    hew_code rc = lib_images_prepare(images, nimages, t->session->model.images,
                                     t->session->provider.model, &blocks, &captions, &e);
    if (rc != HEW_OK)
        return lib_fail(rc, err, errlen, e.msg);
    rc = task_ask_respond(t, answer_kind(answer), text, answer == HEW_ANSWER_YES_BY_RULE,
                          blocks, captions);
    if (rc != HEW_OK)
        return lib_fail(rc, err, errlen, rc == HEW_E_STATE
                                             ? "the task is not waiting for an answer"
                                             : "out of memory");
    return HEW_OK;
}

hew_code hew_task_set_mode(hew_task *t, const char *mode)
{
    mode_kind m;
    if (!t || !mode_parse(mode, &m))
        return HEW_E_INVALID;
    task_mode_set(t, m);
    return HEW_OK;
}

void hew_task_abort(hew_task *t, const char *reason)
{
    task_abort(t, reason);
}

hew_task_status hew_task_wait(hew_task *t)
{
    task_join(t);
    return task_status(t);
}

hew_task_status hew_task_status_now(const hew_task *t)
{
    return task_status((hew_task *)t); /* only its mutex changes */
}

const char *hew_task_result(const hew_task *t)
{
    return task_result(t);
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

hew_code hew_task_outcome(const hew_task *t, hew_outcome *out, char **denied_json)
{
    if (denied_json)
        *denied_json = NULL;
    if (!t || !out)
        return HEW_E_INVALID;
    return task_totals_outcome((hew_task *)t, out, denied_json); /* only its mutex changes */
}

const char *hew_task_successor(const hew_task *t)
{
    return task_successor((hew_task *)t); /* only its mutex changes */
}

void hew_task_free(hew_task *t)
{
    task_free(t);
}
