/* md_stream — what rendering a streamed answer's markdown costs on the interactive
 * terminal, per KB streamed, near the start of the answer (from 1 KB on) and far into it
 * (from 1 MB on): each update of DELTA bytes finds where the finished blocks end
 * (mdr_stable_end, from what is already committed) and renders only the blocks it
 * finished (mdr_render, with colour: tables fitted to 80 columns, code highlighted), as
 * cli/interactive.c does. The two figures agree when the cost does not grow with the
 * answer. Exits non-zero when the rendering lacks what it must show (table borders, code
 * colours), so it cannot time a broken path. It must never do I/O beyond printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mdrender.h"

#define DELTA 64           /* bytes a model adds between two updates */
#define WINDOW (256 * 1024) /* bytes streamed in each timed window */
#define FAR (1024 * 1024)  /* where the far window starts */
#define NEAR 1024          /* where the near window starts */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An answer of at least len bytes: prose, tables wider than 80 columns, code, lists. */
static char *answer(size_t len)
{
    static const char *const blocks[] = {
        "The parser reads the stream of server-sent events and turns each one into a "
        "message for the agent loop, keeping **what is finished** apart from `what grows`.\n\n",
        "| Module | State | What it does |\n|:--|:-:|--:|\n"
        "| parser | ok | Parses the incoming stream of server-sent events into messages |\n"
        "| store | flaky | Keeps tasks and checkpoints on disk in an append-only log |\n\n",
        "```python\ndef greet(name):\n    # say hello\n    return \"hello \" + name * 3\n```\n\n",
        "- read the file\n- change the line\n- run the tests, then `make check`\n\n",
        "```c\nstatic int f(const char *s) { /* count */ return (int)strlen(s) + 42; }\n```\n\n",
    };
    size_t nb = sizeof blocks / sizeof blocks[0];
    char *s = malloc(len + 1024);
    if (!s)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; n < len; i++) {
        size_t bl = strlen(blocks[i % nb]);
        memcpy(s + n, blocks[i % nb], bl);
        n += bl;
    }
    s[n] = '\0';
    return s;
}

struct stream {
    const char *text;
    size_t have, committed;
    int fence, first;
    sbuf out;
    size_t rendered; /* bytes of terminal text produced */
    int ok;
};

/* Stream text up to `to` in DELTA steps, rendering finished blocks as they end. */
static void feed(struct stream *st, size_t to)
{
    mdr_opts o = { 80, 1, NULL, NULL };
    while (st->have < to) {
        st->have = st->have + DELTA < to ? st->have + DELTA : to;
        size_t end = mdr_stable_end(st->text, st->have, st->committed, &st->fence);
        if (end > st->committed) {
            sbuf_reset(&st->out);
            mdr_render(&st->out, st->text + st->committed, end - st->committed, &o, &st->first);
            st->rendered += st->out.len;
            if (st->out.err || (st->out.data && strstr(st->out.data, "\033[") == NULL))
                st->ok = 0;
            st->committed = end;
        }
    }
}

/* µs per KB streamed over [from, from + WINDOW). */
static double window_cost(const char *text, size_t from, int *ok)
{
    struct stream st = { text, 0, 0, 0, 1, SBUF_INIT, 0, 1 };
    feed(&st, from); /* the answer so far, not timed */
    double t0 = now_s();
    feed(&st, from + WINDOW);
    double dt = now_s() - t0;
    if (!st.ok || st.rendered == 0)
        *ok = 0;
    sbuf_release(&st.out);
    return dt * 1e6 / (WINDOW / 1024.0);
}

int main(void)
{
    char *text = answer(FAR + WINDOW + 4096);
    if (!text)
        return 1;
    /* what must show: a fitted table and coloured code */
    sbuf check = SBUF_INIT;
    mdr_opts o = { 80, 1, NULL, NULL };
    int first = 1;
    mdr_render(&check, text, 1200, &o, &first);
    int ok = check.data && strstr(check.data, "┼") && strstr(check.data, "\033[35mdef");
    sbuf_release(&check);
    double best_near = 1e30, best_far = 1e30;
    for (int r = 0; r < 5; r++) { /* the best of five: the machine may be shared */
        double near = window_cost(text, NEAR, &ok), far = window_cost(text, FAR, &ok);
        best_near = near < best_near ? near : best_near;
        best_far = far < best_far ? far : best_far;
    }
    printf("markdown render per KB streamed (%d-byte updates, 80 columns, colour):\n", DELTA);
    printf("  from 1 KB into the answer: %8.1f us/KB\n", best_near);
    printf("  from 1 MB into the answer: %8.1f us/KB\n", best_far);
    printf("  ratio far/near: %.2f\n", best_far / best_near);
    free(text);
    if (!ok) {
        fprintf(stderr, "md_stream: the rendering lacks its table or colours\n");
        return 1;
    }
    return 0;
}
