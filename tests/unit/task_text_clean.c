/* Unit tests for task/text_clean: what the user sees of a text block (seed 000 — thinking
 * tag strip, partial tag trim, the trailing code-fence tag of a final block). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "task/text_clean.h"

static void expect(const char *in, int partial, const char *want, int line)
{
    buf out = BUF_INIT(0);
    buf_puts(&out, "prefix:"); /* text_clean appends: what was there stays */
    text_clean(in, strlen(in), partial, &out);
    check_count++;
    if (strncmp(out.data, "prefix:", 7) != 0 || strcmp(out.data + 7, want) != 0)
        check_fail(__FILE__, line, "text_clean(\"%s\", %d) = \"%s\", want \"%s\"", in, partial,
                   out.data + 7, want);
    buf_release(&out);
}
#define EXPECT(in, partial, want) expect(in, partial, want, __LINE__)

static void test_thinking_tags_stripped(void)
{
    EXPECT("<thinking>plan</thinking> Hello", 0, "plan Hello");
    EXPECT("<thinking>\nplan\n</thinking>\nHello", 0, "plan\nHello");
    EXPECT("a <think>b</think> c", 0, "a b c");
    EXPECT("x<function_calls> y </function_calls>z", 0, "xyz");
    EXPECT("<thinking>  two spaces", 1, " two spaces"); /* only one space goes */
    EXPECT("no tags at all", 0, "no tags at all");
}

static void test_partial_tag_trimmed(void)
{
    EXPECT("Hello <thi", 1, "Hello");
    EXPECT("Hello </", 1, "Hello");
    EXPECT("Hello <", 1, "Hello");
    EXPECT("Hello </para", 1, "Hello");
    EXPECT("  Hello <read_fi", 1, "Hello"); /* trimmed on both sides, as Cline does */
    EXPECT("a < b", 1, "a");                /* Cline's rule: trimmed, "b" could be a tag */
    EXPECT("a < b", 0, "a < b");            /* but a final text keeps it (Cline cuts it) */
    EXPECT("Hello <thi", 0, "Hello <thi");
    EXPECT("x <3", 1, "x <3");              /* digits do not make a tag name */
    EXPECT("done <b>bold</b>", 1, "done <b>bold</b>");
}

static void test_trailing_fence_tag_removed_when_final(void)
{
    EXPECT("Run this:\n```bash", 0, "Run this:\n");
    EXPECT("Run this:\n```bash", 1, "Run this:\n```bash");
    EXPECT("code:\n```\nx\n```", 0, "code:\n```\nx\n```"); /* a closed fence stays */
    EXPECT("```c-lang_2", 0, "");
}

/* ---- the incremental cleaner: the same views as text_clean, whatever the chunking ---- */

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* A text made of the pieces the cleaner decides on: tags whole and cut, white space,
 * words, fences, stray brackets. */
static void random_text(unsigned *seed, buf *out)
{
    static const char *const pieces[] = {
        "<thinking>", "</thinking>", "<think>", "</think>", "<function_calls>",
        "</function_calls>", "<", "</", "<th", "</thi", "<function_c", ">", " ", "  ", "\n",
        "\t", "a", "word", "b c", "_x", "3", "```", "```bash", "-lang", "< b", "<3", "é", "<b>",
    };
    size_t n = 1 + rnd(seed) % 40;
    for (size_t i = 0; i < n; i++)
        buf_puts(out, pieces[rnd(seed) % (sizeof pieces / sizeof pieces[0])]);
}

static void check_view(const buf *got, const char *s, size_t n, bool partial, unsigned seed)
{
    buf want = BUF_INIT(0);
    text_clean(s, n, partial, &want);
    check_count++;
    if (got->len != want.len || (want.len && memcmp(got->data, want.data, want.len) != 0))
        check_fail(__FILE__, __LINE__,
                   "seed %u: cleaner view of \"%.*s\" (%s) = \"%.*s\", text_clean gives \"%s\"",
                   seed, (int)n, s, partial ? "partial" : "final", (int)got->len,
                   got->data ? got->data : "", want.data ? want.data : "");
    buf_release(&want);
}

static void test_incremental_matches_whole(void)
{
    for (unsigned k = 0; k < 3000; k++) {
        unsigned seed = 7919u * k + 1;
        unsigned r = seed;
        buf text = BUF_INIT(0);
        random_text(&r, &text);
        text_cleaner c;
        text_cleaner_init(&c, false);
        buf out = BUF_INIT(0), before = BUF_INIT(0);
        size_t at = 0;
        while (at < text.len) {
            at += 1 + rnd(&r) % 7;
            if (at > text.len)
                at = text.len;
            buf_reset(&before);
            buf_append(&before, out.data ? out.data : "", out.len);
            size_t from = 0;
            text_cleaner_feed(&c, text.data, at, true, &out, &from);
            check_view(&out, text.data, at, true, seed);
            /* what changed is only at and after from */
            check_count++;
            if (from > before.len || from > out.len ||
                (from && memcmp(before.data, out.data, from) != 0))
                check_fail(__FILE__, __LINE__, "seed %u: changed_from %zu is too late", seed,
                           from);
        }
        size_t from = 0;
        text_cleaner_feed(&c, text.data, text.len, false, &out, &from);
        check_view(&out, text.data, text.len, false, seed);
        text_cleaner_release(&c);
        buf_release(&out);
        buf_release(&before);
        buf_release(&text);
    }
}

static void test_incremental_verbatim(void)
{
    text_cleaner c;
    text_cleaner_init(&c, true);
    buf out = BUF_INIT(0);
    size_t from = 0;
    const char *s = "<thinking> kept </thinking> <th";
    text_cleaner_feed(&c, s, 12, true, &out, &from);
    CHECK_INT((long long)from, 0);
    text_cleaner_feed(&c, s, strlen(s), false, &out, &from);
    CHECK_INT((long long)from, 12);
    CHECK_STR(out.data, s);
    text_cleaner_release(&c);
    buf_release(&out);
}

/* text_cleaner_feed_from: the caller keeps only what the cleaner has not consumed (each
 * feed gets an exact-size copy of text[c.in..at), so a read of a consumed byte is an
 * ASan error), and halfway the output goes on in another buffer that starts as a copy of
 * it (the presenter's "a new message goes on with what the old one shows"): the views
 * are text_clean's all along, verbatim too. */
static void test_feed_from_dropped_start(void)
{
    for (unsigned k = 0; k < 3000; k++) {
        unsigned seed = 7919u * k + 5;
        unsigned r = seed;
        buf text = BUF_INIT(0);
        random_text(&r, &text);
        bool verbatim = k % 5 == 0;
        text_cleaner c;
        text_cleaner_init(&c, verbatim);
        buf out = BUF_INIT(0);
        size_t at = 0, feeds = 0;
        while (at < text.len || feeds == 0) {
            at += 1 + rnd(&r) % 7;
            if (at > text.len)
                at = text.len;
            bool final = at == text.len;
            size_t from = c.in, changed = 0;
            char *tail = malloc(at - from + 1);
            REQUIRE(tail);
            memcpy(tail, text.data + from, at - from);
            text_cleaner_feed_from(&c, tail, from, at, !final, &out, &changed);
            free(tail);
            if (verbatim) {
                check_count++;
                if (out.len != at || memcmp(out.data, text.data, at) != 0)
                    check_fail(__FILE__, __LINE__, "seed %u: verbatim view differs", seed);
            } else {
                check_view(&out, text.data, at, !final, seed);
            }
            if (++feeds == 3) { /* the output goes on in a copy of itself */
                buf moved = BUF_INIT(0);
                buf_append(&moved, out.data ? out.data : "", out.len);
                buf_release(&out);
                out = moved;
            }
            if (final)
                break;
        }
        text_cleaner_release(&c);
        buf_release(&out);
        buf_release(&text);
    }
}

int main(void)
{
    RUN(test_incremental_matches_whole);
    RUN(test_incremental_verbatim);
    RUN(test_feed_from_dropped_start);
    RUN(test_thinking_tags_stripped);
    RUN(test_partial_tag_trimmed);
    RUN(test_trailing_fence_tag_removed_when_final);
    return check_report();
}
