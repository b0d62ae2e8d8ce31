/* json — jansson helpers: parse with located errors, typed reads by path with full-path
 * messages, sticky builders, dumping straight into a buf (see json.h). Never prints,
 * never drops data silently. */
#include "base/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

/* ---- parsing ---------------------------------------------------------------------- */

hew_code json_parse(const char *s, size_t n, const char *what, json_t **out, hew_err *err)
{
    json_error_t e;
    *out = NULL;
    if (!what)
        what = "input";
    json_t *v = json_loadb(s ? s : "", s ? n : 0, JSON_DECODE_ANY, &e);
    if (!v) {
        if (json_error_code(&e) == json_error_out_of_memory)
            return hew_err_set(err, HEW_E_NOMEM, "%s: out of memory while parsing JSON", what);
        return hew_err_set(err, HEW_E_INVALID, "%s: invalid JSON at line %d, column %d: %s",
                           what, e.line, e.column, e.text);
    }
    *out = v;
    return HEW_OK;
}

/* ---- display paths ------------------------------------------------------------------ */

static const char ELLIPSIS[] = "...";

/* Append piece to a display path, shortening with "..." once it no longer fits. */
static void path_append(char *path, const char *piece, size_t n)
{
    size_t len = strnlen(path, JSON_PATH_MAX - 1);
    size_t e = sizeof ELLIPSIS - 1;
    if (len >= e && memcmp(path + len - e, ELLIPSIS, e) == 0 && len + e >= JSON_PATH_MAX - 4)
        return; /* already shortened */
    if (len + n < JSON_PATH_MAX) {
        memcpy(path + len, piece, n);
        path[len + n] = '\0';
        return;
    }
    size_t room = JSON_PATH_MAX - 1 - e; /* bytes kept before the ellipsis */
    if (len < room) {
        size_t take = utf8_cut(piece, n, room - len);
        memcpy(path + len, piece, take);
        len += take;
    } else {
        len = utf8_cut(path, len, room);
    }
    memcpy(path + len, ELLIPSIS, e + 1);
}

static bool key_needs_quotes(const char *key, size_t n)
{
    if (n == 0)
        return true;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c == '.' || c == '[' || c == ']' || c == '"' || c < 0x20)
            return true;
    }
    return false;
}

static void path_add_key(char *path, const char *key, size_t n)
{
    if (key_needs_quotes(key, n)) {
        path_append(path, "[\"", 2);
        path_append(path, key, n);
        path_append(path, "\"]", 2);
        return;
    }
    if (path[0])
        path_append(path, ".", 1);
    path_append(path, key, n);
}

static void path_add_index(char *path, size_t i)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "[%zu]", i);
    path_append(path, tmp, (size_t)n);
}

static const char *shown(const char *path)
{
    return path[0] ? path : "top level";
}

json_ref json_ref_root(const json_t *v, const char *name)
{
    json_ref r;
    r.v = (json_t *)v;
    r.path[0] = '\0';
    if (name)
        path_append(r.path, name, strlen(name));
    return r;
}

json_ref json_ref_key(const json_ref *ref, const char *key)
{
    json_ref r = *ref;
    r.v = json_is_object(ref->v) ? json_object_get(ref->v, key) : NULL;
    path_add_key(r.path, key, strlen(key));
    return r;
}

json_ref json_ref_index(const json_ref *ref, size_t i)
{
    json_ref r = *ref;
    r.v = json_is_array(ref->v) ? json_array_get(ref->v, i) : NULL;
    path_add_index(r.path, i);
    return r;
}

/* ---- walking a path ----------------------------------------------------------------- */

const char *json_type_phrase(const json_t *v)
{
    if (!v)
        return "nothing";
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

/* " (42)" for numbers and booleans, "" otherwise: a hint for type mismatches that never
 * shows string content (it could be a secret). */
static void value_hint(const json_t *v, char *dst, size_t cap)
{
    dst[0] = '\0';
    if (json_is_integer(v))
        snprintf(dst, cap, " (%" JSON_INTEGER_FORMAT ")", json_integer_value(v));
    else if (json_is_real(v))
        snprintf(dst, cap, " (%.17g)", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(dst, cap, " (%s)", json_is_true(v) ? "true" : "false");
}

static hew_code type_error(hew_err *err, const char *path, const char *want, const json_t *got)
{
    char hint[48];
    value_hint(got, hint, sizeof hint);
    return hew_err_set(err, HEW_E_INVALID, "%s: expected %s, got %s%s", shown(path), want,
                       json_type_phrase(got), hint);
}

/* True when path is well formed (checked before walking, so that a bad path is reported
 * whatever the document holds). */
static bool path_ok(const char *p)
{
    bool first = true;
    while (*p) {
        if (*p == '[') {
            size_t digits = strspn(p + 1, "0123456789");
            if (digits == 0 || digits > 18 || p[1 + digits] != ']')
                return false;
            p += digits + 2;
        } else {
            if (first == (*p == '.'))
                return false; /* a key needs a '.' before it, except the first */
            if (*p == '.')
                p++;
            size_t klen = strcspn(p, ".[]");
            if (klen == 0)
                return false;
            p += klen;
        }
        first = false;
    }
    return true;
}

typedef struct walk_result {
    hew_code code;
    bool null_on_way; /* the walk failed because a container on the way is null */
} walk_result;

/* Follow path from base into out (out->path extended as far as the walk got). On failure
 * err (if not NULL) explains. */
static walk_result walk(const json_ref *base, const char *path, json_ref *out, hew_err *err)
{
    walk_result res = { HEW_OK, false };
    *out = *base;
    if (!path)
        path = "";
    if (!path_ok(path)) {
        res.code = hew_err_set(err, HEW_E_INTERNAL, "bad JSON path \"%s\"", path);
        return res;
    }
    if (!out->v) {
        res.code = hew_err_set(err, HEW_E_NOTFOUND, "%s: missing", shown(out->path));
        return res;
    }
    const char *p = path;
    while (*p) {
        json_t *child;
        if (*p == '[') {
            p++;
            size_t idx = 0; /* at most 18 digits (path_ok): no overflow */
            while (*p != ']')
                idx = idx * 10 + (size_t)(*p++ - '0');
            p++;
            if (!json_is_array(out->v)) {
                res.null_on_way = json_is_null(out->v);
                res.code = type_error(err, out->path, "an array", out->v);
                return res;
            }
            size_t size = json_array_size(out->v);
            child = json_array_get(out->v, idx);
            path_add_index(out->path, idx);
            if (!child) {
                res.code = hew_err_set(err, HEW_E_NOTFOUND, "%s: missing (the array has %zu %s)",
                                       out->path, size, size == 1 ? "item" : "items");
                out->v = NULL;
                return res;
            }
        } else {
            if (*p == '.')
                p++;
            size_t klen = strcspn(p, ".[]");
            if (!json_is_object(out->v)) {
                res.null_on_way = json_is_null(out->v);
                res.code = type_error(err, out->path, "an object", out->v);
                return res;
            }
            child = json_object_getn(out->v, p, klen);
            path_add_key(out->path, p, klen);
            p += klen;
            if (!child) {
                res.code = hew_err_set(err, HEW_E_NOTFOUND, "%s: missing", out->path);
                out->v = NULL;
                return res;
            }
        }
        out->v = child;
    }
    return res;
}

json_t *json_path_get(const json_t *root, const char *path)
{
    json_ref base = json_ref_root(root, NULL);
    json_ref out;
    if (walk(&base, path, &out, NULL).code != HEW_OK)
        return NULL;
    return out.v;
}

/* ---- typed getters ------------------------------------------------------------------ */

enum want { W_STRING, W_INT, W_BOOL, W_NUMBER, W_OBJECT, W_ARRAY };

static const char *const want_phrase[] = {
    [W_STRING] = "a string",  [W_INT] = "an integer",  [W_BOOL] = "a boolean",
    [W_NUMBER] = "a number",  [W_OBJECT] = "an object", [W_ARRAY] = "an array",
};

/* An integral real within int64 range counts as an integer (3.0 from some encoders). */
static bool real_as_int(const json_t *v, int64_t *out)
{
    double d = json_real_value(v);
    if (!isfinite(d) || d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return false;
    *out = (int64_t)d;
    return true;
}

static bool type_ok(const json_t *v, enum want w)
{
    int64_t ignored;
    switch (w) {
    case W_STRING: return json_is_string(v);
    case W_INT: return json_is_integer(v) || (json_is_real(v) && real_as_int(v, &ignored));
    case W_BOOL: return json_is_boolean(v);
    case W_NUMBER: return json_is_number(v);
    case W_OBJECT: return json_is_object(v);
    case W_ARRAY: return json_is_array(v);
    }
    return false;
}

/* Find the value at path and check its type. HEW_OK with *found false means "missing"
 * (only when optional). */
static hew_code lookup(const json_ref *ref, const char *path, enum want w, bool optional,
                       json_ref *out, bool *found, hew_err *err)
{
    hew_err tmp = HEW_ERR_INIT;
    walk_result res = walk(ref, path, out, &tmp);
    *found = false;
    if (res.code != HEW_OK) {
        if (optional && (res.code == HEW_E_NOTFOUND || res.null_on_way))
            return HEW_OK;
        if (err)
            *err = tmp;
        return res.code;
    }
    if (optional && json_is_null(out->v))
        return HEW_OK;
    if (!type_ok(out->v, w))
        return type_error(err, out->path, want_phrase[w], out->v);
    *found = true;
    return HEW_OK;
}

/* ref's path followed by path, for an optional object or array that is missing. */
static void missing_ref(const json_ref *ref, const char *path, json_ref *out)
{
    *out = *ref;
    out->v = NULL;
    if (!path || !path[0])
        return;
    if (out->path[0] && path[0] != '[')
        path_append(out->path, ".", 1);
    path_append(out->path, path, strlen(path));
}

static void int_value(const json_t *v, int64_t *out)
{
    if (json_is_integer(v))
        *out = (int64_t)json_integer_value(v);
    else
        real_as_int(v, out);
}

hew_code json_get_string(const json_ref *ref, const char *path, const char **out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_STRING, false, &at, &found, err);
    if (rc == HEW_OK)
        *out = json_string_value(at.v);
    return rc;
}

hew_code json_get_int(const json_ref *ref, const char *path, int64_t *out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_INT, false, &at, &found, err);
    if (rc == HEW_OK)
        int_value(at.v, out);
    return rc;
}

hew_code json_get_bool(const json_ref *ref, const char *path, bool *out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_BOOL, false, &at, &found, err);
    if (rc == HEW_OK)
        *out = json_is_true(at.v);
    return rc;
}

hew_code json_get_number(const json_ref *ref, const char *path, double *out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_NUMBER, false, &at, &found, err);
    if (rc == HEW_OK)
        *out = json_number_value(at.v);
    return rc;
}

hew_code json_get_object(const json_ref *ref, const char *path, json_ref *out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_OBJECT, false, &at, &found, err);
    if (rc == HEW_OK)
        *out = at;
    return rc;
}

hew_code json_get_array(const json_ref *ref, const char *path, json_ref *out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_ARRAY, false, &at, &found, err);
    if (rc == HEW_OK)
        *out = at;
    return rc;
}

hew_code json_opt_string(const json_ref *ref, const char *path, const char *def,
                         const char **out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_STRING, true, &at, &found, err);
    if (rc == HEW_OK)
        *out = found ? json_string_value(at.v) : def;
    return rc;
}

hew_code json_opt_int(const json_ref *ref, const char *path, int64_t def, int64_t *out,
                      hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_INT, true, &at, &found, err);
    if (rc == HEW_OK) {
        if (found)
            int_value(at.v, out);
        else
            *out = def;
    }
    return rc;
}

hew_code json_opt_bool(const json_ref *ref, const char *path, bool def, bool *out,
                       hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_BOOL, true, &at, &found, err);
    if (rc == HEW_OK)
        *out = found ? json_is_true(at.v) : def;
    return rc;
}

hew_code json_opt_number(const json_ref *ref, const char *path, double def, double *out,
                         hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_NUMBER, true, &at, &found, err);
    if (rc == HEW_OK)
        *out = found ? json_number_value(at.v) : def;
    return rc;
}

hew_code json_opt_object(const json_ref *ref, const char *path, json_ref *out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_OBJECT, true, &at, &found, err);
    if (rc == HEW_OK) {
        if (found)
            *out = at;
        else
            missing_ref(ref, path, out);
    }
    return rc;
}

hew_code json_opt_array(const json_ref *ref, const char *path, json_ref *out, hew_err *err)
{
    json_ref at;
    bool found;
    hew_code rc = lookup(ref, path, W_ARRAY, true, &at, &found, err);
    if (rc == HEW_OK) {
        if (found)
            *out = at;
        else
            missing_ref(ref, path, out);
    }
    return rc;
}

/* ---- building --------------------------------------------------------------------- */

json_t *json_string_lossy(const char *s, size_t n)
{
    if (utf8_validate(s, n, NULL))
        return json_stringn(s, n);
    buf b = BUF_INIT(0);
    utf8_sanitize(s, n, &b);
    json_t *v = b.err ? NULL : json_stringn(b.data, b.len);
    buf_release(&b);
    return v;
}

hew_code json_build(json_t **out, const char *what, hew_err *err, const char *fmt, ...)
{
    json_error_t e;
    va_list ap;
    va_start(ap, fmt);
    *out = json_vpack_ex(&e, 0, fmt, ap);
    va_end(ap);
    if (*out)
        return HEW_OK;
    if (json_error_code(&e) == json_error_out_of_memory)
        return hew_err_set(err, HEW_E_NOMEM, "cannot build %s: out of memory", what);
    return hew_err_set(err, HEW_E_INVALID, "cannot build %s: %s", what, e.text);
}

void json_obj_put(json_t *obj, const char *key, json_t *v, hew_code *st)
{
    if (*st != HEW_OK) {
        json_decref(v);
        return;
    }
    if (!key || !utf8_validate(key, strlen(key), NULL) || (obj && !json_is_object(obj))) {
        json_decref(v);
        *st = HEW_E_INVALID;
        return;
    }
    if (!obj || !v) {
        json_decref(v);
        *st = HEW_E_NOMEM;
        return;
    }
    if (json_object_set_new(obj, key, v) != 0) /* steals v on failure too */
        *st = HEW_E_NOMEM;
}

void json_arr_push(json_t *arr, json_t *v, hew_code *st)
{
    if (*st != HEW_OK) {
        json_decref(v);
        return;
    }
    if (arr && !json_is_array(arr)) {
        json_decref(v);
        *st = HEW_E_INVALID;
        return;
    }
    if (!arr || !v) {
        json_decref(v);
        *st = HEW_E_NOMEM;
        return;
    }
    if (json_array_append_new(arr, v) != 0) /* steals v on failure too */
        *st = HEW_E_NOMEM;
}

static int dump_cb(const char *p, size_t n, void *data)
{
    buf *b = data;
    buf_append(b, p, n);
    return b->err ? -1 : 0;
}

void json_dump_into(const json_t *v, buf *out, size_t flags)
{
    if (out->err)
        return;
    if (!v) {
        out->err = HEW_E_INVALID;
        return;
    }
    size_t before = out->len;
    if (json_dump_callback(v, dump_cb, out, flags | JSON_COMPACT | JSON_ENCODE_ANY) != 0) {
        if (!out->err)
            out->err = HEW_E_INVALID;
        buf_truncate(out, before);
    }
}

/* Bytes that need an escape in a JSON string. */
static bool json_needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

static void escape_valid(buf *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!json_needs_escape(c))
            continue;
        buf_append(out, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': buf_append(out, "\\\"", 2); break;
        case '\\': buf_append(out, "\\\\", 2); break;
        case '\n': buf_append(out, "\\n", 2); break;
        case '\r': buf_append(out, "\\r", 2); break;
        case '\t': buf_append(out, "\\t", 2); break;
        default: {
            char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            buf_append(out, u, sizeof u);
        }
        }
    }
    buf_append(out, s + run, n - run);
}

void json_escape_into(buf *out, const char *s, size_t n)
{
    buf_putc(out, '"');
    if (utf8_validate(s, n, NULL)) {
        escape_valid(out, s, n);
    } else {
        buf clean = BUF_INIT(0);
        utf8_sanitize(s, n, &clean);
        escape_valid(out, clean.data ? clean.data : "", clean.len);
        buf_release(&clean);
    }
    buf_putc(out, '"');
}
