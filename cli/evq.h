/* evq — hands the task's events from the task thread to the terminal's thread. on_event
 * copies each event in (evq_push, never blocks for long: a mutex and a memcpy of what was
 * appended) and the terminal's thread takes them out in order (evq_pop), woken through a
 * pipe it can poll. A message's text travels as appends (docs/events.md): an item carries
 * where its text changed and the bytes from there, never the whole text again. A partial
 * update that follows the one still waiting at the tail is merged into it (the two appends
 * become one), so a fast stream never piles up and an item holds at most what was
 * appended since the terminal last took one out. The queue keeps no copy of a message's
 * whole text: the terminal keeps one (msgtext.h) and applies the items' appends. It never
 * renders, never answers asks, never touches the terminal. */
#ifndef HEW_CLI_EVQ_H
#define HEW_CLI_EVQ_H

#include "hew.h"

typedef struct evq evq;

/* One event, copied: every string is owned by the item (NULL when the event had none).
 * For a message with text, `text` is what was appended (`len` bytes, NUL-terminated):
 * the message's text is now its text as of the previous item of the same index, cut to
 * `offset` bytes, then `text`. The first item of a message has offset 0 (so has the first
 * one after an event was lost: its text is then the whole text). text NULL: the message
 * has no text. */
typedef struct evq_item {
    long index;
    long long ts; /* when the message was first made (ms since the epoch) */
    int is_ask, partial;
    hew_event_kind kind; /* the type as an enum (hew.h) */
    char *type, *text, *data_json;
    size_t offset, len; /* the append: text[0..len) replaces the message's bytes from offset */
    size_t cap;         /* internal: room in text for merging */
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
