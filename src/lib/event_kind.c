/* event_kind — the public face of the events' tables: the kinds (hew_event_kind_of), for
 * front ends that rebuild events from stored lines, and an event's JSON line
 * (hew_event_json), built by the task only when asked. It must never keep a table or a
 * line format of its own. */
#include "hew.h"
#include "task/evkind.h"
#include "task/task.h"

hew_event_kind hew_event_kind_of(const char *type)
{
    return evkind_of(type);
}

const char *hew_event_json(const hew_event *ev)
{
    return ev && ev->line_ ? task_event_line(ev->line_) : "{}";
}
