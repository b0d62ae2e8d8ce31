/* diff_apply — parse SEARCH/REPLACE blocks and apply them with Cline's four matching
 * strategies (see diff_apply.h). Never returns a partly applied text. */
#include "tools/diff_apply.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct repl {
    size_t start, end;  /* range of the original replaced */
    size_t rstart, rlen; /* replacement text inside the block store */
    int block;          /* 1-based block number, for messages */
} repl;

typedef struct lines {
    size_t n;
    size_t *start; /* n + 1 entries: start[i] is where line i begins; start[n] = len + 1 */
} lines;

/* Split like JavaScript's split("\n"): n pieces = newlines + 1. */
static bool lines_split(const char *s, size_t len, lines *l)
{
    size_t n = 1;
    for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + len - p))) != NULL; p++)
        n++;
    l->n = n;
    l->start = malloc((n + 1) * sizeof *l->start);
    if (!l->start)
        return false;
    size_t i = 0;
    l->start[i++] = 0;
    for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + len - p))) != NULL; p++)
        l->start[i++] = (size_t)(p - s) + 1;
    l->start[n] = len + 1;
    return true;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Line i of s (without its '\n'), trimmed at both ends. */
static void line_trimmed(const char *s, const lines *l, size_t i, const char **b, size_t *n)
{
    size_t from = l->start[i], to = l->start[i + 1] - 1;
    while (from < to && is_ws(s[from]))
        from++;
    while (to > from && is_ws(s[to - 1]))
        to--;
    *b = s + from;
    *n = to - from;
}

static bool trimmed_eq(const char *a, const lines *la, size_t i, const char *b, const lines *lb,
                       size_t j)
{
    const char *pa, *pb;
    size_t na, nb;
    line_trimmed(a, la, i, &pa, &na);
    line_trimmed(b, lb, j, &pb, &nb);
    return na == nb && memcmp(pa, pb, na) == 0;
}

/* The first line whose start is at or after index (Cline's walk). */
static size_t line_at_or_after(const lines *l, size_t index)
{
    size_t i = 0;
    while (i < l->n && l->start[i] < index)
        i++;
    return i;
}

/* Search lines without the empty piece the trailing '\n' leaves. */
static size_t search_line_count(const char *search, const lines *ls, size_t slen)
{
    (void)search;
    size_t n = ls->n;
    if (n > 0 && ls->start[n - 1] == slen) /* last piece empty */
        n--;
    return n;
}

/* Whether the search's ns lines match the original's from line i on, by one strategy. */
typedef bool (*window_eq)(const char *orig, const lines *lo, size_t i, const char *search,
                          const lines *ls, size_t ns);

/* Every line equal once trimmed (Cline's line-trimmed fallback). */
static bool all_trimmed_eq(const char *orig, const lines *lo, size_t i, const char *search,
                           const lines *ls, size_t ns)
{
    size_t j = 0;
    while (j < ns && trimmed_eq(orig, lo, i + j, search, ls, j))
        j++;
    return j == ns;
}

/* The first and last lines equal once trimmed (Cline's block-anchor fallback). */
static bool anchors_eq(const char *orig, const lines *lo, size_t i, const char *search,
                       const lines *ls, size_t ns)
{
    return trimmed_eq(orig, lo, i, search, ls, 0) &&
           trimmed_eq(orig, lo, i + ns - 1, search, ls, ns - 1);
}

/* The first window of the original, at or after byte from, that eq accepts for a search of
 * at least min_lines lines: its byte range in *ms..*me. */
static bool match_lines(const char *orig, size_t olen, const lines *lo, const char *search,
                        size_t slen, size_t from, size_t min_lines, window_eq eq, size_t *ms,
                        size_t *me)
{
    lines ls;
    if (!lines_split(search, slen, &ls))
        return false;
    size_t ns = search_line_count(search, &ls, slen);
    bool found = false;
    if (ns >= min_lines && ns <= lo->n) {
        for (size_t i = line_at_or_after(lo, from); !found && i + ns <= lo->n; i++) {
            if (!eq(orig, lo, i, search, &ls, ns))
                continue;
            *ms = lo->start[i];
            *me = lo->start[i + ns];
            if (*me > olen)
                *me = olen;
            found = true;
        }
    }
    free(ls.start);
    return found;
}

static const char *find(const char *hay, size_t hlen, size_t from, const char *needle,
                        size_t nlen)
{
    if (from > hlen)
        return NULL;
    return memmem(hay + from, hlen - from, needle, nlen);
}

/* Marker recognition: a run of at least 3 of c, then suffix (may be empty), then an
 * optional '>' — or, when legacy is not 0, the same with the legacy character. */
static bool marker(const char *s, size_t n, char c, char legacy, const char *suffix)
{
    size_t i = 0;
    char ch = n ? s[0] : 0;
    if (ch != c && !(legacy && ch == legacy))
        return false;
    while (i < n && s[i] == ch)
        i++;
    if (i < 3)
        return false;
    size_t sl = strlen(suffix);
    if (n - i < sl || memcmp(s + i, suffix, sl) != 0)
        return false;
    i += sl;
    if (i < n && s[i] == '>' && sl)
        i++;
    return i == n;
}

static bool is_search_start(const char *s, size_t n)
{
    return marker(s, n, '-', '<', " SEARCH");
}

static bool is_separator(const char *s, size_t n)
{
    return marker(s, n, '=', 0, "");
}

static bool is_replace_end(const char *s, size_t n)
{
    return marker(s, n, '+', '>', " REPLACE");
}

static void show_search(buf *msg, const char *s, size_t n)
{
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    buf_append(msg, s, n);
}

static int cmp_repl(const void *a, const void *b)
{
    const repl *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->block - y->block;
}

/* The state of one application. */
typedef struct applier {
    const char *orig;
    size_t olen;
    lines lo;
    repl *reps;
    size_t nreps, capreps;
    buf search, store;
    int block;
    size_t last;        /* end of the last in-order match */
    size_t mstart, mend; /* the current block's match */
    size_t rstart;      /* its replacement text in store */
    bool in_order;
    diff_stats st;
} applier;

static hew_code close_block(applier *a)
{
    if (a->nreps == a->capreps) {
        size_t ncap = a->capreps ? a->capreps * 2 : 8;
        repl *nr = realloc(a->reps, ncap * sizeof *nr);
        if (!nr)
            return HEW_E_NOMEM;
        a->reps = nr;
        a->capreps = ncap;
    }
    a->reps[a->nreps++] =
        (repl){ a->mstart, a->mend, a->rstart, a->store.len - a->rstart, a->block };
    if (a->in_order)
        a->last = a->mend;
    a->st.blocks++;
    return HEW_OK;
}

/* At the ======= line: find the current SEARCH text. */
static hew_code match_block(applier *a, buf *msg)
{
    const char *s = a->search.data ? a->search.data : "";
    size_t sl = a->search.len;
    diff_strategy how = DIFF_EXACT;
    a->rstart = a->store.len;
    if (sl == 0) {
        if (a->olen != 0) {
            buf_printf(msg, "Block %d has an empty SEARCH section, but the file is not "
                            "empty. An empty SEARCH only works on an empty file. Put the "
                            "exact lines to change in SEARCH, or use write_to_file to "
                            "replace the whole file.", a->block);
            return HEW_E_INVALID;
        }
        a->mstart = a->mend = 0;
        how = DIFF_EMPTY_FILE;
    } else {
        const char *hit = find(a->orig, a->olen, a->last, s, sl);
        if (hit) {
            a->mstart = (size_t)(hit - a->orig);
            a->mend = a->mstart + sl;
        } else if (match_lines(a->orig, a->olen, &a->lo, s, sl, a->last, 1, all_trimmed_eq, &a->mstart,
                                      &a->mend)) {
            how = DIFF_LINE_TRIMMED;
        } else if (match_lines(a->orig, a->olen, &a->lo, s, sl, a->last, 3, anchors_eq, &a->mstart,
                                      &a->mend)) {
            how = DIFF_BLOCK_ANCHOR;
        } else if ((hit = find(a->orig, a->olen, 0, s, sl)) != NULL) {
            a->mstart = (size_t)(hit - a->orig);
            a->mend = a->mstart + sl;
            how = DIFF_OUT_OF_ORDER;
        } else {
            buf_printf(msg, "The SEARCH block (block %d):\n", a->block);
            show_search(msg, s, sl);
            buf_puts(msg, "\n...does not match anything in the file.");
            return HEW_E_INVALID;
        }
    }
    a->in_order = a->mstart >= a->last;
    a->st.by_strategy[how]++;
    return HEW_OK;
}

hew_code diff_apply(const char *original, size_t olen, const char *diff, size_t dlen,
                    buf *out, buf *msg, diff_stats *stats)
{
    applier a = { .orig = original, .olen = olen, .search = BUF_INIT(0), .store = BUF_INIT(0) };
    enum { OUTSIDE, IN_SEARCH, IN_REPLACE } state = OUTSIDE;
    hew_code rc = HEW_OK;
    if (!lines_split(original, olen, &a.lo))
        return HEW_E_NOMEM;

    /* Lines of the diff; the last one is dropped when it is half a marker. */
    size_t end = dlen;
    {
        const char *lastnl = dlen ? memrchr(diff, '\n', dlen) : NULL;
        size_t ls = lastnl ? (size_t)(lastnl - diff) + 1 : 0;
        const char *l = diff + ls;
        size_t ln = dlen - ls;
        if (ln && strchr("-<=+>", l[0]) && !is_search_start(l, ln) && !is_separator(l, ln) &&
            !is_replace_end(l, ln))
            end = ls;
    }

    const char *p = diff, *stop = diff + end;
    while (rc == HEW_OK && p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(stop - p);
        const char *line = p;
        p = nl ? nl + 1 : stop;
        if (n && line[n - 1] == '\r')
            n--;

        if (is_search_start(line, n)) {
            if (state == IN_SEARCH) {
                buf_printf(msg, "Block %d: a new SEARCH marker came before the ======= line "
                                "of the block. Each block needs a SEARCH marker, the lines "
                                "to find, =======, the new lines, and a REPLACE marker.",
                           a.block);
                rc = HEW_E_INVALID;
                break;
            }
            if (state == IN_REPLACE && (rc = close_block(&a)) != HEW_OK)
                break; /* a missing REPLACE marker: the block ends here */
            a.block++;
            state = IN_SEARCH;
            buf_reset(&a.search);
        } else if (state == IN_SEARCH && is_separator(line, n)) {
            rc = match_block(&a, msg);
            state = IN_REPLACE;
        } else if (state == IN_REPLACE && is_replace_end(line, n)) {
            rc = close_block(&a);
            state = OUTSIDE;
        } else if (state == IN_SEARCH) {
            buf_append(&a.search, line, n);
            buf_putc(&a.search, '\n');
        } else if (state == IN_REPLACE) {
            buf_append(&a.store, line, n);
            buf_putc(&a.store, '\n');
        }
    }

    if (rc == HEW_OK && state == IN_REPLACE)
        rc = close_block(&a); /* the last REPLACE marker is missing */
    else if (rc == HEW_OK && state == IN_SEARCH) {
        buf_printf(msg, "Block %d has a SEARCH section but no ======= line and no "
                        "replacement, so it cannot be applied.", a.block);
        rc = HEW_E_INVALID;
    }
    if (rc == HEW_OK && a.nreps == 0) {
        buf_puts(msg, "No SEARCH/REPLACE block was found in the diff. Each block is:\n"
                      "------- SEARCH\n[exact lines from the file]\n=======\n[new lines]\n"
                      "+++++++ REPLACE");
        rc = HEW_E_INVALID;
    }
    if (rc == HEW_OK && (a.search.err || a.store.err))
        rc = a.search.err ? a.search.err : a.store.err;

    if (rc == HEW_OK) {
        qsort(a.reps, a.nreps, sizeof *a.reps, cmp_repl);
        for (size_t i = 1; i < a.nreps; i++) {
            const repl *x = &a.reps[i - 1], *y = &a.reps[i];
            if (y->start < x->end || (y->start == x->start && y->end == x->end)) {
                buf_printf(msg, "Blocks %d and %d match the same text of the file. Make each "
                                "SEARCH section match a different part of the file.",
                           x->block < y->block ? x->block : y->block,
                           x->block < y->block ? y->block : x->block);
                rc = HEW_E_INVALID;
                break;
            }
        }
    }
    if (rc == HEW_OK) {
        size_t mark = out->len, pos = 0;
        for (size_t i = 0; i < a.nreps; i++) {
            buf_append(out, original + pos, a.reps[i].start - pos);
            if (a.reps[i].rlen)
                buf_append(out, a.store.data + a.reps[i].rstart, a.reps[i].rlen);
            pos = a.reps[i].end;
        }
        buf_append(out, original + pos, olen - pos);
        if (out->err) {
            rc = out->err;
            buf_truncate(out, mark);
        }
    }
    if (rc == HEW_E_INVALID && msg->len == 0)
        buf_puts(msg, "The diff could not be applied.");
    if (stats)
        *stats = a.st;
    free(a.lo.start);
    free(a.reps);
    buf_release(&a.search);
    buf_release(&a.store);
    return rc;
}
