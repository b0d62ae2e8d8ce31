/* recording — the reader of recorded exchanges (see recording.h). Every file is read
 * with a cap; nothing is written. */
#include "net/recording.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/fs.h"
#include "net/record.h"

#define DESC_MAX ((size_t)64 << 20)
#define REQUEST_MAX ((size_t)1 << 30)

static char *path_of(const char *dir, const char *name)
{
    buf b = BUF_INIT(8192);
    buf_printf(&b, "%s/%s", dir, name);
    return buf_detach(&b, NULL);
}

static hew_code damaged(hew_err *err, const char *dir, const char *file, const char *why)
{
    return hew_err_set(err, HEW_E_CORRUPT,
                       "%s/%s: %s — the recording is damaged (a run killed while it wrote? "
                       "record it again)",
                       dir, file, why);
}

/* Read body file name of x's description into *out; its size must be `bytes`. */
static hew_code read_body(const char *dir, const json_t *part, size_t max, char **out,
                          size_t *len, const char *desc_name, hew_err *err)
{
    const char *file = json_string_value(json_object_get(part, "body_file"));
    json_t *bytes = json_object_get(part, "body_bytes");
    if (!file || !json_is_integer(bytes) || json_integer_value(bytes) < 0 || strchr(file, '/'))
        return damaged(err, dir, desc_name, "no body_file and body_bytes");
    char *p = path_of(dir, file);
    hew_err e = HEW_ERR_INIT;
    hew_code rc = p ? fs_read_file(p, max, out, len, &e) : HEW_E_NOMEM;
    free(p);
    if (rc == HEW_E_NOMEM)
        return hew_err_set(err, rc, "out of memory");
    if (rc != HEW_OK) {
        char why[600];
        snprintf(why, sizeof why, "cannot read it: %s", e.msg);
        return damaged(err, dir, file, why);
    }
    if ((json_int_t)*len != json_integer_value(bytes)) {
        char why[200];
        snprintf(why, sizeof why, "%zu bytes, but %s says %lld", *len, desc_name,
                 (long long)json_integer_value(bytes));
        return damaged(err, dir, file, why);
    }
    return HEW_OK;
}

/* The timing of x's description: headers_ms and the chunks; false when it is malformed
 * (absent is fine: no timing). */
static bool load_timing(rec_exchange *x)
{
    json_t *timing = json_object_get(x->desc, "timing");
    if (!timing)
        return true;
    json_t *head = json_object_get(timing, "headers_ms");
    json_t *chunks = json_object_get(timing, "chunks");
    if (!json_is_object(timing) || (head && !json_is_integer(head)) ||
        (chunks && !json_is_array(chunks)))
        return false;
    x->headers_ms = head && json_integer_value(head) > 0 ? json_integer_value(head) : 0;
    size_t n = json_array_size(chunks);
    if (!n)
        return true;
    x->chunks = calloc(n, sizeof *x->chunks);
    if (!x->chunks)
        return false;
    size_t i;
    json_t *c;
    json_array_foreach(chunks, i, c) {
        json_t *at = json_array_get(c, 0), *bytes = json_array_get(c, 1);
        if (json_array_size(c) != 2 || !json_is_integer(at) || !json_is_integer(bytes) ||
            json_integer_value(at) < 0 || json_integer_value(bytes) < 0)
            return false;
        x->chunks[i][0] = json_integer_value(at);
        x->chunks[i][1] = json_integer_value(bytes);
    }
    x->nchunks = n;
    return true;
}

static hew_code load_exchange(const char *dir, size_t n, rec_exchange *x, hew_err *err)
{
    char name[64];
    snprintf(name, sizeof name, "%04zu.json", n);
    char *p = path_of(dir, name), *text = NULL;
    size_t len = 0;
    hew_err e = HEW_ERR_INIT;
    hew_code rc = p ? fs_read_file(p, DESC_MAX, &text, &len, &e) : HEW_E_NOMEM;
    free(p);
    if (rc != HEW_OK)
        return rc == HEW_E_NOTFOUND ? rc : damaged(err, dir, name, e.msg);
    json_error_t je;
    x->desc = json_loadb(text, len, 0, &je);
    free(text);
    x->n = n;
    if (!x->desc || !json_is_object(x->desc))
        return damaged(err, dir, name, x->desc ? "not a JSON object" : je.text);
    json_t *fmt = json_object_get(x->desc, "format");
    if (json_integer_value(fmt) != NET_RECORD_FORMAT)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s/%s: format %lld — this hew reads format %d recordings", dir,
                           name, (long long)json_integer_value(fmt), NET_RECORD_FORMAT);
    json_t *req = json_object_get(x->desc, "request"), *resp = json_object_get(x->desc, "response");
    x->method = json_string_value(json_object_get(x->desc, "method"));
    x->url = json_string_value(json_object_get(x->desc, "url"));
    x->headers = json_object_get(resp, "headers");
    x->clock = json_object_get(x->desc, "clock");
    json_t *status = json_object_get(resp, "status");
    if (!x->method || !x->url || !json_is_object(req) || !json_is_object(resp) ||
        !json_is_integer(status) || !json_is_array(x->headers) ||
        (x->clock && !json_is_array(x->clock)))
        return damaged(err, dir, name, "method, url, request or response missing");
    if (!load_timing(x))
        return damaged(err, dir, name, "timing is not {headers_ms, chunks: [[offset_ms, bytes]]}");
    x->status = (long)json_integer_value(status);
    const char *outcome = json_string_value(json_object_get(x->desc, "outcome"));
    x->ok = outcome && (strcmp(outcome, "ok") == 0 || strcmp(outcome, "stopped") == 0);
    rc = read_body(dir, req, REQUEST_MAX, &x->request, &x->request_len, name, err);
    if (rc == HEW_OK)
        rc = read_body(dir, resp, NET_RECORD_BODY_MAX, &x->response, &x->response_len, name, err);
    return rc;
}

/* The highest exchange number of a NNNN.json in dir (0: none). */
static size_t highest(const char *dir)
{
    DIR *d = opendir(dir);
    size_t top = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char *end = NULL;
        unsigned long v = strtoul(de->d_name, &end, 10);
        if (end != de->d_name && end && strcmp(end, ".json") == 0 && v > top &&
            v <= RECORDING_MAX_EXCHANGES)
            top = v;
    }
    if (d)
        closedir(d);
    return top;
}

hew_code recording_load(const char *dir, recording *out, hew_err *err)
{
    memset(out, 0, sizeof *out);
    if (!fs_is_dir(dir))
        return hew_err_set(err, HEW_E_NOTFOUND,
                           "%s is not a folder — give the folder `hew --record DIR` wrote", dir);
    char *p = path_of(dir, "session.json"), *text = NULL;
    size_t len = 0;
    hew_err e = HEW_ERR_INIT;
    hew_code rc = p ? fs_read_file(p, DESC_MAX, &text, &len, &e) : HEW_E_NOMEM;
    free(p);
    if (rc == HEW_E_NOTFOUND)
        return hew_err_set(err, rc,
                           "%s holds no session.json: it is not a hew recording (make one "
                           "with hew --record DIR -p TASK), or the run was killed before its "
                           "task started",
                           dir);
    if (rc != HEW_OK)
        return damaged(err, dir, "session.json", e.msg);
    json_error_t je;
    out->manifest = json_loadb(text, len, 0, &je);
    free(text);
    if (!json_is_object(out->manifest)) {
        recording_release(out);
        return damaged(err, dir, "session.json", "not a JSON object");
    }
    json_int_t fmt = json_integer_value(json_object_get(out->manifest, "format"));
    if (fmt != NET_RECORD_FORMAT) {
        recording_release(out);
        return hew_err_set(err, HEW_E_INVALID,
                           "%s/session.json: format %lld — this hew reads format %d recordings",
                           dir, (long long)fmt, NET_RECORD_FORMAT);
    }
    size_t top = highest(dir);
    if (top == 0) {
        recording_release(out);
        return hew_err_set(err, HEW_E_CORRUPT,
                           "%s holds no exchange (0001.json): the run sent no request or was "
                           "killed before its first answer ended — record it again",
                           dir);
    }
    out->x = calloc(top, sizeof *out->x);
    if (!out->x) {
        recording_release(out);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    for (size_t n = 1; n <= top; n++) {
        rc = load_exchange(dir, n, &out->x[n - 1], err);
        out->n = n;
        if (rc == HEW_E_NOTFOUND) {
            char name[64], why[160];
            snprintf(name, sizeof name, "%04zu.json", n);
            snprintf(why, sizeof why, "missing, but exchange %zu is there", top);
            rc = damaged(err, dir, name, why);
        }
        if (rc != HEW_OK) {
            recording_release(out);
            return rc;
        }
    }
    return HEW_OK;
}

void recording_release(recording *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->x[i].request);
        free(r->x[i].response);
        free(r->x[i].chunks);
        json_decref(r->x[i].desc);
    }
    free(r->x);
    json_decref(r->manifest);
    memset(r, 0, sizeof *r);
}
