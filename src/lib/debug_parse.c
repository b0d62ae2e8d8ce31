/* debug_parse — hew_debug_parse(): the streaming message parser exposed for
 * `hew debug parse`, tests and bug reports. Glue only: the work is in parse/. Never prints,
 * never reads files. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "hew_debug.h"
#include "parse/parser.h"

/* A JSON string from bytes that may not be UTF-8 (invalid bytes become U+FFFD). */
static json_t *json_bytes(const char *s, size_t n)
{
    if (utf8_validate(s, n, NULL))
        return json_stringn(s, n);
    buf b = BUF_INIT(0);
    utf8_sanitize(s, n, &b);
    json_t *j = b.err ? NULL : json_stringn(b.data ? b.data : "", b.len);
    buf_release(&b);
    return j;
}

static const char *type_name(block_type t)
{
    switch (t) {
    case BLOCK_TEXT: return "text";
    case BLOCK_TOOL_USE: return "tool_use";
    case BLOCK_REASONING: return "reasoning";
    }
    return "unknown";
}

static json_t *block_json(const block *b)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = json_object_set_new(o, "type", json_string(type_name(b->type)));
    if (b->type == BLOCK_TOOL_USE) {
        json_t *params = json_object();
        bad |= json_object_set_new(o, "name", json_bytes(b->name ? b->name : "",
                                                         b->name ? strlen(b->name) : 0));
        for (size_t i = 0; params && i < b->nparams; i++) {
            size_t len;
            const char *v = block_param_value(b, i, &len);
            bad |= json_object_set_new(params, block_param_name(b, i), json_bytes(v, len));
        }
        bad |= json_object_set_new(o, "params", params);
    } else {
        size_t len;
        const char *c = block_text(b, &len);
        bad |= json_object_set_new(o, "content", json_bytes(c, len));
    }
    bad |= json_object_set_new(o, "partial", json_boolean(b->partial));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

hew_code hew_debug_parse(const char *text, size_t len, const char *const *tools, size_t chunk,
                         char **res, char *errbuf, size_t errbuf_len)
{
    if (!res)
        return HEW_E_INVALID;
    *res = NULL;
    hew_err err = HEW_ERR_INIT;
    parser_opts o = parser_defaults();
    if (tools) {
        size_t n = 0;
        while (tools[n])
            n++;
        o.tools = tools;
        o.ntools = n;
    }
    if (len > o.max_bytes)
        o.max_bytes = len;
    char *out = NULL;
    json_t *arr = NULL;
    parser *p = parser_new(&o, &err);
    if (!p)
        goto done;
    if (chunk == 0)
        chunk = len ? len : 1;
    for (size_t at = 0; at < len; at += chunk) {
        size_t n = len - at < chunk ? len - at : chunk;
        if (parser_text(p, text + at, n, &err) != HEW_OK)
            goto done;
    }
    if (parser_finish(p, &err) != HEW_OK)
        goto done;
    arr = json_array();
    for (size_t i = 0; arr && i < parser_count(p); i++) {
        json_t *b = block_json(parser_block(p, i));
        if (!b || json_array_append_new(arr, b) != 0) {
            hew_err_set(&err, HEW_E_NOMEM, "out of memory building the JSON output");
            goto done;
        }
    }
    out = arr ? json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (!out)
        hew_err_set(&err, HEW_E_NOMEM, "out of memory building the JSON output");
done:
    json_decref(arr);
    parser_free(p);
    if (out) {
        *res = out;
        return HEW_OK;
    }
    if (errbuf && errbuf_len)
        snprintf(errbuf, errbuf_len, "%s", err.msg[0] ? err.msg : "cannot parse");
    return err.code != HEW_OK ? err.code : HEW_E_INTERNAL;
}
