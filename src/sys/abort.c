/* abort — cancellation token: a flag, a condition variable for sleepers and a small table
 * of wake-up listeners (see abort.h). Never blocks for long while holding its lock. */
#include "sys/abort.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sys/clock.h"

#define ABORT_MAX_LISTENERS 16
#define ABORT_REASON_MAX 256

struct abort_slot {
    int id;
    abort_listener_fn fn;
    void *ud;
};

struct hew_abort {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    atomic_bool set;
    char reason[ABORT_REASON_MAX];
    int next_id;
    struct abort_slot slots[ABORT_MAX_LISTENERS];
};

hew_abort *abort_new(void)
{
    hew_abort *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    pthread_mutex_init(&a->lock, NULL);
    clock_cond_init(&a->cond);
    atomic_init(&a->set, false);
    a->next_id = 1;
    return a;
}

void abort_free(hew_abort *a)
{
    if (!a)
        return;
    pthread_cond_destroy(&a->cond);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

void abort_trigger(hew_abort *a, const char *reason)
{
    pthread_mutex_lock(&a->lock);
    if (!atomic_load(&a->set)) {
        size_t n = reason ? strlen(reason) : 0;
        if (n >= sizeof a->reason)
            n = sizeof a->reason - 1;
        if (n)
            memcpy(a->reason, reason, n);
        a->reason[n] = '\0';
        atomic_store(&a->set, true);
    }
    for (int i = 0; i < ABORT_MAX_LISTENERS; i++)
        if (a->slots[i].id)
            a->slots[i].fn(a->slots[i].ud);
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
}

bool abort_is_set(const hew_abort *a)
{
    return a && atomic_load(&a->set);
}

const char *abort_reason(const hew_abort *a)
{
    return abort_is_set(a) ? a->reason : "";
}

void abort_reset(hew_abort *a)
{
    pthread_mutex_lock(&a->lock);
    atomic_store(&a->set, false);
    a->reason[0] = '\0';
    pthread_mutex_unlock(&a->lock);
}

bool abort_sleep(hew_abort *a, long ms)
{
    if (!a) {
        clock_sleep_ms(ms);
        return false;
    }
    long long deadline = clock_now_ms() + (ms > 0 ? ms : 0);
    pthread_mutex_lock(&a->lock);
    while (!atomic_load(&a->set) && clock_cond_wait_until(&a->cond, &a->lock, deadline))
        ;
    bool aborted = atomic_load(&a->set);
    pthread_mutex_unlock(&a->lock);
    return aborted;
}

int abort_listen(hew_abort *a, abort_listener_fn fn, void *ud)
{
    int id = 0;
    pthread_mutex_lock(&a->lock);
    for (int i = 0; i < ABORT_MAX_LISTENERS; i++) {
        if (!a->slots[i].id) {
            id = a->next_id++;
            if (a->next_id <= 0)
                a->next_id = 1;
            a->slots[i] = (struct abort_slot){ id, fn, ud };
            if (atomic_load(&a->set))
                fn(ud);
            break;
        }
    }
    pthread_mutex_unlock(&a->lock);
    return id;
}

void abort_unlisten(hew_abort *a, int id)
{
    if (id <= 0)
        return;
    pthread_mutex_lock(&a->lock);
    for (int i = 0; i < ABORT_MAX_LISTENERS; i++)
        if (a->slots[i].id == id)
            a->slots[i] = (struct abort_slot){ 0, NULL, NULL };
    pthread_mutex_unlock(&a->lock);
}
