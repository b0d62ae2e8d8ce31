/* context/dedup — the file-read collapse (cline-spec §6.3, see context.h): finds the
 * views of each file in the messages the model still sees and rewrites all but the ones
 * a later view does not cover into a short note. Pure: it returns rewrites and a ratio,
 * and never modifies the history or the existing rewrites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/message.h"
#include "base/buf.h"
#include "base/path.h"
#include "context/context.h"

const char CONTEXT_DUPLICATE_READ_NOTE[] =
    "[NOTE] This file read was removed to save space in the context window. Refer to the "
    "latest read of this file for its current content.";

enum view_kind { VIEW_READ, VIEW_ALTER, VIEW_MENTION };

typedef struct view {
    size_t msg, block;
    enum view_kind kind;
    char *key;          /* the normalised path */
    long win_a, win_b;  /* a read's line window; win_a == 0: the whole file */
    size_t start, end;  /* READ: end of the header line; ALTER/MENTION: the body span */
    size_t order;       /* position in scan order */
    bool collapse;
} view;

typedef struct views {
    view *v;
    size_t len, cap;
    bool oom;
} views;

static void views_push(views *vs, view v)
{
    if (vs->oom || !v.key) {
        free(v.key);
        vs->oom = true;
        return;
    }
    if (vs->len == vs->cap) {
        size_t cap = vs->cap ? vs->cap * 2 : 16;
        view *n = realloc(vs->v, cap * sizeof *n);
        if (!n) {
            free(v.key);
            vs->oom = true;
            return;
        }
        vs->v = n;
        vs->cap = cap;
    }
    v.order = vs->len;
    vs->v[vs->len++] = v;
}

static void views_release(views *vs)
{
    for (size_t i = 0; i < vs->len; i++)
        free(vs->v[i].key);
    free(vs->v);
}

/* ---- what a block shows ------------------------------------------------------------------ */

/* The text of a block the collapse looks at, existing rewrite applied: a text block's
 * text, a tool_result's content string (or its first text block). NULL for others. */
static const char *block_text(const json_t *b, const context_rewrites *rw, size_t msg,
                              size_t block, bool *is_error)
{
    const char *type = api_msg_block_type(b);
    bool text = strcmp(type, "text") == 0, result = strcmp(type, "tool_result") == 0;
    *is_error = result && json_is_true(json_object_get(b, "is_error"));
    if (!text && !result)
        return NULL;
    const char *r = context_rewrites_find(rw, msg, block);
    if (r)
        return r;
    if (text)
        return json_string_value(json_object_get(b, "text"));
    json_t *c = json_object_get(b, "content");
    if (json_is_string(c))
        return json_string_value(c);
    size_t i;
    json_t *cb;
    json_array_foreach(c, i, cb)
        if (strcmp(api_msg_block_type(cb), "text") == 0)
            return json_string_value(json_object_get(cb, "text"));
    return NULL;
}

static size_t strings_size(const json_t *v)
{
    size_t n = 0;
    if (json_is_string(v))
        return json_string_length(v);
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x)
            n += strlen(k) + strings_size(x);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
            n += strings_size(x);
    }
    return n;
}

/* The characters the model sees of a block (no rewrite). */
static size_t block_chars(const json_t *b)
{
    const char *type = api_msg_block_type(b);
    if (strcmp(type, "text") == 0)
        return json_string_length(json_object_get(b, "text"));
    if (strcmp(type, "thinking") == 0)
        return json_string_length(json_object_get(b, "thinking"));
    if (strcmp(type, "image") == 0)
        return json_string_length(json_object_get(json_object_get(b, "source"), "data"));
    if (strcmp(type, "tool_use") == 0)
        return strings_size(json_object_get(b, "input"));
    if (strcmp(type, "tool_result") == 0) {
        json_t *c = json_object_get(b, "content");
        if (json_is_string(c))
            return json_string_length(c);
        size_t n = 0, i;
        json_t *cb;
        json_array_foreach(c, i, cb)
            n += block_chars(cb);
        return n;
    }
    return 0;
}

/* The characters of block j of message i as the model sees it now. */
static size_t seen_chars(const json_t *b, const context_rewrites *rw, size_t i, size_t j)
{
    const char *type = api_msg_block_type(b);
    const char *r = context_rewrites_find(rw, i, j);
    if (r && (strcmp(type, "text") == 0 || strcmp(type, "tool_result") == 0))
        return strlen(r);
    return block_chars(b);
}

static size_t message_chars(const json_t *msg, const context_rewrites *rw, size_t i)
{
    json_t *tmp = NULL;
    json_t *blocks = api_msg_blocks(msg, &tmp);
    size_t n = 0, j;
    json_t *b;
    json_array_foreach(blocks, j, b)
        n += seen_chars(b, rw, i, j);
    json_decref(tmp);
    return n;
}

/* ---- finding views ------------------------------------------------------------------------- */

/* "[TOOL for 'PATH'] Result:" at the start of s (then a newline or the end). On success
 * the tool and path spans and *hdr_end (just after "Result:"). */
static bool parse_header(const char *s, const char **tool, size_t *tool_len, const char **p,
                         size_t *p_len, size_t *hdr_end)
{
    if (s[0] != '[')
        return false;
    const char *t = s + 1, *q = t;
    while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r' && *q != '\f' && *q != '\v')
        q++;
    if (q == t || strncmp(q, " for '", 6) != 0)
        return false;
    const char *ps = q + 6, *pe = ps;
    while (*pe && *pe != '\'')
        pe++;
    if (pe == ps || strncmp(pe, "'] Result:", 10) != 0)
        return false;
    const char *after = pe + 10;
    if (*after != '\0' && *after != '\n')
        return false;
    *tool = t;
    *tool_len = (size_t)(q - t);
    *p = ps;
    *p_len = (size_t)(pe - ps);
    *hdr_end = (size_t)(after - s);
    return true;
}

static char *norm_key(const char *p, size_t n)
{
    char *raw = strndup(p, n);
    if (!raw)
        return NULL;
    char *k = path_normalize(raw);
    free(raw);
    return k;
}

/* The line window of a read_file result, from its closing line: "(Showing lines A-B of"
 * or "[FILE TRUNCATED: … only lines A-B of". 0/0 for the whole file. */
static void read_window(const char *s, size_t len, long *a, long *b)
{
    *a = *b = 0;
    size_t tail = len > 600 ? len - 600 : 0;
    const char *t = s + tail;
    const char *hit = NULL, *m;
    static const char *const marks[] = { "(Showing lines ", "only lines " };
    for (size_t k = 0; k < 2; k++)
        for (const char *from = t; (m = strstr(from, marks[k])); from = m + 1)
            if (!hit || m > hit)
                hit = m + strlen(marks[k]);
    if (!hit)
        return;
    long x, y;
    if (sscanf(hit, "%ld-%ld", &x, &y) == 2 && x > 0 && y >= x) {
        *a = x;
        *b = y;
    }
}

static const char ALTER_OPEN[] = "<final_file_content path=\"";
static const char ALTER_CLOSE[] = "</final_file_content>";
static const char MENTION_OPEN[] = "<file_content path=\"";
static const char MENTION_CLOSE[] = "</file_content>";

/* The body of <TAG path="…">BODY</TAG> starting the search at from: *path, *body_start,
 * *body_end; false when there is none. */
static bool find_tagged(const char *s, size_t from, const char *open, const char *close,
                        size_t *path_start, size_t *path_end, size_t *body_start,
                        size_t *body_end)
{
    const char *o = strstr(s + from, open);
    if (!o)
        return false;
    const char *ps = o + strlen(open);
    const char *pe = strstr(ps, "\">");
    if (!pe)
        return false;
    const char *bs = pe + 2;
    const char *be = strstr(bs, close);
    if (!be)
        return false;
    *path_start = (size_t)(ps - s);
    *path_end = (size_t)(pe - s);
    *body_start = (size_t)(bs - s);
    *body_end = (size_t)(be - s);
    return true;
}

static bool body_is_note(const char *s, size_t a, size_t b, bool padded)
{
    size_t n = sizeof CONTEXT_DUPLICATE_READ_NOTE - 1;
    if (padded) {
        if (b - a != n + 2 || s[a] != ' ' || s[b - 1] != ' ')
            return false;
        a++;
    } else if (b - a != n) {
        return false;
    }
    return memcmp(s + a, CONTEXT_DUPLICATE_READ_NOTE, n) == 0;
}

static void scan_block(views *vs, context_result_fn kinds, const char *s, size_t i, size_t j)
{
    const char *tool, *p;
    size_t tool_len, p_len, hdr;
    size_t len = strlen(s);
    if (parse_header(s, &tool, &tool_len, &p, &p_len, &hdr)) {
        context_result_kind kind = kinds ? kinds(tool, tool_len) : CONTEXT_RESULT_OTHER;
        if (kind == CONTEXT_RESULT_READ) {
            const char *rest = s + hdr;
            if (rest[0] == '\n' && strcmp(rest + 1, CONTEXT_DUPLICATE_READ_NOTE) == 0)
                return; /* already collapsed */
            view v = { i, j, VIEW_READ, norm_key(p, p_len), 0, 0, hdr, len, 0, false };
            read_window(s, len, &v.win_a, &v.win_b);
            views_push(vs, v);
            return;
        }
        if (kind == CONTEXT_RESULT_EDIT) {
            size_t ps, pe, bs, be;
            if (find_tagged(s, hdr, ALTER_OPEN, ALTER_CLOSE, &ps, &pe, &bs, &be) &&
                !body_is_note(s, bs, be, true))
                views_push(vs, (view){ i, j, VIEW_ALTER, norm_key(p, p_len), 0, 0, bs, be, 0,
                                       false });
            return;
        }
        return; /* another tool's result */
    }
    size_t from = 0, ps, pe, bs, be;
    while (find_tagged(s, from, MENTION_OPEN, MENTION_CLOSE, &ps, &pe, &bs, &be)) {
        if (!body_is_note(s, bs, be, false))
            views_push(vs, (view){ i, j, VIEW_MENTION, norm_key(s + ps, pe - ps), 0, 0, bs, be,
                                   0, false });
        from = be + sizeof MENTION_CLOSE - 1;
    }
}

/* ---- deciding ------------------------------------------------------------------------------- */

static int by_key_then_order(const void *a, const void *b)
{
    const view *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_order(const void *a, const void *b)
{
    const view *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Mark the views a later view of the same file covers. */
static void decide(views *vs)
{
    if (vs->len == 0)
        return;
    qsort(vs->v, vs->len, sizeof *vs->v, by_key_then_order);
    size_t g = 0;
    while (g < vs->len) {
        size_t e = g;
        while (e < vs->len && strcmp(vs->v[e].key, vs->v[g].key) == 0)
            e++;
        bool whole_later = false;
        for (size_t k = e; k-- > g;) {
            view *v = &vs->v[k];
            bool covered = whole_later;
            for (size_t m = k + 1; !covered && m < e; m++)
                covered = vs->v[m].win_a == v->win_a && vs->v[m].win_b == v->win_b;
            v->collapse = covered;
            if (v->win_a == 0)
                whole_later = true;
        }
        g = e;
    }
    qsort(vs->v, vs->len, sizeof *vs->v, by_order);
}

/* ---- rewriting ------------------------------------------------------------------------------ */

hew_code context_collapse_reads(const json_t *history, context_range range,
                                const context_rewrites *existing, context_result_fn kinds,
                                context_rewrites *out, double *ratio)
{
    if (ratio)
        *ratio = 0;
    size_t len = json_array_size(history);
    size_t start = range.has && range.end >= 2 && range.end < len ? range.end + 1 : 2;
    views vs = { NULL, 0, 0, false };
    for (size_t i = start; i < len; i++) {
        const json_t *msg = json_array_get(history, i);
        const char *role = json_string_value(json_object_get(msg, "role"));
        if (!role || strcmp(role, "user") != 0)
            continue;
        json_t *tmp = NULL;
        json_t *blocks = api_msg_blocks(msg, &tmp);
        size_t j;
        json_t *b;
        json_array_foreach(blocks, j, b) {
            bool is_error;
            const char *s = block_text(b, existing, i, j, &is_error);
            if (s && !is_error)
                scan_block(&vs, kinds, s, i, j);
        }
        json_decref(tmp);
    }
    if (vs.oom) {
        views_release(&vs);
        return HEW_E_NOMEM;
    }
    decide(&vs);

    /* One new text per block with something to collapse; views of a block are adjacent
     * and in text order. */
    size_t saved = 0, before = out->len;
    hew_code rc = HEW_OK;
    buf nb = BUF_INIT(0);
    for (size_t k = 0; k < vs.len && rc == HEW_OK;) {
        size_t e = k;
        bool any = false;
        while (e < vs.len && vs.v[e].msg == vs.v[k].msg && vs.v[e].block == vs.v[k].block) {
            any = any || vs.v[e].collapse;
            e++;
        }
        if (!any) {
            k = e;
            continue;
        }
        const view *v0 = &vs.v[k];
        json_t *tmp = NULL;
        json_t *blocks = api_msg_blocks(json_array_get(history, v0->msg), &tmp);
        json_t *b = json_array_get(blocks, v0->block);
        bool is_error;
        const char *s = block_text(b, existing, v0->msg, v0->block, &is_error);
        size_t old_chars = seen_chars(b, existing, v0->msg, v0->block);
        json_decref(tmp);
        buf_reset(&nb);
        if (v0->kind == VIEW_READ) {
            buf_append(&nb, s, v0->start);
            buf_putc(&nb, '\n');
            buf_puts(&nb, CONTEXT_DUPLICATE_READ_NOTE);
        } else {
            size_t at = 0;
            for (size_t m = k; m < e; m++) {
                const view *v = &vs.v[m];
                if (!v->collapse)
                    continue;
                buf_append(&nb, s + at, v->start - at);
                if (v->kind == VIEW_ALTER)
                    buf_putc(&nb, ' ');
                buf_puts(&nb, CONTEXT_DUPLICATE_READ_NOTE);
                if (v->kind == VIEW_ALTER)
                    buf_putc(&nb, ' ');
                at = v->end;
            }
            buf_puts(&nb, s + at);
        }
        if (nb.err)
            rc = HEW_E_NOMEM;
        else if (old_chars <= nb.len)
            ; /* the note would not be shorter: leave the block as it is */
        else if (context_rewrites_add(out, v0->msg, v0->block, nb.data) != HEW_OK)
            rc = HEW_E_NOMEM;
        else
            saved += old_chars - nb.len;
        k = e;
    }
    buf_release(&nb);
    views_release(&vs);
    if (rc != HEW_OK) {
        while (out->len > before)
            free(out->items[--out->len].text);
        return rc;
    }
    if (ratio && saved > 0) {
        size_t total = 0;
        for (size_t i = 0; i < len; i++) {
            if (i >= 2 && i < start)
                continue;
            if (i == 1 && start > 2)
                total += strlen(CONTEXT_TRUNCATION_NOTE);
            else
                total += message_chars(json_array_get(history, i), existing, i);
        }
        *ratio = total ? (double)saved / (double)total : 0;
    }
    return HEW_OK;
}
