/* evq — the event hand-over between the task thread and the terminal (see evq.h). Never
 * blocks the task thread on the terminal: the wake-up pipe is non-blocking and written
 * only when the queue goes from empty to non-empty. */
#include "evq.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct evq {
    pthread_mutex_t mu;
    evq_item *head, *tail;
    int pipe[2];
};

evq *evq_new(void)
{
    evq *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    if (pipe2(q->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->mu, NULL);
    return q;
}

void evq_item_free(evq_item *it)
{
    if (!it)
        return;
    free(it->type);
    free(it->text);
    free(it->data_json);
    free(it);
}

void evq_free(evq *q)
{
    if (!q)
        return;
    evq_item *it = q->head;
    while (it) {
        evq_item *next = it->next;
        evq_item_free(it);
        it = next;
    }
    close(q->pipe[0]);
    close(q->pipe[1]);
    pthread_mutex_destroy(&q->mu);
    free(q);
}

static char *dup_or_null(const char *s, int *failed)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *failed = 1;
    return d;
}

int evq_push(evq *q, const hew_event *ev)
{
    int failed = 0;
    char *text = dup_or_null(ev->text, &failed);
    char *data = dup_or_null(ev->data_json, &failed);
    char *type = dup_or_null(ev->type ? ev->type : "", &failed);
    if (failed) {
        free(text);
        free(data);
        free(type);
        return -1;
    }
    pthread_mutex_lock(&q->mu);
    evq_item *t = q->tail;
    if (t && t->partial && t->index == ev->index && t->is_ask == ev->is_ask &&
        strcmp(t->type, type) == 0) {
        /* the waiting update is superseded: keep its place, take the new contents */
        free(t->text);
        free(t->data_json);
        free(type);
        t->text = text;
        t->data_json = data;
        t->partial = ev->partial;
        pthread_mutex_unlock(&q->mu);
        return 0;
    }
    evq_item *it = calloc(1, sizeof *it);
    if (!it) {
        pthread_mutex_unlock(&q->mu);
        free(text);
        free(data);
        free(type);
        return -1;
    }
    it->index = ev->index;
    it->ts = ev->ts;
    it->is_ask = ev->is_ask;
    it->partial = ev->partial;
    it->type = type;
    it->text = text;
    it->data_json = data;
    int wake = !q->head;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    pthread_mutex_unlock(&q->mu);
    if (wake) {
        char c = 1;
        ssize_t w = write(q->pipe[1], &c, 1); /* full pipe: a wake-up is pending anyway */
        (void)w;
    }
    return 0;
}

evq_item *evq_pop(evq *q)
{
    char drain[64];
    while (read(q->pipe[0], drain, sizeof drain) > 0) {
    }
    pthread_mutex_lock(&q->mu);
    evq_item *it = q->head;
    if (it) {
        q->head = it->next;
        if (!q->head)
            q->tail = NULL;
        it->next = NULL;
    }
    pthread_mutex_unlock(&q->mu);
    return it;
}

int evq_fd(const evq *q)
{
    return q->pipe[0];
}
