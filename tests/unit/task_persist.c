/* task_persist — persisting is a consumer of the messages beside the front end, not a side
 * effect of telling one:
 *   - a task run through the public API with no on_event callback still stores every
 *     message (before, task_emit returned before persisting: an embedder without a
 *     callback stored nothing);
 *   - a growing message is in the store while it grows (a crash mid-message leaves the
 *     text so far), as a prefix of what it becomes, and whole once it is final;
 *   - the stored form of a message is the whole one ("text"), never an append;
 *   - a growing message is stored by appends (issue #17): once its row is written, later
 *     versions add what was appended (ui_parts) and the row is not rewritten; the final
 *     form replaces the row and leaves no parts. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "store/store.h"
#include "tmpdir.h"

#define ANSWER "Here is the plan, told at some length so that it streams for a while."
#define DONE "<attempt_completion><result>kept</result></attempt_completion>"

static void nap(void)
{
    struct timespec d = { 0, 5 * 1000000L };
    nanosleep(&d, NULL);
}

static void options(hew_options *o, const char *url, const char *data, const char *ws)
{
    hew_options_init(o);
    o->provider = "anthropic";
    o->model = "claude-persist";
    o->api_key = "persist-key";
    o->base_url = url;
    o->cwd = ws;
    o->native_tools = 0;
    o->checkpoints = 0;
    o->data_dir = data;
}

/* The text of the stored message of that type, last one first (NULL when none). */
static const json_t *stored_event(const json_t *task, const char *type, const char *kind)
{
    const json_t *events = json_object_get(task, "events");
    for (size_t i = json_array_size(events); i-- > 0;) {
        const json_t *e = json_array_get(events, i);
        if (e && strcmp(json_string_value(json_object_get(e, "type")), type) == 0 &&
            strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0)
            return e;
    }
    return NULL;
}

/* Run prompt to completion with o (answering the completion ask when no callback does)
 * and give the stored task as hew_history_task_json shows it (a new reference). */
static json_t *run_stored(const hew_options *o, const char *prompt)
{
    char err[256];
    hew_session *s = NULL;
    if (hew_session_new(o, &s, err, sizeof err) != HEW_OK)
        return NULL;
    hew_task *t = NULL;
    if (hew_task_start(s, prompt, &t, err, sizeof err) != HEW_OK) {
        hew_session_free(s);
        return NULL;
    }
    while (hew_task_status_now(t) == HEW_TASK_RUNNING &&
           hew_task_respond(t, HEW_ANSWER_YES, NULL) != 0)
        nap();
    CHECK_INT(hew_task_wait(t), HEW_TASK_COMPLETED);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(t));
    hew_task_free(t);
    hew_session_free(s);
    char *js = NULL;
    if (hew_history_task_json(o, id, 1, &js, err, sizeof err) != HEW_OK)
        return NULL;
    json_t *task = json_loads(js, 0, NULL);
    hew_free(js);
    return task;
}

static void test_no_callback_stores_everything(void)
{
    char *data = tmpdir_make("persist-data");
    char *ws = tmpdir_make("persist-ws");
    REQUIRE(data && ws);
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"" ANSWER
                                "\\n" DONE "\",\"delta_size\":8}]}") == 0);
    hew_options o;
    options(&o, fp.url, data, ws); /* on_event stays NULL: the completion ask is answered
                                      once it is waiting */
    json_t *task = run_stored(&o, "Plan it.");
    REQUIRE(task != NULL);
    const json_t *said = stored_event(task, "text", "say");
    CHECK(said != NULL);
    CHECK_STR(json_string_value(json_object_get(said, "text")), ANSWER);
    CHECK(json_is_false(json_object_get(said, "partial")));
    CHECK(json_object_get(said, "append") == NULL);
    CHECK(stored_event(task, "task", "say") != NULL);
    CHECK(stored_event(task, "completion_result", "say") != NULL);
    CHECK(stored_event(task, "completion_result", "ask") != NULL);
    CHECK_STR(json_string_value(json_object_get(task, "status")), "completed");
    json_decref(task);
    fakeprov_stop(&fp);
    tmpdir_remove(data);
    tmpdir_remove(ws);
    free(data);
    free(ws);
}

/* ---- a growing message is in the store while it grows ----------------------------------- */

struct grow {
    char db[600];
    int found;           /* a partial text row was read from the store */
    int prefix_ok;       /* ... and its text was a prefix of what the front end had */
};

static void on_event_grow(void *ud, hew_task *t, const hew_event *ev)
{
    struct grow *g = ud;
    if (ev->is_ask && !ev->partial) {
        hew_task_respond(t, HEW_ANSWER_YES, NULL);
        return;
    }
    if (g->found || !ev->partial || ev->kind != HEW_EV_TEXT || !ev->text ||
        strlen(ev->text) < 40)
        return;
    /* Read the store from a connection of our own, as a later `hew resume` would after a
     * crash now: the partial message is there with the text so far. */
    store_options so = STORE_OPTIONS_INIT;
    so.path = g->db;
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    if (store_open(&so, &s, &err) != HEW_OK)
        return;
    store_loaded l = STORE_LOADED_INIT;
    if (store_task_load(s, hew_task_id(t), &l, &err) == HEW_OK) {
        const json_t *m = json_array_get(l.ui, (size_t)ev->index);
        const char *text = json_string_value(json_object_get(m, "text"));
        if (m && json_is_true(json_object_get(m, "partial")) && text && *text) {
            g->found = 1;
            g->prefix_ok = strncmp(ev->text, text, strlen(text)) == 0;
        }
    }
    store_loaded_release(&l);
    store_free(s);
}

static void test_growing_message_is_stored_as_it_grows(void)
{
    char *data = tmpdir_make("persist-data");
    char *ws = tmpdir_make("persist-ws");
    REQUIRE(data && ws);
    fakeprov fp;
    /* slow enough for several updates, each a moment apart */
    REQUIRE(fakeprov_start(&fp, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"" ANSWER
                                " " ANSWER " " ANSWER "\\n" DONE
                                "\",\"delta_size\":4,\"delay_ms\":3}]}") == 0);
    struct grow g = { 0 };
    snprintf(g.db, sizeof g.db, "%s/hew.db", data);
    hew_options o;
    options(&o, fp.url, data, ws);
    o.on_event = on_event_grow;
    o.event_ud = &g;
    char err[256];
    hew_session *s = NULL;
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    hew_task *t = NULL;
    REQUIRE(hew_task_start(s, "Plan it.", &t, err, sizeof err) == HEW_OK);
    CHECK_INT(hew_task_wait(t), HEW_TASK_COMPLETED);
    CHECK(g.found);
    CHECK(g.prefix_ok);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(t));
    hew_task_free(t);
    hew_session_free(s);
    char *js = NULL;
    REQUIRE(hew_history_task_json(&o, id, 1, &js, err, sizeof err) == HEW_OK);
    json_t *task = json_loads(js, 0, NULL);
    hew_free(js);
    const json_t *said = stored_event(task, "text", "say");
    CHECK(said && json_is_false(json_object_get(said, "partial")));
    CHECK_STR(json_string_value(json_object_get(said, "text")), ANSWER " " ANSWER " " ANSWER);
    json_decref(task);
    fakeprov_stop(&fp);
    tmpdir_remove(data);
    tmpdir_remove(ws);
    free(data);
    free(ws);
}

/* ---- a growing message is stored by appends -------------------------------------------- */

struct parts {
    char db[600];
    long long row_len;   /* the message's row when first seen, -1 before */
    int row_rewritten;   /* the row changed while the message grew */
    int parts_seen;      /* parts of the growing message were in the store */
};

/* One number of the task's message `index` from the database, read behind the store's
 * back; -1 when the query fails (no such table before schema 3). */
static long long msg_num(const char *db_path, const char *sql, const char *id, long index)
{
    sqlite3 *db;
    long long v = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return -1;
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, index);
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

#define ROW_LEN "SELECT length(json) FROM ui_messages WHERE idx = ?2 AND tid = " \
                "(SELECT tid FROM tasks WHERE id = ?1)"
#define PART_COUNT "SELECT count(*) FROM ui_parts WHERE idx = ?2 AND tid = " \
                   "(SELECT tid FROM tasks WHERE id = ?1)"

static void on_event_parts(void *ud, hew_task *t, const hew_event *ev)
{
    struct parts *p = ud;
    if (ev->is_ask && !ev->partial) {
        hew_task_respond(t, HEW_ANSWER_YES, NULL);
        return;
    }
    if (!ev->partial || ev->kind != HEW_EV_TEXT)
        return;
    long long row = msg_num(p->db, ROW_LEN, hew_task_id(t), ev->index);
    if (row < 0)
        return; /* not written yet */
    if (p->row_len < 0)
        p->row_len = row;
    else if (row != p->row_len)
        p->row_rewritten = 1;
    if (msg_num(p->db, PART_COUNT, hew_task_id(t), ev->index) > 0)
        p->parts_seen = 1;
}

static void test_growing_message_is_stored_by_appends(void)
{
    char *data = tmpdir_make("persist-data");
    char *ws = tmpdir_make("persist-ws");
    REQUIRE(data && ws);
    /* about 4 KB in 8-byte deltas 5 ms apart: at least 2.5 s of growing, so the store (a
     * partial write a second at most) writes the message more than once while it grows */
    buf answer = BUF_INIT(0);
    while (answer.len < 4000)
        buf_puts(&answer, "grows by appends, ");
    buf_puts(&answer, "done.");
    buf scen = BUF_INIT(0);
    buf_printf(&scen, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"%s\\n" DONE
                      "\",\"delta_size\":8,\"delay_ms\":5}]}",
               answer.data);
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, scen.data) == 0);
    struct parts p = { .row_len = -1 };
    snprintf(p.db, sizeof p.db, "%s/hew.db", data);
    hew_options o;
    options(&o, fp.url, data, ws);
    o.on_event = on_event_parts;
    o.event_ud = &p;
    char err[256];
    hew_session *s = NULL;
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    hew_task *t = NULL;
    REQUIRE(hew_task_start(s, "Grow it.", &t, err, sizeof err) == HEW_OK);
    CHECK_INT(hew_task_wait(t), HEW_TASK_COMPLETED);
    CHECK(p.row_len >= 0);
    CHECK(p.parts_seen);
    CHECK(!p.row_rewritten);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(t));
    hew_task_free(t);
    hew_session_free(s);
    /* final: finished by a last append (store_ui_finish) — the parts stay, the row was
     * never written with the whole text, and loading folds them into a final message */
    CHECK(msg_num(p.db, "SELECT count(*) FROM ui_parts WHERE tid = (SELECT tid FROM tasks "
                        "WHERE id = ?1) AND ?2 = 0",
                  id, 0) > 1);
    long long text_row = msg_num(p.db, "SELECT max(length(json)) FROM ui_messages WHERE tid = "
                                       "(SELECT tid FROM tasks WHERE id = ?1) AND json LIKE "
                                       "'%\"type\":\"text\"%' AND ?2 = 0",
                                 id, 0);
    CHECK(text_row > 0 && text_row < (long long)answer.len);
    char *js = NULL;
    REQUIRE(hew_history_task_json(&o, id, 1, &js, err, sizeof err) == HEW_OK);
    json_t *task = json_loads(js, 0, NULL);
    hew_free(js);
    const json_t *said = stored_event(task, "text", "say");
    CHECK(said && json_is_false(json_object_get(said, "partial")));
    CHECK_STR(json_string_value(json_object_get(said, "text")), answer.data);
    json_decref(task);
    buf_release(&answer);
    buf_release(&scen);
    fakeprov_stop(&fp);
    tmpdir_remove(data);
    tmpdir_remove(ws);
    free(data);
    free(ws);
}

static void on_event_final_text(void *ud, hew_task *t, const hew_event *ev)
{
    (void)t;
    buf *seen = ud;
    if (ev->kind == HEW_EV_TEXT && !ev->partial && ev->text) {
        buf_reset(seen);
        buf_puts(seen, ev->text);
    }
}

/* A long final answer (past the 256 KiB from which its text is let go once stored): the
 * front end gets it whole in the final event, and the store holds it whole — with a
 * callback and without one (the text is let go only after both consumers had it). */
static void test_long_answer_let_go_after_both(void)
{
    buf answer = BUF_INIT(0);
    while (answer.len < 300000)
        buf_puts(&answer, "a long answer, caf\xc3\xa9 \xe2\x80\x94 ");
    buf_puts(&answer, "end.");
    buf scen = BUF_INIT(0);
    buf_printf(&scen, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"%s\\n" DONE
                      "\",\"delta_size\":4096}]}",
               answer.data);
    for (int with_cb = 0; with_cb < 2; with_cb++) {
        char *data = tmpdir_make("persist-data");
        char *ws = tmpdir_make("persist-ws");
        REQUIRE(data && ws);
        fakeprov fp;
        REQUIRE(fakeprov_start(&fp, scen.data) == 0);
        hew_options o;
        options(&o, fp.url, data, ws);
        buf seen = BUF_INIT(0);
        if (with_cb) {
            o.on_event = on_event_final_text;
            o.event_ud = &seen;
        }
        json_t *task = run_stored(&o, "Say a lot.");
        REQUIRE(task != NULL);
        if (with_cb)
            CHECK(seen.len == answer.len && strcmp(seen.data, answer.data) == 0);
        const json_t *said = stored_event(task, "text", "say");
        CHECK(said && json_is_false(json_object_get(said, "partial")));
        CHECK(said && strcmp(json_string_value(json_object_get(said, "text")), answer.data) == 0);
        json_decref(task);
        buf_release(&seen);
        fakeprov_stop(&fp);
        tmpdir_remove(data);
        tmpdir_remove(ws);
        free(data);
        free(ws);
    }
    buf_release(&answer);
    buf_release(&scen);
}

int main(void)
{
    RUN(test_no_callback_stores_everything);
    RUN(test_growing_message_is_stored_as_it_grows);
    RUN(test_growing_message_is_stored_by_appends);
    RUN(test_long_answer_let_go_after_both);
    return check_report();
}
