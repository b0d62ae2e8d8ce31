/* persist — the task's conversation kept in the store as it is made (issue #7: nothing is
 * ever lost): the task row when the task starts, every API message as it joins the
 * history, every say/ask as it is made — a sibling consumer of the message beside the
 * front end, working with or without one (a growing message is written at most once per
 * store interval, its latest version before anything else is written: whole the first
 * time, then by what was appended since, store_ui_append, so a write costs the append,
 * not the length; whole again when it is final), the usage totals, the deleted range and
 * the status as they change; and the
 * way back: a stored task turned into loop state for resume. A store that cannot be
 * opened turns persistence off with one note; it never stops the task. Task thread only:
 * the connection belongs to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/utf8.h"
#include "store/store.h"
#include "task/task.h"

#define TASK_LOCK_WAIT_MS 2000 /* how long a task waits for its lock (see task_persist_open) */

/* The store failed: persistence is off, and the note why waits in store_err for
 * task_persist_take_note (this file says nothing: it sits below the files that say). */
static void persistence_off(hew_task *t, const char *why)
{
    store_lock_free(t->persist.lock);
    t->persist.lock = NULL;
    store_free(t->persist.store);
    t->persist.store = NULL;
    hew_err_set(&t->persist.err, HEW_E_IO, "%s", why);
}

hew_code task_persist_open(hew_task *t, const char *resume_id)
{
    if (!t->settings->persist)
        return HEW_OK;
    hew_err err = HEW_ERR_INIT;
    char *path = store_path_in(t->settings->data_dir, &err);
    store_options so = STORE_OPTIONS_INIT;
    so.path = path;
    hew_code rc = path ? store_open(&so, &t->persist.store, &err) : err.code;
    char *slash = rc == HEW_OK ? strrchr(path, '/') : NULL;
    if (slash) { /* a long answer waits on disk beside the store (api_turn_spill_to) */
        *slash = '\0';
        free(t->stream.spill_dir);
        t->stream.spill_dir = path;
        path = NULL;
    }
    free(path);
    if (rc != HEW_OK)
        return hew_err_set(&t->persist.err, rc, "%s", err.msg);
    if (!resume_id) {
        store_task init = STORE_TASK_INIT;
        init.workspace = t->settings->cwd;
        init.title = t->task_text;
        init.provider = t->settings->provider;
        init.model = t->session->provider.model;
        char mode[8]; /* the row's strings are not const */
        snprintf(mode, sizeof mode, "%s", mode_name(task_mode_get(t)));
        init.mode = mode;
        char *id = NULL;
        init.id = t->task_id; /* the id hew_task_id already gave out */
        rc = store_task_create(t->persist.store, &init, &id, &err);
        if (rc == HEW_E_INVALID) { /* taken (two tasks in the same millisecond) */
            init.id = NULL;
            rc = store_task_create(t->persist.store, &init, &id, &err);
        }
        if (rc == HEW_OK) {
            /* the id given out stays, but for a clash with another process's task in the
             * same millisecond (the only write after hew_task_start returned) */
            if (strcmp(t->task_id, id) != 0) {
                pthread_mutex_lock(&t->mu);
                snprintf(t->task_id, sizeof t->task_id, "%s", id);
                pthread_mutex_unlock(&t->mu);
            }
            free(id);
        }
    } /* a resumed task's id is its own from the start (task_api.c) */
    /* A short grace: a child another session of this process is starting holds a copy of
     * every descriptor, the lock's included, from its fork until its exec (a sandboxed
     * child sets up Landlock in between), and flock locks follow the copy. */
    if (rc == HEW_OK)
        rc = store_task_lock(t->persist.store, t->task_id, TASK_LOCK_WAIT_MS,
                             &t->persist.lock, &err);
    if (rc != HEW_OK) {
        hew_err_set(&t->persist.err, rc, "%s", err.msg);
        store_free(t->persist.store);
        t->persist.store = NULL;
    }
    return rc;
}

bool task_persist_take_note(hew_task *t, char *out, size_t cap)
{
    bool note = t->persist.err.code != HEW_OK && !t->persist.store;
    if (note)
        snprintf(out, cap, "This task is not being saved: %s", t->persist.err.msg);
    hew_err_clear(&t->persist.err);
    return note;
}

bool task_persist_stored_row(hew_task *t, store_task *row)
{
    return t->persist.store && store_task_get(t->persist.store, t->task_id, row, NULL) == HEW_OK;
}

/* Write message index whole; partial = false: commit now (store_ui_put's flag). */
static void write_ui(hew_task *t, long index, const char *json, size_t len, bool hold)
{
    hew_err err = HEW_ERR_INIT;
    if (store_ui_put(t->persist.store, t->task_id, index, json, len, hold, &err) != HEW_OK)
        persistence_off(t, err.msg);
}

static void write_ui_built(hew_task *t, long index, bool hold)
{
    if (!task_persist_restore(t, index))
        return; /* a spilled text the store could not give back: its stored form stays */
    buf *line = &t->persist.line;
    buf_reset(line);
    uimsg_to_json(&t->ui, (size_t)index, line);
    if (line->err) {
        persistence_off(t, "out of memory");
        return;
    }
    write_ui(t, index, line->data, line->len, hold);
    if (line->cap > ((size_t)1 << 20)) /* no copy of a long text kept between writes */
        buf_release(line);
}

/* A final text at least this long is let go once the store holds it (uimsg_text_spill). */
#define SPILL_MIN ((size_t)256 << 10)

bool task_persist_restore(hew_task *t, long index)
{
    if (index < 0 || !uimsg_is_spilled(&t->ui, (size_t)index))
        return true;
    buf text = BUF_INIT(0);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = t->persist.store ? store_ui_text(t->persist.store, t->task_id, index, &text,
                                                   &err)
                                   : hew_err_set(&err, HEW_E_STATE, "the store is closed");
    if (rc == HEW_OK)
        uimsg_text_restore(&t->ui, (size_t)index, &text);
    else
        hew_log(HEW_LOG_WARN, "persist", "message %ld's text could not be read back: %s", index,
                err.msg);
    buf_release(&text);
    return rc == HEW_OK;
}

void task_persist_let_go(hew_task *t, long index)
{
    if (!t->persist.store || t->persist.exact != index || index < 0 ||
        (size_t)index >= t->ui.len)
        return;
    const uimsg *m = &t->ui.items[index];
    if (!m->partial && m->has_text && !m->data && m->text.len >= SPILL_MIN)
        uimsg_text_spill(&t->ui, (size_t)index);
}

/* How much of message m's text the store has as it is now: text[0..from), below every
 * change since its last write (the events' offsets, and what no event has said yet). */
static size_t stored_from(const hew_task *t, const uimsg *m)
{
    size_t from = t->persist.from;
    if (m->dirty < from)
        from = m->dirty;
    if (t->persist.stored < from)
        from = t->persist.stored;
    return m->text.len < from ? m->text.len : from;
}

/* Write partial message index: by an append when the store holds an earlier version of
 * it that only its text has grown from (persist_append), else whole (and from then on by
 * appends, when it is a text without data). A text that is not UTF-8 (the whole form
 * shows its bad bytes as U+FFFD, so the store's text would not be this one) is written
 * whole every time. hold: store_ui_put's partial flag for a whole write; an append is
 * always committed at once. */
static void write_partial(hew_task *t, long index, bool hold)
{
    const uimsg *m = &t->ui.items[index];
    bool text_only = m->has_text && !m->data;
    size_t len = m->text.len;
    const char *text = m->text.data ? m->text.data : "";
    size_t from = stored_from(t, m);
    if (t->persist.append == index && text_only &&
        utf8_validate(text + from, len - from, NULL)) {
        if (from == len && t->persist.stored == len)
            return; /* nothing new */
        hew_err err = HEW_ERR_INIT;
        if (store_ui_append(t->persist.store, t->task_id, index, from, text + from, len - from,
                            &err) != HEW_OK) {
            persistence_off(t, err.msg);
            return;
        }
        t->persist.stored = t->persist.from = len;
        return;
    }
    write_ui_built(t, index, hold);
    t->persist.append = t->persist.store && text_only && utf8_validate(text, len, NULL) ? index : -1;
    t->persist.stored = t->persist.from = len;
}

/* Final message index, when the store holds an earlier version that only its text has
 * grown from: finished by what was appended since (store_ui_finish), so that a long text
 * is never built whole for the store. false: not that case (nothing written). */
static bool finish_by_append(hew_task *t, long index)
{
    const uimsg *m = &t->ui.items[index];
    if (t->persist.append != index || !m->has_text || m->data)
        return false;
    size_t len = m->text.len;
    const char *text = m->text.data ? m->text.data : "";
    size_t from = stored_from(t, m);
    if (!utf8_validate(text + from, len - from, NULL))
        return false;
    hew_err err = HEW_ERR_INIT;
    if (store_ui_finish(t->persist.store, t->task_id, index, from, text + from, len - from,
                        &err) != HEW_OK) {
        persistence_off(t, err.msg);
        return true;
    }
    t->persist.stored = t->persist.from = len;
    t->persist.exact = index; /* the store holds this text byte for byte */
    return true;
}

void task_persist_flush(hew_task *t)
{
    long i = t->persist.pending;
    t->persist.pending = -1;
    if (t->persist.store && i >= 0 && (size_t)i < t->ui.len)
        write_partial(t, i, false);
}

void task_persist_ui(hew_task *t, long index, size_t from)
{
    if (!t->persist.store || index < 0 || (size_t)index >= t->ui.len)
        return;
    if (t->persist.exact == index)
        t->persist.exact = -1; /* changed since the store had it */
    if (t->persist.pending >= 0 && t->persist.pending != index)
        task_persist_flush(t);
    /* The store's version of the message grows by appends only while this message keeps
     * changing: another message, or a change from 0 (the first event of a message — a new
     * one may have taken the index of one cut off — or a whole new text), writes it whole. */
    if (t->persist.append != index || from == 0)
        t->persist.append = -1;
    else if (from < t->persist.from)
        t->persist.from = from;
    if (t->ui.items[index].partial) {
        /* written only when the store writes it now: a partial update costs nothing here */
        t->persist.pending = index;
        if (store_ui_partial_due(t->persist.store)) {
            t->persist.pending = -1;
            write_partial(t, index, true);
        }
        return;
    }
    t->persist.pending = -1;
    if (!finish_by_append(t, index))
        write_ui_built(t, index, false);
    t->persist.append = -1; /* final: the message is done */
}

void task_persist_api(hew_task *t)
{
    if (!t->persist.store)
        return;
    task_persist_flush(t);
    hew_err err = HEW_ERR_INIT;
    size_t n = json_array_size(t->history);
    for (; t->persist.api_stored < n; t->persist.api_stored++) {
        if (store_api_put(t->persist.store, t->task_id, t->persist.api_stored,
                          json_array_get(t->history, t->persist.api_stored), &err) != HEW_OK) {
            persistence_off(t, err.msg);
            return;
        }
    }
}

void task_persist_row(hew_task *t, const store_task *given, unsigned fields)
{
    if (!t->persist.store || !fields)
        return;
    store_task row = STORE_TASK_INIT;
    if (given)
        row = *given; /* usage and the deleted range, by the parts that own them */
    else
        fields &= ~(unsigned)(STORE_SET_USAGE | STORE_SET_DELETED);
    row.id = t->task_id;
    char mode[8];
    snprintf(mode, sizeof mode, "%s", mode_name(task_mode_get(t)));
    row.mode = mode;
    pthread_mutex_lock(&t->mu);
    hew_task_status st = t->status;
    char *result = t->result ? strdup(t->result) : NULL;
    char *kept = t->kept_status ? strdup(t->kept_status) : NULL;
    char *kept_result = t->kept_result ? strdup(t->kept_result) : NULL;
    pthread_mutex_unlock(&t->mu);
    row.status = st == HEW_TASK_COMPLETED ? "completed"
                 : st == HEW_TASK_FAILED  ? "failed"
                 : st == HEW_TASK_ABORTED ? "aborted"
                                          : "running";
    row.result = result;
    if (kept) { /* resumed, not gone on with (yet): the stored row stays as it was */
        row.status = kept;
        row.result = kept_result;
    }
    if (t->completed_result && (st == HEW_TASK_FAILED || st == HEW_TASK_ABORTED)) {
        /* a completed task the user came back to stays completed when going on fails */
        row.status = "completed";
        row.result = t->completed_result;
    }
    hew_err err = HEW_ERR_INIT;
    if (store_task_update(t->persist.store, &row, fields, &err) != HEW_OK)
        persistence_off(t, err.msg);
    free(result);
    free(kept);
    free(kept_result);
}

void task_persist_close(hew_task *t)
{
    if (!t->persist.store)
        return;
    task_persist_flush(t);
    hew_err err = HEW_ERR_INIT;
    store_flush(t->persist.store, &err);
    store_lock_free(t->persist.lock);
    t->persist.lock = NULL;
    store_free(t->persist.store);
    t->persist.store = NULL;
}

void task_persist_init(hew_task *t)
{
    buf_init(&t->persist.line, 0);
    t->persist.pending = -1;
    t->persist.append = -1;
    t->persist.exact = -1;
}

void task_persist_release(hew_task *t)
{
    buf_release(&t->persist.line);
}

void task_persist_rewrite(hew_task *t, size_t msg, size_t blk, const char *text)
{
    if (t->persist.store)
        store_rewrite_add(t->persist.store, t->task_id, msg, blk, text, NULL);
}

void task_persist_api_last(hew_task *t, size_t n, const json_t *last)
{
    if (t->persist.store && n && t->persist.api_stored == n)
        store_api_put(t->persist.store, t->task_id, n - 1, last, NULL);
}

bool task_persist_off(hew_task *t, buf *why)
{
    if (t->persist.store)
        return false;
    buf_puts(why, t->persist.err.msg[0] ? t->persist.err.msg : "the task store is turned off");
    hew_err_clear(&t->persist.err); /* said by the caller, not as a note */
    return true;
}

hew_code task_persist_load(hew_task *t, store_loaded *l, hew_err *err)
{
    if (!t->persist.store)
        return hew_err_set(err, HEW_E_NOTFOUND, "the task store is turned off");
    hew_code rc = store_task_load(t->persist.store, t->task_id, l, err);
    if (rc == HEW_OK)
        t->persist.api_stored = json_array_size(l->history);
    return rc;
}

void task_persist_ui_truncate(hew_task *t, size_t len)
{
    if (t->persist.exact >= 0 && (size_t)t->persist.exact >= len)
        t->persist.exact = -1;
    if (t->persist.store)
        store_ui_truncate(t->persist.store, t->task_id, len, NULL);
}

void task_persist_api_truncate(hew_task *t, size_t len)
{
    t->persist.api_stored = len;
    if (t->persist.store)
        store_api_truncate(t->persist.store, t->task_id, len, NULL);
}
