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
    /* [mu] the text of message cur_index as its events' appends built it */
    long cur_index;
    char *cur;
    size_t cur_len, cur_cap;
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
    q->cur_index = -1;
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
    free(q->cur);
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

/* [mu] cur[0..n) as a new string, or NULL when out of memory. */
static char *cur_dup(const evq *q)
{
    char *d = malloc(q->cur_len + 1);
    if (d) {
        if (q->cur_len)
            memcpy(d, q->cur, q->cur_len);
        d[q->cur_len] = '\0';
    }
    return d;
}

/* [mu] The growing text moves to another message: items still waiting for the old one's
 * text get their copy now. */
static int cur_switch(evq *q, long index)
{
    for (evq_item *it = q->head; it; it = it->next) {
        if (it->live && it->index == q->cur_index) {
            it->text = cur_dup(q);
            it->live = 0;
            if (!it->text)
                return -1;
        }
    }
    q->cur_index = index;
    q->cur_len = 0;
    return 0;
}

/* [mu] Apply ev's append to the growing text: cur[0..offset) + append. An append that
 * does not fit (an event missed) takes the whole text instead. */
static int cur_apply(evq *q, const hew_event *ev)
{
    if (ev->index != q->cur_index && cur_switch(q, ev->index) != 0)
        return -1;
    size_t off = ev->append_offset;
    const char *add = ev->append_text;
    size_t n = ev->append_len;
    if (off > q->cur_len) {
        off = 0;
        add = ev->text ? ev->text : "";
        n = strlen(add);
    }
    if (off + n + 1 > q->cur_cap) {
        size_t cap = q->cur_cap ? q->cur_cap : 256;
        while (cap < off + n + 1)
            cap *= 2;
        char *grown = realloc(q->cur, cap);
        if (!grown)
            return -1;
        q->cur = grown;
        q->cur_cap = cap;
    }
    if (n)
        memcpy(q->cur + off, add, n);
    q->cur_len = off + n;
    return 0;
}

int evq_push(evq *q, const hew_event *ev)
{
    int failed = 0;
    char *data = dup_or_null(ev->data_json, &failed);
    char *type = dup_or_null(ev->type ? ev->type : "", &failed);
    if (failed) {
        free(data);
        free(type);
        return -1;
    }
    int has_text = ev->append_text != NULL;
    pthread_mutex_lock(&q->mu);
    if (has_text && cur_apply(q, ev) != 0) {
        pthread_mutex_unlock(&q->mu);
        free(data);
        free(type);
        return -1;
    }
    evq_item *t = q->tail;
    if (t && t->partial && t->index == ev->index && t->is_ask == ev->is_ask &&
        strcmp(t->type, type) == 0) {
        /* the waiting update is superseded: keep its place, take the new contents (its
         * text is the growing copy already) */
        free(t->text);
        free(t->data_json);
        free(type);
        t->text = NULL;
        t->live = has_text;
        t->data_json = data;
        t->partial = ev->partial;
        pthread_mutex_unlock(&q->mu);
        return 0;
    }
    evq_item *it = calloc(1, sizeof *it);
    if (!it) {
        pthread_mutex_unlock(&q->mu);
        free(data);
        free(type);
        return -1;
    }
    it->index = ev->index;
    it->ts = ev->ts;
    it->is_ask = ev->is_ask;
    it->partial = ev->partial;
    it->type = type;
    it->kind = ev->kind;
    it->live = has_text;
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
        if (it->live) /* the text as it is now (a newer version of a partial is fine) */
            it->text = cur_dup(q);
        it->live = 0;
    }
    pthread_mutex_unlock(&q->mu);
    return it;
}

int evq_fd(const evq *q)
{
    return q->pipe[0];
}
