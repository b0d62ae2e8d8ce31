/* client — JSON-RPC 2.0 over an MCP transport (see client.h). One mutex guards the table
 * of requests in flight; waiters sleep on one condition variable and wake for their
 * response, for progress, for the connection's end, or every 50 ms to look at their
 * abort token and deadline. */
#include "mcp/client.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "hew.h"

#define WAIT_SLICE_MS 50L

static hew_code mcp_client_notify(mcp_client *c, const char *method, json_t *params,
                                  hew_err *err);

static const char *const known_protocols[] = { "2025-11-25", "2025-06-18", "2025-03-26",
                                               "2024-11-05" };

typedef struct pending {
    long long id;
    bool done;
    json_t *result;          /* the answer's result, or NULL */
    json_t *error;           /* the answer's error, or NULL */
    unsigned progress_seq;   /* bumped by every progress notification */
    double progress, total;
    char *progress_message;
    struct pending *next;
} pending;

struct mcp_client {
    char *name;
    char *root_uri, *root_name;
    mcp_client_handlers h;
    mcp_transport *t;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pending *inflight;
    long long next_id;
    bool alive;
    char closed_why[512];
    json_t *caps;
    char *server_version;
    char *instructions;
    char protocol[32];
};

/* Sleep on the client's condition variable (mu held) for at most ms. */
static void wait_for(mcp_client *c, long ms)
{
    clock_cond_wait_ms(&c->cv, &c->mu, ms);
}

/* ---- sending --------------------------------------------------------------------------- */

static hew_code send_json(mcp_client *c, json_t *msg, hew_err *err)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory encoding a message for %s",
                           c->name);
    pthread_mutex_lock(&c->mu);
    mcp_transport *t = c->t;
    bool alive = c->alive;
    pthread_mutex_unlock(&c->mu);
    hew_code rc;
    if (!t || !alive)
        rc = hew_err_set(err, HEW_E_NET, "the MCP server %s is not connected", c->name);
    else
        rc = t->send(t, text, strlen(text), err);
    free(text);
    return rc;
}

static void respond(mcp_client *c, json_t *id, json_t *result, int code, const char *message)
{
    json_t *msg = json_object();
    json_object_set_new(msg, "jsonrpc", json_string("2.0"));
    json_object_set(msg, "id", id);
    if (result) {
        json_object_set_new(msg, "result", result);
    } else {
        json_t *e = json_object();
        json_object_set_new(e, "code", json_integer(code));
        json_object_set_new(e, "message", json_string(message));
        json_object_set_new(msg, "error", e);
    }
    hew_err err = HEW_ERR_INIT;
    if (send_json(c, msg, &err) != HEW_OK)
        hew_log(HEW_LOG_WARN, "mcp", "%s: cannot answer the server: %s", c->name, err.msg);
    json_decref(msg);
}

/* ---- receiving ------------------------------------------------------------------------- */

static pending *find_pending(mcp_client *c, long long id)
{
    for (pending *p = c->inflight; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

/* Our ids are integers; a server echoing one as a string is tolerated. */
static bool id_value(const json_t *id, long long *out)
{
    if (json_is_integer(id)) {
        *out = json_integer_value(id);
        return true;
    }
    if (json_is_string(id)) {
        char *end;
        *out = strtoll(json_string_value(id), &end, 10);
        return *end == '\0' && end != json_string_value(id);
    }
    return false;
}

static void on_response(mcp_client *c, json_t *msg)
{
    long long id;
    if (!id_value(json_object_get(msg, "id"), &id)) {
        hew_log(HEW_LOG_WARN, "mcp", "%s: a response with an id hew never sent", c->name);
        return;
    }
    pthread_mutex_lock(&c->mu);
    pending *p = find_pending(c, id);
    if (p && !p->done) {
        /* Copies, not references: the message is freed on this thread while the waiter
         * reads its answer on another (no jansson tree is shared between threads). */
        json_t *e = json_object_get(msg, "error");
        if (e) {
            p->error = json_deep_copy(e);
        } else {
            json_t *r = json_object_get(msg, "result");
            p->result = r ? json_deep_copy(r) : json_object();
        }
        p->done = true;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
}

static bool on_progress(mcp_client *c, const json_t *params)
{
    long long token;
    if (!id_value(json_object_get(params, "progressToken"), &token))
        return false;
    bool ours = false;
    pthread_mutex_lock(&c->mu);
    pending *p = find_pending(c, token);
    if (p && !p->done) {
        ours = true;
        p->progress = json_number_value(json_object_get(params, "progress"));
        json_t *total = json_object_get(params, "total");
        p->total = json_is_number(total) ? json_number_value(total) : -1;
        const char *m = json_string_value(json_object_get(params, "message"));
        free(p->progress_message);
        p->progress_message = m ? strdup(m) : NULL;
        p->progress_seq++;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return ours;
}

static void on_server_request(mcp_client *c, json_t *msg, const char *method)
{
    json_t *id = json_object_get(msg, "id");
    if (strcmp(method, "ping") == 0) {
        respond(c, id, json_object(), 0, NULL);
    } else if (strcmp(method, "roots/list") == 0) {
        json_t *roots = json_array();
        if (c->root_uri) {
            json_t *r = json_object();
            json_object_set_new(r, "uri", json_string(c->root_uri));
            if (c->root_name)
                json_object_set_new(r, "name", json_string(c->root_name));
            json_array_append_new(roots, r);
        }
        json_t *result = json_object();
        json_object_set_new(result, "roots", roots);
        respond(c, id, result, 0, NULL);
    } else {
        respond(c, id, NULL, -32601, "Method not found: hew does not offer this to servers");
    }
}

static void on_one_message(mcp_client *c, json_t *msg)
{
    if (!json_is_object(msg))
        return;
    const char *method = json_string_value(json_object_get(msg, "method"));
    bool has_id = json_object_get(msg, "id") != NULL;
    if (method && has_id) {
        on_server_request(c, msg, method);
    } else if (method) {
        json_t *params = json_object_get(msg, "params");
        if (strcmp(method, "notifications/progress") == 0 && on_progress(c, params))
            return;
        if (c->h.on_notification)
            c->h.on_notification(c->h.ud, method, params);
    } else if (has_id) {
        on_response(c, msg);
    }
}

static void sink_message(void *ud, const char *json, size_t len)
{
    mcp_client *c = ud;
    json_error_t jerr;
    json_t *msg = json_loadb(json, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!msg) {
        if (c->h.on_noise)
            c->h.on_noise(c->h.ud, 1, json, len);
        return;
    }
    if (json_is_array(msg)) {
        size_t i;
        json_t *v;
        json_array_foreach(msg, i, v)
            on_one_message(c, v);
    } else {
        on_one_message(c, msg);
    }
    json_decref(msg);
}

static void sink_noise(void *ud, int stream, const char *text, size_t len)
{
    mcp_client *c = ud;
    if (c->h.on_noise)
        c->h.on_noise(c->h.ud, stream, text, len);
}

static void sink_closed(void *ud, const char *why)
{
    mcp_client *c = ud;
    pthread_mutex_lock(&c->mu);
    c->alive = false;
    snprintf(c->closed_why, sizeof c->closed_why, "%s", why ? why : "the connection ended");
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (c->h.on_closed)
        c->h.on_closed(c->h.ud, c->closed_why);
}

mcp_sink mcp_client_sink(mcp_client *c)
{
    mcp_sink s = { sink_message, sink_noise, sink_closed, c };
    return s;
}

/* ---- lifetime -------------------------------------------------------------------------- */

/* file:// URI of a directory, with the bytes URIs cannot carry percent-encoded. */
static char *file_uri(const char *dir)
{
    size_t n = strlen(dir);
    char *uri = malloc(7 + 3 * n + 1);
    if (!uri)
        return NULL;
    char *w = uri;
    memcpy(w, "file://", 7);
    w += 7;
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *s = (const unsigned char *)dir; *s; s++) {
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
            strchr("/-._~", *s)) {
            *w++ = (char)*s;
        } else {
            *w++ = '%';
            *w++ = hex[*s >> 4];
            *w++ = hex[*s & 15];
        }
    }
    *w = '\0';
    return uri;
}

hew_code mcp_client_new(const char *server_name, const char *root_dir,
                        const mcp_client_handlers *h, mcp_client **out, hew_err *err)
{
    *out = NULL;
    mcp_client *c = calloc(1, sizeof *c);
    if (!c)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    c->name = strdup(server_name ? server_name : "?");
    if (root_dir) {
        c->root_uri = file_uri(root_dir);
        const char *slash = strrchr(root_dir, '/');
        c->root_name = strdup(slash && slash[1] ? slash + 1 : root_dir);
    }
    if (!c->name || (root_dir && (!c->root_uri || !c->root_name))) {
        free(c->name);
        free(c->root_uri);
        free(c->root_name);
        free(c);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    if (h)
        c->h = *h;
    pthread_mutex_init(&c->mu, NULL);
    clock_cond_init(&c->cv);
    c->next_id = 1;
    c->alive = true;
    *out = c;
    return HEW_OK;
}

void mcp_client_attach(mcp_client *c, mcp_transport *t)
{
    pthread_mutex_lock(&c->mu);
    c->t = t;
    pthread_mutex_unlock(&c->mu);
}

bool mcp_client_alive(mcp_client *c)
{
    pthread_mutex_lock(&c->mu);
    bool alive = c->alive;
    pthread_mutex_unlock(&c->mu);
    return alive;
}

void mcp_client_shutdown(mcp_client *c, const char *why)
{
    pthread_mutex_lock(&c->mu);
    if (c->alive) {
        c->alive = false;
        snprintf(c->closed_why, sizeof c->closed_why, "%s", why);
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void mcp_client_free(mcp_client *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    mcp_transport *t = c->t;
    c->t = NULL;
    c->alive = false;
    snprintf(c->closed_why, sizeof c->closed_why, "hew closed the connection");
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (t)
        t->close(t); /* no callback runs after this */
    /* Requests still waiting belong to their threads; the owner must not free a client
     * with requests in flight (the hub waits for its users first). */
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    json_decref(c->caps);
    free(c->server_version);
    free(c->instructions);
    free(c->name);
    free(c->root_uri);
    free(c->root_name);
    free(c);
}

/* ---- requests -------------------------------------------------------------------------- */

static void unlink_pending(mcp_client *c, pending *p)
{
    for (pending **pp = &c->inflight; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            return;
        }
}

static void free_pending(pending *p)
{
    json_decref(p->result);
    json_decref(p->error);
    free(p->progress_message);
    free(p);
}

static void send_cancel(mcp_client *c, long long id, const char *reason)
{
    json_t *params = json_object();
    json_object_set_new(params, "requestId", json_integer(id));
    json_object_set_new(params, "reason", json_string(reason));
    hew_err err = HEW_ERR_INIT;
    mcp_client_notify(c, "notifications/cancelled", params, &err);
}

static hew_code error_answer(mcp_client *c, const char *method, const json_t *e, hew_err *err)
{
    const char *msg = json_string_value(json_object_get(e, "message"));
    json_int_t code = json_integer_value(json_object_get(e, "code"));
    return hew_err_set(err, HEW_E_PROTOCOL, "the MCP server %s refused %s (error %lld): %s",
                       c->name, method, (long long)code, msg ? msg : "no message");
}

/* Hand the latest progress of p to the caller's function, outside the lock (mu held on
 * entry and on return); returns the progress number shown. */
static unsigned show_progress(mcp_client *c, pending *p, mcp_progress_fn progress, void *ud)
{
    unsigned seq = p->progress_seq;
    double done = p->progress, total = p->total;
    char *m = p->progress_message ? strdup(p->progress_message) : NULL;
    pthread_mutex_unlock(&c->mu);
    progress(ud, done, total, m);
    free(m);
    pthread_mutex_lock(&c->mu);
    return seq;
}

static json_t *request_message(const char *method, json_t *params, long long id, bool progress)
{
    json_t *msg = json_object();
    json_object_set_new(msg, "jsonrpc", json_string("2.0"));
    json_object_set_new(msg, "id", json_integer(id));
    json_object_set_new(msg, "method", json_string(method));
    if (progress) {
        if (!params)
            params = json_object();
        json_t *meta = json_object_get(params, "_meta");
        if (!json_is_object(meta)) {
            meta = json_object();
            json_object_set_new(params, "_meta", meta);
        }
        json_object_set_new(meta, "progressToken", json_integer(id));
    }
    if (params)
        json_object_set_new(msg, "params", params);
    return msg;
}

hew_code mcp_client_request(mcp_client *c, const char *method, json_t *params, long timeout_ms,
                            hew_abort *abort, mcp_progress_fn progress, void *progress_ud,
                            json_t **result, hew_err *err)
{
    *result = NULL;
    pending *p = calloc(1, sizeof *p);
    if (!p) {
        json_decref(params);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    pthread_mutex_lock(&c->mu);
    p->id = c->next_id++;
    p->next = c->inflight;
    c->inflight = p;
    pthread_mutex_unlock(&c->mu);

    json_t *msg = request_message(method, params, p->id, progress != NULL);
    hew_code rc = send_json(c, msg, err);
    json_decref(msg);
    long long deadline = timeout_ms > 0 ? clock_now_ms() + timeout_ms : 0;
    unsigned seen_progress = 0;

    pthread_mutex_lock(&c->mu);
    if (rc == HEW_E_NET) {
        /* The server is gone: its end (and last words) usually arrives a moment later and
         * says more than a failed write. */
        long long until = clock_now_ms() + 1000;
        while (c->alive && clock_now_ms() < until)
            wait_for(c, WAIT_SLICE_MS);
        if (!c->alive)
            rc = hew_err_set(err, HEW_E_NET, "the MCP server %s disconnected: %s", c->name,
                             c->closed_why);
    }
    while (rc == HEW_OK && !p->done) {
        if (!c->alive) {
            rc = hew_err_set(err, HEW_E_NET, "the MCP server %s disconnected: %s", c->name,
                             c->closed_why);
            break;
        }
        if (p->progress_seq != seen_progress && progress) {
            seen_progress = show_progress(c, p, progress, progress_ud);
            continue;
        }
        if (abort && abort_is_set(abort)) {
            rc = hew_err_set(err, HEW_E_ABORTED, "%s on %s was cancelled", method, c->name);
            break;
        }
        long long now = clock_now_ms();
        if (deadline && now >= deadline) {
            rc = hew_err_set(err, HEW_E_TIMEOUT,
                             "the MCP server %s did not answer %s within %ld s (raise its "
                             "\"timeout\" in mcp.json if it needs longer)",
                             c->name, method, (timeout_ms + 999) / 1000);
            break;
        }
        long slice = WAIT_SLICE_MS;
        if (deadline && deadline - now < slice)
            slice = (long)(deadline - now);
        wait_for(c, slice);
    }
    /* The last progress came with (or just before) the answer: still show it. */
    if (rc == HEW_OK && progress && p->progress_seq != seen_progress)
        show_progress(c, p, progress, progress_ud);
    unlink_pending(c, p);
    bool cancel = (rc == HEW_E_ABORTED || rc == HEW_E_TIMEOUT) && c->alive;
    pthread_mutex_unlock(&c->mu);

    if (cancel)
        send_cancel(c, p->id, rc == HEW_E_ABORTED ? "The user cancelled the request."
                                                  : "The request timed out.");
    if (rc == HEW_OK) {
        if (p->error)
            rc = error_answer(c, method, p->error, err);
        else {
            *result = p->result;
            p->result = NULL;
        }
    }
    free_pending(p);
    return rc;
}

/* Send a notification. */
static hew_code mcp_client_notify(mcp_client *c, const char *method, json_t *params,
                                  hew_err *err)
{
    json_t *msg = json_object();
    json_object_set_new(msg, "jsonrpc", json_string("2.0"));
    json_object_set_new(msg, "method", json_string(method));
    if (params)
        json_object_set_new(msg, "params", params);
    hew_code rc = send_json(c, msg, err);
    json_decref(msg);
    return rc;
}

hew_code mcp_client_list(mcp_client *c, const char *method, const char *key, long timeout_ms,
                         hew_abort *abort, json_t **out, hew_err *err)
{
    *out = NULL;
    json_t *all = json_array();
    char *cursor = NULL;
    hew_code rc = HEW_OK;
    for (int page = 0; page < 1000; page++) {
        json_t *params = NULL;
        if (cursor) {
            params = json_object();
            json_object_set_new(params, "cursor", json_string(cursor));
        }
        json_t *r = NULL;
        rc = mcp_client_request(c, method, params, timeout_ms, abort, NULL, NULL, &r, err);
        if (rc != HEW_OK)
            break;
        json_t *items = json_object_get(r, key);
        if (json_is_array(items))
            json_array_extend(all, items);
        const char *next = json_string_value(json_object_get(r, "nextCursor"));
        free(cursor);
        cursor = next && *next ? strdup(next) : NULL;
        json_decref(r);
        if (!cursor)
            break;
    }
    free(cursor);
    if (rc != HEW_OK) {
        json_decref(all);
        return rc;
    }
    *out = all;
    return HEW_OK;
}

/* ---- the handshake --------------------------------------------------------------------- */

static bool known_protocol(const char *v)
{
    for (size_t i = 0; i < sizeof known_protocols / sizeof known_protocols[0]; i++)
        if (strcmp(v, known_protocols[i]) == 0)
            return true;
    return false;
}

hew_code mcp_client_initialize(mcp_client *c, long timeout_ms, hew_abort *abort, hew_err *err)
{
    json_t *params = json_object();
    json_object_set_new(params, "protocolVersion", json_string(MCP_PROTOCOL_LATEST));
    json_t *caps = json_object();
    json_t *roots = json_object();
    json_object_set_new(roots, "listChanged", json_false());
    json_object_set_new(caps, "roots", roots);
    json_object_set_new(params, "capabilities", caps);
    json_t *info = json_object();
    json_object_set_new(info, "name", json_string("hew"));
    json_object_set_new(info, "version", json_string(hew_version()));
    json_object_set_new(params, "clientInfo", info);

    json_t *r = NULL;
    hew_code rc = mcp_client_request(c, "initialize", params, timeout_ms, abort, NULL, NULL, &r,
                                     err);
    if (rc != HEW_OK)
        return rc;
    const char *version = json_string_value(json_object_get(r, "protocolVersion"));
    if (!version || !known_protocol(version)) {
        rc = hew_err_set(err, HEW_E_PROTOCOL,
                         "the MCP server %s speaks protocol version %s; hew speaks %s (and "
                         "2025-03-26, 2024-11-05): update the server or hew",
                         c->name, version ? version : "(none given)", MCP_PROTOCOL_LATEST);
        json_decref(r);
        return rc;
    }
    snprintf(c->protocol, sizeof c->protocol, "%s", version);
    json_t *server_caps = json_object_get(r, "capabilities");
    c->caps = json_is_object(server_caps) ? json_incref(server_caps) : json_object();
    json_t *si = json_object_get(r, "serverInfo");
    const char *sname = json_string_value(json_object_get(si, "name"));
    const char *sver = json_string_value(json_object_get(si, "version"));
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s%s%s", sname ? sname : c->name, sver ? " " : "",
             sver ? sver : "");
    c->server_version = strdup(tmp);
    const char *instr = json_string_value(json_object_get(r, "instructions"));
    c->instructions = instr ? strdup(instr) : NULL;
    json_decref(r);

    pthread_mutex_lock(&c->mu);
    mcp_transport *t = c->t;
    pthread_mutex_unlock(&c->mu);
    if (t && t->set_protocol_version)
        t->set_protocol_version(t, c->protocol);
    return mcp_client_notify(c, "notifications/initialized", NULL, err);
}

const json_t *mcp_client_capabilities(const mcp_client *c)
{
    return c->caps;
}

const char *mcp_client_server_version(const mcp_client *c)
{
    return c->server_version;
}

const char *mcp_client_protocol(const mcp_client *c)
{
    return c->protocol[0] ? c->protocol : NULL;
}
