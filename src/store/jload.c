/* jload — jansson trees from base/jscan's tokens (see jload.h). No JSON rules of its own
 * beyond jansson's rules of a tree; whatever jscan refuses goes to jansson. */
#include "store/jload.h"

#include <stdlib.h>
#include <string.h>

#include "base/jscan.h"

/* Make *p hold at least n bytes (or elements of size sz); kept between documents. */
static bool room(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return true;
    size_t c = *cap ? *cap : 256;
    while (c < n)
        c *= 2;
    void *q = realloc(*p, c * sz);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static json_t *scalar(jload *jl, const jscan_val *v)
{
    switch (v->kind) {
    case JSCAN_STRING:
        if (!v->escaped)
            return json_stringn_nocheck(v->start + 1, v->len - 2);
        if (!room((void **)&jl->data, &jl->cap, v->len, 1))
            return NULL;
        return json_stringn_nocheck(jl->data, jscan_unescape(v, jl->data));
    case JSCAN_NUMBER:
        return v->real ? json_real(v->d) : json_integer(v->i);
    case JSCAN_TRUE:
        return json_true();
    case JSCAN_FALSE:
        return json_false();
    default:
        return json_null();
    }
}

/* The tree of s[0..n), or NULL when jscan refuses it, a key holds a NUL byte, or memory
 * ran out. Containers are attached to their parent when they open, so freeing the root
 * frees everything built so far. */
static json_t *build(jload *jl, const char *s, size_t n)
{
    jscan_reader r;
    jscan_reader_init(&r, s, n);
    json_t *root = NULL;
    size_t depth = 0;
    const char *key = NULL;
    size_t klen = 0;
    jscan_tok tok;
    jscan_val v;
    int rc;
    while ((rc = jscan_next(&r, &tok, &v)) == 1) {
        json_t *val;
        switch (tok) {
        case JSCAN_TOK_KEY:
            if (v.nul)
                goto fail; /* jansson: "NUL byte in object key not supported" */
            if (!v.escaped) {
                key = v.start + 1;
                klen = v.len - 2;
            } else {
                if (!room((void **)&jl->key, &jl->key_cap, v.len, 1))
                    goto fail;
                klen = jscan_unescape(&v, jl->key);
                key = jl->key;
            }
            continue;
        case JSCAN_TOK_END:
            depth--;
            continue;
        case JSCAN_TOK_BEGIN:
            val = v.kind == JSCAN_OBJECT ? json_object() : json_array();
            break;
        default:
            val = scalar(jl, &v);
            break;
        }
        if (!val)
            goto fail;
        if (depth == 0) {
            root = val;
        } else {
            json_t *parent = jl->stack[depth - 1];
            /* both steal val, also when they fail */
            if (json_is_object(parent) ? json_object_setn_new_nocheck(parent, key, klen, val)
                                       : json_array_append_new(parent, val))
                goto fail;
        }
        if (tok == JSCAN_TOK_BEGIN) {
            if (!room((void **)&jl->stack, &jl->stack_cap, depth + 1, sizeof *jl->stack))
                goto fail;
            jl->stack[depth++] = val;
        }
    }
    if (rc == 0)
        return root;
fail:
    json_decref(root);
    return NULL;
}

/* True when jscan takes s[0..n) and no key holds a NUL byte. */
static bool scan(const char *s, size_t n)
{
    jscan_reader r;
    jscan_reader_init(&r, s, n);
    jscan_tok tok;
    jscan_val v;
    int rc;
    while ((rc = jscan_next(&r, &tok, &v)) == 1)
        if (tok == JSCAN_TOK_KEY && v.nul)
            return false;
    return rc == 0;
}

void jload_release(jload *j)
{
    if (!j)
        return;
    free(j->data);
    free(j->key);
    free(j->stack);
    *j = (jload)JLOAD_INIT;
}

json_t *jload_parse_with(jload *jl, const char *s, size_t n, const char *what, hew_err *err)
{
    if (!s) {
        s = "";
        n = 0;
    }
    json_t *v = build(jl, s, n);
    if (v)
        return v;
    /* Refused or out of memory: jansson's answer, with its message. */
    json_error_t e;
    v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (v)
        return v;
    if (!what)
        what = "stored JSON";
    if (json_error_code(&e) == json_error_out_of_memory)
        hew_err_set(err, HEW_E_NOMEM, "%s: out of memory while parsing JSON", what);
    else
        hew_err_set(err, HEW_E_INVALID, "%s: invalid JSON at line %d, column %d: %s", what,
                    e.line, e.column, e.text);
    return NULL;
}

json_t *jload_parse(const char *s, size_t n, const char *what, hew_err *err)
{
    jload jl = JLOAD_INIT;
    json_t *v = jload_parse_with(&jl, s, n, what, err);
    jload_release(&jl);
    return v;
}

bool jload_valid_with(jload *jl, const char *s, size_t n)
{
    (void)jl; /* validating needs no scratch */
    if (!s) {
        s = "";
        n = 0;
    }
    if (scan(s, n))
        return true;
    json_error_t e;
    json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    json_decref(v);
    return v != NULL;
}

bool jload_valid(const char *s, size_t n)
{
    return jload_valid_with(NULL, s, n);
}
