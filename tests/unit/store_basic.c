/* Unit tests for store/: opening and the schema, task rows, messages (put, replace,
 * holes refused, truncation), UI messages with held partials, context rewrites, loading,
 * history list/search/delete, the per-task lock (also across processes), two processes
 * writing at once, export → import round trips (hew's and Cline's own layout), and the
 * fast JSON loader against jansson. Every database lives in a scratch directory: it never
 * touches the user's hew.db. */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "check.h"
#include "store/jload.h"
#include "store/store.h"
#include "tmpdir.h"

static char *dir;

static char *at(const char *name)
{
    static char paths[8][4096];
    static int next;
    char *p = paths[next++ % 8];
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

static char *new_task(store *s, const char *title, const char *ws)
{
    store_task init = STORE_TASK_INIT;
    init.title = (char *)title;
    init.workspace = (char *)ws;
    init.provider = "anthropic";
    init.model = "claude-x";
    char *id = NULL;
    hew_err err = HEW_ERR_INIT;
    if (store_task_create(s, &init, &id, &err) != HEW_OK)
        fprintf(stderr, "create: %s\n", err.msg);
    return id;
}

static json_t *msg_text(const char *role, const char *text)
{
    return json_pack("{s:s, s:[{s:s, s:s}]}", "role", role, "content", "type", "text", "text",
                     text);
}

static const char *ui_line(long i, const char *text, bool partial)
{
    static char line[512];
    snprintf(line, sizeof line,
             "{\"v\":1,\"index\":%ld,\"ts\":1,\"kind\":\"say\",\"type\":\"text\",\"partial\":%s,"
             "\"text\":\"%s\"}",
             i, partial ? "true" : "false", text);
    return line;
}

/* ---- opening ------------------------------------------------------------------------------ */

static void test_open_schema(void)
{
    store *s = open_at("a/b/hew.db");
    REQUIRE(s);
    struct stat st;
    CHECK(stat(at("a/b/hew.db"), &st) == 0 && (st.st_mode & 0777) == 0600);
    store_free(s);

    sqlite3 *db;
    REQUIRE(sqlite3_open(at("a/b/hew.db"), &db) == SQLITE_OK);
    sqlite3_stmt *q;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL);
    CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == STORE_SCHEMA_VERSION);
    sqlite3_finalize(q);
    sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &q, NULL);
    CHECK(sqlite3_step(q) == SQLITE_ROW &&
          strcmp((const char *)sqlite3_column_text(q, 0), "wal") == 0);
    sqlite3_finalize(q);
    sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                           "sql LIKE '%STRICT'", -1, &q, NULL);
    /* tasks, api_messages, ui_messages, ui_parts, context_rewrites, api_parts */
    CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 6);
    sqlite3_finalize(q);
    /* a newer schema is refused */
    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(db);
    store_options o = STORE_OPTIONS_INIT;
    o.path = at("a/b/hew.db");
    hew_err err = HEW_ERR_INIT;
    s = NULL;
    CHECK_INT(store_open(&o, &s, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "newer hew") != NULL);
    CHECK(s == NULL);

    /* not a database */
    fs_write_atomic(at("junk.db"), "this is not sqlite at all, not at all............", 50,
                    0600, NULL);
    o.path = at("junk.db");
    CHECK(store_open(&o, &s, &err) != HEW_OK);
}

static void test_default_path(void)
{
    char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    setenv("XDG_DATA_HOME", "/x/data", 1);
    char *p = store_default_path(NULL);
    CHECK_STR(p, "/x/data/hew/hew.db");
    free(p);
    unsetenv("XDG_DATA_HOME");
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", "/home/u", 1);
    p = store_default_path(NULL);
    CHECK_STR(p, "/home/u/.local/share/hew/hew.db");
    free(p);
    if (old_home)
        setenv("HOME", old_home, 1);
    if (old_xdg)
        setenv("XDG_DATA_HOME", old_xdg, 1);
    free(old_home);
    free(old_xdg);
}

/* ---- rows and messages ---------------------------------------------------------------------- */

static void test_task_rows(void)
{
    store *s = open_at("rows.db");
    REQUIRE(s);
    char *id = new_task(s, "fix the bug", "/w/one");
    REQUIRE(id);
    hew_err err = HEW_ERR_INIT;
    store_task t;
    REQUIRE(store_task_get(s, id, &t, &err) == HEW_OK);
    CHECK_STR(t.title, "fix the bug");
    CHECK_STR(t.workspace, "/w/one");
    CHECK_STR(t.mode, "act");
    CHECK_STR(t.status, "running");
    CHECK(t.result == NULL);
    CHECK(!t.has_deleted);
    CHECK(t.created_ms > 0 && t.updated_ms >= t.created_ms);
    CHECK_INT(t.api_count, 0);
    store_task_release(&t);

    store_task u = STORE_TASK_INIT;
    u.id = id;
    u.tokens_in = 100;
    u.tokens_out = 20;
    u.cache_reads = 3;
    u.cache_writes = 4;
    u.cost = 0.25;
    u.has_deleted = true;
    u.deleted_start = 2;
    u.deleted_end = 5;
    u.status = "completed";
    u.result = "done it";
    u.mode = "plan";
    REQUIRE(store_task_update(s, &u, STORE_SET_USAGE | STORE_SET_DELETED | STORE_SET_STATUS |
                                         STORE_SET_MODE, &err) == HEW_OK);
    REQUIRE(store_task_get(s, id, &t, &err) == HEW_OK);
    CHECK_INT(t.tokens_in, 100);
    CHECK_INT(t.tokens_out, 20);
    CHECK_INT(t.cache_reads, 3);
    CHECK_INT(t.cache_writes, 4);
    CHECK(t.cost == 0.25);
    CHECK(t.has_deleted && t.deleted_start == 2 && t.deleted_end == 5);
    CHECK_STR(t.status, "completed");
    CHECK_STR(t.result, "done it");
    CHECK_STR(t.mode, "plan");
    CHECK_STR(t.model, "claude-x"); /* untouched */
    store_task_release(&t);
    u.has_deleted = false;
    REQUIRE(store_task_update(s, &u, STORE_SET_DELETED, &err) == HEW_OK);
    REQUIRE(store_task_get(s, id, &t, &err) == HEW_OK);
    CHECK(!t.has_deleted);
    store_task_release(&t);

    /* errors */
    u.id = "nope";
    CHECK_INT(store_task_update(s, &u, STORE_SET_USAGE, &err), HEW_E_NOTFOUND);
    CHECK_INT(store_task_get(s, "nope", &t, &err), HEW_E_NOTFOUND);
    CHECK_INT(store_task_get(s, "../etc", &t, &err), HEW_E_INVALID);
    store_task dup = STORE_TASK_INIT;
    dup.id = id;
    CHECK_INT(store_task_create(s, &dup, NULL, &err), HEW_E_INVALID);
    /* ids are unique even when made in the same millisecond */
    char *ids[5];
    for (int i = 0; i < 5; i++)
        ids[i] = new_task(s, "t", "/w");
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            CHECK(strcmp(ids[i], ids[j]) != 0);
    for (int i = 0; i < 5; i++)
        free(ids[i]);
    free(id);
    store_free(s);
}

static void test_messages_and_load(void)
{
    store *s = open_at("msgs.db");
    REQUIRE(s);
    char *id = new_task(s, "task", "/w");
    REQUIRE(id);
    hew_err err = HEW_ERR_INIT;
    json_t *h = json_array();
    for (int i = 0; i < 6; i++) {
        char text[64];
        snprintf(text, sizeof text, "message %d \"quoted\" \\ \n é \u263a", i);
        json_t *m = msg_text(i % 2 ? "assistant" : "user", text);
        REQUIRE(store_api_put(s, id, (size_t)i, m, &err) == HEW_OK);
        json_array_append_new(h, m);
    }
    /* a hole is refused, a replace works */
    json_t *m = msg_text("user", "x");
    CHECK_INT(store_api_put(s, id, 8, m, &err), HEW_E_INVALID);
    json_decref(m);
    m = json_pack("{s:s, s:[{s:s, s:s, s:s, s:{s:s}}]}", "role", "assistant", "content", "type",
                  "tool_use", "id", "toolu_1", "name", "read_file", "input", "path", "a.c");
    REQUIRE(store_api_put(s, id, 5, m, &err) == HEW_OK);
    json_array_set_new(h, 5, m);
    /* string content and numbers survive */
    m = json_pack("{s:s, s:s, s:I, s:f, s:b, s:n}", "role", "user", "content", "plain text",
                  "n", (json_int_t)-9007199254740993LL, "r", 1.5e-7, "b", 1, "z");
    REQUIRE(store_api_put(s, id, 6, m, &err) == HEW_OK);
    json_array_append_new(h, m);

    for (long i = 0; i < 3; i++)
        REQUIRE(store_ui_put(s, id, i, ui_line(i, "hi", false), strlen(ui_line(i, "hi", false)),
                             false, &err) == HEW_OK);
    CHECK_INT(store_ui_put(s, id, 3, "{not json", 9, false, &err), HEW_E_INVALID);
    REQUIRE(store_rewrite_add(s, id, 4, 0, "collapsed", &err) == HEW_OK);
    REQUIRE(store_rewrite_add(s, id, 6, 1, "late", &err) == HEW_OK);

    store_loaded l;
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    CHECK(json_equal(l.history, h));
    CHECK_INT(json_array_size(l.ui), 3);
    CHECK_STR(json_string_value(json_object_get(json_array_get(l.ui, 2), "text")), "hi");
    CHECK_INT(json_array_size(l.rewrites), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(l.rewrites, 0), "text")),
              "collapsed");
    CHECK_INT(l.task.api_count, 7);
    CHECK_INT(l.task.ui_count, 3);
    store_loaded_release(&l);

    /* truncation: history and the rewrites of the cut messages */
    REQUIRE(store_api_truncate(s, id, 5, &err) == HEW_OK);
    REQUIRE(store_ui_truncate(s, id, 1, &err) == HEW_OK);
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    CHECK_INT(json_array_size(l.history), 5);
    CHECK_INT(json_array_size(l.ui), 1);
    CHECK_INT(json_array_size(l.rewrites), 1);
    store_loaded_release(&l);
    CHECK_INT(store_task_load(s, "missing", &l, &err), HEW_E_NOTFOUND);
    CHECK(l.history == NULL);
    json_decref(h);
    free(id);
    store_free(s);
}

static int64_t ui_rows(const char *path, const char *id, long idx, char *text, size_t cap)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return -1;
    sqlite3_stmt *q;
    sqlite3_prepare_v2(db, "SELECT u.json FROM ui_messages u JOIN tasks t USING (tid) "
                           "WHERE t.id = ?1 AND u.idx = ?2", -1, &q, NULL);
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, idx);
    int64_t n = 0;
    if (sqlite3_step(q) == SQLITE_ROW) {
        n = 1;
        snprintf(text, cap, "%s", (const char *)sqlite3_column_text(q, 0));
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    return n;
}

static void test_partials(void)
{
    store_options o = STORE_OPTIONS_INIT;
    o.path = at("partial.db");
    o.partial_interval_ms = 200;
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(store_open(&o, &s, &err) == HEW_OK);
    char *id = new_task(s, "t", "/w");
    char seen[512];
    /* the first partial is committed at once, the next ones held back */
    const char *l1 = ui_line(0, "a", true);
    REQUIRE(store_ui_put(s, id, 0, l1, strlen(l1), true, &err) == HEW_OK);
    CHECK(ui_rows(o.path, id, 0, seen, sizeof seen) == 1 && strstr(seen, "\"a\""));
    const char *l2 = ui_line(0, "ab", true);
    REQUIRE(store_ui_put(s, id, 0, l2, strlen(l2), true, &err) == HEW_OK);
    CHECK(ui_rows(o.path, id, 0, seen, sizeof seen) == 1 && strstr(seen, "\"a\""));
    /* after the interval, the next call commits */
    usleep(250 * 1000);
    const char *l3 = ui_line(0, "abc", true);
    REQUIRE(store_ui_put(s, id, 0, l3, strlen(l3), true, &err) == HEW_OK);
    CHECK(ui_rows(o.path, id, 0, seen, sizeof seen) == 1 && strstr(seen, "\"abc\""));
    const char *l4 = ui_line(0, "abcd", true);
    REQUIRE(store_ui_put(s, id, 0, l4, strlen(l4), true, &err) == HEW_OK);
    CHECK(strstr(seen, "\"abc\""));
    /* another message commits the held one first */
    const char *m1 = ui_line(1, "other", false);
    REQUIRE(store_ui_put(s, id, 1, m1, strlen(m1), false, &err) == HEW_OK);
    CHECK(ui_rows(o.path, id, 0, seen, sizeof seen) == 1 && strstr(seen, "\"abcd\""));
    /* the final version replaces a held partial */
    const char *p5 = ui_line(1, "o2", true);
    usleep(250 * 1000);
    REQUIRE(store_ui_put(s, id, 1, p5, strlen(p5), true, &err) == HEW_OK); /* committed */
    const char *p6 = ui_line(1, "o23", true);
    REQUIRE(store_ui_put(s, id, 1, p6, strlen(p6), true, &err) == HEW_OK); /* held */
    const char *f = ui_line(1, "o234", false);
    REQUIRE(store_ui_put(s, id, 1, f, strlen(f), false, &err) == HEW_OK);
    CHECK(ui_rows(o.path, id, 1, seen, sizeof seen) == 1 && strstr(seen, "\"o234\""));
    /* store_flush and store_free commit what is held */
    const char *p7 = ui_line(2, "x", true);
    usleep(250 * 1000);
    REQUIRE(store_ui_put(s, id, 2, p7, strlen(p7), true, &err) == HEW_OK);
    const char *p8 = ui_line(2, "xy", true);
    REQUIRE(store_ui_put(s, id, 2, p8, strlen(p8), true, &err) == HEW_OK);
    CHECK(ui_rows(o.path, id, 2, seen, sizeof seen) == 1 && strstr(seen, "\"x\""));
    REQUIRE(store_flush(s, &err) == HEW_OK);
    CHECK(ui_rows(o.path, id, 2, seen, sizeof seen) == 1 && strstr(seen, "\"xy\""));
    const char *p9 = ui_line(2, "xyz", true);
    REQUIRE(store_ui_put(s, id, 2, p9, strlen(p9), true, &err) == HEW_OK);
    store_free(s);
    CHECK(ui_rows(o.path, id, 2, seen, sizeof seen) == 1 && strstr(seen, "\"xyz\""));
    free(id);
}

/* ---- history ------------------------------------------------------------------------------- */

static void test_list_search_delete(void)
{
    store *s = open_at("list.db");
    REQUIRE(s);
    hew_err err = HEW_ERR_INIT;
    char *a = new_task(s, "Refactor the parser", "/w/one");
    usleep(3000);
    char *b = new_task(s, "write 100% tests_here", "/w/two");
    usleep(3000);
    char *c = new_task(s, "deploy", "/w/one");
    usleep(3000);
    json_t *m = msg_text("user", "x");
    REQUIRE(store_api_put(s, a, 0, m, &err) == HEW_OK); /* a becomes the newest */
    json_decref(m);

    store_task *items;
    size_t n;
    REQUIRE(store_task_list(s, NULL, &items, &n, &err) == HEW_OK);
    REQUIRE(n == 3);
    CHECK_STR(items[0].id, a);
    CHECK_STR(items[1].id, c);
    CHECK_STR(items[2].id, b);
    CHECK_INT(items[0].api_count, 1);
    store_task_list_free(items, n);

    store_query q = STORE_QUERY_INIT;
    q.text = "PARSER";
    REQUIRE(store_task_list(s, &q, &items, &n, &err) == HEW_OK);
    CHECK(n == 1 && strcmp(items[0].id, a) == 0);
    store_task_list_free(items, n);
    q.text = "100%"; /* % and _ are literal */
    REQUIRE(store_task_list(s, &q, &items, &n, &err) == HEW_OK);
    CHECK(n == 1 && strcmp(items[0].id, b) == 0);
    store_task_list_free(items, n);
    q.text = "0%";
    REQUIRE(store_task_list(s, &q, &items, &n, &err) == HEW_OK);
    CHECK(n == 1);
    store_task_list_free(items, n);
    q.text = "s_h";
    REQUIRE(store_task_list(s, &q, &items, &n, &err) == HEW_OK);
    CHECK(n == 1);
    store_task_list_free(items, n);
    q.text = "x_x";
    REQUIRE(store_task_list(s, &q, &items, &n, &err) == HEW_OK);
    CHECK(n == 0);
    store_task_list_free(items, n);
    q.text = NULL;
    q.workspace = "/w/one";
    REQUIRE(store_task_list(s, &q, &items, &n, &err) == HEW_OK);
    CHECK(n == 2);
    store_task_list_free(items, n);
    q.workspace = NULL;
    q.limit = 1;
    q.offset = 1;
    REQUIRE(store_task_list(s, &q, &items, &n, &err) == HEW_OK);
    CHECK(n == 1 && strcmp(items[0].id, c) == 0);
    store_task_list_free(items, n);

    /* delete: refused while locked, then gone with its messages */
    store_lock *l;
    REQUIRE(store_task_lock(s, a, 0, &l, &err) == HEW_OK);
    CHECK(store_task_locked(s, a));
    CHECK_INT(store_task_delete(s, a, &err), HEW_E_TIMEOUT);
    store_lock_free(l);
    CHECK(!store_task_locked(s, a));
    REQUIRE(store_task_delete(s, a, &err) == HEW_OK);
    CHECK_INT(store_task_delete(s, a, &err), HEW_E_NOTFOUND);
    store_task t;
    CHECK_INT(store_task_get(s, a, &t, &err), HEW_E_NOTFOUND);
    REQUIRE(store_task_list(s, NULL, &items, &n, &err) == HEW_OK);
    CHECK(n == 2);
    store_task_list_free(items, n);
    free(a);
    free(b);
    free(c);
    store_free(s);
}

/* ---- locks and two processes ------------------------------------------------------------------ */

static void test_lock(void)
{
    store *s = open_at("lock.db");
    REQUIRE(s);
    hew_err err = HEW_ERR_INIT;
    char *id = new_task(s, "t", "/w");
    /* The child is forked before the lock is taken: a child forked while it is held
     * shares the open file, and with it the flock, until it exits or execs. */
    int fds[2], go[2];
    REQUIRE(pipe(fds) == 0 && pipe(go) == 0);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        close(go[1]);
        char g;
        if (read(go[0], &g, 1) != 1)
            _exit(2);
        store *cs = open_at("lock.db");
        store_lock *cl = NULL;
        hew_code first = store_task_lock(cs, id, 0, &cl, NULL);
        char r = first == HEW_E_TIMEOUT ? 'T' : 'x';
        if (write(fds[1], &r, 1) != 1)
            _exit(3);
        hew_code second = store_task_lock(cs, id, 5000, &cl, NULL);
        r = second == HEW_OK ? 'O' : 'y';
        if (write(fds[1], &r, 1) != 1)
            _exit(3);
        /* die holding it: the kernel must release it */
        kill(getpid(), SIGKILL);
        _exit(4);
    }
    close(fds[1]);
    close(go[0]);
    store_lock *l1, *l2;
    REQUIRE(store_task_lock(s, id, 0, &l1, &err) == HEW_OK);
    /* the same task cannot be opened twice, also not in the same process */
    CHECK_INT(store_task_lock(s, id, 50, &l2, &err), HEW_E_TIMEOUT);
    CHECK(l2 == NULL);
    char pid[32];
    snprintf(pid, sizeof pid, "process %ld", (long)getpid());
    CHECK(strstr(err.msg, pid) != NULL);
    CHECK_INT(store_task_lock(s, "nosuch", 0, &l2, &err), HEW_E_NOTFOUND);

    /* another process waits, then gets it when the first lets go */
    CHECK(write(go[1], "g", 1) == 1);
    close(go[1]);
    char r = 0;
    CHECK(read(fds[0], &r, 1) == 1 && r == 'T');
    usleep(100 * 1000);
    store_lock_free(l1);
    CHECK(read(fds[0], &r, 1) == 1 && r == 'O');
    int status;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    close(fds[0]);
    /* the dead owner's lock is free again */
    REQUIRE(store_task_lock(s, id, 0, &l1, &err) == HEW_OK);
    store_lock_free(l1);
    free(id);
    store_free(s);
}

static void test_two_processes(void)
{
    store *s = open_at("two.db");
    REQUIRE(s);
    hew_err err = HEW_ERR_INIT;
    char *ids[2] = { new_task(s, "one", "/w"), new_task(s, "two", "/w") };
    enum { N = 300 };
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            store *cs = open_at("two.db");
            store_lock *l;
            if (!cs || store_task_lock(cs, ids[k], 0, &l, NULL) != HEW_OK)
                _exit(2);
            for (int i = 0; i < N; i++) {
                char text[64];
                snprintf(text, sizeof text, "p%d m%d", k, i);
                json_t *m = msg_text(i % 2 ? "assistant" : "user", text);
                hew_err e = HEW_ERR_INIT;
                if (store_api_put(cs, ids[k], (size_t)i, m, &e) != HEW_OK) {
                    fprintf(stderr, "child %d: %s\n", k, e.msg);
                    _exit(3);
                }
                json_decref(m);
                const char *line = ui_line(i, "u", false);
                if (store_ui_put(cs, ids[k], i, line, strlen(line), false, &e) != HEW_OK)
                    _exit(4);
            }
            store_lock_free(l);
            store_free(cs);
            _exit(0);
        }
    }
    /* the parent reads meanwhile */
    for (int i = 0; i < 20; i++) {
        store_task *items;
        size_t n;
        CHECK(store_task_list(s, NULL, &items, &n, &err) == HEW_OK);
        store_task_list_free(items, n);
        usleep(2000);
    }
    for (int k = 0; k < 2; k++) {
        int status;
        waitpid(kids[k], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        store_loaded l;
        REQUIRE(store_task_load(s, ids[k], &l, &err) == HEW_OK);
        CHECK_INT(json_array_size(l.history), N);
        CHECK_INT(json_array_size(l.ui), N);
        char text[64];
        snprintf(text, sizeof text, "p%d m%d", k, N - 1);
        CHECK_STR(json_string_value(json_object_get(
                      json_array_get(json_object_get(json_array_get(l.history, N - 1), "content"), 0),
                      "text")),
                  text);
        store_loaded_release(&l);
        free(ids[k]);
    }
    store_free(s);
}

/* ---- export / import ----------------------------------------------------------------------- */

static void fill_task(store *s, const char *id)
{
    hew_err err = HEW_ERR_INIT;
    json_t *h = json_pack(
        "[{s:s, s:[{s:s, s:s}]},"
        " {s:s, s:[{s:s, s:s}, {s:s, s:s, s:s, s:{s:s}}]},"
        " {s:s, s:[{s:s, s:s, s:s, s:b}, {s:s, s:s}]},"
        " {s:s, s:s}]",
        "role", "user", "content", "type", "text", "text", "<task>\nfix it\n</task>",
        "role", "assistant", "content", "type", "text", "text", "reading", "type", "tool_use",
        "id", "toolu_1", "name", "read_file", "input", "path", "a.c",
        "role", "user", "content", "type", "tool_result", "tool_use_id", "toolu_1", "content",
        "[read_file for 'a.c'] Result:\n1 | int x;", "is_error", 0, "type", "text", "text",
        "<environment_details>…</environment_details>",
        "role", "assistant", "content", "done");
    for (size_t i = 0; i < json_array_size(h); i++)
        store_api_put(s, id, i, json_array_get(h, i), &err);
    json_decref(h);
    const char *ev[] = {
        "{\"v\":1,\"index\":0,\"ts\":1000,\"kind\":\"say\",\"type\":\"task\",\"partial\":false,"
        "\"text\":\"fix it\"}",
        "{\"v\":1,\"index\":1,\"ts\":1001,\"kind\":\"say\",\"type\":\"api_req_started\","
        "\"partial\":false,\"data\":{\"request\":\"r\",\"tokensIn\":10,\"tokensOut\":5,"
        "\"cost\":0.5}}",
        "{\"v\":1,\"index\":3,\"ts\":1003,\"kind\":\"ask\",\"type\":\"completion_result\","
        "\"partial\":false,\"text\":\"\"}",
    };
    for (size_t i = 0; i < 3; i++) {
        json_t *e = json_loads(ev[i], 0, NULL);
        store_ui_put(s, id, (long)json_integer_value(json_object_get(e, "index")), ev[i],
                     strlen(ev[i]), false, &err);
        json_decref(e);
    }
    store_rewrite_add(s, id, 2, 0, "[read_file for 'a.c'] Result:\n[NOTE] gone", &err);
    store_task u = STORE_TASK_INIT;
    u.id = (char *)id;
    u.tokens_in = 10;
    u.tokens_out = 5;
    u.cost = 0.5;
    u.has_deleted = true;
    u.deleted_start = 2;
    u.deleted_end = 3;
    u.status = "completed";
    u.result = "fixed";
    store_task_update(s, &u, STORE_SET_USAGE | STORE_SET_DELETED | STORE_SET_STATUS, &err);
}

static void same_row(const store_task *a, const store_task *b)
{
    CHECK_STR(a->workspace, b->workspace);
    CHECK_STR(a->title, b->title);
    CHECK_STR(a->provider, b->provider);
    CHECK_STR(a->model, b->model);
    CHECK_STR(a->mode, b->mode);
    CHECK_STR(a->status, b->status);
    CHECK((a->result == NULL) == (b->result == NULL));
    if (a->result && b->result)
        CHECK_STR(a->result, b->result);
    CHECK_INT(a->created_ms, b->created_ms);
    CHECK_INT(a->updated_ms, b->updated_ms);
    CHECK_INT(a->tokens_in, b->tokens_in);
    CHECK_INT(a->tokens_out, b->tokens_out);
    CHECK_INT(a->cache_reads, b->cache_reads);
    CHECK_INT(a->cache_writes, b->cache_writes);
    CHECK(a->cost == b->cost);
    CHECK(a->has_deleted == b->has_deleted);
    CHECK_INT(a->deleted_start, b->deleted_start);
    CHECK_INT(a->deleted_end, b->deleted_end);
    CHECK_INT(a->api_count, b->api_count);
    CHECK_INT(a->ui_count, b->ui_count);
}

static void test_export_import_round_trip(void)
{
    store *s = open_at("export.db");
    REQUIRE(s);
    hew_err err = HEW_ERR_INIT;
    char *id = new_task(s, "fix it", "/w/proj");
    fill_task(s, id);
    char *out = at("exported/task-dir");
    REQUIRE(store_task_export(s, id, out, &err) == HEW_OK);
    char path[4200];
    const char *files[] = { "api_conversation_history.json", "ui_messages.json",
                            "task_metadata.json" };
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        CHECK(fs_is_file(path));
    }
    /* Cline's shape */
    snprintf(path, sizeof path, "%s/ui_messages.json", out);
    json_t *ui = json_load_file(path, 0, NULL);
    CHECK_INT(json_array_size(ui), 3);
    json_t *m1 = json_array_get(ui, 1);
    CHECK_STR(json_string_value(json_object_get(m1, "type")), "say");
    CHECK_STR(json_string_value(json_object_get(m1, "say")), "api_req_started");
    json_t *info = json_loads(json_string_value(json_object_get(m1, "text")), 0, NULL);
    CHECK_INT(json_integer_value(json_object_get(info, "tokensIn")), 10);
    json_decref(info);
    json_t *m2 = json_array_get(ui, 2);
    CHECK_STR(json_string_value(json_object_get(m2, "ask")), "completion_result");
    CHECK(json_is_array(json_object_get(m2, "conversationHistoryDeletedRange")));
    json_decref(ui);
    snprintf(path, sizeof path, "%s/task_metadata.json", out);
    json_t *meta = json_load_file(path, 0, NULL);
    CHECK(json_is_array(json_object_get(meta, "files_in_context")));
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(meta, "model_usage"), 0), "model_id")),
              "claude-x");
    json_decref(meta);

    /* into another database: the same id, everything equal */
    store *s2 = open_at("import.db");
    REQUIRE(s2);
    char *id2 = NULL;
    REQUIRE(store_task_import(s2, out, NULL, &id2, &err) == HEW_OK);
    CHECK_STR(id2, id); /* the exported id, free in this database */
    store_loaded a, b;
    REQUIRE(store_task_load(s, id, &a, &err) == HEW_OK);
    REQUIRE(store_task_load(s2, id2, &b, &err) == HEW_OK);
    CHECK(json_equal(a.history, b.history));
    CHECK(json_equal(a.ui, b.ui));
    CHECK(json_equal(a.rewrites, b.rewrites));
    same_row(&a.task, &b.task);
    store_loaded_release(&b);
    /* into the same database: a new id, and the workspace can be overridden */
    char *id3 = NULL;
    REQUIRE(store_task_import(s, out, "/elsewhere", &id3, &err) == HEW_OK);
    CHECK(strcmp(id3, id) != 0);
    REQUIRE(store_task_load(s, id3, &b, &err) == HEW_OK);
    CHECK(json_equal(a.history, b.history));
    CHECK(json_equal(a.ui, b.ui));
    CHECK_STR(b.task.workspace, "/elsewhere");
    store_loaded_release(&b);
    store_loaded_release(&a);
    free(id2);
    free(id3);
    free(id);
    store_free(s2);
    store_free(s);
}

static void put_file(const char *d, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", d, name);
    fs_mkdirs(d, 0700, NULL);
    fs_write_atomic(path, text, strlen(text), 0600, NULL);
}

static void test_import_cline_layout(void)
{
    store *s = open_at("cline.db");
    REQUIRE(s);
    hew_err err = HEW_ERR_INIT;
    char *d = at("tasks/1764669000123");
    put_file(d, "api_conversation_history.json",
             "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<task>\\nhi\\n</task>\"}],"
             "\"ts\":1},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}]");
    put_file(d, "ui_messages.json",
             "[{\"ts\":1764669000123,\"type\":\"say\",\"say\":\"task\",\"text\":\"hi\"},"
             "{\"ts\":1764669000200,\"type\":\"say\",\"say\":\"api_req_started\",\"text\":"
             "\"{\\\"request\\\":\\\"x\\\",\\\"tokensIn\\\":7,\\\"tokensOut\\\":3,\\\"cacheReads\\\":2,"
             "\\\"cacheWrites\\\":1,\\\"cost\\\":0.01}\"},"
             "{\"ts\":1764669000300,\"type\":\"say\",\"say\":\"text\",\"text\":\"ok\",\"partial\":false},"
             "{\"ts\":1764669000400,\"type\":\"say\",\"say\":\"completion_result\",\"text\":\"all done\","
             "\"conversationHistoryDeletedRange\":[2,3]},"
             "{\"ts\":1764669000500,\"type\":\"ask\",\"ask\":\"completion_result\",\"text\":\"\"}]");
    put_file(d, "task_metadata.json",
             "{\"files_in_context\":[],\"model_usage\":[{\"ts\":1,\"model_id\":\"claude-sonnet\","
             "\"model_provider_id\":\"anthropic\",\"mode\":\"act\"}],\"environment_history\":[]}");
    char *id = NULL;
    REQUIRE(store_task_import(s, d, "/w", &id, &err) == HEW_OK);
    CHECK_STR(id, "1764669000123");
    store_loaded l;
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    CHECK_STR(l.task.title, "hi");
    CHECK_STR(l.task.workspace, "/w");
    CHECK_STR(l.task.model, "claude-sonnet");
    CHECK_STR(l.task.provider, "anthropic");
    CHECK_STR(l.task.status, "completed");
    CHECK_STR(l.task.result, "all done");
    CHECK_INT(l.task.tokens_in, 7);
    CHECK_INT(l.task.tokens_out, 3);
    CHECK_INT(l.task.cache_reads, 2);
    CHECK_INT(l.task.cache_writes, 1);
    CHECK(l.task.has_deleted && l.task.deleted_start == 2 && l.task.deleted_end == 3);
    CHECK_INT(l.task.created_ms, 1764669000123LL);
    CHECK_INT(l.task.updated_ms, 1764669000500LL);
    CHECK_INT(json_array_size(l.history), 2);
    CHECK_INT(json_array_size(l.ui), 5);
    json_t *e1 = json_array_get(l.ui, 1);
    CHECK_STR(json_string_value(json_object_get(e1, "type")), "api_req_started");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(e1, "data"), "tokensIn")), 7);
    json_t *e4 = json_array_get(l.ui, 4);
    CHECK_STR(json_string_value(json_object_get(e4, "kind")), "ask");
    CHECK_INT(json_integer_value(json_object_get(e4, "index")), 4);
    store_loaded_release(&l);
    /* the same directory again: the name is taken, so a new id */
    char *id2 = NULL;
    REQUIRE(store_task_import(s, d, NULL, &id2, &err) == HEW_OK);
    CHECK(strcmp(id2, id) != 0);
    free(id2);
    free(id);

    /* malformed directories are refused whole */
    char *bad = at("tasks/bad");
    put_file(bad, "api_conversation_history.json", "{\"not\":\"an array\"}");
    CHECK_INT(store_task_import(s, bad, NULL, NULL, &err), HEW_E_INVALID);
    put_file(bad, "api_conversation_history.json", "[{\"role\":\"system\",\"content\":\"x\"}]");
    CHECK_INT(store_task_import(s, bad, NULL, NULL, &err), HEW_E_INVALID);
    put_file(bad, "api_conversation_history.json", "[");
    CHECK_INT(store_task_import(s, bad, NULL, NULL, &err), HEW_E_INVALID);
    CHECK_INT(store_task_import(s, at("tasks/none"), NULL, NULL, &err), HEW_E_NOTFOUND);
    store_task *items;
    size_t n;
    REQUIRE(store_task_list(s, NULL, &items, &n, &err) == HEW_OK);
    CHECK_INT(n, 2);
    store_task_list_free(items, n);
    store_free(s);
}

/* A history big enough to be parsed by several threads comes back the same. */
static void test_big_load(void)
{
    store *s = open_at("big.db");
    REQUIRE(s);
    char *id = new_task(s, "big", "/w");
    hew_err err = HEW_ERR_INIT;
    json_t *h = json_array();
    char text[2100];
    for (int i = 0; i < 1500; i++) {
        for (int k = 0; k < 2048; k++)
            text[k] = (char)(k % 50 == 0 ? '\n' : 'a' + (i + k) % 26);
        snprintf(text + 2048, 40, " #%d \u00e9", i);
        json_t *m = msg_text(i % 2 ? "assistant" : "user", text);
        REQUIRE(store_api_put(s, id, (size_t)i, m, &err) == HEW_OK);
        json_array_append_new(h, m);
    }
    store_loaded l;
    REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
    CHECK(json_equal(l.history, h));
    store_loaded_release(&l);
    json_decref(h);
    free(id);
    store_free(s);
}

/* ---- jload ---------------------------------------------------------------------------------- */

/* One long string literal in two pieces (kept apart from the table so that clang's
 * -Wstring-concatenation does not take it for a missing comma). */
#define LONG_LINE_CASE                                                                    \
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a long line of text "     \
    "with no escapes at all, long enough to use the eight byte path many times\"}]}"

static void jload_same(const char *text)
{
    json_error_t e;
    json_t *want = json_loadb(text, strlen(text), JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    hew_err err = HEW_ERR_INIT;
    json_t *got = jload_parse(text, strlen(text), "t", &err);
    bool valid = jload_valid(text, strlen(text));
    if ((want == NULL) != (got == NULL) || (want && !json_equal(want, got)) ||
        valid != (want != NULL))
        check_fail(__FILE__, __LINE__, "jload differs from jansson on: %s", text);
    check_count++;
    json_decref(want);
    json_decref(got);
}

static void test_jload(void)
{
    static const char *const cases[] = {
        "{}", "[]", "0", "-0", "1", "-1", "12345678901234567", "9223372036854775807",
        "-9223372036854775808", "9223372036854775808", "1.5", "-1.5e10", "1E400", "1e-400",
        "0.1", "1.", ".1", "01", "-", "1e", "1e+", "true", "false", "null", "tru", "nul",
        "\"\"", "\"abc\"", "\"a\\nb\\t\\\"\\\\\\/\\b\\f\\r\"", "\"\\u00e9\\u263a\"",
        "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83dx\"", "\"\\u0000a\"",
        "\"\\x\"", "\"a\nb\"", "\"\xc3\xa9\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
        "\"unterminated", "[1,2,3]", "[1,]", "[,1]", "[1 2]", "{\"a\":1,\"b\":[true,null]}",
        "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1,\"a\":2}", "{\"k\\u00e9y\":\"v\"}",
        "{\"\\u0000\":1}", " \t\n{ \"a\" : [ 1 , 2 ] } \r\n", "{} x", "[[[[[]]]]]",
        "\"0123456789abcdef0123456789abcdef\\n0123456789abcdef\"",
        LONG_LINE_CASE,
        /* a key and its value both escaped (decoded into two scratches), containers under
         * escaped and duplicate keys, a NUL in an escaped key among others */
        "{\"k\\n\":\"v\\t\",\"k\\u00e9\":[\"\\u00e9\",{\"\\\"\":\"\\\\\"}]}",
        "{\"a\":[1,{\"b\":2}],\"a\":{\"c\":[3]},\"a\":\"last\"}",
        "{\"ok\":1,\"x\\u0000y\":2}", "[{\"\\u0000\":[]}]",
        /* numbers of every length, at the edges */
        "[1.000000000000000000000000000000000000000000000000000000000000000000000001]",
        "[-0.0, 0e0, 1e-320, 2.2250738585072014e-308, 1.7976931348623157e308, 1.8e308]",
        "[123456789012345678, 1234567890123456789, 12345678901234567890]",
        "",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        jload_same(cases[i]);
    /* deep nesting goes to jansson */
    char deep[5000];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        deep[n++] = '[';
    for (int i = 0; i < 1000; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    jload_same(deep);
    /* nesting exactly at jansson's limit and one past it: the same answer */
    static char edge[2 * 2049 + 1];
    for (int d = 2048; d <= 2049; d++) {
        for (int i = 0; i < d; i++) {
            edge[i] = '[';
            edge[d + i] = ']';
        }
        edge[2 * d] = '\0';
        jload_same(edge);
    }
    /* random strings of awkward bytes */
    srand(7);
    const char alphabet[] = "ab\"\\nu0dD8e\xc3\xa9\xe2\x98\xba\x80\xff{}[],: \t";
    for (int k = 0; k < 3000; k++) {
        char t[64];
        size_t len = (size_t)(rand() % 40);
        t[0] = '"';
        for (size_t i = 1; i <= len; i++)
            t[i] = alphabet[rand() % (int)(sizeof alphabet - 1)];
        t[len + 1] = '"';
        t[len + 2] = '\0';
        jload_same(t);
        /* and as-is, not quoted */
        jload_same(t + 1);
    }
    /* values jansson made survive */
    json_t *v = json_pack("{s:s%, s:[f, I, b, n]}", "s", "nul\0inside", (size_t)10, "a", 3.25,
                          (json_int_t)-42, 0);
    char *d = json_dumps(v, JSON_COMPACT);
    hew_err err = HEW_ERR_INIT;
    json_t *back = jload_parse(d, strlen(d), "t", &err);
    CHECK(json_equal(v, back));
    json_decref(back);
    free(d);
    json_decref(v);
    CHECK(jload_parse("[1,", 3, "the thing", &err) == NULL);
    CHECK(strstr(err.msg, "the thing: invalid JSON at line 1") != NULL);
}

int main(void)
{
    dir = tmpdir_make("store");
    if (!dir)
        return 1;
    RUN(test_open_schema);
    RUN(test_default_path);
    RUN(test_task_rows);
    RUN(test_messages_and_load);
    RUN(test_partials);
    RUN(test_list_search_delete);
    RUN(test_lock);
    RUN(test_two_processes);
    RUN(test_export_import_round_trip);
    RUN(test_import_cline_layout);
    RUN(test_big_load);
    RUN(test_jload);
    tmpdir_remove(dir);
    free(dir);
    return check_report();
}
