/* udiff — line diff (common prefix/suffix, then an LCS table over the changed middle when
 * it is small enough) printed as unified hunks. See udiff.h. */
#include "tools/udiff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT 3
#define LCS_CELLS_MAX ((size_t)4 << 20) /* min(n, m) stays below 2048: uint16 lengths fit */

typedef struct line {
    const char *s;
    size_t n;        /* without '\n' */
    bool newline;    /* followed by '\n' */
    uint64_t hash;
} line;

static line *split(const char *s, size_t len, size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\n')
            n++;
    if (len && s[len - 1] != '\n')
        n++;
    line *l = calloc(n ? n : 1, sizeof *l);
    if (!l)
        return NULL;
    size_t k = 0;
    const char *p = s, *end = s + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t ln = nl ? (size_t)(nl - p) : (size_t)(end - p);
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < ln; i++)
            h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
        l[k++] = (line){ p, ln, nl != NULL, h };
        p = nl ? nl + 1 : end;
    }
    *count = n;
    return l;
}

static bool same(const line *x, const line *y)
{
    return x->hash == y->hash && x->n == y->n && x->newline == y->newline &&
           memcmp(x->s, y->s, x->n) == 0;
}

/* One edit-script entry per output line: ' ' keep, '-' remove (a side), '+' add (b side). */
typedef struct op {
    char kind;
    size_t ai, bi;
} op;

static void emit_line(buf *out, char kind, const line *l)
{
    buf_putc(out, kind);
    buf_append(out, l->s, l->n);
    buf_putc(out, '\n');
    if (!l->newline)
        buf_puts(out, "\\ No newline at end of file\n");
}

/* ops[k].ai / .bi are the numbers of a / b lines before op k (for ' ' and '-' ai is the
 * line itself, for ' ' and '+' bi is). */
static void emit_hunks(const op *ops, size_t nops, const line *la, const line *lb, buf *out)
{
    size_t i = 0;
    for (;;) {
        while (i < nops && ops[i].kind == ' ')
            i++;
        if (i == nops)
            break;
        size_t from = i >= CONTEXT ? i - CONTEXT : 0;
        size_t to = i, j = i; /* to: just after the last change of this hunk */
        while (j < nops) {
            if (ops[j].kind != ' ') {
                to = ++j;
                continue;
            }
            size_t g = j;
            while (g < nops && ops[g].kind == ' ')
                g++;
            if (g < nops && g - j <= 2 * CONTEXT)
                j = g;
            else
                break;
        }
        size_t hend = to + CONTEXT < nops ? to + CONTEXT : nops;
        size_t an = 0, bn = 0;
        for (size_t k = from; k < hend; k++) {
            an += ops[k].kind != '+';
            bn += ops[k].kind != '-';
        }
        size_t a0 = ops[from].ai, b0 = ops[from].bi;
        buf_printf(out, "@@ -%zu,%zu +%zu,%zu @@\n", an ? a0 + 1 : a0, an, bn ? b0 + 1 : b0, bn);
        for (size_t k = from; k < hend; k++)
            emit_line(out, ops[k].kind, ops[k].kind == '+' ? &lb[ops[k].bi] : &la[ops[k].ai]);
        i = hend;
    }
}

void udiff_make(const char *a, size_t alen, const char *b, size_t blen, buf *out)
{
    size_t na = 0, nb = 0;
    line *la = split(a ? a : "", alen, &na);
    line *lb = split(b ? b : "", blen, &nb);
    op *ops = calloc(na + nb + 1, sizeof *ops);
    uint16_t *t = NULL;
    if (!la || !lb || !ops) {
        buf_puts(out, "(the diff could not be computed: out of memory)\n");
        goto done;
    }
    size_t pre = 0;
    while (pre < na && pre < nb && same(&la[pre], &lb[pre]))
        pre++;
    size_t suf = 0;
    while (suf < na - pre && suf < nb - pre && same(&la[na - 1 - suf], &lb[nb - 1 - suf]))
        suf++;
    size_t n = na - pre - suf, m = nb - pre - suf, k = 0;
    for (size_t i = 0; i < pre; i++)
        ops[k++] = (op){ ' ', i, i };
    if (n && m && n * m <= LCS_CELLS_MAX && (n < 65535 && m < 65535)) {
        /* t[i][j] = LCS length of a-middle[i..] and b-middle[j..]. */
        t = calloc((n + 1) * (m + 1), sizeof *t);
        if (!t) {
            buf_puts(out, "(the diff could not be computed: out of memory)\n");
            goto done;
        }
        for (size_t i = n; i-- > 0;)
            for (size_t j = m; j-- > 0;)
                t[i * (m + 1) + j] = same(&la[pre + i], &lb[pre + j])
                                         ? (uint16_t)(t[(i + 1) * (m + 1) + j + 1] + 1)
                                         : (t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1]
                                                ? t[(i + 1) * (m + 1) + j]
                                                : t[i * (m + 1) + j + 1]);
        size_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && same(&la[pre + i], &lb[pre + j])) {
                ops[k++] = (op){ ' ', pre + i, pre + j };
                i++, j++;
            } else if (j == m || (i < n && t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1])) {
                ops[k++] = (op){ '-', pre + i, pre + j }; /* removals before additions */
                i++;
            } else {
                ops[k++] = (op){ '+', pre + i, pre + j };
                j++;
            }
        }
    } else {
        for (size_t i = 0; i < n; i++)
            ops[k++] = (op){ '-', pre + i, pre };
        for (size_t j = 0; j < m; j++)
            ops[k++] = (op){ '+', pre + n, pre + j };
    }
    for (size_t i = 0; i < suf; i++)
        ops[k++] = (op){ ' ', na - suf + i, nb - suf + i };
    emit_hunks(ops, k, la, lb, out);
done:
    free(t);
    free(ops);
    free(la);
    free(lb);
}
