/* replay — recorded bodies and plain error responses (see replay.h). Reads files only
 * while the scenario loads; never writes anything. */
#include "replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "field.h"

const char *const replay_keys[] = {"replay", "status", "headers", NULL};
const char *const plain_keys[] = {"status", "headers", "body", "body_file", NULL};

char *replay_resolve(const char *base_dir, const char *file)
{
    buf b = BUF_INIT(8192);
    if (file[0] != '/')
        buf_printf(&b, "%s/", base_dir);
    buf_puts(&b, file);
    return buf_detach(&b, NULL);
}

static hew_code read_file(const char *file, const char *what, buf *out, hew_err *err)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return hew_err_set(err, HEW_E_IO, "%s: cannot open %s: %s", what, file,
                           strerror(errno));
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_append(out, tmp, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return hew_err_set(err, HEW_E_IO, "%s: cannot read %s", what, file);
    if (out->err)
        return hew_err_set(err, out->err, "%s: %s is too big", what, file);
    return HEW_OK;
}

/* X.ext -> X.meta.json; loads it when it exists. *meta = NULL when absent. */
static hew_code load_meta(const char *file, const char *path, json_t **meta, hew_err *err)
{
    *meta = NULL;
    buf b = BUF_INIT(8192);
    const char *slash = strrchr(file, '/');
    const char *dot = strrchr(slash ? slash : file, '.');
    size_t stem = dot ? (size_t)(dot - file) : strlen(file);
    buf_append(&b, file, stem);
    buf_puts(&b, ".meta.json");
    if (b.err) {
        buf_release(&b);
        return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);
    }
    FILE *f = fopen(b.data, "rb");
    if (!f) {
        buf_release(&b);
        return HEW_OK;
    }
    json_error_t je;
    *meta = json_loadf(f, 0, &je);
    fclose(f);
    if (!*meta || !json_is_object(*meta)) {
        hew_err_set(err, HEW_E_INVALID, "%s: %s: not a JSON object (line %d: %s)", path,
                    b.data, je.line, *meta ? "expected an object" : je.text);
        json_decref(*meta);
        *meta = NULL;
        buf_release(&b);
        return HEW_E_INVALID;
    }
    buf_release(&b);
    return HEW_OK;
}

static bool has_header(const fp_plan *p, const char *name)
{
    const char *key;
    json_t *v;
    json_object_foreach(p->headers, key, v)
    {
        (void)v;
        if (strcasecmp(key, name) == 0)
            return true;
    }
    return false;
}

/* Status and headers: from the entry, else from the meta file, else the defaults. */
static hew_code status_and_headers(const json_t *resp, const char *path, const json_t *meta,
                                   unsigned dflt_status, fp_plan *p, hew_err *err)
{
    long long status = dflt_status;
    bool has_status = false;
    if (field_uint(resp, "status", path, 599, &status, &has_status, err))
        return err->code;
    if (!has_status && meta) {
        json_t *ms = json_object_get(meta, "status");
        if (json_is_integer(ms))
            status = json_integer_value(ms), has_status = true;
    }
    if (!has_status && dflt_status == 0)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: missing \"status\" (the HTTP status to answer with)", path);
    if (status < 100)
        return hew_err_set(err, HEW_E_INVALID, "%s.status: %lld is not an HTTP status", path,
                           status);
    p->status = (unsigned)status;
    if (json_object_get(resp, "headers"))
        return field_headers(resp, "headers", path, p, err);
    if (meta && json_is_object(json_object_get(meta, "headers"))) {
        char mpath[320];
        snprintf(mpath, sizeof mpath, "%s (meta file)", path);
        return field_headers(meta, "headers", mpath, p, err);
    }
    return HEW_OK;
}

hew_code replay_load(const json_t *resp, const char *path, const char *base_dir, fp_plan *p,
                     hew_err *err)
{
    const char *rel = NULL;
    if (field_string(resp, "replay", path, &rel, err))
        return err->code;
    if (!rel || !*rel)
        return hew_err_set(err, HEW_E_INVALID, "%s.replay: must name a body file", path);
    char *file = replay_resolve(base_dir, rel);
    if (!file)
        return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);
    char what[320];
    snprintf(what, sizeof what, "%s.replay", path);
    buf body = BUF_INIT(PLAN_BODY_MAX);
    json_t *meta = NULL;
    hew_code rc = read_file(file, what, &body, err);
    if (rc == HEW_OK)
        rc = load_meta(file, what, &meta, err);
    if (rc == HEW_OK)
        rc = status_and_headers(resp, path, meta, 200, p, err);
    if (rc == HEW_OK) {
        if (!has_header(p, "content-type"))
            plan_set_header(p, "content-type", "text/event-stream");
        p->chunked = true;
        plan_add_raw_sse(p, body.data ? body.data : "", body.len);
        const char *base = strrchr(rel, '/');
        snprintf(p->label, sizeof p->label, "replay %s", base ? base + 1 : rel);
    }
    json_decref(meta);
    buf_release(&body);
    free(file);
    return rc;
}

hew_code plain_load(const json_t *resp, const char *path, const char *base_dir, fp_plan *p,
                    hew_err *err)
{
    json_t *body = json_object_get(resp, "body");
    const char *rel = NULL;
    if (field_string(resp, "body_file", path, &rel, err))
        return err->code;
    if (body && rel)
        return hew_err_set(err, HEW_E_INVALID,
                           "%s: give either \"body\" or \"body_file\", not both", path);
    buf bytes = BUF_INIT(PLAN_BODY_MAX);
    json_t *meta = NULL;
    bool is_json = false;
    hew_code rc = HEW_OK;
    if (rel) {
        char *file = replay_resolve(base_dir, rel);
        char what[320];
        snprintf(what, sizeof what, "%s.body_file", path);
        rc = file ? read_file(file, what, &bytes, err)
                  : hew_err_set(err, HEW_E_NOMEM, "%s: out of memory", path);
        if (rc == HEW_OK)
            rc = load_meta(file, what, &meta, err);
        free(file);
        json_t *parsed = bytes.data ? json_loadb(bytes.data, bytes.len, JSON_DECODE_ANY, NULL)
                                    : NULL;
        is_json = parsed != NULL;
        json_decref(parsed);
    } else if (json_is_string(body)) {
        buf_append(&bytes, json_string_value(body), json_string_length(body));
        json_t *parsed = json_loadb(json_string_value(body), json_string_length(body),
                                    JSON_DECODE_ANY, NULL);
        is_json = parsed != NULL;
        json_decref(parsed);
    } else if (body) {
        char *s = json_dumps(body, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
        if (!s)
            rc = hew_err_set(err, HEW_E_NOMEM, "%s.body: out of memory", path);
        else
            buf_puts(&bytes, s);
        free(s);
        is_json = true;
    }
    if (rc == HEW_OK)
        rc = status_and_headers(resp, path, meta, 0, p, err);
    if (rc == HEW_OK) {
        if (!has_header(p, "content-type"))
            plan_set_header(p, "content-type",
                            is_json ? "application/json" : "text/plain; charset=utf-8");
        p->chunked = false;
        plan_add_event(p, bytes.data ? bytes.data : "", bytes.len);
        snprintf(p->label, sizeof p->label, "plain %u", p->status);
        p->echo_key = bytes.data && memmem(bytes.data, bytes.len, PLAN_KEY_PLACEHOLDER,
                                           strlen(PLAN_KEY_PLACEHOLDER)) != NULL;
    }
    json_decref(meta);
    buf_release(&bytes);
    return rc;
}
