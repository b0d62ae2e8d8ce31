/* parse_scaling — benchmark for parse/: builds 1, 4 and 16 MB assistant answers (prose with
 * stray '<', XML tool calls, a diff, and one big write_to_file whose file holds code and
 * markup), feeds each in 8-byte chunks, and prints ns per byte and MB/s (MB = 10^6 bytes);
 * ns/byte must stay flat as the answer grows (linear time). For the 1 MB answer it also
 * times Cline's way — re-parsing the whole message after every chunk with the literal port
 * of parseAssistantMessageV2 (tests/unit/parse_oracle.h, benchmark and tests only) — and
 * prints the ratio. That full run would take many minutes, so it re-parses every chunk of
 * the first 16 KB and then one chunk in every SAMPLE_EVERY, each sample standing for its
 * neighbours (the cost of a re-parse grows smoothly with the prefix length); the output
 * says so. Exits non-zero if the parser's blocks differ from the reference's for any
 * answer. It must never do I/O beyond printing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/unit/parse_oracle.h"
#include "base/buf.h"
#include "parse/cline_names.h"
#include "parse/parser.h"

#define CHUNK 8
#define EXACT_PREFIX (16 * 1024)
#define SAMPLE_EVERY 512

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const char *const WORDS[] = {
    "the ", "parser ", "reads ", "each ", "byte ", "once, ", "and ", "if ", "a < b ",
    "then ", "we ", "call ", "`read_file` ", "— ", "Grüße ", "中文 ", "🚀 ", "<div> ",
    "check ", "src/parse/xmlcall.c ", "first.\n", "Let ", "me ", "look ", "at ", "it.\n\n",
};

static void prose(buf *b, uint64_t *s, size_t bytes)
{
    size_t start = b->len;
    while (b->len - start < bytes)
        buf_puts(b, WORDS[rng(s) % (sizeof WORDS / sizeof WORDS[0])]);
}

static const char *const CODE[] = {
    "    if (a < b && c > d) {\n", "        return x->next;\n", "    }\n",
    "<template><div class=\"row\">{{ item }}</div></template>\n",
    "for (size_t i = 0; i < n; i++)\n", "    sum += v[i]; /* </path> is fine */\n",
    "// see <content> rules\n", "#include <stdio.h>\n", "\treturn 0;\n",
};

static void code(buf *b, uint64_t *s, size_t bytes)
{
    size_t start = b->len;
    while (b->len - start < bytes)
        buf_puts(b, CODE[rng(s) % (sizeof CODE / sizeof CODE[0])]);
}

/* An answer of about `size` bytes. */
static void make_answer(buf *b, size_t size, uint64_t seed)
{
    uint64_t s = seed;
    size_t big_at = size / 3;
    bool big_done = false;
    while (b->len < size) {
        prose(b, &s, 200 + rng(&s) % 1500);
        switch (rng(&s) % 4) {
        case 0:
            buf_printf(b, "\n<read_file>\n<path>src/file_%u.c</path>\n</read_file>\n",
                       (unsigned)(rng(&s) % 1000));
            break;
        case 1:
            buf_puts(b, "\n<execute_command>\n<command>make test 2>&1 | tail -n 20 && "
                        "echo done < /dev/null</command>\n<requires_approval>false"
                        "</requires_approval>\n</execute_command>\n");
            break;
        case 2:
            buf_puts(b, "\n<replace_in_file>\n<path>src/a.c</path>\n<diff>\n------- SEARCH\n");
            code(b, &s, 300);
            buf_puts(b, "=======\n");
            code(b, &s, 300);
            buf_puts(b, "+++++++ REPLACE\n</diff>\n</replace_in_file>\n");
            break;
        default:
            break;
        }
        if (!big_done && b->len >= big_at) {
            big_done = true;
            buf_puts(b, "\n<write_to_file>\n<path>web/page.html</path>\n<content>\n");
            code(b, &s, size * 2 / 5);
            buf_puts(b, "\n</content>\n</write_to_file>\n");
        }
    }
}

/* Feed the answer in CHUNK-byte pieces; returns seconds (best of reps); *out the dump. */
static double run_incremental(const buf *a, int reps, buf *out, size_t *nblocks)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        parser_opts o = parser_defaults();
        parser *p = parser_new(&o, NULL);
        if (!p)
            exit(2);
        double t0 = now_s();
        for (size_t at = 0; at < a->len; at += CHUNK) {
            size_t n = a->len - at < CHUNK ? a->len - at : CHUNK;
            if (parser_text(p, a->data + at, n, NULL) != HEW_OK)
                exit(2);
        }
        if (parser_finish(p, NULL) != HEW_OK)
            exit(2);
        double t = now_s() - t0;
        if (t < best)
            best = t;
        if (r == 0) {
            parser_dump(out, p);
            *nblocks = parser_count(p);
        }
        parser_free(p);
    }
    return best;
}

static void reference_dump(const buf *a, buf *out)
{
    oresult r = oracle_parse(a->data, a->len, cline_tool_names, cline_tool_count,
                             cline_param_names, cline_param_count, "write_to_file");
    oracle_dump(out, &r);
    oracle_free(&r);
}

/* One re-parse of the first n bytes, Cline's way; seconds. */
static double reparse(const buf *a, size_t n, size_t *blocks)
{
    double t0 = now_s();
    oresult r = oracle_parse(a->data, n, cline_tool_names, cline_tool_count,
                             cline_param_names, cline_param_count, "write_to_file");
    double t = now_s() - t0;
    *blocks += r.n;
    oracle_free(&r);
    return t;
}

int main(void)
{
    static const size_t sizes[] = { 1u << 20, 4u << 20, 16u << 20 };
    double ns_per_byte[3], inc_1mb = 0;
    int wrong = 0;
    printf("parse_scaling: answers fed in %d-byte chunks to parser_text (best of runs)\n",
           CHUNK);
    {   /* warm up the allocator and the caches */
        buf a = BUF_INIT(0), got = BUF_INIT(0);
        size_t nb;
        make_answer(&a, sizes[0], 1);
        run_incremental(&a, 2, &got, &nb);
        buf_release(&a);
        buf_release(&got);
    }
    for (size_t i = 0; i < 3; i++) {
        buf a = BUF_INIT(0), got = BUF_INIT(0), want = BUF_INIT(0);
        make_answer(&a, sizes[i], 0x5DEECE66Dull + i);
        size_t nblocks = 0;
        double t = run_incremental(&a, i == 2 ? 3 : 5, &got, &nblocks);
        reference_dump(&a, &want);
        bool ok = got.len == want.len && memcmp(got.data, want.data, got.len) == 0;
        if (!ok)
            wrong = 1;
        ns_per_byte[i] = t * 1e9 / (double)a.len;
        if (i == 0)
            inc_1mb = t;
        printf("  %5.1f MB: %8.3f ms  %6.2f ns/byte  %7.1f MB/s  %zu blocks  %s\n",
               (double)a.len / 1e6, t * 1e3, ns_per_byte[i], (double)a.len / t / 1e6,
               nblocks, ok ? "same blocks as the reference" : "WRONG: differs from the reference");
        buf_release(&a);
        buf_release(&got);
        buf_release(&want);
    }
    printf("  flatness: ns/byte at 16 MB / at 1 MB = %.2f\n", ns_per_byte[2] / ns_per_byte[0]);

    /* Cline's way on the 1 MB answer. */
    buf a = BUF_INIT(0);
    make_answer(&a, sizes[0], 0x5DEECE66Dull);
    size_t chunks = (a.len + CHUNK - 1) / CHUNK, exact = EXACT_PREFIX / CHUNK, samples = 0;
    size_t blocks = 0;
    double measured = 0, estimated = 0;
    for (size_t c = 1; c <= chunks; c++) {
        size_t n = c * CHUNK < a.len ? c * CHUNK : a.len;
        if (c <= exact) {
            double t = reparse(&a, n, &blocks);
            measured += t;
            estimated += t;
        } else if ((c - exact) % SAMPLE_EVERY == 0 || c == chunks) {
            double t = reparse(&a, n, &blocks);
            measured += t;
            samples++;
            size_t weight = c == chunks ? (c - exact) % SAMPLE_EVERY : SAMPLE_EVERY;
            estimated += t * (double)(weight ? weight : SAMPLE_EVERY);
        }
    }
    printf("  re-parse on every chunk (Cline's way), 1 MB answer, %zu chunks: about %.1f s\n"
           "    (every chunk of the first %d KB re-parsed, then 1 chunk in %d: %zu samples "
           "measured in %.1f s, each standing for %d chunks)\n",
           chunks, estimated, EXACT_PREFIX / 1024, SAMPLE_EVERY, samples, measured,
           SAMPLE_EVERY);
    printf("  incremental is %.0fx faster than re-parsing at 1 MB\n", estimated / inc_1mb);
    buf_release(&a);
    if (wrong) {
        fprintf(stderr, "parse_scaling: the parser's blocks differ from the reference\n");
        return 1;
    }
    return 0;
}
