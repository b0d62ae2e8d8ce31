/* acp_rpc — the JSON-RPC 2.0 wire of `hew acp`: one compact JSON message per line on
 * stdout (the ACP SDK's ndJsonStream), written whole under one lock from any thread, and
 * the agent's own requests to the client (session/request_permission) with the routing
 * of their answers back to whoever asked. Reading is acp.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acp.h"

struct pending {
    long id;
    acp_reply_fn fn;
    void *ud;
};

struct acp_rpc {
    FILE *out;
    pthread_mutex_t lock; /* writes, next_id and the pending table */
    long next_id;
    struct pending *pend;
    size_t npend, cappend;
    int broken; /* a write failed: the client is gone */
    int closed; /* acp_rpc_drop_all ran: no answer will come to a new request */
};

acp_rpc *acp_rpc_new(FILE *out)
{
    acp_rpc *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->out = out;
    r->next_id = 1;
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

void acp_rpc_free(acp_rpc *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->lock);
    free(r->pend);
    free(r);
}

json_t *acp_jstr(const char *s, size_t n)
{
    json_t *j = json_stringn(s ? s : "", s ? n : 0);
    if (j || !s)
        return j;
    char *copy = malloc(n + 1); /* not valid UTF-8: '?' for every byte outside ASCII */
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++)
        copy[i] = (unsigned char)s[i] >= 0x80 || s[i] == '\0' ? '?' : s[i];
    j = json_stringn(copy, n);
    free(copy);
    return j;
}

static void write_locked(acp_rpc *r, json_t *msg)
{
    char *line = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!line)
        return;
    if (!r->broken && (fputs(line, r->out) == EOF || fputc('\n', r->out) == EOF ||
                       fflush(r->out) == EOF))
        r->broken = 1; /* the client went away; stdin's EOF ends us */
    free(line);
}

void acp_rpc_send(acp_rpc *r, json_t *msg)
{
    if (!msg)
        return;
    if (!json_object_get(msg, "jsonrpc"))
        json_object_set_new(msg, "jsonrpc", json_string("2.0"));
    pthread_mutex_lock(&r->lock);
    write_locked(r, msg);
    pthread_mutex_unlock(&r->lock);
    json_decref(msg);
}

void acp_rpc_result(acp_rpc *r, json_t *id, json_t *result)
{
    json_t *m = json_object();
    json_object_set_new(m, "jsonrpc", json_string("2.0"));
    json_object_set(m, "id", id ? id : json_null());
    json_object_set_new(m, "result", result ? result : json_object());
    acp_rpc_send(r, m);
}

void acp_rpc_error(acp_rpc *r, json_t *id, int code, const char *message)
{
    json_t *m = json_object();
    json_object_set_new(m, "jsonrpc", json_string("2.0"));
    json_object_set(m, "id", id ? id : json_null());
    json_t *e = json_pack("{s:i}", "code", code);
    json_object_set_new(e, "message", acp_jstr(message, strlen(message)));
    json_object_set_new(m, "error", e);
    acp_rpc_send(r, m);
}

void acp_rpc_notify(acp_rpc *r, const char *method, json_t *params)
{
    json_t *m = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    json_object_set_new(m, "params", params ? params : json_object());
    acp_rpc_send(r, m);
}

long acp_rpc_request(acp_rpc *r, const char *method, json_t *params, acp_reply_fn fn, void *ud)
{
    json_t *m = json_pack("{s:s}", "jsonrpc", "2.0");
    pthread_mutex_lock(&r->lock);
    if (r->closed || r->broken) { /* nobody would answer */
        pthread_mutex_unlock(&r->lock);
        json_decref(params);
        json_decref(m);
        return -1;
    }
    if (r->npend == r->cappend) {
        size_t cap = r->cappend ? r->cappend * 2 : 8;
        struct pending *p = realloc(r->pend, cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&r->lock);
            json_decref(params);
            json_decref(m);
            return -1;
        }
        r->pend = p;
        r->cappend = cap;
    }
    long id = r->next_id++;
    r->pend[r->npend++] = (struct pending){ id, fn, ud };
    json_object_set_new(m, "id", json_integer(id));
    json_object_set_new(m, "method", json_string(method));
    json_object_set_new(m, "params", params ? params : json_object());
    write_locked(r, m);
    pthread_mutex_unlock(&r->lock);
    json_decref(m);
    return id;
}

/* Take the pending entry of id out of the table (locked); 0 when found. */
static int take_locked(acp_rpc *r, long id, struct pending *out)
{
    for (size_t i = 0; i < r->npend; i++) {
        if (r->pend[i].id == id) {
            if (out)
                *out = r->pend[i];
            r->pend[i] = r->pend[--r->npend];
            return 0;
        }
    }
    return -1;
}

void acp_rpc_drop_all(acp_rpc *r)
{
    for (;;) {
        pthread_mutex_lock(&r->lock);
        r->closed = 1;
        if (!r->npend) {
            pthread_mutex_unlock(&r->lock);
            return;
        }
        struct pending p = r->pend[--r->npend];
        pthread_mutex_unlock(&r->lock);
        p.fn(p.ud, NULL, NULL);
    }
}

int acp_rpc_route(acp_rpc *r, json_t *msg)
{
    json_t *id = json_object_get(msg, "id");
    if (!json_is_integer(id))
        return -1; /* we only send integer ids */
    struct pending p;
    pthread_mutex_lock(&r->lock);
    int found = take_locked(r, (long)json_integer_value(id), &p);
    pthread_mutex_unlock(&r->lock);
    if (found != 0)
        return -1;
    json_t *err = json_object_get(msg, "error");
    json_t *res = json_object_get(msg, "result");
    p.fn(p.ud, err ? NULL : (res ? res : json_null()), err);
    return 0;
}

int acp_rpc_cancel(acp_rpc *r, long id)
{
    struct pending p;
    pthread_mutex_lock(&r->lock);
    int found = take_locked(r, id, &p);
    pthread_mutex_unlock(&r->lock);
    if (found != 0)
        return -1;
    p.fn(p.ud, NULL, NULL);
    return 0;
}

/* ---- waiting for an answer on another thread ---------------------------------------- */

void acp_wait_init(acp_wait *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->m, NULL);
    sem_init(&w->done, 0, 0);
}

void acp_wait_release(acp_wait *w)
{
    json_decref(w->result);
    json_decref(w->error);
    sem_destroy(&w->done);
    pthread_mutex_destroy(&w->m);
}

void acp_wait_reply(void *ud, json_t *result, json_t *error)
{
    acp_wait *w = ud;
    pthread_mutex_lock(&w->m);
    /* copies: the message is the main thread's, and a jansson value is not shared
     * between threads (its reference count is not read atomically) */
    w->result = result ? json_deep_copy(result) : NULL;
    w->error = error ? json_deep_copy(error) : NULL;
    pthread_mutex_unlock(&w->m);
    sem_post(&w->done); /* the last touch of w: the waiter may free it once woken */
}

void acp_wait_for(acp_wait *w)
{
    while (sem_wait(&w->done) != 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&w->m); /* (orders the reply's writes before the reads) */
    pthread_mutex_unlock(&w->m);
}
