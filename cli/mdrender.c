/* mdrender — markdown to terminal lines with md4c (see mdrender.h). Renders into a
 * buffer; never writes to the terminal, never moves the cursor, never re-parses what the
 * caller already rendered (it is given finished blocks only). */
#include "mdrender.h"

#include <md4c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdtable.h"
#include "syntax.h"
#include "textw.h"

#define MDR_DEPTH 32

enum { C_QUOTE, C_UL, C_OL, C_LI };

struct container {
    int type;
    unsigned next;      /* C_OL: the next item's number */
    char bullet[48];    /* C_LI: printed on the item's first line, then spaces */
    int bullet_done;
    size_t indent;      /* C_LI: columns of the bullet */
};

struct cell {
    sbuf text;
    size_t row;
    int align; /* MD_ALIGN */
    int head;
};

struct mdr {
    sbuf *out;
    const mdr_opts *o;
    size_t width;
    struct container stack[MDR_DEPTH];
    int depth;
    int at_line_start;
    size_t col;
    int pending_space;
    int need_blank;
    int *first;
    /* styles */
    int strong, em, code, link, del, heading, in_code_block, in_quote;
    /* tables */
    struct cell *cells;
    size_t ncells, capcells, row;
    int in_table, in_cell, cell_head, cell_align;
    /* a code block: its text, kept until it ends, and its language */
    sbuf code_text;
    const syn_lang *lang;
    char label[32];
    int go_on, go_on_state; /* the first block goes on from lines shown before (opts.open) */
    const char *link_href;
    size_t link_href_len;
};

static void put_style(struct mdr *m, sbuf *to)
{
    if (!m->o->color)
        return;
    sbuf_puts(to, "\033[0m");
    if (m->o->base)
        sbuf_puts(to, m->o->base);
    if (m->strong || m->heading || (m->in_cell && m->cell_head))
        sbuf_puts(to, "\033[1m");
    if (m->em)
        sbuf_puts(to, "\033[3m");
    if (m->del)
        sbuf_puts(to, "\033[9m");
    if (m->link)
        sbuf_puts(to, "\033[4;34m");
    if (m->heading == 1)
        sbuf_puts(to, "\033[4;35m");
    else if (m->heading == 2)
        sbuf_puts(to, "\033[35m");
    if (m->code || (m->in_code_block && !m->lang))
        sbuf_puts(to, "\033[36m");
    if (m->in_quote && !m->code)
        sbuf_puts(to, "\033[2m");
}

static void reset_style(struct mdr *m)
{
    if (m->o->color)
        sbuf_puts(m->out, "\033[0m");
}

/* Start a line: the prefixes of every open container (quote bars, bullets, indents). */
static void line_start(struct mdr *m)
{
    if (!m->at_line_start)
        return;
    m->at_line_start = 0;
    m->col = 0;
    for (int i = 0; i < m->depth; i++) {
        struct container *c = &m->stack[i];
        if (c->type == C_QUOTE) {
            if (m->o->color)
                sbuf_puts(m->out, "\033[0;2m");
            sbuf_puts(m->out, "│ ");
            m->col += 2;
        } else if (c->type == C_LI) {
            if (!c->bullet_done) {
                if (m->o->color)
                    sbuf_puts(m->out, "\033[0;33m");
                sbuf_puts(m->out, c->bullet);
                c->bullet_done = 1;
            } else {
                sbuf_repeat(m->out, " ", c->indent);
            }
            m->col += c->indent;
        }
    }
    put_style(m, m->out);
}

static void end_line(struct mdr *m)
{
    if (!m->at_line_start) {
        reset_style(m);
        sbuf_putc(m->out, '\n');
        m->at_line_start = 1;
        m->col = 0;
    }
    m->pending_space = 0;
}

/* Before a block: finish the line, and a blank line between top-level blocks. */
static void block_gap(struct mdr *m)
{
    end_line(m);
    if (m->need_blank) {
        if (!*m->first)
            sbuf_putc(m->out, '\n');
        m->need_blank = 0;
    }
    *m->first = 0;
}

static void put_word(struct mdr *m, const char *w, size_t n)
{
    size_t ww = textw_width(w, n);
    if (m->at_line_start) {
        line_start(m);
    } else if (m->pending_space) {
        if (m->col + 1 + ww > m->width) {
            end_line(m);
            line_start(m);
        } else {
            sbuf_putc(m->out, ' ');
            m->col++;
        }
    }
    m->pending_space = 0;
    sbuf_add(m->out, w, n);
    m->col += ww;
}

/* Paragraph text: words wrapped at the width. */
static void put_flow(struct mdr *m, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
            if (!m->at_line_start)
                m->pending_space = 1;
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && s[j] != ' ' && s[j] != '\t' && s[j] != '\n')
            j++;
        put_word(m, s + i, j - i);
        i = j;
    }
}

/* Code block text: kept as is, line by line, indented under the current prefixes. */
static void put_code(struct mdr *m, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
        if (len) {
            if (m->at_line_start) {
                line_start(m);
                sbuf_puts(m->out, "  ");
            }
            sbuf_add(m->out, s + i, len);
        }
        i += len;
        if (nl) {
            if (m->at_line_start) { /* an empty line of code */
                line_start(m);
            }
            end_line(m);
            i++;
        }
    }
}

static void text_out(struct mdr *m, const char *s, size_t n)
{
    if (m->in_cell) {
        struct cell *c = &m->cells[m->ncells - 1];
        for (size_t i = 0; i < n; i++)
            sbuf_putc(&c->text, s[i] == '\n' ? ' ' : s[i]);
        return;
    }
    if (m->in_code_block == 2)
        sbuf_add(&m->code_text, s, n);
    else if (m->in_code_block)
        put_code(m, s, n);
    else
        put_flow(m, s, n);
}

static void style_changed(struct mdr *m)
{
    if (m->in_cell) {
        put_style(m, &m->cells[m->ncells - 1].text);
        return;
    }
    if (!m->at_line_start)
        put_style(m, m->out);
}

static int push(struct mdr *m, int type)
{
    if (m->depth >= MDR_DEPTH)
        return -1;
    memset(&m->stack[m->depth], 0, sizeof m->stack[0]);
    m->stack[m->depth].type = type;
    m->depth++;
    return 0;
}

static struct container *innermost(struct mdr *m, int type)
{
    for (int i = m->depth - 1; i >= 0; i--)
        if (m->stack[i].type == type)
            return &m->stack[i];
    return NULL;
}

static int add_cell(struct mdr *m, int head, int align)
{
    if (m->ncells == m->capcells) {
        size_t cap = m->capcells ? m->capcells * 2 : 16;
        struct cell *p = realloc(m->cells, cap * sizeof *p);
        if (!p)
            return -1;
        m->cells = p;
        m->capcells = cap;
    }
    struct cell *c = &m->cells[m->ncells++];
    memset(c, 0, sizeof *c);
    c->row = m->row;
    c->head = head;
    c->align = align;
    return 0;
}

/* The columns the open containers' prefixes take (quote bars, list indents). */
static size_t prefix_cols(const struct mdr *m)
{
    size_t cols = 0;
    for (int i = 0; i < m->depth; i++)
        cols += m->stack[i].type == C_QUOTE ? 2 : m->stack[i].type == C_LI ? m->stack[i].indent : 0;
    return cols;
}

/* Lines already laid out (each ending with "\n"), each under the containers' prefixes. */
static void put_lines(struct mdr *m, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
        m->at_line_start = 1;
        line_start(m);
        reset_style(m);
        sbuf_add(m->out, s + i, len);
        sbuf_putc(m->out, '\n');
        m->at_line_start = 1;
        i += len + 1;
    }
}

static void table_flush(struct mdr *m)
{
    mdt_cell *cells = calloc(m->ncells ? m->ncells : 1, sizeof *cells);
    if (!cells) {
        m->out->err = 1;
        return;
    }
    for (size_t i = 0; i < m->ncells; i++) {
        struct cell *c = &m->cells[i];
        cells[i].text = c->text.data ? c->text.data : "";
        cells[i].len = c->text.len;
        cells[i].row = c->row;
        cells[i].head = c->head;
        cells[i].align = c->align == MD_ALIGN_RIGHT    ? MDT_RIGHT
                         : c->align == MD_ALIGN_CENTER ? MDT_CENTER
                                                       : MDT_LEFT;
    }
    size_t pre = prefix_cols(m);
    sbuf lines = SBUF_INIT;
    mdt_render(&lines, cells, m->ncells, m->width > pre + 10 ? m->width - pre : 10, m->o->color);
    if (lines.err)
        m->out->err = 1;
    else
        put_lines(m, lines.data ? lines.data : "", lines.len);
    sbuf_release(&lines);
    free(cells);
    for (size_t k = 0; k < m->ncells; k++)
        sbuf_release(&m->cells[k].text);
    m->ncells = 0;
    m->row = 0;
}

/* A fence's language s[0..n) as a label of a few safe characters (cap >= 1), and the
 * highlighter's language for it (the label then its name), or NULL. */
static const syn_lang *lang_label(const char *s, size_t n, char *label, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              (c && strchr("+#._-", c))))
            break;
        label[k++] = c;
    }
    label[k] = '\0';
    const syn_lang *l = syn_find(label, k);
    if (l)
        snprintf(label, cap, "%s", syn_name(l));
    return l;
}

static void code_lang(struct mdr *m, const MD_BLOCK_CODE_DETAIL *d)
{
    m->label[0] = '\0';
    m->lang = NULL;
    if (d && d->lang.text)
        m->lang = lang_label(d->lang.text, d->lang.size, m->label, sizeof m->label);
}

/* A finished code block: its language on a dim line above, then its lines, indented and
 * (colour on, language known) highlighted. */
static void code_flush(struct mdr *m)
{
    const char *s = m->code_text.data ? m->code_text.data : "";
    size_t n = m->code_text.len;
    int state = 0;
    if (m->go_on) { /* its label and first lines are on the screen already */
        state = m->go_on_state;
        m->go_on = 0;
    } else if (m->label[0]) {
        line_start(m);
        if (m->o->color)
            sbuf_puts(m->out, "\033[0;2m");
        sbuf_printf(m->out, "  ── %s", m->label);
        end_line(m);
    }
    char plain[96];
    snprintf(plain, sizeof plain, "\033[0m%s", m->o->base ? m->o->base : "");
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
        line_start(m);
        sbuf_puts(m->out, "  ");
        if (m->lang && m->o->color)
            syn_line(m->out, m->lang, s + i, len, &state, plain);
        else
            sbuf_add(m->out, s + i, len);
        end_line(m);
        i += len + 1;
    }
    sbuf_reset(&m->code_text);
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    struct mdr *m = ud;
    switch (type) {
    case MD_BLOCK_DOC:
        break;
    case MD_BLOCK_QUOTE:
        block_gap(m);
        push(m, C_QUOTE);
        m->in_quote++;
        break;
    case MD_BLOCK_UL:
        block_gap(m);
        push(m, C_UL);
        break;
    case MD_BLOCK_OL: {
        block_gap(m);
        push(m, C_OL);
        m->stack[m->depth - 1].next = ((MD_BLOCK_OL_DETAIL *)detail)->start;
        break;
    }
    case MD_BLOCK_LI: {
        end_line(m);
        MD_BLOCK_LI_DETAIL *d = detail;
        struct container *ol = m->depth ? &m->stack[m->depth - 1] : NULL;
        char bullet[24];
        if (ol && ol->type == C_OL)
            snprintf(bullet, sizeof bullet, "%u. ", ol->next++);
        else
            snprintf(bullet, sizeof bullet, "• ");
        if (push(m, C_LI) != 0)
            break;
        struct container *li = &m->stack[m->depth - 1];
        size_t used = (size_t)snprintf(li->bullet, sizeof li->bullet, "%s%s", bullet,
                                       d->is_task ? (d->task_mark == ' ' ? "☐ " : "☑ ") : "");
        (void)used;
        li->indent = textw_width(li->bullet, strlen(li->bullet));
        break;
    }
    case MD_BLOCK_HR:
        block_gap(m);
        line_start(m);
        if (m->o->color)
            sbuf_puts(m->out, "\033[0;2m");
        sbuf_repeat(m->out, "─", m->width > m->col ? (m->width - m->col) : 3);
        end_line(m);
        break;
    case MD_BLOCK_H:
        block_gap(m);
        m->heading = (int)((MD_BLOCK_H_DETAIL *)detail)->level;
        break;
    case MD_BLOCK_CODE:
        block_gap(m);
        code_lang(m, detail);
        m->in_code_block = 2;
        sbuf_reset(&m->code_text);
        break;
    case MD_BLOCK_HTML:
        block_gap(m);
        m->in_code_block = 1;
        break;
    case MD_BLOCK_P:
        if (m->depth == 0 || m->stack[m->depth - 1].type == C_QUOTE)
            block_gap(m);
        else if (!m->at_line_start)
            end_line(m);
        break;
    case MD_BLOCK_TABLE:
        block_gap(m);
        m->in_table = 1;
        m->ncells = 0;
        m->row = 0;
        break;
    case MD_BLOCK_THEAD:
    case MD_BLOCK_TBODY:
        break;
    case MD_BLOCK_TR:
        break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        if (add_cell(m, type == MD_BLOCK_TH, ((MD_BLOCK_TD_DETAIL *)detail)->align) == 0) {
            m->in_cell = 1;
            m->cell_head = type == MD_BLOCK_TH;
        }
        break;
    }
    return 0;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    (void)detail;
    struct mdr *m = ud;
    switch (type) {
    case MD_BLOCK_DOC:
        end_line(m);
        break;
    case MD_BLOCK_QUOTE:
        end_line(m);
        if (m->depth)
            m->depth--;
        m->in_quote--;
        m->need_blank = 1;
        break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        end_line(m);
        if (m->depth)
            m->depth--;
        if (!innermost(m, C_LI))
            m->need_blank = 1;
        break;
    case MD_BLOCK_LI:
        end_line(m);
        if (m->depth)
            m->depth--;
        break;
    case MD_BLOCK_H:
        end_line(m);
        m->heading = 0;
        m->need_blank = 1;
        break;
    case MD_BLOCK_CODE:
        end_line(m);
        code_flush(m);
        m->in_code_block = 0;
        m->lang = NULL;
        m->need_blank = 1;
        break;
    case MD_BLOCK_HTML:
        end_line(m);
        m->in_code_block = 0;
        m->need_blank = 1;
        break;
    case MD_BLOCK_P:
        end_line(m);
        m->need_blank = 1;
        break;
    case MD_BLOCK_HR:
        m->need_blank = 1;
        break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        m->in_cell = 0;
        break;
    case MD_BLOCK_TR:
        m->row++;
        break;
    case MD_BLOCK_TABLE:
        table_flush(m);
        m->in_table = 0;
        m->need_blank = 1;
        break;
    default:
        break;
    }
    return 0;
}

static int enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
    struct mdr *m = ud;
    switch (type) {
    case MD_SPAN_STRONG:
        m->strong++;
        break;
    case MD_SPAN_EM:
        m->em++;
        break;
    case MD_SPAN_CODE:
        m->code++;
        break;
    case MD_SPAN_DEL:
        m->del++;
        break;
    case MD_SPAN_A: {
        MD_SPAN_A_DETAIL *d = detail;
        m->link++;
        m->link_href = d->href.text;
        m->link_href_len = d->href.size;
        break;
    }
    default:
        return 0;
    }
    style_changed(m);
    return 0;
}

static int leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
    (void)detail;
    struct mdr *m = ud;
    switch (type) {
    case MD_SPAN_STRONG:
        m->strong--;
        break;
    case MD_SPAN_EM:
        m->em--;
        break;
    case MD_SPAN_CODE:
        m->code--;
        break;
    case MD_SPAN_DEL:
        m->del--;
        break;
    case MD_SPAN_A:
        m->link--;
        style_changed(m);
        if (m->link_href && m->link_href_len && !m->in_cell) {
            /* the target, dimmed, unless the text already was the address */
            sbuf tmp = SBUF_INIT;
            if (m->o->color)
                sbuf_puts(&tmp, "\033[2m");
            sbuf_puts(&tmp, "(");
            sbuf_add(&tmp, m->link_href, m->link_href_len);
            sbuf_puts(&tmp, ")");
            m->pending_space = 1;
            if (!tmp.err)
                put_word(m, tmp.data, tmp.len);
            sbuf_release(&tmp);
        }
        m->link_href = NULL;
        break;
    default:
        return 0;
    }
    style_changed(m);
    return 0;
}

static const struct {
    const char *name, *text;
} entities[] = {
    { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
    { "&apos;", "'" }, { "&nbsp;", " " }, { "&#39;", "'" },
};

static int text_cb(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *ud)
{
    struct mdr *m = ud;
    switch (type) {
    case MD_TEXT_NULLCHAR:
        text_out(m, "\xEF\xBF\xBD", 3);
        break;
    case MD_TEXT_BR:
        if (m->in_cell)
            text_out(m, " ", 1);
        else
            end_line(m);
        break;
    case MD_TEXT_SOFTBR:
        if (m->in_code_block)
            text_out(m, "\n", 1);
        else if (m->in_cell)
            text_out(m, " ", 1);
        else if (!m->at_line_start)
            m->pending_space = 1;
        break;
    case MD_TEXT_ENTITY:
        for (size_t i = 0; i < sizeof entities / sizeof entities[0]; i++)
            if (strlen(entities[i].name) == n && memcmp(entities[i].name, s, n) == 0) {
                text_out(m, entities[i].text, strlen(entities[i].text));
                return 0;
            }
        text_out(m, s, n);
        break;
    case MD_TEXT_CODE:
        if (m->in_code_block) {
            text_out(m, s, n);
        } else if (m->in_cell) {
            text_out(m, s, n);
        } else {
            /* inline code: keep its spaces, but it may still start a new line */
            if (m->at_line_start || m->pending_space) {
                int was = m->pending_space;
                size_t w = textw_width(s, n);
                if (m->at_line_start)
                    line_start(m);
                else if (was && m->col + 1 + w > m->width) {
                    end_line(m);
                    line_start(m);
                } else if (was) {
                    sbuf_putc(m->out, ' ');
                    m->col++;
                }
                m->pending_space = 0;
            }
            sbuf_add(m->out, s, n);
            m->col += textw_width(s, n);
        }
        break;
    default:
        text_out(m, s, n);
        break;
    }
    return 0;
}

int mdr_render(sbuf *out, const char *text, size_t n, const mdr_opts *o, int *first)
{
    struct mdr m;
    memset(&m, 0, sizeof m);
    m.out = out;
    m.o = o;
    m.width = o->width < 20 ? 20 : o->width;
    m.at_line_start = 1;
    m.first = first;
    m.need_blank = 1;
    MD_PARSER p;
    memset(&p, 0, sizeof p);
    p.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS |
              MD_FLAG_PERMISSIVEAUTOLINKS | MD_FLAG_NOHTMLSPANS;
    p.enter_block = enter_block;
    p.leave_block = leave_block;
    p.enter_span = enter_span;
    p.leave_span = leave_span;
    p.text = text_cb;
    size_t start = out->len;
    sbuf reopened = SBUF_INIT;
    if (o->open && o->open->fence) { /* the text starts inside a block: open it again */
        int len = o->open->fence >> 8;
        char ch[2] = { (char)(o->open->fence & 0xff), '\0' };
        sbuf_repeat(&reopened, ch, (size_t)(len > 60 ? 60 : len));
        sbuf_printf(&reopened, "%s\n", o->open->lang);
        sbuf_add(&reopened, text, n);
        if (reopened.err) {
            sbuf_release(&reopened);
            out->err = 1;
            return -1;
        }
        text = reopened.data;
        n = reopened.len;
        m.go_on = 1;
        m.go_on_state = o->open->state;
        m.need_blank = 0; /* it goes on: no gap */
    }
    int rc = md_parse(text, (MD_SIZE)n, &p, &m);
    for (size_t k = 0; k < m.ncells; k++)
        sbuf_release(&m.cells[k].text);
    free(m.cells);
    sbuf_release(&m.code_text);
    if (rc != 0) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
        sbuf_add(out, text, n);
        if (n && text[n - 1] != '\n')
            sbuf_putc(out, '\n');
        sbuf_release(&reopened);
        return -1;
    }
    sbuf_release(&reopened);
    if (o->color && out->len > start)
        sbuf_puts(out, "\033[0m");
    return 0;
}

char *mdr_text(const char *text, size_t width, int color)
{
    sbuf out = SBUF_INIT;
    mdr_opts o = { width, color, NULL, NULL };
    int first = 1;
    mdr_render(&out, text, strlen(text), &o, &first);
    for (;;) { /* no newline at the end, nor the resets before it */
        if (out.len && out.data[out.len - 1] == '\n')
            out.len--;
        else if (color && out.len >= 4 && memcmp(out.data + out.len - 4, "\033[0m", 4) == 0)
            out.len -= 4;
        else
            break;
    }
    sbuf_add(&out, "\033[0m", color ? 4 : 0); /* and the string's end after the cut */
    return sbuf_detach(&out);
}

/* The fence of a line: its character and length packed as (len << 8 | ch), or 0. */
static int fence_of(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && i < 3 && s[i] == ' ')
        i++;
    if (i >= n || (s[i] != '`' && s[i] != '~'))
        return 0;
    char ch = s[i];
    size_t k = i;
    while (k < n && s[k] == ch)
        k++;
    if (k - i < 3)
        return 0;
    if (ch == '`' && memchr(s + k, '`', n - k))
        return 0; /* an opening backtick fence has no backtick in its info string */
    return (int)((k - i) << 8) | ch;
}

size_t mdr_stable_end(const char *text, size_t n, size_t from, int *fence)
{
    size_t best = from;
    int state = *fence, best_state = *fence;
    size_t i = from;
    while (i < n) {
        const char *nl = memchr(text + i, '\n', n - i);
        if (!nl)
            break; /* the last line is still growing */
        size_t len = (size_t)(nl - (text + i));
        const char *line = text + i;
        int f = fence_of(line, len);
        if (state) {
            /* a closing fence: same character, at least as long, nothing after */
            if (f && (f & 0xff) == (state & 0xff) && (f >> 8) >= (state >> 8)) {
                size_t k = 0;
                while (k < len && (line[k] == ' ' || line[k] == (char)(state & 0xff)))
                    k++;
                if (k == len) {
                    state = 0;
                    best = i + len + 1; /* the code block is finished */
                    best_state = 0;
                }
            }
        } else if (f) {
            state = f;
        } else {
            int blank = 1;
            for (size_t k = 0; k < len; k++)
                if (line[k] != ' ' && line[k] != '\t' && line[k] != '\r')
                    blank = 0;
            if (blank && i > from) {
                best = i + len + 1;
                best_state = state;
            }
        }
        i += len + 1;
    }
    *fence = best_state;
    return best;
}

void mdr_render_open(sbuf *out, const char *text, size_t n, const mdr_opts *o, mdr_open *op,
                     int *first)
{
    if (n && !op->begun) { /* a new block: apart from the one before */
        if (!*first)
            sbuf_putc(out, '\n');
        *first = 0;
        op->begun = 1;
    }
    const char *reset = o->color ? "\033[0m" : "";
    char plain[96];
    snprintf(plain, sizeof plain, "\033[0m%s", o->base ? o->base : "");
    for (size_t i = 0; i < n;) {
        const char *line = text + i, *nl = memchr(line, '\n', n - i);
        size_t len = nl ? (size_t)(nl - line) : n - i;
        i += len + 1;
        int before = op->fence;
        op->fence = mdr_fence_after(line, 0, len, op->fence);
        if (!before && op->fence) { /* a fence line: the block's label, as mdr_render shows it */
            size_t k = 0;
            while (k < len && (line[k] == ' ' || line[k] == (char)(op->fence & 0xff)))
                k++;
            const syn_lang *l = lang_label(line + k, len - k, op->lang, sizeof op->lang);
            (void)l;
            op->state = 0;
            if (op->lang[0])
                sbuf_printf(out, "%s  ── %s%s\n", o->color ? "\033[0;2m" : "", op->lang, reset);
        } else if (before && !op->fence) { /* its closing fence: nothing to show */
            op->state = 0;
        } else if (op->fence) { /* a line of code */
            const syn_lang *l = syn_find(op->lang, strlen(op->lang));
            sbuf_puts(out, o->color ? plain : "");
            sbuf_puts(out, o->color && !l ? "\033[36m" : "");
            sbuf_puts(out, "  ");
            if (l && o->color)
                syn_line(out, l, line, len, &op->state, plain);
            else
                sbuf_add(out, line, len);
            sbuf_printf(out, "%s\n", reset);
        } else { /* outside a block: as it is */
            sbuf_printf(out, "%s%.*s%s\n", o->color && o->base ? o->base : "", (int)len, line,
                        o->color && o->base ? reset : "");
        }
    }
}

int mdr_fence_after(const char *text, size_t from, size_t to, int fence)
{
    size_t i = from;
    while (i < to) {
        const char *nl = memchr(text + i, '\n', to - i);
        size_t len = nl ? (size_t)(nl - (text + i)) : to - i;
        int f = fence_of(text + i, len);
        if (fence) {
            if (f && (f & 0xff) == (fence & 0xff) && (f >> 8) >= (fence >> 8)) {
                size_t k = 0;
                while (k < len && (text[i + k] == ' ' || text[i + k] == (char)(fence & 0xff)))
                    k++;
                if (k == len)
                    fence = 0;
            }
        } else if (f) {
            fence = f;
        }
        i += len + 1;
    }
    return fence;
}
