/* fts — the store's full-text index of message text (msg_fts, an FTS5 table, schema 5):
 * what goes in it, and the MATCH expression a user's search becomes. Only the store's .c
 * files include it.
 *
 * One row per final UI message that has a text: rowid = tid << 32 | index (FTS_ROWID),
 * the text its first STORE_FTS_BYTES (cut at a character), with U+0002 and U+0003 made
 * spaces (they mark the matches in snippets). A message finished by appends is folded
 * from its row and parts reading no more of each part than the cap needs: indexing never
 * holds a long message whole. Every function here runs inside the caller's write
 * transaction and changes nothing else. */
#ifndef HEW_STORE_FTS_H
#define HEW_STORE_FTS_H

#include <stdbool.h>

#include "base/buf.h"
#include "store/store_internal.h"

/* The FTS rowid of UI message idx of task tid (idx below 2^32, tid below 2^31: else the
 * message is not indexed). */
#define FTS_ROWID(tid, idx) (((sqlite3_int64)(tid) << 32) | (sqlite3_int64)(idx))
#define FTS_INDEX_MAX 0xffffffffLL

/* UI message idx of task tid was written (its row is json[0..len), valid JSON): its
 * index row replaced by its text when it is final and has one, else removed. */
hew_code fts_index(store *s, sqlite3_int64 tid, long idx, const char *json, size_t len,
                   hew_err *err);

/* The index rows of UI messages idx >= from of task tid removed (0: all of the task). */
hew_code fts_forget_from(store *s, sqlite3_int64 tid, long from, hew_err *err);

/* Index every stored UI message (the migration to schema 5). */
hew_code fts_fill(store *s, hew_err *err);

/* The MATCH expression of a user's search text into out (replacing it): each word (split at
 * white space) a quoted FTS5 string (its quotes doubled), the last one a prefix query, all
 * of them required. False when the text has no word (out empty) — or out's sticky error. */
bool fts_query(const char *text, buf *out);

#endif
