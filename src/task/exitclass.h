/* exitclass — how a task ended, as the class a headless front end exits with
 * (hew_exit_class, include/hew.h; docs/events.md "Exit status"). A pure function of the
 * facts the task recorded — its status, the provider error it failed on (a category, not
 * a message), a budget that ran out, the actions denied for want of approval — decided
 * by two tables: a provider error's category → its class, and each class's precedence
 * when several facts hold. Never reads a message text, never touches a task. */
#ifndef HEW_TASK_EXITCLASS_H
#define HEW_TASK_EXITCLASS_H

#include <stdbool.h>
#include <stddef.h>

#include "api/error.h"
#include "hew.h"

typedef struct exitclass_facts {
    hew_task_status status;
    bool budget;                 /* a budget (max_cost_usd, max_requests) stopped it */
    api_error_category failure;  /* the provider error it failed on, or API_ERR_NONE */
    bool failure_retryable;      /* that error was one retries could help (they ran out) */
    size_t denied;               /* actions denied for want of approval */
} exitclass_facts;

/* The class of the facts: the one of highest precedence among those that hold
 * (interrupted > timeout > budget > refused = unavailable = config > denied > failed >
 * completed). A running task is HEW_EXIT_COMPLETED. */
hew_exit_class exitclass_of(const exitclass_facts *f);
/* The class a provider error leads to when the task fails on it: auth, billing and a
 * rate limit no retry outlasts (an exhausted quota) → refused; a retryable rate limit,
 * overloaded, server errors, network, timeout → unavailable; not_found → config;
 * anything else (bad_request, context window, content policy, ...) → failed. */
hew_exit_class exitclass_of_error(api_error_category c, bool retryable);
/* The class as a word ("completed", "failed", "config", "refused", "unavailable",
 * "timeout", "budget", "denied", "interrupted"; "unknown" for another number). */
const char *exitclass_name(hew_exit_class c);

#endif
