/* Unit tests for cli/termsafe, the sanitiser of text on its way to a terminal: every kind
 * of sequence (SGR removed; CSI, OSC 0/8/52, DCS, SOS/PM/APC, ESC alone shown as text),
 * C0 controls, CR overprinting, C1 in both encodings, invalid UTF-8, bidi overrides and
 * tag characters; the same output whatever the cuts between feeds (every byte boundary,
 * every pair of boundaries, byte by byte); a growing text's output only grows;
 * idempotence; the JSON walker; and a fuzz-style property check over random bytes: the
 * output is always valid UTF-8 with no ESC, C1, DEL, bell or other C0 but TAB, LF and
 * CR LF. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "check.h"
#include "sbuf.h"
#include "termsafe.h"

#define S(lit) (lit), (sizeof(lit) - 1)

/* The whole text through a fresh state. */
static void whole(sbuf *out, const char *s, size_t n)
{
    sbuf_reset(out);
    termsafe_add(out, s, n);
}

/* The output must hold nothing that can drive a terminal. Returns 1 when it is safe. */
static int safe_output(const char *s, size_t n)
{
    if (!utf8_validate(s, n, NULL))
        return 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == 0x1b || c == 0x7f)
            return 0;
        if (c < 0x20 && c != '\n' && c != '\t' && !(c == '\r' && i + 1 < n && p[i + 1] == '\n'))
            return 0;
        if (c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
            return 0; /* U+0080..U+009F */
        if (c == 0xe2 && i + 2 < n && p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae)
            return 0; /* U+202A..U+202E */
        if (c == 0xe2 && i + 2 < n && p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)
            return 0; /* U+2066..U+2069 */
        if (c == 0xf3 && i + 2 < n && p[i + 1] == 0xa0 && (p[i + 2] == 0x80 || p[i + 2] == 0x81))
            return 0; /* U+E0000..U+E007F */
    }
    return 1;
}

/* Cut s at every boundary (and every pair of boundaries when short): the output must be
 * the whole one; fed without finish, every prefix's output must start the whole output. */
static void check_cuts(const char *s, size_t n, const char *want, size_t wn, const char *name)
{
    sbuf out = SBUF_INIT;
    for (size_t k = 0; k <= n; k++) {
        termsafe t = TERMSAFE_INIT;
        sbuf_reset(&out);
        termsafe_feed(&t, &out, s, k);
        size_t prefix = out.len;
        if (prefix > wn || memcmp(out.data ? out.data : "", want, prefix) != 0)
            check_fail(__FILE__, __LINE__, "%s: the output of the first %zu bytes is no prefix",
                       name, k);
        termsafe_feed(&t, &out, s + k, n - k);
        termsafe_finish(&t, &out);
        if (out.len != wn || memcmp(out.data ? out.data : "", want, wn) != 0)
            check_fail(__FILE__, __LINE__, "%s: cut at %zu gives \"%.*s\"", name, k,
                       (int)out.len, out.data);
        check_count++;
    }
    if (n <= 40) {
        for (size_t a = 0; a <= n; a++)
            for (size_t b = a; b <= n; b++) {
                termsafe t = TERMSAFE_INIT;
                sbuf_reset(&out);
                termsafe_feed(&t, &out, s, a);
                termsafe_feed(&t, &out, s + a, b - a);
                termsafe_feed(&t, &out, s + b, n - b);
                termsafe_finish(&t, &out);
                if (out.len != wn || memcmp(out.data ? out.data : "", want, wn) != 0)
                    check_fail(__FILE__, __LINE__, "%s: cuts at %zu and %zu differ", name, a, b);
                check_count++;
            }
    }
    termsafe t = TERMSAFE_INIT;
    sbuf_reset(&out);
    for (size_t i = 0; i < n; i++)
        termsafe_feed(&t, &out, s + i, 1);
    termsafe_finish(&t, &out);
    CHECK_MEM(out.data ? out.data : "", out.len, want, wn);
    sbuf_release(&out);
}

/* in → want, whole and cut anywhere; the output is safe, clean and stays as it is. */
static void check_case(const char *in, size_t n, const char *want, size_t wn, int line)
{
    sbuf out = SBUF_INIT;
    whole(&out, in, n);
    const char *got = out.data ? out.data : "";
    if (out.len != wn || memcmp(got, want, wn) != 0)
        check_fail(__FILE__, line, "sanitised \"%.*s\", want \"%.*s\"", (int)out.len, got,
                   (int)wn, want);
    check_count++;
    if (!safe_output(got, out.len))
        check_fail(__FILE__, line, "unsafe output \"%.*s\"", (int)out.len, got);
    check_count++;
    CHECK(termsafe_is_clean(got, out.len));
    CHECK_INT(termsafe_is_clean(in, n), n == wn && memcmp(in, want, n) == 0);
    sbuf again = SBUF_INIT;
    termsafe_add(&again, got, out.len);
    CHECK_MEM(again.data ? again.data : "", again.len, got, out.len); /* idempotent */
    sbuf_release(&again);
    char name[32];
    snprintf(name, sizeof name, "line %d", line);
    check_cuts(in, n, want, wn, name);
    sbuf_release(&out);
}

#define CASE(in, want) check_case(S(in), S(want), __LINE__)

static void test_plain_text_passes(void)
{
    CASE("", "");
    CASE("hello, world", "hello, world");
    CASE("tabs\tand\nnew lines\n", "tabs\tand\nnew lines\n");
    CASE("caf\xC3\xA9 \xE6\xBC\xA2\xE5\xAD\x97 \xF0\x9F\x98\x80 \xE2\x82\xAC",
         "caf\xC3\xA9 \xE6\xBC\xA2\xE5\xAD\x97 \xF0\x9F\x98\x80 \xE2\x82\xAC");
    CASE("\xC2\xA0nbsp \xE2\x80\xA9 U+2029 \xEF\xBF\xBD", "\xC2\xA0nbsp \xE2\x80\xA9 U+2029 \xEF\xBF\xBD");
    CASE("\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF"); /* U+10FFFF */
    CASE("caret ^[ and <U+202E> typed as text", "caret ^[ and <U+202E> typed as text");
}

static void test_c0_controls(void)
{
    CASE("bell\a", "bell^G");
    CASE("back\b\b\bspace", "back^H^H^Hspace");
    CASE("v\vf\f", "v^Kf^L");
    CASE("del\x7f", "del^?");
    CASE("\x01\x02\x1f", "^A^B^_");
    check_case("nul\0x", 5, S("nul^@x"), __LINE__);
}

static void test_carriage_returns(void)
{
    CASE("crlf\r\nline\r\n", "crlf\r\nline\r\n");
    CASE("safe command\rrm -rf ~", "safe command\nrm -rf ~");
    CASE("ends\r", "ends\n");
    CASE("\r\r\n", "\n\r\n");
    CASE("10%\r20%\r100%\n", "10%\n20%\n100%\n");
}

static void test_sgr_removed(void)
{
    CASE("\x1b[31mred\x1b[0m", "red");
    CASE("\x1b[8mconcealed\x1b[28m shown", "concealed shown");
    CASE("\x1b[mreset", "reset");
    CASE("\x1b[1;38;2;255;0;0;48;5;17mtruecolour\x1b[39;49m", "truecolour");
    CASE("\x1b[38:2::1:2:3mcolon\x1b[0m", "colon");
}

static void test_other_csi_shown(void)
{
    CASE("\x1b[2Jcleared", "^[[2Jcleared");
    CASE("\x1b[H\x1b[1;1H\x1b[3A\x1b[K", "^[[H^[[1;1H^[[3A^[[K");
    CASE("\x1b[?1049h\x1b[?25l", "^[[?1049h^[[?25l");
    CASE("\x1b[>4;2m", "^[[>4;2m");         /* a private mode, not an SGR */
    CASE("\x1b[1 q", "^[[1 q");             /* an intermediate byte */
    CASE("\x1b[1 2m", "^[[1 2m");           /* a parameter after an intermediate */
    CASE("\x1b[31\n", "^[[31\n");            /* cut off by a control */
    CASE("\x1b[1\x1b[2J", "^[[1^[[2J");
    CASE("\x1b[31\xC3\xA9m", "^[[31\xC3\xA9m");
    CASE("tail \x1b[", "tail ^[[");
    CASE("tail \x1b[12;", "tail ^[[12;");
    CASE("\x1b[6n", "^[[6n");               /* a report request */
}

static void test_escape_strings_shown(void)
{
    CASE("\x1b]52;c;UFdORUQ=\a", "^[]52;c;UFdORUQ=^G");
    CASE("\x1b]0;PWNED\x1b\\", "^[]0;PWNED^[\\");
    CASE("\x1b]2;title\a", "^[]2;title^G");
    CASE("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
         "^[]8;;https://evil.example^[\\click^[]8;;^[\\");
    CASE("\x1bP1$qm\x1b\\", "^[P1$qm^[\\");   /* DCS */
    CASE("\x1b_apc\x1b\\", "^[_apc^[\\");     /* APC */
    CASE("\x1b^pm\x1b\\", "^[^pm^[\\");       /* PM */
    CASE("\x1bXsos\x1b\\", "^[Xsos^[\\");     /* SOS */
    CASE("\x1b" "c reset", "^[c reset");      /* RIS */
    CASE("\x1b\x1b[31m", "^[");               /* ESC ESC [31m */
    CASE("ends with ESC\x1b", "ends with ESC^[");
    CASE("\x1b]52;c;\x1b[31mAAAA\a", "^[]52;c;AAAA^G");
}

static void test_c1_both_encodings(void)
{
    CASE("\xC2\x9b" "31m", "<U+009B>31m");               /* CSI as UTF-8 */
    CASE("\xC2\x9d" "0;PWNED\xC2\x9c", "<U+009D>0;PWNED<U+009C>");
    CASE("\xC2\x85 \xC2\x80 \xC2\x9f", "<U+0085> <U+0080> <U+009F>");
    CASE("\x9b" "2J", "\xEF\xBF\xBD" "2J");                /* raw 8-bit CSI */
    CASE("\x9d" "52;c;QQ==\x9c", "\xEF\xBF\xBD" "52;c;QQ==\xEF\xBF\xBD");
    CASE("\x90" "dcs \x98 sos \x9e pm \x9f apc", "\xEF\xBF\xBD" "dcs \xEF\xBF\xBD sos \xEF\xBF\xBD pm \xEF\xBF\xBD apc");
}

static void test_invalid_utf8(void)
{
    CASE("\xC0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD");                        /* overlong NUL */
    CASE("\xC1\x9b", "\xEF\xBF\xBD\xEF\xBF\xBD");                        /* overlong ESC-ish */
    CASE("\xE0\x80\x9b", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");        /* overlong C1 */
    CASE("\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");        /* surrogate */
    CASE("\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    CASE("\xE2\x82" "A", "\xEF\xBF\xBD" "A");                             /* broken off */
    CASE("\xE2\x82", "\xEF\xBF\xBD");                                     /* cut at the end */
    CASE("\xF0\x9F\x98", "\xEF\xBF\xBD");
    CASE("\xE2\x82\x1b[31m", "\xEF\xBF\xBD");
    CASE("\xFF\xFE", "\xEF\xBF\xBD\xEF\xBF\xBD");
    CASE("caf\xE9", "caf\xEF\xBF\xBD");                                   /* Latin-1 */
}

static void test_bidi_and_tags(void)
{
    CASE("if (admin\xE2\x80\xAE \xE2\x81\xA6// check\xE2\x81\xA9 \xE2\x81\xA6)",
         "if (admin<U+202E> <U+2066>// check<U+2069> <U+2066>)");
    CASE("\xE2\x80\xAA\xE2\x80\xAB\xE2\x80\xAC\xE2\x80\xAD\xE2\x81\xA7\xE2\x81\xA8",
         "<U+202A><U+202B><U+202C><U+202D><U+2067><U+2068>");
    CASE("\xE2\x80\xA9\xE2\x81\xA5\xE2\x81\xAA", "\xE2\x80\xA9\xE2\x81\xA5\xE2\x81\xAA");
    CASE("hi\xF3\xA0\x81\x89\xF3\xA0\x81\x87", "hi<U+E0049><U+E0047>"); /* tag "IG" */
    CASE("\xF3\xA0\x80\x80\xF3\xA0\x81\xBF\xF3\xA0\x82\x80", "<U+E0000><U+E007F>\xF3\xA0\x82\x80");
}

static void test_long_csi_is_shown(void)
{
    char in[200], want[200];
    size_t n = 0;
    in[n++] = 0x1b;
    in[n++] = '[';
    for (int i = 0; i < 70; i++)
        in[n++] = (char)('0' + i % 10);
    in[n++] = 'm';
    size_t w = 0;
    memcpy(want, "^[[", 3);
    w = 3;
    for (int i = 0; i < 70; i++)
        want[w++] = (char)('0' + i % 10);
    want[w++] = 'm';
    check_case(in, n, want, w, __LINE__);
}

static void test_dup_and_fputs(void)
{
    char *s = termsafe_dup("a\x1b[31mb\x1b", 1);
    CHECK_STR(s, "ab^[");
    free(s);
    s = termsafe_dup("a\x1b[31mb\x1b", 0); /* growing: the ESC waits */
    CHECK_STR(s, "ab");
    free(s);
    s = termsafe_dup("x\r", 0);
    CHECK_STR(s, "x");
    free(s);
    CHECK(termsafe_dup(NULL, 1) == NULL);
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    REQUIRE(f);
    CHECK_INT(termsafe_fputs("t\x1b]0;PWNED\a!", f), 0);
    CHECK_INT(termsafe_fputs("clean", f), 0);
    CHECK_INT(termsafe_fputs(NULL, f), 0);
    fclose(f);
    CHECK_STR(mem, "t^[]0;PWNED^G!clean");
    free(mem);
}

static void test_held(void)
{
    static const struct {
        const char *in;
        size_t held;
    } cases[] = {
        { "abc", 0 }, { "ab\x1b", 1 }, { "ab\x1b[31", 4 }, { "x\r", 1 },
        { "\xE2\x80", 2 }, { "\xF0\x9F\x98", 3 }, { "\x1b[2J", 0 }, { "\xC3\xA9", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        termsafe t = TERMSAFE_INIT;
        sbuf out = SBUF_INIT;
        termsafe_feed(&t, &out, cases[i].in, strlen(cases[i].in));
        CHECK_INT(termsafe_held(&t), cases[i].held);
        sbuf_release(&out);
    }
}

static void test_json_strings(void)
{
    json_t *v = json_loads("{\"path\": \"a\\u001b]0;PWNED\\u0007.txt\", \"n\": 3, "
                           "\"list\": [\"\\u001b[8mhidden\", {\"deep\": \"\\u009b2J\"}, true], "
                           "\"ok\": \"plain\", \"\\u001bkey\": \"v\"}",
                           0, NULL);
    REQUIRE(v);
    CHECK_INT(termsafe_json(v), 0);
    CHECK_STR(json_string_value(json_object_get(v, "path")), "a^[]0;PWNED^G.txt");
    CHECK_STR(json_string_value(json_array_get(json_object_get(v, "list"), 0)), "hidden");
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(v, "list"), 1), "deep")),
              "<U+009B>2J");
    CHECK_STR(json_string_value(json_object_get(v, "ok")), "plain");
    CHECK_INT(json_integer_value(json_object_get(v, "n")), 3);
    CHECK(json_object_get(v, "\x1bkey") != NULL); /* keys are left alone */
    json_decref(v);
    CHECK_INT(termsafe_json(NULL), 0);
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random text made mostly of the bytes that matter: ESC, sequence introducers and
 * terminators, digits, CR/LF, C1 and UTF-8 pieces. */
static size_t random_text(unsigned char *p, size_t cap, uint64_t *s)
{
    static const unsigned char alphabet[] = {
        0x1b, 0x1b, 0x1b, '[', '[', ']', 'P', '_', '^', 'X', '\\', 'm', 'm', 'J', 'H',
        '0', '1', '2', '5', '8', ';', ';', ':', '?', ' ', 'a', 'z', '\a', '\b', '\r', '\n',
        '\t', 0x00, 0x7f, 0x80, 0x85, 0x9b, 0x9c, 0x9d, 0xc2, 0xc2, 0xe2, 0xe2, 0x80, 0x81,
        0xaa, 0xae, 0xa6, 0xa9, 0xf3, 0xa0, 0xf0, 0x9f, 0x98, 0xed, 0xe0, 0xc0, 0xff, 0xf4,
    };
    size_t n = (size_t)(rng(s) % cap);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(s);
        p[i] = r % 8 == 0 ? (unsigned char)(r >> 8) : alphabet[(r >> 8) % sizeof alphabet];
    }
    return n;
}

static void test_property_random(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned char in[256];
    sbuf out = SBUF_INIT, split = SBUF_INIT, again = SBUF_INIT;
    int bad_safe = 0, bad_split = 0, bad_idem = 0, bad_clean = 0;
    for (int iter = 0; iter < 100000; iter++) {
        size_t n = random_text(in, sizeof in, &seed);
        whole(&out, (const char *)in, n);
        const char *got = out.data ? out.data : "";
        if (!safe_output(got, out.len) && bad_safe++ < 3)
            check_fail(__FILE__, __LINE__, "iteration %d: unsafe output", iter);
        /* three random cuts */
        size_t a = n ? (size_t)(rng(&seed) % (n + 1)) : 0;
        size_t b = a + (n - a ? (size_t)(rng(&seed) % (n - a + 1)) : 0);
        termsafe t = TERMSAFE_INIT;
        sbuf_reset(&split);
        termsafe_feed(&t, &split, (const char *)in, a);
        termsafe_feed(&t, &split, (const char *)in + a, b - a);
        termsafe_feed(&t, &split, (const char *)in + b, n - b);
        termsafe_finish(&t, &split);
        if ((split.len != out.len || memcmp(split.data ? split.data : "", got, out.len) != 0) &&
            bad_split++ < 3)
            check_fail(__FILE__, __LINE__, "iteration %d: cuts at %zu, %zu change the output",
                       iter, a, b);
        whole(&again, got, out.len);
        if ((again.len != out.len || memcmp(again.data ? again.data : "", got, out.len) != 0) &&
            bad_idem++ < 3)
            check_fail(__FILE__, __LINE__, "iteration %d: not idempotent", iter);
        int clean = termsafe_is_clean((const char *)in, n);
        int same = out.len == n && memcmp(got, in, n) == 0;
        if (clean != same && bad_clean++ < 3)
            check_fail(__FILE__, __LINE__, "iteration %d: is_clean says %d", iter, clean);
        check_count += 4;
    }
    sbuf_release(&out);
    sbuf_release(&split);
    sbuf_release(&again);
}

int main(void)
{
    RUN(test_plain_text_passes);
    RUN(test_c0_controls);
    RUN(test_carriage_returns);
    RUN(test_sgr_removed);
    RUN(test_other_csi_shown);
    RUN(test_escape_strings_shown);
    RUN(test_c1_both_encodings);
    RUN(test_invalid_utf8);
    RUN(test_bidi_and_tags);
    RUN(test_long_csi_is_shown);
    RUN(test_dup_and_fputs);
    RUN(test_held);
    RUN(test_json_strings);
    RUN(test_property_random);
    return check_report();
}
