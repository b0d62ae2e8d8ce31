/* Unit tests for base/utf8: strict validation, cutting, stream prefixes, sanitizing. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "check.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static void test_validate_accepts_valid(void)
{
    size_t bad = 99;
    CHECK(utf8_validate(S(""), &bad));
    CHECK(utf8_validate(S("plain ascii, long enough to use the 8-byte path"), &bad));
    CHECK(utf8_validate(S("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), &bad));
    CHECK(utf8_validate(S("\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80"), &bad));
    CHECK(utf8_validate(S("\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"), &bad)); /* U+10FFFF */
    CHECK(utf8_validate("a\0b", 3, &bad)); /* NUL is U+0000 */
    CHECK_INT(bad, 99);                      /* untouched on success */
    CHECK(utf8_validate(S("x"), NULL));
}

static void check_bad(const char *s, size_t len, size_t want)
{
    size_t bad = 12345;
    CHECK(!utf8_validate(s, len, &bad));
    CHECK_INT(bad, want);
}

static void test_validate_rejects_invalid(void)
{
    check_bad(S("ab\x80"), 2);                 /* stray continuation */
    check_bad(S("\xC0\xAF"), 0);               /* overlong '/' */
    check_bad(S("\xC1\xBF"), 0);               /* overlong */
    check_bad(S("xy\xE0\x80\xAF"), 2);         /* overlong 3-byte */
    check_bad(S("\xE0\x9F\xBF"), 0);           /* overlong U+07FF */
    check_bad(S("\xF0\x80\x80\xAF"), 0);       /* overlong 4-byte */
    check_bad(S("\xF0\x8F\xBF\xBF"), 0);       /* overlong U+FFFF */
    check_bad(S("ok\xED\xA0\x80"), 2);         /* U+D800 surrogate */
    check_bad(S("\xED\xBF\xBF"), 0);           /* U+DFFF surrogate */
    check_bad(S("\xF4\x90\x80\x80"), 0);       /* U+110000 */
    check_bad(S("\xF5\x80\x80\x80"), 0);
    check_bad(S("\xFF"), 0);
    check_bad(S("\xFE"), 0);
    check_bad(S("abc\xC3"), 3);                /* truncated at the end */
    check_bad(S("abcdefghij\xE2\x82"), 10);     /* truncated after the fast path */
    check_bad(S("\xC3\x41"), 0);               /* lead followed by ASCII */
    check_bad(S("\xE2\x82\x41"), 0);
    check_bad(S("0123456789abcdef\xC3\xA9\xA9"), 18);

    hew_err err = HEW_ERR_INIT;
    CHECK_INT(utf8_check(S("ab\xFF"), "tool output", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "tool output") != NULL);
    CHECK(strstr(err.msg, "offset 2") != NULL);
    CHECK(strstr(err.msg, "0xFF") != NULL);
    CHECK_INT(utf8_check(S("fine"), "x", &err), HEW_OK);
}

static void test_decode_encode(void)
{
    uint32_t cp = 0;
    CHECK_INT(utf8_decode(S("A"), &cp), 1);
    CHECK_INT(cp, 'A');
    CHECK_INT(utf8_decode(S("\xC3\xA9"), &cp), 2);
    CHECK_INT(cp, 0xE9);
    CHECK_INT(utf8_decode(S("\xE2\x82\xAC"), &cp), 3);
    CHECK_INT(cp, 0x20AC);
    CHECK_INT(utf8_decode(S("\xF0\x9F\x98\x80"), &cp), 4);
    CHECK_INT(cp, 0x1F600);
    CHECK_INT(utf8_decode(S("\xF0\x9F\x98"), &cp), 0);
    CHECK_INT(utf8_decode(S("\xED\xA0\x80"), &cp), 0);
    CHECK_INT(utf8_decode("", 0, &cp), 0);

    char out[4];
    CHECK_INT(utf8_encode('x', out), 1);
    CHECK_MEM(out, 1, "x", 1);
    CHECK_INT(utf8_encode(0xE9, out), 2);
    CHECK_MEM(out, 2, "\xC3\xA9", 2);
    CHECK_INT(utf8_encode(0x20AC, out), 3);
    CHECK_MEM(out, 3, "\xE2\x82\xAC", 3);
    CHECK_INT(utf8_encode(0x10FFFF, out), 4);
    CHECK_MEM(out, 4, "\xF4\x8F\xBF\xBF", 4);
    CHECK_INT(utf8_encode(0xD800, out), 0);
    CHECK_INT(utf8_encode(0x110000, out), 0);
    /* Round trip over every scalar value. */
    int bad = 0;
    for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        if (c >= 0xD800 && c <= 0xDFFF)
            continue;
        size_t n = utf8_encode(c, out);
        uint32_t back = 0;
        if (n == 0 || utf8_decode(out, n, &back) != n || back != c)
            bad++;
    }
    CHECK_INT(bad, 0);
}

static void test_cut(void)
{
    const char s[] = "a\xC3\xA9" "b\xE2\x82\xAC" "c\xF0\x9F\x98\x80"; /* a é b € c 😀 */
    size_t len = sizeof s - 1;                                         /* 12 */
    CHECK_INT(utf8_cut(s, len, 100), len);
    CHECK_INT(utf8_cut(s, len, len), len);
    CHECK_INT(utf8_cut(s, len, 0), 0);
    CHECK_INT(utf8_cut(s, len, 1), 1);
    CHECK_INT(utf8_cut(s, len, 2), 1);  /* inside é */
    CHECK_INT(utf8_cut(s, len, 3), 3);
    CHECK_INT(utf8_cut(s, len, 4), 4);
    CHECK_INT(utf8_cut(s, len, 5), 4);  /* inside € */
    CHECK_INT(utf8_cut(s, len, 6), 4);
    CHECK_INT(utf8_cut(s, len, 7), 7);
    CHECK_INT(utf8_cut(s, len, 8), 8);
    CHECK_INT(utf8_cut(s, len, 9), 8);  /* inside 😀 */
    CHECK_INT(utf8_cut(s, len, 10), 8);
    CHECK_INT(utf8_cut(s, len, 11), 8);
    /* Every cut of a valid string is itself valid. */
    for (size_t m = 0; m <= len; m++)
        CHECK(utf8_validate(s, utf8_cut(s, len, m), NULL));
    /* Invalid input: stray continuation bytes are cut like single characters. */
    CHECK_INT(utf8_cut(S("a\x80\x80\x80\x80\x80"), 3), 3);
    CHECK_INT(utf8_cut(S("\x80\x80\x80\x80\x80"), 2), 2);
    CHECK_INT(utf8_cut(S("\xC3\xA9\xA9\xA9"), 2), 2); /* é then strays */
    CHECK_INT(utf8_cut(S("\xC3\xA9\xA9\xA9"), 3), 3);
}

static void test_complete_prefix(void)
{
    CHECK_INT(utf8_complete_prefix("", 0), 0);
    CHECK_INT(utf8_complete_prefix(S("abc")), 3);
    CHECK_INT(utf8_complete_prefix(S("ab\xC3")), 2);
    CHECK_INT(utf8_complete_prefix(S("ab\xC3\xA9")), 4);
    CHECK_INT(utf8_complete_prefix(S("ab\xE2")), 2);
    CHECK_INT(utf8_complete_prefix(S("ab\xE2\x82")), 2);
    CHECK_INT(utf8_complete_prefix(S("ab\xE2\x82\xAC")), 5);
    CHECK_INT(utf8_complete_prefix(S("\xF0")), 0);
    CHECK_INT(utf8_complete_prefix(S("\xF0\x9F")), 0);
    CHECK_INT(utf8_complete_prefix(S("\xF0\x9F\x98")), 0);
    CHECK_INT(utf8_complete_prefix(S("\xF0\x9F\x98\x80")), 4);
    /* Invalid tails are not held back: they will never complete. */
    CHECK_INT(utf8_complete_prefix(S("ab\xFF")), 3);
    CHECK_INT(utf8_complete_prefix(S("ab\xE0\x80")), 4); /* overlong: already invalid */
    CHECK_INT(utf8_complete_prefix(S("ab\xED\xA0")), 4); /* surrogate: already invalid */
    CHECK_INT(utf8_complete_prefix(S("ab\x80\x80\x80\x80")), 6);

    /* Streaming: feed a string byte-chunk by byte-chunk, holding back partial chars;
     * every emitted piece is valid and the concatenation is the original. */
    const char s[] = "h\xC3\xA9llo \xE2\x82\xAC\xF0\x9F\x98\x80!";
    size_t len = sizeof s - 1;
    for (size_t step = 1; step <= 5; step++) {
        buf pending = BUF_INIT(0), outb = BUF_INIT(0);
        int invalid = 0;
        for (size_t i = 0; i < len; i += step) {
            size_t n = len - i < step ? len - i : step;
            buf_append(&pending, s + i, n);
            size_t ok = utf8_complete_prefix(pending.data, pending.len);
            if (!utf8_validate(pending.data, ok, NULL))
                invalid++;
            buf_append(&outb, pending.data, ok);
            buf_consume(&pending, ok);
        }
        CHECK_INT(invalid, 0);
        CHECK_INT(pending.len, 0);
        CHECK_MEM(outb.data, outb.len, s, len);
        buf_release(&pending);
        buf_release(&outb);
    }
}

static void check_sanitize(const char *in, size_t len, const char *want)
{
    buf b = BUF_INIT(0);
    utf8_sanitize(in, len, &b);
    CHECK_INT(b.err, HEW_OK);
    CHECK_MEM(b.data, b.len, want, strlen(want));
    CHECK(utf8_validate(b.data, b.len, NULL));
    buf_release(&b);
}

#define R UTF8_REPLACEMENT

static void test_sanitize(void)
{
    check_sanitize(S("hello"), "hello");
    check_sanitize(S("caf\xC3\xA9"), "caf\xC3\xA9");
    check_sanitize(S("a\xFF" "b"), "a" R "b");
    check_sanitize(S("\xC0\xAF"), R R);                 /* each byte of an overlong */
    check_sanitize(S("\xED\xA0\x80" "x"), R R R "x");    /* surrogate: 3 replacements */
    check_sanitize(S("\xE2\x82" "x"), R "x");            /* maximal subpart: one */
    check_sanitize(S("\xF0\x9F\x98"), R);                /* truncated at the end */
    check_sanitize(S("\xF4\x90\x80\x80"), R R R R);
    check_sanitize(S("0123456789\x80" "0123456789"), "0123456789" R "0123456789");
    buf b = BUF_INIT(0);
    buf_puts(&b, "pre:");
    utf8_sanitize("", 0, &b); /* appends nothing */
    CHECK_STR(b.data, "pre:");
    buf_release(&b);
    /* Sticky error of the target buffer. */
    buf small = BUF_INIT(4);
    utf8_sanitize(S("\xFF\xFF"), &small);
    CHECK_INT(small.err, HEW_E_TOOBIG);
    buf_release(&small);
}

static void test_count(void)
{
    CHECK_INT(utf8_count("", 0), 0);
    CHECK_INT(utf8_count(S("abc")), 3);
    CHECK_INT(utf8_count(S("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80")), 4);
    CHECK_INT(utf8_count(S("a\xFF" "b")), 3);
    CHECK_INT(utf8_count(S("\xE2\x82")), 1);
}

int main(void)
{
    RUN(test_validate_accepts_valid);
    RUN(test_validate_rejects_invalid);
    RUN(test_decode_encode);
    RUN(test_cut);
    RUN(test_complete_prefix);
    RUN(test_sanitize);
    RUN(test_count);
    return check_report();
}
