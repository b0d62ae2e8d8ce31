/* watch — inotify on the settings files' folders (see watch.h). One thread polls the
 * inotify descriptor and a stop pipe; events for other names in the folders are ignored. */
#include "mcp/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_MAX 4

struct mcp_watch {
    int ifd;
    int stop_r, stop_w;
    pthread_t thread;
    int wd[WATCH_MAX];
    char *name[WATCH_MAX]; /* the file name watched in each folder */
    int n;
    void (*fn)(void *ud);
    void *ud;
};

/* True when the event is about one of the watched files. */
static bool ours(const mcp_watch *w, const struct inotify_event *ev)
{
    for (int i = 0; i < w->n; i++)
        if (ev->wd == w->wd[i] && ev->len && strcmp(ev->name, w->name[i]) == 0)
            return true;
    return false;
}

/* Read what is there; true when a watched file changed. */
static bool drain(mcp_watch *w)
{
    char b[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool hit = false;
    for (;;) {
        ssize_t n = read(w->ifd, b, sizeof b);
        if (n <= 0)
            return hit;
        for (char *p = b; p < b + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            hit = hit || ours(w, ev);
            p += sizeof *ev + ev->len;
        }
    }
}

static void *watch_main(void *arg)
{
    mcp_watch *w = arg;
    bool pending = false;
    for (;;) {
        struct pollfd p[2] = { { w->ifd, POLLIN, 0 }, { w->stop_r, POLLIN, 0 } };
        int r = poll(p, 2, pending ? WATCH_SETTLE_MS : -1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (p[1].revents & (POLLIN | POLLHUP)))
            return NULL;
        if (r == 0) { /* settled */
            pending = false;
            w->fn(w->ud);
            continue;
        }
        if (p[0].revents & POLLIN)
            pending = drain(w) || pending;
    }
}

static void free_watch(mcp_watch *w)
{
    if (w->ifd >= 0)
        close(w->ifd);
    if (w->stop_r >= 0)
        close(w->stop_r);
    if (w->stop_w >= 0)
        close(w->stop_w);
    for (int i = 0; i < w->n; i++)
        free(w->name[i]);
    free(w);
}

hew_code mcp_watch_start(const char *const *paths, int npaths, void (*fn)(void *ud), void *ud,
                         mcp_watch **out, hew_err *err)
{
    *out = NULL;
    mcp_watch *w = calloc(1, sizeof *w);
    if (!w)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    w->ifd = w->stop_r = w->stop_w = -1;
    w->fn = fn;
    w->ud = ud;
    int pipefd[2];
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->ifd < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
        hew_code rc = hew_err_set(err, HEW_E_IO, "cannot watch the MCP settings: %s",
                                  strerror(errno));
        free_watch(w);
        return rc;
    }
    w->stop_r = pipefd[0];
    w->stop_w = pipefd[1];
    for (int i = 0; i < npaths && w->n < WATCH_MAX; i++) {
        const char *path = paths[i];
        const char *slash = path ? strrchr(path, '/') : NULL;
        if (!slash || !slash[1])
            continue;
        char dir[PATH_MAX];
        size_t dlen = slash == path ? 1 : (size_t)(slash - path);
        if (dlen >= sizeof dir)
            continue;
        memcpy(dir, path, dlen);
        dir[dlen] = '\0';
        int wd = inotify_add_watch(w->ifd, dir,
                                   IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE |
                                       IN_MOVED_FROM);
        if (wd < 0)
            continue; /* no such folder (yet): not watched */
        char *name = strdup(slash + 1);
        if (!name)
            continue;
        w->wd[w->n] = wd;
        w->name[w->n] = name;
        w->n++;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, watch_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free_watch(w);
        return hew_err_set(err, HEW_E_NOMEM, "cannot start the MCP settings watcher");
    }
    *out = w;
    return HEW_OK;
}

void mcp_watch_stop(mcp_watch *w)
{
    if (!w)
        return;
    char c = 0;
    ssize_t ignored = write(w->stop_w, &c, 1);
    (void)ignored;
    pthread_join(w->thread, NULL);
    free_watch(w);
}
