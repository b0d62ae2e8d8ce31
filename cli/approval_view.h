/* approval_view — how an edit's diff is shown at its approval (and in the summary of an
 * edit already made): a header count "+N −M", the lines with a gutter of line numbers
 * (the new file's for added and context lines, the old file's for removed ones), coloured,
 * cut to a number of lines with "… K more lines" after them. The diff is the library's
 * unified diff (hunks only, "@@ -a,b +c,d @@" headers, no ---/+++ lines), already
 * sanitised (termsafe) by the caller. Pure: it builds text, the caller shows it. */
#ifndef HEW_CLI_APPROVAL_VIEW_H
#define HEW_CLI_APPROVAL_VIEW_H

#include <stddef.h>

#include "sbuf.h"

typedef struct diffstat {
    size_t added, removed; /* '+' and '-' lines (not "+++"/"---" headers) */
    size_t lines;          /* every line of the diff, as approval_diff_render counts them */
} diffstat;

/* Count the diff's lines. */
void approval_diffstat(const char *diff, diffstat *st);

/* "  +N −M" appended to out (green and red when color). */
void approval_stat_text(sbuf *out, const diffstat *st, int color);

/* The diff's first `limit` lines ((size_t)-1: all) appended to out, each indented under a
 * gutter of line numbers; when lines are left out, a last line "… K more lines" followed
 * by more_hint (NULL: nothing, else e.g. " — v shows them all"). Returns how many lines
 * were left out. */
size_t approval_diff_render(sbuf *out, const char *diff, size_t limit, int color,
                            const char *more_hint);

/* How many diff lines fit an approval on a terminal of `rows` rows: what is left after
 * the summary line, the note, the prompt and some of what came before (at least 5). */
size_t approval_diff_limit(size_t rows);

#endif
