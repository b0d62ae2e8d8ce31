/* hub — the session's MCP servers (see hub.h). Each enabled server has one thread that
 * connects, lists what the server offers, waits for the connection to end (or a
 * list_changed notification, or a stop), and reconnects with backoff. One mutex guards
 * every server's state; one condition variable wakes the threads and the waiters. */
#include "mcp/hub.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sys/sbpolicy.h"
#include "sys/clock.h"
#include "base/log.h"

#define CONNECT_TIMEOUT_MS 60000L   /* initialize: npx may download the server first */
#define LIST_TIMEOUT_MS 10000L      /* each list request */
#define BACKOFF_FIRST_MS 1000L
#define BACKOFF_MAX_MS 60000L
#define NATIVE_NAME_MAX 64          /* providers' limit on tool names */
#define MCP_NOISE_LINE_MAX 2000     /* bytes of one stderr line that reach the log */
#define MCP_NOISE_LOG_MAX ((size_t)1 << 20) /* a server's stderr logged in all; then one
                                               line says the rest is dropped */

typedef struct server {
    mcp_server_config cfg;          /* owned; fixed while the thread runs (auto_approve
                                       swaps under mu) */
    struct mcp_hub *hub;
    pthread_t thread;
    bool thread_started;
    hew_abort *stop_abort;          /* interrupts a connection attempt */
    /* [hub->mu] */
    mcp_status status;
    bool first_done;                /* the first connection attempt is over */
    bool stop;
    bool relist;
    bool closed;                    /* the client's connection ended */
    char error[512];
    mcp_client *client;             /* while connected */
    int users;                      /* calls using client right now */
    json_t *tools, *resources, *templates, *prompts;
    char *version;
    atomic_size_t noise_logged;     /* bytes of its stderr/noise logged (MCP_NOISE_LOG_MAX) */
} server;

struct mcp_hub {
    pthread_mutex_t reload_mu;      /* one reload at a time (a session's, the watcher's) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    server **servers;
    size_t n;
    char *root;
    pthread_mutex_t notice_mu;      /* held while a notice is delivered */
    mcp_notice_fn notice;
    void *notice_ud;
    sbpolicy *sandbox;              /* for servers that ask for one (NULL: none can start) */
};

static const char *mcp_status_name(mcp_status s)
{
    switch (s) {
    case MCP_DISABLED: return "disabled";
    case MCP_CONNECTING: return "connecting";
    case MCP_CONNECTED: return "connected";
    case MCP_DISCONNECTED: return "disconnected";
    }
    return "?";
}

/* Wait on the hub's condition variable for at most ms (mu held). */
static void hub_wait(mcp_hub *h, long ms)
{
    clock_cond_wait_ms(&h->cv, &h->mu, ms);
}

static void notice(mcp_hub *h, const char *server_name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void notice(mcp_hub *h, const char *server_name, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    hew_log(HEW_LOG_INFO, "mcp", "[%s] %s", server_name, text);
    pthread_mutex_lock(&h->notice_mu);
    if (h->notice)
        h->notice(h->notice_ud, server_name, text);
    pthread_mutex_unlock(&h->notice_mu);
}

void mcp_hub_notice(mcp_hub *h, const char *source, const char *text)
{
    notice(h, source, "%s", text);
}

void mcp_hub_drop_listener(mcp_hub *h, void *ud)
{
    pthread_mutex_lock(&h->notice_mu);
    if (h->notice_ud == ud) {
        h->notice = NULL;
        h->notice_ud = NULL;
    }
    pthread_mutex_unlock(&h->notice_mu);
}

void mcp_hub_set_listener(mcp_hub *h, mcp_notice_fn fn, void *ud)
{
    pthread_mutex_lock(&h->notice_mu);
    h->notice = fn;
    h->notice_ud = ud;
    pthread_mutex_unlock(&h->notice_mu);
}

/* ---- the client's callbacks (transport thread) ----------------------------------------- */

static void on_notification(void *ud, const char *method, const json_t *params)
{
    server *s = ud;
    mcp_hub *h = s->hub;
    if (strcmp(method, "notifications/message") == 0) {
        const char *level = json_string_value(json_object_get(params, "level"));
        const json_t *data = json_object_get(params, "data");
        char *dumped = NULL;
        const char *text = json_string_value(data);
        if (!text && data)
            text = dumped = json_dumps(data, JSON_COMPACT);
        notice(h, s->cfg.name, "%s: %s", level ? level : "info", text ? text : "");
        free(dumped);
    } else if (strcmp(method, "notifications/tools/list_changed") == 0 ||
               strcmp(method, "notifications/resources/list_changed") == 0 ||
               strcmp(method, "notifications/prompts/list_changed") == 0) {
        pthread_mutex_lock(&h->mu);
        s->relist = true;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
    } else {
        hew_log(HEW_LOG_DEBUG, "mcp", "[%s] notification %s", s->cfg.name, method);
    }
}

static void on_noise(void *ud, int stream, const char *text, size_t len)
{
    server *s = ud;
    size_t shown = len > MCP_NOISE_LINE_MAX ? MCP_NOISE_LINE_MAX : len;
    size_t before = atomic_fetch_add(&s->noise_logged, shown + 1);
    if (before >= MCP_NOISE_LOG_MAX)
        return;
    if (before + shown + 1 > MCP_NOISE_LOG_MAX) {
        hew_log(HEW_LOG_WARN, "mcp", "[%s] has written more than %zu bytes to stderr; the "
                "rest is not logged", s->cfg.name, MCP_NOISE_LOG_MAX);
        return;
    }
    hew_log(stream == 2 ? HEW_LOG_INFO : HEW_LOG_WARN, "mcp", "[%s] %s%.*s", s->cfg.name,
            stream == 2 ? "stderr: " : "not a message: ", (int)shown, text);
}

static void on_closed(void *ud, const char *why)
{
    server *s = ud;
    mcp_hub *h = s->hub;
    pthread_mutex_lock(&h->mu);
    s->closed = true;
    snprintf(s->error, sizeof s->error, "%s", why);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

/* ---- connecting ------------------------------------------------------------------------ */

static hew_code open_transport(server *s, mcp_client *c, mcp_transport **t, hew_err *err)
{
    mcp_sink sink = mcp_client_sink(c);
    if (s->cfg.kind == MCP_STDIO) {
        mcp_stdio_opts o = { (const char *const *)s->cfg.argv, s->cfg.cwd,
                             (const char *const *)s->cfg.env, NULL };
        if (s->cfg.sandbox != SANDBOX_FULL_ACCESS) {
            /* opt-in: confined as asked, or not started at all */
            if (!s->hub->sandbox)
                return hew_err_set(err, HEW_E_UNSUPPORTED,
                                   "it asks for a sandbox, and none is set up here");
            hew_code rc = sbpolicy_sandbox(s->hub->sandbox, s->cfg.sandbox,
                                           s->cfg.sandbox_network, &o.sandbox, err);
            if (rc != HEW_OK)
                return rc;
        }
        return mcp_stdio_open(&o, &sink, t, err);
    }
    mcp_http_opts o = { 0 };
    o.url = s->cfg.url;
    o.headers = (const char *const *)s->cfg.headers;
    o.legacy_sse = s->cfg.kind == MCP_SSE ? 1 : s->cfg.kind == MCP_HTTP_AUTO ? 2 : 0;
    return mcp_http_open(&o, &sink, t, err);
}

/* One list request, tolerated when it fails (the server then offers none of that). */
static json_t *list_or_empty(server *s, mcp_client *c, const char *method, const char *key)
{
    json_t *items = NULL;
    hew_err err = HEW_ERR_INIT;
    if (mcp_client_list(c, method, key, LIST_TIMEOUT_MS, s->stop_abort, &items, &err) != HEW_OK) {
        hew_log(HEW_LOG_WARN, "mcp", "[%s] %s failed: %s", s->cfg.name, method, err.msg);
        return json_array();
    }
    return items;
}

static void list_offers(server *s, mcp_client *c, json_t **tools, json_t **resources,
                        json_t **templates, json_t **prompts)
{
    const json_t *caps = mcp_client_capabilities(c);
    *tools = json_object_get(caps, "tools") ? list_or_empty(s, c, "tools/list", "tools")
                                            : json_array();
    bool res = json_object_get(caps, "resources") != NULL;
    *resources = res ? list_or_empty(s, c, "resources/list", "resources") : json_array();
    *templates = res ? list_or_empty(s, c, "resources/templates/list", "resourceTemplates")
                     : json_array();
    *prompts = json_object_get(caps, "prompts") ? list_or_empty(s, c, "prompts/list", "prompts")
                                                : json_array();
}

static void set_offers(server *s, json_t *tools, json_t *resources, json_t *templates,
                       json_t *prompts)
{
    json_decref(s->tools);
    json_decref(s->resources);
    json_decref(s->templates);
    json_decref(s->prompts);
    s->tools = tools;
    s->resources = resources;
    s->templates = templates;
    s->prompts = prompts;
}

static hew_code connect_server(server *s, mcp_client **out, hew_err *err)
{
    *out = NULL;
    mcp_client_handlers handlers = { on_notification, on_noise, on_closed, s };
    mcp_client *c = NULL;
    hew_code rc = mcp_client_new(s->cfg.name, s->hub->root, &handlers, &c, err);
    if (rc != HEW_OK)
        return rc;
    mcp_transport *t = NULL;
    rc = open_transport(s, c, &t, err);
    if (rc != HEW_OK) {
        mcp_client_free(c);
        return rc;
    }
    mcp_client_attach(c, t);
    rc = mcp_client_initialize(c, CONNECT_TIMEOUT_MS, s->stop_abort, err);
    if (rc != HEW_OK) {
        mcp_client_free(c);
        return rc;
    }
    *out = c;
    return HEW_OK;
}

/* Take the client away from callers: fail their requests, wait until none uses it. */
static void detach_client(mcp_hub *h, server *s, const char *why)
{
    mcp_client *c = s->client;
    if (!c)
        return;
    mcp_client_shutdown(c, why);
    while (s->users > 0)
        hub_wait(h, 100);
    s->client = NULL;
    pthread_mutex_unlock(&h->mu);
    mcp_client_free(c);
    pthread_mutex_lock(&h->mu);
}

/* Connected: wait for the end, relisting on list_changed. Returns with mu held. */
static void serve(mcp_hub *h, server *s, mcp_client *c)
{
    while (!s->stop && !s->closed) {
        if (s->relist) {
            s->relist = false;
            pthread_mutex_unlock(&h->mu);
            json_t *tools, *resources, *templates, *prompts;
            list_offers(s, c, &tools, &resources, &templates, &prompts);
            pthread_mutex_lock(&h->mu);
            set_offers(s, tools, resources, templates, prompts);
            continue;
        }
        pthread_cond_wait(&h->cv, &h->mu);
    }
}

static void *server_main(void *arg)
{
    server *s = arg;
    mcp_hub *h = s->hub;
    long backoff = BACKOFF_FIRST_MS;
    pthread_mutex_lock(&h->mu);
    while (!s->stop) {
        s->status = MCP_CONNECTING;
        s->closed = false;
        pthread_mutex_unlock(&h->mu);

        mcp_client *c = NULL;
        hew_err err = HEW_ERR_INIT;
        hew_code rc = connect_server(s, &c, &err);
        json_t *tools = NULL, *resources = NULL, *templates = NULL, *prompts = NULL;
        if (rc == HEW_OK)
            list_offers(s, c, &tools, &resources, &templates, &prompts);

        pthread_mutex_lock(&h->mu);
        if (rc == HEW_OK && !s->closed && !s->stop) {
            s->client = c;
            s->status = MCP_CONNECTED;
            s->error[0] = '\0';
            set_offers(s, tools, resources, templates, prompts);
            free(s->version);
            s->version = strdup(mcp_client_server_version(c));
            size_t ntools = json_array_size(tools);
            pthread_mutex_unlock(&h->mu);
            /* The notice goes out before a waiter hears the first attempt is over, so a
             * task that waited sees it with its first request. */
            notice(h, s->cfg.name, "connected (%s): %zu tool%s", mcp_client_server_version(c),
                   ntools, ntools == 1 ? "" : "s");
            pthread_mutex_lock(&h->mu);
            s->first_done = true;
            pthread_cond_broadcast(&h->cv);
            serve(h, s, c);
            bool lost = !s->stop;
            detach_client(h, s, lost ? s->error : "hew is disconnecting the server");
            if (!lost)
                break;
            s->status = MCP_DISCONNECTED;
            backoff = BACKOFF_FIRST_MS;
            char why[sizeof s->error];
            memcpy(why, s->error, sizeof why);
            pthread_mutex_unlock(&h->mu);
            notice(h, s->cfg.name, "disconnected: %s (reconnecting)", why);
            pthread_mutex_lock(&h->mu);
        } else {
            json_decref(tools);
            json_decref(resources);
            json_decref(templates);
            json_decref(prompts);
            if (rc == HEW_OK) /* closed or stopped right after connecting */
                snprintf(err.msg, sizeof err.msg, "%s", s->error[0] ? s->error : "stopped");
            s->status = MCP_DISCONNECTED;
            snprintf(s->error, sizeof s->error, "%s", err.msg);
            bool stopping = s->stop;
            pthread_mutex_unlock(&h->mu);
            if (c)
                mcp_client_free(c);
            if (!stopping)
                notice(h, s->cfg.name, "cannot connect: %s (retrying in %ld s)", err.msg,
                       backoff / 1000);
            pthread_mutex_lock(&h->mu);
            s->first_done = true;
            pthread_cond_broadcast(&h->cv);
        }
        long long until = clock_now_ms() + backoff;
        while (!s->stop && clock_now_ms() < until)
            hub_wait(h, (long)(until - clock_now_ms()));
        backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* ---- servers --------------------------------------------------------------------------- */

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* Free one server's settings (the hub owns them once taken from an mcp_config). */
static void config_release_server(mcp_server_config *c)
{
    free(c->name);
    free_strv(c->argv);
    free(c->cwd);
    free_strv(c->env);
    free(c->url);
    free_strv(c->headers);
    free_strv(c->auto_approve);
    free(c->source);
    memset(c, 0, sizeof *c);
}

static server *server_new(mcp_hub *h, mcp_server_config *cfg)
{
    server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->stop_abort = abort_new();
    if (!s->stop_abort) {
        free(s);
        return NULL;
    }
    s->cfg = *cfg;
    memset(cfg, 0, sizeof *cfg);
    s->hub = h;
    s->status = s->cfg.disabled ? MCP_DISABLED : MCP_CONNECTING;
    s->first_done = s->cfg.disabled;
    s->tools = json_array();
    s->resources = json_array();
    s->templates = json_array();
    s->prompts = json_array();
    return s;
}

static void server_start(server *s)
{
    if (s->cfg.disabled)
        return;
    /* The server's thread (and every thread it starts: readers, HTTP workers) blocks the
     * signals a front end waits for or handles (SIGINT, SIGTERM, …): a library thread must
     * never be the one the process's signals land on. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, server_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        s->thread_started = true;
    } else {
        pthread_mutex_lock(&s->hub->mu);
        s->status = MCP_DISCONNECTED;
        s->first_done = true;
        snprintf(s->error, sizeof s->error, "cannot start a thread for the server");
        pthread_mutex_unlock(&s->hub->mu);
    }
}

/* Ask a server's thread to stop (no wait). */
static void server_stop(mcp_hub *h, server *s)
{
    pthread_mutex_lock(&h->mu);
    s->stop = true;
    if (s->client)
        mcp_client_shutdown(s->client, "hew is disconnecting the server");
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    abort_trigger(s->stop_abort, "stopping");
}

static void server_free(server *s)
{
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    set_offers(s, NULL, NULL, NULL, NULL);
    free(s->version);
    abort_free(s->stop_abort);
    config_release_server(&s->cfg);
    free(s);
}

static server *find_server(mcp_hub *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->servers[i]->cfg.name, name) == 0)
            return h->servers[i];
    return NULL;
}

/* ---- the hub --------------------------------------------------------------------------- */

hew_code mcp_hub_start(mcp_config *cfg, const char *root_dir, mcp_hub **out, hew_err *err)
{
    *out = NULL;
    mcp_hub *h = calloc(1, sizeof *h);
    if (!h)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory starting MCP");
    pthread_mutex_init(&h->mu, NULL);
    pthread_mutex_init(&h->reload_mu, NULL);
    pthread_mutex_init(&h->notice_mu, NULL);
    clock_cond_init(&h->cv);
    h->root = root_dir ? strdup(root_dir) : NULL;
    hew_code rc = cfg->sandbox ? sbpolicy_new(cfg->sandbox, &h->sandbox, err) : HEW_OK;
    if (rc != HEW_OK) {
        free(h->root);
        free(h);
        return rc;
    }
    h->servers = cfg->n ? calloc(cfg->n, sizeof *h->servers) : NULL;
    if ((root_dir && !h->root) || (cfg->n && !h->servers)) {
        sbpolicy_free(h->sandbox);
        free(h->root);
        free(h);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory starting MCP");
    }
    for (size_t i = 0; i < cfg->n; i++) {
        server *s = server_new(h, &cfg->servers[i]);
        if (s)
            h->servers[h->n++] = s;
    }
    mcp_config_free(cfg);
    mcp_config_init(cfg);
    for (size_t i = 0; i < h->n; i++)
        server_start(h->servers[i]);
    *out = h;
    return HEW_OK;
}

void mcp_hub_free(mcp_hub *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        server_stop(h, h->servers[i]);
    for (size_t i = 0; i < h->n; i++)
        server_free(h->servers[i]);
    free(h->servers);
    free(h->root);
    sbpolicy_free(h->sandbox);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    pthread_mutex_destroy(&h->reload_mu);
    pthread_mutex_destroy(&h->notice_mu);
    free(h);
}

static void reload_locked(mcp_hub *h, mcp_config *cfg);

void mcp_hub_reload(mcp_hub *h, mcp_config *cfg)
{
    pthread_mutex_lock(&h->reload_mu);
    reload_locked(h, cfg);
    pthread_mutex_unlock(&h->reload_mu);
}

static void reload_locked(mcp_hub *h, mcp_config *cfg)
{
    server **next = cfg->n ? calloc(cfg->n, sizeof *next) : NULL;
    if (cfg->n && !next) {
        hew_log(HEW_LOG_ERROR, "mcp", "out of memory reloading the MCP settings");
        return;
    }
    size_t nnext = 0;
    server **fresh = cfg->n ? calloc(cfg->n, sizeof *fresh) : NULL;
    size_t nfresh = 0;

    pthread_mutex_lock(&h->mu);
    bool *kept = h->n ? calloc(h->n, sizeof *kept) : NULL;
    for (size_t i = 0; i < cfg->n; i++) {
        mcp_server_config *c = &cfg->servers[i];
        server *old = NULL;
        size_t oi = 0;
        for (; oi < h->n; oi++)
            if (!(kept && kept[oi]) && strcmp(h->servers[oi]->cfg.name, c->name) == 0) {
                old = h->servers[oi];
                break;
            }
        if (old && kept && mcp_server_config_same(&old->cfg, c)) {
            char **swap = old->cfg.auto_approve;
            old->cfg.auto_approve = c->auto_approve;
            c->auto_approve = swap;
            kept[oi] = true;
            next[nnext++] = old;
            continue;
        }
        server *s = fresh ? server_new(h, c) : NULL;
        if (s) {
            next[nnext++] = s;
            fresh[nfresh++] = s;
        }
    }
    server **gone = h->servers;
    size_t ngone = h->n;
    h->servers = next;
    h->n = nnext;
    pthread_mutex_unlock(&h->mu);

    for (size_t i = 0; i < ngone; i++)
        if (!(kept && kept[i]))
            server_stop(h, gone[i]);
    for (size_t i = 0; i < ngone; i++)
        if (!(kept && kept[i])) {
            notice(h, gone[i]->cfg.name, "stopped (settings changed)");
            server_free(gone[i]);
        }
    for (size_t i = 0; i < nfresh; i++)
        server_start(fresh[i]);
    free(kept);
    free(gone);
    free(fresh);
    mcp_config_free(cfg);
    mcp_config_init(cfg);
}

bool mcp_hub_wait_ready(mcp_hub *h, long timeout_ms, hew_abort *abort)
{
    long long deadline = clock_now_ms() + timeout_ms;
    pthread_mutex_lock(&h->mu);
    bool ready = false;
    for (;;) {
        ready = true;
        for (size_t i = 0; i < h->n && ready; i++)
            ready = h->servers[i]->first_done;
        long long now = clock_now_ms();
        if (ready || now >= deadline || (abort && abort_is_set(abort)))
            break;
        hub_wait(h, deadline - now < 50 ? (long)(deadline - now) : 50);
    }
    pthread_mutex_unlock(&h->mu);
    return ready;
}

size_t mcp_hub_count(mcp_hub *h)
{
    pthread_mutex_lock(&h->mu);
    size_t n = h->n;
    pthread_mutex_unlock(&h->mu);
    return n;
}

static bool in_list(char *const *list, const char *name)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

bool mcp_hub_tool_auto_approved(mcp_hub *h, const char *server_name, const char *tool)
{
    pthread_mutex_lock(&h->mu);
    server *s = find_server(h, server_name);
    bool yes = s && in_list(s->cfg.auto_approve, tool);
    pthread_mutex_unlock(&h->mu);
    return yes;
}

static const char *transport_name(mcp_kind k)
{
    switch (k) {
    case MCP_STDIO: return "stdio";
    case MCP_HTTP: return "streamableHttp";
    case MCP_SSE: return "sse";
    case MCP_HTTP_AUTO: return "http";
    }
    return "?";
}

static bool file_word(const char *name)
{
    static const char *const whole[] = { "path",  "paths", "file",      "files",  "filename",
                                         "uri",   "uris",  "directory", "dir",    "folder",
                                         "root",  "source", "destination", "directories" };
    static const char *const ends[] = { "path", "file", "dir", "uri", "paths", "files" };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
        if (strcasecmp(name, whole[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        size_t k = strlen(ends[i]);
        /* at a word's start: "source_dir", "filePath" — not "profile" */
        if (n > k && strcasecmp(name + n - k, ends[i]) == 0 &&
            (name[n - k - 1] == '_' || name[n - k - 1] == '-' ||
             (name[n - k] >= 'A' && name[n - k] <= 'Z')))
            return true;
    }
    return false;
}

static bool props_name_files(const json_t *schema, int depth)
{
    const char *key;
    json_t *p;
    json_object_foreach(json_object_get(schema, "properties"), key, p) {
        if (file_word(key))
            return true;
        if (depth > 0) {
            const json_t *items = json_object_get(p, "items");
            if (props_name_files(p, depth - 1) || (items && props_name_files(items, depth - 1)))
                return true;
        }
    }
    return false;
}

bool mcp_schema_names_files(const json_t *input_schema)
{
    return json_is_object(input_schema) && props_name_files(input_schema, 2);
}

/* One of the server's tools names files (mcp_schema_names_files). */
static bool server_reads_files(const server *s)
{
    size_t i;
    json_t *t;
    json_array_foreach(s->tools, i, t)
        if (mcp_schema_names_files(json_object_get(t, "inputSchema")))
            return true;
    return false;
}

/* root has a .clineignore (any case of the name, as Cline reads it). */
static bool workspace_has_clineignore(const char *root)
{
    DIR *d = root ? opendir(root) : NULL;
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)))
        found = strcasecmp(e->d_name, ".clineignore") == 0;
    closedir(d);
    return found;
}

static json_t *tools_json(const server *s)
{
    json_t *out = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(s->tools, i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        if (!name)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(name));
        json_t *d = json_object_get(t, "description");
        if (json_is_string(d))
            json_object_set_new(o, "description", json_deep_copy(d));
        json_t *schema = json_object_get(t, "inputSchema");
        if (schema)
            json_object_set_new(o, "input_schema", json_deep_copy(schema));
        json_object_set_new(o, "auto_approve", json_boolean(in_list(s->cfg.auto_approve, name)));
        json_array_append_new(out, o);
    }
    return out;
}

json_t *mcp_hub_status_json(mcp_hub *h)
{
    json_t *out = json_array();
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < h->n; i++) {
        const server *s = h->servers[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(s->cfg.name));
        json_object_set_new(o, "status", json_string(mcp_status_name(s->status)));
        if (s->error[0] && s->status != MCP_CONNECTED)
            json_object_set_new(o, "error", json_string(s->error));
        json_object_set_new(o, "transport", json_string(transport_name(s->cfg.kind)));
        if (s->version && s->status == MCP_CONNECTED)
            json_object_set_new(o, "server", json_string(s->version));
        json_object_set_new(o, "tools", tools_json(s));
        bool reads = server_reads_files(s);
        json_object_set_new(o, "reads_files", json_boolean(reads));
        if (reads && workspace_has_clineignore(h->root))
            json_object_set_new(o, "clineignore_warning",
                                json_string("it reads files and this workspace has a "
                                            ".clineignore: hew refuses calls that name "
                                            "ignored paths, but not what the server reads "
                                            "on its own (a listing, a search)"));
        json_object_set_new(o, "resources", json_deep_copy(s->resources));
        json_object_set_new(o, "resource_templates", json_deep_copy(s->templates));
        json_object_set_new(o, "prompts", json_deep_copy(s->prompts));
        if (s->cfg.source)
            json_object_set_new(o, "source", json_string(s->cfg.source));
        json_array_append_new(out, o);
    }
    pthread_mutex_unlock(&h->mu);
    return out;
}

/* ---- calls ----------------------------------------------------------------------------- */

/* The connected server called name, with a user counted; NULL with an error. */
static server *take_server(mcp_hub *h, const char *name, mcp_client **c, long *timeout_ms,
                           hew_err *err)
{
    pthread_mutex_lock(&h->mu);
    server *s = find_server(h, name);
    if (!s) {
        buf names = BUF_INIT(512);
        for (size_t i = 0; i < h->n; i++)
            buf_printf(&names, "%s%s", i ? ", " : "", h->servers[i]->cfg.name);
        hew_err_set(err, HEW_E_NOTFOUND, "there is no MCP server named '%s' (servers: %s)", name,
                    h->n && names.err == HEW_OK ? names.data : "none");
        buf_release(&names);
        pthread_mutex_unlock(&h->mu);
        return NULL;
    }
    if (s->status != MCP_CONNECTED || !s->client) {
        hew_err_set(err, HEW_E_NET, "the MCP server '%s' is %s%s%s", name,
                    mcp_status_name(s->status), s->error[0] ? ": " : "", s->error);
        pthread_mutex_unlock(&h->mu);
        return NULL;
    }
    s->users++;
    *c = s->client;
    if (timeout_ms)
        *timeout_ms = s->cfg.timeout_s * 1000L;
    pthread_mutex_unlock(&h->mu);
    return s;
}

static void give_back(mcp_hub *h, server *s)
{
    pthread_mutex_lock(&h->mu);
    s->users--;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

/* One request to a connected server (params taken), with the server's timeout. */
static hew_code hub_request(mcp_hub *h, const char *server_name, const char *method,
                            json_t *params, hew_abort *abort, mcp_progress_fn progress,
                            void *progress_ud, json_t **result, hew_err *err)
{
    *result = NULL;
    mcp_client *c;
    long timeout_ms = 0;
    server *s = take_server(h, server_name, &c, &timeout_ms, err);
    if (!s) {
        json_decref(params);
        return err->code;
    }
    hew_code rc = mcp_client_request(c, method, params, timeout_ms, abort, progress,
                                     progress_ud, result, err);
    give_back(h, s);
    return rc;
}

hew_code mcp_hub_call_tool(mcp_hub *h, const char *server_name, const char *tool,
                           const json_t *arguments, hew_abort *abort, mcp_progress_fn progress,
                           void *progress_ud, json_t **result, hew_err *err)
{
    json_t *params = json_object();
    json_object_set_new(params, "name", json_string(tool));
    json_object_set_new(params, "arguments",
                        arguments ? json_deep_copy(arguments) : json_object());
    return hub_request(h, server_name, "tools/call", params, abort, progress, progress_ud,
                       result, err);
}

hew_code mcp_hub_read_resource(mcp_hub *h, const char *server_name, const char *uri,
                               hew_abort *abort, json_t **result, hew_err *err)
{
    json_t *params = json_object();
    json_object_set_new(params, "uri", json_string(uri));
    return hub_request(h, server_name, "resources/read", params, abort, NULL, NULL, result,
                       err);
}

hew_code mcp_hub_get_prompt(mcp_hub *h, const char *server_name, const char *prompt,
                            const json_t *arguments, hew_abort *abort, json_t **result,
                            hew_err *err)
{
    json_t *params = json_object();
    json_object_set_new(params, "name", json_string(prompt));
    if (arguments)
        json_object_set_new(params, "arguments", json_deep_copy(arguments));
    return hub_request(h, server_name, "prompts/get", params, abort, NULL, NULL, result, err);
}

/* ---- snapshots ------------------------------------------------------------------------- */

static void sanitize_into(buf *out, const char *s)
{
    for (; *s; s++) {
        char ch = *s;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        buf_putc(out, ok ? ch : '_');
    }
}

static uint32_t fnv1a(const char *a, const char *b)
{
    uint32_t hsh = 2166136261u;
    for (const char *p = a; *p; p++)
        hsh = (hsh ^ (unsigned char)*p) * 16777619u;
    hsh = (hsh ^ 0) * 16777619u;
    for (const char *p = b; *p; p++)
        hsh = (hsh ^ (unsigned char)*p) * 16777619u;
    return hsh;
}

static char *native_name(const char *server_name, const char *tool, const mcp_native_tool *done,
                         size_t ndone)
{
    buf b = BUF_INIT(4096);
    /* Gemini wants a letter or '_' first ("1password" would not do). */
    char first = server_name[0];
    if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_'))
        buf_puts(&b, "mcp_");
    sanitize_into(&b, server_name);
    buf_puts(&b, "__");
    sanitize_into(&b, tool);
    if (b.err != HEW_OK) {
        buf_release(&b);
        return NULL;
    }
    bool clash = false;
    for (size_t i = 0; i < ndone && !clash; i++)
        clash = strncmp(done[i].native_name, b.data, NATIVE_NAME_MAX) == 0;
    if (b.len > NATIVE_NAME_MAX || clash) {
        char tail[10];
        snprintf(tail, sizeof tail, "_%08x", fnv1a(server_name, tool));
        buf_truncate(&b, NATIVE_NAME_MAX - 9);
        buf_puts(&b, tail);
    }
    char *name = strdup(b.data);
    buf_release(&b);
    return name;
}

static const char *keep_string(json_t *keep, const char *s)
{
    json_t *j = json_string(s);
    if (!j)
        return "";
    json_array_append_new(keep, j);
    return json_string_value(j);
}

/* How the server is started or reached, for the prompt's reader. */
static const char *server_command(json_t *keep, const mcp_server_config *c)
{
    if (c->kind != MCP_STDIO)
        return c->url ? keep_string(keep, c->url) : NULL;
    buf b = BUF_INIT(4096);
    for (size_t i = 0; c->argv && c->argv[i]; i++)
        buf_printf(&b, "%s%s", i ? " " : "", c->argv[i]);
    const char *out = b.err == HEW_OK && b.len ? keep_string(keep, b.data) : NULL;
    buf_release(&b);
    return out;
}

static mcp_offer_resource *resources_of(json_t *list, bool templates, size_t *n)
{
    *n = 0;
    size_t count = json_array_size(list);
    if (!count)
        return NULL;
    mcp_offer_resource *r = calloc(count, sizeof *r);
    if (!r)
        return NULL;
    size_t i;
    json_t *it;
    json_array_foreach(list, i, it) {
        const char *uri = json_string_value(json_object_get(it, templates ? "uriTemplate" : "uri"));
        if (!uri)
            continue;
        r[*n].uri = uri;
        r[*n].name = json_string_value(json_object_get(it, "name"));
        r[*n].description = json_string_value(json_object_get(it, "description"));
        (*n)++;
    }
    return r;
}

mcp_snapshot *mcp_hub_snapshot(mcp_hub *h)
{
    mcp_snapshot *snap = calloc(1, sizeof *snap);
    if (!snap)
        return NULL;
    snap->keep = json_array();
    pthread_mutex_lock(&h->mu);
    size_t ntools = 0;
    for (size_t i = 0; i < h->n; i++)
        if (h->servers[i]->status == MCP_CONNECTED)
            ntools += json_array_size(h->servers[i]->tools);
    snap->servers = h->n ? calloc(h->n, sizeof *snap->servers) : NULL;
    snap->native = ntools ? calloc(ntools, sizeof *snap->native) : NULL;
    for (size_t i = 0; i < h->n && (snap->servers || !h->n); i++) {
        server *s = h->servers[i];
        if (s->status != MCP_CONNECTED)
            continue;
        /* Copies: the snapshot lives on the task's thread, the hub's lists on the
         * server's (no jansson tree is shared between threads). */
        json_t *tools_copy = json_deep_copy(s->tools);
        json_t *resources_copy = json_deep_copy(s->resources);
        json_t *templates_copy = json_deep_copy(s->templates);
        json_array_append_new(snap->keep, tools_copy);
        json_array_append_new(snap->keep, resources_copy);
        json_array_append_new(snap->keep, templates_copy);
        mcp_offer_server *ps = &snap->servers[snap->nservers++];
        ps->name = keep_string(snap->keep, s->cfg.name);
        ps->command = server_command(snap->keep, &s->cfg);
        size_t count = json_array_size(tools_copy);
        mcp_offer_tool *tools = count ? calloc(count, sizeof *tools) : NULL;
        size_t j;
        json_t *t;
        json_array_foreach(tools_copy, j, t) {
            const char *name = json_string_value(json_object_get(t, "name"));
            if (!name || !tools)
                continue;
            mcp_offer_tool *pt = &tools[ps->ntools++];
            pt->name = name;
            pt->description = json_string_value(json_object_get(t, "description"));
            pt->input_schema = json_object_get(t, "inputSchema");
            if (snap->native) {
                mcp_native_tool *nt = &snap->native[snap->nnative];
                nt->native_name = native_name(s->cfg.name, name, snap->native, snap->nnative);
                if (nt->native_name) {
                    nt->server = ps->name;
                    nt->tool = name;
                    nt->description = pt->description;
                    nt->input_schema = pt->input_schema;
                    snap->nnative++;
                }
            }
        }
        ps->tools = tools;
        mcp_offer_resource *res = resources_of(resources_copy, false, &ps->nresources);
        ps->resources = res;
        mcp_offer_resource *tpl = resources_of(templates_copy, true, &ps->ntemplates);
        ps->templates = tpl;
    }
    pthread_mutex_unlock(&h->mu);
    return snap;
}

void mcp_snapshot_free(mcp_snapshot *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nservers; i++) {
        free((void *)s->servers[i].tools);
        free((void *)s->servers[i].resources);
        free((void *)s->servers[i].templates);
    }
    free(s->servers);
    for (size_t i = 0; i < s->nnative; i++)
        free(s->native[i].native_name);
    free(s->native);
    json_decref(s->keep);
    free(s);
}

const mcp_native_tool *mcp_snapshot_native_find(const mcp_snapshot *s, const char *name)
{
    if (!s || !name)
        return NULL;
    for (size_t i = 0; i < s->nnative; i++)
        if (strcmp(s->native[i].native_name, name) == 0)
            return &s->native[i];
    return NULL;
}

json_t *mcp_native_schema(const json_t *schema)
{
    json_t *copy = json_is_object(schema) ? json_deep_copy(schema) : json_object();
    if (!copy)
        return NULL;
    json_object_del(copy, "$schema");
    if (!json_is_string(json_object_get(copy, "type")))
        json_object_set_new(copy, "type", json_string("object"));
    if (!json_is_object(json_object_get(copy, "properties")))
        json_object_set_new(copy, "properties", json_object());
    return copy;
}
