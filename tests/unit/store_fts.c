/* store_fts — `hew history SEARCH` searches the messages' text (issue #22): the store's
 * FTS5 index (msg_fts, store/fts.h) and store_task_list's search:
 *   - a word only in a message finds its task; ranked by bm25 (the task whose message is
 *     about the word first); tasks whose title matches but no message does come after;
 *     each hit carries a snippet with the match marked and the message's index;
 *   - the last word matches as a prefix, the others as whole words; diacritics ignored;
 *   - a user's FTS5 syntax (", *, NEAR(, a OR, -x, unbalanced parentheses) is plain text,
 *     never an error;
 *   - only final messages are indexed; a message finished by appends is indexed by its
 *     folded text; only the first STORE_FTS_BYTES of a long message;
 *   - replacing a message replaces its row; truncation and deletion remove rows; an
 *     imported task is indexed;
 *   - a schema-4 database (no index) is migrated and its messages, parts folded, indexed.
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
    o.partial_interval_ms = -1; /* every partial written at once */
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    if (store_open(&o, &s, &err) != HEW_OK)
        fprintf(stderr, "store_open: %s\n", err.msg);
    return s;
}

static char *new_task(store *s, const char *title, const char *ws)
{
    store_task init = STORE_TASK_INIT;
    init.title = (char *)title;
    init.workspace = (char *)ws;
    char *id = NULL;
    if (store_task_create(s, &init, &id, NULL) != HEW_OK)
        return NULL;
    return id;
}

/* Store UI message i of task id: a text say whose text is text (JSON-escaped here). */
static hew_code put(store *s, const char *id, long i, const char *text, bool partial)
{
    json_t *o = json_pack("{s:i,s:i,s:i,s:s,s:s,s:b,s:s}", "v", 2, "index", (int)i, "ts", 7,
                          "kind", "say", "type", "text", "partial", partial, "text", text);
    char *l = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = store_ui_put(s, id, i, l, strlen(l), partial, &err);
    if (rc != HEW_OK)
        fprintf(stderr, "put: %s\n", err.msg);
    free(l);
    return rc;
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

/* The result of a search: the ids in order, one per line ("A\nB\n"), with each hit's
 * "#index snippet" after its id when it matched a message. */
typedef struct found {
    size_t n;
    hew_code rc;
    char ids[4096];
    char snippet[8][1024];
    long long index[8];
} found;

static found search(store *s, const char *text, const char *ws)
{
    found f = { 0 };
    store_query q = STORE_QUERY_INIT;
    q.text = text;
    q.workspace = ws;
    store_task *items = NULL;
    hew_err err = HEW_ERR_INIT;
    f.rc = store_task_list(s, &q, &items, &f.n, &err);
    if (f.rc != HEW_OK)
        fprintf(stderr, "search \"%s\": %s\n", text, err.msg);
    size_t len = 0;
    for (size_t i = 0; i < f.n; i++) {
        len += (size_t)snprintf(f.ids + len, sizeof f.ids - len, "%s\n", items[i].title);
        if (i < 8) {
            snprintf(f.snippet[i], sizeof f.snippet[i], "%s",
                     items[i].snippet ? items[i].snippet : "(none)");
            f.index[i] = items[i].match_index;
        }
    }
    store_task_list_free(items, f.n);
    return f;
}

/* Ranked by the messages, then the title-only match; snippet and index of each. */
static void test_search_ranks_and_snips(void)
{
    store *s = open_at("rank.db");
    REQUIRE(s);
    char *a = new_task(s, "alpha", "/w"), *b = new_task(s, "beta", "/w");
    char *c = new_task(s, "zanzibar plans", "/w"), *d = new_task(s, "delta", "/v");
    REQUIRE(a && b && c && d);
    REQUIRE(put(s, a, 0, "alpha", false) == HEW_OK);
    REQUIRE(put(s, a, 1, "We sailed for days and days across the open sea, and at last the "
                         "Zanzibar harbour was calm when we came in at night.",
                false) == HEW_OK);
    REQUIRE(put(s, b, 0, "beta", false) == HEW_OK);
    REQUIRE(put(s, b, 1, "nothing here", false) == HEW_OK);
    REQUIRE(put(s, b, 2, "zanzibar zanzibar: zanzibar spices", false) == HEW_OK);
    REQUIRE(put(s, c, 0, "make plans", false) == HEW_OK);
    REQUIRE(put(s, d, 0, "un café près du port, near the water", false) == HEW_OK);

    found f = search(s, "zanzibar", NULL);
    CHECK_INT(f.rc, HEW_OK);
    CHECK_STR(f.ids, "beta\nalpha\nzanzibar plans\n");
    CHECK_INT(f.index[0], 2);
    CHECK_STR(f.snippet[0], "\x02zanzibar\x03 \x02zanzibar\x03: \x02zanzibar\x03 spices");
    CHECK_INT(f.index[1], 1);
    CHECK(strstr(f.snippet[1], "\x02Zanzibar\x03 harbour") != NULL);
    CHECK(strstr(f.snippet[1], "…") != NULL); /* a long message: only a window of it */
    CHECK_STR(f.snippet[2], "(none)");
    CHECK_INT(f.index[2], -1);

    /* the last word is a prefix, the others whole words; all of them needed */
    CHECK_STR(search(s, "zanzi", NULL).ids, "beta\nalpha\nzanzibar plans\n");
    CHECK_STR(search(s, "harbour zanz", NULL).ids, "alpha\n");
    CHECK_INT(search(s, "zanzi harbour", NULL).n, 0);
    CHECK_STR(search(s, "CALM   Harbour", NULL).ids, "alpha\n");
    /* diacritics and case */
    CHECK_STR(search(s, "cafe PRES", NULL).ids, "delta\n");
    CHECK_STR(search(s, "Café", NULL).ids, "delta\n");
    /* the workspace filter applies to both kinds of hit */
    CHECK_STR(search(s, "zanzibar", "/w").ids, "beta\nalpha\nzanzibar plans\n");
    CHECK_INT(search(s, "zanzibar", "/v").n, 0);
    /* a search of no word (only blanks) is the substring search of the titles */
    CHECK_STR(search(s, " ", NULL).ids, "zanzibar plans\n");
    free(a);
    free(b);
    free(c);
    free(d);
    store_free(s);
}

/* What FTS5 would take for syntax is plain text: never an error. */
static void test_hostile_queries(void)
{
    store *s = open_at("hostile.db");
    REQUIRE(s);
    char *a = new_task(s, "plain", "/w");
    REQUIRE(a);
    REQUIRE(put(s, a, 0, "the shop is near the harbour, a orange boat", false) == HEW_OK);
    static const char *const hostile[] = {
        "\"", "*", "NEAR(", "a OR", "-x", "\"unterminated", "AND", ")", "(", "a AND OR NOT",
        "col:umn", "text:harbour", "^", "{text}", "\"\"\"", "* *", "x\"y", "NEAR(a b, 2)",
        "+", "a -", "'", "%", "_", "\\",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        found f = search(s, hostile[i], NULL);
        if (f.rc != HEW_OK)
            fprintf(stderr, "query: %s\n", hostile[i]);
        CHECK_INT(f.rc, HEW_OK);
    }
    /* NEAR( is the word near; "a OR" the word a and a word starting "or" (orange) */
    CHECK_STR(search(s, "NEAR(", NULL).ids, "plain\n");
    CHECK_STR(search(s, "a OR", NULL).ids, "plain\n");
    CHECK_INT(search(s, "a ORX", NULL).n, 0); /* not "a" OR "orx" */
    CHECK_STR(search(s, "\"harbour\"", NULL).ids, "plain\n");
    CHECK_INT(search(s, "-harbour", NULL).n, 1); /* not a NOT: the word harbour */
    CHECK_INT(search(s, "is:near", NULL).n, 1); /* not a column filter: the words "is near" */
    free(a);
    store_free(s);
}

/* Only final messages; a message finished by appends is indexed by its folded text; a
 * replaced message's words go with it; the cap on a long text. */
static void test_what_is_indexed(void)
{
    store *s = open_at("what.db");
    REQUIRE(s);
    char *a = new_task(s, "t", "/w");
    REQUIRE(a);
    REQUIRE(put(s, a, 0, "growing: quince", true) == HEW_OK);
    CHECK_INT(search(s, "quince", NULL).n, 0); /* partial: not yet */
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(store_ui_append(s, a, 0, 15, " and kumquat", 12, &err), HEW_OK);
    CHECK_INT(search(s, "kumquat", NULL).n, 0);
    /* the end rewritten by the last append, as the events allow */
    CHECK_INT(store_ui_finish(s, a, 0, 19, " persimmon", 10, &err), HEW_OK);
    found f = search(s, "persimmon", NULL);
    CHECK_INT(f.n, 1);
    CHECK_INT(f.index[0], 0);
    CHECK_STR(f.snippet[0], "growing: quince and \x02persimmon\x03");
    CHECK_INT(search(s, "quince", NULL).n, 1);
    CHECK_INT(search(s, "kumquat", NULL).n, 0); /* cut away by the last append */

    /* replaced by another final form, then by a partial one: the row follows */
    REQUIRE(put(s, a, 1, "apple", false) == HEW_OK);
    CHECK_INT(search(s, "apple", NULL).n, 1);
    REQUIRE(put(s, a, 1, "banana", false) == HEW_OK);
    CHECK_INT(search(s, "apple", NULL).n, 0);
    CHECK_INT(search(s, "banana", NULL).n, 1);
    REQUIRE(put(s, a, 1, "banana again", true) == HEW_OK);
    CHECK_INT(search(s, "banana", NULL).n, 0);
    CHECK_INT(sql_num("what.db", "SELECT count(*) FROM msg_fts"), 1);

    /* our marks never come from the text: they are indexed as spaces */
    REQUIRE(put(s, a, 2, "odd\x02mango\x03 text", false) == HEW_OK);
    f = search(s, "mango", NULL);
    CHECK_STR(f.snippet[0], "odd \x02mango\x03  text");

    /* a long text: its first STORE_FTS_BYTES are indexed, the rest is not */
    buf big = BUF_INIT(0);
    buf_puts(&big, "papaya ");
    while (big.len < STORE_FTS_BYTES - 16)
        buf_puts(&big, "filler ");
    buf_puts(&big, "guava ");
    while (big.len < STORE_FTS_BYTES + 4096)
        buf_puts(&big, "filler ");
    buf_puts(&big, "tamarind");
    REQUIRE(put(s, a, 3, big.data, false) == HEW_OK);
    CHECK_INT(search(s, "papaya", NULL).n, 1);
    CHECK_INT(search(s, "guava", NULL).n, 1);
    CHECK_INT(search(s, "tamarind", NULL).n, 0);
    CHECK(sql_num("what.db", "SELECT max(length(text)) FROM msg_fts") <= (long long)STORE_FTS_BYTES);

    /* the same text grown by appends of 1 KiB and finished by one: the same words */
    REQUIRE(put(s, a, 4, "", true) == HEW_OK);
    size_t off = 0;
    while (off < big.len) {
        size_t n = big.len - off < 1024 ? big.len - off : 1024;
        bool last = off + n == big.len;
        hew_code rc = last ? store_ui_finish(s, a, 4, off, big.data + off, n, &err)
                           : store_ui_append(s, a, 4, off, big.data + off, n, &err);
        REQUIRE(rc == HEW_OK);
        off += n;
    }
    f = search(s, "guava", NULL);
    CHECK_INT(f.n, 1);
    CHECK_INT(sql_num("what.db", "SELECT count(*) FROM msg_fts WHERE msg_fts MATCH 'guava'"), 2);
    CHECK_INT(sql_num("what.db", "SELECT count(*) FROM msg_fts WHERE msg_fts MATCH 'tamarind'"),
              0);
    CHECK_INT(sql_num("what.db", "SELECT length(text) FROM msg_fts WHERE rowid = "
                                 "(SELECT max(rowid) FROM msg_fts)"),
              (long long)STORE_FTS_BYTES);
    buf_release(&big);
    free(a);
    store_free(s);
}

/* Truncation and deletion take the index rows with the messages; an import is indexed. */
static void test_truncate_delete_import(void)
{
    store *s = open_at("trunc.db");
    REQUIRE(s);
    char *a = new_task(s, "one", "/w"), *b = new_task(s, "two", "/w");
    REQUIRE(a && b);
    for (long i = 0; i < 4; i++)
        REQUIRE(put(s, a, i, i == 3 ? "lychee at the end" : "lychee", false) == HEW_OK);
    REQUIRE(put(s, b, 0, "lychee too", false) == HEW_OK);
    CHECK_INT(sql_num("trunc.db", "SELECT count(*) FROM msg_fts"), 5);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(store_ui_truncate(s, a, 2, &err), HEW_OK);
    CHECK_INT(sql_num("trunc.db", "SELECT count(*) FROM msg_fts"), 3);
    CHECK_INT(search(s, "end", NULL).n, 0);
    CHECK_INT(search(s, "lychee", NULL).n, 2);

    CHECK_INT(store_task_export(s, a, at("exp"), &err), HEW_OK);
    CHECK_INT(store_task_delete(s, a, &err), HEW_OK);
    CHECK_INT(sql_num("trunc.db", "SELECT count(*) FROM msg_fts"), 1);
    CHECK_STR(search(s, "lychee", NULL).ids, "two\n");

    char *id = NULL;
    CHECK_INT(store_task_import(s, at("exp"), NULL, &id, &err), HEW_OK);
    CHECK_INT(sql_num("trunc.db", "SELECT count(*) FROM msg_fts"), 3);
    found f = search(s, "lychee", NULL);
    CHECK_INT(f.n, 2);
    free(id);
    free(a);
    free(b);
    store_free(s);
}

/* A database of schema 4 (the index dropped, the version put back, as the old hew left
 * it) is migrated on open and its messages are indexed, a message finished by appends
 * by its folded text, a partial one not at all. */
static void test_schema_4_is_indexed(void)
{
    store *s = open_at("v4.db");
    REQUIRE(s);
    char *a = new_task(s, "old task", "/w");
    REQUIRE(a);
    REQUIRE(put(s, a, 0, "fix the durian parser", false) == HEW_OK);
    REQUIRE(put(s, a, 1, "thinking about", true) == HEW_OK);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(store_ui_finish(s, a, 1, 14, " rambutan", 9, &err), HEW_OK);
    REQUIRE(put(s, a, 2, "still going: jackfruit", true) == HEW_OK);
    store_free(s);

    sqlite3 *db;
    REQUIRE(sqlite3_open(at("v4.db"), &db) == SQLITE_OK);
    CHECK_INT(sqlite3_exec(db, "DROP TABLE msg_fts; PRAGMA user_version = 4;", NULL, NULL, NULL),
              SQLITE_OK);
    sqlite3_close(db);
    CHECK_INT(sql_num("v4.db", "SELECT count(*) FROM sqlite_schema WHERE name = 'msg_fts'"), 0);

    s = open_at("v4.db");
    REQUIRE(s);
    CHECK_INT(sql_num("v4.db", "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    CHECK_INT(sql_num("v4.db", "SELECT count(*) FROM msg_fts"), 2);
    CHECK_STR(search(s, "durian", NULL).ids, "old task\n");
    found f = search(s, "rambutan", NULL);
    CHECK_INT(f.n, 1);
    CHECK_INT(f.index[0], 1);
    CHECK_STR(f.snippet[0], "thinking about \x02rambutan\x03");
    CHECK_INT(search(s, "jackfruit", NULL).n, 0);
    free(a);
    store_free(s);
}

int main(void)
{
    dir = tmpdir_make("store-fts");
    if (!dir)
        return 1;
    RUN(test_search_ranks_and_snips);
    RUN(test_hostile_queries);
    RUN(test_what_is_indexed);
    RUN(test_truncate_delete_import);
    RUN(test_schema_4_is_indexed);
    tmpdir_remove(dir);
    free(dir);
    return check_report();
}
