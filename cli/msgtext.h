/* msgtext — the terminal's one copy of a growing message's text, built from the appends
 * the event queue hands over (evq.h: offset + the bytes from there), and its sanitised
 * form (termsafe.h) grown alongside, so that an update of a long message costs what was
 * appended, never its whole length. It holds one message at a time (the latest with
 * text): an append of another message starts it over. A tail rewrite (an append at an
 * offset below the end: the task's cleaner took back a held tail) is sanitised again from
 * the nearest point it kept of the last few updates (or from the start when it reaches
 * further back, which costs the whole text once). It never touches the terminal, never
 * reads the event's whole text, never allocates but through its sbufs. */
#ifndef HEW_CLI_MSGTEXT_H
#define HEW_CLI_MSGTEXT_H

#include <stddef.h>

#include "sbuf.h"
#include "termsafe.h"

#define MSGTEXT_MARKS 8 /* points kept to sanitise a rewritten tail again from */

/* A place in the text where the sanitiser could start again: after raw[0..raw) it was in
 * state ts and had given safe[0..safe). */
typedef struct msgtext_mark {
    size_t raw, safe;
    termsafe ts;
} msgtext_mark;

typedef struct msgtext {
    long index;  /* the message (-1 none) */
    sbuf raw;    /* its text as the appends built it */
    size_t same; /* raw[0..same) is unchanged since msgtext_safe last caught up */
    sbuf safe;   /* the sanitised form of raw[0..fed) (less what ts holds) */
    termsafe ts;
    size_t fed;
    int whole; /* safe was finished (termsafe_finish): the message was complete */
    msgtext_mark marks[MSGTEXT_MARKS];
    size_t nmarks;
} msgtext;

void msgtext_init(msgtext *m);
/* Free what m holds; it is empty (as msgtext_init) after. */
void msgtext_release(msgtext *m);

/* Message `index`'s text is now its text cut to off bytes, then add[0..n). An index other
 * than the one held starts over from the empty text (the queue sends a new message, or
 * one it switched back to, from offset 0). An offset past the end is taken as the end.
 * Returns 0, or -1 when out of memory (m is then empty: a later append at offset 0 starts
 * it again). */
int msgtext_apply(msgtext *m, long index, size_t off, const char *add, size_t n);

/* The text, sanitised, caught up with every append so far; *len gets its length. complete
 * 1: the message is whole, so what the sanitiser still holds is decided too (an update
 * after that sanitises the text again from the start); complete 0: a growing text, whose
 * sanitised form only grows while the appends only grow the text. Borrowed until the next
 * call on m. NULL when out of memory. */
const char *msgtext_safe(msgtext *m, int complete, size_t *len);

/* The raw text (for tests); *len gets its length. */
const char *msgtext_raw(const msgtext *m, size_t *len);

#endif
