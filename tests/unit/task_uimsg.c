/* task_uimsg — messages grow by appends (docs/events.md, schema 2): for any sequence of
 * updates of a message (growing, a tail rewritten, a whole new text, multi-byte
 * characters), applying every event's append to the text of the previous event — starting
 * from nothing — gives each update's text and the final one; a partial update's JSON line
 * carries only "append", a final one the whole "text"; and an append never starts inside a
 * UTF-8 character. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evtext.h"
#include "task/uimsg.h"

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* The next version of a text: grown, its tail rewritten, or replaced. */
static void next_text(unsigned *seed, buf *t)
{
    static const char *const bits[] = { "a", "bc", " ", "é", "è", "日本", "<", "\n", "x" };
    unsigned how = rnd(seed) % 10;
    if (how == 0)
        buf_reset(t);
    else if (how <= 2 && t->len) {
        size_t n = rnd(seed) % t->len; /* the tail rewritten, cut on a character */
        while (n && ((unsigned char)t->data[n] & 0xC0) == 0x80)
            n--;
        buf_truncate(t, n);
    }
    size_t n = 1 + rnd(seed) % 4;
    for (size_t i = 0; i < n; i++)
        buf_puts(t, bits[rnd(seed) % (sizeof bits / sizeof bits[0])]);
}

static void test_appends_rebuild_every_update(void)
{
    for (unsigned k = 0; k < 500; k++) {
        unsigned seed = k * 2654435761u + 3;
        uimsg_list l = UIMSG_LIST_INIT;
        uimsg_put(&l, UIMSG_SAY, "task", "first", NULL, UIMSG_WHOLE);
        buf t = BUF_INIT(0), line = BUF_INIT(0);
        char *seen = NULL; /* the front end's own text */
        size_t steps = 1 + rnd(&seed) % 30;
        for (size_t s = 0; s <= steps; s++) {
            next_text(&seed, &t);
            bool last = s == steps;
            long i = uimsg_put(&l, UIMSG_SAY, "text", t.data ? t.data : "", NULL,
                               last ? UIMSG_FINAL : UIMSG_PARTIAL);
            REQUIRE(i == 1);
            size_t off = 0, n = 0;
            const char *a = uimsg_take_append(&l, (size_t)i, &off, &n);
            check_count++;
            if (off < n + off && off && ((unsigned char)a[0] & 0xC0) == 0x80)
                check_fail(__FILE__, __LINE__, "seed %u: an append starts inside a character", seed);
            char *now = evtext_apply(seen, off, a, n);
            free(seen);
            seen = now;
            CHECK_STR(seen, t.data ? t.data : "");
            buf_reset(&line);
            uimsg_to_json_append(&l, (size_t)i, off, &line);
            json_t *j = json_loads(line.data, 0, NULL);
            REQUIRE(j != NULL);
            CHECK_INT(json_integer_value(json_object_get(j, "v")), 2);
            if (last) {
                CHECK(json_object_get(j, "append") == NULL);
                CHECK_STR(json_string_value(json_object_get(j, "text")), seen);
            } else {
                json_t *app = json_object_get(j, "append");
                CHECK(json_object_get(j, "text") == NULL);
                CHECK_INT(json_integer_value(json_object_get(app, "offset")), (long long)off);
                CHECK(json_string_length(json_object_get(app, "text")) == n);
            }
            json_decref(j);
        }
        free(seen);
        buf_release(&t);
        buf_release(&line);
        uimsg_list_release(&l);
    }
}

static void test_in_place_edit_reports_its_offset(void)
{
    uimsg_list l = UIMSG_LIST_INIT;
    buf b = BUF_INIT(0);
    buf_puts(&b, "Hello");
    long i = uimsg_put_buf(&l, UIMSG_SAY, "text", UIMSG_PARTIAL, &b);
    REQUIRE(i == 0);
    CHECK_INT((long long)b.len, 0); /* moved, not copied */
    size_t off = 9, n = 0;
    const char *a = uimsg_take_append(&l, 0, &off, &n);
    CHECK_INT((long long)off, 0);
    CHECK(n == 5 && memcmp(a, "Hello", 5) == 0);
    buf *t = uimsg_text_buf(&l, 0);
    buf_truncate(t, 4);
    buf_puts(t, "p me");
    uimsg_text_changed(&l, 0, 4, UIMSG_FINAL);
    a = uimsg_take_append(&l, 0, &off, &n);
    CHECK_INT((long long)off, 4);
    CHECK(n == 4 && memcmp(a, "p me", 4) == 0);
    CHECK(!l.items[0].partial);
    a = uimsg_take_append(&l, 0, &off, &n); /* nothing new since */
    CHECK_INT((long long)off, 8);
    CHECK_INT((long long)n, 0);
    buf_release(&b);
    uimsg_list_release(&l);
}

/* Letting go of a long final text (uimsg_text_spill): the message keeps its place and
 * kind but no text in memory; nothing reads it until it is restored (and then it counts
 * as said: no append replays it); a partial message is never let go; a new text ends the
 * spill. */
static void test_spill_and_restore(void)
{
    uimsg_list l = UIMSG_LIST_INIT;
    CHECK_INT(uimsg_put(&l, UIMSG_SAY, "text", "grow", NULL, UIMSG_PARTIAL), 0);
    uimsg_text_spill(&l, 0); /* partial: kept */
    CHECK(!uimsg_is_spilled(&l, 0));
    CHECK_STR(uimsg_text(&l, 0), "grow");
    CHECK_INT(uimsg_put(&l, UIMSG_SAY, "text", "grown whole", NULL, UIMSG_FINAL), 0);
    size_t off = 0, n = 0;
    uimsg_take_append(&l, 0, &off, &n);
    uimsg_text_spill(&l, 0);
    CHECK(uimsg_is_spilled(&l, 0));
    CHECK(uimsg_text(&l, 0) == NULL);
    CHECK(l.items[0].has_text && l.items[0].text.data == NULL);
    CHECK_INT(uimsg_put(&l, UIMSG_SAY, "text", "next", NULL, UIMSG_WHOLE), 1);
    CHECK_INT(l.len, 2);
    buf back = BUF_INIT(0);
    buf_puts(&back, "grown whole");
    uimsg_text_restore(&l, 0, &back);
    CHECK(back.data == NULL && back.len == 0);
    CHECK(!uimsg_is_spilled(&l, 0));
    CHECK_STR(uimsg_text(&l, 0), "grown whole");
    const char *d = uimsg_take_append(&l, 0, &off, &n);
    CHECK_INT(off, 11);
    CHECK_INT(n, 0);
    CHECK_STR(d, "");
    uimsg_text_spill(&l, 0);
    uimsg_update(&l, 0, "replaced", NULL);
    CHECK(!uimsg_is_spilled(&l, 0));
    CHECK_STR(uimsg_text(&l, 0), "replaced");
    d = uimsg_take_append(&l, 0, &off, &n);
    CHECK_INT(off, 0);
    CHECK_STR(d, "replaced");
    uimsg_list_release(&l);
}

int main(void)
{
    RUN(test_appends_rebuild_every_update);
    RUN(test_in_place_edit_reports_its_offset);
    RUN(test_spill_and_restore);
    return check_report();
}
