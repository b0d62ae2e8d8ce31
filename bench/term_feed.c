/* term_feed — what one partial update of a growing message costs on the interactive
 * terminal's side, at two lengths of the message (100 KB and 10 MB): the event queue
 * taking the update in on the task's thread and handing it out (cli/evq.c), the terminal
 * applying the append to its copy of the message and sanitising what changed
 * (cli/msgtext.c). Prints ns per appended byte for each length; with updates that cost
 * what was appended the two agree. For comparison it also times the old way — every pop
 * handing out a copy of the whole text, measured (strlen), checked whole
 * (termsafe_is_clean) and, as this text has escapes, sanitised again whole — which grows
 * with the length. The rendering after that
 * (markdown, the live region) starts at what is committed and is not timed here. Exits
 * non-zero when the sanitised text it ends with is not the whole text's (so it cannot
 * measure a broken path). It must never do I/O beyond printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prose.h"
#include "evq.h"
#include "msgtext.h"
#include "termsafe.h"

#define DELTA 64       /* bytes a model adds between two updates */
#define UPDATES 20000  /* updates timed at each length, the new way */
#define OLD_UPDATES 40 /* the old way is slow at 10 MB: fewer */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prose with lines, the odd escape and multi-byte character, len bytes. */
static char *prose(size_t len)
{
    static const char *const words[] = { "the", "terminal", "applies", "every", "append",
                                         "once,", "naïve", "café", "\033[1mbold\033[0m",
                                         "a\tb", "done.\n" };
    return prose_make(len, words, sizeof words / sizeof words[0]);
}

/* ns per appended byte of `updates` updates of DELTA bytes to a message of `base` bytes,
 * each pushed and popped; old: the whole text handed out and scanned per pop. *ok is
 * cleared when the terminal's sanitised text is not the whole text's. */
static double measure(const char *s, size_t base, int updates, int old, int *ok)
{
    evq *q = evq_new();
    msgtext m;
    msgtext_init(&m);
    if (!q) {
        *ok = 0;
        return 0;
    }
    hew_event ev = { 0 };
    ev.index = 1;
    ev.type = "text";
    ev.kind = HEW_EV_TEXT;
    ev.partial = 1;
    ev.append_text = s;
    ev.append_len = base;
    size_t len = base;
    double t0 = 0;
    size_t sink = 0;
    for (int u = -1; u < updates; u++) {
        if (u == 0)
            t0 = now_s();
        if (u >= 0) {
            ev.append_offset = len;
            ev.append_text = s + len;
            ev.append_len = DELTA;
            len += DELTA;
        }
        if (evq_push(q, &ev) != 0) {
            *ok = 0;
            break;
        }
        evq_item *it = evq_pop(q);
        if (!it) {
            *ok = 0;
            break;
        }
        if (old) { /* the old terminal: the whole text copied out, measured, checked and
                      (it has escapes) sanitised again whole */
            char *whole = strndup(s, len);
            if (whole) {
                size_t n = strlen(whole);
                if (!termsafe_is_clean(whole, n)) {
                    char *safe = termsafe_dup(whole, 0);
                    n += safe ? strlen(safe) : 0;
                    free(safe);
                }
                sink += n;
            }
            free(whole);
        } else {
            size_t n = 0;
            if (msgtext_apply(&m, it->index, it->offset, it->text, it->len) != 0 ||
                !msgtext_safe(&m, 0, &n))
                *ok = 0;
            sink += n;
        }
        evq_item_free(it);
    }
    double dt = now_s() - t0;
    if (!old) {
        size_t n = 0;
        const char *got = msgtext_safe(&m, 1, &n);
        char *want = strndup(s, len);
        char *safe = want ? termsafe_dup(want, 1) : NULL;
        if (!got || !safe || n != strlen(safe) || memcmp(got, safe, n) != 0)
            *ok = 0;
        free(want);
        free(safe);
    }
    msgtext_release(&m);
    evq_free(q);
    if (sink == 1)
        puts("");
    return dt * 1e9 / ((double)updates * DELTA);
}

int main(void)
{
    static const size_t lengths[] = { 100u << 10, 10u << 20 };
    static const char *const names[] = { "100 KB", "10 MB" };
    char *s = prose((10u << 20) + (size_t)UPDATES * DELTA);
    if (!s)
        return 1;
    int ok = 1;
    printf("term_feed: one partial update (%d bytes appended) through evq and the terminal's "
           "copy\n", DELTA);
    for (int i = 0; i < 2; i++) {
        double now = measure(s, lengths[i], UPDATES, 0, &ok);
        double was = measure(s, lengths[i], OLD_UPDATES, 1, &ok);
        printf("  %-6s  appends: %8.2f ns/appended byte   whole text per pop (old): %10.2f "
               "ns/appended byte\n", names[i], now, was);
    }
    free(s);
    if (!ok) {
        fprintf(stderr, "term_feed: the terminal's text differs from the message's\n");
        return 1;
    }
    return 0;
}
