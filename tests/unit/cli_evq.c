/* cli_evq — the terminal's event queue keeps its own copy of a growing message's text,
 * built from the events' appends (docs/events.md, schema 2): whatever the interleaving of
 * pushes (partial updates, tail rewrites, several messages) and pops, an item taken out
 * carries a text its message really had (never an older one than the item before it), and
 * a final item exactly the message's final text — from the appends alone (the events it is
 * given carry no whole text; before, the queue copied the whole text of every event). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evq.h"

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

#define MAXV 32

/* The versions of one message's text, in order. */
typedef struct msg {
    char *v[MAXV];
    size_t n;
} msg;

/* Check one item taken out: its text is a version of its message no older than the
 * last one taken out for it (*last), and a final item's is the final text. */
static void check_item(const msg *msgs, size_t *last, const evq_item *it, unsigned seed)
{
    const msg *m = &msgs[it->index];
    size_t k = last[it->index];
    while (k < m->n && (!it->text || strcmp(m->v[k], it->text) != 0))
        k++;
    check_count++;
    if (k == m->n || (!it->partial && strcmp(it->text, m->v[m->n - 1]) != 0)) {
        check_fail(__FILE__, __LINE__, "seed %u: item of message %ld (%s) has text \"%s\"", seed,
                   it->index, it->partial ? "partial" : "final", it->text ? it->text : "(null)");
        return;
    }
    last[it->index] = k;
}

static void test_pops_see_the_texts_the_messages_had(void)
{
    for (unsigned k = 0; k < 300; k++) {
        unsigned seed = k * 40503u + 11;
        evq *q = evq_new();
        REQUIRE(q != NULL);
        msg msgs[3];
        memset(msgs, 0, sizeof msgs);
        size_t last[3] = { 0, 0, 0 };
        for (long index = 0; index < 3; index++) {
            msg *m = &msgs[index];
            char text[512] = "";
            size_t len = 0, said = 0; /* what the last event of this message gave */
            size_t steps = 1 + rnd(&seed) % 20;
            for (size_t s = 0; s <= steps; s++) {
                /* grow, or rewrite from a point */
                size_t cut = rnd(&seed) % 4 == 0 && len ? rnd(&seed) % len : len;
                size_t from = cut < said ? cut : said;
                len = cut;
                size_t add = 1 + rnd(&seed) % 8;
                for (size_t i = 0; i < add; i++)
                    text[len++] = (char)('a' + rnd(&seed) % 26);
                text[len] = '\0';
                m->v[m->n++] = strdup(text);
                hew_event ev = { 0 };
                ev.index = index;
                ev.type = "text";
                ev.kind = HEW_EV_TEXT;
                ev.partial = s < steps;
                /* only the append: the queue must not need the whole text */
                ev.text = NULL;
                ev.append_offset = from;
                ev.append_text = text + from;
                ev.append_len = len - from;
                said = len;
                REQUIRE(evq_push(q, &ev) == 0);
                evq_item *it;
                while (rnd(&seed) % 3 == 0 && (it = evq_pop(q))) {
                    check_item(msgs, last, it, seed);
                    evq_item_free(it);
                }
            }
        }
        evq_item *it;
        while ((it = evq_pop(q))) {
            check_item(msgs, last, it, seed);
            evq_item_free(it);
        }
        for (int i = 0; i < 3; i++)
            for (size_t v = 0; v < msgs[i].n; v++)
                free(msgs[i].v[v]);
        evq_free(q);
    }
}

int main(void)
{
    RUN(test_pops_see_the_texts_the_messages_had);
    return check_report();
}
