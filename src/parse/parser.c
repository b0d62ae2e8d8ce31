/* parser — one assistant message's streaming parser: the façade over xmlcall (text),
 * native (tool-call deltas) and the reasoning block (see parser.h). */
#include "parse/parser.h"

#include <stdlib.h>
#include <string.h>

#include "base/limits.h"
#include "base/utf8.h"
#include "parse/cline_names.h"
#include "parse/native.h"
#include "parse/tagset.h"
#include "parse/xmlcall.h"

#define PARSER_DEFAULT_MAX ((size_t)256 << 20)
_Static_assert(PARSER_DEFAULT_MAX >= LIMITS_STREAM_LINE,
               "a message holds a tool call that came whole in the longest stream line");

struct parser {
    blocklist blocks;
    tagset tools, params;
    xmlcall xml;
    native nv;
    block *reasoning;     /* open reasoning block */
    size_t fed, max;
    hew_err fail;         /* sticky */
    bool finished;
};

parser_opts parser_defaults(void)
{
    parser_opts o;
    memset(&o, 0, sizeof o);
    o.xml_tools = true;
    o.rule_tool = "write_to_file";
    o.rule_param = "content";
    o.max_bytes = PARSER_DEFAULT_MAX;
    return o;
}

parser *parser_new(const parser_opts *opts, hew_err *err)
{
    parser_opts o = opts ? *opts : parser_defaults();
    if (o.max_bytes == 0)
        o.max_bytes = PARSER_DEFAULT_MAX;
    parser *p = calloc(1, sizeof *p);
    if (!p) {
        hew_err_set(err, HEW_E_NOMEM, "out of memory creating the message parser");
        return NULL;
    }
    p->max = o.max_bytes;
    blocklist_init(&p->blocks, o.max_bytes);
    const char *const *tools = o.tools ? o.tools : cline_tool_names;
    size_t ntools = o.tools ? o.ntools : cline_tool_count;
    const char *const *params = o.params ? o.params : cline_param_names;
    size_t nparams = o.params ? o.nparams : cline_param_count;
    if (!o.xml_tools)
        ntools = 0;
    if (tagset_init(&p->tools, tools, ntools, "tool name", err) != HEW_OK ||
        tagset_init(&p->params, params, nparams, "parameter name", err) != HEW_OK) {
        parser_free(p);
        return NULL;
    }
    if ((o.rule_tool && !tagset_valid_name(o.rule_tool, strlen(o.rule_tool))) ||
        (o.rule_param && !tagset_valid_name(o.rule_param, strlen(o.rule_param)))) {
        hew_err_set(err, HEW_E_INVALID, "the last-close rule names an unusable tag name");
        parser_free(p);
        return NULL;
    }
    xmlcall_init(&p->xml, &p->blocks, &p->tools, &p->params, o.rule_tool, o.rule_param,
                 o.max_bytes);
    native_init(&p->nv, &p->blocks, o.max_bytes);
    return p;
}

void parser_free(parser *p)
{
    if (!p)
        return;
    xmlcall_release(&p->xml);
    native_release(&p->nv);
    blocklist_release(&p->blocks);
    tagset_release(&p->tools);
    tagset_release(&p->params);
    free(p);
}

static hew_code failed(parser *p, hew_code rc, hew_err *err)
{
    if (!p->fail.code) {
        if (rc == HEW_E_TOOBIG)
            hew_err_set(&p->fail, rc, "the assistant message is larger than %zu bytes", p->max);
        else
            hew_err_set(&p->fail, rc, "out of memory parsing the assistant message");
    }
    if (err)
        *err = p->fail;
    return p->fail.code;
}

/* Admit n more bytes of input, or refuse. */
static hew_code admit(parser *p, size_t n, hew_err *err)
{
    if (p->fail.code) {
        if (err)
            *err = p->fail;
        return p->fail.code;
    }
    if (p->finished)
        return hew_err_set(err, HEW_E_INVALID, "the message parser has already finished");
    if (n > p->max - p->fed)
        return failed(p, HEW_E_TOOBIG, err);
    p->fed += n;
    return HEW_OK;
}

static void close_reasoning(parser *p)
{
    if (!p->reasoning)
        return;
    if (tval_finish(&p->reasoning->content))
        blocklist_touch(&p->blocks, p->reasoning);
    blocklist_complete(&p->blocks, p->reasoning);
    p->reasoning = NULL;
}

hew_code parser_text(parser *p, const char *s, size_t n, hew_err *err)
{
    hew_code rc = admit(p, n, err);
    if (rc || n == 0)
        return rc;
    close_reasoning(p);
    /* A NUL byte (a model's \u0000) goes on as U+FFFD: see parser.h. */
    for (;;) {
        const char *z = memchr(s, '\0', n);
        size_t k = z ? (size_t)(z - s) : n;
        rc = k ? xmlcall_feed(&p->xml, s, k) : HEW_OK;
        if (!rc && z)
            rc = xmlcall_feed(&p->xml, UTF8_REPLACEMENT, 3);
        if (rc || !z)
            break;
        s = z + 1;
        n -= k + 1;
    }
    return rc ? failed(p, rc, err) : HEW_OK;
}

hew_code parser_reasoning(parser *p, const char *s, size_t n, hew_err *err)
{
    hew_code rc = admit(p, n, err);
    if (rc || n == 0)
        return rc;
    if (!p->reasoning && !(p->reasoning = blocklist_add(&p->blocks, BLOCK_REASONING)))
        return failed(p, HEW_E_NOMEM, err);
    if (tval_push_nonul(&p->reasoning->content, s, n))
        blocklist_touch(&p->blocks, p->reasoning);
    rc = tval_error(&p->reasoning->content);
    return rc ? failed(p, rc, err) : HEW_OK;
}

static void before_native_block(void *ud)
{
    parser *p = ud;
    close_reasoning(p);
    xmlcall_break_text(&p->xml);
}

hew_code parser_tool(parser *p, const parser_tool_delta *d, hew_err *err)
{
    size_t n = d->args_len + (d->id ? strlen(d->id) : 0) + (d->name ? strlen(d->name) : 0);
    hew_code rc = admit(p, n, err);
    if (rc)
        return rc;
    native_delta nd = { d->id, d->index, d->has_index, d->name, d->args, d->args_len, d->done };
    rc = native_delta_apply(&p->nv, &nd, before_native_block, p);
    return rc ? failed(p, rc, err) : HEW_OK;
}

static hew_code finish(parser *p, bool complete_calls, hew_err *err)
{
    if (p->fail.code) {
        if (err)
            *err = p->fail;
        return p->fail.code;
    }
    if (p->finished)
        return HEW_OK;
    p->finished = true;
    close_reasoning(p);
    hew_code rc = xmlcall_finish(&p->xml);
    if (!rc && complete_calls)
        rc = native_finish(&p->nv, before_native_block, p);
    return rc ? failed(p, rc, err) : HEW_OK;
}

hew_code parser_finish(parser *p, hew_err *err)
{
    return finish(p, true, err);
}

hew_code parser_finish_cut(parser *p, hew_err *err)
{
    return finish(p, false, err);
}

void parser_seal(parser *p)
{
    for (size_t i = 0; i < p->blocks.n; i++)
        blocklist_complete(&p->blocks, p->blocks.v[i]);
}

size_t parser_count(const parser *p)
{
    return p->blocks.n;
}

const block *parser_block(const parser *p, size_t i)
{
    return i < p->blocks.n ? p->blocks.v[i] : NULL;
}

bool parser_release_text(parser *p, size_t i)
{
    block *b = i < p->blocks.n ? p->blocks.v[i] : NULL;
    if (!b || b->partial || b->type == BLOCK_TOOL_USE)
        return false;
    buf_release(&b->content.text);
    buf_release(&b->content.pend);
    return true;
}

void parser_drop_text(parser *p, size_t i, size_t upto)
{
    block *b = i < p->blocks.n ? p->blocks.v[i] : NULL;
    if (b && b->type != BLOCK_TOOL_USE)
        tval_drop(&b->content, upto);
}

uint64_t parser_seq(const parser *p)
{
    return p->blocks.seq;
}

size_t parser_dirty_from(const parser *p)
{
    return blocklist_dirty_from(&p->blocks);
}

void parser_clean(parser *p)
{
    blocklist_clean(&p->blocks);
}

size_t parser_held(const parser *p)
{
    return xmlcall_held(&p->xml);
}
