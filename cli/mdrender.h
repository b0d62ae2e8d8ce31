/* mdrender — finished markdown blocks as terminal text: md4c parses, this file lays the
 * blocks out (headings, emphasis, inline code, links, lists and task lists, quotes, fenced
 * code, tables, rules) word-wrapped to a width measured with utf8proc, coloured with ANSI
 * SGR codes only when asked. It renders into a buffer and never writes to the terminal;
 * it never moves the cursor (its output is plain lines, safe to print once and scroll).
 * It copies the text's own bytes: text from outside hew goes through termsafe first. */
#ifndef HEW_CLI_MDRENDER_H
#define HEW_CLI_MDRENDER_H

#include <stddef.h>

#include "sbuf.h"

/* A fenced code block whose first lines were shown before it ended (the terminal shows a
 * long block's lines as they come, mdr_render_open): what its next lines need. Zeroed, it
 * is outside any block. */
typedef struct mdr_open {
    int begun;     /* lines were shown (a blank line went before them when due) */
    int fence;     /* the open fence, as mdr_stable_end keeps it; 0: none */
    int state;     /* the highlighter's state at the next line (syntax.h) */
    char lang[32]; /* the language its fence line named ("" for none) */
} mdr_open;

typedef struct mdr_opts {
    size_t width;     /* wrap paragraphs at this many columns (>= 20 is sensible) */
    int color;        /* 1: ANSI styles; 0: plain text */
    const char *base; /* SGR code applied to all text (e.g. dim for reasoning), or NULL */
    /* the text starts inside this code block, already labelled (its fence != 0), or NULL */
    const mdr_open *open;
} mdr_opts;

/* Render text[0..n) (whole blocks) and append the lines to out; every line ends with
 * "\n". *first is 1 before the first block of a message: no blank line is put before it;
 * it becomes 0. Returns 0, or -1 when md4c refused the text (out then holds it plainly). */
int mdr_render(sbuf *out, const char *text, size_t n, const mdr_opts *o, int *first);

/* A short text (a question, an option) rendered like an answer, `code` and **bold**
 * styled and their marks gone, as lines with no newline after the last: a new string the
 * caller frees, or NULL when out of memory. */
char *mdr_text(const char *text, size_t width, int color);

/* Whole lines text[0..n) of a message's unfinished tail shown before their block ends
 * (the block is too long to wait for): a fenced code block's lines as mdr_render shows
 * them (its language above it, indented, coloured), every other line as it is. *op says
 * where the lines start (zero: at the start of a block, outside any fence) and is moved
 * past them; a later mdr_render given it in opts.open goes on with the block. *first is
 * as for mdr_render (a blank line goes before the block unless it is 1; it becomes 0). */
void mdr_render_open(sbuf *out, const char *text, size_t n, const mdr_opts *o, mdr_open *op,
                     int *first);

/* Where the finished blocks of a growing markdown text end: the offset just after the
 * last blank line in text[from..n) that is not inside a fenced code block, or `from` when
 * there is none yet. from must be the start of a line; *fence is the fence state at from
 * (0: outside; else the fence's character and length, as this function keeps it; start
 * with 0) and is set to the state at the returned offset. What lies before the returned
 * offset does not change meaning when more text arrives (a paragraph, a table, a fenced
 * block end there; a loose list is rendered in pieces, each keeping its numbers). */
size_t mdr_stable_end(const char *text, size_t n, size_t from, int *fence);

/* The fence state after the whole lines of text[from..to) (from and to at line starts),
 * starting from state fence (as mdr_stable_end keeps it). */
int mdr_fence_after(const char *text, size_t from, size_t to, int fence);

#endif
