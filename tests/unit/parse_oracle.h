/* parse_oracle — the reference: Cline's parseAssistantMessageV2, ported literally (a
 * startsWith test of every tag at every byte, slices and trims at block ends), used as an
 * independent oracle by the parse tests, the parse fuzzer and the parse benchmark (which
 * re-runs it on every chunk, the quadratic way Cline does). It shares no code with
 * src/parse/ on purpose: its trim decodes code points; the parser matches byte patterns.
 * It must never be linked into libhew.
 *
 * Also: oracle_dump / parser_dump turn a block list into one canonical byte string (with
 * lengths, binary-safe) so that results can be compared with memcmp and printed. */
#ifndef HEW_TEST_PARSE_ORACLE_H
#define HEW_TEST_PARSE_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "parse/parser.h"

typedef struct oparam {
    char *name;
    const char *val; /* into the message */
    size_t vlen;
} oparam;

typedef struct oblock {
    bool tool, partial;
    const char *name;
    const char *text; /* into the message */
    size_t tlen;
    oparam *params;
    size_t np;
} oblock;

typedef struct oresult {
    oblock *v;
    size_t n, cap;
} oresult;

/* ---- JavaScript trim, by decoding code points ---------------------------------------- */

/* Decode one strict UTF-8 character at s[i..n): its length, or 0 when invalid. */
static inline size_t oracle_decode(const unsigned char *s, size_t n, size_t i, uint32_t *cp)
{
    unsigned char c = s[i];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (i + len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[i + k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i + k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static inline bool oracle_is_space(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

static inline void oracle_trim(const char *str, size_t from, size_t to, const char **out,
                        size_t *outlen)
{
    const unsigned char *s = (const unsigned char *)str;
    uint32_t cp;
    while (from < to) {
        size_t k = oracle_decode(s, to, from, &cp);
        if (k == 0 || !oracle_is_space(cp))
            break;
        from += k;
    }
    while (to > from) {
        size_t j = to - 1, back = 0;
        while (j > from && (s[j] & 0xC0) == 0x80 && back < 3) {
            j--;
            back++;
        }
        size_t k = oracle_decode(s, to, j, &cp);
        if (k == 0 || j + k != to || !oracle_is_space(cp))
            break;
        to = j;
    }
    *out = str + from;
    *outlen = to - from;
}

/* ---- the algorithm -------------------------------------------------------------------- */

static inline bool oracle_ends_at(const char *s, size_t len, size_t i, const char *tag, size_t tl)
{
    (void)len;
    return i + 1 >= tl && memcmp(s + i + 1 - tl, tag, tl) == 0;
}

static oblock *oracle_push(oresult *r)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 16;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        if (!r->v)
            abort();
    }
    oblock *b = &r->v[r->n++];
    memset(b, 0, sizeof *b);
    return b;
}

static inline void oracle_set_param(oblock *t, const char *name, const char *v, size_t vl)
{
    for (size_t i = 0; i < t->np; i++)
        if (strcmp(t->params[i].name, name) == 0) {
            t->params[i].val = v;
            t->params[i].vlen = vl;
            return;
        }
    t->params = realloc(t->params, (t->np + 1) * sizeof *t->params);
    if (!t->params)
        abort();
    t->params[t->np].name = (char *)name;
    t->params[t->np].val = v;
    t->params[t->np].vlen = vl;
    t->np++;
}

static inline void oracle_free(oresult *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].params);
    free(r->v);
    memset(r, 0, sizeof *r);
}

typedef struct otags {
    char **open, **close; /* "<name>", "</name>" */
    size_t *olen, *clen;
    size_t n;
} otags;

static inline otags oracle_tags(const char *const *names, size_t n)
{
    otags t = { calloc(n + 1, sizeof(char *)), calloc(n + 1, sizeof(char *)),
                calloc(n + 1, sizeof(size_t)), calloc(n + 1, sizeof(size_t)), n };
    if (!t.open || !t.close || !t.olen || !t.clen)
        abort();
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        t.open[i] = malloc(l + 3);
        t.close[i] = malloc(l + 4);
        if (!t.open[i] || !t.close[i])
            abort();
        t.olen[i] = (size_t)snprintf(t.open[i], l + 3, "<%s>", names[i]);
        t.clen[i] = (size_t)snprintf(t.close[i], l + 4, "</%s>", names[i]);
    }
    return t;
}

static inline void oracle_tags_free(otags *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->open[i]);
        free(t->close[i]);
    }
    free(t->open);
    free(t->close);
    free(t->olen);
    free(t->clen);
}

/* Literal parseAssistantMessageV2(s[0..len)). rule_tool is "write_to_file" (or NULL). The
 * result points into s and into the name arrays. Tags are built once per call (Cline keeps
 * the opening tags in Maps and builds each closing tag in a template string). */
static inline oresult oracle_parse(const char *s, size_t len, const char *const *tools, size_t ntools,
                            const char *const *params, size_t nparams, const char *rule_tool)
{
    oresult r = { 0 };
    otags tt = oracle_tags(tools, ntools), pt = oracle_tags(params, nparams);
    size_t text_start = 0, tool_start = 0, param_start = 0;
    bool cur_text = false;
    oblock cur_tool;
    bool in_tool = false;
    size_t tool_k = 0;
    const char *cur_param = NULL;
    size_t param_k = 0;
    memset(&cur_tool, 0, sizeof cur_tool);
    for (size_t i = 0; i < len; i++) {
        if (in_tool && cur_param) {
            if (oracle_ends_at(s, len, i, pt.close[param_k], pt.clen[param_k])) {
                const char *v;
                size_t vl;
                oracle_trim(s, param_start, i + 1 - pt.clen[param_k], &v, &vl);
                oracle_set_param(&cur_tool, cur_param, v, vl);
                cur_param = NULL;
            } else {
                continue;
            }
        }
        if (in_tool && !cur_param) {
            bool started = false;
            for (size_t k = 0; k < nparams; k++) {
                if (oracle_ends_at(s, len, i, pt.open[k], pt.olen[k])) {
                    cur_param = params[k];
                    param_k = k;
                    param_start = i + 1;
                    started = true;
                    break;
                }
            }
            if (started)
                continue;
            size_t tl = tt.clen[tool_k];
            if (oracle_ends_at(s, len, i, tt.close[tool_k], tl)) {
                size_t a = tool_start, b = i + 1 - tl; /* the tool's slice s[a..b) */
                if (rule_tool && strcmp(cur_tool.name, rule_tool) == 0) {
                    const char *open = "<content>", *close = "</content>";
                    size_t cs = SIZE_MAX, ce = SIZE_MAX;
                    for (size_t j = a; j + 9 <= b; j++)
                        if (memcmp(s + j, open, 9) == 0) {
                            cs = j;
                            break;
                        }
                    for (size_t j = b; j >= a + 10; j--)
                        if (memcmp(s + j - 10, close, 10) == 0) {
                            ce = j - 10;
                            break;
                        }
                    if (cs != SIZE_MAX && ce != SIZE_MAX && ce > cs) {
                        const char *v;
                        size_t vl;
                        oracle_trim(s, cs + 9, ce, &v, &vl);
                        oracle_set_param(&cur_tool, "content", v, vl);
                    }
                }
                cur_tool.partial = false;
                *oracle_push(&r) = cur_tool;
                memset(&cur_tool, 0, sizeof cur_tool);
                in_tool = false;
                text_start = i + 1;
                continue;
            }
            continue;
        }
        bool started = false;
        for (size_t k = 0; k < ntools; k++) {
            size_t tl = tt.olen[k];
            if (oracle_ends_at(s, len, i, tt.open[k], tl)) {
                const char *t;
                size_t tlen;
                oracle_trim(s, text_start, i + 1 - tl, &t, &tlen);
                if (tlen > 0) {
                    oblock *b = oracle_push(&r);
                    b->text = t;
                    b->tlen = tlen;
                    b->partial = false;
                }
                cur_text = false;
                memset(&cur_tool, 0, sizeof cur_tool);
                cur_tool.tool = true;
                cur_tool.partial = true;
                cur_tool.name = tools[k];
                tool_k = k;
                in_tool = true;
                tool_start = i + 1;
                started = true;
                break;
            }
        }
        if (started)
            continue;
        if (!cur_text) {
            text_start = i;
            cur_text = true;
        }
    }
    if (in_tool && cur_param) {
        const char *v;
        size_t vl;
        oracle_trim(s, param_start, len, &v, &vl);
        oracle_set_param(&cur_tool, cur_param, v, vl);
    }
    if (in_tool) {
        *oracle_push(&r) = cur_tool;
    } else if (cur_text) {
        const char *t;
        size_t tlen;
        oracle_trim(s, text_start, len, &t, &tlen);
        if (tlen > 0) {
            oblock *b = oracle_push(&r);
            b->text = t;
            b->tlen = tlen;
            b->partial = true;
        }
    }
    oracle_tags_free(&tt);
    oracle_tags_free(&pt);
    return r;
}

/* ---- canonical dumps ------------------------------------------------------------------- */

static inline void dump_field(buf *b, const char *s, size_t n)
{
    buf_printf(b, "%zu:", n);
    buf_append(b, s, n);
    buf_putc(b, '|');
}

/* skip_param: a parameter name whose value is left out (NULL for none). */
static inline void oracle_dump_block(buf *b, const oblock *x, const char *skip_param)
{
    if (!x->tool) {
        buf_puts(b, x->partial ? "text~" : "text.");
        dump_field(b, x->text, x->tlen);
    } else {
        buf_puts(b, x->partial ? "tool~" : "tool.");
        dump_field(b, x->name, strlen(x->name));
        for (size_t i = 0; i < x->np; i++) {
            dump_field(b, x->params[i].name, strlen(x->params[i].name));
            if (skip_param && strcmp(skip_param, x->params[i].name) == 0)
                buf_puts(b, "*|");
            else
                dump_field(b, x->params[i].val, x->params[i].vlen);
        }
    }
    buf_putc(b, '\n');
}

static inline void oracle_dump(buf *b, const oresult *r)
{
    for (size_t i = 0; i < r->n; i++)
        oracle_dump_block(b, &r->v[i], NULL);
}

static inline void parser_dump_block(buf *b, const block *x, const char *skip_param)
{
    if (x->type == BLOCK_TEXT || x->type == BLOCK_REASONING) {
        buf_puts(b, x->type == BLOCK_REASONING ? "reasoning" : "text");
        buf_puts(b, x->partial ? "~" : ".");
        size_t n;
        const char *t = block_text(x, &n);
        dump_field(b, t, n);
    } else {
        buf_puts(b, x->partial ? "tool~" : "tool.");
        dump_field(b, x->name ? x->name : "", x->name ? strlen(x->name) : 0);
        for (size_t i = 0; i < x->nparams; i++) {
            const char *nm = block_param_name(x, i);
            dump_field(b, nm, strlen(nm));
            if (skip_param && strcmp(skip_param, nm) == 0) {
                buf_puts(b, "*|");
            } else {
                size_t n;
                const char *v = block_param_value(x, i, &n);
                dump_field(b, v, n);
            }
        }
        if (x->args_error)
            buf_printf(b, "error:%s|", x->args_error);
    }
    buf_putc(b, '\n');
}

static inline void parser_dump(buf *b, const parser *p)
{
    for (size_t i = 0; i < parser_count(p); i++)
        parser_dump_block(b, parser_block(p, i), NULL);
}

/* Print a dump with control bytes escaped (for failure messages). */
static inline void dump_print(FILE *f, const char *label, const buf *b)
{
    fprintf(f, "%s:\n  ", label);
    for (size_t i = 0; i < b->len; i++) {
        unsigned char c = (unsigned char)b->data[i];
        if (c == '\n')
            fputs("\n  ", f);
        else if (c < 0x20 || c == 0x7F)
            fprintf(f, "\\x%02X", c);
        else
            fputc(c, f);
    }
    fputc('\n', f);
}

#endif
