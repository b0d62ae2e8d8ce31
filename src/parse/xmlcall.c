/* xmlcall — streaming XML tool-call scanner (see xmlcall.h).
 *
 * The scanner runs in runs: memchr finds the next '<'; the bytes before it go to the open
 * text, value, or nowhere (inside a tool); from the '<' on a tagm decides byte by byte
 * whether a tag is forming. For the rule tool, every raw byte of the tool body is also
 * handed, in order, to a second small matcher (obs_feed) that finds the first `<content>`
 * and every `</content>` after it. */
#include "parse/xmlcall.h"

#include <stdlib.h>
#include <string.h>

static void put_name(char *dst, size_t cap, const char *pre, const char *name,
                     const char *post, size_t *len)
{
    size_t a = strlen(pre), b = strlen(name), c = strlen(post);
    if (a + b + c + 1 > cap)
        b = cap - 1 - a - c;
    memcpy(dst, pre, a);
    memcpy(dst + a, name, b);
    memcpy(dst + a + b, post, c);
    dst[a + b + c] = '\0';
    if (len)
        *len = a + b + c;
}

void xmlcall_init(xmlcall *x, blocklist *out, const tagset *tools, const tagset *params,
                  const char *rule_tool, const char *rule_param, size_t max_bytes)
{
    memset(x, 0, sizeof *x);
    x->out = out;
    x->tools = tools;
    x->params = params;
    x->max = max_bytes;
    tval_init(&x->seg, TVAL_TRIM, max_bytes);
    if (rule_tool && rule_param && tagset_valid_name(rule_tool, strlen(rule_tool)) &&
        tagset_valid_name(rule_param, strlen(rule_param))) {
        put_name(x->rule_tool, sizeof x->rule_tool, "", rule_tool, "", NULL);
        put_name(x->rule_open, sizeof x->rule_open, "<", rule_param, ">", &x->rule_open_len);
        put_name(x->rule_close, sizeof x->rule_close, "</", rule_param, ">",
                 &x->rule_close_len);
    }
}

static void drop_cap(xmlcall *x)
{
    if (x->cap_owned && x->cap) {
        tval_release(x->cap);
        free(x->cap);
    }
    x->cap = NULL;
    x->cap_owned = false;
    x->cap_marked = false;
    x->obs = OBS_OFF;
}

void xmlcall_release(xmlcall *x)
{
    drop_cap(x);
    tval_release(&x->seg);
}

size_t xmlcall_held(const xmlcall *x)
{
    return x->m.len;
}

/* ---- text ------------------------------------------------------------------------------ */

static void text_block_from_seg(xmlcall *x)
{
    block *b = blocklist_add(x->out, BLOCK_TEXT);
    if (!b) {
        x->seg.text.err = HEW_E_NOMEM;
        return;
    }
    tval_release(&b->content);
    b->content = x->seg;
    tval_init(&x->seg, TVAL_TRIM, x->max);
    x->text = b;
}

static void text_push(xmlcall *x, const char *s, size_t n)
{
    if (x->text) {
        if (tval_push(&x->text->content, s, n))
            blocklist_touch(x->out, x->text);
        return;
    }
    tval_push(&x->seg, s, n);
    if (x->seg.started)
        text_block_from_seg(x);
}

/* The text before a tool (or before a native call): finished and complete. */
static void text_end(xmlcall *x, bool complete)
{
    if (x->text) {
        if (tval_finish(&x->text->content))
            blocklist_touch(x->out, x->text);
    } else {
        tval_finish(&x->seg);
        if (x->seg.started)
            text_block_from_seg(x);
    }
    if (x->text && complete)
        blocklist_complete(x->out, x->text);
    if (complete) {
        x->text = NULL;
        tval_reset(&x->seg);
    }
}

void xmlcall_break_text(xmlcall *x)
{
    if (x->st != XS_TEXT)
        return;
    if (x->m.len) {
        size_t len = x->m.len;
        x->m.len = 0;
        text_push(x, x->m.buf, len);
    }
    text_end(x, true);
}

/* ---- the write_to_file rule ------------------------------------------------------------- */

static block_param *slot_param(xmlcall *x)
{
    return &x->tool->params[x->slot];
}

/* Raw bytes after the first `<content>`: capture them and find every `</content>`. */
static void obs_capture(xmlcall *x, const char *s, size_t n)
{
    const char *pat = x->rule_close;
    size_t plen = x->rule_close_len, i = 0;
    while (i < n) {
        if (x->pos > 0) {
            char c = s[i];
            if (c != pat[x->pos]) {
                x->pos = 0;
                continue; /* c again, as a possible '<' */
            }
            tval_push(x->cap, &c, 1);
            i++;
            if (++x->pos == plen) {
                x->pos = 0;
                x->cap_marked = true;
                if (tval_mark(x->cap, x->cand) && !x->cap_owned)
                    blocklist_touch(x->out, x->tool);
            }
            continue;
        }
        const char *lt = memchr(s + i, '<', n - i);
        size_t end = lt ? (size_t)(lt - s) : n;
        if (end > i)
            tval_push(x->cap, s + i, end - i);
        if (!lt)
            return;
        x->cand = tval_mark_point(x->cap);
        tval_push(x->cap, "<", 1);
        x->pos = 1;
        i = end + 1;
    }
}

/* Every raw byte of the rule tool's body, in order. */
static void obs_feed(xmlcall *x, const char *s, size_t n)
{
    if (!x->rule)
        return;
    if (x->obs == OBS_CAPTURE) {
        obs_capture(x, s, n);
        return;
    }
    if (x->obs != OBS_SEEK)
        return;
    const char *pat = x->rule_open;
    size_t plen = x->rule_open_len, i = 0;
    while (i < n) {
        if (x->pos > 0) {
            char c = s[i];
            if (c != pat[x->pos]) {
                x->pos = 0;
                continue;
            }
            i++;
            if (++x->pos == plen) {
                /* The first `<content>` is not the opening of the content parameter (it
                 * is inside another value, or content is not a parameter name): capture
                 * on the side; the rule applies when the tool closes. */
                x->pos = 0;
                x->cap = malloc(sizeof *x->cap);
                if (!x->cap) {
                    x->seg.text.err = HEW_E_NOMEM;
                    x->obs = OBS_OFF;
                    return;
                }
                tval_init(x->cap, TVAL_MARKED, x->max);
                x->cap_owned = true;
                x->cap_marked = false;
                x->obs = OBS_CAPTURE;
                obs_capture(x, s + i, n - i);
                return;
            }
            continue;
        }
        const char *lt = memchr(s + i, '<', n - i);
        if (!lt)
            return;
        x->pos = 1;
        i = (size_t)(lt - s) + 1;
    }
}

/* The rule tool closes: its content is the capture up to the last `</content>`. */
static void obs_close(xmlcall *x)
{
    if (!x->rule)
        return;
    if (x->obs == OBS_CAPTURE && !x->cap_owned) {
        block_param *p = slot_param(x);
        tval_finish(p->val);
        if (p->shadow) {
            tval_release(p->shadow);
            free(p->shadow);
            p->shadow = NULL;
        }
        p->obs = false;
        x->cap = NULL;
    } else if (x->obs == OBS_CAPTURE && x->cap_marked) {
        size_t plen = x->rule_open_len - 2;
        block_param *p = block_param_get(x->tool, x->rule_open + 1, plen, TVAL_TRIM, x->max);
        if (!p) {
            x->seg.text.err = HEW_E_NOMEM;
        } else {
            tval_finish(x->cap);
            tval_release(p->val);
            free(p->val);
            p->val = x->cap;
            x->cap = NULL;
            x->cap_owned = false;
        }
    }
    drop_cap(x);
    x->rule = false;
}

/* The input ends inside the rule tool: give the content the reference gives an unclosed
 * tool (the last value the tag scanner assigned). */
static void obs_unclosed(xmlcall *x)
{
    if (!x->rule)
        return;
    if (x->obs == OBS_CAPTURE && !x->cap_owned) {
        block_param *p = slot_param(x);
        if (p->shadow) {
            tval_release(p->val);
            free(p->val);
            p->val = p->shadow;
            p->shadow = NULL;
        } else {
            buf_truncate(&p->val->text, x->first_len);
            tval_finish(p->val);
        }
        p->obs = false;
        x->cap = NULL;
        blocklist_touch(x->out, x->tool);
    }
    drop_cap(x);
    x->rule = false;
}

/* ---- tags ----------------------------------------------------------------------------- */

static void set_close(xmlcall *x, const char *name)
{
    put_name(x->close, sizeof x->close, "/", name, "", &x->close_len);
}

static void tool_open(xmlcall *x, const char *name)
{
    text_end(x, true);
    block *b = blocklist_add(x->out, BLOCK_TOOL_USE);
    if (!b || !(b->name = strdup(name))) {
        x->seg.text.err = HEW_E_NOMEM;
        return;
    }
    x->tool = b;
    x->st = XS_TOOL;
    set_close(x, name);
    x->rule = x->rule_tool[0] && strcmp(name, x->rule_tool) == 0;
    x->obs = x->rule ? OBS_SEEK : OBS_OFF;
    x->pos = 0;
}

static void tool_close(xmlcall *x)
{
    obs_close(x);
    blocklist_complete(x->out, x->tool);
    x->tool = NULL;
    x->target = NULL;
    x->st = XS_TEXT;
}

static void param_open(xmlcall *x, const char *name, const char *tag, size_t tag_len)
{
    size_t len = strlen(name);
    bool first_content = x->rule && x->obs == OBS_SEEK &&
                         len + 2 == x->rule_open_len && memcmp(name, x->rule_open + 1, len) == 0;
    block_param *p = block_param_get(x->tool, name, len, TVAL_TRIM, x->max);
    if (!p) {
        x->seg.text.err = HEW_E_NOMEM;
        return;
    }
    x->param = (size_t)(p - x->tool->params);
    if (first_content) {
        /* The content parameter opens at the first `<content>`: its value is the capture. */
        tval_reset(p->val);
        p->obs = true;
        x->slot = x->param;
        x->obs = OBS_INPARAM;
        x->pos = 0;
        x->target = p->val;
    } else if (p->obs) {
        /* content again after its first close: the tag scanner's value goes to the shadow,
         * the shown value stays the capture. */
        if (!p->shadow) {
            p->shadow = malloc(sizeof *p->shadow);
            if (!p->shadow) {
                x->seg.text.err = HEW_E_NOMEM;
                return;
            }
            tval_init(p->shadow, TVAL_TRIM, x->max);
        } else {
            tval_reset(p->shadow);
        }
        x->target = p->shadow;
        obs_feed(x, tag, tag_len);
    } else {
        tval_reset(p->val);
        x->target = p->val;
        obs_feed(x, tag, tag_len);
    }
    blocklist_touch(x->out, x->tool);
    x->st = XS_PARAM;
    set_close(x, name);
}

static void param_close(xmlcall *x, const char *tag, size_t tag_len)
{
    if (x->obs == OBS_INPARAM && x->param == x->slot) {
        /* The first `</content>`: from now on the capture takes every raw byte and shows
         * the value up to the last `</content>`. */
        block_param *p = slot_param(x);
        tval_to_marked(p->val);
        x->first_len = p->val->text.len;
        tval_push(p->val, tag, tag_len);
        x->cap = p->val;
        x->cap_owned = false;
        x->cap_marked = true;
        x->obs = OBS_CAPTURE;
        x->pos = 0;
    } else {
        tval_finish(x->target);
        obs_feed(x, tag, tag_len);
    }
    blocklist_touch(x->out, x->tool);
    x->target = NULL;
    x->st = XS_TOOL;
    /* A parameter named like its tool: the same `</name>` also closes the tool. */
    if (x->close_len == strlen(x->tool->name) + 1 &&
        memcmp(x->close + 1, x->tool->name, x->close_len - 1) == 0)
        tool_close(x);
    else
        set_close(x, x->tool->name);
}

/* ---- the scan ------------------------------------------------------------------------- */

/* memchr for '<', without the call for the short pieces a stream delivers. */
static inline const char *find_lt(const char *s, size_t n)
{
    if (n > 32)
        return memchr(s, '<', n);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '<')
            return s + i;
    return NULL;
}

/* Bytes that are not part of a tag. */
static void content(xmlcall *x, const char *s, size_t n)
{
    switch (x->st) {
    case XS_TEXT:
        text_push(x, s, n);
        break;
    case XS_TOOL:
        obs_feed(x, s, n);
        break;
    case XS_PARAM:
        if (tval_push(x->target, s, n) && x->target == x->tool->params[x->param].val)
            blocklist_touch(x->out, x->tool);
        obs_feed(x, s, n);
        break;
    }
}

static void start_candidate(xmlcall *x)
{
    switch (x->st) {
    case XS_TEXT: tagm_start(&x->m, x->tools, NULL, 0); break;
    case XS_TOOL: tagm_start(&x->m, x->params, x->close, x->close_len); break;
    case XS_PARAM: tagm_start(&x->m, NULL, x->close, x->close_len); break;
    }
}

static void on_tag(xmlcall *x, enum tagm_result r)
{
    char tag[sizeof x->m.buf + 1];
    size_t tag_len = x->m.len;
    memcpy(tag, x->m.buf, tag_len);
    tag[tag_len++] = '>';
    x->m.len = 0;
    switch (x->st) {
    case XS_TEXT:
        tool_open(x, x->tools->names[x->m.match]);
        break;
    case XS_TOOL:
        if (r == TAGM_SET) {
            param_open(x, x->params->names[x->m.match], tag, tag_len);
        } else {
            tool_close(x);
        }
        break;
    case XS_PARAM:
        param_close(x, tag, tag_len);
        break;
    }
}

#define TVAL_BAD(v) ((v)->text.err | (v)->pend.err)

static hew_code check(const xmlcall *x)
{
    if (!(TVAL_BAD(&x->seg) | (x->text ? TVAL_BAD(&x->text->content) : 0) |
          (x->target ? TVAL_BAD(x->target) : 0) | (x->cap ? TVAL_BAD(x->cap) : 0)))
        return HEW_OK;
    hew_code rc = tval_error(&x->seg);
    if (!rc && x->text)
        rc = tval_error(&x->text->content);
    if (!rc && x->tool && x->target)
        rc = tval_error(x->target);
    if (!rc && x->cap)
        rc = tval_error(x->cap);
    return rc;
}

hew_code xmlcall_feed(xmlcall *x, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (x->m.len) {
            enum tagm_result r = tagm_step(&x->m, (unsigned char)s[i]);
            if (r == TAGM_MORE) {
                i++;
            } else if (r == TAGM_FAIL) {
                size_t len = x->m.len;
                x->m.len = 0;
                content(x, x->m.buf, len); /* and s[i] again, outside a candidate */
            } else {
                i++;
                on_tag(x, r);
            }
            continue;
        }
        const char *lt = find_lt(s + i, n - i);
        size_t end = lt ? (size_t)(lt - s) : n;
        if (end > i)
            content(x, s + i, end - i);
        if (!lt)
            break;
        i = end + 1;
        start_candidate(x);
    }
    return check(x);
}

hew_code xmlcall_finish(xmlcall *x)
{
    if (x->m.len) {
        size_t len = x->m.len;
        x->m.len = 0;
        content(x, x->m.buf, len);
    }
    switch (x->st) {
    case XS_TEXT:
        text_end(x, false);
        break;
    case XS_PARAM:
        if (tval_finish(x->target))
            blocklist_touch(x->out, x->tool);
        obs_unclosed(x);
        break;
    case XS_TOOL:
        obs_unclosed(x);
        break;
    }
    return check(x);
}
