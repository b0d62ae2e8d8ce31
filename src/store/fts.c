/* fts — the store's full-text index of message text (see fts.h): a message's text cut to
 * STORE_FTS_BYTES on its way into msg_fts, kept in step with the rows, and the MATCH
 * expression of a search. */
#include "store/fts.h"

#include <string.h>

#include "base/jscan.h"
#include "base/utf8.h"

/* The message's JSON, walked (no tree): whether it is final, and its text's JSON value
 * (*text.kind JSCAN_STRING when it has one). False when it is not an object we can walk. */
static bool walk_message(const char *json, size_t len, bool *partial, jscan_val *text)
{
    jscan js;
    const char *key;
    size_t klen;
    jscan_val v;
    int more = 0;
    *partial = false;
    text->kind = JSCAN_NULL;
    if (!jscan_object(&js, json, len))
        return false;
    while ((more = jscan_member(&js, &key, &klen, &v)) == 1) {
        if (jscan_key_is(key, klen, "partial"))
            *partial = v.kind == JSCAN_TRUE;
        else if (jscan_key_is(key, klen, "text"))
            *text = v;
    }
    return more == 0;
}

/* out = the first STORE_FTS_BYTES (or fewer) of the decoded string v. Decoded text is never
 * longer than its JSON form, so twice the cap of JSON gives the cap for any text whose
 * escapes at most double it; a cut inside an escape stops the decoding before it. */
static void decode_capped(const jscan_val *v, buf *out)
{
    buf_reset(out);
    size_t body = v->len - 2, take = body < 2 * STORE_FTS_BYTES ? body : 2 * STORE_FTS_BYTES;
    jscan_val cut = *v;
    cut.len = take + 2; /* jscan_unescape reads start+1 .. start+len-1 */
    char *w = buf_reserve(out, take + 2);
    if (!w)
        return;
    size_t n = jscan_unescape(&cut, w);
    buf_commit(out, n < STORE_FTS_BYTES ? n : STORE_FTS_BYTES);
}

/* Apply the parts of a message finished by appends to its capped text: each part makes it
 * text[0..off) + part. Only the bytes below the cap are read from a part, through SQLite's
 * incremental blob reads (a value read as a column is loaded whole: up to STORE_PART_BYTES
 * for one part), and a part that starts past the cap is not read at all. */
static hew_code fold_parts(store *s, sqlite3_int64 tid, long idx, buf *text, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_FTS_PARTS, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, idx);
    sqlite3_blob *blob = NULL;
    int src, brc = SQLITE_OK;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 rowid = sqlite3_column_int64(st, 0), off = sqlite3_column_int64(st, 1);
        sqlite3_int64 n = sqlite3_column_int64(st, 2);
        if (off < 0 || (size_t)off >= STORE_FTS_BYTES)
            continue; /* past the cap: the capped text stays as it is */
        if ((size_t)off > text->len)
            break; /* beyond what the capped text knows (a text of many escapes) */
        text->len = (size_t)off;
        if ((size_t)n > STORE_FTS_BYTES - text->len)
            n = (sqlite3_int64)(STORE_FTS_BYTES - text->len);
        if (n <= 0)
            continue;
        brc = blob ? sqlite3_blob_reopen(blob, rowid)
                   : sqlite3_blob_open(s->db, "main", "ui_parts", "text", rowid, 0, &blob);
        char *w = brc == SQLITE_OK ? buf_reserve(text, (size_t)n) : NULL;
        if (brc == SQLITE_OK && w && (brc = sqlite3_blob_read(blob, w, (int)n, 0)) == SQLITE_OK)
            buf_commit(text, (size_t)n);
        if (brc != SQLITE_OK || !w)
            break;
    }
    sqlite3_blob_close(blob);
    st_done(st);
    if (brc != SQLITE_OK)
        return st_err(s, brc, "reading a message's parts to index it", err);
    return src == SQLITE_DONE || src == SQLITE_ROW
               ? HEW_OK
               : st_err(s, src, "reading a message's parts to index it", err);
}

static hew_code remove_row(store *s, sqlite3_int64 rowid, hew_err *err)
{
    sqlite3_stmt *st = st_get(s, ST_FTS_DEL, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, rowid);
    int src = sqlite3_step(st);
    st_done(st);
    return src == SQLITE_DONE ? HEW_OK : st_err(s, src, "unindexing a message", err);
}

static hew_code add_row(store *s, sqlite3_int64 rowid, buf *text, hew_err *err)
{
    /* whole characters only (the cap, or a part, may cut one), no marks of ours */
    text->len = utf8_complete_prefix(text->data ? text->data : "", text->len);
    for (size_t i = 0; i < text->len; i++)
        if (text->data[i] == STORE_MARK_OPEN || text->data[i] == STORE_MARK_CLOSE)
            text->data[i] = ' ';
    sqlite3_stmt *st = st_get(s, ST_FTS_ADD, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, rowid);
    sqlite3_bind_text(st, 2, text->data ? text->data : "", (int)text->len, SQLITE_STATIC);
    int src = sqlite3_step(st);
    st_done(st);
    return src == SQLITE_DONE ? HEW_OK : st_err(s, src, "indexing a message", err);
}

hew_code fts_index(store *s, sqlite3_int64 tid, long idx, const char *json, size_t len,
                   hew_err *err)
{
    if (idx < 0 || idx > FTS_INDEX_MAX || tid < 0 || tid > INT32_MAX)
        return HEW_OK; /* beyond what a rowid can name: not indexed */
    sqlite3_int64 rowid = FTS_ROWID(tid, idx);
    hew_code rc = remove_row(s, rowid, err);
    bool partial;
    jscan_val text;
    if (rc != HEW_OK || !walk_message(json, len, &partial, &text) || partial ||
        text.kind != JSCAN_STRING)
        return rc;
    buf t = BUF_INIT(0);
    decode_capped(&text, &t);
    if ((rc = buf_check(&t, "indexed text", err)) == HEW_OK &&
        (rc = fold_parts(s, tid, idx, &t, err)) == HEW_OK &&
        (rc = buf_check(&t, "indexed text", err)) == HEW_OK && t.len)
        rc = add_row(s, rowid, &t, err);
    buf_release(&t);
    return rc;
}

hew_code fts_forget_from(store *s, sqlite3_int64 tid, long from, hew_err *err)
{
    if (tid < 0 || tid > INT32_MAX || from > FTS_INDEX_MAX)
        return HEW_OK;
    sqlite3_stmt *st = st_get(s, ST_FTS_DEL_RANGE, err);
    if (!st)
        return err ? err->code : HEW_E_IO;
    sqlite3_bind_int64(st, 1, FTS_ROWID(tid, from < 0 ? 0 : from));
    sqlite3_bind_int64(st, 2, FTS_ROWID(tid, FTS_INDEX_MAX));
    int src = sqlite3_step(st);
    st_done(st);
    return src == SQLITE_DONE ? HEW_OK : st_err(s, src, "unindexing messages", err);
}

hew_code fts_fill(store *s, hew_err *err)
{
    sqlite3_stmt *st;
    int src = sqlite3_prepare_v2(s->db, "SELECT tid, idx, json FROM ui_messages", -1, &st, NULL);
    if (src != SQLITE_OK)
        return st_err(s, src, "indexing the stored messages", err);
    hew_code rc = HEW_OK;
    while (rc == HEW_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        const char *json = (const char *)sqlite3_column_text(st, 2);
        size_t n = (size_t)sqlite3_column_bytes(st, 2);
        if (json && n)
            rc = fts_index(s, sqlite3_column_int64(st, 0), (long)sqlite3_column_int64(st, 1),
                           json, n, err);
    }
    sqlite3_finalize(st);
    if (rc == HEW_OK && src != SQLITE_DONE)
        rc = st_err(s, src, "indexing the stored messages", err);
    return rc;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool fts_query(const char *text, buf *out)
{
    buf_reset(out);
    const char *p = text ? text : "";
    bool any = false;
    while (*p) {
        while (is_space(*p))
            p++;
        if (!*p)
            break;
        const char *w = p;
        while (*p && !is_space(*p))
            p++;
        if (any)
            buf_putc(out, ' ');
        buf_putc(out, '"');
        for (const char *c = w; c < p; c++) {
            if (*c == '"')
                buf_putc(out, '"');
            buf_putc(out, *c);
        }
        buf_putc(out, '"');
        any = true;
    }
    if (any)
        buf_putc(out, '*'); /* the last word: also the start of a longer one */
    return any && !out->err;
}
