/* ask — the ask rendezvous (task.h, "ask"): the task thread opens an ask and waits; the
 * front end answers from any thread; a tool's non-blocking ask polls. Only this file
 * touches hew_task.ask, always under the task's mutex, and it never calls the front end
 * (task.c says the ask; this file only waits for its answer). */
#include <stdlib.h>
#include <string.h>

#include "task/task.h"

/* mu held. */
static void close_ask(hew_task *t)
{
    t->ask.waiting = false;
    t->ask.answered = false;
    tool_answer_release(&t->ask.answer);
}

/* mu held: the answer moves to *answer (NULL: dropped), the ask closes. */
static void take(hew_task *t, tool_answer *answer)
{
    if (answer) {
        *answer = t->ask.answer;
        t->ask.answer.text = NULL;
        t->ask.answer.images = t->ask.answer.captions = NULL;
    }
    close_ask(t);
}

void task_ask_open(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    close_ask(t);
    t->ask.waiting = true;
    pthread_mutex_unlock(&t->mu);
}

hew_code task_ask_wait(hew_task *t, tool_answer *answer)
{
    pthread_mutex_lock(&t->mu);
    while (!t->ask.answered && !abort_is_set(t->abort))
        pthread_cond_wait(&t->cv, &t->mu);
    bool answered = t->ask.answered;
    take(t, answered ? answer : NULL);
    pthread_mutex_unlock(&t->mu);
    return answered ? HEW_OK : HEW_E_ABORTED;
}

bool task_ask_poll(hew_task *t, bool open, bool close, tool_answer *answer)
{
    bool got = false;
    pthread_mutex_lock(&t->mu);
    if (t->ask.waiting && t->ask.answered) {
        take(t, answer);
        got = true;
    } else if (open && !t->ask.waiting) {
        close_ask(t);
        t->ask.waiting = true;
    } else if (close) {
        close_ask(t);
    }
    pthread_mutex_unlock(&t->mu);
    return got;
}

hew_code task_ask_respond(hew_task *t, tool_answer_kind kind, const char *text, bool by_rule,
                          json_t *images, json_t *captions)
{
    char *copy = text ? strdup(text) : NULL;
    if (text && !copy) {
        json_decref(images);
        json_decref(captions);
        return HEW_E_NOMEM;
    }
    pthread_mutex_lock(&t->mu);
    if (!t->ask.waiting || t->ask.answered) {
        pthread_mutex_unlock(&t->mu);
        free(copy);
        json_decref(images);
        json_decref(captions);
        return HEW_E_STATE;
    }
    tool_answer_release(&t->ask.answer);
    t->ask.answer.kind = kind;
    t->ask.answer.text = copy;
    t->ask.answer.images = json_array_size(images) ? images : NULL;
    t->ask.answer.captions = t->ask.answer.images ? captions : NULL;
    if (!t->ask.answer.images) {
        json_decref(images);
        json_decref(captions);
    }
    t->ask.answer.by_rule = by_rule && kind == TOOL_ANSWER_YES;
    t->ask.answered = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return HEW_OK;
}

bool task_ask_pending(hew_task *t)
{
    pthread_mutex_lock(&t->mu);
    bool pending = t->ask.waiting && !t->ask.answered;
    pthread_mutex_unlock(&t->mu);
    return pending;
}

void task_ask_release(hew_task *t)
{
    tool_answer_release(&t->ask.answer);
}
