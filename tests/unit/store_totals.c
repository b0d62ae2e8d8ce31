/* store_totals — a task's totals in the store (issue #16, "totals that add up"): every field
 * (tokens in, out, cache reads, cache writes, cost, requests) round-trips through
 * STORE_SET_USAGE, store_task_get, the history list and an export → import; and a database
 * of schema 1 (before requests were counted) is migrated with each task's requests counted
 * from its api_req_started messages. Scratch databases only. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    if (store_open(&o, &s, &err) != HEW_OK)
        fprintf(stderr, "store_open: %s\n", err.msg);
    return s;
}

static void check_row(const store_task *t, long long in, long long out, long long cr,
                      long long cw, double cost, long long requests)
{
    CHECK_INT(t->tokens_in, in);
    CHECK_INT(t->tokens_out, out);
    CHECK_INT(t->cache_reads, cr);
    CHECK_INT(t->cache_writes, cw);
    CHECK(t->cost == cost); /* a REAL column keeps the double exactly */
    CHECK_INT(t->requests, requests);
}

static void test_every_total_round_trips(void)
{
    store *s = open_at("rt.db");
    REQUIRE(s);
    store_task init = STORE_TASK_INIT;
    init.title = "Add it up";
    init.workspace = "/w";
    init.provider = "anthropic";
    init.model = "claude-sonnet-4-5";
    char *id = NULL;
    REQUIRE(store_task_create(s, &init, &id, NULL) == HEW_OK);
    store_task row = STORE_TASK_INIT;
    REQUIRE(store_task_get(s, id, &row, NULL) == HEW_OK);
    check_row(&row, 0, 0, 0, 0, 0, 0);
    store_task_release(&row);

    store_task u = STORE_TASK_INIT;
    u.id = id;
    u.tokens_in = 5000;
    u.tokens_out = 41;
    u.cache_reads = 2100;
    u.cache_writes = 400;
    u.cost = 0.017745;
    u.requests = 3;
    REQUIRE(store_task_update(s, &u, STORE_SET_USAGE, NULL) == HEW_OK);
    REQUIRE(store_task_get(s, id, &row, NULL) == HEW_OK);
    check_row(&row, 5000, 41, 2100, 400, 0.017745, 3);
    store_task_release(&row);

    /* Other fields leave them alone. */
    u.tokens_in = u.tokens_out = u.cache_reads = u.cache_writes = u.requests = 0;
    u.cost = 0;
    u.mode = "plan";
    REQUIRE(store_task_update(s, &u, STORE_SET_MODE, NULL) == HEW_OK);
    store_task *list = NULL;
    size_t n = 0;
    store_query q = STORE_QUERY_INIT;
    REQUIRE(store_task_list(s, &q, &list, &n, NULL) == HEW_OK);
    REQUIRE(n == 1);
    check_row(&list[0], 5000, 41, 2100, 400, 0.017745, 3);
    store_task_list_free(list, n);

    /* export → import keeps them */
    REQUIRE(store_task_export(s, id, at("exported"), NULL) == HEW_OK);
    char *imported = NULL;
    REQUIRE(store_task_import(s, at("exported"), NULL, &imported, NULL) == HEW_OK);
    REQUIRE(store_task_get(s, imported, &row, NULL) == HEW_OK);
    check_row(&row, 5000, 41, 2100, 400, 0.017745, 3);
    store_task_release(&row);
    free(imported);
    free(id);
    store_free(s);
}

/* The schema of version 1, as hew wrote it before requests were counted. */
static const char v1_schema[] =
    "CREATE TABLE tasks (tid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, workspace TEXT NOT "
    "NULL, title TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT "
    "NULL, status TEXT NOT NULL, result TEXT, created_ms INTEGER NOT NULL, updated_ms INTEGER "
    "NOT NULL, tokens_in INTEGER NOT NULL DEFAULT 0, tokens_out INTEGER NOT NULL DEFAULT 0, "
    "cache_reads INTEGER NOT NULL DEFAULT 0, cache_writes INTEGER NOT NULL DEFAULT 0, cost "
    "REAL NOT NULL DEFAULT 0, deleted_start INTEGER, deleted_end INTEGER) STRICT;"
    "CREATE INDEX tasks_by_updated ON tasks(updated_ms DESC, id DESC);"
    "CREATE TABLE api_messages (tid INTEGER NOT NULL, ord INTEGER NOT NULL, json TEXT NOT "
    "NULL, PRIMARY KEY (tid, ord)) STRICT;"
    "CREATE TABLE ui_messages (tid INTEGER NOT NULL, idx INTEGER NOT NULL, json TEXT NOT "
    "NULL, PRIMARY KEY (tid, idx)) STRICT;"
    "CREATE TABLE context_rewrites (tid INTEGER NOT NULL, seq INTEGER NOT NULL, msg INTEGER "
    "NOT NULL, block INTEGER NOT NULL, ts INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY "
    "(tid, seq)) STRICT;"
    "INSERT INTO tasks (id, workspace, title, provider, model, mode, status, created_ms, "
    "updated_ms, tokens_in, tokens_out, cache_reads, cache_writes, cost) VALUES "
    "('100', '/w', 'old one', 'anthropic', 'm', 'act', 'completed', 1, 2, 10, 20, 30, 40, 0.5),"
    "('200', '/w', 'never sent', 'anthropic', 'm', 'act', 'aborted', 1, 2, 0, 0, 0, 0, 0);"
    "INSERT INTO ui_messages (tid, idx, json) VALUES "
    "(1, 0, '{\"v\":1,\"index\":0,\"ts\":1,\"kind\":\"say\",\"type\":\"task\",\"partial\":false,"
    "\"text\":\"api_req_started\"}'),"
    "(1, 1, '{\"v\":1,\"index\":1,\"ts\":1,\"kind\":\"say\",\"type\":\"api_req_started\","
    "\"partial\":false,\"data\":{\"request\":\"x\"}}'),"
    "(1, 2, '{\"v\":1,\"index\":2,\"ts\":1,\"kind\":\"say\",\"type\":\"text\",\"partial\":false,"
    "\"text\":\"hi\"}'),"
    "(1, 3, '{\"v\":1,\"index\":3,\"ts\":1,\"kind\":\"say\",\"type\":\"api_req_started\","
    "\"partial\":false,\"data\":{\"request\":\"y\"}}'),"
    "(2, 0, 'not json');"
    "PRAGMA user_version = 1;";

static void test_schema_1_is_migrated_with_requests_counted(void)
{
    sqlite3 *db;
    REQUIRE(sqlite3_open(at("v1.db"), &db) == SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, v1_schema, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "v1 schema: %s\n", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    REQUIRE(rc == SQLITE_OK);

    store *s = open_at("v1.db");
    REQUIRE(s);
    store_task row = STORE_TASK_INIT;
    REQUIRE(store_task_get(s, "100", &row, NULL) == HEW_OK);
    check_row(&row, 10, 20, 30, 40, 0.5, 2);
    store_task_release(&row);
    REQUIRE(store_task_get(s, "200", &row, NULL) == HEW_OK);
    check_row(&row, 0, 0, 0, 0, 0, 0);
    store_task_release(&row);
    store_free(s);

    REQUIRE(sqlite3_open(at("v1.db"), &db) == SQLITE_OK);
    sqlite3_stmt *q;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL);
    CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == STORE_SCHEMA_VERSION);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

int main(void)
{
    dir = tmpdir_make("store-totals");
    if (!dir)
        return 1;
    RUN(test_every_total_round_trips);
    RUN(test_schema_1_is_migrated_with_requests_counted);
    tmpdir_remove(dir);
    free(dir);
    return check_report();
}
