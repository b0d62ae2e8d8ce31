/* mcp_session — the session's MCP hub and the hew_mcp_* API (see mcp_session.h). */
#include "lib/mcp_session.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/log.h"
#include "sys/sbpolicy.h"
#include "sys/wsroot.h"
#include "lib/lib_store.h"
#include "lib/trust.h"
#include "lib/trust_store.h"
#include "mcp/config.h"
#include "mcp/hub.h"
#include "mcp/watch.h"
#include "net/egress.h"
#include "task/settings.h"

/* Where a session's MCP settings are read from. */
typedef struct mcp_src {
    char *root;       /* the workspace root (sys/wsroot.h): its .hew/mcp.json */
    char *user_file;  /* the user's file; NULL: the default one */
    char *data_dir;   /* the trust store's data directory; NULL: the default */
    bool pin_next;    /* hew_options.trust_workspace: trust the project file as the next
                         read finds it, for this run */
    char pinned[HASH_SHA256_HEX + 1]; /* the digest trusted for this run ("" none) */
} mcp_src;

static void src_free(mcp_src *src)
{
    if (!src)
        return;
    free(src->root);
    free(src->user_file);
    free(src->data_dir);
    free(src);
}

/* A new source for cwd; NULL when the root cannot be found or memory ran out (err). */
static mcp_src *src_new(const char *cwd, const char *user_file, const char *data_dir,
                        bool trust, hew_err *err)
{
    mcp_src *src = calloc(1, sizeof *src);
    if (!src) {
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
        return NULL;
    }
    src->root = wsroot_find(cwd, geteuid(), err);
    src->user_file = user_file ? strdup(user_file) : NULL;
    src->data_dir = data_dir ? strdup(data_dir) : NULL;
    src->pin_next = trust;
    if (!src->root || (user_file && !src->user_file) || (data_dir && !src->data_dir)) {
        if (src->root)
            hew_err_set(err, HEW_E_NOMEM, "out of memory");
        src_free(src);
        return NULL;
    }
    return src;
}

static mcp_src *src_dup(const mcp_src *from)
{
    mcp_src *src = calloc(1, sizeof *src);
    if (!src)
        return NULL;
    *src = *from;
    src->root = strdup(from->root);
    src->user_file = from->user_file ? strdup(from->user_file) : NULL;
    src->data_dir = from->data_dir ? strdup(from->data_dir) : NULL;
    if (!src->root || (from->user_file && !src->user_file) ||
        (from->data_dir && !src->data_dir)) {
        src_free(src);
        return NULL;
    }
    return src;
}

/* What a read of the settings found besides the servers to run. */
typedef struct src_read {
    json_t *untrusted; /* the untrusted project file's servers, described (never started) */
    char *notice;      /* what was not started and how to allow it */
} src_read;

static void src_read_release(src_read *r)
{
    json_decref(r->untrusted);
    free(r->notice);
    memset(r, 0, sizeof *r);
}

/* The user's file, then the workspace's when it is trusted: read once, hashed, and parsed
 * from the very bytes that were hashed. An untrusted one is only described in out. */
static hew_code load_files(mcp_src *src, mcp_config *cfg, src_read *out, hew_err *err)
{
    memset(out, 0, sizeof *out);
    char *user = NULL;
    hew_code rc = mcp_config_default_paths(NULL, &user, NULL, err);
    const char *user_file = src->user_file ? src->user_file : user;
    if (rc == HEW_OK && user_file)
        rc = mcp_config_load_file(cfg, user_file, MCP_TRUST_USER, err);
    free(user);
    if (rc != HEW_OK)
        return rc;
    trust_read r;
    rc = trust_read_file(src->root, TRUST_MCP_FILE, src->data_dir,
                         src->pinned[0] ? src->pinned : NULL, &r, err);
    if (rc != HEW_OK)
        return rc;
    if (r.text && src->pin_next) {
        memcpy(src->pinned, r.digest, sizeof src->pinned);
        r.trusted = true;
    }
    src->pin_next = false;
    if (r.text && r.trusted) {
        rc = mcp_config_parse(cfg, r.text, r.len, r.path, MCP_TRUST_PROJECT, err);
    } else if (r.text) {
        out->untrusted = trust_describe_mcp(r.text, r.len, r.path, NULL);
        out->notice = out->untrusted ? trust_mcp_notice(&r, out->untrusted) : NULL;
        if (r.problem[0])
            hew_log(HEW_LOG_WARN, "trust", "%s", r.problem);
    }
    trust_read_release(&r);
    return rc;
}

static hew_code load_settings(hew_session *s, mcp_config *cfg, src_read *out, hew_err *err)
{
    return load_files(s->mcp_src, cfg, out, err);
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
    char *key;  /* cwd + '\n' + settings path + '\n' + trust_workspace */
    mcp_hub *hub;
    int refs;
    mcp_src *src;           /* what the settings are read from (the watcher's own copy) */
    json_t *untrusted;      /* the servers of an untrusted project file, described (under
                               shared_mu), or NULL */
    mcp_watch *watch;       /* re-reads them when a file changes, or NULL */
    struct shared_hub *next;
} shared_hub;

static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static shared_hub *shared;

static char *hub_key(const hew_session *s)
{
    size_t n = strlen(s->settings.cwd) + (s->mcp_settings ? strlen(s->mcp_settings) : 0) + 8;
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "%s\n%s\n%d", s->settings.cwd, s->mcp_settings ? s->mcp_settings : "",
                 s->mcp_src->pinned[0] != '\0');
    return key;
}

/* Keep the described untrusted servers of hub's entry (taken; NULL: none). */
static void shared_set_untrusted(mcp_hub *hub, json_t *untrusted)
{
    json_t *old = NULL;
    pthread_mutex_lock(&shared_mu);
    shared_hub *e = shared;
    while (e && e->hub != hub)
        e = e->next;
    if (e) {
        old = e->untrusted;
        e->untrusted = untrusted;
        untrusted = NULL;
    }
    pthread_mutex_unlock(&shared_mu);
    json_decref(old);
    json_decref(untrusted);
}

/* Append the described untrusted servers of hub's entry to all. */
static void shared_add_untrusted(mcp_hub *hub, json_t *all)
{
    pthread_mutex_lock(&shared_mu);
    for (shared_hub *e = shared; e; e = e->next)
        if (e->hub == hub && e->untrusted)
            json_array_extend(all, e->untrusted);
    pthread_mutex_unlock(&shared_mu);
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
    src_read got;
    if (load_files(e->src, &cfg, &got, &err) != HEW_OK) {
        char text[HEW_ERR_MSG_MAX + 64];
        snprintf(text, sizeof text, "changed, but not applied: %s", err.msg);
        mcp_hub_notice(e->hub, "settings", text);
    } else {
        log_warnings(&cfg);
        if (got.notice) {
            size_t n = strlen(got.notice) + 64;
            char *text = malloc(n);
            if (text)
                snprintf(text, n, "changed: applied without the workspace's servers — %s",
                         got.notice);
            mcp_hub_notice(e->hub, "settings", text ? text : "changed: applying them");
            free(text);
        } else {
            mcp_hub_notice(e->hub, "settings", "changed: applying them");
        }
        mcp_hub_reload(e->hub, &cfg);
        shared_set_untrusted(e->hub, got.untrusted);
        got.untrusted = NULL;
    }
    src_read_release(&got);
    mcp_config_free(&cfg);
}

/* Watch the files s's settings come from, and the trust store (`hew trust` in another
 * terminal applies to a running session). */
static void start_watch(shared_hub *e)
{
    char *user = NULL, *project = NULL;
    hew_err err = HEW_ERR_INIT;
    if (mcp_config_default_paths(e->src->root, &user, &project, &err) != HEW_OK)
        return;
    char *trust_file = trust_store_path(e->src->data_dir, NULL);
    const char *paths[3] = { e->src->user_file ? e->src->user_file : user, project,
                             trust_file };
    if (mcp_watch_start(paths, 3, settings_changed, e, &e->watch, &err) != HEW_OK)
        hew_log(HEW_LOG_WARN, "mcp", "%s", err.msg);
    free(user);
    free(project);
    free(trust_file);
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
    e->src = src_dup(s->mcp_src);
    if (!e->src) {
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
        src_free(gone->src);
        json_decref(gone->untrusted);
        free(gone);
    } else if (!known) {
        mcp_hub_free(hub);
    }
}

/* Give s the hub for cfg (taken): the shared one, updated, or a new one; untrusted (taken)
 * is kept with it for the status. */
static void attach_hub(hew_session *s, mcp_config *cfg, json_t *untrusted)
{
    hew_err err = HEW_ERR_INIT;
    char *key = hub_key(s);
    mcp_hub *hub = key ? shared_take(key) : NULL;
    if (hub) {
        free(key);
        mcp_hub_reload(hub, cfg);
        s->mcp = hub;
        shared_set_untrusted(hub, untrusted);
        return;
    }
    /* Even with no server yet: the hub's watcher picks up servers added while the
     * session runs (`hew mcp add` in another terminal). Servers that ask for a sandbox get
     * the session's (the hub makes its own copy: a shared hub may outlive the session). */
    const task_settings *st = &s->settings;
    sbpolicy_opts so = {
        .mode = st->sandbox_mode,
        .backend = st->sandbox_backend,
        .cwd = st->cwd,
        .writable_roots = (const char *const *)st->sandbox_writable_roots,
        .hidden = (const char *const *)st->sandbox_hidden,
        .data_dir = st->data_dir,
        .network = st->sandbox_network,
        .proxy_port = st->egress ? egress_port(st->egress) : 0,
    };
    cfg->sandbox = &so;
    if (mcp_hub_start(cfg, s->settings.cwd, &hub, &err) != HEW_OK) {
        free(key);
        json_decref(untrusted);
        set_problem(s, err.msg);
        return;
    }
    if (!key || !shared_add(key, hub, s))
        free(key); /* not shared, still the session's */
    s->mcp = hub;
    shared_set_untrusted(hub, untrusted);
}

/* The notice of an untrusted project file, said once by the session's first task. */
static void set_trust_notice(hew_session *s, const src_read *got)
{
    free(s->trust_notice);
    free(s->trust_notice_data);
    s->trust_notice = got->notice ? strdup(got->notice) : NULL;
    s->trust_notice_data = NULL;
    if (!s->trust_notice)
        return;
    json_t *data = json_pack("{s:s, s:s, s:s, s:O}", "kind", "untrusted_workspace", "root",
                             s->mcp_src->root, "file", TRUST_MCP_FILE, "servers",
                             got->untrusted);
    s->trust_notice_data = data ? json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(data);
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
    src_read got = { 0 };
    s->mcp_src = src_new(s->settings.cwd, s->mcp_settings, s->settings.data_dir,
                         o->trust_workspace != 0, &err);
    if (!s->mcp_src || load_settings(s, &cfg, &got, &err) != HEW_OK) {
        set_problem(s, err.msg);
    } else {
        log_warnings(&cfg);
        set_trust_notice(s, &got);
        attach_hub(s, &cfg, got.untrusted);
        got.untrusted = NULL;
    }
    src_read_release(&got);
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
    src_free(s->mcp_src);
    s->mcp_src = NULL;
    free(s->trust_notice);
    s->trust_notice = NULL;
    free(s->trust_notice_data);
    s->trust_notice_data = NULL;
}

hew_code hew_mcp_status_json(hew_session *s, char **out)
{
    if (!out)
        return HEW_E_INVALID;
    *out = NULL;
    if (!s)
        return HEW_E_INVALID;
    json_t *all = s && s->mcp ? mcp_hub_status_json(s->mcp) : json_array();
    if (all && s && s->mcp)
        shared_add_untrusted(s->mcp, all);
    if (all && s && s->mcp_problem)
        json_array_append_new(all, json_pack("{s:s}", "settings_error", s->mcp_problem));
    *out = all ? json_dumps(all, JSON_COMPACT) : NULL;
    json_decref(all);
    return *out ? HEW_OK : HEW_E_NOMEM;
}

hew_code hew_mcp_wait(hew_session *s, long timeout_ms)
{
    if (!s || !s->mcp)
        return HEW_OK;
    return mcp_hub_wait_ready(s->mcp, timeout_ms, NULL) ? HEW_OK : HEW_E_TIMEOUT;
}

hew_code hew_mcp_reload(hew_session *s, char *err, size_t errlen)
{
    if (!s)
        return lib_fail(HEW_E_INVALID, err, errlen, "no session");
    if (!s->mcp_on)
        return lib_fail(HEW_E_STATE, err, errlen, "MCP is turned off for this session");
    mcp_config cfg;
    mcp_config_init(&cfg);
    hew_err e = HEW_ERR_INIT;
    src_read got = { 0 };
    if (!s->mcp_src)
        s->mcp_src = src_new(s->settings.cwd, s->mcp_settings, s->settings.data_dir, false, &e);
    if (!s->mcp_src || load_settings(s, &cfg, &got, &e) != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
        mcp_config_free(&cfg);
        src_read_release(&got);
        return e.code != HEW_OK ? e.code : HEW_E_INVALID;
    }
    log_warnings(&cfg);
    set_problem(s, NULL);
    if (s->mcp) {
        mcp_hub_reload(s->mcp, &cfg);
        shared_set_untrusted(s->mcp, got.untrusted);
    } else {
        attach_hub(s, &cfg, got.untrusted);
    }
    got.untrusted = NULL;
    src_read_release(&got);
    mcp_config_free(&cfg);
    if (s->mcp_problem)
        return lib_fail(HEW_E_INVALID, err, errlen, s->mcp_problem);
    return HEW_OK;
}

hew_code hew_mcp_probe(const hew_options *o, long timeout_ms, char **out, char *err,
                       size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    char cwd[4096];
    const char *dir = o && o->cwd ? o->cwd : getcwd(cwd, sizeof cwd);
    char *real = dir ? realpath(dir, NULL) : NULL;
    if (!real)
        return lib_fail(HEW_E_NOTFOUND, err, errlen,
                        "the workspace directory does not exist or cannot be read");
    mcp_config cfg;
    mcp_config_init(&cfg);
    hew_err e = HEW_ERR_INIT;
    mcp_hub *hub = NULL;
    char *text = NULL;
    char *warnings = NULL;
    src_read got = { 0 };
    mcp_src *src = src_new(real, o ? o->mcp_settings : NULL, o ? o->data_dir : NULL,
                           o && o->trust_workspace, &e);
    /* servers that ask for a sandbox are probed inside it, as a session would run them */
    sbpolicy_opts so = { .cwd = real };
    if (o) {
        so.mode = o->sandbox_mode;
        so.backend = o->sandbox_backend;
        so.writable_roots = o->sandbox_writable_roots;
        so.hidden = o->sandbox_hidden;
        so.data_dir = o->data_dir;
        so.network = o->sandbox_network != 0;
    }
    hew_code rc = src ? load_files(src, &cfg, &got, &e) : e.code;
    if (rc == HEW_OK && cfg.warnings.len)
        warnings = strdup(cfg.warnings.data);
    if (rc != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
    } else if (cfg.n && (cfg.sandbox = &so, rc = mcp_hub_start(&cfg, real, &hub, &e)) != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
    } else {
        json_t *all = json_array();
        if (hub) {
            mcp_hub_wait_ready(hub, timeout_ms, NULL);
            json_decref(all);
            all = mcp_hub_status_json(hub);
        }
        if (got.untrusted)
            json_array_extend(all, got.untrusted);
        if (warnings)
            json_array_append_new(all, json_pack("{s:s}", "settings_warning", warnings));
        text = json_dumps(all, JSON_COMPACT);
        json_decref(all);
        if (!text)
            rc = lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    }
    mcp_hub_free(hub);
    mcp_config_free(&cfg);
    src_read_release(&got);
    src_free(src);
    free(warnings);
    free(real);
    *out = text;
    return rc;
}
