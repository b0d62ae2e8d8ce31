/* store_append — a growing UI message is stored by appends, not rewritten (issue #17, "the
 * store appends to a partial row instead of rewriting it"):
 *   - store_ui_append keeps what was appended as a part beside the row: the row is not
 *     rewritten, the parts hold exactly the appended bytes (a write costs the append);
 *   - loading folds the parts into "text" (text[0..off) + part, the rule of the events),
 *     for resume, history (hew_history_task_json) and export;
 *   - the final form replaces the row and drops its parts in one transaction;
 *   - or the message is finished by a last append (store_ui_finish): the row says
 *     "partial": false, nothing else of it changes, and the parts stay and fold;
 *   - truncating and deleting remove the parts with their messages;
 *   - appends that do not fit (no row, a final row, an offset past the text, bad bytes)
 *     are refused with nothing written;
 *   - a database of schema 2 (made by hand here, as the old hew wrote it) is migrated on
 *     open and its tasks load;
 *   - an API message of megabytes is written in parts as it is dumped (api_parts, its
 *     row's json ""), and loads back equal; replacing, truncating and deleting drop them.
 * Scratch databases only: it never touches the user's hew.db. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "store/store.h"
#include "tmpdir.h"

static char *dir;

static char *at(const char *name)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

static store *open_at(const char *name)
{
    store_options o = STORE_OPTIONS_INIT;
    o.path = at(name);
    o.partial_interval_ms = -1; /* every partial written at once: no held row here */
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    if (store_open(&o, &s, &err) != HEW_OK)
        fprintf(stderr, "store_open: %s\n", err.msg);
    return s;
}

static char *new_task(store *s)
{
    store_task init = STORE_TASK_INIT;
    init.title = "grow it";
    init.workspace = "/w";
    char *id = NULL;
    if (store_task_create(s, &init, &id, NULL) != HEW_OK)
        return NULL;
    return id;
}

/* A text say as uimsg_to_json writes it (text JSON-escaped by the caller). */
static const char *ui_line(long i, const char *text, bool partial)
{
    static char line[1024];
    snprintf(line, sizeof line,
             "{\"v\":2,\"index\":%ld,\"ts\":7,\"kind\":\"say\",\"type\":\"text\",\"partial\":%s,"
             "\"text\":\"%s\"}",
             i, partial ? "true" : "false", text);
    return line;
}

static hew_code put(store *s, const char *id, long i, const char *text, bool partial)
{
    const char *l = ui_line(i, text, partial);
    return store_ui_put(s, id, i, l, strlen(l), partial, NULL);
}

static hew_code app(store *s, const char *id, long i, size_t off, const char *text,
                    hew_err *err)
{
    return store_ui_append(s, id, i, off, text, strlen(text), err);
}

/* The loaded text of UI message i (a new string, NULL when none). */
static char *loaded_text(store *s, const char *id, long i, bool *partial)
{
    store_loaded l = STORE_LOADED_INIT;
    hew_err err = HEW_ERR_INIT;
    if (store_task_load(s, id, &l, &err) != HEW_OK) {
        fprintf(stderr, "load: %s\n", err.msg);
        return NULL;
    }
    const json_t *m = json_array_get(l.ui, (size_t)i);
    const char *t = json_string_value(json_object_get(m, "text"));
    char *out = t ? strdup(t) : NULL;
    if (partial)
        *partial = json_is_true(json_object_get(m, "partial"));
    store_loaded_release(&l);
    return out;
}

/* One number from the database file itself, behind the store's back. */
static long long sql_num(const char *db_name, const char *q)
{
    sqlite3 *db;
    long long v = -1;
    if (sqlite3_open_v2(at(db_name), &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void check_text(store *s, const char *id, long i, const char *want, bool want_partial)
{
    bool partial = !want_partial;
    char *got = loaded_text(s, id, i, &partial);
    CHECK(got != NULL);
    if (got)
        CHECK_STR(got, want);
    CHECK(partial == want_partial);
    free(got);
}

/* ---- appends, folded ------------------------------------------------------------------- */

static void test_appends_are_parts_and_fold(void)
{
    store *s = open_at("fold.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    REQUIRE(put(s, id, 0, "the task", false) == HEW_OK);
    REQUIRE(put(s, id, 1, "Hello", true) == HEW_OK);
    long long row = sql_num("fold.db", "SELECT length(json) FROM ui_messages WHERE idx = 1");
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(app(s, id, 1, 5, ", wor", &err), HEW_OK);
    CHECK_INT(app(s, id, 1, 10, "ld <b", &err), HEW_OK);
    /* the end rewritten (a tag that was not one shown again): offset inside the text */
    CHECK_INT(app(s, id, 1, 13, "<br> and \"more\"\n", &err), HEW_OK);
    check_text(s, id, 1, "Hello, world <br> and \"more\"\n", true);
    /* the row was not rewritten; the parts hold exactly what was appended */
    CHECK_INT(sql_num("fold.db", "SELECT length(json) FROM ui_messages WHERE idx = 1"), row);
    CHECK_INT(sql_num("fold.db", "SELECT count(*) FROM ui_parts WHERE idx = 1"), 3);
    CHECK_INT(sql_num("fold.db", "SELECT sum(length(text)) FROM ui_parts WHERE idx = 1"),
              strlen(", wor") + strlen("ld <b") + strlen("<br> and \"more\"\n"));
    /* an empty append, and one that only cuts */
    CHECK_INT(app(s, id, 1, 29, "", &err), HEW_OK);
    CHECK_INT(app(s, id, 1, 12, "", &err), HEW_OK);
    check_text(s, id, 1, "Hello, world", true);
    /* message 0 is untouched, the count of messages is the rows' */
    check_text(s, id, 0, "the task", false);
    store_task row_t;
    REQUIRE(store_task_get(s, id, &row_t, NULL) == HEW_OK);
    CHECK_INT(row_t.ui_count, 2);
    store_task_release(&row_t);
    free(id);
    store_free(s);
}

static void test_utf8_across_appends(void)
{
    store *s = open_at("utf8.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    REQUIRE(put(s, id, 0, "caf", true) == HEW_OK);
    /* an append is whole characters: half an "é" is refused, nothing written (a crash
     * between two halves would leave a text that is not UTF-8) */
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(store_ui_append(s, id, 0, 3, "\xc3", 1, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "not valid UTF-8") != NULL);
    CHECK_INT(store_ui_append(s, id, 0, 3, "\xa9 na", 4, &err), HEW_E_INVALID);
    CHECK_INT(store_ui_append(s, id, 0, 3, "\xc3\xa9 na\xc3\xafve", 9, &err), HEW_OK);
    check_text(s, id, 0, "caf\xc3\xa9 na\xc3\xafve", true);
    /* a NUL byte in the text (JSON "\u0000") survives the fold */
    CHECK_INT(store_ui_append(s, id, 0, 12, "a\0b", 3, NULL), HEW_OK);
    store_loaded l = STORE_LOADED_INIT;
    REQUIRE(store_task_load(s, id, &l, NULL) == HEW_OK);
    const json_t *t = json_object_get(json_array_get(l.ui, 0), "text");
    CHECK_INT(json_string_length(t), 15);
    CHECK(json_string_length(t) == 15 &&
          memcmp(json_string_value(t), "caf\xc3\xa9 na\xc3\xafve" "a\0b", 15) == 0);
    store_loaded_release(&l);
    free(id);
    store_free(s);
}

/* ---- the final form drops the parts ------------------------------------------------------ */

static void test_final_drops_parts(void)
{
    store *s = open_at("final.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    REQUIRE(put(s, id, 0, "a", true) == HEW_OK);
    for (int k = 0; k < 20; k++)
        REQUIRE(app(s, id, 0, (size_t)k + 1, "b", NULL) == HEW_OK);
    CHECK_INT(sql_num("final.db", "SELECT count(*) FROM ui_parts"), 20);
    REQUIRE(put(s, id, 0, "the whole answer", false) == HEW_OK);
    CHECK_INT(sql_num("final.db", "SELECT count(*) FROM ui_parts"), 0);
    check_text(s, id, 0, "the whole answer", false);
    /* a final message takes no appends: refused, nothing written */
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(app(s, id, 0, 3, "more", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "not a partial message") != NULL);
    CHECK_INT(sql_num("final.db", "SELECT count(*) FROM ui_parts"), 0);
    check_text(s, id, 0, "the whole answer", false);
    /* a whole partial version is a new base: its parts go too */
    REQUIRE(put(s, id, 1, "x", true) == HEW_OK);
    REQUIRE(app(s, id, 1, 1, "yz", NULL) == HEW_OK);
    REQUIRE(put(s, id, 1, "again", true) == HEW_OK);
    CHECK_INT(sql_num("final.db", "SELECT count(*) FROM ui_parts"), 0);
    REQUIRE(app(s, id, 1, 5, "!", NULL) == HEW_OK);
    check_text(s, id, 1, "again!", true);
    free(id);
    store_free(s);
}

/* A held partial row (the store's own throttle) is written before an append to it. */
static void test_held_row_then_append(void)
{
    store_options o = STORE_OPTIONS_INIT;
    o.path = at("held.db");
    o.partial_interval_ms = 60 * 60 * 1000; /* hold every partial but the first */
    store *s = NULL;
    REQUIRE(store_open(&o, &s, NULL) == HEW_OK);
    char *id = new_task(s);
    REQUIRE(id);
    REQUIRE(put(s, id, 0, "first", true) == HEW_OK);  /* due: written */
    REQUIRE(put(s, id, 0, "second", true) == HEW_OK); /* held */
    CHECK_INT(app(s, id, 0, 6, " and third", NULL), HEW_OK);
    check_text(s, id, 0, "second and third", true);
    free(id);
    store_free(s);
}

/* ---- what does not fit is refused -------------------------------------------------------- */

static void test_bad_appends_refused(void)
{
    store *s = open_at("bad.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    hew_err err = HEW_ERR_INIT;
    /* no such message yet */
    CHECK_INT(app(s, id, 0, 0, "x", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "store it whole first") != NULL);
    REQUIRE(put(s, id, 0, "four", true) == HEW_OK);
    /* past the end of the text: first against the row, then against the last part */
    CHECK_INT(app(s, id, 0, 5, "x", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "beyond the stored text") != NULL);
    REQUIRE(app(s, id, 0, 4, "+2", NULL) == HEW_OK);
    CHECK_INT(app(s, id, 0, 7, "x", &err), HEW_E_INVALID);
    CHECK_INT(app(s, id, -1, 0, "x", &err), HEW_E_INVALID);
    CHECK_INT(store_ui_append(s, id, 0, 0, NULL, 3, &err), HEW_E_INVALID);
    CHECK_INT(app(s, "no/such", 0, 0, "x", &err), HEW_E_INVALID);
    CHECK_INT(app(s, "404", 0, 0, "x", &err), HEW_E_NOTFOUND);
    /* a message with data and no text (a tool) takes none either */
    const char *tool = "{\"v\":2,\"index\":1,\"ts\":1,\"kind\":\"ask\",\"type\":\"tool\","
                       "\"partial\":true,\"data\":{\"tool\":\"x\"}}";
    REQUIRE(store_ui_put(s, id, 1, tool, strlen(tool), true, NULL) == HEW_OK);
    CHECK_INT(app(s, id, 1, 0, "x", &err), HEW_OK); /* no text: it reads as "" */
    const char *num = "{\"v\":2,\"index\":2,\"ts\":1,\"kind\":\"say\",\"type\":\"text\","
                      "\"partial\":true,\"text\":5}";
    REQUIRE(store_ui_put(s, id, 2, num, strlen(num), true, NULL) == HEW_OK);
    CHECK_INT(app(s, id, 2, 0, "x", &err), HEW_E_INVALID);
    CHECK_INT(sql_num("bad.db", "SELECT count(*) FROM ui_parts"), 2);
    check_text(s, id, 0, "four+2", true);
    check_text(s, id, 1, "x", true);
    free(id);
    store_free(s);
}

/* A part changed behind the store's back is a clear error at load, not a wrong text; bytes
 * that are not UTF-8 are shown as such, the task still loads. */
static void test_broken_part_is_an_error(void)
{
    store *s = open_at("broken.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    REQUIRE(put(s, id, 0, "ok", true) == HEW_OK);
    REQUIRE(app(s, id, 0, 2, "!", NULL) == HEW_OK);
    sqlite3 *db;
    REQUIRE(sqlite3_open(at("broken.db"), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "UPDATE ui_parts SET off = 9, total = 10", NULL, NULL, NULL) ==
          SQLITE_OK);
    sqlite3_close(db);
    store_loaded l = STORE_LOADED_INIT;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(store_task_load(s, id, &l, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "does not fit") != NULL);
    REQUIRE(sqlite3_open(at("broken.db"), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "UPDATE ui_parts SET off = 2, total = 3, text = x'ff'", NULL, NULL,
                       NULL) == SQLITE_OK);
    sqlite3_close(db);
    /* bytes that are not UTF-8 do not cost the task: they read as U+FFFD */
    check_text(s, id, 0, "ok\xef\xbf\xbd", true);
    free(id);
    store_free(s);
}

/* ---- truncate and delete ----------------------------------------------------------------- */

static void test_truncate_and_delete_drop_parts(void)
{
    store *s = open_at("trunc.db");
    REQUIRE(s);
    char *id = new_task(s);
    char *other = new_task(s);
    REQUIRE(id && other);
    for (long i = 0; i < 3; i++) {
        REQUIRE(put(s, id, i, "p", true) == HEW_OK);
        REQUIRE(app(s, id, i, 1, "q", NULL) == HEW_OK);
        REQUIRE(put(s, other, i, "p", true) == HEW_OK);
        REQUIRE(app(s, other, i, 1, "r", NULL) == HEW_OK);
    }
    REQUIRE(store_ui_truncate(s, id, 1, NULL) == HEW_OK);
    char q[256];
    snprintf(q, sizeof q, "SELECT count(*) FROM ui_parts WHERE tid = (SELECT tid FROM tasks "
                          "WHERE id = '%s')", id);
    CHECK_INT(sql_num("trunc.db", q), 1); /* message 0's */
    CHECK_INT(sql_num("trunc.db", "SELECT count(*) FROM ui_parts"), 4);
    check_text(s, id, 0, "pq", true);
    /* a message made again at a cut index starts from its own row, not old parts */
    REQUIRE(put(s, id, 1, "new", true) == HEW_OK);
    check_text(s, id, 1, "new", true);
    REQUIRE(store_task_delete(s, id, NULL) == HEW_OK);
    CHECK_INT(sql_num("trunc.db", "SELECT count(*) FROM ui_parts"), 3);
    check_text(s, other, 2, "pr", true);
    free(id);
    free(other);
    store_free(s);
}

/* ---- export folds; import brings the whole text ------------------------------------------ */

static void test_export_folds(void)
{
    store *s = open_at("export.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    REQUIRE(put(s, id, 0, "Once", true) == HEW_OK);
    REQUIRE(app(s, id, 0, 4, " upon", NULL) == HEW_OK);
    REQUIRE(app(s, id, 0, 9, " a time", NULL) == HEW_OK);
    REQUIRE(store_task_export(s, id, at("exported"), NULL) == HEW_OK);
    json_error_t je;
    char path[4200];
    snprintf(path, sizeof path, "%s/ui_messages.json", at("exported"));
    json_t *ui = json_load_file(path, 0, &je);
    REQUIRE(ui);
    CHECK_STR(json_string_value(json_object_get(json_array_get(ui, 0), "text")),
              "Once upon a time");
    json_decref(ui);
    char *imported = NULL;
    REQUIRE(store_task_import(s, at("exported"), NULL, &imported, NULL) == HEW_OK);
    check_text(s, imported, 0, "Once upon a time", true);
    free(imported);
    free(id);
    store_free(s);
}

/* ---- migration ------------------------------------------------------------------------- */

/* The schema of version 2 (before ui_parts), as hew wrote it, with two tasks. */
static const char v2_schema[] =
    "CREATE TABLE tasks (tid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, workspace TEXT NOT "
    "NULL, title TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT "
    "NULL, status TEXT NOT NULL, result TEXT, created_ms INTEGER NOT NULL, updated_ms INTEGER "
    "NOT NULL, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0, "
    "cache_reads INTEGER NOT NULL DEFAULT 0, cache_writes INTEGER NOT NULL DEFAULT 0, cost "
    "REAL NOT NULL DEFAULT 0, deleted_start INTEGER, deleted_end INTEGER, requests INTEGER "
    "NOT NULL DEFAULT 0) STRICT;"
    "CREATE INDEX tasks_by_updated ON tasks(updated_ms DESC, id DESC);"
    "CREATE TABLE api_messages (tid INTEGER NOT NULL, ord INTEGER NOT NULL, json TEXT NOT "
    "NULL, PRIMARY KEY (tid, ord)) STRICT;"
    "CREATE TABLE ui_messages (tid INTEGER NOT NULL, idx INTEGER NOT NULL, json TEXT NOT "
    "NULL, PRIMARY KEY (tid, idx)) STRICT;"
    "CREATE TABLE context_rewrites (tid INTEGER NOT NULL, seq INTEGER NOT NULL, msg INTEGER "
    "NOT NULL, block INTEGER NOT NULL, ts INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY "
    "(tid, seq)) STRICT;"
    "INSERT INTO tasks (id, workspace, title, provider, model, mode, status, created_ms, "
    "updated_ms, tokens_in, requests) VALUES "
    "('100', '/w', 'old one', 'anthropic', 'm', 'act', 'completed', 1, 2, 10, 1),"
    "('200', '/w', 'cut short', 'anthropic', 'm', 'act', 'running', 1, 3, 0, 0);"
    "INSERT INTO api_messages (tid, ord, json) VALUES "
    "(1, 0, '{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}');"
    "INSERT INTO ui_messages (tid, idx, json) VALUES "
    "(1, 0, '{\"v\":1,\"index\":0,\"ts\":1,\"kind\":\"say\",\"type\":\"task\",\"partial\":false,"
    "\"text\":\"hi\"}'),"
    "(1, 1, '{\"v\":1,\"index\":1,\"ts\":1,\"kind\":\"say\",\"type\":\"text\",\"partial\":false,"
    "\"text\":\"done\"}'),"
    "(2, 0, '{\"v\":2,\"index\":0,\"ts\":1,\"kind\":\"say\",\"type\":\"text\",\"partial\":true,"
    "\"text\":\"half an ans\"}');"
    "PRAGMA user_version = 2;";

static void test_schema_2_is_migrated(void)
{
    sqlite3 *db;
    REQUIRE(sqlite3_open(at("v2.db"), &db) == SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, v2_schema, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "v2 schema: %s\n", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    REQUIRE(rc == SQLITE_OK);

    store *s = open_at("v2.db");
    REQUIRE(s);
    CHECK_INT(sql_num("v2.db", "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    CHECK_INT(sql_num("v2.db", "SELECT count(*) FROM ui_parts"), 0);
    store_loaded l = STORE_LOADED_INIT;
    REQUIRE(store_task_load(s, "100", &l, NULL) == HEW_OK);
    CHECK_INT(json_array_size(l.history), 1);
    CHECK_INT(json_array_size(l.ui), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(l.ui, 1), "text")), "done");
    CHECK_INT(l.task.requests, 1);
    CHECK_INT(l.task.tokens_in, 10);
    store_loaded_release(&l);
    /* the task cut short mid-message goes on growing by appends */
    check_text(s, "200", 0, "half an ans", true);
    CHECK_INT(app(s, "200", 0, 11, "wer", NULL), HEW_OK);
    check_text(s, "200", 0, "half an answer", true);
    store_free(s);
}

/* A final message finished by a last append: partial false, the row otherwise the same
 * bytes, the parts kept (no whole text written), and what is refused is refused whole. */
static void test_finish_by_append(void)
{
    store *s = open_at("finish.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    REQUIRE(put(s, id, 0, "Hel", true) == HEW_OK);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(app(s, id, 0, 3, "lo wor", &err), HEW_OK);
    const char *row_q = "SELECT length(json) FROM ui_messages WHERE idx = 0";
    long long row = sql_num("finish.db", row_q);
    /* the final view cuts back into the text (the end was a tag being written) */
    CHECK_INT(store_ui_finish(s, id, 0, 6, "world!", 6, &err), HEW_OK);
    check_text(s, id, 0, "Hello world!", false);
    CHECK_INT(sql_num("finish.db", row_q), row + 1); /* "true" became "false" */
    CHECK_INT(sql_num("finish.db", "SELECT count(*) FROM ui_parts WHERE idx = 0"), 2);
    CHECK_INT(sql_num("finish.db", "SELECT instr(json, '\"partial\":false') > 0 AND "
                                   "instr(json, '\"text\":\"Hel\"') > 0 FROM ui_messages "
                                   "WHERE idx = 0"),
              1);
    /* finished once: it is no longer a partial message, so neither takes more */
    CHECK_INT(store_ui_finish(s, id, 0, 12, "?", 1, &err), HEW_E_INVALID);
    CHECK_INT(app(s, id, 0, 12, "?", &err), HEW_E_INVALID);
    check_text(s, id, 0, "Hello world!", false);
    CHECK_INT(sql_num("finish.db", "SELECT count(*) FROM ui_parts WHERE idx = 0"), 2);
    /* a message never stored, bad bytes, an offset past the text: nothing written */
    CHECK_INT(store_ui_finish(s, id, 5, 0, "x", 1, &err), HEW_E_INVALID);
    REQUIRE(put(s, id, 1, "ab", true) == HEW_OK);
    CHECK_INT(store_ui_finish(s, id, 1, 2, "\xc3", 1, &err), HEW_E_INVALID);
    CHECK_INT(store_ui_finish(s, id, 1, 3, "c", 1, &err), HEW_E_INVALID);
    check_text(s, id, 1, "ab", true);
    CHECK_INT(store_ui_finish(s, id, 1, 2, "", 0, &err), HEW_OK);
    check_text(s, id, 1, "ab", false);
    free(id);
    store_free(s);
}

/* A long API message: in parts as it is dumped, never one row; loads back equal (the
 * parts cut UTF-8 characters and escapes anywhere); replaced by a short one, its parts go;
 * truncate and delete drop them. */
static void test_long_api_message_in_parts(void)
{
    store *s = open_at("apiparts.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    buf text = BUF_INIT(0);
    while (text.len < (size_t)3500000)
        buf_puts(&text, "na\xc3\xafve \"caf\xc3\xa9\"\n\t\xe2\x80\x94 \xf0\x9f\x98\x80 ");
    REQUIRE(!text.err);
    json_t *msg = json_pack("{s:s, s:[{s:s, s:s%}]}", "role", "assistant", "content", "type",
                            "text", "text", text.data, text.len);
    json_t *small = json_pack("{s:s, s:s}", "role", "user", "content", "short");
    REQUIRE(msg && small);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(store_api_put(s, id, 0, small, &err), HEW_OK);
    CHECK_INT(store_api_put(s, id, 1, msg, &err), HEW_OK);
    CHECK_INT(store_api_put(s, id, 2, small, &err), HEW_OK);
    const char *parts_q = "SELECT count(*) FROM api_parts WHERE ord = 1";
    CHECK(sql_num("apiparts.db", parts_q) >= 4);
    CHECK_INT(sql_num("apiparts.db", "SELECT max(length(json)) FROM api_parts"), 1 << 20);
    CHECK_INT(sql_num("apiparts.db", "SELECT length(json) FROM api_messages WHERE ord = 1"), 0);
    CHECK_INT(sql_num("apiparts.db", "SELECT count(*) FROM api_parts WHERE ord <> 1"), 0);
    store_loaded l = STORE_LOADED_INIT;
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    CHECK_INT(json_array_size(l.history), 3);
    CHECK(json_equal(json_array_get(l.history, 1), msg));
    CHECK(json_equal(json_array_get(l.history, 2), small));
    store_loaded_release(&l);
    /* replaced by a short message: its parts go, the row holds it */
    CHECK_INT(store_api_put(s, id, 1, small, &err), HEW_OK);
    CHECK_INT(sql_num("apiparts.db", parts_q), 0);
    CHECK(sql_num("apiparts.db", "SELECT length(json) FROM api_messages WHERE ord = 1") > 0);
    /* long again, then cut off, then again and the task deleted */
    CHECK_INT(store_api_put(s, id, 1, msg, &err), HEW_OK);
    CHECK(sql_num("apiparts.db", parts_q) >= 4);
    CHECK_INT(store_api_truncate(s, id, 1, &err), HEW_OK);
    CHECK_INT(sql_num("apiparts.db", "SELECT count(*) FROM api_parts"), 0);
    CHECK_INT(store_api_put(s, id, 1, msg, &err), HEW_OK);
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    CHECK_INT(json_array_size(l.history), 2);
    CHECK(json_equal(json_array_get(l.history, 1), msg));
    store_loaded_release(&l);
    /* one run of 2.5 MB with nothing to escape (it comes from the dump in one piece) */
    char *run = malloc(2500001);
    REQUIRE(run);
    memset(run, 'a', 2500000);
    run[2500000] = '\0';
    json_t *plain = json_pack("{s:s, s:s}", "role", "user", "content", run);
    free(run);
    CHECK_INT(store_api_put(s, id, 2, plain, &err), HEW_OK);
    CHECK_INT(sql_num("apiparts.db", "SELECT count(*) FROM api_parts WHERE ord = 2"), 3);
    CHECK_INT(sql_num("apiparts.db", "SELECT max(length(json)) FROM api_parts WHERE ord = 2"),
              1 << 20);
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    CHECK(json_equal(json_array_get(l.history, 2), plain));
    store_loaded_release(&l);
    json_decref(plain);
    CHECK_INT(store_task_delete(s, id, &err), HEW_OK);
    CHECK_INT(sql_num("apiparts.db", "SELECT count(*) FROM api_parts"), 0);
    json_decref(msg);
    json_decref(small);
    buf_release(&text);
    free(id);
    store_free(s);
}

/* A long append is stored in parts of at most 1 MiB, never one row of megabytes (SQLite
 * builds a row whole in memory); they cut characters anywhere and still fold back equal,
 * by loading and by store_ui_text (one message read back); store_ui_text refuses a
 * message that is not stored. */
static void test_long_append_in_parts(void)
{
    store *s = open_at("longapp.db");
    REQUIRE(s);
    char *id = new_task(s);
    REQUIRE(id);
    buf text = BUF_INIT(0);
    while (text.len < (size_t)2600000)
        buf_puts(&text, "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80 \"q\" ");
    REQUIRE(!text.err);
    REQUIRE(put(s, id, 0, "", true) == HEW_OK);
    hew_err err = HEW_ERR_INIT;
    size_t half = 1234567; /* moved back to a character's start, as events' offsets are */
    while (half > 0 && ((unsigned char)text.data[half] & 0xC0) == 0x80)
        half--;
    CHECK_INT(store_ui_append(s, id, 0, 0, text.data, half, &err), HEW_OK);
    CHECK_INT(store_ui_finish(s, id, 0, half, text.data + half, text.len - half, &err),
              HEW_OK);
    CHECK_INT(sql_num("longapp.db", "SELECT count(*) FROM ui_parts WHERE idx = 0"), 4);
    CHECK_INT(sql_num("longapp.db", "SELECT max(length(text)) FROM ui_parts"), 1 << 20);
    buf back = BUF_INIT(0);
    buf_puts(&back, "left over");
    CHECK_INT(store_ui_text(s, id, 0, &back, &err), HEW_OK);
    CHECK_INT(back.len, text.len);
    CHECK(back.len == text.len && memcmp(back.data, text.data, text.len) == 0);
    store_loaded l = STORE_LOADED_INIT;
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    const json_t *t = json_object_get(json_array_get(l.ui, 0), "text");
    CHECK(json_string_length(t) == text.len &&
          memcmp(json_string_value(t), text.data, text.len) == 0);
    store_loaded_release(&l);
    CHECK_INT(store_ui_text(s, id, 7, &back, &err), HEW_E_NOTFOUND);
    buf_release(&back);
    buf_release(&text);
    free(id);
    store_free(s);
}

int main(void)
{
    dir = tmpdir_make("store-append");
    if (!dir)
        return 1;
    RUN(test_appends_are_parts_and_fold);
    RUN(test_utf8_across_appends);
    RUN(test_final_drops_parts);
    RUN(test_finish_by_append);
    RUN(test_held_row_then_append);
    RUN(test_bad_appends_refused);
    RUN(test_broken_part_is_an_error);
    RUN(test_truncate_and_delete_drop_parts);
    RUN(test_export_folds);
    RUN(test_schema_2_is_migrated);
    RUN(test_long_api_message_in_parts);
    RUN(test_long_append_in_parts);
    tmpdir_remove(dir);
    free(dir);
    return check_report();
}
