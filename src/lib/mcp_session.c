/* mcp_session — the session's MCP hub and the hew_mcp_* API (see mcp_session.h). */
#include "lib/mcp_session.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "lib/lib_store.h"
#include "mcp/config.h"
#include "mcp/hub.h"
#include "mcp/watch.h"
#include "task/settings.h"

/* The user's file (user_file, else the default one), then the workspace's. */
static hew_code load_files(const char *cwd, const char *user_file, mcp_config *cfg,
                           hew_err *err)
{
    char *user = NULL, *project = NULL;
    hew_code rc = mcp_config_default_paths(cwd, &user, &project, err);
    if (rc != HEW_OK)
        return rc;
    if (!user_file)
        user_file = user;
    if (user_file)
        rc = mcp_config_load_file(cfg, user_file, true, err);
    if (rc == HEW_OK && project)
        rc = mcp_config_load_file(cfg, project, false, err);
    free(user);
    free(project);
    return rc;
}

static hew_code load_settings(const hew_session *s, mcp_config *cfg, hew_err *err)
{
    return load_files(s->settings.cwd, s->mcp_settings, cfg, err);
}

static void set_problem(hew_session *s, const char *why)
{
    free(s->mcp_problem);
    s->mcp_problem = NULL;
    if (!why)
        return;
    size_t n = strlen(why) + 128;
    s->mcp_problem = malloc(n);
    if (s->mcp_problem)
        snprintf(s->mcp_problem, n, "The MCP settings cannot be used, so no MCP server was "
                                    "started: %s",
                 why);
}

static void log_warnings(const mcp_config *cfg)
{
    if (cfg->warnings.len)
        hew_log(HEW_LOG_WARN, "mcp", "%s", cfg->warnings.data);
}

/* Sessions of the same workspace and settings share one hub: a front end that makes a
 * new session to change the mode or the model (and frees the old one after) keeps its
 * servers connected. The new session's settings are applied to the shared hub (a reload:
 * unchanged servers keep their connection). */
typedef struct shared_hub {
    char *key;  /* cwd + '\n' + settings path */
    mcp_hub *hub;
    int refs;
    char *cwd, *user_file;  /* what the settings are read for (user_file may be NULL) */
    mcp_watch *watch;       /* re-reads them when a file changes, or NULL */
    struct shared_hub *next;
} shared_hub;

static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static shared_hub *shared;

static char *hub_key(const hew_session *s)
{
    size_t n = strlen(s->settings.cwd) + (s->mcp_settings ? strlen(s->mcp_settings) : 0) + 2;
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "%s\n%s", s->settings.cwd, s->mcp_settings ? s->mcp_settings : "");
    return key;
}

/* Take a reference on the hub of s's key, or NULL when there is none. */
static mcp_hub *shared_take(const char *key)
{
    mcp_hub *hub = NULL;
    pthread_mutex_lock(&shared_mu);
    for (shared_hub *e = shared; e && !hub; e = e->next)
        if (strcmp(e->key, key) == 0) {
            e->refs++;
            hub = e->hub;
        }
    pthread_mutex_unlock(&shared_mu);
    return hub;
}

/* A settings file changed: read them again and apply them to the hub (the watcher's
 * thread). A file that is wrong now leaves the servers as they were, and says why. */
static void settings_changed(void *ud)
{
    shared_hub *e = ud;
    mcp_config cfg;
    mcp_config_init(&cfg);
    hew_err err = HEW_ERR_INIT;
    if (load_files(e->cwd, e->user_file, &cfg, &err) != HEW_OK) {
        char text[HEW_ERR_MSG_MAX + 64];
        snprintf(text, sizeof text, "changed, but not applied: %s", err.msg);
        mcp_hub_notice(e->hub, "settings", text);
    } else {
        log_warnings(&cfg);
        mcp_hub_notice(e->hub, "settings", "changed: applying them");
        mcp_hub_reload(e->hub, &cfg);
    }
    mcp_config_free(&cfg);
}

/* Watch the files s's settings come from. */
static void start_watch(shared_hub *e)
{
    char *user = NULL, *project = NULL;
    hew_err err = HEW_ERR_INIT;
    if (mcp_config_default_paths(e->cwd, &user, &project, &err) != HEW_OK)
        return;
    const char *paths[2] = { e->user_file ? e->user_file : user, project };
    if (mcp_watch_start(paths, 2, settings_changed, e, &e->watch, &err) != HEW_OK)
        hew_log(HEW_LOG_WARN, "mcp", "%s", err.msg);
    free(user);
    free(project);
}

/* Register a new hub of s with one reference (the key is taken) and watch its settings;
 * false when memory ran out. */
static bool shared_add(char *key, mcp_hub *hub, const hew_session *s)
{
    shared_hub *e = calloc(1, sizeof *e);
    if (!e)
        return false;
    e->key = key;
    e->hub = hub;
    e->refs = 1;
    e->cwd = strdup(s->settings.cwd);
    e->user_file = s->mcp_settings ? strdup(s->mcp_settings) : NULL;
    if (!e->cwd || (s->mcp_settings && !e->user_file)) {
        free(e->cwd);
        free(e->user_file);
        free(e);
        return false;
    }
    start_watch(e);
    pthread_mutex_lock(&shared_mu);
    e->next = shared;
    shared = e;
    pthread_mutex_unlock(&shared_mu);
    return true;
}

/* Drop a reference; the last one frees the hub (servers stopped). */
static void shared_release(mcp_hub *hub)
{
    shared_hub *gone = NULL;
    bool known = false;
    pthread_mutex_lock(&shared_mu);
    for (shared_hub **pe = &shared; *pe; pe = &(*pe)->next)
        if ((*pe)->hub == hub) {
            known = true;
            if (--(*pe)->refs == 0) {
                gone = *pe;
                *pe = gone->next;
            }
            break;
        }
    pthread_mutex_unlock(&shared_mu);
    if (gone) {
        mcp_watch_stop(gone->watch); /* before the hub it reloads goes */
        mcp_hub_free(gone->hub);
        free(gone->key);
        free(gone->cwd);
        free(gone->user_file);
        free(gone);
    } else if (!known) {
        mcp_hub_free(hub);
    }
}

/* Give s the hub for cfg (taken): the shared one, updated, or a new one. */
static void attach_hub(hew_session *s, mcp_config *cfg)
{
    hew_err err = HEW_ERR_INIT;
    char *key = hub_key(s);
    mcp_hub *hub = key ? shared_take(key) : NULL;
    if (hub) {
        free(key);
        mcp_hub_reload(hub, cfg);
        s->mcp = hub;
        return;
    }
    /* Even with no server yet: the hub's watcher picks up servers added while the
     * session runs (`hew mcp add` in another terminal). */
    if (mcp_hub_start(cfg, s->settings.cwd, &hub, &err) != HEW_OK) {
        free(key);
        set_problem(s, err.msg);
        return;
    }
    if (!key || !shared_add(key, hub, s))
        free(key); /* not shared, still the session's */
    s->mcp = hub;
}

void lib_session_mcp_start(hew_session *s, const hew_options *o)
{
    if (!o->mcp)
        return;
    s->mcp_on = true;
    s->mcp_settings = o->mcp_settings ? strdup(o->mcp_settings) : NULL;
    mcp_config cfg;
    mcp_config_init(&cfg);
    hew_err err = HEW_ERR_INIT;
    if (load_settings(s, &cfg, &err) != HEW_OK) {
        set_problem(s, err.msg);
    } else {
        log_warnings(&cfg);
        attach_hub(s, &cfg);
    }
    mcp_config_free(&cfg);
}

void lib_session_mcp_stop(hew_session *s)
{
    if (s->mcp)
        shared_release(s->mcp);
    s->mcp = NULL;
    free(s->mcp_problem);
    s->mcp_problem = NULL;
    free(s->mcp_settings);
    s->mcp_settings = NULL;
}

char *hew_mcp_status_json(hew_session *s)
{
    json_t *all = s && s->mcp ? mcp_hub_status_json(s->mcp) : json_array();
    if (all && s && s->mcp_problem)
        json_array_append_new(all, json_pack("{s:s}", "settings_error", s->mcp_problem));
    char *text = all ? json_dumps(all, JSON_COMPACT) : NULL;
    json_decref(all);
    return text;
}

int hew_mcp_wait(hew_session *s, long timeout_ms)
{
    if (!s || !s->mcp)
        return 1;
    return mcp_hub_wait_ready(s->mcp, timeout_ms, NULL) ? 1 : 0;
}

int hew_mcp_reload(hew_session *s, char *err, size_t errlen)
{
    if (!s) {
        lib_set_err(err, errlen, "no session");
        return -1;
    }
    if (!s->mcp_on) {
        lib_set_err(err, errlen, "MCP is turned off for this session");
        return -1;
    }
    mcp_config cfg;
    mcp_config_init(&cfg);
    hew_err e = HEW_ERR_INIT;
    if (load_settings(s, &cfg, &e) != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
        mcp_config_free(&cfg);
        return -1;
    }
    log_warnings(&cfg);
    set_problem(s, NULL);
    if (s->mcp)
        mcp_hub_reload(s->mcp, &cfg);
    else
        attach_hub(s, &cfg);
    mcp_config_free(&cfg);
    if (s->mcp_problem) {
        lib_set_err(err, errlen, s->mcp_problem);
        return -1;
    }
    return 0;
}

char *hew_mcp_probe(const hew_options *o, long timeout_ms, char *err, size_t errlen)
{
    char cwd[4096];
    const char *dir = o && o->cwd ? o->cwd : getcwd(cwd, sizeof cwd);
    char *real = dir ? realpath(dir, NULL) : NULL;
    if (!real) {
        lib_set_err(err, errlen, "the workspace directory does not exist or cannot be read");
        return NULL;
    }
    mcp_config cfg;
    mcp_config_init(&cfg);
    hew_err e = HEW_ERR_INIT;
    mcp_hub *hub = NULL;
    char *text = NULL;
    char *warnings = NULL;
    hew_code rc = load_files(real, o ? o->mcp_settings : NULL, &cfg, &e);
    if (rc == HEW_OK && cfg.warnings.len)
        warnings = strdup(cfg.warnings.data);
    if (rc != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
    } else if (cfg.n && mcp_hub_start(&cfg, real, &hub, &e) != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
    } else {
        json_t *all = json_array();
        if (hub) {
            mcp_hub_wait_ready(hub, timeout_ms, NULL);
            json_decref(all);
            all = mcp_hub_status_json(hub);
        }
        if (warnings)
            json_array_append_new(all, json_pack("{s:s}", "settings_warning", warnings));
        text = json_dumps(all, JSON_COMPACT);
        json_decref(all);
        if (!text)
            lib_set_err(err, errlen, "out of memory");
    }
    mcp_hub_free(hub);
    mcp_config_free(&cfg);
    free(warnings);
    free(real);
    return text;
}
