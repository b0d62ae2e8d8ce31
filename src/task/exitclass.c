/* exitclass — the two tables that turn a task's recorded facts into its exit class (see
 * exitclass.h). Never reads message text, never touches a task, never says anything. */
#include "task/exitclass.h"

/* Each class with its word and its precedence (higher wins when several facts hold).
 * Why this order: a stop from outside (interrupt, the front end's timeout) says most
 * about why the run ended; a budget is the caller's own limit; a provider that refused
 * the key or stayed down (and a model or URL it does not know) failed the task whatever
 * else happened; denied actions come before a plain failure, because a task that failed
 * after its actions were refused most often failed for want of them (re-run with the flag
 * first); a failure beats completed. */
static const struct {
    hew_exit_class code;
    const char *name;
    int rank;
} classes[] = {
    { HEW_EXIT_INTERRUPTED, "interrupted", 8 },
    { HEW_EXIT_TIMEOUT, "timeout", 7 },
    { HEW_EXIT_BUDGET, "budget", 6 },
    { HEW_EXIT_REFUSED, "refused", 5 },
    { HEW_EXIT_UNAVAILABLE, "unavailable", 5 },
    { HEW_EXIT_CONFIG, "config", 5 },
    { HEW_EXIT_DENIED, "denied", 3 },
    { HEW_EXIT_FAILED, "failed", 2 },
    { HEW_EXIT_COMPLETED, "completed", 0 },
};

#define NCLASSES (sizeof classes / sizeof classes[0])

/* A provider error's class: when retryable (the automatic retries ran out) and when not. */
static const struct {
    api_error_category category;
    hew_exit_class retryable, final;
} by_error[] = {
    { API_ERR_AUTH, HEW_EXIT_REFUSED, HEW_EXIT_REFUSED },
    { API_ERR_BILLING, HEW_EXIT_REFUSED, HEW_EXIT_REFUSED },
    /* a rate limit that retries could outlast stayed: unavailable; one they cannot (a
     * quota exhausted for the day) is the account's: refused */
    { API_ERR_RATE_LIMIT, HEW_EXIT_UNAVAILABLE, HEW_EXIT_REFUSED },
    { API_ERR_OVERLOADED, HEW_EXIT_UNAVAILABLE, HEW_EXIT_UNAVAILABLE },
    { API_ERR_SERVER, HEW_EXIT_UNAVAILABLE, HEW_EXIT_UNAVAILABLE },
    { API_ERR_NETWORK, HEW_EXIT_UNAVAILABLE, HEW_EXIT_UNAVAILABLE },
    { API_ERR_TIMEOUT, HEW_EXIT_UNAVAILABLE, HEW_EXIT_UNAVAILABLE },
    { API_ERR_NOT_FOUND, HEW_EXIT_CONFIG, HEW_EXIT_CONFIG },
};

static int rank_of(hew_exit_class c)
{
    for (size_t i = 0; i < NCLASSES; i++)
        if (classes[i].code == c)
            return classes[i].rank;
    return -1;
}

const char *exitclass_name(hew_exit_class c)
{
    for (size_t i = 0; i < NCLASSES; i++)
        if (classes[i].code == c)
            return classes[i].name;
    return "unknown";
}

hew_exit_class exitclass_of_error(api_error_category c, bool retryable)
{
    for (size_t i = 0; i < sizeof by_error / sizeof by_error[0]; i++)
        if (by_error[i].category == c)
            return retryable ? by_error[i].retryable : by_error[i].final;
    return HEW_EXIT_FAILED;
}

hew_exit_class exitclass_of(const exitclass_facts *f)
{
    hew_exit_class held[4];
    size_t n = 0;
    if (f->status == HEW_TASK_ABORTED)
        held[n++] = HEW_EXIT_INTERRUPTED;
    if (f->status == HEW_TASK_FAILED)
        held[n++] = f->budget ? HEW_EXIT_BUDGET
                    : f->failure != API_ERR_NONE
                        ? exitclass_of_error(f->failure, f->failure_retryable)
                        : HEW_EXIT_FAILED;
    if (f->denied > 0 && f->status != HEW_TASK_RUNNING)
        held[n++] = HEW_EXIT_DENIED;
    hew_exit_class best = HEW_EXIT_COMPLETED;
    for (size_t i = 0; i < n; i++)
        if (rank_of(held[i]) > rank_of(best))
            best = held[i];
    return best;
}
