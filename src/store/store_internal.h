/* store_internal — what the store's files share (the connection, prepared statements,
 * transactions, id checks). Only the store's .c files include it; it must never be used from
 * outside the store. */
#ifndef HEW_STORE_INTERNAL_H
#define HEW_STORE_INTERNAL_H

#include <sqlite3.h>

#include "base/buf.h"
#include "store/jload.h"
#include "store/store.h"

/* The prepared statements, one per SQL text in store.c's table. */
typedef enum store_stmt {
    ST_TID,          /* id → tid */
    ST_ID_TAKEN,
    ST_INSERT_TASK,
    ST_TOUCH,
    ST_UPD_USAGE,
    ST_UPD_DELETED,
    ST_UPD_STATUS,
    ST_UPD_MODE,
    ST_UPD_MODEL,
    ST_UPD_TITLE,
    ST_API_NEXT,
    ST_API_PUT,
    ST_API_TRUNC,
    ST_RW_TRUNC,
    ST_APART_ADD,    /* one part of a long API message (migration 3 -> 4) */
    ST_APART_DROP,
    ST_APART_TRUNC,
    ST_APART_GET,
    ST_DEL_APARTS,
    ST_UI_PUT,
    ST_UI_TRUNC,
    ST_UI_GET,       /* one UI row's JSON (the base of its first append) */
    ST_UI_SET,       /* one UI row's JSON replaced, its parts kept (store_ui_finish) */
    ST_PART_LAST,    /* the newest part of a UI message: seq, total */
    ST_PART_ADD,
    ST_PART_DROP,    /* the parts of one UI message */
    ST_PART_TRUNC,
    ST_LOAD_PARTS,
    ST_LOAD_PARTS_ONE,
    ST_RW_ADD,
    ST_GET_TASK,
    ST_LOAD_API,
    ST_LOAD_UI,
    ST_LOAD_RW,
    ST_LIST,
    ST_DEL_API,
    ST_DEL_UI,
    ST_DEL_RW,
    ST_DEL_PARTS,
    ST_DEL_TASK,
    ST_FTS_DEL,      /* the index row of one message (store/fts.c) */
    ST_FTS_ADD,
    ST_FTS_DEL_RANGE,
    ST_FTS_PARTS,    /* a message's parts: rowid, off, length (read by blob reads) */
    ST_SEARCH,       /* store_task_list with a search of the messages' text */
    ST__COUNT
} store_stmt;

struct store {
    sqlite3 *db;
    char *path;
    char *lock_dir;           /* <path>.locks */
    int busy_ms;
    int partial_ms;
    bool durable;
    bool full;                /* the open transaction commits with synchronous=FULL */
    sqlite3_stmt *st[ST__COUNT];
    buf scratch;              /* JSON dumps */
    jload jl;                 /* JSON loads */
    /* the held partial UI message */
    bool held;
    char held_id[STORE_ID_MAX + 1];
    long held_index;
    buf held_json;
    long long last_partial_ms;
};

/* The statement, prepared on first use (reset and unbound after every use by st_done). */
sqlite3_stmt *st_get(store *s, store_stmt which, hew_err *err);
void st_done(sqlite3_stmt *st);

/* An error value from SQLite's result code: BUSY/LOCKED → HEW_E_TIMEOUT, NOMEM,
 * everything else HEW_E_IO; the message names the database and what was being done. */
hew_code st_err(store *s, int rc, const char *what, hew_err *err);

/* BEGIN IMMEDIATE (full: commit with synchronous=FULL) / COMMIT / ROLLBACK. */
hew_code tx_begin(store *s, bool full, hew_err *err);
hew_code tx_commit(store *s, hew_err *err);
void tx_rollback(store *s);

/* A read transaction (a consistent snapshot across several SELECTs). */
hew_code tx_begin_read(store *s, hew_err *err);

/* HEW_E_INVALID unless id is a valid task id. */
hew_code store_check_id(const char *id, hew_err *err);

/* The task's row id inside a transaction; HEW_E_NOTFOUND. */
hew_code store_tid(store *s, const char *id, sqlite3_int64 *tid, hew_err *err);

/* A fresh unique id (time in ms, bumped until free) into out. */
hew_code store_new_id(store *s, char out[STORE_ID_MAX + 1], hew_err *err);

/* Bind a string, or NULL as "" (not_null) / SQL NULL. */
int st_bind_text(sqlite3_stmt *st, int i, const char *v, bool not_null);

/* Commit the held partial UI message (if any). */
hew_code store_flush_held(store *s, hew_err *err);

/* Insert a task row inside an open transaction. */
hew_code store_insert_task(store *s, const store_task *t, const char *id, hew_err *err);

#endif
