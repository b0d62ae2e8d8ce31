/* store/cline — export a stored task to Cline's on-disk task layout and import one from
 * it (see store.h). Files are written atomically; an import is one transaction. It must
 * never trust the files it reads: sizes are capped, every value is type-checked, and a
 * malformed directory is refused whole, never half-imported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "sys/clock.h"
#include "sys/path.h"
#include "store/jload.h"
#include "store/fts.h"
#include "store/store_internal.h"

#define CLINE_FILE_MAX ((size_t)1 << 30)

static const char F_API[] = "api_conversation_history.json";
static const char F_UI[] = "ui_messages.json";
static const char F_UI_LEGACY[] = "claude_messages.json";
static const char F_META[] = "task_metadata.json";

/* Say/ask types whose Cline text is a JSON object (hew keeps it as data). */
static const char *const json_text_types[] = {
    "api_req_started", "deleted_api_reqs", "tool",          "followup", "plan_mode_respond",
    "error_retry",     "use_mcp_server",   "browser_action", "command_permission_denied",
};

static bool is_json_text_type(const char *t)
{
    for (size_t i = 0; t && i < sizeof json_text_types / sizeof json_text_types[0]; i++)
        if (strcmp(t, json_text_types[i]) == 0)
            return true;
    return false;
}

/* ---- export ------------------------------------------------------------------------------- */

static json_t *task_to_json(const store_task *t)
{
    json_t *del = t->has_deleted ? json_pack("[I, I]", (json_int_t)t->deleted_start,
                                             (json_int_t)t->deleted_end)
                                 : json_null();
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s?, s:I, s:I, s:I, s:I, s:I, s:I, "
                     "s:f, s:I, s:o}",
                     "id", t->id ? t->id : "", "workspace", t->workspace ? t->workspace : "",
                     "title", t->title ? t->title : "", "provider",
                     t->provider ? t->provider : "", "model", t->model ? t->model : "", "mode",
                     t->mode ? t->mode : "act", "status", t->status ? t->status : "running",
                     "result", t->result, "created_ms", (json_int_t)t->created_ms, "updated_ms",
                     (json_int_t)t->updated_ms, "tokens_in", (json_int_t)t->tokens_in,
                     "tokens_out", (json_int_t)t->tokens_out, "cache_reads",
                     (json_int_t)t->cache_reads, "cache_writes", (json_int_t)t->cache_writes,
                     "cost", t->cost, "requests", (json_int_t)t->requests, "deleted", del);
}

/* A hew event as a ClineMessage, with the event itself under "hew_event". */
static json_t *event_to_cline(json_t *ev, const store_task *t, bool last)
{
    const char *kind = json_string_value(json_object_get(ev, "kind"));
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *m = json_object();
    if (!m)
        return NULL;
    hew_code st = HEW_OK;
    json_obj_put(m, "ts", json_integer(json_integer_value(json_object_get(ev, "ts"))), &st);
    bool ask = kind && strcmp(kind, "ask") == 0;
    json_obj_put(m, "type", json_string(ask ? "ask" : "say"), &st);
    json_obj_put(m, ask ? "ask" : "say", json_string(type ? type : ""), &st);
    json_t *text = json_object_get(ev, "text");
    json_t *data = json_object_get(ev, "data");
    if (json_is_string(text)) {
        json_obj_put(m, "text", json_incref(text), &st);
    } else if (json_is_object(data)) {
        char *d = json_dumps(data, JSON_COMPACT);
        json_obj_put(m, "text", d ? json_string(d) : NULL, &st);
        free(d);
    }
    if (json_is_true(json_object_get(ev, "partial")))
        json_obj_put(m, "partial", json_true(), &st);
    if (last && t->has_deleted)
        json_obj_put(m, "conversationHistoryDeletedRange",
                     json_pack("[I, I]", (json_int_t)t->deleted_start, (json_int_t)t->deleted_end),
                     &st);
    json_obj_put(m, "hew_event", json_incref(ev), &st);
    if (st != HEW_OK) {
        json_decref(m);
        return NULL;
    }
    return m;
}

static hew_code write_json(const char *dir, const char *name, const json_t *v, hew_err *err)
{
    char *p = path_join(dir, name);
    buf b = BUF_INIT(0);
    json_dump_into(v, &b, 0);
    hew_code rc = p ? buf_check(&b, name, err) : hew_err_set(err, HEW_E_NOMEM, "out of memory");
    if (rc == HEW_OK)
        rc = fs_write_atomic(p, b.data ? b.data : "", b.len, 0600, err);
    buf_release(&b);
    free(p);
    return rc;
}

hew_code store_task_export(store *s, const char *id, const char *dir, hew_err *err)
{
    store_loaded l;
    hew_code rc = store_task_load(s, id, &l, err);
    if (rc != HEW_OK)
        return rc;
    json_t *ui = json_array(), *meta = NULL;
    hew_code st = HEW_OK;
    size_t n = json_array_size(l.ui), lastv = 0;
    for (size_t i = 0; i < n; i++)
        if (json_is_object(json_array_get(l.ui, i)))
            lastv = i;
    for (size_t i = 0; i < n; i++) {
        json_t *ev = json_array_get(l.ui, i);
        if (json_is_object(ev))
            json_arr_push(ui, event_to_cline(ev, &l.task, i == lastv), &st);
    }
    json_t *usage = json_pack("[{s:I, s:s, s:s, s:s}]", "ts", (json_int_t)l.task.created_ms,
                              "model_id", l.task.model ? l.task.model : "", "model_provider_id",
                              l.task.provider ? l.task.provider : "", "mode",
                              l.task.mode ? l.task.mode : "act");
    meta = json_pack("{s:[], s:o, s:[], s:o, s:O}", "files_in_context", "model_usage", usage,
                     "environment_history", "hew_task", task_to_json(&l.task),
                     "hew_context_rewrites", l.rewrites);
    if (st != HEW_OK || !ui || !meta) {
        rc = hew_err_set(err, HEW_E_NOMEM, "exporting task %s: out of memory", id);
        goto out;
    }
    if ((rc = fs_mkdirs(dir, 0700, err)) != HEW_OK ||
        (rc = write_json(dir, F_API, l.history, err)) != HEW_OK ||
        (rc = write_json(dir, F_UI, ui, err)) != HEW_OK ||
        (rc = write_json(dir, F_META, meta, err)) != HEW_OK)
        hew_err_wrap(err, "exporting task %s to %s", id, dir);
out:
    json_decref(ui);
    json_decref(meta);
    store_loaded_release(&l);
    return rc;
}

/* ---- import ------------------------------------------------------------------------------- */

/* Read and parse dir/name; *out NULL (and HEW_OK) when optional and missing. */
static hew_code read_json(const char *dir, const char *name, bool optional, json_t **out,
                          hew_err *err)
{
    *out = NULL;
    char *p = path_join(dir, name);
    if (!p)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    char *data = NULL;
    size_t len = 0;
    hew_code rc = fs_read_file(p, CLINE_FILE_MAX, &data, &len, err);
    if (rc == HEW_E_NOTFOUND && optional) {
        hew_err_clear(err);
        free(p);
        return HEW_OK;
    }
    if (rc == HEW_OK && !(*out = jload_parse(data, len, p, err)))
        rc = err ? err->code : HEW_E_INVALID;
    free(data);
    free(p);
    return rc;
}

/* A ClineMessage as a hew event (index i); NULL when it is not an object. */
static json_t *cline_to_event(const json_t *m, size_t i)
{
    if (!json_is_object(m))
        return NULL;
    json_t *hev = json_object_get(m, "hew_event");
    if (json_is_object(hev)) {
        json_t *ev = json_deep_copy(hev);
        if (ev && !json_is_integer(json_object_get(ev, "index")))
            json_object_set_new(ev, "index", json_integer((json_int_t)i));
        return ev;
    }
    const char *type = json_string_value(json_object_get(m, "type"));
    bool ask = type && strcmp(type, "ask") == 0;
    const char *sub = json_string_value(json_object_get(m, ask ? "ask" : "say"));
    const char *text = json_string_value(json_object_get(m, "text"));
    json_t *data = NULL;
    if (text && is_json_text_type(sub)) {
        data = json_loads(text, 0, NULL);
        if (!json_is_object(data)) {
            json_decref(data);
            data = NULL;
        }
    }
    json_t *ev = json_object();
    hew_code st = HEW_OK;
    json_obj_put(ev, "v", json_integer(2), &st); /* events schema (docs/events.md) */
    json_obj_put(ev, "index", json_integer((json_int_t)i), &st);
    json_obj_put(ev, "ts", json_integer(json_integer_value(json_object_get(m, "ts"))), &st);
    json_obj_put(ev, "kind", json_string(ask ? "ask" : "say"), &st);
    json_obj_put(ev, "type", json_string(sub ? sub : "text"), &st);
    json_obj_put(ev, "partial", json_boolean(json_is_true(json_object_get(m, "partial"))), &st);
    if (data)
        json_obj_put(ev, "data", data, &st);
    else if (text)
        json_obj_put(ev, "text", json_string(text), &st);
    if (st != HEW_OK) {
        json_decref(ev);
        return NULL;
    }
    return ev;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int64_t jint(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? (int64_t)json_number_value(v) : 0;
}

/* The row from a hew export's hew_task. */
static void row_from_hew(const json_t *h, store_task *t)
{
    t->workspace = dup_or_null(json_string_value(json_object_get(h, "workspace")));
    t->title = dup_or_null(json_string_value(json_object_get(h, "title")));
    t->provider = dup_or_null(json_string_value(json_object_get(h, "provider")));
    t->model = dup_or_null(json_string_value(json_object_get(h, "model")));
    t->mode = dup_or_null(json_string_value(json_object_get(h, "mode")));
    t->status = dup_or_null(json_string_value(json_object_get(h, "status")));
    t->result = dup_or_null(json_string_value(json_object_get(h, "result")));
    t->created_ms = jint(h, "created_ms");
    t->updated_ms = jint(h, "updated_ms");
    t->tokens_in = jint(h, "tokens_in");
    t->tokens_out = jint(h, "tokens_out");
    t->cache_reads = jint(h, "cache_reads");
    t->cache_writes = jint(h, "cache_writes");
    t->cost = json_number_value(json_object_get(h, "cost"));
    t->requests = jint(h, "requests");
    json_t *d = json_object_get(h, "deleted");
    if (json_is_array(d) && json_array_size(d) == 2) {
        t->has_deleted = true;
        t->deleted_start = json_integer_value(json_array_get(d, 0));
        t->deleted_end = json_integer_value(json_array_get(d, 1));
    }
}

/* The row derived from Cline's files. */
static void row_from_cline(const json_t *history, const json_t *ui, const json_t *meta,
                           store_task *t)
{
    size_t i;
    json_t *m;
    bool completed = false;
    json_array_foreach(ui, i, m) {
        const char *say = json_string_value(json_object_get(m, "say"));
        const char *text = json_string_value(json_object_get(m, "text"));
        int64_t ts = jint(m, "ts");
        if (ts && (!t->created_ms || ts < t->created_ms))
            t->created_ms = ts;
        if (ts > t->updated_ms)
            t->updated_ms = ts;
        if (!say)
            continue;
        if (strcmp(say, "task") == 0 && text && !t->title)
            t->title = strdup(text);
        if (strcmp(say, "completion_result") == 0) {
            completed = true;
            free(t->result);
            t->result = dup_or_null(text);
        }
        if (strcmp(say, "api_req_started") == 0)
            t->requests++;
        if (strcmp(say, "api_req_started") == 0 && text) {
            json_t *info = json_loads(text, 0, NULL);
            t->tokens_in += jint(info, "tokensIn");
            t->tokens_out += jint(info, "tokensOut");
            t->cache_reads += jint(info, "cacheReads");
            t->cache_writes += jint(info, "cacheWrites");
            t->cost += json_number_value(json_object_get(info, "cost"));
            json_decref(info);
        }
        json_t *d = json_object_get(m, "conversationHistoryDeletedRange");
        if (json_is_array(d) && json_array_size(d) == 2) {
            t->has_deleted = true;
            t->deleted_start = json_integer_value(json_array_get(d, 0));
            t->deleted_end = json_integer_value(json_array_get(d, 1));
        }
    }
    if (!t->title) {
        json_t *blocks = json_object_get(json_array_get(history, 0), "content");
        if (json_is_string(blocks))
            t->title = strdup(json_string_value(blocks));
        else
            t->title = dup_or_null(
                json_string_value(json_object_get(json_array_get(blocks, 0), "text")));
    }
    json_t *usage = json_object_get(meta, "model_usage");
    json_t *last = json_array_get(usage, json_array_size(usage) ? json_array_size(usage) - 1 : 0);
    t->model = dup_or_null(json_string_value(json_object_get(last, "model_id")));
    t->provider = dup_or_null(json_string_value(json_object_get(last, "model_provider_id")));
    t->mode = dup_or_null(json_string_value(json_object_get(last, "mode")));
    t->status = strdup(completed ? "completed" : "imported");
}

static hew_code pick_id(store *s, const char *dir, const json_t *hew_task,
                        char id[STORE_ID_MAX + 1], hew_err *err)
{
    char *norm = path_normalize(dir);
    if (!norm)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    const char *base = strrchr(norm, '/');
    base = base ? base + 1 : norm;
    const char *cands[2] = { json_string_value(json_object_get(hew_task, "id")), base };
    hew_code rc = HEW_OK;
    for (int i = 0; i < 2; i++) {
        if (!cands[i] || store_check_id(cands[i], NULL) != HEW_OK)
            continue;
        bool taken = false;
        sqlite3_stmt *st = st_get(s, ST_ID_TAKEN, err);
        if (!st) {
            rc = err ? err->code : HEW_E_IO;
            break;
        }
        st_bind_text(st, 1, cands[i], true);
        int src = sqlite3_step(st);
        st_done(st);
        if (src != SQLITE_ROW && src != SQLITE_DONE) {
            rc = st_err(s, src, "checking a task id", err);
            break;
        }
        taken = src == SQLITE_ROW;
        if (!taken) {
            snprintf(id, STORE_ID_MAX + 1, "%s", cands[i]);
            free(norm);
            return HEW_OK;
        }
    }
    free(norm);
    return rc != HEW_OK ? rc : store_new_id(s, id, err);
}

static hew_code put_row(store *s, store_stmt which, sqlite3_int64 tid, sqlite3_int64 n,
                        const json_t *v, buf *b, hew_err *err)
{
    buf_reset(b);
    json_dump_into(v, b, 0);
    hew_code rc = buf_check(b, "imported message", err);
    if (rc != HEW_OK)
        return rc;
    sqlite3_stmt *st = st_get(s, which, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, n);
    sqlite3_bind_text(st, 3, b->data ? b->data : "", (int)b->len, SQLITE_STATIC);
    int src = sqlite3_step(st);
    st_done(st);
    return src == SQLITE_DONE ? HEW_OK : st_err(s, src, "importing a message", err);
}

static hew_code put_rewrite(store *s, sqlite3_int64 tid, const json_t *rw, hew_err *err)
{
    json_t *msg = json_object_get(rw, "msg"), *block = json_object_get(rw, "block");
    const char *text = json_string_value(json_object_get(rw, "text"));
    if (!json_is_integer(msg) || !json_is_integer(block) || !text ||
        json_integer_value(msg) < 0 || json_integer_value(block) < 0)
        return hew_err_set(err, HEW_E_INVALID, "a context rewrite is not {msg, block, text}");
    sqlite3_stmt *st = st_get(s, ST_RW_ADD, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, json_integer_value(msg));
    sqlite3_bind_int64(st, 3, json_integer_value(block));
    sqlite3_bind_int64(st, 4, clock_wall_ms());
    sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
    int src = sqlite3_step(st);
    st_done(st);
    return src == SQLITE_DONE ? HEW_OK : st_err(s, src, "importing a context rewrite", err);
}

hew_code store_task_import(store *s, const char *dir, const char *workspace, char **id_out,
                           hew_err *err)
{
    if (id_out)
        *id_out = NULL;
    json_t *history = NULL, *ui = NULL, *meta = NULL, *events = NULL;
    store_task row = STORE_TASK_INIT;
    buf b = BUF_INIT(0);
    hew_code rc;
    if ((rc = read_json(dir, F_API, false, &history, err)) != HEW_OK ||
        (rc = read_json(dir, F_UI, true, &ui, err)) != HEW_OK ||
        (!ui && (rc = read_json(dir, F_UI_LEGACY, true, &ui, err)) != HEW_OK) ||
        (rc = read_json(dir, F_META, true, &meta, err)) != HEW_OK)
        goto out;
    if (!json_is_array(history) || (ui && !json_is_array(ui)) || (meta && !json_is_object(meta))) {
        rc = hew_err_set(err, HEW_E_INVALID,
                         "%s: not a task directory (%s must be an array, %s an array, %s an "
                         "object)",
                         dir, F_API, F_UI, F_META);
        goto out;
    }
    size_t i;
    json_t *m;
    json_array_foreach(history, i, m) {
        const char *role = json_string_value(json_object_get(m, "role"));
        if (!role || (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0)) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s/%s: message %zu has no role user/assistant",
                             dir, F_API, i);
            goto out;
        }
    }
    events = json_array();
    json_array_foreach(ui, i, m) {
        json_t *ev = cline_to_event(m, i);
        if (!ev || json_array_append_new(events, ev) != 0) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s/%s: message %zu is not a ClineMessage", dir,
                             F_UI, i);
            goto out;
        }
    }
    json_t *hew_task = json_object_get(meta, "hew_task");
    if (json_is_object(hew_task))
        row_from_hew(hew_task, &row);
    else
        row_from_cline(history, ui, meta, &row);
    if (workspace) {
        free(row.workspace);
        row.workspace = strdup(workspace);
    }
    json_t *rewrites = json_object_get(meta, "hew_context_rewrites");

    if ((rc = store_flush_held(s, err)) != HEW_OK || (rc = tx_begin(s, true, err)) != HEW_OK)
        goto out;
    char id[STORE_ID_MAX + 1];
    if ((rc = pick_id(s, dir, hew_task, id, err)) != HEW_OK ||
        (rc = store_insert_task(s, &row, id, err)) != HEW_OK)
        goto fail;
    sqlite3_int64 tid = sqlite3_last_insert_rowid(s->db);
    json_array_foreach(history, i, m)
        if ((rc = put_row(s, ST_API_PUT, tid, (sqlite3_int64)i, m, &b, err)) != HEW_OK)
            goto fail;
    json_array_foreach(events, i, m) {
        json_t *idx = json_object_get(m, "index");
        sqlite3_int64 at = json_is_integer(idx) && json_integer_value(idx) >= 0
                               ? json_integer_value(idx)
                               : (sqlite3_int64)i;
        if ((rc = put_row(s, ST_UI_PUT, tid, at, m, &b, err)) != HEW_OK ||
            (rc = fts_index(s, tid, (long)at, b.data ? b.data : "", b.len, err)) != HEW_OK)
            goto fail;
    }
    json_array_foreach(rewrites, i, m)
        if ((rc = put_rewrite(s, tid, m, err)) != HEW_OK)
            goto fail;
    if ((rc = tx_commit(s, err)) != HEW_OK)
        goto out;
    if (id_out && !(*id_out = strdup(id)))
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
    goto out;
fail:
    tx_rollback(s);
    hew_err_wrap(err, "importing %s", dir);
out:
    json_decref(history);
    json_decref(ui);
    json_decref(meta);
    json_decref(events);
    store_task_release(&row);
    buf_release(&b);
    return rc;
}
