/* screen — the interactive terminal's output as a model plus a renderer. The model: lines
 * that are finished (committed: printed once, then left to scroll, never redrawn) and a
 * small live region under them (the growing tail of the message being streamed, and a
 * status line). screen_draw builds one frame in a buffer — cursor back to the top of the
 * live region, clear below, the newly committed lines, the live region again — and writes
 * it with one write(). Nothing above the live region is ever touched again, so nothing
 * re-flows or flickers. The live region is kept shorter than the terminal so the cursor
 * can always get back to its top. Never reads input; never called from a signal handler
 * (a resize arrives as a flag and becomes screen_resize). */
#ifndef HEW_CLI_SCREEN_H
#define HEW_CLI_SCREEN_H

#include <stddef.h>

typedef struct screen screen;

/* A screen on the terminal fd; color 0 strips every style. NULL when out of memory. */
screen *screen_new(int fd, int color);
void screen_free(screen *s);

/* Read the terminal's size again (after SIGWINCH). */
void screen_resize(screen *s);
size_t screen_width(const screen *s);
size_t screen_rows(const screen *s);
int screen_color(const screen *s);

/* Queue finished text (lines ending in "\n"; SGR styles allowed, other escapes and
 * control characters are dropped) to be printed above the live region at the next draw.
 * The screen cannot tell hew's styles from a text's own: text from outside hew must have
 * gone through termsafe before hew's styles were added to it (as must the live tail). */
void screen_commit(screen *s, const char *text, size_t n);
/* Commit a formatted line (a "\n" is added). */
void screen_commitf(screen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The live tail: plain text still growing, shown in style (an SGR code or NULL), wrapped
 * to the width; only its last rows are shown when it is longer than the region allows.
 * n == 0 removes it. */
void screen_set_live(screen *s, const char *text, size_t n, const char *style);
/* The status line under the live tail (NULL or "" removes it). */
void screen_set_status(screen *s, const char *status);
/* The input line under the status line while a task runs: marker (may hold SGR styles,
 * e.g. "› ") then the text typed so far (a newline shows as ⏎), on one row: when it is
 * wider, its end is shown after "…". NULL removes the row. */
void screen_set_input(screen *s, const char *marker, const char *text, size_t n);
/* How many rows a text would take in the live region (to decide when to commit). */
size_t screen_live_rows(const screen *s, const char *text, size_t n);
/* The most rows the live tail may take. */
size_t screen_live_max(const screen *s);

/* Write one frame if anything changed. */
void screen_draw(screen *s);
/* Remove the live region from the terminal (before reading input, or at the end) and
 * print what is committed; the cursor is left at the start of an empty line. */
void screen_release(screen *s);

#endif
