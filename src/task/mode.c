/* mode — the task's mode now (ACT or PLAN), under the task's mutex: the front end switches
 * it from any thread (hew_task_set_mode), the task thread reads it for each request and
 * a tool (plan_mode_respond) may switch it. Only this file touches hew_task.mode. */
#include "task/task.h"

mode_kind task_mode_get(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    mode_kind m = t->mode;
    pthread_mutex_unlock(&t->mu);
    return m;
}

void task_mode_set(hew_task *t, mode_kind m)
{
    pthread_mutex_lock(&t->mu);
    t->mode = m;
    pthread_mutex_unlock(&t->mu);
}
