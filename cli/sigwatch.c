/* sigwatch — see sigwatch.h. */
#include "sigwatch.h"

#include <errno.h>
#include <time.h>

static void watched(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGUSR1); /* "stop watching" (sigwatch_stop) */
}

static void *watch(void *arg)
{
    sigwatch *w = arg;
    sigset_t set;
    watched(&set);
    struct timespec limit = { w->timeout_s, 0 };
    for (;;) {
        int sig = w->timeout_s > 0 ? sigtimedwait(&set, NULL, &limit) : sigwaitinfo(&set, NULL);
        if (sig < 0 && errno == EINTR)
            continue;
        if (sig == SIGUSR1 || (sig < 0 && errno != EAGAIN))
            return NULL;
        w->fn(w->ud, sig < 0 ? 0 : sig);
        if (w->once || sig < 0)
            return NULL;
    }
}

int sigwatch_start(sigwatch *w, long timeout_s, bool once, sigwatch_fn fn, void *ud)
{
    w->once = once;
    w->timeout_s = timeout_s;
    w->fn = fn;
    w->ud = ud;
    sigset_t set;
    watched(&set);
    pthread_sigmask(SIG_BLOCK, &set, &w->old);
    w->running = pthread_create(&w->thread, NULL, watch, w) == 0;
    return w->running ? 0 : -1;
}

void sigwatch_stop(sigwatch *w)
{
    if (w->running) {
        pthread_kill(w->thread, SIGUSR1);
        pthread_join(w->thread, NULL);
        w->running = false;
    }
    pthread_sigmask(SIG_SETMASK, &w->old, NULL);
}
