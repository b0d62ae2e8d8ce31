/* cli_evq — the terminal's event queue hands over a growing message's text as appends
 * (docs/events.md, schema 2), never the whole text again: whatever the interleaving of
 * pushes (partial updates, tail rewrites, several messages) and pops, the text a terminal
 * builds by applying the items it takes out (its text cut to the item's offset, then the
 * item's bytes) is a version its message really had (never older than the one before),
 * and after a final item exactly the final text; an item carries no more than was
 * appended to its message since the terminal last took one of it out (several queued
 * updates become one), and
 * a partial update of a long text hands over only its delta (before, every pop copied the
 * whole text out). */
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

/* The terminal's side: one text per message, grown by the items' appends. */
typedef struct mirror {
    char text[1024];
    size_t len;
} mirror;

/* Apply one item taken out to its message's mirror and check the result: a version of
 * the message no older than the last one seen (*last), the final text after a final
 * item; and the item no longer than what was appended since the last pop (*added). */
static void check_item(const msg *msgs, mirror *mirrors, size_t *last, const evq_item *it,
                       size_t added, unsigned seed)
{
    const msg *m = &msgs[it->index];
    mirror *mi = &mirrors[it->index];
    check_count++;
    if (!it->text || it->offset > mi->len || it->len > added ||
        it->offset + it->len >= sizeof mi->text) {
        check_fail(__FILE__, __LINE__, "seed %u: item of message %ld: offset %zu len %zu (had %zu,"
                   " %zu appended since the last pop)", seed, it->index, it->offset, it->len,
                   mi->len, added);
        return;
    }
    memcpy(mi->text + it->offset, it->text, it->len);
    mi->len = it->offset + it->len;
    mi->text[mi->len] = '\0';
    size_t k = last[it->index];
    while (k < m->n && strcmp(m->v[k], mi->text) != 0)
        k++;
    check_count++;
    if (k == m->n || (!it->partial && strcmp(mi->text, m->v[m->n - 1]) != 0)) {
        check_fail(__FILE__, __LINE__, "seed %u: message %ld (%s) became \"%s\"", seed,
                   it->index, it->partial ? "partial" : "final", mi->text);
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
        mirror mirrors[3];
        memset(mirrors, 0, sizeof mirrors);
        size_t added[3] = { 0, 0, 0 }; /* bytes appended since the message's last pop */
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
                added[index] += len - from;
                evq_item *it;
                while (rnd(&seed) % 3 == 0 && (it = evq_pop(q))) {
                    check_item(msgs, mirrors, last, it, added[it->index], seed);
                    added[it->index] = 0;
                    evq_item_free(it);
                }
            }
        }
        evq_item *it;
        while ((it = evq_pop(q))) {
            check_item(msgs, mirrors, last, it, added[it->index], seed);
            added[it->index] = 0;
            evq_item_free(it);
        }
        for (int i = 0; i < 3; i++)
            for (size_t v = 0; v < msgs[i].n; v++)
                free(msgs[i].v[v]);
        evq_free(q);
    }
}

/* A partial update of a long text hands over what was appended, not the text (written
 * with the item's text alone, so it says the same of the queue as it was: that one copied
 * the whole text out at every pop). */
static void test_pop_carries_only_the_append(void)
{
    enum { LONG = 100000 };
    char *text = malloc(LONG + 11);
    REQUIRE(text != NULL);
    memset(text, 'a', LONG + 10);
    text[LONG + 10] = '\0';
    evq *q = evq_new();
    REQUIRE(q != NULL);
    hew_event ev = { 0 };
    ev.index = 4;
    ev.type = "text";
    ev.kind = HEW_EV_TEXT;
    ev.partial = 1;
    ev.append_text = text;
    ev.append_len = LONG;
    REQUIRE(evq_push(q, &ev) == 0);
    evq_item *it = evq_pop(q);
    REQUIRE(it != NULL);
    CHECK_INT(strlen(it->text), LONG);
    evq_item_free(it);
    /* two updates of 4 and 6 bytes queued before the terminal looks: one item of 10 */
    ev.append_offset = LONG;
    ev.append_text = text + LONG;
    ev.append_len = 4;
    REQUIRE(evq_push(q, &ev) == 0);
    ev.append_offset = LONG + 4;
    ev.append_text = text + LONG + 4;
    ev.append_len = 6;
    REQUIRE(evq_push(q, &ev) == 0);
    it = evq_pop(q);
    REQUIRE(it != NULL);
    CHECK_INT(strlen(it->text), 10);
    CHECK(evq_pop(q) == NULL);
    evq_item_free(it);
    evq_free(q);
    free(text);
}

/* Queued updates that rewrite a tail merge into one append from the lowest offset: the
 * terminal's text after it is the newest text. */
static void test_merge_of_a_rewrite(void)
{
    evq *q = evq_new();
    REQUIRE(q != NULL);
    hew_event ev = { 0 };
    ev.index = 2;
    ev.type = "text";
    ev.kind = HEW_EV_TEXT;
    ev.partial = 1;
    ev.append_text = "hello <thi";
    ev.append_len = 10;
    REQUIRE(evq_push(q, &ev) == 0);
    evq_item *it = evq_pop(q);
    REQUIRE(it != NULL);
    evq_item_free(it);
    ev.append_offset = 10; /* "hello <thing" */
    ev.append_text = "ng";
    ev.append_len = 2;
    REQUIRE(evq_push(q, &ev) == 0);
    ev.append_offset = 6; /* the tag was taken back: "hello world" */
    ev.append_text = "world";
    ev.append_len = 5;
    REQUIRE(evq_push(q, &ev) == 0);
    ev.append_offset = 11; /* "hello world!" */
    ev.append_text = "!";
    ev.append_len = 1;
    ev.partial = 0;
    REQUIRE(evq_push(q, &ev) == 0);
    it = evq_pop(q);
    REQUIRE(it != NULL);
    CHECK_INT(it->offset, 6);
    CHECK_STR(it->text, "world!");
    CHECK_INT(it->partial, 0);
    CHECK(evq_pop(q) == NULL);
    evq_item_free(it);
    evq_free(q);
}

/* An update of a message other than the last one with text, at an offset past 0, comes
 * whole (the terminal holds one message's text): from offset 0, the event's whole text. */
static void test_switching_back_sends_the_whole_text(void)
{
    evq *q = evq_new();
    REQUIRE(q != NULL);
    hew_event ev = { 0 };
    ev.type = "text";
    ev.kind = HEW_EV_TEXT;
    ev.partial = 1;
    ev.index = 1;
    ev.append_text = "abc";
    ev.append_len = 3;
    REQUIRE(evq_push(q, &ev) == 0);
    ev.index = 2;
    ev.type = "error";
    ev.kind = HEW_EV_ERROR;
    ev.partial = 0;
    ev.append_text = "boom";
    ev.append_len = 4;
    REQUIRE(evq_push(q, &ev) == 0);
    ev.index = 1;
    ev.type = "text";
    ev.kind = HEW_EV_TEXT;
    ev.append_offset = 3;
    ev.append_text = "d";
    ev.append_len = 1;
    ev.text = "abcd";
    REQUIRE(evq_push(q, &ev) == 0);
    evq_item *it;
    const char *want[] = { "abc", "boom", "abcd" };
    for (int i = 0; i < 3; i++) {
        it = evq_pop(q);
        REQUIRE(it != NULL);
        CHECK_INT(it->offset, 0);
        CHECK_STR(it->text, want[i]);
        evq_item_free(it);
    }
    evq_free(q);
}

int main(void)
{
    RUN(test_pops_see_the_texts_the_messages_had);
    RUN(test_pop_carries_only_the_append);
    RUN(test_merge_of_a_rewrite);
    RUN(test_switching_back_sends_the_whole_text);
    return check_report();
}
