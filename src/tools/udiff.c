/* udiff — line diff printed as unified hunks (see udiff.h). The diff is Myers' algorithm
 * in linear space (the middle snake, divide and conquer), as git's xdiff does it,
 * over lines numbered by a hash table so that comparing two lines is comparing two
 * ints; when a part of the search grows past a cost bound, it is split at the furthest
 * point reached instead (xdiff's heuristic), so a huge rewrite costs about
 * (lines) x (bound), never lines squared. Written by hand: no Debian library diffs two
 * buffers in memory (libgit2's xdiff is not exposed). */
#include "tools/udiff.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT 3
#define MAX_COST_MIN 256 /* the search's cost bound, at least (xdiff's XDL_MAX_COST_MIN) */

typedef struct line {
    const char *s;
    size_t n;     /* without '\n' */
    bool newline; /* followed by '\n' */
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
        l[k++] = (line){ p, ln, nl != NULL, h ^ (nl != NULL) };
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

/* Number the lines of both texts: equal lines get the same number. ida/idb are filled;
 * false when out of memory. */
static bool number_lines(const line *la, size_t na, const line *lb, size_t nb, long *ida,
                         long *idb)
{
    size_t cap = 16;
    while (cap < 2 * (na + nb))
        cap <<= 1;
    struct slot {
        const line *l; /* NULL: free */
        long id;
    } *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return false;
    long next = 0;
    for (int side = 0; side < 2; side++) {
        const line *ls = side ? lb : la;
        size_t n = side ? nb : na;
        long *ids = side ? idb : ida;
        for (size_t i = 0; i < n; i++) {
            size_t at = (size_t)ls[i].hash & (cap - 1);
            while (tab[at].l && !same(tab[at].l, &ls[i]))
                at = (at + 1) & (cap - 1);
            if (!tab[at].l)
                tab[at] = (struct slot){ &ls[i], next++ };
            ids[i] = tab[at].id;
        }
    }
    free(tab);
    return true;
}

/* ---- Myers in linear space ------------------------------------------------------------ */

typedef struct search {
    const long *a, *b;  /* line numbers */
    char *ca, *cb;      /* 1: the line is removed (a) / added (b) */
    long *vf, *vb;      /* furthest x per diagonal k, forward and backward, at [k] */
    long mxcost;
} search;

/* The split point of a[off1..lim1) x b[off2..lim2) (both non-empty, first and last lines
 * different): where the forward and backward searches meet on an optimal path, or, past
 * the cost bound, the furthest point either reached. */
static void split_at(const search *s, long off1, long lim1, long off2, long lim2, long *sx,
                     long *sy)
{
    const long *a = s->a, *b = s->b;
    long *vf = s->vf, *vb = s->vb;
    long dmin = off1 - lim2, dmax = lim1 - off2;
    long fmid = off1 - off2, bmid = lim1 - lim2;
    bool odd = ((fmid - bmid) & 1) != 0;
    long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
    vf[fmid] = off1;
    vb[bmid] = lim1;
    for (long ec = 1;; ec++) {
        if (fmin > dmin)
            vf[--fmin - 1] = -1;
        else
            ++fmin;
        if (fmax < dmax)
            vf[++fmax + 1] = -1;
        else
            --fmax;
        for (long d = fmax; d >= fmin; d -= 2) {
            long x = vf[d - 1] >= vf[d + 1] ? vf[d - 1] + 1 : vf[d + 1];
            long y = x - d;
            while (x < lim1 && y < lim2 && a[x] == b[y])
                x++, y++;
            vf[d] = x;
            if (odd && bmin <= d && d <= bmax && vb[d] <= x) {
                *sx = x;
                *sy = y;
                return;
            }
        }
        if (bmin > dmin)
            vb[--bmin - 1] = LONG_MAX;
        else
            ++bmin;
        if (bmax < dmax)
            vb[++bmax + 1] = LONG_MAX;
        else
            --bmax;
        for (long d = bmax; d >= bmin; d -= 2) {
            long x = vb[d - 1] < vb[d + 1] ? vb[d - 1] : vb[d + 1] - 1;
            long y = x - d;
            while (x > off1 && y > off2 && a[x - 1] == b[y - 1])
                x--, y--;
            vb[d] = x;
            if (!odd && fmin <= d && d <= fmax && x <= vf[d]) {
                *sx = x;
                *sy = y;
                return;
            }
        }
        if (ec < s->mxcost)
            continue;
        /* Too costly to find the best path: split where one search got furthest. */
        long fbest = -1, fx = 0;
        for (long d = fmax; d >= fmin; d -= 2) {
            long x = vf[d] < lim1 ? vf[d] : lim1, y = x - d;
            if (y > lim2)
                x = lim2 + d, y = lim2;
            if (x + y > fbest)
                fbest = x + y, fx = x;
        }
        long bbest = LONG_MAX, bx = 0;
        for (long d = bmax; d >= bmin; d -= 2) {
            long x = vb[d] > off1 ? vb[d] : off1, y = x - d;
            if (y < off2)
                x = off2 + d, y = off2;
            if (x + y < bbest)
                bbest = x + y, bx = x;
        }
        if ((lim1 + lim2) - bbest < fbest - (off1 + off2)) {
            *sx = fx;
            *sy = fbest - fx;
        } else {
            *sx = bx;
            *sy = bbest - bx;
        }
        return;
    }
}

/* Mark the lines of a[off1..lim1) removed and of b[off2..lim2) added that a shortest
 * edit script (or, past the bound, a short one) changes. */
static void compare(const search *s, long off1, long lim1, long off2, long lim2)
{
    while (off1 < lim1 && off2 < lim2 && s->a[off1] == s->b[off2])
        off1++, off2++;
    while (off1 < lim1 && off2 < lim2 && s->a[lim1 - 1] == s->b[lim2 - 1])
        lim1--, lim2--;
    if (off1 == lim1) {
        for (long j = off2; j < lim2; j++)
            s->cb[j] = 1;
        return;
    }
    if (off2 == lim2) {
        for (long i = off1; i < lim1; i++)
            s->ca[i] = 1;
        return;
    }
    long x, y;
    split_at(s, off1, lim1, off2, lim2, &x, &y);
    compare(s, off1, x, off2, y);
    compare(s, x, lim1, y, lim2);
}

/* An integer square root good enough for a cost bound (xdiff's bogosqrt). */
static long rough_sqrt(long n)
{
    long i = 1;
    while (i * i < n)
        i <<= 1;
    return i;
}

/* ---- hunks ------------------------------------------------------------------------------ */

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
    long *ids = calloc(na + nb + 1, sizeof *ids);
    long *v = calloc(2 * (na + nb + 3), sizeof *v);
    char *changed = calloc(na + nb + 1, 1);
    op *ops = calloc(na + nb + 1, sizeof *ops);
    if (!la || !lb || !ids || !v || !changed || !ops || !number_lines(la, na, lb, nb, ids, ids + na)) {
        buf_puts(out, "(the diff could not be computed: out of memory)\n");
        goto done;
    }
    /* A line with no equal on the other side is changed in every script: it is marked
     * now and left out of the search (as xdiff does), which then runs on the lines both
     * texts have — a total rewrite costs nothing to search. */
    long *ida = ids, *idb = ids + na;
    char *seen = calloc((size_t)(na + nb) + 1, 2); /* [id]: 1 in a, 2 in b */
    long *ra = calloc(na + 1, sizeof *ra), *rb = calloc(nb + 1, sizeof *rb); /* kept lines */
    long *ka = calloc(na + nb + 1, sizeof *ka); /* their numbers, a's then b's */
    char *kc = calloc(na + nb + 1, 1);          /* their changed flags */
    if (!seen || !ra || !rb || !ka || !kc) {
        free(seen), free(ra), free(rb), free(ka), free(kc);
        buf_puts(out, "(the diff could not be computed: out of memory)\n");
        goto done;
    }
    for (size_t i = 0; i < na; i++)
        seen[ida[i]] |= 1;
    for (size_t j = 0; j < nb; j++)
        seen[idb[j]] |= 2;
    size_t ma = 0, mb = 0;
    for (size_t i = 0; i < na; i++) {
        if (seen[ida[i]] == 3)
            ra[ma] = (long)i, ka[ma++] = ida[i];
        else
            changed[i] = 1;
    }
    for (size_t j = 0; j < nb; j++) {
        if (seen[idb[j]] == 3)
            rb[mb] = (long)j, ka[ma + mb++] = idb[j];
        else
            changed[na + j] = 1;
    }
    long diags = (long)(ma + mb + 3);
    search s = {
        .a = ka, .b = ka + ma, .ca = kc, .cb = kc + ma,
        .vf = v + mb + 1, .vb = v + diags + mb + 1,
        .mxcost = rough_sqrt(diags) > MAX_COST_MIN ? rough_sqrt(diags) : MAX_COST_MIN,
    };
    compare(&s, 0, (long)ma, 0, (long)mb);
    for (size_t i = 0; i < ma; i++)
        changed[ra[i]] |= kc[i];
    for (size_t j = 0; j < mb; j++)
        changed[na + (size_t)rb[j]] |= kc[ma + j];
    free(seen), free(ra), free(rb), free(ka), free(kc);
    const char *ca = changed, *cb = changed + na;
    /* the script: in each run of changes, its removals, then its additions */
    size_t k = 0, i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && !ca[i] && !cb[j]) {
            ops[k++] = (op){ ' ', i++, j++ };
            continue;
        }
        size_t was = k;
        while (i < na && ca[i])
            ops[k++] = (op){ '-', i++, j };
        while (j < nb && cb[j])
            ops[k++] = (op){ '+', i, j++ };
        if (k == was) /* one side is done: the other's rest is changed (never stuck) */
            ops[k++] = i < na ? (op){ '-', i++, j } : (op){ '+', i, j++ };
    }
    emit_hunks(ops, k, la, lb, out);
done:
    free(ops);
    free(changed);
    free(v);
    free(ids);
    free(la);
    free(lb);
}
