/* checkpoints — the "Checkpoints" part of include/hew.h: the checkpoints of a stored task
 * (its checkpoint_created messages, task/ckpt.c) listed, compared (checkpoint_diff) and
 * restored — the workspace's files (checkpoint_restore, which saves a safety checkpoint
 * first), the stored conversation (store_api_truncate / store_ui_truncate), or both. Each
 * call opens the store (<data_dir>/hew.db, as history.c), takes the task's lock where it
 * changes or compares something (so a task running in another hew is refused), does one
 * thing and closes everything. Never prints or exits: errors are messages a user can act
 * on. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checkpoint/checkpoint.h"
#include "hew.h"
#include "lib/lib_store.h"
#include "store/store.h"

/* Everything one call works with: the store, the task's lock (when taken), the loaded
 * task and its checkpoint_created messages. */
typedef struct ck_ctx {
    store *s;
    store_lock *lock;
    store_loaded l;
    json_t *list; /* array of {"n", "index", "kind", "hash", "ts", ["error"]} */
} ck_ctx;

static void ctx_close(ck_ctx *c)
{
    json_decref(c->list);
    store_loaded_release(&c->l);
    store_lock_free(c->lock);
    store_free(c->s);
}

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Open the store, lock the task when `lock`, load it and collect its checkpoints. */
static hew_code ctx_open(ck_ctx *c, const hew_options *o, const char *id, bool lock,
                         char *err, size_t errlen)
{
    *c = (ck_ctx){ NULL, NULL, STORE_LOADED_INIT, NULL };
    if (!id || !*id)
        return lib_fail(HEW_E_INVALID, err, errlen, "no task id given");
    hew_code rc = lib_open_store(o, &c->s, err, errlen);
    if (rc != HEW_OK)
        return rc;
    hew_err e = HEW_ERR_INIT;
    if (lock && (rc = store_task_lock(c->s, id, 0, &c->lock, &e)) != HEW_OK) {
        if (err && errlen) {
            if (e.code == HEW_E_NOTFOUND)
                snprintf(err, errlen, "no task '%s' in the history (see `hew history`)", id);
            else if (e.code == HEW_E_TIMEOUT)
                snprintf(err, errlen, "task '%s' is running in a hew right now: let it end or "
                                      "stop it first (%s)", id, e.msg);
            else
                snprintf(err, errlen, "%s", e.msg);
        }
        ctx_close(c);
        return rc == HEW_E_TIMEOUT ? HEW_E_BUSY : rc;
    }
    if ((rc = store_task_load(c->s, id, &c->l, &e)) != HEW_OK) {
        if (err && errlen) {
            if (e.code == HEW_E_NOTFOUND)
                snprintf(err, errlen, "no task '%s' in the history (see `hew history`)", id);
            else
                snprintf(err, errlen, "%s", e.msg);
        }
        ctx_close(c);
        return rc;
    }
    c->list = json_array();
    size_t i;
    json_t *ev;
    json_array_foreach(c->l.ui, i, ev) {
        if (!json_is_object(ev) || strcmp(jstr(ev, "type"), "checkpoint_created") != 0)
            continue;
        json_t *data = json_object_get(ev, "data");
        json_t *item = json_pack("{s:I,s:I,s:s,s:o,s:I}", "n",
                                 (json_int_t)json_array_size(c->list) + 1, "index",
                                 (json_int_t)i, "kind", jstr(data, "kind"), "hash",
                                 json_is_string(json_object_get(data, "hash"))
                                     ? json_string(jstr(data, "hash"))
                                     : json_null(),
                                 "ts", json_integer_value(json_object_get(ev, "ts")));
        if (item && json_is_string(json_object_get(data, "error")))
            json_object_set_new(item, "error", json_string(jstr(data, "error")));
        if (!item || json_array_append_new(c->list, item) != 0) {
            ctx_close(c);
            return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
        }
    }
    return HEW_OK;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool is_hash(const char *s)
{
    size_t n = strlen(s);
    if (n < 7 || n >= CHECKPOINT_HASH_MAX)
        return false;
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s))
            return false;
    return true;
}

/* The checkpoint `ref` names: a number of the list (1 = the first), or a commit hash (or
 * its first 7+ digits) — a listed checkpoint's, or any other of the shadow repository
 * such as a restore's safety checkpoint (then *item is NULL). *hash gets the hash to give
 * the checkpoint module. A code with the reason. */
static hew_code resolve(const ck_ctx *c, const char *ref, json_t **item, const char **hash,
                   char *err, size_t errlen)
{
    const char *id = c->l.task.id ? c->l.task.id : "";
    size_t n = json_array_size(c->list);
    *item = NULL;
    *hash = NULL;
    if (!ref || !*ref)
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "no checkpoint given (a number from `hew checkpoints ID`)");
    if (all_digits(ref) && strlen(ref) <= 6) {
        long v = strtol(ref, NULL, 10);
        if (n == 0) {
            if (err && errlen)
                snprintf(err, errlen, "task '%s' has no checkpoints (checkpoints were off, or "
                                      "it made no request)", id);
            return HEW_E_NOTFOUND;
        }
        if (v < 1 || (size_t)v > n) {
            if (err && errlen)
                snprintf(err, errlen, "task '%s' has checkpoints 1 to %zu; there is no %s "
                                      "(see `hew checkpoints %s`)", id, n, ref, id);
            return HEW_E_NOTFOUND;
        }
        *item = json_array_get(c->list, (size_t)v - 1);
        *hash = json_string_value(json_object_get(*item, "hash"));
        if (!*hash) {
            const char *why = jstr(*item, "error");
            if (err && errlen)
                snprintf(err, errlen, "checkpoint %s of task '%s' has no commit (%s)", ref, id,
                         *why ? why : "it was not finished when the task ended");
            *item = NULL;
            return HEW_E_NOTFOUND;
        }
        return HEW_OK;
    }
    if (!is_hash(ref)) {
        if (err && errlen)
            snprintf(err, errlen, "'%s' is not a checkpoint: give its number from `hew "
                                  "checkpoints %s` or a commit hash", ref, id);
        return HEW_E_INVALID;
    }
    size_t i;
    json_t *it;
    json_array_foreach(c->list, i, it) {
        const char *h = json_string_value(json_object_get(it, "hash"));
        if (h && strncmp(h, ref, strlen(ref)) == 0) {
            *item = it;
            *hash = h;
            return HEW_OK;
        }
    }
    *hash = ref;
    return HEW_OK;
}

/* Open the task's workspace's shadow repository into *out. */
static hew_code open_ckpt(const ck_ctx *c, const hew_options *o, checkpoint **out, char *err,
                          size_t errlen)
{
    *out = NULL;
    checkpoint_opts co;
    checkpoint_opts_default(&co);
    co.workspace = c->l.task.workspace;
    co.task_id = c->l.task.id;
    co.data_dir = o && o->data_dir && *o->data_dir ? o->data_dir : NULL;
    checkpoint *ck = NULL;
    hew_err e = HEW_ERR_INIT;
    if (!co.workspace || !*co.workspace)
        return lib_fail(HEW_E_NOTFOUND, err, errlen,
                        "the task has no recorded workspace, so it has no checkpoints");
    hew_code rc = checkpoint_open(&co, &ck, &e);
    if (rc != HEW_OK) {
        if (err && errlen)
            snprintf(err, errlen, "%s (workspace %s)", e.msg, co.workspace);
        return rc;
    }
    *out = ck;
    return HEW_OK;
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

hew_code hew_checkpoints_json(const hew_options *o, const char *task_id, char **out,
                              char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    ck_ctx c;
    hew_code rc = ctx_open(&c, o, task_id, false, err, errlen);
    if (rc != HEW_OK)
        return rc;
    rc = dump_to(json_incref(c.list), out, err, errlen);
    ctx_close(&c);
    return rc;
}

static json_t *paths_json(const checkpoint_paths *p)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < p->n; i++)
        json_array_append_new(a, json_string(p->v[i]));
    return a;
}

hew_code hew_checkpoint_diff(const hew_options *o, const char *task_id, const char *from,
                             const char *to, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    ck_ctx c;
    hew_code rc = ctx_open(&c, o, task_id, true, err, errlen);
    if (rc != HEW_OK)
        return rc;
    json_t *fi, *ti = NULL;
    const char *fh, *th = NULL;
    if ((rc = resolve(&c, from, &fi, &fh, err, errlen)) != HEW_OK ||
        (to && *to && (rc = resolve(&c, to, &ti, &th, err, errlen)) != HEW_OK)) {
        ctx_close(&c);
        return rc;
    }
    checkpoint *ck = NULL;
    rc = open_ckpt(&c, o, &ck, err, errlen);
    if (ck) {
        checkpoint_changes d = { 0 };
        hew_err e = HEW_ERR_INIT;
        if ((rc = checkpoint_diff(ck, fh, th, 0, &d, &e)) != HEW_OK) {
            lib_set_err(err, errlen, e.msg);
        } else {
            json_t *files = json_array();
            for (size_t i = 0; files && i < d.n; i++) {
                char st[2] = { d.files[i].status, '\0' };
                json_t *f = json_pack("{s:s,s:s}", "status", st, "path", d.files[i].path);
                if (f && d.files[i].old_path)
                    json_object_set_new(f, "old_path", json_string(d.files[i].old_path));
                json_array_append_new(files, f);
            }
            json_t *r = json_pack("{s:s,s:o,s:o,s:o,s:s,s:b}", "from", fh, "from_n",
                                  fi ? json_incref(json_object_get(fi, "n")) : json_null(),
                                  "to", th ? json_string(th) : json_null(), "to_n",
                                  ti ? json_incref(json_object_get(ti, "n")) : json_null(),
                                  "patch", d.patch ? d.patch : "", "truncated",
                                  d.patch_truncated);
            if (r)
                json_object_set_new(r, "files", files);
            else
                json_decref(files);
            rc = dump_to(r, out, err, errlen);
            checkpoint_changes_release(&d);
        }
        checkpoint_free(ck);
    }
    ctx_close(&c);
    return rc;
}

/* How many API messages the conversation had at checkpoint message `index` (the rule
 * documented in hew.h): request k (the k-th api_req_started message) sent the k-th user
 * message of the history. An initial checkpoint is made when request k has been sent and
 * before its answer: the history is kept through that user message. A later checkpoint
 * (turn, completion, ...) is made after the answer to request k and its tools: the history
 * is kept up to (not including) the next user message, which carried those tools' results
 * with the next request. */
static size_t api_count_at(const ck_ctx *c, size_t index, const char *kind)
{
    size_t k = 0;
    for (size_t i = 0; i < index && i < json_array_size(c->l.ui); i++)
        if (strcmp(jstr(json_array_get(c->l.ui, i), "type"), "api_req_started") == 0)
            k++;
    size_t len = json_array_size(c->l.history);
    if (k == 0)
        return 0;
    size_t users = 0, i;
    for (i = 0; i < len; i++) {
        if (strcmp(jstr(json_array_get(c->l.history, i), "role"), "user") != 0)
            continue;
        if (users == k) /* the next request's message */
            return i;
        if (++users == k && (strcmp(kind, "initial") == 0 || strcmp(kind, "resumed") == 0))
            return i + 1;
    }
    return len;
}

/* Cut the stored conversation back to checkpoint `item`; fill *report. */
static hew_code restore_task(ck_ctx *c, const json_t *item, json_t *report, char *err,
                             size_t errlen)
{
    const char *id = c->l.task.id;
    size_t index = (size_t)json_integer_value(json_object_get(item, "index"));
    size_t api_before = json_array_size(c->l.history);
    size_t ui_before = json_array_size(c->l.ui);
    size_t api_after = api_count_at(c, index, jstr(item, "kind"));
    double cost = 0;
    size_t reqs = 0;
    for (size_t i = index + 1; i < ui_before; i++) {
        json_t *ev = json_array_get(c->l.ui, i);
        if (strcmp(jstr(ev, "type"), "api_req_started") != 0)
            continue;
        reqs++;
        cost += json_number_value(json_object_get(json_object_get(ev, "data"), "cost"));
    }
    hew_err e = HEW_ERR_INIT;
    hew_code rc;
    if ((rc = store_ui_truncate(c->s, id, index + 1, &e)) != HEW_OK ||
        (rc = store_api_truncate(c->s, id, api_after, &e)) != HEW_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot cut the stored conversation of task '%s': %s", id,
                     e.msg);
        return rc;
    }
    if (c->l.task.has_deleted && (size_t)c->l.task.deleted_end >= api_after) {
        /* the context's deleted range named messages that are gone: start afresh */
        store_task t = c->l.task;
        t.has_deleted = false;
        t.deleted_start = t.deleted_end = 0;
        store_task_update(c->s, &t, STORE_SET_DELETED, &e);
    }
    json_object_set_new(report, "task",
                        json_pack("{s:I,s:I,s:I,s:I,s:f}", "api_messages_before",
                                  (json_int_t)api_before, "api_messages_after",
                                  (json_int_t)api_after, "ui_messages_removed",
                                  (json_int_t)(ui_before > index + 1 ? ui_before - index - 1 : 0),
                                  "requests_removed", (json_int_t)reqs, "cost_removed", cost));
    return HEW_OK;
}

hew_code hew_checkpoint_restore(const hew_options *o, const char *task_id,
                                const char *target, const char *mode, char **out,
                                char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    if (!mode || !*mode)
        mode = "files";
    bool files = strcmp(mode, "files") == 0 || strcmp(mode, "both") == 0;
    bool task = strcmp(mode, "task") == 0 || strcmp(mode, "both") == 0;
    if (!files && !task) {
        if (err && errlen)
            snprintf(err, errlen, "restore '%s'? say files, task or both", mode);
        return HEW_E_INVALID;
    }
    ck_ctx c;
    hew_code rc = ctx_open(&c, o, task_id, true, err, errlen);
    if (rc != HEW_OK)
        return rc;
    json_t *item;
    const char *hash;
    if ((rc = resolve(&c, target, &item, &hash, err, errlen)) != HEW_OK) {
        ctx_close(&c);
        return rc;
    }
    if (task && !item) {
        if (err && errlen)
            snprintf(err, errlen, "%s is not a checkpoint of task '%s' (a restore's safety "
                                  "checkpoint?): only its files can be restored to it (say "
                                  "files)", target, task_id);
        ctx_close(&c);
        return HEW_E_INVALID;
    }
    json_t *report = json_pack("{s:s,s:o,s:s}", "mode", mode, "n",
                               item ? json_incref(json_object_get(item, "n")) : json_null(),
                               "target", hash);
    if (!report)
        rc = lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    if (rc == HEW_OK && files) {
        checkpoint *ck = NULL;
        rc = open_ckpt(&c, o, &ck, err, errlen);
        if (ck) {
            checkpoint_restore_result r = { 0 };
            hew_err e = HEW_ERR_INIT;
            if ((rc = checkpoint_restore(ck, hash, &r, &e)) != HEW_OK) {
                if (err && errlen) {
                    if (r.safety[0])
                        snprintf(err, errlen, "%s — the files may be partly restored: `hew "
                                              "restore %s %s files` puts them back", e.msg,
                                 task_id, r.safety);
                    else
                        snprintf(err, errlen, "%s", e.msg);
                }
            } else {
                json_object_set_new(report, "target", json_string(r.target));
                json_object_set_new(
                    report, "files",
                    json_pack("{s:s,s:s,s:o,s:o,s:o}", "safety", r.safety, "restored",
                              r.restored, "written", paths_json(&r.written), "deleted",
                              paths_json(&r.deleted), "kept", paths_json(&r.kept)));
            }
            checkpoint_restore_result_release(&r);
            checkpoint_free(ck);
        }
    }
    if (rc == HEW_OK && task) {
        rc = restore_task(&c, item, report, err, errlen);
        if (rc != HEW_OK && files && err && errlen) {
            const char *safety = jstr(json_object_get(report, "files"), "safety");
            size_t used = strlen(err);
            if (used + 1 < errlen)
                snprintf(err + used, errlen - used, " (the files were restored; `hew restore "
                                                    "%s %s files` undoes that)", task_id, safety);
        }
    }
    if (rc == HEW_OK)
        rc = dump_to(json_incref(report), out, err, errlen);
    json_decref(report);
    ctx_close(&c);
    return rc;
}
