/* bench/udiff — the diff shown before an edit (tools/udiff) on generated files of 1,000 to
 * 1,000,000 lines: a few lines changed, added and removed here and there (one edit in
 * about 400 lines), a total rewrite of the same size (no line in common: nothing to
 * search), and — up to 100,000 lines — the same lines shuffled (the hard case, bounded
 * by the search's cost limit: about lines x sqrt(lines)). Prints the CPU time per case and per line (the fastest of three
 * runs): it should stay about flat per line as the file grows. Exits non-zero when a diff
 * is empty where there are changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "tools/udiff.h"

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* The fastest of three diffs of a and b, in seconds; *out_len the diff's length. */
static double time_diff(const buf *a, const buf *b, size_t *out_len)
{
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        buf out = BUF_INIT((size_t)1 << 31);
        double t0 = cpu_s();
        udiff_make(a->data, a->len, b->data, b->len, &out);
        double t = cpu_s() - t0;
        if (t < best)
            best = t;
        *out_len = out.len;
        buf_release(&out);
    }
    return best;
}

int main(void)
{
    static const size_t sizes[] = { 1000, 10000, 100000, 1000000 };
    unsigned seed = 1;
    int bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        buf a = BUF_INIT((size_t)1 << 31), b = BUF_INIT((size_t)1 << 31);
        buf x = BUF_INIT((size_t)1 << 31);
        for (size_t i = 0; i < n; i++) {
            size_t at = a.len;
            buf_printf(&a, "line %zu: %u\n", i, rnd(&seed));
            buf_printf(&x, "rewritten %zu\n", i);
            unsigned r = rnd(&seed) % 400;
            if (r == 0)
                buf_printf(&b, "changed %zu\n", i);
            else if (r == 1)
                ;
            else if (r == 2)
                buf_printf(&b, "added %zu\n%s", i, a.data + at);
            else
                buf_append(&b, a.data + at, a.len - at);
        }
        size_t dl = 0, rl = 0, sl = 0;
        double t = time_diff(&a, &b, &dl);
        double tr = time_diff(&a, &x, &rl);
        printf("udiff: %8zu lines: a few edits %8.2f ms (%5.0f ns/line, diff %zu KB); "
               "rewrite %8.2f ms (%5.0f ns/line)",
               n, t * 1e3, t * 1e9 / (double)n, dl >> 10, tr * 1e3, tr * 1e9 / (double)n);
        if (n <= 100000) { /* a's lines in another order */
            buf y = BUF_INIT((size_t)1 << 31);
            for (size_t i = 0; i < n; i++)
                buf_printf(&y, "line %zu: shuffled\n", (i * 7919) % n);
            buf z = BUF_INIT((size_t)1 << 31);
            for (size_t i = 0; i < n; i++)
                buf_printf(&z, "line %zu: shuffled\n", i);
            double ts = time_diff(&z, &y, &sl);
            printf("; shuffled %8.2f ms", ts * 1e3);
            bad |= sl == 0;
            buf_release(&y);
            buf_release(&z);
        }
        printf("\n");
        bad |= dl == 0 || rl == 0;
        buf_release(&a);
        buf_release(&b);
        buf_release(&x);
    }
    return bad;
}
