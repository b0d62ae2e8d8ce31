/* sigflags — signal handlers that only set flags (see sigflags.h). */
#include "sigflags.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t flags[SIGF_COUNT];
static struct sigaction old_int, old_winch, old_term, old_hup;
static int installed;

static void on_signal(int sig)
{
    if (sig == SIGINT)
        flags[SIGF_INT] = 1;
    else if (sig == SIGWINCH)
        flags[SIGF_WINCH] = 1;
    else
        flags[SIGF_QUIT] = 1;
}

void sigflags_install(void)
{
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a poll or read must return EINTR */
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGWINCH, &sa, &old_winch);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    installed = 1;
}

void sigflags_restore(void)
{
    if (!installed)
        return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGWINCH, &old_winch, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    installed = 0;
}

int sigflags_take(int which)
{
    int v = flags[which];
    flags[which] = 0;
    return v;
}

int sigflags_peek(int which)
{
    return flags[which];
}

static void fill(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGWINCH);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

void sigflags_block(void *old_sigset)
{
    sigset_t set;
    fill(&set);
    pthread_sigmask(SIG_BLOCK, &set, (sigset_t *)old_sigset);
}

void sigflags_unblock(const void *old_sigset)
{
    pthread_sigmask(SIG_SETMASK, (const sigset_t *)old_sigset, NULL);
}
