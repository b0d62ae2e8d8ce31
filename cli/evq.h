/* evq — hands the task's events from the task thread to the terminal's thread. on_event
 * copies each event in (evq_push, never blocks for long: a mutex and a memcpy) and the
 * terminal's thread takes them out in order (evq_pop), woken through a pipe it can poll.
 * A partial update that replaces the one still waiting at the tail is merged into it, so a
 * fast stream never piles up. The front end's own copy of the growing message's text is
 * kept here, built from the events' appends (an update costs what was appended on the
 * task's thread); an item gets its text copied when it is taken out. It never renders,
 * never answers asks, never touches the terminal. */
#ifndef HEW_CLI_EVQ_H
#define HEW_CLI_EVQ_H

#include "hew.h"

typedef struct evq evq;

/* One event, copied: every string is owned by the item (NULL when the event had none). */
typedef struct evq_item {
    long index;
    long long ts; /* when the message was first made (ms since the epoch) */
    int is_ask, partial;
    hew_event_kind kind; /* the type as an enum (hew.h) */
    char *type, *text, *data_json;
    int live; /* internal: the text is the queue's growing copy, filled in at evq_pop */
    struct evq_item *next;
} evq_item;

/* A new queue, or NULL (out of memory, no pipe). */
evq *evq_new(void);
/* Free the queue and every item still in it. NULL is a no-op. */
void evq_free(evq *q);
/* Copy ev in (any thread). Returns 0, or -1 when out of memory (the event is lost). */
int evq_push(evq *q, const hew_event *ev);
/* The next item (the caller frees it with evq_item_free), or NULL when empty. */
evq_item *evq_pop(evq *q);
void evq_item_free(evq_item *it);
/* A descriptor that is readable when items may be waiting; evq_pop drains it. */
int evq_fd(const evq *q);

#endif
