/* store — the SQLite side of hew's task memory (see store.h): opening and migrating,
 * tasks, messages, loading, history, per-task locks. Every value reaches SQLite as a
 * bound parameter; no SQL is ever built from a value. Never leaves a transaction open
 * when a call returns. */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/jscan.h"
#include "base/json.h"
#include "base/utf8.h"
#include "sys/clock.h"
#include "sys/datadir.h"
#include "sys/path.h"
#include "store/fts.h"
#include "store/jload.h"
#include "store/store_internal.h"

/* ---- schema ------------------------------------------------------------------------------- */

/* migrations[v] takes a database from user_version v to v+1. Append only. */
static const char *const migrations[] = {
    "CREATE TABLE tasks ("
    "  tid INTEGER PRIMARY KEY,"
    "  id TEXT NOT NULL UNIQUE,"
    "  workspace TEXT NOT NULL,"
    "  title TEXT NOT NULL,"
    "  provider TEXT NOT NULL,"
    "  model TEXT NOT NULL,"
    "  mode TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  result TEXT,"
    "  created_ms INTEGER NOT NULL,"
    "  updated_ms INTEGER NOT NULL,"
    "  tokens_in INTEGER NOT NULL DEFAULT 0,"
    "  tokens_out INTEGER NOT NULL DEFAULT 0,"
    "  cache_reads INTEGER NOT NULL DEFAULT 0,"
    "  cache_writes INTEGER NOT NULL DEFAULT 0,"
    "  cost REAL NOT NULL DEFAULT 0,"
    "  deleted_start INTEGER,"
    "  deleted_end INTEGER"
    ") STRICT;"
    "CREATE INDEX tasks_by_updated ON tasks(updated_ms DESC, id DESC);"
    "CREATE TABLE api_messages ("
    "  tid INTEGER NOT NULL,"
    "  ord INTEGER NOT NULL,"
    "  json TEXT NOT NULL,"
    "  PRIMARY KEY (tid, ord)"
    ") STRICT;"
    "CREATE TABLE ui_messages ("
    "  tid INTEGER NOT NULL,"
    "  idx INTEGER NOT NULL,"
    "  json TEXT NOT NULL,"
    "  PRIMARY KEY (tid, idx)"
    ") STRICT;"
    "CREATE TABLE context_rewrites ("
    "  tid INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  msg INTEGER NOT NULL,"
    "  block INTEGER NOT NULL,"
    "  ts INTEGER NOT NULL,"
    "  text TEXT NOT NULL,"
    "  PRIMARY KEY (tid, seq)"
    ") STRICT;"
    "PRAGMA user_version = 1;",
    /* 1 → 2: the number of API requests of a task (its api_req_started messages; the
     * automatic retries of one are not counted apart), counted for the tasks already
     * stored. */
    "ALTER TABLE tasks ADD COLUMN requests INTEGER NOT NULL DEFAULT 0;"
    "UPDATE tasks SET requests = (SELECT count(*) FROM ui_messages u WHERE u.tid = tasks.tid"
    "  AND instr(u.json, '\"api_req_started\"') > 0" /* cheap first look, then the real one */
    "  AND json_valid(u.json) AND json_extract(u.json, '$.type') = 'api_req_started');"
    "PRAGMA user_version = 2;",
    /* 2 → 3: the appends to a partial UI message (store_ui_append): part seq of message
     * idx makes its text text[0..off) + text; total is the text's length after it (the
     * next append is checked against it without reading the message). BLOB: an append
     * may cut a UTF-8 character, the folded text is checked when loaded. */
    "CREATE TABLE ui_parts ("
    "  tid INTEGER NOT NULL,"
    "  idx INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  off INTEGER NOT NULL,"
    "  total INTEGER NOT NULL,"
    "  text BLOB NOT NULL,"
    "  PRIMARY KEY (tid, idx, seq)"
    ") STRICT;"
    "PRAGMA user_version = 3;",
    /* 3 → 4: an API message too long for one row's worth of memory (store_api_put of a
     * message of megabytes) is written as it is dumped, in parts of STORE_PART_BYTES, and
     * its row's json is "" (never valid JSON, so never ambiguous); loading joins the parts
     * in seq order. BLOB: a part may cut a UTF-8 character. */
    "CREATE TABLE api_parts ("
    "  tid INTEGER NOT NULL,"
    "  ord INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  json BLOB NOT NULL,"
    "  PRIMARY KEY (tid, ord, seq)"
    ") STRICT;"
    "PRAGMA user_version = 4;",
    /* 4 → 5: msg_fts, the full-text index of the messages' text (store/fts.h: rowid
     * tid << 32 | idx, the text cut to STORE_FTS_BYTES), filled from the stored messages
     * by fts_fill (migration_code below). */
    "CREATE VIRTUAL TABLE msg_fts USING fts5(text, "
    "  tokenize = 'unicode61 remove_diacritics 2');"
    "PRAGMA user_version = 5;",
};

_Static_assert(sizeof migrations / sizeof migrations[0] == STORE_SCHEMA_VERSION,
               "one migration per schema version");

/* What a migration does beyond its SQL, in the same transaction, after it: code for what
 * SQL cannot say (folding a message's parts with a cap). */
static hew_code (*const migration_code[STORE_SCHEMA_VERSION])(store *, hew_err *) = {
    [4] = fts_fill,
};

#define TASK_COLUMNS                                                                        \
    "id, workspace, title, provider, model, mode, status, result, created_ms, updated_ms, " \
    "tokens_in, tokens_out, cache_reads, cache_writes, cost, deleted_start, deleted_end, "  \
    "coalesce((SELECT ord + 1 FROM api_messages a WHERE a.tid = t.tid "                     \
    "          ORDER BY ord DESC LIMIT 1), 0), "                                            \
    "coalesce((SELECT idx + 1 FROM ui_messages u WHERE u.tid = t.tid "                      \
    "          ORDER BY idx DESC LIMIT 1), 0), "                                             \
    "requests"

static const char *const sql[ST__COUNT] = {
    [ST_TID] = "SELECT tid FROM tasks WHERE id = ?1",
    [ST_ID_TAKEN] = "SELECT 1 FROM tasks WHERE id = ?1",
    [ST_INSERT_TASK] =
        "INSERT INTO tasks (id, workspace, title, provider, model, mode, status, result, "
        "created_ms, updated_ms, tokens_in, tokens_out, cache_reads, cache_writes, cost, "
        "deleted_start, deleted_end, requests) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
        "?18)",
    [ST_TOUCH] = "UPDATE tasks SET updated_ms = ?2 WHERE tid = ?1",
    [ST_UPD_USAGE] = "UPDATE tasks SET tokens_in = ?2, tokens_out = ?3, cache_reads = ?4, "
                     "cache_writes = ?5, cost = ?6, requests = ?7 WHERE tid = ?1",
    [ST_UPD_DELETED] = "UPDATE tasks SET deleted_start = ?2, deleted_end = ?3 WHERE tid = ?1",
    [ST_UPD_STATUS] = "UPDATE tasks SET status = ?2, result = ?3 WHERE tid = ?1",
    [ST_UPD_MODE] = "UPDATE tasks SET mode = ?2 WHERE tid = ?1",
    [ST_UPD_MODEL] = "UPDATE tasks SET provider = ?2, model = ?3 WHERE tid = ?1",
    [ST_UPD_TITLE] = "UPDATE tasks SET title = ?2 WHERE tid = ?1",
    [ST_API_NEXT] = "SELECT ord + 1 FROM api_messages WHERE tid = ?1 ORDER BY ord DESC LIMIT 1",
    [ST_API_PUT] = "INSERT OR REPLACE INTO api_messages (tid, ord, json) VALUES (?1, ?2, ?3)",
    [ST_API_TRUNC] = "DELETE FROM api_messages WHERE tid = ?1 AND ord >= ?2",
    [ST_APART_ADD] = "INSERT INTO api_parts (tid, ord, seq, json) VALUES (?1, ?2, ?4, ?3)",
    [ST_APART_DROP] = "DELETE FROM api_parts WHERE tid = ?1 AND ord = ?2",
    [ST_APART_TRUNC] = "DELETE FROM api_parts WHERE tid = ?1 AND ord >= ?2",
    [ST_APART_GET] = "SELECT json FROM api_parts WHERE tid = ?1 AND ord = ?2 ORDER BY seq",
    [ST_DEL_APARTS] = "DELETE FROM api_parts WHERE tid = ?1",
    [ST_RW_TRUNC] = "DELETE FROM context_rewrites WHERE tid = ?1 AND msg >= ?2",
    [ST_UI_PUT] = "INSERT OR REPLACE INTO ui_messages (tid, idx, json) VALUES (?1, ?2, ?3)",
    [ST_UI_TRUNC] = "DELETE FROM ui_messages WHERE tid = ?1 AND idx >= ?2",
    [ST_UI_GET] = "SELECT json FROM ui_messages WHERE tid = ?1 AND idx = ?2",
    [ST_UI_SET] = "UPDATE ui_messages SET json = ?3 WHERE tid = ?1 AND idx = ?2",
    [ST_PART_LAST] = "SELECT seq, total FROM ui_parts WHERE tid = ?1 AND idx = ?2 "
                     "ORDER BY seq DESC LIMIT 1",
    [ST_PART_ADD] = "INSERT INTO ui_parts (tid, idx, seq, off, total, text) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_PART_DROP] = "DELETE FROM ui_parts WHERE tid = ?1 AND idx = ?2",
    [ST_PART_TRUNC] = "DELETE FROM ui_parts WHERE tid = ?1 AND idx >= ?2",
    [ST_LOAD_PARTS] = "SELECT idx, off, total, text FROM ui_parts WHERE tid = ?1 "
                      "ORDER BY idx, seq",
    [ST_LOAD_PARTS_ONE] = "SELECT off, total, text FROM ui_parts WHERE tid = ?1 AND idx = ?2 "
                          "ORDER BY seq",
    [ST_RW_ADD] = "INSERT INTO context_rewrites (tid, seq, msg, block, ts, text) "
                  "VALUES (?1, coalesce((SELECT max(seq) + 1 FROM context_rewrites "
                  "WHERE tid = ?1), 0), ?2, ?3, ?4, ?5)",
    [ST_GET_TASK] = "SELECT " TASK_COLUMNS " FROM tasks t WHERE id = ?1",
    [ST_LOAD_API] = "SELECT ord, json FROM api_messages WHERE tid = ?1 ORDER BY ord",
    [ST_LOAD_UI] = "SELECT idx, json FROM ui_messages WHERE tid = ?1 ORDER BY idx",
    [ST_LOAD_RW] = "SELECT msg, block, text FROM context_rewrites WHERE tid = ?1 ORDER BY seq",
    [ST_LIST] = "SELECT " TASK_COLUMNS " FROM tasks t "
                "WHERE (?1 IS NULL OR title LIKE ?1 ESCAPE '\\' OR workspace LIKE ?1 "
                "ESCAPE '\\' OR coalesce(result, '') LIKE ?1 ESCAPE '\\' OR id LIKE ?1 "
                "ESCAPE '\\') AND (?2 IS NULL OR workspace = ?2) "
                "ORDER BY updated_ms DESC, id DESC LIMIT ?3 OFFSET ?4",
    [ST_DEL_API] = "DELETE FROM api_messages WHERE tid = ?1",
    [ST_DEL_UI] = "DELETE FROM ui_messages WHERE tid = ?1",
    [ST_DEL_RW] = "DELETE FROM context_rewrites WHERE tid = ?1",
    [ST_DEL_PARTS] = "DELETE FROM ui_parts WHERE tid = ?1",
    [ST_DEL_TASK] = "DELETE FROM tasks WHERE tid = ?1",
    [ST_FTS_DEL] = "DELETE FROM msg_fts WHERE rowid = ?1",
    [ST_FTS_ADD] = "INSERT INTO msg_fts (rowid, text) VALUES (?1, ?2)",
    [ST_FTS_DEL_RANGE] = "DELETE FROM msg_fts WHERE rowid >= ?1 AND rowid <= ?2",
    [ST_FTS_PARTS] = "SELECT rowid, off, length(text) FROM ui_parts WHERE tid = ?1 AND idx = ?2 "
                     "ORDER BY seq",
    /* The tasks whose messages match ?5 (an FTS5 expression), by their best message
     * (rank, FTS5's bm25: lower is better — bm25() itself is refused inside an aggregate;
     * the bare column r of min() is that message's rowid), then
     * those whose row matches ?1 as ST_LIST's does. The snippet is made only for the
     * best message of each task. */
    [ST_SEARCH] =
        "WITH best AS (SELECT r >> 32 AS tid, r, min(score) AS score FROM "
        "  (SELECT rowid AS r, rank AS score FROM msg_fts WHERE msg_fts MATCH ?5) "
        "  GROUP BY r >> 32) "
        "SELECT " TASK_COLUMNS ", b.r & 4294967295, "
        "  (SELECT snippet(msg_fts, 0, char(2), char(3), '…', 16) FROM msg_fts "
        "   WHERE msg_fts MATCH ?5 AND rowid = b.r) "
        "FROM tasks t LEFT JOIN best b ON b.tid = t.tid "
        "WHERE (b.tid IS NOT NULL OR title LIKE ?1 ESCAPE '\\' OR workspace LIKE ?1 "
        "ESCAPE '\\' OR coalesce(result, '') LIKE ?1 ESCAPE '\\' OR id LIKE ?1 "
        "ESCAPE '\\') AND (?2 IS NULL OR workspace = ?2) "
        "ORDER BY b.score IS NULL, b.score, updated_ms DESC, id DESC LIMIT ?3 OFFSET ?4",
};

/* ---- small helpers ------------------------------------------------------------------------ */

hew_code st_err(store *s, int rc, const char *what, hew_err *err)
{
    int prim = rc & 0xff;
    const char *msg = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    const char *path = s && s->path ? s->path : "hew.db";
    if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
        return hew_err_set(err, HEW_E_TIMEOUT,
                           "store %s: %s: the database stayed busy (%s) — another hew is "
                           "writing; try again",
                           path, what, msg);
    if (prim == SQLITE_NOMEM)
        return hew_err_set(err, HEW_E_NOMEM, "store %s: %s: out of memory", path, what);
    if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB)
        return hew_err_set(err, HEW_E_IO,
                           "store %s: %s: %s — the file is damaged or not a hew database", path,
                           what, msg);
    return hew_err_set(err, HEW_E_IO, "store %s: %s: %s", path, what, msg);
}

sqlite3_stmt *st_get(store *s, store_stmt which, hew_err *err)
{
    if (!s->st[which]) {
        int rc = sqlite3_prepare_v3(s->db, sql[which], -1, SQLITE_PREPARE_PERSISTENT,
                                    &s->st[which], NULL);
        if (rc != SQLITE_OK) {
            st_err(s, rc, "preparing a statement", err);
            s->st[which] = NULL;
            return NULL;
        }
    }
    return s->st[which];
}

void st_done(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

int st_bind_text(sqlite3_stmt *st, int i, const char *v, bool not_null)
{
    if (!v && !not_null)
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

/* Run a statement without parameters or rows. */
static hew_code exec(store *s, const char *q, const char *what, hew_err *err)
{
    int rc = sqlite3_exec(s->db, q, NULL, NULL, NULL);
    return rc == SQLITE_OK ? HEW_OK : st_err(s, rc, what, err);
}

hew_code tx_begin(store *s, bool full, hew_err *err)
{
    if (full && !s->durable && exec(s, "PRAGMA synchronous = FULL", "setting FULL", err))
        return err ? err->code : HEW_E_IO;
    s->full = full;
    hew_code rc = exec(s, "BEGIN IMMEDIATE", "starting a write", err);
    if (rc != HEW_OK && full && !s->durable) {
        exec(s, "PRAGMA synchronous = NORMAL", "setting NORMAL", NULL);
        s->full = false;
    }
    return rc;
}

hew_code tx_begin_read(store *s, hew_err *err)
{
    s->full = false;
    return exec(s, "BEGIN", "starting a read", err);
}

static void tx_end_full(store *s)
{
    if (s->full && !s->durable)
        exec(s, "PRAGMA synchronous = NORMAL", "setting NORMAL", NULL);
    s->full = false;
}

hew_code tx_commit(store *s, hew_err *err)
{
    hew_code rc = exec(s, "COMMIT", "committing", err);
    if (rc != HEW_OK)
        tx_rollback(s);
    else
        tx_end_full(s);
    return rc;
}

void tx_rollback(store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    tx_end_full(s);
}

hew_code store_check_id(const char *id, hew_err *err)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > STORE_ID_MAX || id[0] == '.')
        return hew_err_set(err, HEW_E_INVALID, "invalid task id \"%.80s\"", id ? id : "");
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return hew_err_set(err, HEW_E_INVALID,
                               "invalid task id \"%.80s\": only letters, digits, '_', '-' "
                               "and '.' are allowed",
                               id);
    }
    return HEW_OK;
}

hew_code store_tid(store *s, const char *id, sqlite3_int64 *tid, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_TID, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    st_bind_text(st, 1, id, true);
    int rc = sqlite3_step(st);
    hew_code out = HEW_OK;
    if (rc == SQLITE_ROW)
        *tid = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        out = hew_err_set(err, HEW_E_NOTFOUND, "no task %s in %s", id, s->path);
    else
        out = st_err(s, rc, "finding a task", err);
    st_done(st);
    return out;
}

static hew_code id_taken(store *s, const char *id, bool *taken, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_ID_TAKEN, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    st_bind_text(st, 1, id, true);
    int rc = sqlite3_step(st);
    st_done(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return st_err(s, rc, "checking a task id", err);
    *taken = rc == SQLITE_ROW;
    return HEW_OK;
}

hew_code store_new_id(store *s, char out[STORE_ID_MAX + 1], hew_err *err)
{
    long long t = clock_wall_ms();
    for (int tries = 0; tries < 100000; tries++, t++) {
        snprintf(out, STORE_ID_MAX + 1, "%lld", t);
        bool taken = false;
        hew_code rc = id_taken(s, out, &taken, err);
        if (rc != HEW_OK)
            return rc;
        if (!taken)
            return HEW_OK;
    }
    return hew_err_set(err, HEW_E_INTERNAL, "store: no free task id");
}

/* ---- opening ------------------------------------------------------------------------------ */

char *store_default_path(hew_err *err)
{
    char *dir = datadir_default(err);
    char *p = dir ? path_join(dir, "hew.db") : NULL;
    if (dir && !p)
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
    free(dir);
    return p;
}

char *store_path_in(const char *data_dir, hew_err *err)
{
    if (!data_dir || !*data_dir)
        return store_default_path(err);
    char *p = path_join(data_dir, "hew.db");
    if (!p)
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return p;
}

static hew_code user_version(store *s, int *v, hew_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return st_err(s, rc, "reading the schema version", err);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return st_err(s, rc, "reading the schema version", err);
    return HEW_OK;
}

static hew_code migrate(store *s, hew_err *err)
{
    int v;
    hew_code rc = user_version(s, &v, err);
    if (rc != HEW_OK)
        return rc;
    if (v == STORE_SCHEMA_VERSION)
        return HEW_OK;
    if (v > STORE_SCHEMA_VERSION || v < 0)
        return hew_err_set(err, HEW_E_INVALID,
                           "store %s has schema version %d, this hew knows up to %d — use a "
                           "newer hew",
                           s->path, v, STORE_SCHEMA_VERSION);
    if ((rc = tx_begin(s, true, err)) != HEW_OK)
        return rc;
    if ((rc = user_version(s, &v, err)) != HEW_OK) /* another process may have migrated */
        goto fail;
    for (; v < STORE_SCHEMA_VERSION; v++)
        if ((rc = exec(s, migrations[v], "migrating the schema", err)) != HEW_OK ||
            (migration_code[v] && (rc = migration_code[v](s, err)) != HEW_OK))
            goto fail;
    return tx_commit(s, err);
fail:
    tx_rollback(s);
    return rc;
}

static hew_code pragma_text(store *s, const char *q, const char *want, hew_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, q, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return st_err(s, rc, q, err);
    rc = sqlite3_step(st);
    hew_code out = HEW_OK;
    if (rc != SQLITE_ROW)
        out = st_err(s, rc, q, err);
    else if (want && strcasecmp((const char *)sqlite3_column_text(st, 0), want) != 0)
        out = hew_err_set(err, HEW_E_IO, "store %s: %s gave \"%s\", not %s", s->path, q,
                          (const char *)sqlite3_column_text(st, 0), want);
    sqlite3_finalize(st);
    return out;
}

hew_code store_check(store *s, hew_err *err)
{
    return pragma_text(s, "PRAGMA quick_check", "ok", err);
}

hew_code store_open(const store_options *opt, store **out, hew_err *err)
{
    store_options o = STORE_OPTIONS_INIT;
    if (opt)
        o = *opt;
    *out = NULL;
    store *s = calloc(1, sizeof *s);
    if (!s)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    buf_init(&s->scratch, 0);
    buf_init(&s->held_json, 0);
    s->busy_ms = o.busy_timeout_ms > 0 ? o.busy_timeout_ms : 5000;
    s->partial_ms = o.partial_interval_ms == 0 ? 1000 : o.partial_interval_ms;
    s->durable = o.durable;
    hew_code rc;
    s->path = o.path ? strdup(o.path) : store_default_path(err);
    if (!s->path) {
        rc = o.path ? hew_err_set(err, HEW_E_NOMEM, "out of memory") : (err ? err->code : HEW_E_NOTFOUND);
        goto fail;
    }
    size_t plen = strlen(s->path);
    s->lock_dir = malloc(plen + sizeof ".locks");
    if (!s->lock_dir) {
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(s->lock_dir, s->path, plen);
    memcpy(s->lock_dir + plen, ".locks", sizeof ".locks");

    /* The directory (private), and the file created 0600 before SQLite sees it. */
    const char *slash = strrchr(s->path, '/');
    if (slash && slash != s->path) {
        char *dir = strndup(s->path, (size_t)(slash - s->path));
        if (!dir) {
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
            goto fail;
        }
        rc = fs_mkdirs(dir, 0700, err);
        free(dir);
        if (rc != HEW_OK)
            goto fail;
    }
    int fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = hew_err_set(err, errno == ENOENT ? HEW_E_NOTFOUND : HEW_E_IO,
                         "cannot open the store %s: %s", s->path, strerror(errno));
        goto fail;
    }
    close(fd);

    int src = sqlite3_open_v2(s->path, &s->db,
                              SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                              NULL);
    if (src != SQLITE_OK) {
        rc = st_err(s, src, "opening", err);
        goto fail;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, s->busy_ms);
    if ((rc = pragma_text(s, "PRAGMA journal_mode = WAL", "wal", err)) != HEW_OK)
        goto fail;
    if ((rc = exec(s, s->durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                   "setting synchronous", err)) != HEW_OK)
        goto fail;
    /* Loading reads a whole history at once: keep the pages mapped, not copied. */
    if ((rc = exec(s, "PRAGMA mmap_size = 268435456", "setting mmap_size", err)) != HEW_OK)
        goto fail;
    /* Writes go through the page cache: a 10 MB message fills 10 MB of it (kept until the
     * store closes) unless it is capped; above the cap SQLite spills the pages to the WAL
     * as it goes. Reading does not need it (mmap above). */
    if ((rc = exec(s, "PRAGMA cache_size = -2048", "setting cache_size", err)) != HEW_OK)
        goto fail;
    if ((rc = migrate(s, err)) != HEW_OK)
        goto fail;
    *out = s;
    return HEW_OK;
fail:
    store_free(s);
    return rc;
}

void store_free(store *s)
{
    if (!s)
        return;
    if (s->db)
        store_flush_held(s, NULL);
    for (int i = 0; i < ST__COUNT; i++)
        sqlite3_finalize(s->st[i]);
    if (s->db)
        sqlite3_close_v2(s->db);
    buf_release(&s->scratch);
    buf_release(&s->held_json);
    jload_release(&s->jl);
    free(s->path);
    free(s->lock_dir);
    free(s);
}

/* ---- the task row ------------------------------------------------------------------------- */

void store_task_release(store_task *t)
{
    if (!t)
        return;
    free(t->id);
    free(t->workspace);
    free(t->title);
    free(t->provider);
    free(t->model);
    free(t->mode);
    free(t->status);
    free(t->result);
    free(t->snippet);
    memset(t, 0, sizeof *t);
}

static void bind_deleted(sqlite3_stmt *st, int i, const store_task *t)
{
    if (t->has_deleted) {
        sqlite3_bind_int64(st, i, t->deleted_start);
        sqlite3_bind_int64(st, i + 1, t->deleted_end);
    } else {
        sqlite3_bind_null(st, i);
        sqlite3_bind_null(st, i + 1);
    }
}

hew_code store_insert_task(store *s, const store_task *t, const char *id, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_INSERT_TASK, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    long long now = clock_wall_ms();
    st_bind_text(st, 1, id, true);
    st_bind_text(st, 2, t->workspace, true);
    st_bind_text(st, 3, t->title, true);
    st_bind_text(st, 4, t->provider, true);
    st_bind_text(st, 5, t->model, true);
    st_bind_text(st, 6, t->mode && *t->mode ? t->mode : "act", true);
    st_bind_text(st, 7, t->status && *t->status ? t->status : "running", true);
    st_bind_text(st, 8, t->result, false);
    sqlite3_bind_int64(st, 9, t->created_ms ? t->created_ms : now);
    sqlite3_bind_int64(st, 10, t->updated_ms ? t->updated_ms : now);
    sqlite3_bind_int64(st, 11, t->tokens_in);
    sqlite3_bind_int64(st, 12, t->tokens_out);
    sqlite3_bind_int64(st, 13, t->cache_reads);
    sqlite3_bind_int64(st, 14, t->cache_writes);
    sqlite3_bind_double(st, 15, t->cost);
    bind_deleted(st, 16, t);
    sqlite3_bind_int64(st, 18, t->requests);
    int rc = sqlite3_step(st);
    st_done(st);
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return hew_err_set(err, HEW_E_INVALID, "a task %s already exists in %s", id, s->path);
    if (rc != SQLITE_DONE)
        return st_err(s, rc, "creating a task", err);
    return HEW_OK;
}

hew_code store_task_create(store *s, const store_task *init, char **id_out, hew_err *err)
{
    if (id_out)
        *id_out = NULL;
    store_task none = STORE_TASK_INIT;
    if (!init)
        init = &none;
    hew_code rc;
    if (init->id && (rc = store_check_id(init->id, err)) != HEW_OK)
        return rc;
    if ((rc = store_flush_held(s, err)) != HEW_OK)
        return rc;
    if ((rc = tx_begin(s, true, err)) != HEW_OK)
        return rc;
    char id[STORE_ID_MAX + 1];
    if (init->id)
        snprintf(id, sizeof id, "%s", init->id);
    else if ((rc = store_new_id(s, id, err)) != HEW_OK)
        goto fail;
    store_task row = *init;
    row.created_ms = row.updated_ms = 0;
    row.tokens_in = row.tokens_out = row.cache_reads = row.cache_writes = 0;
    row.cost = 0;
    row.has_deleted = false;
    row.status = NULL;
    row.result = NULL;
    if ((rc = store_insert_task(s, &row, id, err)) != HEW_OK)
        goto fail;
    if ((rc = tx_commit(s, err)) != HEW_OK)
        return rc;
    if (id_out && !(*id_out = strdup(id)))
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return HEW_OK;
fail:
    tx_rollback(s);
    return rc;
}

/* Run one UPDATE ... WHERE tid = ?1 whose other parameters bind() sets. */
static hew_code run_update(store *s, store_stmt which, sqlite3_int64 tid,
                           void (*bind)(sqlite3_stmt *, const store_task *),
                           const store_task *t, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, which, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    bind(st, t);
    int rc = sqlite3_step(st);
    st_done(st);
    return rc == SQLITE_DONE ? HEW_OK : st_err(s, rc, "updating a task", err);
}

static void bind_usage(sqlite3_stmt *st, const store_task *t)
{
    sqlite3_bind_int64(st, 2, t->tokens_in);
    sqlite3_bind_int64(st, 3, t->tokens_out);
    sqlite3_bind_int64(st, 4, t->cache_reads);
    sqlite3_bind_int64(st, 5, t->cache_writes);
    sqlite3_bind_double(st, 6, t->cost);
    sqlite3_bind_int64(st, 7, t->requests);
}

static void bind_deleted2(sqlite3_stmt *st, const store_task *t)
{
    bind_deleted(st, 2, t);
}

static void bind_status(sqlite3_stmt *st, const store_task *t)
{
    st_bind_text(st, 2, t->status && *t->status ? t->status : "running", true);
    st_bind_text(st, 3, t->result, false);
}

static void bind_mode(sqlite3_stmt *st, const store_task *t)
{
    st_bind_text(st, 2, t->mode && *t->mode ? t->mode : "act", true);
}

static void bind_model(sqlite3_stmt *st, const store_task *t)
{
    st_bind_text(st, 2, t->provider, true);
    st_bind_text(st, 3, t->model, true);
}

static void bind_title(sqlite3_stmt *st, const store_task *t)
{
    st_bind_text(st, 2, t->title, true);
}

static void bind_now(sqlite3_stmt *st, const store_task *t)
{
    (void)t;
    sqlite3_bind_int64(st, 2, clock_wall_ms());
}

static hew_code touch(store *s, sqlite3_int64 tid, hew_err *err)
{
    return run_update(s, ST_TOUCH, tid, bind_now, NULL, err);
}

/* The start of a write to task id: the held partial row written first, a write
 * transaction (immediate: the write lock taken at once), the task's row id. On failure
 * nothing is left open. */
static hew_code write_begin(store *s, const char *id, bool immediate, sqlite3_int64 *tid,
                            hew_err *err)
{
    hew_code rc;
    if ((rc = store_flush_held(s, err)) != HEW_OK || (rc = tx_begin(s, immediate, err)) != HEW_OK)
        return rc;
    if ((rc = store_tid(s, id, tid, err)) != HEW_OK)
        tx_rollback(s);
    return rc;
}

/* The end of a write that went as rc says: the task touched and all committed, or all
 * rolled back. */
static hew_code write_end(store *s, sqlite3_int64 tid, hew_code rc, hew_err *err)
{
    if (rc == HEW_OK && (rc = touch(s, tid, err)) == HEW_OK)
        return tx_commit(s, err);
    tx_rollback(s);
    return rc;
}

hew_code store_task_update(store *s, const store_task *t, unsigned fields, hew_err *err)
{
    hew_code rc;
    if (!t || (rc = store_check_id(t->id, err)) != HEW_OK)
        return t ? rc : hew_err_set(err, HEW_E_INVALID, "store_task_update: no task");
    if ((rc = store_flush_held(s, err)) != HEW_OK)
        return rc;
    if ((rc = tx_begin(s, (fields & STORE_SET_STATUS) != 0, err)) != HEW_OK)
        return rc;
    sqlite3_int64 tid;
    if ((rc = store_tid(s, t->id, &tid, err)) != HEW_OK)
        goto fail;
    static const struct {
        unsigned flag;
        store_stmt st;
        void (*bind)(sqlite3_stmt *, const store_task *);
    } groups[] = {
        { STORE_SET_USAGE, ST_UPD_USAGE, bind_usage },
        { STORE_SET_DELETED, ST_UPD_DELETED, bind_deleted2 },
        { STORE_SET_STATUS, ST_UPD_STATUS, bind_status },
        { STORE_SET_MODE, ST_UPD_MODE, bind_mode },
        { STORE_SET_MODEL, ST_UPD_MODEL, bind_model },
        { STORE_SET_TITLE, ST_UPD_TITLE, bind_title },
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if ((fields & groups[i].flag) &&
            (rc = run_update(s, groups[i].st, tid, groups[i].bind, t, err)) != HEW_OK)
            goto fail;
    if ((rc = touch(s, tid, err)) != HEW_OK)
        goto fail;
    return tx_commit(s, err);
fail:
    tx_rollback(s);
    return rc;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return NULL;
    const unsigned char *v = sqlite3_column_text(st, i);
    return strdup(v ? (const char *)v : "");
}

/* Fill a row from a SELECT TASK_COLUMNS. */
static hew_code read_task(sqlite3_stmt *st, store_task *t, hew_err *err)
{
    memset(t, 0, sizeof *t);
    t->id = col_dup(st, 0);
    t->workspace = col_dup(st, 1);
    t->title = col_dup(st, 2);
    t->provider = col_dup(st, 3);
    t->model = col_dup(st, 4);
    t->mode = col_dup(st, 5);
    t->status = col_dup(st, 6);
    t->result = col_dup(st, 7);
    t->created_ms = sqlite3_column_int64(st, 8);
    t->updated_ms = sqlite3_column_int64(st, 9);
    t->tokens_in = sqlite3_column_int64(st, 10);
    t->tokens_out = sqlite3_column_int64(st, 11);
    t->cache_reads = sqlite3_column_int64(st, 12);
    t->cache_writes = sqlite3_column_int64(st, 13);
    t->cost = sqlite3_column_double(st, 14);
    t->has_deleted = sqlite3_column_type(st, 15) != SQLITE_NULL;
    t->deleted_start = sqlite3_column_int64(st, 15);
    t->deleted_end = sqlite3_column_int64(st, 16);
    t->api_count = sqlite3_column_int64(st, 17);
    t->ui_count = sqlite3_column_int64(st, 18);
    t->requests = sqlite3_column_int64(st, 19);
    t->match_index = -1;
    if (!t->id || !t->workspace || !t->title || !t->provider || !t->model || !t->mode ||
        !t->status || (sqlite3_column_type(st, 7) != SQLITE_NULL && !t->result)) {
        store_task_release(t);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    return HEW_OK;
}

static hew_code get_task(store *s, const char *id, store_task *out, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_GET_TASK, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    st_bind_text(st, 1, id, true);
    int rc = sqlite3_step(st);
    hew_code out_rc;
    if (rc == SQLITE_ROW)
        out_rc = read_task(st, out, err);
    else if (rc == SQLITE_DONE)
        out_rc = hew_err_set(err, HEW_E_NOTFOUND, "no task %s in %s", id, s->path);
    else
        out_rc = st_err(s, rc, "reading a task", err);
    st_done(st);
    return out_rc;
}

hew_code store_task_get(store *s, const char *id, store_task *out, hew_err *err)
{
    memset(out, 0, sizeof *out);
    hew_code rc = store_check_id(id, err);
    if (rc == HEW_OK)
        rc = store_flush_held(s, err);
    return rc == HEW_OK ? get_task(s, id, out, err) : rc;
}

/* ---- messages ----------------------------------------------------------------------------- */

static hew_code bind_step(store *s, store_stmt which, sqlite3_int64 tid, sqlite3_int64 n,
                          const char *text, size_t len, const char *what, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, which, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, n);
    if (text)
        sqlite3_bind_text(st, 3, text, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    st_done(st);
    return rc == SQLITE_DONE ? HEW_OK : st_err(s, rc, what, err);
}

/* Buffers of the store above this size are freed after use, not kept for the next one: a
 * single long message must not leave a copy of itself behind for the task's lifetime. */
#define STORE_KEEP_BYTES ((size_t)1 << 20)

/* An API message whose JSON passes this is written in parts of this size (api_parts). */
#define STORE_PART_BYTES ((size_t)1 << 20)

static void trim(buf *b)
{
    if (b->cap > STORE_KEEP_BYTES)
        buf_release(b);
}

static hew_code api_put(store *s, const char *id, size_t ord, const json_t *msg, hew_err *err);

hew_code store_api_put(store *s, const char *id, size_t ord, const json_t *msg, hew_err *err)
{
    hew_code rc = api_put(s, id, ord, msg, err);
    trim(&s->scratch);
    return rc;
}

/* The dump of one API message on its way to the store: in s->scratch while it is short;
 * once it passes STORE_PART_BYTES, every full scratch is written as a part (api_parts),
 * so a message of megabytes is never held whole a second time, nor copied into one
 * record. */
typedef struct api_dump {
    store *s;
    sqlite3_int64 tid, ord;
    sqlite3_int64 parts; /* written so far */
    size_t total;
    hew_code rc;
    hew_err *err;
} api_dump;

static hew_code api_part_write(api_dump *d)
{
    store *s = d->s;
    sqlite3_stmt *st = st_get(s, ST_APART_ADD, d->err);
    if (!st)
        return d->err ? d->err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, d->tid);
    sqlite3_bind_int64(st, 2, d->ord);
    sqlite3_bind_blob(st, 3, s->scratch.data ? s->scratch.data : "", (int)s->scratch.len,
                      SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, d->parts);
    int src = sqlite3_step(st);
    st_done(st);
    if (src != SQLITE_DONE)
        return st_err(s, src, "storing a part of an API message", d->err);
    d->parts++;
    buf_reset(&s->scratch);
    return HEW_OK;
}

/* Every part is exactly STORE_PART_BYTES but the last: a run of the dump longer than that
 * (a long string without escapes comes in one piece) is cut, never kept whole. */
static int api_dump_cb(const char *chunk, size_t n, void *ud)
{
    api_dump *d = ud;
    buf *b = &d->s->scratch;
    d->total += n;
    if (d->total > (size_t)INT32_MAX) {
        d->rc = hew_err_set(d->err, HEW_E_TOOBIG, "an API message is too large to store");
        return -1;
    }
    while (n) {
        size_t take = STORE_PART_BYTES - b->len < n ? STORE_PART_BYTES - b->len : n;
        buf_append(b, chunk, take);
        if ((d->rc = buf_check(b, "API message", d->err)) != HEW_OK)
            return -1;
        chunk += take;
        n -= take;
        if (b->len == STORE_PART_BYTES && (d->rc = api_part_write(d)) != HEW_OK)
            return -1;
    }
    return 0;
}

static hew_code api_put(store *s, const char *id, size_t ord, const json_t *msg, hew_err *err)
{
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK)
        return rc;
    if (!json_is_object(msg))
        return hew_err_set(err, HEW_E_INVALID, "store_api_put: the message is not an object");
    if ((rc = store_flush_held(s, err)) != HEW_OK)
        return rc;
    if ((rc = tx_begin(s, false, err)) != HEW_OK)
        return rc;
    sqlite3_int64 tid;
    if ((rc = store_tid(s, id, &tid, err)) != HEW_OK)
        goto fail;
    sqlite3_stmt *st = st_get(s, ST_API_NEXT, err);
    if (!st) {
        rc = err ? err->code : HEW_E_IO;
        goto fail;
    }
    sqlite3_bind_int64(st, 1, tid);
    int src = sqlite3_step(st);
    sqlite3_int64 next = src == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    st_done(st);
    if (src != SQLITE_ROW && src != SQLITE_DONE) {
        rc = st_err(s, src, "counting messages", err);
        goto fail;
    }
    if ((sqlite3_int64)ord > next) {
        rc = hew_err_set(err, HEW_E_INVALID,
                         "store_api_put: message %zu of task %s would leave a hole (it has %lld)",
                         ord, id, (long long)next);
        goto fail;
    }
    /* a replaced message's parts go; the new one is dumped straight into the store */
    if ((rc = bind_step(s, ST_APART_DROP, tid, (sqlite3_int64)ord, NULL, 0,
                        "replacing an API message", err)) != HEW_OK)
        goto fail;
    buf_reset(&s->scratch);
    api_dump d = { s, tid, (sqlite3_int64)ord, 0, 0, HEW_OK, err };
    if (json_dump_callback(msg, api_dump_cb, &d, JSON_COMPACT | JSON_ENCODE_ANY) != 0) {
        rc = d.rc != HEW_OK ? d.rc
                            : hew_err_set(err, HEW_E_INVALID,
                                          "store_api_put: message %zu of task %s cannot be "
                                          "written as JSON",
                                          ord, id);
        goto fail;
    }
    if (d.parts && s->scratch.len && (rc = api_part_write(&d)) != HEW_OK)
        goto fail;
    /* short: the row holds it; long: the row says "in parts" with an empty json */
    if ((rc = bind_step(s, ST_API_PUT, tid, (sqlite3_int64)ord,
                        d.parts ? "" : s->scratch.data ? s->scratch.data : "",
                        d.parts ? 0 : s->scratch.len, "storing an API message", err)) != HEW_OK)
        goto fail;
    if ((rc = touch(s, tid, err)) != HEW_OK)
        goto fail;
    return tx_commit(s, err);
fail:
    tx_rollback(s);
    return rc;
}

hew_code store_api_truncate(store *s, const char *id, size_t len, hew_err *err)
{
    sqlite3_int64 tid;
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK || (rc = write_begin(s, id, false, &tid, err)) != HEW_OK)
        return rc;
    if ((rc = bind_step(s, ST_API_TRUNC, tid, (sqlite3_int64)len, NULL, 0,
                        "cutting the API history", err)) == HEW_OK &&
        (rc = bind_step(s, ST_APART_TRUNC, tid, (sqlite3_int64)len, NULL, 0,
                        "cutting the API history's parts", err)) == HEW_OK)
        rc = bind_step(s, ST_RW_TRUNC, tid, (sqlite3_int64)len, NULL, 0,
                       "cutting the context rewrites", err);
    return write_end(s, tid, rc, err);
}

/* Write one UI row (its own transaction). */
static hew_code ui_write(store *s, const char *id, long index, const char *json, size_t len,
                         hew_err *err)
{
    hew_code rc = tx_begin(s, false, err);
    if (rc != HEW_OK)
        return rc;
    sqlite3_int64 tid;
    if ((rc = store_tid(s, id, &tid, err)) != HEW_OK ||
        (rc = bind_step(s, ST_UI_PUT, tid, index, json, len, "storing a UI message", err)) !=
            HEW_OK ||
        (rc = bind_step(s, ST_PART_DROP, tid, index, NULL, 0, "dropping a UI message's parts",
                        err)) != HEW_OK ||
        (rc = fts_index(s, tid, index, json, len, err)) != HEW_OK ||
        (rc = touch(s, tid, err)) != HEW_OK) {
        tx_rollback(s);
        return rc;
    }
    return tx_commit(s, err);
}

hew_code store_flush_held(store *s, hew_err *err)
{
    if (!s->held)
        return HEW_OK;
    s->held = false;
    s->last_partial_ms = clock_now_ms();
    hew_code rc = ui_write(s, s->held_id, s->held_index,
                           s->held_json.data ? s->held_json.data : "", s->held_json.len, err);
    trim(&s->held_json);
    return rc;
}

hew_code store_flush(store *s, hew_err *err)
{
    return store_flush_held(s, err);
}

hew_code store_ui_put(store *s, const char *id, long index, const char *json, size_t len,
                      bool partial, hew_err *err)
{
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK)
        return rc;
    if (index < 0)
        return hew_err_set(err, HEW_E_INVALID, "store_ui_put: negative index %ld", index);
    if (!json || len > (size_t)INT32_MAX || !jload_valid_with(&s->jl, json, len))
        return hew_err_set(err, HEW_E_INVALID,
                           "store_ui_put: UI message %ld of task %s is not valid JSON", index, id);
    bool same = s->held && s->held_index == index && strcmp(s->held_id, id) == 0;
    if (s->held && !same && (rc = store_flush_held(s, err)) != HEW_OK)
        return rc;
    bool due = partial && s->partial_ms >= 0 &&
               clock_now_ms() - s->last_partial_ms >= s->partial_ms;
    if (!partial || s->partial_ms < 0 || due) {
        s->held = false; /* superseded */
        if (!partial) /* the message is complete: no later update will reuse the buffer */
            trim(&s->held_json);
        if (due) /* a partial written at once: straight from json, not via a held copy */
            s->last_partial_ms = clock_now_ms();
        return ui_write(s, id, index, json, len, err);
    }
    buf_reset(&s->held_json);
    buf_append(&s->held_json, json, len);
    if ((rc = buf_check(&s->held_json, "UI message", err)) != HEW_OK)
        return rc;
    snprintf(s->held_id, sizeof s->held_id, "%s", id);
    s->held_index = index;
    s->held = true;
    return HEW_OK;
}

bool store_ui_partial_due(const store *s)
{
    return s->partial_ms < 0 || clock_now_ms() - s->last_partial_ms >= s->partial_ms;
}

/* The stored row of UI message index, stepped once (*src: SQLITE_ROW when it is there);
 * NULL when the statement could not be had (err set). st_done it after. */
static sqlite3_stmt *ui_row(store *s, sqlite3_int64 tid, long index, int *src, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_UI_GET, err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, index);
    *src = sqlite3_step(st);
    return st;
}

/* Check that UI message `index` is a partial message with a text (a final one takes no
 * appends), and put the length of that text in *have (NULL: not wanted — once the message
 * has parts, the newest part's total is its length). HEW_E_INVALID when there is no such
 * row, or it is not that. */
static hew_code ui_base_len(store *s, const char *id, sqlite3_int64 tid, long index,
                            sqlite3_int64 *have, hew_err *err)
{
    int src;
    sqlite3_stmt *st = ui_row(s, tid, index, &src, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    if (src != SQLITE_ROW) {
        st_done(st);
        return src == SQLITE_DONE
                   ? hew_err_set(err, HEW_E_INVALID,
                                 "store_ui_append: UI message %ld of task %s is not stored: "
                                 "store it whole first (store_ui_put)",
                                 index, id)
                   : st_err(s, src, "reading a UI message", err);
    }
    /* Walked, not parsed: no tree, and a copy of the text only when it has escapes. */
    const char *json = (const char *)sqlite3_column_text(st, 0);
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    jscan js;
    const char *key;
    size_t klen;
    jscan_val v;
    bool partial = false, ok = json && jscan_object(&js, json, n);
    int more = 0;
    if (have)
        *have = 0;
    while (ok && (more = jscan_member(&js, &key, &klen, &v)) == 1) {
        if (jscan_key_is(key, klen, "partial")) {
            partial = v.kind == JSCAN_TRUE;
        } else if (jscan_key_is(key, klen, "text")) {
            ok = v.kind == JSCAN_STRING;
            if (!ok || !have) {
                ; /* not a text, or its length is not wanted */
            } else if (!v.escaped) {
                *have = (sqlite3_int64)v.len - 2;
            } else {
                char *out = malloc(v.len);
                if (!out) {
                    st_done(st);
                    return hew_err_set(err, HEW_E_NOMEM, "out of memory");
                }
                *have = (sqlite3_int64)jscan_unescape(&v, out);
                free(out);
            }
        }
    }
    st_done(st);
    if (!ok || more != 0 || !partial)
        return hew_err_set(err, HEW_E_INVALID,
                           "store_ui_append: UI message %ld of task %s is not a partial message "
                           "with a text: only a growing message takes appends",
                           index, id);
    return HEW_OK;
}

/* Inside write_begin/write_end: the part of an append. */
static hew_code ui_part_add(store *s, const char *id, sqlite3_int64 tid, long index,
                            size_t offset, const char *text, size_t len, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_PART_LAST, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, index);
    int src = sqlite3_step(st);
    sqlite3_int64 seq = 0, have = 0;
    if (src == SQLITE_ROW) {
        seq = sqlite3_column_int64(st, 0) + 1;
        have = sqlite3_column_int64(st, 1);
    }
    st_done(st);
    hew_code rc = HEW_OK;
    if (src != SQLITE_ROW && src != SQLITE_DONE)
        return st_err(s, src, "reading a UI message's parts", err);
    /* The row is read every time, not only for its length: a message finished by
     * store_ui_finish has parts but takes no more. (Its row is small: a growing message
     * is stored whole at its first event, then by appends.) */
    if ((rc = ui_base_len(s, id, tid, index, src == SQLITE_DONE ? &have : NULL, err)) != HEW_OK)
        return rc;
    if ((sqlite3_int64)offset > have)
        return hew_err_set(err, HEW_E_INVALID,
                           "store_ui_append: offset %zu is beyond the stored text of UI "
                           "message %ld of task %s (%lld bytes)",
                           offset, index, id, (long long)have);
    /* A long append goes in parts of at most STORE_PART_BYTES, each one row: SQLite builds
     * a row's record whole in memory, so one row of megabytes would cost a second copy of
     * them for the moment it is written. The parts fold back by bytes (a cut inside a
     * character is fine: only the folded text must be UTF-8). */
    size_t done = 0;
    do {
        size_t n = len - done < STORE_PART_BYTES ? len - done : STORE_PART_BYTES;
        if (!(st = st_get(s, ST_PART_ADD, err)))
            return err ? err->code : HEW_E_IO;
        sqlite3_bind_int64(st, 1, tid);
        sqlite3_bind_int64(st, 2, index);
        sqlite3_bind_int64(st, 3, seq++);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)(done ? offset + done : offset));
        sqlite3_bind_int64(st, 5, (sqlite3_int64)(offset + done + n));
        sqlite3_bind_blob(st, 6, text ? text + done : "", (int)n, SQLITE_STATIC);
        src = sqlite3_step(st);
        st_done(st);
        if (src != SQLITE_DONE)
            return st_err(s, src, "storing an append to a UI message", err);
        done += n;
    } while (done < len);
    return HEW_OK;
}

/* An append to UI message index (store_ui_append, store_ui_finish): in one transaction,
 * the part, and the row marked final when final. */
static hew_code ui_append(store *s, const char *fn, const char *id, long index, size_t offset,
                          const char *text, size_t len, bool final, hew_err *err);

hew_code store_ui_append(store *s, const char *id, long index, size_t offset,
                         const char *text, size_t len, hew_err *err)
{
    hew_code rc = ui_append(s, "store_ui_append", id, index, offset, text, len, false, err);
    if (rc == HEW_OK)
        s->last_partial_ms = clock_now_ms();
    return rc;
}

/* Inside write_begin/write_end: the row of UI message `index` says "partial": false from
 * now on. Its JSON is walked, not parsed, and only the flag's four bytes change. */
static hew_code ui_row_final(store *s, const char *id, sqlite3_int64 tid, long index,
                             hew_err *err)
{
    int src;
    sqlite3_stmt *st = ui_row(s, tid, index, &src, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    if (src != SQLITE_ROW) {
        st_done(st);
        return st_err(s, src == SQLITE_DONE ? SQLITE_CORRUPT : src, "reading a UI message", err);
    }
    const char *json = (const char *)sqlite3_column_text(st, 0);
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    jscan js;
    const char *key;
    size_t klen;
    jscan_val v;
    size_t at = 0;
    bool found = false, ok = json && jscan_object(&js, json, n);
    int more = 0;
    while (ok && (more = jscan_member(&js, &key, &klen, &v)) == 1)
        if (jscan_key_is(key, klen, "partial") && v.kind == JSCAN_TRUE) {
            at = (size_t)(v.start - json);
            found = true;
        }
    buf *out = &s->scratch;
    buf_reset(out);
    if (ok && more == 0 && found) {
        buf_append(out, json, at);
        buf_puts(out, "false");
        buf_append(out, json + at + 4, n - at - 4);
    }
    st_done(st);
    if (!ok || more != 0 || !found)
        return hew_err_set(err, HEW_E_INVALID,
                           "store_ui_finish: UI message %ld of task %s is not a partial message",
                           index, id);
    hew_code rc = buf_check(out, "UI message", err);
    if (rc == HEW_OK)
        rc = bind_step(s, ST_UI_SET, tid, index, out->data, out->len, "finishing a UI message",
                       err);
    if (rc == HEW_OK) /* the final text: the row's and its parts' (the first of it) */
        rc = fts_index(s, tid, index, out->data, out->len, err);
    trim(out);
    return rc;
}

hew_code store_ui_finish(store *s, const char *id, long index, size_t offset, const char *text,
                         size_t len, hew_err *err)
{
    return ui_append(s, "store_ui_finish", id, index, offset, text, len, true, err);
}

static hew_code ui_append(store *s, const char *fn, const char *id, long index, size_t offset,
                          const char *text, size_t len, bool final, hew_err *err)
{
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK)
        return rc;
    if (index < 0)
        return hew_err_set(err, HEW_E_INVALID, "%s: negative index %ld", fn, index);
    if ((!text && len) || len > (size_t)INT32_MAX || offset > (size_t)INT64_MAX - len)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: the append to UI message %ld of task %s is missing or too large",
                           fn, index, id);
    size_t bad = 0;
    if (!utf8_validate(text ? text : "", len, &bad))
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: the append to UI message %ld of task %s is not valid UTF-8 (at "
                           "byte %zu): an append is whole characters",
                           fn, index, id, bad);
    sqlite3_int64 tid;
    if ((rc = write_begin(s, id, false, &tid, err)) != HEW_OK)
        return rc;
    rc = ui_part_add(s, id, tid, index, offset, text, len, err);
    if (rc == HEW_OK && final)
        rc = ui_row_final(s, id, tid, index, err);
    return write_end(s, tid, rc, err);
}

hew_code store_ui_truncate(store *s, const char *id, size_t len, hew_err *err)
{
    sqlite3_int64 tid;
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK || (rc = write_begin(s, id, false, &tid, err)) != HEW_OK)
        return rc;
    rc = bind_step(s, ST_UI_TRUNC, tid, (sqlite3_int64)len, NULL, 0, "cutting the UI messages",
                   err);
    if (rc == HEW_OK)
        rc = bind_step(s, ST_PART_TRUNC, tid, (sqlite3_int64)len, NULL, 0,
                       "cutting the UI messages' parts", err);
    if (rc == HEW_OK)
        rc = fts_forget_from(s, tid, len > (size_t)LONG_MAX ? LONG_MAX : (long)len, err);
    return write_end(s, tid, rc, err);
}

hew_code store_rewrite_add(store *s, const char *id, size_t msg, size_t block,
                           const char *text, hew_err *err)
{
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK)
        return rc;
    if (!text)
        return hew_err_set(err, HEW_E_INVALID, "store_rewrite_add: no text");
    sqlite3_int64 tid;
    if ((rc = write_begin(s, id, false, &tid, err)) != HEW_OK)
        return rc;
    sqlite3_stmt *st = st_get(s, ST_RW_ADD, err);
    if (!st)
        return write_end(s, tid, err ? err->code : HEW_E_IO, err);
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)msg);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)block);
    sqlite3_bind_int64(st, 4, clock_wall_ms());
    sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
    int src = sqlite3_step(st);
    st_done(st);
    if (src != SQLITE_DONE)
        rc = st_err(s, src, "storing a context rewrite", err);
    return write_end(s, tid, rc, err);
}

/* ---- loading ------------------------------------------------------------------------------ */

void store_loaded_release(store_loaded *l)
{
    if (!l)
        return;
    store_task_release(&l->task);
    json_decref(l->history);
    json_decref(l->ui);
    json_decref(l->rewrites);
    l->history = l->ui = l->rewrites = NULL;
}

/* Loading a long history: the task thread steps through the rows and parses every
 * k-th batch of rows itself, straight from SQLite's memory; the other batches are copied
 * out and parsed by up to LOAD_THREADS - 1 helper threads meanwhile. Short histories
 * (and UI messages) are parsed inline. */
#define LOAD_PARALLEL_ROWS 512
#define LOAD_THREADS 4
#define LOAD_BATCH 32

typedef struct load_batch {
    struct load_batch *next;
    size_t first, count;
    size_t off[LOAD_BATCH + 1];
    buf text;
} load_batch;

typedef struct load_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    load_batch *head, *tail;
    bool closed;
    json_t **vals;
    const char *what;
    hew_code rc; /* the first error, with err */
    hew_err err;
} load_queue;

static void load_fail(load_queue *q, hew_code rc, const hew_err *err)
{
    pthread_mutex_lock(&q->mu);
    if (q->rc == HEW_OK) {
        q->rc = rc;
        q->err = *err;
    }
    pthread_mutex_unlock(&q->mu);
}

static void *load_worker(void *arg)
{
    load_queue *q = arg;
    jload jl = JLOAD_INIT;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->head && !q->closed)
            pthread_cond_wait(&q->cv, &q->mu);
        load_batch *b = q->head;
        if (b) {
            q->head = b->next;
            if (!q->head)
                q->tail = NULL;
        }
        pthread_mutex_unlock(&q->mu);
        if (!b)
            break;
        for (size_t i = 0; i < b->count; i++) {
            hew_err e = HEW_ERR_INIT;
            char name[64];
            snprintf(name, sizeof name, "stored %s %zu", q->what, b->first + i);
            json_t *v = jload_parse_with(&jl, b->text.data + b->off[i],
                                         b->off[i + 1] - b->off[i], name, &e);
            if (!v) {
                load_fail(q, e.code ? e.code : HEW_E_INVALID, &e);
                break;
            }
            q->vals[b->first + i] = v;
        }
        buf_release(&b->text);
        free(b);
    }
    jload_release(&jl);
    return NULL;
}

static void load_push(load_queue *q, load_batch *b)
{
    pthread_mutex_lock(&q->mu);
    if (q->tail)
        q->tail->next = b;
    else
        q->head = b;
    q->tail = b;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Parse the dense rows 0..count-1 of a SELECT (ord, json) into vals, in parallel. */
/* Row n of an API message stored in parts (its json is "", migration 3 -> 4): the parts
 * joined in *joined (reused from row to row), and *text / *len pointed at them. Rows with
 * a json of their own, and UI rows (parts == false), are left as they are. */
static hew_code row_joined(store *s, bool parts, sqlite3_int64 tid, sqlite3_int64 n,
                           buf *joined, const char **text, size_t *len, hew_err *err)
{
    if (!parts || *len != 0)
        return HEW_OK;
    sqlite3_stmt *st = st_get(s, ST_APART_GET, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, n);
    buf_reset(joined);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        buf_append(joined, sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
    st_done(st);
    if (rc != SQLITE_DONE)
        return st_err(s, rc, "reading a long API message", err);
    hew_code bc = buf_check(joined, "a long API message", err);
    if (bc != HEW_OK)
        return bc;
    *text = joined->data ? joined->data : "";
    *len = joined->len;
    return HEW_OK;
}

static hew_code load_parallel(store *s, sqlite3_stmt *st, size_t count, size_t helpers,
                              json_t **vals, const char *what, bool parts,
                              sqlite3_int64 tid, buf *joined, hew_err *err)
{
    load_queue q = { .vals = vals, .what = what, .rc = HEW_OK };
    pthread_mutex_init(&q.mu, NULL);
    clock_cond_init(&q.cv);
    json_object_seed(0); /* jansson's hash seed, before any thread makes objects */
    pthread_t th[LOAD_THREADS];
    size_t started = 0;
    for (; started < helpers; started++)
        if (pthread_create(&th[started], NULL, load_worker, &q) != 0)
            break;
    size_t share = started + 1; /* batch b is the task thread's when b % share == 0 */
    hew_code out = HEW_OK;
    load_batch *cur = NULL;
    size_t i = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 n = sqlite3_column_int64(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        if ((out = row_joined(s, parts, tid, n, joined, &text, &len, err)) != HEW_OK)
            break;
        if (n != (sqlite3_int64)i || i >= count) {
            out = hew_err_set(err, HEW_E_INVALID, "store %s: %s %lld is out of order", s->path,
                              what, (long long)n);
            break;
        }
        if ((i / LOAD_BATCH) % share == 0) {
            char name[64];
            snprintf(name, sizeof name, "stored %s %zu", what, i);
            if (!(vals[i] = jload_parse_with(&s->jl, text ? text : "", len, name, err))) {
                out = err ? err->code : HEW_E_INVALID;
                break;
            }
        } else {
            if (!cur) {
                if (!(cur = calloc(1, sizeof *cur))) {
                    out = hew_err_set(err, HEW_E_NOMEM, "out of memory");
                    break;
                }
                cur->first = i;
                buf_init(&cur->text, 0);
            }
            cur->off[cur->count++] = cur->text.len;
            buf_append(&cur->text, text ? text : "", len);
            cur->off[cur->count] = cur->text.len;
            if (cur->text.err) {
                out = buf_check(&cur->text, "stored messages", err);
                break;
            }
            if (cur->count == LOAD_BATCH || (i + 1) % LOAD_BATCH == 0) {
                load_push(&q, cur);
                cur = NULL;
            }
        }
        i++;
    }
    if (out == HEW_OK && rc != SQLITE_DONE)
        out = st_err(s, rc, "reading messages", err);
    if (cur) {
        if (out == HEW_OK)
            load_push(&q, cur);
        else {
            buf_release(&cur->text);
            free(cur);
        }
    }
    pthread_mutex_lock(&q.mu);
    q.closed = true;
    pthread_cond_broadcast(&q.cv);
    pthread_mutex_unlock(&q.mu);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    if (started == 0)
        load_worker(&q); /* no thread could start: parse the queue here */
    if (out == HEW_OK && q.rc != HEW_OK) {
        out = q.rc;
        if (err)
            *err = q.err;
    }
    if (out == HEW_OK && i != count)
        out = hew_err_set(err, HEW_E_INVALID, "store %s: %zu %ss, %zu expected", s->path, i,
                          what, count);
    pthread_cond_destroy(&q.cv);
    pthread_mutex_destroy(&q.mu);
    return out;
}

/* Rows of a SELECT (number, JSON) into arr: dense (0..n-1, expected of them) or with gaps
 * (missing numbers read as null). */
static hew_code load_rows_with(store *s, store_stmt which, sqlite3_int64 tid, json_t *arr,
                               bool dense, size_t expected, const char *what, buf *joined,
                               hew_err *err)
{
    bool parts = which == ST_LOAD_API; /* API messages may be stored in parts */
    sqlite3_stmt *st = st_get(s, which, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    hew_code out = HEW_OK;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (dense && expected >= LOAD_PARALLEL_ROWS && cpus >= 2) {
        json_t **vals = calloc(expected, sizeof *vals);
        if (!vals) {
            st_done(st);
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        }
        size_t helpers = (size_t)(cpus < LOAD_THREADS ? cpus : LOAD_THREADS) - 1;
        out = load_parallel(s, st, expected, helpers, vals, what, parts, tid, joined, err);
        st_done(st);
        for (size_t i = 0; i < expected; i++) {
            if (out == HEW_OK && json_array_append_new(arr, vals[i]) != 0)
                out = hew_err_set(err, HEW_E_NOMEM, "out of memory");
            else if (out != HEW_OK)
                json_decref(vals[i]);
        }
        free(vals);
        return out;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 n = sqlite3_column_int64(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        if ((out = row_joined(s, parts, tid, n, joined, &text, &len, err)) != HEW_OK)
            break;
        sqlite3_int64 have = (sqlite3_int64)json_array_size(arr);
        if (n < have || (dense && n != have)) {
            out = hew_err_set(err, HEW_E_INVALID, "store %s: %s %lld is out of order", s->path,
                              what, (long long)n);
            break;
        }
        while ((sqlite3_int64)json_array_size(arr) < n)
            json_array_append_new(arr, json_null());
        char name[64];
        snprintf(name, sizeof name, "stored %s %lld", what, (long long)n);
        json_t *v = jload_parse_with(&s->jl, text ? text : "", len, name, err);
        if (!v) {
            out = err ? err->code : HEW_E_INVALID;
            break;
        }
        if (json_array_append_new(arr, v) != 0) {
            out = hew_err_set(err, HEW_E_NOMEM, "out of memory");
            break;
        }
    }
    if (out == HEW_OK && rc != SQLITE_DONE)
        out = st_err(s, rc, "reading messages", err);
    st_done(st);
    return out;
}

static hew_code load_rows(store *s, store_stmt which, sqlite3_int64 tid, json_t *arr,
                          bool dense, size_t expected, const char *what, hew_err *err)
{
    buf joined = BUF_INIT(0);
    hew_code rc = load_rows_with(s, which, tid, arr, dense, expected, what, &joined, err);
    buf_release(&joined);
    return rc;
}

static hew_code load_rewrites(store *s, sqlite3_int64 tid, json_t *arr, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_LOAD_RW, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    hew_code out = HEW_OK;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 2);
        json_t *o = json_pack("{s:I, s:I, s:s%}", "msg", (json_int_t)sqlite3_column_int64(st, 0),
                              "block", (json_int_t)sqlite3_column_int64(st, 1), "text",
                              text ? text : "", (size_t)sqlite3_column_bytes(st, 2));
        if (!o || json_array_append_new(arr, o) != 0) {
            out = hew_err_set(err, HEW_E_INVALID, "store %s: a stored context rewrite is not "
                                                  "valid UTF-8 (or out of memory)",
                              s->path);
            break;
        }
    }
    if (out == HEW_OK && rc != SQLITE_DONE)
        out = st_err(s, rc, "reading context rewrites", err);
    st_done(st);
    return out;
}

/* The folded text of a message into its "text". Not UTF-8 (an append at an offset inside
 * a character, or a database changed by hand): the bad bytes read as U+FFFD, so the task
 * still loads with everything else. */
static hew_code fold_set(json_t *msg, buf *text, hew_err *err)
{
    if (!utf8_validate(text->data ? text->data : "", text->len, NULL)) {
        buf clean = BUF_INIT(0);
        utf8_sanitize(text->data, text->len, &clean);
        buf_release(text);
        *text = clean;
        if (buf_check(text, "a folded UI message", err) != HEW_OK)
            return err ? err->code : HEW_E_NOMEM;
    }
    json_t *v = json_stringn_nocheck(text->data ? text->data : "", text->len);
    if (!v || json_object_set_new(msg, "text", v) != 0)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return HEW_OK;
}

/* Fold one part of UI message idx into its text: the statement's row holds the part's
 * offset, total and bytes from column col on. A part that does not fit (an offset beyond
 * the text, a total that does not add up) is HEW_E_INVALID: the database was changed
 * behind the store's back. */
static hew_code fold_part(store *s, sqlite3_stmt *st, int col, sqlite3_int64 idx, buf *text,
                          hew_err *err)
{
    sqlite3_int64 off = sqlite3_column_int64(st, col);
    sqlite3_int64 total = sqlite3_column_int64(st, col + 1);
    const void *bytes = sqlite3_column_blob(st, col + 2);
    size_t n = (size_t)sqlite3_column_bytes(st, col + 2);
    if (off < 0 || (size_t)off > text->len || total != off + (sqlite3_int64)n)
        return hew_err_set(err, HEW_E_INVALID,
                           "store %s: an append to UI message %lld does not fit its text "
                           "(offset %lld, %zu bytes stored before it)",
                           s->path, (long long)idx, (long long)off, text->len);
    buf_truncate(text, (size_t)off);
    buf_append(text, bytes ? bytes : "", n);
    return buf_check(text, "a folded UI message", err);
}

/* Fold the parts of messages grown by store_ui_append into their "text" (ui holds the
 * rows): per message, its stored text, then each part in order cuts it to `off` and adds
 * its bytes. A part that does not fit (an offset beyond the text, a total that does not
 * add up, a message that is not there) is HEW_E_INVALID: the database was changed behind
 * the store's back. */
static hew_code fold_parts(store *s, sqlite3_int64 tid, json_t *ui, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_LOAD_PARTS, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    buf text = BUF_INIT(0);
    json_t *msg = NULL; /* the message being folded (borrowed from ui) */
    sqlite3_int64 cur = -1;
    hew_code rc = HEW_OK;
    int src;
    for (;;) {
        src = sqlite3_step(st);
        sqlite3_int64 idx = src == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        if (msg && idx != cur) { /* the message's last part was folded: its text */
            if ((rc = fold_set(msg, &text, err)) != HEW_OK)
                break;
            msg = NULL;
        }
        if (src != SQLITE_ROW)
            break;
        if (idx != cur) {
            cur = idx;
            msg = idx >= 0 ? json_array_get(ui, (size_t)idx) : NULL;
            const json_t *base = json_object_get(msg, "text");
            if (!json_is_object(msg) || (base && !json_is_string(base))) {
                rc = hew_err_set(err, HEW_E_INVALID,
                                 "store %s: appends to UI message %lld, which is not a stored "
                                 "message with a text",
                                 s->path, (long long)idx);
                msg = NULL;
                break;
            }
            buf_reset(&text);
            if (base)
                buf_append(&text, json_string_value(base), json_string_length(base));
        }
        if ((rc = fold_part(s, st, 1, idx, &text, err)) != HEW_OK)
            break;
    }
    if (rc == HEW_OK && src != SQLITE_DONE)
        rc = st_err(s, src, "reading the appends to UI messages", err);
    st_done(st);
    buf_release(&text);
    return rc;
}

/* Inside a read transaction: the stored text of UI message index (its row's "text", then
 * its parts folded in order) into out. */
static hew_code ui_text_read(store *s, sqlite3_int64 tid, long index, buf *out, hew_err *err)
{
    int src;
    sqlite3_stmt *st = ui_row(s, tid, index, &src, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    if (src != SQLITE_ROW) {
        st_done(st);
        return src == SQLITE_DONE ? hew_err_set(err, HEW_E_NOTFOUND,
                                                "store %s: no UI message %ld", s->path, index)
                                  : st_err(s, src, "reading a UI message", err);
    }
    json_t *row = json_loadb((const char *)sqlite3_column_blob(st, 0),
                             (size_t)sqlite3_column_bytes(st, 0), 0, NULL);
    st_done(st);
    const json_t *text = json_object_get(row, "text");
    if (!json_is_object(row) || (text && !json_is_string(text))) {
        json_decref(row);
        return hew_err_set(err, HEW_E_INVALID,
                           "store %s: UI message %ld is not a stored message with a text",
                           s->path, index);
    }
    buf_reset(out);
    if (text)
        buf_append(out, json_string_value(text), json_string_length(text));
    json_decref(row);
    if (!(st = st_get(s, ST_LOAD_PARTS_ONE, err)))
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, index);
    hew_code rc = HEW_OK;
    while ((src = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = fold_part(s, st, 0, index, out, err)) != HEW_OK)
            break;
    if (rc == HEW_OK && src != SQLITE_DONE)
        rc = st_err(s, src, "reading the appends to a UI message", err);
    st_done(st);
    return rc;
}

hew_code store_ui_text(store *s, const char *id, long index, buf *out, hew_err *err)
{
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK || (rc = store_flush_held(s, err)) != HEW_OK)
        return rc;
    if ((rc = tx_begin_read(s, err)) != HEW_OK)
        return rc;
    sqlite3_int64 tid;
    if ((rc = store_tid(s, id, &tid, err)) == HEW_OK)
        rc = ui_text_read(s, tid, index, out, err);
    tx_rollback(s);
    return rc;
}

hew_code store_task_load(store *s, const char *id, store_loaded *out, hew_err *err)
{
    memset(out, 0, sizeof *out);
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK || (rc = store_flush_held(s, err)) != HEW_OK)
        return rc;
    out->history = json_array();
    out->ui = json_array();
    out->rewrites = json_array();
    if (!out->history || !out->ui || !out->rewrites) {
        store_loaded_release(out);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    if ((rc = tx_begin_read(s, err)) != HEW_OK) {
        store_loaded_release(out);
        return rc;
    }
    sqlite3_int64 tid;
    if ((rc = get_task(s, id, &out->task, err)) != HEW_OK ||
        (rc = store_tid(s, id, &tid, err)) != HEW_OK ||
        (rc = load_rows(s, ST_LOAD_API, tid, out->history, true, (size_t)out->task.api_count,
                        "API message", err)) != HEW_OK ||
        (rc = load_rows(s, ST_LOAD_UI, tid, out->ui, false, 0, "UI message", err)) != HEW_OK ||
        (rc = fold_parts(s, tid, out->ui, err)) != HEW_OK ||
        (rc = load_rewrites(s, tid, out->rewrites, err)) != HEW_OK) {
        tx_rollback(s);
        store_loaded_release(out);
        return rc;
    }
    tx_rollback(s); /* a read: nothing to commit */
    return HEW_OK;
}

/* ---- history ------------------------------------------------------------------------------ */

void store_task_list_free(store_task *items, size_t n)
{
    for (size_t i = 0; items && i < n; i++)
        store_task_release(&items[i]);
    free(items);
}

/* Fill a search row's snippet and match_index (the two columns after TASK_COLUMNS; NULL
 * when only its row matched). */
static hew_code read_match(sqlite3_stmt *st, store_task *t, hew_err *err)
{
    if (sqlite3_column_type(st, 20) == SQLITE_NULL)
        return HEW_OK;
    t->match_index = sqlite3_column_int64(st, 20);
    if (sqlite3_column_type(st, 21) != SQLITE_NULL && !(t->snippet = col_dup(st, 21)))
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return HEW_OK;
}

hew_code store_task_list(store *s, const store_query *q, store_task **items, size_t *n,
                         hew_err *err)
{
    *items = NULL;
    *n = 0;
    store_query none = STORE_QUERY_INIT;
    if (!q)
        q = &none;
    hew_code rc = store_flush_held(s, err);
    if (rc != HEW_OK)
        return rc;
    buf pat = BUF_INIT(0), match = BUF_INIT(0);
    bool search = q->text && *q->text && fts_query(q->text, &match);
    if ((rc = buf_check(&match, "search", err)) != HEW_OK) {
        buf_release(&match);
        return rc;
    }
    sqlite3_stmt *st = st_get(s, search ? ST_SEARCH : ST_LIST, err);
    if (!st) {
        buf_release(&match);
        return err ? err->code : HEW_E_IO;
    }
    if (q->text && *q->text) {
        buf_putc(&pat, '%');
        for (const char *p = q->text; *p; p++) {
            if (*p == '%' || *p == '_' || *p == '\\')
                buf_putc(&pat, '\\');
            buf_putc(&pat, *p);
        }
        buf_putc(&pat, '%');
        if ((rc = buf_check(&pat, "search pattern", err)) != HEW_OK) {
            buf_release(&pat);
            buf_release(&match);
            return rc;
        }
        sqlite3_bind_text(st, 1, pat.data, (int)pat.len, SQLITE_STATIC);
    }
    st_bind_text(st, 2, q->workspace, false);
    sqlite3_bind_int64(st, 3, q->limit ? (sqlite3_int64)q->limit : -1);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)q->offset);
    if (search)
        sqlite3_bind_text(st, 5, match.data, (int)match.len, SQLITE_STATIC);
    size_t cap = 0;
    store_task *v = NULL;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            store_task *nv = realloc(v, ncap * sizeof *nv);
            if (!nv) {
                rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
                break;
            }
            v = nv;
            cap = ncap;
        }
        if ((rc = read_task(st, &v[*n], err)) != HEW_OK)
            break;
        (*n)++;
        if (search && (rc = read_match(st, &v[*n - 1], err)) != HEW_OK)
            break;
    }
    if (rc == HEW_OK && src != SQLITE_DONE)
        rc = st_err(s, src, "listing tasks", err);
    st_done(st);
    buf_release(&pat);
    buf_release(&match);
    if (rc != HEW_OK) {
        store_task_list_free(v, *n);
        *n = 0;
        return rc;
    }
    *items = v;
    return HEW_OK;
}

/* ---- locks -------------------------------------------------------------------------------- */

struct store_lock {
    int fd;
    char *path;
};

static char *lock_path(store *s, const char *id)
{
    buf b = BUF_INIT(0);
    buf_printf(&b, "%s/%s.lock", s->lock_dir, id);
    return buf_detach(&b, NULL);
}

void store_lock_free(store_lock *l)
{
    if (!l)
        return;
    if (l->fd >= 0)
        close(l->fd); /* releases the flock */
    free(l->path);
    free(l);
}

static bool task_exists(store *s, const char *id, hew_err *err, hew_code *rc)
{
    bool taken = false;
    *rc = id_taken(s, id, &taken, err);
    if (*rc == HEW_OK && !taken)
        *rc = hew_err_set(err, HEW_E_NOTFOUND, "no task %s in %s", id, s->path);
    return *rc == HEW_OK;
}

hew_code store_task_lock(store *s, const char *id, int wait_ms, store_lock **out, hew_err *err)
{
    *out = NULL;
    hew_code rc = store_check_id(id, err);
    if (rc != HEW_OK)
        return rc;
    if (!task_exists(s, id, err, &rc))
        return rc;
    if ((rc = fs_mkdirs(s->lock_dir, 0700, err)) != HEW_OK)
        return rc;
    store_lock *l = calloc(1, sizeof *l);
    if (!l || !(l->path = lock_path(s, id))) {
        free(l);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (l->fd < 0) {
        rc = hew_err_set(err, HEW_E_IO, "cannot open the lock file %s: %s", l->path,
                         strerror(errno));
        store_lock_free(l);
        return rc;
    }
    long long deadline = clock_now_ms() + (wait_ms > 0 ? wait_ms : 0);
    while (flock(l->fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK) {
            rc = hew_err_set(err, HEW_E_IO, "cannot lock %s: %s", l->path, strerror(errno));
            store_lock_free(l);
            return rc;
        }
        if (clock_now_ms() >= deadline) {
            char pid[32] = "";
            ssize_t r = pread(l->fd, pid, sizeof pid - 1, 0);
            pid[r > 0 ? r : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            rc = hew_err_set(err, HEW_E_TIMEOUT,
                             "task %s is open elsewhere (process %s) — close it there first", id,
                             *pid ? pid : "unknown");
            store_lock_free(l);
            return rc;
        }
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    /* The task may have been deleted while we waited. */
    if (!task_exists(s, id, err, &rc)) {
        struct stat a, b;
        if (fstat(l->fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev)
            unlink(l->path);
        store_lock_free(l);
        return rc;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(l->fd, 0) == 0 && pwrite(l->fd, pid, (size_t)n, 0) < 0) {
        /* only informative */
    }
    *out = l;
    return HEW_OK;
}

bool store_task_locked(store *s, const char *id)
{
    if (store_check_id(id, NULL) != HEW_OK)
        return false;
    char *p = lock_path(s, id);
    if (!p)
        return false;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    free(p);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

hew_code store_task_delete(store *s, const char *id, hew_err *err)
{
    store_lock *l;
    hew_code rc = store_task_lock(s, id, 0, &l, err);
    if (rc != HEW_OK)
        return rc;
    if (s->held && strcmp(s->held_id, id) == 0)
        s->held = false;
    if ((rc = store_flush_held(s, err)) != HEW_OK || (rc = tx_begin(s, true, err)) != HEW_OK) {
        store_lock_free(l);
        return rc;
    }
    sqlite3_int64 tid;
    static const store_stmt dels[] = { ST_DEL_API, ST_DEL_APARTS, ST_DEL_UI,
                                       ST_DEL_PARTS, ST_DEL_RW,    ST_DEL_TASK };
    if ((rc = store_tid(s, id, &tid, err)) != HEW_OK ||
        (rc = fts_forget_from(s, tid, 0, err)) != HEW_OK)
        goto fail;
    for (size_t i = 0; i < sizeof dels / sizeof dels[0]; i++) {
        sqlite3_stmt *st = st_get(s, dels[i], err);
        if (!st) {
            rc = err ? err->code : HEW_E_IO;
            goto fail;
        }
        sqlite3_bind_int64(st, 1, tid);
        int src = sqlite3_step(st);
        st_done(st);
        if (src != SQLITE_DONE) {
            rc = st_err(s, src, "deleting a task", err);
            goto fail;
        }
    }
    if ((rc = tx_commit(s, err)) != HEW_OK) {
        store_lock_free(l);
        return rc;
    }
    unlink(l->path);
    store_lock_free(l);
    return HEW_OK;
fail:
    tx_rollback(s);
    store_lock_free(l);
    return rc;
}
