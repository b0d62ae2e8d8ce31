/* mdtable — markdown tables fitted to a width (see mdtable.h): measure the columns,
 * shrink the widest first, wrap each cell in its column, or fall back to a list. */
#include "mdtable.h"

#include <stdlib.h>
#include <string.h>

#include "textw.h"

#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RESET "\033[0m"

/* A wrapper filling lines of one cell: it reopens, on every line, the bold of a header and
 * the SGR codes in force where the last line ended, and closes each line with a reset. */
struct wrap {
    sbuf *out;
    sbuf state;       /* the SGR codes since the last reset */
    const char *open; /* written first on every line */
    const char *indent; /* written after `open` on every line but the first */
    size_t width, col, lines;
    size_t lead; /* the column where the current line's text starts */
    int color;
};

static void wrap_begin(struct wrap *w)
{
    sbuf_puts(w->out, w->open);
    if (w->lines)
        sbuf_puts(w->out, w->indent);
    if (w->state.len)
        sbuf_add(w->out, w->state.data, w->state.len);
    w->col = w->lines ? textw_width(w->indent, strlen(w->indent)) : 0;
    w->lead = w->col;
    w->lines++;
}

static void wrap_newline(struct wrap *w)
{
    if (w->color)
        sbuf_puts(w->out, RESET);
    sbuf_putc(w->out, '\n');
    wrap_begin(w);
}

/* Copy s[0..n) (a word or a piece of one), keeping track of its escape sequences. */
static void wrap_copy(struct wrap *w, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (s[i] != '\033') {
            size_t j = i;
            while (j < n && s[j] != '\033')
                j++;
            sbuf_add(w->out, s + i, j - i);
            i = j;
            continue;
        }
        size_t e = textw_escape_len(s + i, n - i);
        sbuf_add(w->out, s + i, e);
        if ((e == 4 && memcmp(s + i, "\033[0m", 4) == 0) ||
            (e == 3 && memcmp(s + i, "\033[m", 3) == 0))
            sbuf_reset(&w->state);
        else
            sbuf_add(&w->state, s + i, e);
        i += e;
    }
}

/* A word wider than the line: cut between characters. */
static void wrap_break(struct wrap *w, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (s[i] == '\033') {
            size_t e = textw_escape_len(s + i, n - i);
            wrap_copy(w, s + i, e);
            i += e;
            continue;
        }
        int cols;
        size_t len = textw_char(s + i, n - i, &cols);
        if (w->col + (size_t)cols > w->width && w->col > w->lead)
            wrap_newline(w);
        wrap_copy(w, s + i, len);
        w->col += (size_t)cols;
        i += len;
    }
}

/* Wrap s[0..n) (one line of words) at w->width; the lines go to w->out, each but the last
 * ending with "\n" (the caller ends the last). */
static void wrap_text(struct wrap *w, const char *s, size_t n)
{
    int space = 0;
    wrap_begin(w);
    for (size_t i = 0; i < n;) {
        if (s[i] == ' ') {
            space = 1;
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && s[j] != ' ')
            j++;
        size_t ww = textw_width(s + i, j - i);
        if (ww == 0) { /* only escape sequences */
            wrap_copy(w, s + i, j - i);
        } else if (ww <= w->width || w->col > w->lead) {
            size_t gap = space && w->col > w->lead ? 1 : 0;
            if (w->col > w->lead && w->col + gap + ww > w->width) {
                wrap_newline(w);
                gap = 0;
            }
            if (gap) {
                sbuf_putc(w->out, ' ');
                w->col++;
            }
            if (w->col + ww <= w->width) {
                wrap_copy(w, s + i, j - i);
                w->col += ww;
            } else {
                wrap_break(w, s + i, j - i);
            }
        } else {
            wrap_break(w, s + i, j - i);
        }
        if (ww)
            space = 0;
        i = j;
    }
    if (w->color)
        sbuf_puts(w->out, RESET);
}

/* Wrap one cell into out (lines separated by "\n", none after the last); the line count. */
static size_t wrap_cell(sbuf *out, const mdt_cell *c, size_t width, int color)
{
    struct wrap w = { .out = out, .open = c && c->head && color ? BOLD : "", .indent = "",
                      .width = width, .color = color };
    if (c)
        wrap_text(&w, c->text, c->len);
    else
        wrap_begin(&w);
    sbuf_release(&w.state);
    return w.lines;
}

/* The next line of a wrapped cell at *pos (moved past it), its length in *len. */
static const char *next_line(const sbuf *b, size_t *pos, size_t *len)
{
    if (!b->data || *pos >= b->len) {
        *len = 0;
        return "";
    }
    const char *s = b->data + *pos;
    const char *nl = memchr(s, '\n', b->len - *pos);
    *len = nl ? (size_t)(nl - s) : b->len - *pos;
    *pos += *len + 1;
    return s;
}

struct table {
    const mdt_cell *cells;
    size_t n, ncols, nrows;
    size_t *first; /* first[r]: the index of row r's first cell; first[nrows] == n */
};

static const mdt_cell *cell_at(const struct table *t, size_t r, size_t k)
{
    return t->first[r] + k < t->first[r + 1] ? &t->cells[t->first[r] + k] : NULL;
}

static int row_is_head(const struct table *t, size_t r)
{
    for (size_t i = t->first[r]; i < t->first[r + 1]; i++)
        if (t->cells[i].head)
            return 1;
    return 0;
}

/* The width of the widest word of s[0..n). */
static size_t longest_word(const char *s, size_t n)
{
    size_t best = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != ' ')
            j++;
        size_t w = textw_width(s + i, j - i);
        if (w > best)
            best = w;
        i = j + 1;
    }
    return best;
}

/* Column widths that fit avail, the widest shrunk first: 0, or -1 when a column squeezed
 * would be narrower than MDT_MIN_COL and would break a word (word[k]: its widest). */
static int fit(const size_t *nat, const size_t *word, size_t ncols, size_t avail, size_t *w)
{
    size_t sum = 0, max = 1;
    for (size_t k = 0; k < ncols; k++) {
        w[k] = nat[k] ? nat[k] : 1;
        sum += w[k];
        if (w[k] > max)
            max = w[k];
    }
    if (sum <= avail)
        return 0;
    size_t lo = 0, hi = max; /* the largest cap whose capped sum fits */
    while (lo < hi) {
        size_t cap = lo + (hi - lo + 1) / 2, s = 0;
        for (size_t k = 0; k < ncols; k++)
            s += w[k] < cap ? w[k] : cap;
        if (s <= avail)
            lo = cap;
        else
            hi = cap - 1;
    }
    size_t cap = lo;
    if (cap < 2) /* a wide character must fit */
        return -1;
    for (size_t k = 0; k < ncols; k++)
        if (w[k] > cap && cap + 1 < MDT_MIN_COL && cap + 1 < word[k])
            return -1;
    size_t used = 0;
    for (size_t k = 0; k < ncols; k++)
        used += w[k] < cap ? w[k] : cap;
    size_t extra = avail - used;
    for (size_t k = 0; k < ncols; k++) {
        int capped = w[k] > cap;
        if (capped)
            w[k] = cap;
        if (capped && extra) {
            w[k]++;
            extra--;
        }
    }
    return 0;
}

static void grid(sbuf *out, const struct table *t, const size_t *w, int color)
{
    sbuf *wb = calloc(t->ncols, sizeof *wb);
    size_t *pos = calloc(t->ncols, sizeof *pos);
    if (!wb || !pos) {
        free(wb);
        free(pos);
        out->err = 1;
        return;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        size_t lines = 1;
        for (size_t k = 0; k < t->ncols; k++) {
            sbuf_reset(&wb[k]);
            pos[k] = 0;
            size_t l = wrap_cell(&wb[k], cell_at(t, r, k), w[k], color);
            if (l > lines)
                lines = l;
        }
        for (size_t li = 0; li < lines; li++) {
            for (size_t k = 0; k < t->ncols; k++) {
                const mdt_cell *c = cell_at(t, r, k);
                size_t len;
                const char *s = next_line(&wb[k], &pos[k], &len);
                size_t lw = textw_width(s, len);
                size_t room = w[k] > lw ? w[k] - lw : 0, left = 0;
                if (c && c->align == MDT_RIGHT)
                    left = room;
                else if (c && c->align == MDT_CENTER)
                    left = room / 2;
                if (k) /* no blank at the end of a line */
                    sbuf_puts(out, color ? " " DIM "│" RESET : " │");
                if (k && (len || k + 1 < t->ncols))
                    sbuf_putc(out, ' ');
                sbuf_repeat(out, " ", left);
                sbuf_add(out, s, len);
                if (k + 1 < t->ncols)
                    sbuf_repeat(out, " ", room - left);
            }
            sbuf_putc(out, '\n');
        }
        if (row_is_head(t, r)) {
            if (color)
                sbuf_puts(out, DIM);
            for (size_t k = 0; k < t->ncols; k++) {
                if (k)
                    sbuf_puts(out, "─┼─");
                sbuf_repeat(out, "─", w[k]);
            }
            if (color)
                sbuf_puts(out, RESET);
            sbuf_putc(out, '\n');
        }
    }
    for (size_t k = 0; k < t->ncols; k++)
        sbuf_release(&wb[k]);
    free(wb);
    free(pos);
}

/* One block per body row: "Header: value" lines, wrapped with a hanging indent. */
static void list(sbuf *out, const struct table *t, size_t width, int color)
{
    size_t head = 0;
    while (head < t->nrows && row_is_head(t, head))
        head++;
    int blocks = 0;
    sbuf line = SBUF_INIT;
    for (size_t r = head < t->nrows ? head : 0; r < t->nrows; r++) {
        if (blocks++)
            sbuf_putc(out, '\n');
        for (size_t k = 0; k < t->ncols; k++) {
            const mdt_cell *c = cell_at(t, r, k);
            const mdt_cell *h = head ? cell_at(t, 0, k) : NULL;
            if (!c || (!c->len && !(h && h->len)))
                continue;
            sbuf_reset(&line);
            if (h && h != c && h->len) {
                sbuf_puts(&line, color ? BOLD : "");
                sbuf_add(&line, h->text, h->len);
                sbuf_puts(&line, color ? RESET ":" : ":");
                if (c->len)
                    sbuf_putc(&line, ' ');
            }
            sbuf_add(&line, c->text, c->len);
            struct wrap w = { .out = out, .open = h == c && color ? BOLD : "",
                              .indent = width >= 6 ? "  " : "", .width = width ? width : 1,
                              .color = color };
            wrap_text(&w, line.data ? line.data : "", line.len);
            sbuf_putc(out, '\n');
            sbuf_release(&w.state);
        }
    }
    sbuf_release(&line);
}

int mdt_render(sbuf *out, const mdt_cell *cells, size_t n, size_t width, int color)
{
    if (!n)
        return 0;
    struct table t = { cells, n, 0, cells[n - 1].row + 1, NULL };
    t.first = calloc(t.nrows + 1, sizeof *t.first);
    size_t *nat = calloc(n, sizeof *nat), *w = calloc(n, sizeof *w);
    size_t *word = calloc(n, sizeof *word);
    int as_list = 0;
    if (!t.first || !nat || !w || !word) {
        out->err = 1;
        goto done;
    }
    for (size_t i = 0, r = 0; r <= t.nrows; r++) { /* rows in order, none skipped */
        while (i < n && cells[i].row < r)
            i++;
        t.first[r] = i;
    }
    for (size_t r = 0; r < t.nrows; r++) {
        size_t k = 0;
        for (size_t i = t.first[r]; i < t.first[r + 1]; i++, k++) {
            size_t cw = textw_width(cells[i].text, cells[i].len);
            if (cw > nat[k])
                nat[k] = cw;
            size_t lw = longest_word(cells[i].text, cells[i].len);
            if (lw > word[k])
                word[k] = lw;
        }
        if (k > t.ncols)
            t.ncols = k;
    }
    size_t seps = 3 * (t.ncols - 1);
    if (width > seps && fit(nat, word, t.ncols, width - seps, w) == 0) {
        grid(out, &t, w, color);
    } else {
        list(out, &t, width, color);
        as_list = 1;
    }
done:
    free(t.first);
    free(nat);
    free(w);
    free(word);
    return as_list;
}
