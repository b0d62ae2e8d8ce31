/* typeahead — the input line while a task runs: what the user types then is kept, not
 * lost and never echoed raw into the output. The terminal (interactive.c) reads the
 * keys itself while it shows the task's output (the terminal in raw mode) and feeds the
 * bytes here; this file edits a small buffer and says what a key asks for: Enter queues
 * the text as the next message, Esc stops the task. Keys: printable UTF-8, Backspace,
 * Ctrl-U (clear), Ctrl-W (the word before), Alt-Enter (a newline), a bracketed paste
 * (ESC [200~ … ESC [201~) kept whole, newlines included; other escape sequences (arrows,
 * function keys) and control characters are dropped. A lone Esc is told from the start
 * of a sequence by time: an ESC that ends what was read is decided by
 * typeahead_timeout() when nothing follows it soon. Never reads, never prints. */
#ifndef HEW_CLI_TYPEAHEAD_H
#define HEW_CLI_TYPEAHEAD_H

#include <stddef.h>

#include "sbuf.h"

enum ta_action {
    TA_NONE,   /* nothing to do but show the line again */
    TA_SUBMIT, /* Enter on a line with text: typeahead_take() it and queue it */
    TA_STOP,   /* Esc (or a Ctrl-C byte): stop the task; the text stays */
};

typedef struct typeahead {
    sbuf text;      /* the line being typed */
    int state;      /* where in an escape sequence or paste the input is */
    char seq[16];   /* the bytes of the escape sequence so far */
    size_t nseq;
    size_t pmatch;  /* bytes of the paste's end marker matched */
} typeahead;

#define TYPEAHEAD_PASTE_MAX ((size_t)8 << 20)

void typeahead_init(typeahead *t);
void typeahead_release(typeahead *t);

/* Take bytes s[0..n): edits the line; stops at the first key that asks for an action
 * and returns it, *used saying how many bytes were taken (feed the rest after acting).
 * TA_NONE when all n were taken. */
int typeahead_feed(typeahead *t, const char *s, size_t n, size_t *used);

/* 1 when an ESC waits to be told from a sequence (ask typeahead_timeout if nothing
 * comes within a few tens of milliseconds). */
int typeahead_esc_pending(const typeahead *t);
/* Nothing followed the ESC: it was the Esc key (TA_STOP). */
int typeahead_timeout(typeahead *t);

/* The text typed (len in *len; "" when none); stays owned by t. */
const char *typeahead_text(const typeahead *t, size_t *len);
/* The text typed, as a new string the caller frees (NULL when there is none); the line
 * is empty afterwards. */
char *typeahead_take(typeahead *t);

#endif
