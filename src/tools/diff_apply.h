/* diff_apply — SEARCH/REPLACE blocks (replace_in_file's `diff`) applied to a file's text.
 * Pure: no I/O, no allocation it does not hand back or free. It must never produce a
 * partly applied result: either every block matched and *out holds the new text, or
 * nothing is returned and the message says which block failed.
 *
 * Format: blocks of
 *     ------- SEARCH          (3 or more '-', or legacy '<'; an optional trailing '>')
 *     lines to find
 *     =======                 (3 or more '=')
 *     lines to put instead
 *     +++++++ REPLACE         (3 or more '+', or legacy '>'; an optional trailing '>')
 * Markers are whole lines. A last line that looks like the start of a marker but is not
 * one (a stream cut in the middle) is dropped. Text outside blocks is ignored. The SEARCH
 * and REPLACE texts are their lines, each followed by '\n'.
 *
 * Matching, per block, from the end of the previous in-order match (Cline's order):
 *   1. exact: the SEARCH text as is;
 *   2. line-trimmed: the same number of lines, equal after trimming whitespace at both
 *      ends of each line (the matched range covers whole lines of the file);
 *   3. block anchors (3 lines or more): first and last lines equal after trimming, at the
 *      right distance;
 *   4. exact anywhere in the file, also before earlier blocks (out of order).
 * Only the first match of a block is replaced. An empty SEARCH only works on an empty
 * file (the REPLACE text becomes the file). Replacements are applied to the original text
 * in file order; two blocks that claim overlapping text are an error.
 *
 * Texts are taken as '\n'-separated lines; callers convert CRLF files to LF before and
 * back after (replace_in_file does). */
#ifndef HEW_TOOLS_DIFF_APPLY_H
#define HEW_TOOLS_DIFF_APPLY_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

typedef enum diff_strategy {
    DIFF_EXACT,
    DIFF_LINE_TRIMMED,
    DIFF_BLOCK_ANCHOR,
    DIFF_OUT_OF_ORDER,
    DIFF_EMPTY_FILE,
    DIFF_NSTRATEGIES
} diff_strategy;

typedef struct diff_stats {
    int blocks;                        /* complete blocks applied */
    int by_strategy[DIFF_NSTRATEGIES]; /* how each block was matched */
} diff_stats;

/* Apply diff to original. HEW_OK: *out gets the new text (appended; out's cap applies).
 * HEW_E_INVALID: a block did not match, was malformed, or overlapped another; msg gets
 * the explanation for the model (naming the block by number and showing its SEARCH text)
 * and out is untouched. HEW_E_NOMEM / HEW_E_TOOBIG: out of memory or out's cap.
 * stats may be NULL. */
hew_code diff_apply(const char *original, size_t olen, const char *diff, size_t dlen,
                    buf *out, buf *msg, diff_stats *stats);

#endif
