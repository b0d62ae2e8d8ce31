/* evtext — a test front end's own copy of each message's text, kept the way every front
 * end keeps it (docs/events.md, schema 2): by applying each event's append to the text of
 * the previous event of the same index. It must never accept an event whose append does
 * not fit (an offset past the text so far) or whose result differs from the whole text the
 * C event carries: those abort the test with the event printed. */
#ifndef HEW_TEST_EVTEXT_H
#define HEW_TEST_EVTEXT_H

#include <jansson.h>

#include "hew.h"

/* ev's JSON line parsed (a new reference), with "text" filled in for a partial update
 * from the earlier events of its index in `events` (the array of what evtext_load gave
 * before, oldest first; read only). */
json_t *evtext_load(const json_t *events, const hew_event *ev);

/* The text after applying (offset, append) to prev, as a new string (aborts on misfit). */
char *evtext_apply(const char *prev, size_t offset, const char *append, size_t len);

#endif
