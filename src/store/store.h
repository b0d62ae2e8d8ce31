/* store — hew's crash-safe memory of tasks: one SQLite database (hew.db in hew's data
 * directory) holding every task's row, its API history (api/message.h), its UI messages
 * (the event JSON of task/uimsg.h, docs/events.md) and its context rewrites (context/).
 * It must never lose a message once the call that stored it returned HEW_OK, never leave
 * the database unreadable (also after `kill -9` at any instant), never build SQL from
 * values (every value is a bound parameter), and never let two owners write one task.
 *
 * ---- Durability --------------------------------------------------------------------------
 * The database is in WAL mode. Every write call below is ONE transaction, committed
 * before the call returns: there is no batching, so a message is either entirely there
 * or not at all. The one exception is a partial UI message (store_ui_put with
 * partial = true), which the store may hold back, see there.
 *   synchronous=NORMAL for message traffic (api/ui/rewrite/usage writes): a committed
 *     transaction is in the WAL, in the operating system's hands, before the call
 *     returns — it survives the death of the process (kill -9, a crash) at any moment.
 *     An operating-system crash or power cut can lose the last transactions before the
 *     next checkpoint (never more, and never corrupt the file).
 *   synchronous=FULL (the WAL fsynced at commit) where losing the write would be worse
 *     than a lost message: creating a task, the end of a task (status/result), deleting,
 *     importing, and schema migrations.
 *   store_options.durable = true makes every commit FULL (a few ms each on most disks).
 *
 * ---- Concurrency -------------------------------------------------------------------------
 * A `store` is one connection: use it from one thread at a time (open one per thread;
 * the task thread of each task may have its own). Any number of connections and hew
 * processes may share one database file: readers never wait, writers wait for each
 * other up to busy_timeout_ms (default 5 s), then fail with HEW_E_TIMEOUT.
 * A task is WRITTEN only by the holder of its lock (store_task_lock): an flock on a side
 * file next to the database (<db>.locks/<id>.lock), so the kernel releases it when the
 * owner dies, however it dies. Reading (load, list, show, export) needs no lock. The
 * store does not check the lock on each write (it cannot see another process's holder
 * cheaply); the caller that opens a task for work takes the lock first. The flock
 * belongs to the open file, which fork() shares: a child forked while a lock is held
 * keeps it alive until it execs (the descriptor is close-on-exec) or exits.
 *
 * ---- Ownership and errors ----------------------------------------------------------------
 * Strings given to the store are copied; json_t given are only read. Everything the
 * store returns is owned by the caller and released with the matching _release or
 * _free function.
 * Task ids are short strings of [A-Za-z0-9_.-] (hew makes them like Cline: the creation
 * time in ms, "1764669000123"); an invalid id is HEW_E_INVALID.
 * Errors: HEW_E_NOTFOUND (no such task), HEW_E_INVALID (bad argument, a stored value that
 * does not parse, a database of a newer schema), HEW_E_TIMEOUT (the database or the
 * task lock stayed busy), HEW_E_IO (SQLite or the file system refused: the message has
 * SQLite's words and the path), HEW_E_NOMEM. A failed write changes nothing.
 *
 * ---- Schema ------------------------------------------------------------------------------
 * PRAGMA user_version holds the schema version; store_open migrates an older database
 * forward in one transaction and refuses a newer one. STRICT tables: tasks,
 * api_messages (task, ord, json), ui_messages (task, idx, json), ui_parts (task, idx,
 * seq, off, total, text: the appends to a partial UI message, store_ui_append),
 * context_rewrites (task, seq, msg, block, text), and msg_fts, an FTS5 index of the
 * messages' text (store_task_list's search).
 *   5: msg_fts (filled from the messages already stored when a database is migrated).
 *   4: api_parts (an API message of megabytes is stored in parts).
 *   3: ui_parts (a growing message is stored by appends, not rewritten whole).
 *   2: tasks.requests.
 * A database of an older version is migrated on open; an older hew refuses a newer one
 * (it says so, and changes nothing). */
#ifndef HEW_STORE_STORE_H
#define HEW_STORE_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define STORE_SCHEMA_VERSION 5
#define STORE_ID_MAX 64

typedef struct store store;
typedef struct store_lock store_lock;

/* ---- opening ---------------------------------------------------------------------------- */

typedef struct store_options {
    const char *path;        /* the database file; NULL: store_default_path() */
    int busy_timeout_ms;     /* how long a writer waits for another; 0: 5000 */
    int partial_interval_ms; /* partial UI messages are committed at least this often;
                                0: 1000; negative: every one at once */
    bool durable;            /* synchronous=FULL for every commit */
} store_options;

#define STORE_OPTIONS_INIT { NULL, 0, 0, false }

/* $XDG_DATA_HOME/hew/hew.db, or ~/.local/share/hew/hew.db ($HOME, else the passwd
 * entry). A new string the caller frees; NULL (err says why) when neither is known. */
char *store_default_path(hew_err *err);

/* The database of a data directory: <data_dir>/hew.db, or store_default_path() when
 * data_dir is NULL or "" (hew_options.data_dir's rule). A new string the caller frees;
 * NULL with err set. */
char *store_path_in(const char *data_dir, hew_err *err);

/* Open (creating the file and its directory if needed, mode 0600/0700) and migrate.
 * opt may be NULL (defaults). *out is NULL on failure. */
hew_code store_open(const store_options *opt, store **out, hew_err *err);

/* Commit a held-back partial UI message, then close. NULL is a no-op. */
void store_free(store *s);


/* SQLite's quick_check of the whole database (hew doctor): HEW_OK, or HEW_E_IO with the
 * first problem it found. */
hew_code store_check(store *s, hew_err *err);

/* ---- the task row ------------------------------------------------------------------------- */

/* One row of tasks. Strings are owned (store_task_release frees them); NULL reads as "".
 * status is free text to the store; hew writes "running", "completed", "failed",
 * "aborted" (hew_task_status), and an import writes "imported" when it cannot tell. */
typedef struct store_task {
    char *id;
    char *workspace;      /* the task's working directory */
    char *title;          /* the task as the user gave it */
    char *provider, *model;
    char *mode;           /* "act" / "plan" */
    char *status;
    char *result;         /* completion result or failure reason; NULL: none */
    int64_t created_ms, updated_ms; /* ms since the epoch; updated by every write */
    int64_t tokens_in, tokens_out, cache_reads, cache_writes;
    double cost;          /* USD */
    int64_t requests;     /* API requests made (api_req_started messages; the automatic
                             retries of one request are not counted apart) */
    bool has_deleted;     /* the context's deleted range [deleted_start, deleted_end] */
    int64_t deleted_start, deleted_end;
    int64_t api_count;    /* filled by get/list/load: API messages stored */
    int64_t ui_count;     /* filled by get/list/load: UI messages stored */
    /* filled by store_task_list when its search matched a message's text, else NULL/-1: */
    char *snippet;        /* FTS5's snippet of the best match: the matched words between
                             STORE_MARK_OPEN and STORE_MARK_CLOSE, "…" where text was left out */
    int64_t match_index;  /* the index of that UI message */
} store_task;

/* The marks around a matched word in store_task.snippet: U+0002 and U+0003, which never
 * occur in the indexed text (they are indexed as spaces), so the marks are unambiguous. */
#define STORE_MARK_OPEN '\x02'
#define STORE_MARK_CLOSE '\x03'

#define STORE_TASK_INIT { 0 }

void store_task_release(store_task *t);

/* Create a task from init's workspace, title, provider, model and mode (NULL: "act");
 * status "running", everything else zero. init->id NULL: a new id (the time in ms, made
 * unique); otherwise that id (HEW_E_INVALID when taken). *id_out (may be NULL) gets a
 * new string the caller frees. FULL commit. */
hew_code store_task_create(store *s, const store_task *init, char **id_out, hew_err *err);

/* Which fields store_task_update writes (an OR of these). */
enum {
    STORE_SET_USAGE = 1 << 0,   /* tokens_in, tokens_out, cache_reads, cache_writes, cost,
                                   requests (the task's totals, not increments) */
    STORE_SET_DELETED = 1 << 1, /* has_deleted, deleted_start, deleted_end */
    STORE_SET_STATUS = 1 << 2,  /* status, result (FULL commit) */
    STORE_SET_MODE = 1 << 3,    /* mode */
    STORE_SET_MODEL = 1 << 4,   /* provider, model */
    STORE_SET_TITLE = 1 << 5    /* title */
};

/* Write the fields named by `fields` from t (t->id names the task) and updated_ms = now,
 * in one transaction. HEW_E_NOTFOUND when there is no such task. */
hew_code store_task_update(store *s, const store_task *t, unsigned fields, hew_err *err);

/* The row of one task (counts filled). */
hew_code store_task_get(store *s, const char *id, store_task *out, hew_err *err);

/* ---- messages ----------------------------------------------------------------------------- */

/* Store API message number ord of the task (msg: one message of api/message.h, dumped
 * as compact JSON). ord may be the next one (append) or an existing one (replace);
 * beyond the end is HEW_E_INVALID, so the stored history never has holes. One
 * transaction (NORMAL). */
hew_code store_api_put(store *s, const char *id, size_t ord, const json_t *msg, hew_err *err);

/* Forget API messages ord >= len, and the context rewrites of those messages (resume
 * drops an unfinished trailing message; a checkpoint restore cuts the history). */
hew_code store_api_truncate(store *s, const char *id, size_t len, hew_err *err);

/* Store UI message `index` (insert or replace; the parts of a message that grew by
 * store_ui_append go with the row they grew, in the same transaction): json[0..len) is the
 * event's JSON object (uimsg_to_json); it must be valid JSON (HEW_E_INVALID otherwise).
 * partial = false: committed before the call returns, together with anything held.
 * partial = true: the store may hold it in memory and commit it later — at the latest
 * with the next store call on this connection at least partial_interval_ms after the
 * last commit of a partial, or on store_flush / store_free. Only one message is held at
 * a time (a newer version replaces it; another task's or index's message first commits
 * the held one). So a crash loses at most the last second of a streaming message. */
hew_code store_ui_put(store *s, const char *id, long index, const char *json, size_t len,
                      bool partial, hew_err *err);

/* Grow partial UI message `index` by an append (the rule of the events, docs/events.md):
 * its stored text becomes text[0..offset) + text[0..len) of this call, where the stored
 * text is that of its last store_ui_put plus the appends since. The cost is what was
 * appended, not the length of the message: the append is kept as a part (ui_parts) beside
 * the row, which is not rewritten. The message's next store_ui_put (its final form, or any
 * whole version) replaces the row and drops its parts in one transaction; loading
 * (store_task_load, and so history, export and resume) folds the parts into "text".
 * The message must be stored with "partial": true (and "text" a string, or none: ""), and
 * offset must be at most the length of its stored text, and text[0..len) valid UTF-8:
 * HEW_E_INVALID otherwise, nothing written. offset must fall between two characters of
 * the stored text (the events' offsets do); should a folded text still not be UTF-8 (an
 * offset inside a character, a database changed by hand), loading shows the bad bytes as
 * U+FFFD rather than refusing the task. Committed before
 * the call returns (one transaction, NORMAL), after a held partial message; it counts as a
 * partial commit for store_ui_partial_due. */
hew_code store_ui_append(store *s, const char *id, long index, size_t offset,
                         const char *text, size_t len, hew_err *err);

/* Finish partial UI message `index` by a last append: as store_ui_append (the same rules
 * and errors), and from now on the message is stored "partial": false — what store_ui_put
 * of its final form would store, without writing that form whole (a final message of
 * megabytes costs its last append). Its parts stay and are folded when loaded. One
 * transaction, committed before the call returns. */
hew_code store_ui_finish(store *s, const char *id, long index, size_t offset, const char *text,
                         size_t len, hew_err *err);

/* The stored text of UI message `index` (its row's text with the appends folded in, as
 * loading gives it) into out, replacing what out held: what a writer that let go of a
 * long final message's text in memory reads back when it needs it again
 * (task/persist.c). HEW_E_NOTFOUND when the message is not stored; HEW_E_INVALID when it
 * is not a message with a text, or its parts do not fit. A held partial message is
 * committed first. */
hew_code store_ui_text(store *s, const char *id, long index, buf *out, hew_err *err);

/* Whether store_ui_put of a partial message now would commit it at once (rather than hold
 * a copy): a writer that keeps the message itself builds its JSON only when this says
 * so, and hands the latest version over with partial = false before anything else
 * (task/persist.c). */
bool store_ui_partial_due(const store *s);

/* Forget UI messages index >= len, their parts too (resume drops trailing asks).
 * Commits a held message of that task first. */
hew_code store_ui_truncate(store *s, const char *id, size_t len, hew_err *err);

/* Commit the held partial UI message now, if any (cheap when none). */
hew_code store_flush(store *s, hew_err *err);

/* Record a context rewrite: from now on block `block` of API message `msg` reads `text`
 * (context.h, the file-read collapse). Rewrites are kept in the order recorded; a later
 * one for the same block wins. */
hew_code store_rewrite_add(store *s, const char *id, size_t msg, size_t block,
                           const char *text, hew_err *err);

/* ---- loading (resume) --------------------------------------------------------------------- */

typedef struct store_loaded {
    store_task task;  /* the row */
    json_t *history;  /* array: API messages 0..n-1 */
    json_t *ui;       /* array: UI event objects by index (a missing index reads as null);
                         a message grown by store_ui_append has its parts folded into
                         "text" */
    json_t *rewrites; /* array of {"msg":i,"block":j,"text":s} in the order recorded */
} store_loaded;

#define STORE_LOADED_INIT { STORE_TASK_INIT, NULL, NULL, NULL }

void store_loaded_release(store_loaded *l);

/* Everything of one task, in one read transaction (a consistent snapshot). Fast: 10 000
 * messages of 2 KB in well under 50 ms (bench/store.c). On failure *out is released. */
hew_code store_task_load(store *s, const char *id, store_loaded *out, hew_err *err);

/* ---- history -------------------------------------------------------------------------------- */

typedef struct store_query {
    const char *text;      /* NULL/"": all; else words searched in the messages' text
                              (below), or a case-insensitive (ASCII) substring of the title,
                              workspace, result or id */
    const char *workspace; /* NULL: any; else exactly this workspace */
    size_t limit;          /* 0: no limit */
    size_t offset;
} store_query;

#define STORE_QUERY_INIT { NULL, NULL, 0, 0 }

#define STORE_FTS_BYTES ((size_t)256 << 10) /* how much of a message's text is indexed */

/* Tasks newest first (by updated_ms, then id). *items is a new array of *n rows
 * (counts filled) the caller frees with store_task_list_free.
 * With a search text: first the tasks whose messages hold all its words, best match first
 * (FTS5's bm25 over the task's best-matching message; each row's snippet and match_index
 * say which message and where), then those whose title, workspace, result or id hold the
 * text as a substring but no message does, newest first. The words are the text split at
 * white space, each searched as a word of its own (FTS5 syntax in it — quotes, *, -, AND,
 * OR, NEAR( — is plain text), the last one also as the start of a longer word (so a word
 * being typed matches); case, and diacritics of Latin letters, are ignored.
 * The index holds the text of every final UI message that has one, its first
 * STORE_FTS_BYTES (a longer message is searched by its beginning): kept in sync by
 * every write (a message written final, finished by store_ui_finish, replaced, cut by
 * store_ui_truncate, deleted with its task, imported). */
hew_code store_task_list(store *s, const store_query *q, store_task **items, size_t *n,
                         hew_err *err);
void store_task_list_free(store_task *items, size_t n);

/* Delete a task and everything of it (FULL commit). HEW_E_TIMEOUT when its lock is held
 * (by anyone, this process included: release it first); HEW_E_NOTFOUND. */
hew_code store_task_delete(store *s, const char *id, hew_err *err);

/* ---- the per-task lock ---------------------------------------------------------------------- */

/* Take the task's lock, waiting up to wait_ms (0: try once). HEW_E_TIMEOUT when someone
 * else (another process, or another lock object in this one) still holds it: the message
 * names the holder's pid when known. HEW_E_NOTFOUND when there is no such task. The lock
 * lives until store_lock_free (or the death of the process); it does not depend on s
 * staying open. */
hew_code store_task_lock(store *s, const char *id, int wait_ms, store_lock **out,
                         hew_err *err);
void store_lock_free(store_lock *l);

/* True when someone holds the task's lock right now (a running task). */
bool store_task_locked(store *s, const char *id);

/* ---- Cline's on-disk layout ----------------------------------------------------------------- */

/* Write the task to dir (created if needed) as Cline keeps a task:
 *   api_conversation_history.json  the API history as stored;
 *   ui_messages.json               ClineMessage objects {ts, type: "say"|"ask", say|ask,
 *                                  text, partial} (data goes in text as JSON when there is
 *                                  no text, as Cline does), each with "hew_event": the
 *                                  original event, so nothing is lost;
 *   task_metadata.json             {files_in_context, model_usage, environment_history}
 *                                  plus "hew_task" (the row) and "hew_context_rewrites".
 * Each file is replaced atomically. */
hew_code store_task_export(store *s, const char *id, const char *dir, hew_err *err);

/* Import a task directory in that layout — one hew exported (exact round trip, the row
 * included) or one of Cline's (the row is derived: title from the `task` message, times
 * from the messages, totals summed over api_req_started, model from model_usage, the
 * deleted range from the last message). The id is the exported one (hew_task.id) when
 * it is free, else the directory's name when it is a valid id not yet taken (Cline names
 * a task's directory by its id), else a new one. workspace
 * (may be NULL) overrides the stored one. *id_out (may be NULL) gets the id (new string).
 * One FULL transaction: all or nothing. */
hew_code store_task_import(store *s, const char *dir, const char *workspace, char **id_out,
                           hew_err *err);

#endif
