/* native — native tool-call assembly (see native.h). */
#include "parse/native.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void native_init(native *nv, blocklist *out, size_t max_bytes)
{
    memset(nv, 0, sizeof *nv);
    nv->out = out;
    nv->max = max_bytes;
}

static void call_free(native_call *c)
{
    if (!c)
        return;
    free(c->id);
    free(c->name);
    buf_release(&c->pre);
    buf_release(&c->dkey);
    jsonpeek_release(&c->peek);
    free(c);
}

void native_release(native *nv)
{
    for (size_t i = 0; i < nv->n; i++)
        call_free(nv->calls[i]);
    free(nv->calls);
    memset(nv, 0, sizeof *nv);
}

/* ---- the streaming view ----------------------------------------------------------------- */

static void open_param(native_call *c, const char *key, size_t key_len);

/* A value begins: a string shows at once (and grows); any other value only when whole. */
static void sink_begin(void *ud, const char *key, size_t key_len, bool is_string)
{
    native_call *c = ud;
    c->cur = NULL;
    c->deferred = !is_string;
    if (c->deferred) {
        buf_reset(&c->dkey);
        buf_append(&c->dkey, key, key_len);
        return;
    }
    open_param(c, key, key_len);
}

static void open_param(native_call *c, const char *key, size_t key_len)
{
    block_param *p = block_param_get(c->blk, key, key_len, TVAL_RAW, c->owner->max);
    if (!p) {
        c->blk->args.err = HEW_E_NOMEM;
        c->cur = NULL;
        return;
    }
    tval_reset(p->val);
    c->cur = p->val;
    blocklist_touch(c->owner->out, c->blk);
}

static void sink_bytes(void *ud, const char *s, size_t n)
{
    native_call *c = ud;
    if (c->deferred) {
        c->deferred = false;
        open_param(c, c->dkey.data ? c->dkey.data : "", c->dkey.len);
    }
    if (c->cur && tval_push(c->cur, s, n))
        blocklist_touch(c->owner->out, c->blk);
}

static void sink_end(void *ud)
{
    native_call *c = ud;
    c->deferred = false;
    if (c->cur && tval_finish(c->cur))
        blocklist_touch(c->owner->out, c->blk);
    c->cur = NULL;
}

static void args_in(native_call *c, const char *s, size_t n)
{
    if (n == 0)
        return;
    if (!c->blk) {
        buf_append(&c->pre, s, n);
        return;
    }
    buf_append(&c->blk->args, s, n);
    jsonpeek_feed(&c->peek, s, n);
}

static hew_code make_block(native *nv, native_call *c, const char *name,
                           void (*before_block)(void *ud), void *ud)
{
    if (before_block)
        before_block(ud);
    block *b = blocklist_add(nv->out, BLOCK_TOOL_USE);
    if (!b || !(b->name = strdup(name)))
        return HEW_E_NOMEM;
    b->native = true;
    if (c->id && !(b->id = strdup(c->id)))
        return HEW_E_NOMEM;
    c->blk = b;
    jsonpeek_sink sink = { sink_begin, sink_bytes, sink_end };
    jsonpeek_init(&c->peek, sink, c, nv->max);
    if (c->pre.len) {
        args_in(c, c->pre.data, c->pre.len);
        buf_release(&c->pre);
    }
    return HEW_OK;
}

/* ---- completion ------------------------------------------------------------------------- */

static void set_error(native_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_error(native_call *c, const char *fmt, ...)
{
    buf m = BUF_INIT(4096);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&m, fmt, ap);
    va_end(ap);
    free(c->blk->args_error);
    c->blk->args_error = buf_detach(&m, NULL);
    if (!c->blk->args_error)
        c->blk->args_error = strdup("invalid tool call");
    block_params_clear(c->blk);
}

/* Non-string value as JSON text: reals as short as round-trips. */
static char *value_text(const json_t *v)
{
    if (json_is_real(v)) {
        double d = json_real_value(v);
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.15g", d);
        if (strtod(tmp, NULL) != d)
            snprintf(tmp, sizeof tmp, "%.17g", d);
        return strdup(tmp);
    }
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static bool all_space(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return false;
    return true;
}

static void complete_call(native *nv, native_call *c)
{
    block *b = c->blk;
    const char *who = b->name[0] ? b->name : "(no name)";
    const char *id = b->id ? b->id : "none";
    if (!b->name[0]) {
        set_error(c, "the tool call (id %s) has no tool name; call the tool again by name", id);
    } else if (b->args.err) {
        set_error(c, "the arguments of tool call %s (id %s) are too large", who, id);
    } else if (all_space(b->args.data ? b->args.data : "", b->args.len)) {
        block_params_clear(b);
    } else {
        json_error_t je;
        json_t *root = json_loadb(b->args.data, b->args.len, JSON_ALLOW_NUL, &je);
        if (!root) {
            set_error(c,
                      "the arguments of tool call %s (id %s) are not valid JSON: %s (line %d, "
                      "column %d); send the call again with one complete JSON object",
                      who, id, je.text, je.line, je.column);
        } else if (!json_is_object(root)) {
            set_error(c,
                      "the arguments of tool call %s (id %s) must be a JSON object, not %s; "
                      "send the call again with one JSON object",
                      who, id,
                      json_is_array(root)    ? "an array"
                      : json_is_string(root) ? "a string"
                                             : "a number, boolean or null");
        } else {
            block_params_clear(b);
            const char *key;
            json_t *v;
            json_object_foreach(root, key, v) {
                block_param *p = block_param_add(b, key, strlen(key), TVAL_RAW, nv->max);
                if (!p) {
                    b->args.err = HEW_E_NOMEM;
                    break;
                }
                if (json_is_string(v)) {
                    tval_push_nonul(p->val, json_string_value(v), json_string_length(v));
                } else {
                    char *t = value_text(v);
                    if (!t) {
                        b->args.err = HEW_E_NOMEM;
                        break;
                    }
                    tval_push(p->val, t, strlen(t));
                    free(t);
                }
                tval_finish(p->val);
            }
        }
        json_decref(root);
    }
    c->done = true;
    blocklist_complete(nv->out, b);
}

/* ---- deltas ----------------------------------------------------------------------------- */

static bool same_id(const native_call *c, const char *id)
{
    return c->id && id && strcmp(c->id, id) == 0;
}

static native_call *find_call(native *nv, const native_delta *d)
{
    if (nv->n == 0)
        return NULL;
    native_call *last = nv->calls[nv->last];
    if (d->has_index) {
        if (!last->done && last->has_index && last->index == d->index &&
            (!d->id || !last->id || same_id(last, d->id)))
            return last;
        for (size_t i = nv->n; i-- > 0;) {
            native_call *c = nv->calls[i];
            if (!c->done && c->has_index && c->index == d->index &&
                (!d->id || !c->id || same_id(c, d->id)))
                return c;
        }
    }
    if (d->id) {
        if (same_id(last, d->id))
            return last;
        for (size_t i = nv->n; i-- > 0;)
            if (same_id(nv->calls[i], d->id))
                return nv->calls[i];
        return NULL;
    }
    if (!d->has_index) {
        /* Neither id nor index: the most recent open call. */
        if (!last->done)
            return last;
        for (size_t i = nv->n; i-- > 0;)
            if (!nv->calls[i]->done)
                return nv->calls[i];
    }
    return NULL;
}

static native_call *new_call(native *nv, const native_delta *d)
{
    if (nv->n == nv->cap) {
        size_t cap = nv->cap ? nv->cap * 2 : 8;
        native_call **v = realloc(nv->calls, cap * sizeof *v);
        if (!v)
            return NULL;
        nv->calls = v;
        nv->cap = cap;
    }
    native_call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->owner = nv;
    c->pos = nv->n;
    buf_init(&c->pre, nv->max);
    buf_init(&c->dkey, 4096);
    c->has_index = d->has_index;
    c->index = d->index;
    if (d->id && !(c->id = strdup(d->id))) {
        free(c);
        return NULL;
    }
    nv->calls[nv->n++] = c;
    return c;
}

hew_code native_delta_apply(native *nv, const native_delta *d,
                            void (*before_block)(void *ud), void *ud)
{
    native_call *c = find_call(nv, d);
    if (!c && !(c = new_call(nv, d)))
        return HEW_E_NOMEM;
    nv->last = c->pos;
    if (c->done)
        return HEW_OK; /* a repeated delta of a finished call */
    if (d->id && !c->id) {
        if (!(c->id = strdup(d->id)))
            return HEW_E_NOMEM;
        if (c->blk && !c->blk->id) {
            if (!(c->blk->id = strdup(d->id)))
                return HEW_E_NOMEM;
            blocklist_touch(nv->out, c->blk);
        }
    }
    if (d->has_index && !c->has_index) {
        c->has_index = true;
        c->index = d->index;
    }
    if (!c->blk && d->name && d->name[0]) {
        hew_code rc = make_block(nv, c, d->name, before_block, ud);
        if (rc)
            return rc;
    }
    args_in(c, d->args, d->args_len);
    if (d->done) {
        if (!c->blk) {
            hew_code rc = make_block(nv, c, "", before_block, ud);
            if (rc)
                return rc;
        }
        complete_call(nv, c);
    }
    if (c->blk && c->blk->args.err)
        return c->blk->args.err;
    return c->pre.err;
}

hew_code native_finish(native *nv, void (*before_block)(void *ud), void *ud)
{
    for (size_t i = 0; i < nv->n; i++) {
        native_call *c = nv->calls[i];
        if (c->done)
            continue;
        if (!c->blk) {
            hew_code rc = make_block(nv, c, c->name ? c->name : "", before_block, ud);
            if (rc)
                return rc;
        }
        complete_call(nv, c);
    }
    return HEW_OK;
}
