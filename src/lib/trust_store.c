/* trust_store — <data_dir>/trust.json (see trust_store.h). Reads with a cap, writes with
 * base/fs's atomic replace under an flock; never writes over a file it could not read. */
#include "lib/trust_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "store/store.h"

#define TRUST_FILE_MAX ((size_t)8 << 20)

char *trust_store_path(const char *data_dir, hew_err *err)
{
    char *db = store_path_in(data_dir, err);
    if (!db)
        return NULL;
    char *slash = strrchr(db, '/');
    size_t dir = slash ? (size_t)(slash - db) : 0;
    size_t n = dir + sizeof "/trust.json";
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%.*s/trust.json", (int)dir, db);
    else
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
    free(db);
    return path;
}

/* The document is what it should be: {"version": 1, "workspaces": {root: {"files":
 * {rel: digest}}}}. */
static bool doc_ok(const json_t *doc)
{
    json_t *ws = json_object_get(doc, "workspaces");
    if (!json_is_object(doc) || !json_is_object(ws))
        return false;
    const char *root, *rel;
    json_t *w, *d;
    json_object_foreach(ws, root, w) {
        json_t *files = json_object_get(w, "files");
        if (root[0] != '/' || !json_is_object(files))
            return false;
        json_object_foreach(files, rel, d)
            if (!hash_sha256_hex_ok(json_string_value(d)))
                return false;
    }
    return true;
}

static hew_code load(trust_store *ts, hew_err *err)
{
    char *text = NULL;
    size_t len = 0;
    hew_code rc = fs_read_file(ts->path, TRUST_FILE_MAX, &text, &len, err);
    if (rc == HEW_E_NOTFOUND) {
        ts->doc = json_pack("{s:i, s:{}}", "version", 1, "workspaces");
        return ts->doc ? HEW_OK : hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    if (rc != HEW_OK)
        return rc;
    rc = json_parse(text, len, ts->path, &ts->doc, err);
    free(text);
    if (rc == HEW_OK && !doc_ok(ts->doc))
        rc = hew_err_set(err, HEW_E_INVALID, "%s: not the shape hew writes ({\"version\": 1, "
                         "\"workspaces\": {...}})", ts->path);
    if (rc != HEW_OK) {
        json_decref(ts->doc);
        ts->doc = NULL;
        char old[HEW_ERR_MSG_MAX];
        memcpy(old, err ? err->msg : "", err ? sizeof old : 1);
        if (err)
            hew_err_set(err, HEW_E_CORRUPT, "%s — no workspace is trusted while it is "
                        "broken; fix it, or remove it and trust again (hew trust)", old);
        return HEW_E_CORRUPT;
    }
    return HEW_OK;
}

hew_code trust_store_open(const char *data_dir, bool for_write, trust_store *ts,
                          hew_err *err)
{
    memset(ts, 0, sizeof *ts);
    ts->lock_fd = -1;
    ts->path = trust_store_path(data_dir, err);
    if (!ts->path)
        return err ? err->code : HEW_E_NOMEM;
    hew_code rc = HEW_OK;
    if (for_write) {
        char *slash = strrchr(ts->path, '/');
        *slash = '\0';
        rc = fs_mkdirs(ts->path, 0700, err);
        *slash = '/';
        char lock[4096];
        snprintf(lock, sizeof lock, "%s.lock", ts->path);
        if (rc == HEW_OK) {
            ts->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (ts->lock_fd < 0)
                rc = hew_err_set(err, HEW_E_IO, "cannot open %s: %s — check the data "
                                 "folder's permissions", lock, strerror(errno));
        }
        while (rc == HEW_OK && flock(ts->lock_fd, LOCK_EX) != 0)
            if (errno != EINTR)
                rc = hew_err_set(err, HEW_E_IO, "cannot lock %s: %s", lock, strerror(errno));
    }
    if (rc == HEW_OK)
        rc = load(ts, err);
    if (rc != HEW_OK)
        trust_store_close(ts);
    return rc;
}

void trust_store_close(trust_store *ts)
{
    if (ts->lock_fd >= 0)
        close(ts->lock_fd); /* releases the lock */
    ts->lock_fd = -1;
    json_decref(ts->doc);
    ts->doc = NULL;
    free(ts->path);
    ts->path = NULL;
}

static json_t *workspace(const trust_store *ts, const char *root)
{
    return json_object_get(json_object_get(ts->doc, "workspaces"), root);
}

const char *trust_store_digest(const trust_store *ts, const char *root, const char *rel)
{
    return json_string_value(json_object_get(json_object_get(workspace(ts, root), "files"), rel));
}

const json_t *trust_store_workspaces(const trust_store *ts)
{
    return json_object_get(ts->doc, "workspaces");
}

hew_code trust_store_put(trust_store *ts, const char *root, const char *rel,
                         const char *digest, hew_err *err)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    long long ms = (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
    json_t *w = workspace(ts, root);
    if (!w) {
        w = json_pack("{s:I, s:{}}", "trusted_ms", (json_int_t)ms, "files");
        if (!w || json_object_set_new(json_object_get(ts->doc, "workspaces"), root, w) != 0)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    if (json_object_set_new(w, "trusted_ms", json_integer(ms)) != 0 ||
        json_object_set_new(json_object_get(w, "files"), rel, json_string(digest)) != 0)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return HEW_OK;
}

bool trust_store_drop(trust_store *ts, const char *root)
{
    return json_object_del(json_object_get(ts->doc, "workspaces"), root) == 0;
}

hew_code trust_store_save(trust_store *ts, hew_err *err)
{
    if (ts->lock_fd < 0)
        return hew_err_set(err, HEW_E_INTERNAL, "trust_store_save: not opened for writing");
    char *text = json_dumps(ts->doc, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (!text)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (!line) {
        free(text);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    hew_code rc = fs_write_atomic(ts->path, line, len + 1, 0600, err);
    free(line);
    return rc;
}
