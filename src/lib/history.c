/* history — the "Task history" part of include/hew.h: listing, showing, deleting,
 * exporting and importing the tasks hew keeps in its store (store/store.h), for front
 * ends. Each call opens the store (<data_dir>/hew.db, the rule of task/persist.c), does
 * one thing and closes it. Never prints or exits: errors are messages a user can act on. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "hew.h"
#include "lib/lib_store.h"
#include "store/store.h"

/* The error of a store call on task `id`, in words a user can act on. */
static void task_err(char *err, size_t errlen, const char *id, const hew_err *e)
{
    if (!err || !errlen)
        return;
    if (e->code == HEW_E_NOTFOUND)
        snprintf(err, errlen, "no task '%s' in the history (see `hew history`)", id);
    else if (e->code == HEW_E_INVALID && id && !*id)
        snprintf(err, errlen, "no task id given");
    else
        snprintf(err, errlen, "%s", e->msg);
}

/* A workspace as the tasks record it: the real path when it resolves. */
static char *workspace_key(const char *ws)
{
    char cwd[PATH_MAX];
    if (!ws)
        ws = getcwd(cwd, sizeof cwd);
    if (!ws)
        return NULL;
    char *real = realpath(ws, NULL);
    return real ? real : strdup(ws);
}

static json_t *task_to_json(const store_task *t)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "id", json_string(t->id ? t->id : ""));
    json_object_set_new(o, "title", json_string(t->title ? t->title : ""));
    json_object_set_new(o, "workspace", json_string(t->workspace ? t->workspace : ""));
    json_object_set_new(o, "created_ms", json_integer(t->created_ms));
    json_object_set_new(o, "updated_ms", json_integer(t->updated_ms));
    json_object_set_new(o, "status", json_string(t->status ? t->status : ""));
    json_object_set_new(o, "result", t->result ? json_string(t->result) : json_null());
    json_object_set_new(o, "provider", json_string(t->provider ? t->provider : ""));
    json_object_set_new(o, "model", json_string(t->model ? t->model : ""));
    json_object_set_new(o, "mode", json_string(t->mode ? t->mode : ""));
    json_object_set_new(o, "tokens_in", json_integer(t->tokens_in));
    json_object_set_new(o, "tokens_out", json_integer(t->tokens_out));
    json_object_set_new(o, "cache_reads", json_integer(t->cache_reads));
    json_object_set_new(o, "cache_writes", json_integer(t->cache_writes));
    json_object_set_new(o, "cost", json_real(t->cost));
    json_object_set_new(o, "requests", json_integer(t->requests));
    json_object_set_new(o, "messages", json_integer(t->api_count));
    return o;
}

/* Dump j (consumed) into *out: HEW_OK, or HEW_E_NOMEM with a message. */
static hew_code dump_to(json_t *j, char **out, char *err, size_t errlen)
{
    *out = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    if (!*out)
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    return HEW_OK;
}

hew_code hew_history_json(const hew_options *o, const char *search, const char *workspace,
                          int limit, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    store *s = NULL;
    hew_code rc = lib_open_store(o, &s, err, errlen);
    if (rc != HEW_OK)
        return rc;
    char *ws = workspace ? workspace_key(workspace) : NULL;
    store_query q = STORE_QUERY_INIT;
    q.text = search;
    q.workspace = ws;
    q.limit = limit > 0 ? (size_t)limit : 0;
    store_task *items = NULL;
    size_t n = 0;
    hew_err e = HEW_ERR_INIT;
    if ((rc = store_task_list(s, &q, &items, &n, &e)) != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
    } else {
        json_t *arr = json_array();
        bool searching = search && *search;
        for (size_t i = 0; arr && i < n; i++) {
            json_t *t = task_to_json(&items[i]);
            if (t && searching) {
                const store_task *m = &items[i];
                json_object_set_new(t, "snippet",
                                    m->snippet ? json_string(m->snippet) : json_null());
                json_object_set_new(t, "match_index", m->match_index >= 0
                                                          ? json_integer(m->match_index)
                                                          : json_null());
            }
            if (!t || json_array_append_new(arr, t) != 0) {
                json_decref(arr);
                arr = NULL;
            }
        }
        rc = dump_to(arr, out, err, errlen);
        store_task_list_free(items, n);
    }
    free(ws);
    store_free(s);
    return rc;
}

/* The store, for a call about task id: refused without an id. */
static hew_code open_store_for(const hew_options *o, const char *id, store **s, char *err,
                               size_t errlen)
{
    if (!id || !*id)
        return lib_fail(HEW_E_INVALID, err, errlen, "no task id given");
    return lib_open_store(o, s, err, errlen);
}

hew_code hew_history_task_json(const hew_options *o, const char *id, int with_events,
                               char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    store *s = NULL;
    hew_code rc = open_store_for(o, id, &s, err, errlen);
    if (rc != HEW_OK)
        return rc;
    hew_err e = HEW_ERR_INIT;
    if (with_events) {
        store_loaded l = STORE_LOADED_INIT;
        if ((rc = store_task_load(s, id, &l, &e)) != HEW_OK) {
            task_err(err, errlen, id, &e);
        } else {
            json_t *t = task_to_json(&l.task);
            if (t)
                json_object_set(t, "events", l.ui ? l.ui : json_array());
            rc = dump_to(t, out, err, errlen);
            store_loaded_release(&l);
        }
    } else {
        store_task t = STORE_TASK_INIT;
        if ((rc = store_task_get(s, id, &t, &e)) != HEW_OK) {
            task_err(err, errlen, id, &e);
        } else {
            rc = dump_to(task_to_json(&t), out, err, errlen);
            store_task_release(&t);
        }
    }
    store_free(s);
    return rc;
}

hew_code hew_history_delete(const hew_options *o, const char *id, char *err, size_t errlen)
{
    store *s = NULL;
    hew_code rc = open_store_for(o, id, &s, err, errlen);
    if (rc != HEW_OK)
        return rc;
    hew_err e = HEW_ERR_INIT;
    if ((rc = store_task_delete(s, id, &e)) != HEW_OK) {
        /* The store waits for the task's lock and gives up: another hew runs it. */
        if (rc == HEW_E_TIMEOUT) {
            rc = HEW_E_BUSY;
            if (err && errlen)
                snprintf(err, errlen, "task '%s' is running in a hew right now: stop it "
                                      "first (%s)", id, e.msg);
        } else {
            task_err(err, errlen, id, &e);
        }
    }
    store_free(s);
    return rc;
}

hew_code hew_history_export(const hew_options *o, const char *id, const char *dir, char *err,
                            size_t errlen)
{
    if (!dir || !*dir)
        return lib_fail(HEW_E_INVALID, err, errlen,
                        !id || !*id ? "no task id given" : "no directory given");
    store *s = NULL;
    hew_code rc = open_store_for(o, id, &s, err, errlen);
    if (rc != HEW_OK)
        return rc;
    hew_err e = HEW_ERR_INIT;
    if ((rc = store_task_export(s, id, dir, &e)) != HEW_OK)
        task_err(err, errlen, id, &e);
    store_free(s);
    return rc;
}

hew_code hew_history_import(const hew_options *o, const char *dir, const char *workspace,
                            char *id_out, size_t id_len, char *err, size_t errlen)
{
    if (!dir || !*dir)
        return lib_fail(HEW_E_INVALID, err, errlen, "no directory given");
    store *s = NULL;
    hew_code rc = lib_open_store(o, &s, err, errlen);
    if (rc != HEW_OK)
        return rc;
    char *ws = workspace ? workspace_key(workspace) : NULL;
    hew_err e = HEW_ERR_INIT;
    char *id = NULL;
    if ((rc = store_task_import(s, dir, ws, &id, &e)) != HEW_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot import %s: %s", dir, e.msg);
    } else if (id_out && id_len) {
        snprintf(id_out, id_len, "%s", id);
    }
    free(id);
    free(ws);
    store_free(s);
    return rc;
}

hew_code hew_history_latest(const hew_options *o, const char *workspace, char **out,
                            char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    char *ws = workspace_key(workspace ? workspace : (o ? o->cwd : NULL));
    if (!ws)
        return lib_fail(HEW_E_IO, err, errlen, "the workspace directory cannot be read");
    store *s = NULL;
    hew_code rc = lib_open_store(o, &s, err, errlen);
    if (rc != HEW_OK) {
        free(ws);
        return rc;
    }
    store_query q = STORE_QUERY_INIT;
    q.workspace = ws;
    q.limit = 1;
    store_task *items = NULL;
    size_t n = 0;
    hew_err e = HEW_ERR_INIT;
    if ((rc = store_task_list(s, &q, &items, &n, &e)) != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
    } else if (n == 0) {
        rc = HEW_E_NOTFOUND;
        if (err && errlen)
            snprintf(err, errlen, "no stored task in %s yet (see `hew history`)", ws);
    } else {
        *out = strdup(items[0].id);
        if (!*out)
            rc = lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    }
    store_task_list_free(items, n);
    free(ws);
    store_free(s);
    return rc;
}
