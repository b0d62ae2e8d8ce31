/* sigwatch — the headless front ends' signals (hew -p, hew batch): SIGINT and SIGTERM are
 * blocked in the thread that starts the watcher and in every thread it starts after, and
 * one thread waits for them (or for a timeout) with sigtimedwait and calls back in its own
 * context — the signal handler problem solved without a handler. It must never run the
 * callback from a handler, nor leave the mask changed after sigwatch_stop. */
#ifndef HEW_CLI_SIGWATCH_H
#define HEW_CLI_SIGWATCH_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

/* sig: SIGINT or SIGTERM, or 0 when the timeout ran out. Runs on the watcher's thread. */
typedef void (*sigwatch_fn)(void *ud, int sig);

typedef struct sigwatch {
    pthread_t thread;
    bool running;
    bool once;         /* stop watching after the first call */
    long timeout_s;    /* > 0: call with 0 after this many seconds */
    sigwatch_fn fn;
    void *ud;
    sigset_t old;      /* the caller's mask, given back by sigwatch_stop */
} sigwatch;

/* Block the signals in the calling thread and start watching. once: the first signal (or
 * the timeout) is the last call; else every signal calls fn. 0, or -1 when no thread could
 * start (the signals stay blocked then, and are not watched: sigwatch_stop still
 * restores the mask). */
int sigwatch_start(sigwatch *w, long timeout_s, bool once, sigwatch_fn fn, void *ud);

/* Stop watching (the watcher is woken with SIGUSR1), join it, restore the mask. */
void sigwatch_stop(sigwatch *w);

#endif
