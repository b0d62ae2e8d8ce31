/* record — a session's recording and its manifest (see lib_record.h). Writes only into
 * the recording's folder, through net/record.
 *
 * The recordings open in this process are shared by folder: sessions that name the same
 * one use it together (the terminal replaces its session when the model or the mode
 * changes; the exchanges go on in the same recording, numbered on), and its manifest is
 * written once, for the first task. */
#include "lib/lib_record.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/chunk.h"
#include "base/log.h"
#include "base/redact.h"
#include "net/record.h"
#include "prompt/env_details.h"
#include "prompt/prompt.h"
#include "sys/clock.h"
#include "tools/mode.h"
#include "hew.h"

struct open_rec {
    char *dir;
    net_record *r;
    int refs;
    bool manifest_said;
    char *model_info;   /* the first session's hew_options.model_info, or NULL */
    struct open_rec *next;
};

static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;
static struct open_rec *open_list;

hew_code lib_record_open(hew_session *s, const char *dir, const char *model_info,
                         hew_err *err)
{
    pthread_mutex_lock(&open_mu);
    struct open_rec *o = open_list;
    while (o && strcmp(o->dir, dir) != 0)
        o = o->next;
    hew_code rc = HEW_OK;
    if (o) {
        o->refs++;
    } else if (!(o = calloc(1, sizeof *o)) || !(o->dir = strdup(dir))) {
        free(o);
        o = NULL;
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
    } else if ((model_info && !(o->model_info = strdup(model_info))) ||
               (rc = net_record_open(dir, &o->r, err)) != HEW_OK) {
        if (rc == HEW_OK)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        free(o->model_info);
        free(o->dir);
        free(o);
        o = NULL;
    } else {
        o->refs = 1;
        o->next = open_list;
        open_list = o;
    }
    if (o)
        s->provider.record = o->r;
    pthread_mutex_unlock(&open_mu);
    return rc;
}

void lib_record_close(hew_session *s)
{
    if (!s->provider.record)
        return;
    pthread_mutex_lock(&open_mu);
    for (struct open_rec **p = &open_list; *p; p = &(*p)->next) {
        struct open_rec *o = *p;
        if (o->r != s->provider.record)
            continue;
        if (--o->refs == 0) {
            *p = o->next;
            net_record_free(o->r);
            free(o->model_info);
            free(o->dir);
            free(o);
        }
        break;
    }
    pthread_mutex_unlock(&open_mu);
    s->provider.record = NULL;
}

/* True the first time it is asked for r (its manifest is then to be written), with a
 * copy of its model_info (NULL: none; the caller frees it). */
static bool manifest_first(const net_record *r, char **model_info)
{
    bool first = false;
    *model_info = NULL;
    pthread_mutex_lock(&open_mu);
    for (struct open_rec *o = open_list; o; o = o->next)
        if (o->r == r) {
            first = !o->manifest_said;
            o->manifest_said = true;
            if (first && o->model_info)
                *model_info = strdup(o->model_info);
        }
    pthread_mutex_unlock(&open_mu);
    return first;
}

void lib_record_manifest(hew_session *s, const char *text, const char *task_id, bool resumed)
{
    net_record *r = s->provider.record;
    char *model_info = NULL;
    if (!r || !manifest_first(r, &model_info))
        return;
    const task_settings *st = &s->settings;
    const char *name = strrchr(st->cwd, '/');
    name = name && name[1] ? name + 1 : st->cwd;
    char *url = redact_dup(s->provider.base_url);
    const struct { const char *key; bool on; } flags[] = {
        { "yolo", st->yolo },
        { "auto_approve_read", st->auto_approve_read },
        { "auto_approve_read_outside", st->auto_approve_read_outside },
        { "auto_approve_edit", st->auto_approve_edit },
        { "auto_approve_edit_outside", st->auto_approve_edit_outside },
        { "auto_approve_safe_commands", st->auto_approve_safe_commands },
        { "auto_approve_all_commands", st->auto_approve_all_commands },
        { "auto_approve_mcp", st->auto_approve_mcp },
        { "parallel_tool_calls", st->parallel_tool_calls },
        { "strict_plan", st->strict_plan },
        { "rules_global", st->rules_global },
        { "rules_clinerules", st->rules_clinerules },
        { "rules_cursorrules", st->rules_cursorrules },
        { "rules_windsurfrules", st->rules_windsurfrules },
        { "rules_agents", st->rules_agents },
        { "rules_claude", st->rules_claude },
        { "rules_gemini", st->rules_gemini },
        { "rules_clineignore", st->rules_clineignore },
        { "skills", st->skills },
    };
    const struct { const char *key; long long v; } numbers[] = {
        { "native_tools", st->native_tools },
        { "max_consecutive_mistakes", st->max_consecutive_mistakes },
        { "thinking_budget", st->thinking_budget },
        { "retry_base_delay_ms", st->retry_base_delay_ms },
        { "auto_condense", st->auto_condense },
    };
    json_t *opts = json_object();
    for (size_t i = 0; opts && i < sizeof flags / sizeof flags[0]; i++)
        json_object_set_new(opts, flags[i].key, json_boolean(flags[i].on));
    for (size_t i = 0; opts && i < sizeof numbers / sizeof numbers[0]; i++)
        json_object_set_new(opts, numbers[i].key, json_integer((json_int_t)numbers[i].v));
    if (opts)
        json_object_set_new(opts, "language",
                            st->language ? json_string(st->language) : json_null());
    json_t *m = json_pack("{si ss ss ss ss ss ss ss ss ss sb ss sI ss so}", "format",
                          NET_RECORD_FORMAT, "hew_version", hew_version(), "provider",
                          st->provider, "model", s->provider.model, "protocol",
                          api_protocol_name(s->provider.protocol), "base_url", url ? url : "",
                          "mode", mode_name(st->mode), "tool_format",
                          s->native_tools ? "native" : "xml", "task", text ? text : "",
                          "task_id", task_id, "resumed", (int)resumed, "cwd_name", name,
                          "started_ms", (json_int_t)clock_wall_ms(), "tz",
                          env_details_tz_name(), "options", opts);
    free(url);
    /* the workspace's path, which the requests name: a replay elsewhere maps it */
    if (m)
        json_object_set_new(m, "cwd", json_string(st->cwd));
    /* what the system prompt told the model about the machine */
    prompt_ctx pc;
    prompt_ctx_init(&pc);
    prompt_ctx_machine(&pc);
    if (m)
        json_object_set_new(m, "machine",
                            json_pack("{ss ss ss}", "os",
                                      st->machine_os ? st->machine_os : pc.os, "shell",
                                      st->machine_shell ? st->machine_shell : pc.shell,
                                      "home", st->machine_home ? st->machine_home : pc.home));
    /* the model as the user described it (the table's own entry is not pinned: a replay
     * under a newer table reports what that changes) */
    json_t *info = model_info ? json_loads(model_info, 0, NULL) : NULL;
    free(model_info);
    if (m && info)
        json_object_set_new(m, "model_info", info);
    else
        json_decref(info);
    char *json = m ? json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(m);
    hew_err e = HEW_ERR_INIT;
    if (!json)
        hew_log(HEW_LOG_WARN, "record", "cannot write the recording's session.json: out of memory");
    else if (net_record_manifest(r, json, strlen(json), &e) != HEW_OK)
        hew_log(HEW_LOG_WARN, "record", "cannot write the recording's session.json: %s", e.msg);
    free(json);
}
