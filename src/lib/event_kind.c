/* event_kind — the public face of the event-kind table (hew_event_kind_of), for front ends
 * that rebuild events from stored lines. It must never keep a table of its own. */
#include "hew.h"
#include "task/evkind.h"

hew_event_kind hew_event_kind_of(const char *type)
{
    return evkind_of(type);
}
