/* evkind — a message's type string as the public event-kind enum (hew_event_kind): the
 * one table of the types the task says and asks, so that front ends switch on an enum
 * and never compare strings. It must never hold anything but that mapping. */
#ifndef HEW_TASK_EVKIND_H
#define HEW_TASK_EVKIND_H

#include "hew.h"

/* The kind of a type ("text", "tool", …); HEW_EV_OTHER for NULL or a type not listed. */
hew_event_kind evkind_of(const char *type);

#endif
