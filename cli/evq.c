/* evq — the event hand-over between the task thread and the terminal (see evq.h). Never
 * blocks the task thread on the terminal: the wake-up pipe is non-blocking and written
 * only when the queue goes from empty to non-empty. Never copies a message's whole text
 * for an update: an item holds the appends since the one before it. */
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
    /* [mu] the message the last item with text was about (-1 none), and whether an event
     * was lost since: an append then may not fit what the terminal has, so the next item
     * with text carries the whole text from offset 0 */
    long text_index;
    int lost;
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
    q->text_index = -1;
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

/* Add one append (the message's text is now text[0..off) + add[0..n)) to what the item
 * carries: it->text holds the bytes from it->offset on, so an append at or after that
 * point keeps the item's bytes before it, and one before it replaces them all (the
 * terminal's copy still has the bytes before off: only bytes from it->offset on changed
 * since it took the item before). Costs n, never the message's length. Returns 0, or -1
 * when out of memory (the item is left as it was). */
static int item_append(evq_item *it, size_t off, const char *add, size_t n)
{
    size_t keep = 0, start = off;
    if (it->text && off >= it->offset) {
        start = it->offset;
        keep = off - it->offset;
        if (keep > it->len) /* does not fit: cannot happen with a consistent stream */
            keep = it->len;
    }
    if (keep + n + 1 > it->cap) {
        size_t cap = it->cap ? it->cap : 64;
        while (cap < keep + n + 1)
            cap *= 2;
        char *grown = realloc(it->text, cap);
        if (!grown)
            return -1;
        it->text = grown;
        it->cap = cap;
    }
    if (n)
        memcpy(it->text + keep, add, n);
    it->text[keep + n] = '\0';
    it->offset = start;
    it->len = keep + n;
    return 0;
}

/* Under mu: message index's append (add may be NULL: none) goes into item it; the queue
 * then knows the terminal's copy is that message's (or, on failure, that it is lost). */
static int take_append(evq *q, evq_item *it, long index, size_t off, const char *add,
                       size_t n)
{
    if (!add)
        return 0;
    if (item_append(it, off, add, n) != 0) {
        q->lost = 1;
        return -1;
    }
    q->text_index = index;
    q->lost = 0;
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
        pthread_mutex_lock(&q->mu);
        q->lost = 1;
        pthread_mutex_unlock(&q->mu);
        return -1;
    }
    size_t off = ev->append_offset;
    const char *add = ev->append_text;
    size_t n = ev->append_len;
    pthread_mutex_lock(&q->mu);
    if (add && (q->lost || (ev->index != q->text_index && off != 0)) && ev->text) {
        /* the terminal's copy may not be this message's text as the append expects
         * (an event was lost, or another message came between): send it whole */
        off = 0;
        add = ev->text;
        n = strlen(ev->text);
    }
    evq_item *t = q->tail;
    if (t && t->partial && t->index == ev->index && t->is_ask == ev->is_ask &&
        strcmp(t->type, type) == 0 && (add != NULL) == (t->text != NULL)) {
        /* the waiting update is superseded: keep its place, merge the append into it */
        if (take_append(q, t, ev->index, off, add, n) != 0) {
            pthread_mutex_unlock(&q->mu);
            free(data);
            free(type);
            return -1;
        }
        free(t->data_json);
        free(type);
        t->data_json = data;
        t->partial = ev->partial;
        pthread_mutex_unlock(&q->mu);
        return 0;
    }
    evq_item *it = calloc(1, sizeof *it);
    if (!it)
        q->lost = 1;
    if (!it || take_append(q, it, ev->index, off, add, n) != 0) {
        pthread_mutex_unlock(&q->mu);
        if (it)
            free(it->text);
        free(it);
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
