/* Tests for base/jscan, the one strict JSON scanner: the reader's tokens, its grammar and
 * its answers at the edges (nesting exactly at the cap, numbers at the edges of int64 and
 * double, escapes and "\u0000"), agreement with jansson on a table of texts, and decoding.
 * The walker's cases are in api_fast.c (its caller, the decoders), the loader's in
 * store_basic.c. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/jscan.h"
#include "check.h"

/* The tokens of s as a compact trace: { } [ ] k:<raw> s:<raw> n:<i|d> t f z, or !. */
static void trace(const char *s, buf *out)
{
    jscan_reader r;
    jscan_reader_init(&r, s, strlen(s));
    jscan_tok tok;
    jscan_val v;
    int rc;
    while ((rc = jscan_next(&r, &tok, &v)) == 1) {
        if (out->len)
            buf_putc(out, ' ');
        switch (tok) {
        case JSCAN_TOK_BEGIN:
            buf_putc(out, v.kind == JSCAN_OBJECT ? '{' : '[');
            break;
        case JSCAN_TOK_END:
            buf_putc(out, v.kind == JSCAN_OBJECT ? '}' : ']');
            break;
        case JSCAN_TOK_KEY:
            buf_printf(out, "k:%.*s", (int)v.len, v.start);
            break;
        case JSCAN_TOK_VALUE:
            if (v.kind == JSCAN_STRING)
                buf_printf(out, "s:%.*s", (int)v.len, v.start);
            else if (v.kind == JSCAN_NUMBER && v.real)
                buf_printf(out, "d:%g", v.d);
            else if (v.kind == JSCAN_NUMBER)
                buf_printf(out, "i:%lld", v.i);
            else
                buf_putc(out, v.kind == JSCAN_TRUE ? 't' : v.kind == JSCAN_FALSE ? 'f' : 'z');
            break;
        }
    }
    if (rc < 0)
        buf_puts(out, out->len ? " !" : "!");
    /* the answer is sticky */
    CHECK_INT(jscan_next(&r, &tok, &v), rc);
}

static void traces(const char *s, const char *want)
{
    buf b = BUF_INIT(0);
    trace(s, &b);
    CHECK_STR(b.data ? b.data : "", want);
    buf_release(&b);
}

static void test_tokens(void)
{
    traces(" {\"a\" : [1, -2.5e1, \"x\\n\"], \"b\":{}, \"c\":[]} ",
           "{ k:\"a\" [ i:1 d:-25 s:\"x\\n\" ] k:\"b\" { } k:\"c\" [ ] }");
    traces("true", "t");
    traces(" null\n", "z");
    traces("\"\"", "s:\"\"");
    traces("[false,[[]]]", "[ f [ [ ] ] ]");
    /* refused where the text goes wrong; what came before stands */
    traces("[1,]", "[ i:1 !");
    traces("[1 2]", "[ i:1 !");
    traces("{\"a\":1,}", "{ k:\"a\" i:1 !");
    traces("{\"a\" 1}", "{ !");
    traces("{a:1}", "{ !");
    traces("{} x", "{ } !");
    traces("1 2", "i:1 !");
    traces("", "!");
    traces("  ", "!");
    traces("[", "[ !");
    traces("]", "!");
    traces("{\"a\":1]", "{ k:\"a\" i:1 !");
    traces("[1}", "[ i:1 !");
    traces("\"a\x01\"", "!");
    traces("\xef\xbb\xbf{}", "!"); /* a byte order mark is not JSON */
}

static void test_numbers(void)
{
    traces("[0,-0,9223372036854775807,-9223372036854775808]",
           "[ i:0 i:0 i:9223372036854775807 i:-9223372036854775808 ]");
    traces("9223372036854775808", "!");
    traces("-9223372036854775809", "!");
    traces("123456789012345678901234567890", "!");
    traces("1e400", "!");
    traces("-1e400", "!");
    traces("1e-400", "d:0");
    traces("0.5", "d:0.5");
    traces("1E+2", "d:100");
    for (const char *const *bad = (const char *const[]){ "01", "1.", ".1", "-", "1e", "1e+",
                                                         "+1", "0x1", "NaN", "Infinity",
                                                         "-Infinity", "1.e2", NULL };
         *bad; bad++)
        CHECK(!jscan_valid(*bad, strlen(*bad)));
    /* a long real is read whole (no cut at a buffer's size) */
    char longreal[300] = "0.";
    for (int i = 2; i < 290; i++)
        longreal[i] = '1';
    longreal[290] = '\0';
    jscan_reader r;
    jscan_reader_init(&r, longreal, strlen(longreal));
    jscan_tok tok;
    jscan_val v;
    REQUIRE(jscan_next(&r, &tok, &v) == 1);
    CHECK(v.real && fabs(v.d - 1.0 / 9.0) < 1e-15);
    CHECK_INT(jscan_next(&r, &tok, &v), 0);

    long long n = 0;
    jscan_val num = { .kind = JSCAN_NUMBER, .start = "-42", .len = 3 };
    CHECK(jscan_int(&num, &n) && n == -42);
    jscan_val big = { .kind = JSCAN_NUMBER, .start = "99999999999999999999", .len = 20 };
    CHECK(!jscan_int(&big, &n));
}

static void test_strings(void)
{
    static const struct {
        const char *json;
        const char *want; /* NULL: refused */
        size_t want_len;
        bool nul;
    } cases[] = {
        { "\"plain\"", "plain", 5, false },
        { "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8, false },
        { "\"\\u00e9\\u263A\"", "\xc3\xa9\xe2\x98\xba", 5, false },
        { "\"\\ud83d\\ude80\"", "\xf0\x9f\x9a\x80", 4, false },
        { "\"a\\u0000b\"", "a\0b", 3, true },
        { "\"\xc3\xa9\xf0\x9f\x9a\x80\"", "\xc3\xa9\xf0\x9f\x9a\x80", 6, false },
        { "\"\\ud800\"", NULL, 0, false },        /* lone high surrogate */
        { "\"\\ud800\\u0041\"", NULL, 0, false }, /* high, then no low */
        { "\"\\udc00\"", NULL, 0, false },        /* lone low surrogate */
        { "\"\\u12G4\"", NULL, 0, false },
        { "\"\\u12\"", NULL, 0, false },
        { "\"\\x\"", NULL, 0, false },
        { "\"\\'\"", NULL, 0, false },
        { "\"a\nb\"", NULL, 0, false },          /* a raw control byte */
        { "\"\xc3\"", NULL, 0, false },          /* cut UTF-8 */
        { "\"\xc0\xaf\"", NULL, 0, false },      /* overlong */
        { "\"\xed\xa0\x80\"", NULL, 0, false },  /* an encoded surrogate */
        { "\"\xf4\x90\x80\x80\"", NULL, 0, false }, /* past U+10FFFF */
        { "\"\xff\"", NULL, 0, false },
        { "\"unterminated", NULL, 0, false },
        { "\"ends in a backslash\\", NULL, 0, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jscan_reader r;
        jscan_reader_init(&r, cases[i].json, strlen(cases[i].json));
        jscan_tok tok;
        jscan_val v;
        int rc = jscan_next(&r, &tok, &v);
        if (!cases[i].want) {
            if (rc != -1)
                check_fail(__FILE__, __LINE__, "taken: %s", cases[i].json);
            check_count++;
            continue;
        }
        REQUIRE(rc == 1 && v.kind == JSCAN_STRING);
        CHECK(v.nul == cases[i].nul);
        buf out = BUF_INIT(0);
        CHECK(jscan_string(&v, &out));
        CHECK_MEM(out.data, out.len, cases[i].want, cases[i].want_len);
        buf_release(&out);
    }
    /* a buf at its cap: false, nothing appended */
    jscan_val v;
    jscan_reader r;
    jscan_tok tok;
    jscan_reader_init(&r, "\"abcdef\"", 8);
    REQUIRE(jscan_next(&r, &tok, &v) == 1);
    buf small = BUF_INIT(4);
    CHECK(!jscan_string(&v, &small));
    CHECK_INT(small.len, 0);
    buf_release(&small);
}

/* n arrays open, then closed. */
static bool nested_ok(int n)
{
    char *s = malloc((size_t)n * 2 + 1);
    if (!s)
        return false;
    for (int i = 0; i < n; i++) {
        s[i] = '[';
        s[n + i] = ']';
    }
    s[2 * n] = '\0';
    bool ok = jscan_valid(s, (size_t)n * 2);
    /* jansson's own limit is the same */
    json_error_t e;
    json_t *j = json_loadb(s, (size_t)n * 2, JSON_DECODE_ANY, &e);
    CHECK((j != NULL) == ok);
    json_decref(j);
    free(s);
    return ok;
}

static void test_nesting(void)
{
    CHECK(nested_ok(1));
    CHECK(nested_ok(JSCAN_MAX_DEPTH));
    CHECK(!nested_ok(JSCAN_MAX_DEPTH + 1));
    CHECK(!nested_ok(100000)); /* no recursion: no stack to run out of */
}

/* The reader and jansson agree on a table of texts (the fuzzer does it at random). */
static void test_agrees_with_jansson(void)
{
    static const char *const texts[] = {
        "{}", "[]", "0", "-0", "1.5", "-1.5e10", "1E400", "1e-400", "\"\\u0000\"",
        "{\"\\u0000\":1}", "{\"a\":1,\"a\":2}", "[1,[2,[3,{\"x\":[]}]]]", "tru", "nul", "[,1]",
        "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\" \\/ \"", "{\"a\":\"b\" , \"c\" :\t\"d\"}",
        "[1e5, 1E-5, -0.0, 0e0]", "[\"\xe2\x82\xac\", \"\xe2\x82\"]",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_error_t e;
        json_t *j = json_loadb(texts[i], strlen(texts[i]), JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
        bool valid = jscan_valid(texts[i], strlen(texts[i]));
        /* jansson refuses a NUL in a key; the scanner leaves that rule to its consumer */
        bool nul_key = strstr(texts[i], "{\"\\u0000\"") != NULL;
        if ((j != NULL) != (valid && !nul_key))
            check_fail(__FILE__, __LINE__, "jscan %s, jansson %s: %s", valid ? "takes" : "refuses",
                       j ? "takes" : "refuses", texts[i]);
        check_count++;
        json_decref(j);
    }
}

/* Long strings with escapes at every offset (the decoder copies sixteen bytes at a time):
 * the same text as jansson's. */
static void test_long_strings_decode_as_jansson(void)
{
    static const char *const pieces[] = { "a", "bcdefgh", "\\n", "\\\"", "\\u00e9",
                                          "\\ud83d\\ude80", "\xc3\xa9", "\\\\", "0123456789abcdef",
                                          "\\/", "\\u0000" };
    srand(11);
    for (int k = 0; k < 2000; k++) {
        buf j = BUF_INIT(0);
        buf_putc(&j, '"');
        int n = rand() % 60;
        for (int i = 0; i < n; i++)
            buf_puts(&j, pieces[rand() % (int)(sizeof pieces / sizeof pieces[0])]);
        buf_putc(&j, '"');
        json_error_t e;
        json_t *want = json_loadb(j.data, j.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
        jscan_reader r;
        jscan_reader_init(&r, j.data, j.len);
        jscan_tok tok;
        jscan_val v;
        REQUIRE(want && jscan_next(&r, &tok, &v) == 1);
        buf out = BUF_INIT(0);
        CHECK(jscan_string(&v, &out));
        CHECK_MEM(out.data, out.len, json_string_value(want), json_string_length(want));
        buf_release(&out);
        buf_release(&j);
        json_decref(want);
    }
}

int main(void)
{
    RUN(test_long_strings_decode_as_jansson);
    RUN(test_tokens);
    RUN(test_numbers);
    RUN(test_strings);
    RUN(test_nesting);
    RUN(test_agrees_with_jansson);
    return check_report();
}
