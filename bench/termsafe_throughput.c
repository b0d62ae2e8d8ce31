/* termsafe_throughput — benchmark for cli/termsafe, the sanitiser on the streaming path of
 * the terminal (every delta of the model's text, every piece of command output). Builds
 * 32 MB of four kinds of text — English prose (a model's answer), code with UTF-8 (a
 * file, a diff), coloured command output (SGR removed), and hostile text dense with
 * escapes and controls — and sanitises each fed in streamed deltas of 3..200 bytes and in
 * 16 KiB pieces, printing MB/s (MB = 10^6 bytes) for the best of several runs. Exits
 * non-zero if the output is not what it must be (plain text unchanged, no ESC left), so
 * it can never silently measure nothing. It must never do I/O beyond printing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sbuf.h"
#include "termsafe.h"

#define TEXT_BYTES ((size_t)32 << 20)
#define REPS 5

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const char *const PROSE[] = {
    "The ", "parser ", "reads ", "bytes ", "until ", "a ", "blank ", "line ", "arrives, ",
    "then ", "dispatches ", "one ", "event.\n", "Let ", "me ", "check ", "src/net/sse.c ",
    "first. ", "I ", "will ", "fix ", "it ", "now:\n\n", "- ", "`sse_next` ", "returns ",
};
static const char *const CODE[] = {
    "    if (n > cap) {\n", "        return -1;\n", "    }\n", "/* café — naïve */\n",
    "    s = \"漢字かな\";\n", "    x += y; // ≥ 0 → ok\n", "\t}\n", "-old line\n", "+new line\n",
    "    printf(\"%s\\n\", name); /* 😀 */\n",
};
static const char *const COLOURED[] = {
    "\x1b[1;31merror\x1b[0m: expected ';' before '}' token\n", "\x1b[32mPASS\x1b[0m test_one\n",
    "   \x1b[1mCompiling\x1b[0m hew v0.1.0\n", "plain line of output without colour\n",
    "\x1b[38;5;208mwarning\x1b[39m: unused variable\n",
};
static const char *const HOSTILE[] = {
    "\x1b]52;c;UFdORUQ=\x07", "\x1b]0;PWNED\x1b\\", "\x1b[2J\x1b[H", "\x1b[8mhidden\x1b[28m",
    "\xC2\x9b\x33\x31m", "\xE2\x80\xAE", "\a\b\b", "ok\rover", "\x9b\xff", "text ",
};

static void gen(sbuf *b, const char *const *words, size_t nwords, uint64_t *s)
{
    while (b->len < TEXT_BYTES && !b->err)
        sbuf_puts(b, words[rng(s) % nwords]);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sanitise in pieces (deltas: 3..200 bytes, else `piece` bytes); seconds, the output in
 * out. */
static double run_once(const sbuf *in, size_t piece, sbuf *out)
{
    uint64_t s = 0x2545F4914F6CDD1Dull;
    termsafe t = TERMSAFE_INIT;
    sbuf_reset(out);
    double t0 = now();
    for (size_t at = 0; at < in->len;) {
        size_t n = piece ? piece : 3 + (size_t)(rng(&s) % 198);
        if (n > in->len - at)
            n = in->len - at;
        termsafe_feed(&t, out, in->data + at, n);
        at += n;
    }
    termsafe_finish(&t, out);
    return now() - t0;
}

int main(void)
{
    static const struct {
        const char *name;
        const char *const *words;
        size_t n;
        int plain; /* the output must equal the input */
    } kinds[] = {
        { "prose (a model's answer)", PROSE, sizeof PROSE / sizeof PROSE[0], 1 },
        { "code with UTF-8", CODE, sizeof CODE / sizeof CODE[0], 1 },
        { "coloured command output", COLOURED, sizeof COLOURED / sizeof COLOURED[0], 0 },
        { "hostile (escapes, controls)", HOSTILE, sizeof HOSTILE / sizeof HOSTILE[0], 0 },
    };
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    sbuf out = SBUF_INIT;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        sbuf in = SBUF_INIT;
        gen(&in, kinds[k].words, kinds[k].n, &seed);
        if (in.err) {
            fprintf(stderr, "termsafe_throughput: cannot build the text\n");
            return 1;
        }
        printf("%s: %.1f MB\n", kinds[k].name, (double)in.len / 1e6);
        static const size_t pieces[] = { 0, 16 << 10 };
        for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
            double best = 0;
            for (int r = 0; r < REPS; r++) {
                double secs = run_once(&in, pieces[p], &out);
                if (out.err || (kinds[k].plain && (out.len != in.len ||
                                                   memcmp(out.data, in.data, in.len) != 0)) ||
                    memchr(out.data, 0x1b, out.len) || out.len == 0) {
                    fprintf(stderr, "termsafe_throughput: wrong output for %s\n", kinds[k].name);
                    return 1;
                }
                if (r == 0 || secs < best)
                    best = secs;
            }
            printf("  %-18s best %7.1f MB/s (output %.1f MB)\n",
                   pieces[p] ? "16 KiB pieces:" : "3..200 B deltas:", (double)in.len / best / 1e6,
                   (double)out.len / 1e6);
        }
        sbuf_release(&in);
    }
    sbuf_release(&out);
    return 0;
}
