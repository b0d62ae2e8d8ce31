/* approval_view — an edit's diff at its approval: counts, a gutter of line numbers, cut to
 * the terminal (approval_view.h). */
#include "approval_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS_AROUND 8 /* summary, note, prompt, the status line and a little of before */
#define MIN_LINES 5

void approval_diffstat(const char *diff, diffstat *st)
{
    memset(st, 0, sizeof *st);
    for (const char *p = diff; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        st->lines++;
        if (*p == '+' && !(len >= 3 && strncmp(p, "+++", 3) == 0))
            st->added++;
        else if (*p == '-' && !(len >= 3 && strncmp(p, "---", 3) == 0))
            st->removed++;
        p += len + (nl ? 1 : 0);
    }
}

void approval_stat_text(sbuf *out, const diffstat *st, int color)
{
    sbuf_printf(out, "  %s+%zu%s %s−%zu%s", color ? "\033[32m" : "", st->added,
                color ? "\033[0m" : "", color ? "\033[31m" : "", st->removed,
                color ? "\033[0m" : "");
}

size_t approval_diff_limit(size_t rows)
{
    return rows > ROWS_AROUND + MIN_LINES ? rows - ROWS_AROUND : MIN_LINES;
}

/* "@@ -a,b +c,d @@": the first old and new line numbers of the hunk */
static void hunk_start(const char *p, long *old_no, long *new_no)
{
    const char *m = strchr(p, '-'), *pl = strchr(p, '+');
    if (m)
        *old_no = strtol(m + 1, NULL, 10);
    if (pl)
        *new_no = strtol(pl + 1, NULL, 10);
}

size_t approval_diff_render(sbuf *out, const char *diff, size_t limit, int color,
                            const char *more_hint)
{
    const char *reset = color ? "\033[0m" : "";
    size_t shown = 0, total = 0;
    long old_no = 1, new_no = 1;
    for (const char *p = diff; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        total++;
        const char *style = "\033[2m";
        char gutter[16] = "";
        if (len >= 2 && strncmp(p, "@@", 2) == 0) {
            hunk_start(p, &old_no, &new_no);
            style = "\033[36m";
        } else if (len >= 3 && (strncmp(p, "+++", 3) == 0 || strncmp(p, "---", 3) == 0)) {
            style = "\033[1m";
        } else if (*p == '+') {
            style = "\033[32m";
            snprintf(gutter, sizeof gutter, "%ld", new_no++);
        } else if (*p == '-') {
            style = "\033[31m";
            snprintf(gutter, sizeof gutter, "%ld", old_no++);
        } else if (*p == ' ') {
            snprintf(gutter, sizeof gutter, "%ld", new_no++);
            old_no++;
        }
        if (shown < limit) {
            sbuf_printf(out, "  %s%5s%s %s%.*s%s\n", color ? "\033[2m" : "", gutter, reset,
                        color ? style : "", (int)len, p, reset);
            shown++;
        }
        p += len + (nl ? 1 : 0);
    }
    if (total > shown)
        sbuf_printf(out, "  %s… %zu more line%s%s%s\n", color ? "\033[2m" : "", total - shown,
                    total - shown == 1 ? "" : "s", more_hint ? more_hint : "", reset);
    return total - shown;
}
