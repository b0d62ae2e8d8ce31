/* mdtable — a markdown table laid out to fit a width: columns as wide as their text when
 * that fits; else the widest columns shrink first (each keeps at least what the narrower
 * ones have) and cell text wraps at word boundaries inside its column, a word broken only
 * when it alone is wider than the column; borders stay on the same columns on every line.
 * When even that would squeeze a column below MDT_MIN_COL columns and cut its words, the
 * table becomes a list: one block per row, a "Header: value" line per cell. Widths are display columns
 * (textw: wide characters and emoji count two). Header cells are bold, alignment (:--,
 * :-:, --:) is kept per line. Pure: renders into a buffer, never writes to the terminal. */
#ifndef HEW_CLI_MDTABLE_H
#define HEW_CLI_MDTABLE_H

#include <stddef.h>

#include "sbuf.h"

/* The narrowest a column may be squeezed to, when that breaks its words, before the table
 * turns into a list (a column of short words may be narrower). */
#define MDT_MIN_COL 8

enum { MDT_LEFT, MDT_CENTER, MDT_RIGHT };

typedef struct mdt_cell {
    const char *text; /* the cell's rendered text: one line, SGR codes allowed */
    size_t len;
    size_t row;       /* rows in order, 0 first; cells of a row in column order */
    int align;        /* MDT_LEFT, MDT_CENTER, MDT_RIGHT */
    int head;         /* a header cell: bold, and a rule under its row */
} mdt_cell;

/* Lay out cells[0..n) in at most width columns (width >= 1) and append the lines to out,
 * each ending with "\n" and holding no other newline. color: SGR codes for the header's
 * bold and the dim borders (the cells' own codes are copied either way; each line ends
 * with a reset when color is on). Returns 1 when the table was shown as a list, else 0. */
int mdt_render(sbuf *out, const mdt_cell *cells, size_t n, size_t width, int color);

#endif
