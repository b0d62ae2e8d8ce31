/* append_cost — what one partial update of a growing message costs on the task's side, at
 * two lengths of the message (100 KB and 10 MB): the presenter cleaning the new bytes into
 * the message (text_cleaner), the message noting what changed (uimsg), the event's JSON
 * line with the append (uimsg_to_json_append), and a front end applying the append to its
 * own copy. Prints ns per appended byte for each length; with updates that cost what was
 * appended the two agree. For comparison it also times the old way — the whole block
 * cleaned again (text_clean) and the whole text escaped into the line, per update — which
 * grows with the length. Exits non-zero when the texts the two ways give differ (so it
 * cannot measure a broken path). It must never do I/O beyond printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prose.h"
#include "base/buf.h"
#include "task/text_clean.h"
#include "task/uimsg.h"

#define DELTA 64       /* bytes a model adds between two updates */
#define UPDATES 20000  /* updates timed at each length, the new way */
#define OLD_UPDATES 40 /* the old way is slow at 10 MB: fewer */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prose with the odd tag and bracket, len bytes (+ room for the timed updates). */
static char *prose(size_t len)
{
    static const char *const words[] = { "the", "parser", "streams", "every", "byte",
                                         "once,", "a < b", "<b>bold</b>", "naïve", "café",
                                         "<thinking>hm</thinking>", "and", "done.\n" };
    return prose_make(len, words, sizeof words / sizeof words[0]);
}

/* ns per appended byte of `updates` updates, each adding DELTA bytes to a message of
 * `base` bytes; old: the whole-text way. The text it ends with goes to *final_out. */
static double measure(const char *s, size_t base, int updates, int old, buf *final_out)
{
    uimsg_list l = UIMSG_LIST_INIT;
    buf line = BUF_INIT(0), front = BUF_INIT(0);
    text_cleaner c;
    text_cleaner_init(&c, false);
    buf start = BUF_INIT(0);
    size_t from = 0;
    text_cleaner_feed(&c, s, base, true, &start, &from);
    long i = uimsg_put_buf(&l, UIMSG_SAY, "text", UIMSG_PARTIAL, &start);
    size_t off = 0, n = 0;
    const char *a = uimsg_take_append(&l, (size_t)i, &off, &n);
    buf_append(&front, a, n);
    double t0 = now_s();
    for (int u = 1; u <= updates; u++) {
        size_t len = base + (size_t)u * DELTA;
        buf_reset(&line);
        if (old) {
            buf *t = uimsg_text_buf(&l, (size_t)i);
            buf_reset(t);
            text_clean(s, len, true, t);
            uimsg_text_changed(&l, (size_t)i, 0, UIMSG_PARTIAL);
            uimsg_to_json(&l, (size_t)i, &line);
            uimsg_take_append(&l, (size_t)i, &off, &n);
            buf_reset(&front);
            buf_append(&front, t->data, t->len);
        } else {
            text_cleaner_feed(&c, s, len, true, uimsg_text_buf(&l, (size_t)i), &from);
            uimsg_text_changed(&l, (size_t)i, from, UIMSG_PARTIAL);
            a = uimsg_take_append(&l, (size_t)i, &off, &n);
            uimsg_to_json_append(&l, (size_t)i, off, &line);
            buf_truncate(&front, off);
            buf_append(&front, a, n);
        }
    }
    double dt = now_s() - t0;
    buf_reset(final_out);
    buf_append(final_out, front.data, front.len);
    text_cleaner_release(&c);
    buf_release(&line);
    buf_release(&front);
    buf_release(&start);
    uimsg_list_release(&l);
    return dt * 1e9 / ((double)updates * DELTA);
}

int main(void)
{
    static const size_t lengths[] = { 100 * 1000, 10 * 1000 * 1000 };
    int ok = 1;
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        size_t base = lengths[k];
        char *s = prose(base + (size_t)UPDATES * DELTA);
        buf a = BUF_INIT(0), b = BUF_INIT(0), want = BUF_INIT(0);
        double by_appends = measure(s, base, UPDATES, 0, &a);
        double whole = measure(s, base, OLD_UPDATES, 1, &b);
        /* the new way's text after OLD_UPDATES updates must be the old way's */
        measure(s, base, OLD_UPDATES, 0, &a);
        text_clean(s, base + (size_t)OLD_UPDATES * DELTA, true, &want);
        if (a.len != want.len || memcmp(a.data, want.data, a.len) != 0 || b.len != want.len ||
            memcmp(b.data, want.data, b.len) != 0)
            ok = 0;
        printf("append_cost: message of %5.1f MB, %d-byte updates: %8.2f ns per appended byte "
               "by appends; %10.1f ns per appended byte re-sending the whole text\n",
               (double)base / 1e6, DELTA, by_appends, whole);
        buf_release(&a);
        buf_release(&b);
        buf_release(&want);
        free(s);
    }
    if (!ok)
        printf("append_cost: FAILED: the texts differ\n");
    return ok ? 0 : 1;
}
