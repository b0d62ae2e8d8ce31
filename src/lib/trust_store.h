/* trust_store — the user's record of trusted workspaces: <data_dir>/trust.json (next to
 * hew.db, the same data directory rule: hew_options.data_dir, else $XDG_DATA_HOME/hew,
 * else ~/.local/share/hew), mode 0600 in a 0700 folder:
 *
 *   {"version": 1, "workspaces": {"/real/path/of/root": {
 *       "trusted_ms": 1764669000123,
 *       "files": {".hew/mcp.json": "<sha256 hex of the exact bytes trusted>"}}}}
 *
 * A workspace is keyed by its root's resolved path; each file by its path under the root
 * and the SHA-256 of its content, so an edited file is no longer trusted. Readers never
 * lock (writes are atomic renames); writers take an exclusive lock on trust.json.lock for
 * the whole read-modify-write, so two hew processes granting at once lose nothing. A file
 * hew cannot read as this shape is never overwritten: it trusts nothing and says how to
 * fix it. Knows nothing of what the files mean (lib/trust.c does). */
#ifndef HEW_LIB_TRUST_STORE_H
#define HEW_LIB_TRUST_STORE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/err.h"

typedef struct trust_store {
    char *path;    /* <data_dir>/trust.json */
    json_t *doc;   /* the whole document (owned) */
    int lock_fd;   /* -1 unless opened for writing */
} trust_store;

/* The store of data_dir (NULL or "": the default). for_write: create the folder, take the
 * lock (waits for another writer). A missing file is an empty store; a broken one is
 * HEW_E_INVALID (err names it and says to fix or remove it). On failure ts holds nothing
 * (trust_store_close is still safe). */
hew_code trust_store_open(const char *data_dir, bool for_write, trust_store *ts,
                          hew_err *err);
/* Release the lock and everything. Safe on a store that failed to open. */
void trust_store_close(trust_store *ts);

/* The digest trusted for rel in root's workspace (borrowed from ts), or NULL. */
const char *trust_store_digest(const trust_store *ts, const char *root, const char *rel);

/* Record digest for rel under root (the workspace's time is now). */
hew_code trust_store_put(trust_store *ts, const char *root, const char *rel,
                         const char *digest, hew_err *err);
/* Forget root: true when it was there. */
bool trust_store_drop(trust_store *ts, const char *root);
/* The "workspaces" object (borrowed). */
const json_t *trust_store_workspaces(const trust_store *ts);

/* Write the document back atomically (for_write only). */
hew_code trust_store_save(trust_store *ts, hew_err *err);

/* <data_dir>/trust.json: a new string, NULL with err set. */
char *trust_store_path(const char *data_dir, hew_err *err);

#endif
