/* Unit tests for parse/ (XML tool calls in text): the fixture corpus against hand-written
 * expectations, everything against the literal port of Cline's algorithm (parse_oracle.h),
 * and the streaming properties: any chunking gives the blocks of a single feed, and every
 * intermediate snapshot is what the reference gives for the text so far (minus what is
 * held back), with no block disappearing, no complete block changing, partial flipping
 * once. */
#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "check.h"
#include "hew.h"
#include "hew_debug.h"
#include "parse/cline_names.h"
#include "parse/parser.h"
#include "parse/tagset.h"
#include "parse/tval.h"
#include "parse_oracle.h"

static const char *const *g_tools;

/* Two buffers hold the same bytes (empty ones have no data). */
static bool same(const buf *a, const buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}
static size_t g_ntools;

static void print_input(const char *s, size_t n)
{
    fprintf(stderr, "input (%zu bytes): \"", n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\')
            fprintf(stderr, "\\x%02X", c);
        else
            fputc(c, stderr);
    }
    fputs("\"\n", stderr);
}

static parser *new_parser(void)
{
    parser_opts o = parser_defaults();
    if (g_tools) {
        o.tools = g_tools;
        o.ntools = g_ntools;
    }
    hew_err err = HEW_ERR_INIT;
    parser *p = parser_new(&o, &err);
    if (!p)
        fprintf(stderr, "parser_new: %s\n", err.msg);
    return p;
}

static void oracle_of(const char *s, size_t n, buf *out)
{
    const char *const *tools = g_tools ? g_tools : cline_tool_names;
    size_t nt = g_tools ? g_ntools : cline_tool_count;
    oresult r = oracle_parse(s, n, tools, nt, cline_param_names, cline_param_count,
                             "write_to_file");
    oracle_dump(out, &r);
    oracle_free(&r);
}

/* The parser's blocks after feeding s whole and finishing. */
static void whole_dump(const char *s, size_t n, buf *out)
{
    parser *p = new_parser();
    if (!p)
        return;
    CHECK_INT(parser_text(p, s, n, NULL), HEW_OK);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    parser_dump(out, p);
    parser_free(p);
}

/* Snapshot of the streaming view, block by block, with write_to_file's content left out
 * while its tool is partial (its streaming view is ours, not the reference's). */
static void snap_dump(const parser *p, buf *out)
{
    for (size_t i = 0; i < parser_count(p); i++) {
        const block *b = parser_block(p, i);
        bool skip = b->type == BLOCK_TOOL_USE && b->partial && b->name &&
                    strcmp(b->name, "write_to_file") == 0;
        parser_dump_block(out, b, skip ? "content" : NULL);
    }
}

static void oracle_snap_dump(const char *s, size_t n, buf *out)
{
    const char *const *tools = g_tools ? g_tools : cline_tool_names;
    size_t nt = g_tools ? g_ntools : cline_tool_count;
    oresult r = oracle_parse(s, n, tools, nt, cline_param_names, cline_param_count,
                             "write_to_file");
    for (size_t i = 0; i < r.n; i++) {
        const oblock *b = &r.v[i];
        bool skip = b->tool && b->partial && strcmp(b->name, "write_to_file") == 0;
        oracle_dump_block(out, b, skip ? "content" : NULL);
    }
    oracle_free(&r);
}

typedef struct seen {
    buf dump;    /* the block's dump at the last snapshot */
    bool partial;
    uint64_t seq;
} seen;

static int g_fail_budget = 20;

/* Feed s in the chunks given by cuts (sorted positions, 0 < cut < n) and check everything.
 * snapshots: also check each intermediate state against the reference. */
static void check_chunking(const char *s, size_t n, const size_t *cuts, size_t ncuts,
                           bool snapshots, const buf *want)
{
    if (g_fail_budget <= 0)
        return;
    parser *p = new_parser();
    if (!p)
        return;
    seen *prev = NULL;
    size_t nprev = 0;
    size_t at = 0;
    bool bad = false;
    for (size_t c = 0; c <= ncuts && !bad; c++) {
        size_t to = c < ncuts ? cuts[c] : n;
        if (to < at)
            continue;
        if (parser_text(p, s + at, to - at, NULL) != HEW_OK) {
            bad = true;
            break;
        }
        at = to;
        /* Prefix consistency with the previous snapshot. */
        size_t count = parser_count(p);
        if (count < nprev) {
            fprintf(stderr, "a block disappeared (%zu -> %zu)\n", nprev, count);
            bad = true;
        }
        for (size_t i = 0; i < nprev && !bad; i++) {
            const block *b = parser_block(p, i);
            buf d = BUF_INIT(0);
            parser_dump_block(&d, b, NULL);
            if (!prev[i].partial && (b->partial || !same(&d, &prev[i].dump))) {
                fprintf(stderr, "complete block %zu changed\n", i);
                bad = true;
            }
            if (b->type == BLOCK_TEXT) {
                size_t a, bl;
                const char *now = block_text(b, &bl);
                /* the previous content is the dump's field: compare via re-dump prefix */
                const char *pd = prev[i].dump.data;
                const char *colon = strchr(pd, ':');
                a = (size_t)strtoul(pd + 5, NULL, 10);
                if (a > bl || memcmp(colon + 1, now, a) != 0) {
                    fprintf(stderr, "text block %zu did not grow by appending\n", i);
                    bad = true;
                }
            }
            if (!same(&d, &prev[i].dump)) {
                if (b->seq <= prev[i].seq) {
                    fprintf(stderr, "block %zu changed without a new seq\n", i);
                    bad = true;
                }
                if (parser_dirty_from(p) > i) {
                    fprintf(stderr, "block %zu changed but dirty_from is %zu\n", i,
                            parser_dirty_from(p));
                    bad = true;
                }
            }
            buf_release(&d);
        }
        parser_clean(p);
        for (size_t i = 0; i < nprev; i++)
            buf_release(&prev[i].dump);
        free(prev);
        prev = calloc(count + 1, sizeof *prev);
        nprev = count;
        for (size_t i = 0; i < count; i++) {
            const block *b = parser_block(p, i);
            buf_init(&prev[i].dump, 0);
            parser_dump_block(&prev[i].dump, b, NULL);
            prev[i].partial = b->partial;
            prev[i].seq = b->seq;
        }
        if (snapshots && !bad) {
            size_t cut = at - parser_held(p);
            cut = utf8_complete_prefix(s, cut);
            buf a = BUF_INIT(0), o = BUF_INIT(0);
            snap_dump(p, &a);
            oracle_snap_dump(s, cut, &o);
            if (!same(&a, &o)) {
                fprintf(stderr, "snapshot after %zu bytes (held %zu) differs from the "
                                "reference on %zu bytes\n",
                        at, parser_held(p), cut);
                dump_print(stderr, "parser", &a);
                dump_print(stderr, "reference", &o);
                bad = true;
            }
            buf_release(&a);
            buf_release(&o);
        }
    }
    if (!bad) {
        CHECK_INT(parser_finish(p, NULL), HEW_OK);
        buf got = BUF_INIT(0);
        parser_dump(&got, p);
        for (size_t i = 0; i < nprev && i < parser_count(p); i++)
            if (!prev[i].partial && parser_block(p, i)->partial)
                bad = true;
        if (!same(&got, want)) {
            fprintf(stderr, "chunked result differs from the single feed (%zu chunks)\n",
                    ncuts + 1);
            dump_print(stderr, "chunked", &got);
            dump_print(stderr, "single", want);
            bad = true;
        }
        buf_release(&got);
    }
    for (size_t i = 0; i < nprev; i++)
        buf_release(&prev[i].dump);
    free(prev);
    parser_free(p);
    check_count++;
    if (bad) {
        print_input(s, n);
        fprintf(stderr, "cuts:");
        for (size_t i = 0; i < ncuts; i++)
            fprintf(stderr, " %zu", cuts[i]);
        fputc('\n', stderr);
        check_fail(__FILE__, __LINE__, "streaming property violated");
        g_fail_budget--;
    }
}

static uint64_t rng_next(uint64_t *st)
{
    uint64_t x = *st;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *st = x;
    return x;
}

/* Everything about one input: reference equality and chunkings. */
static void check_input(const char *s, size_t n, uint64_t seed, bool all_splits)
{
    buf want = BUF_INIT(0), ref = BUF_INIT(0);
    whole_dump(s, n, &want);
    oracle_of(s, n, &ref);
    check_count++;
    if (!same(&want, &ref)) {
        print_input(s, n);
        dump_print(stderr, "parser", &want);
        dump_print(stderr, "reference", &ref);
        check_fail(__FILE__, __LINE__, "whole feed differs from the reference");
        buf_release(&want);
        buf_release(&ref);
        return;
    }
    size_t *cuts = malloc((n + 1) * sizeof *cuts);
    /* one byte at a time, with snapshots */
    for (size_t i = 1; i < n; i++)
        cuts[i - 1] = i;
    check_chunking(s, n, cuts, n ? n - 1 : 0, true, &want);
    /* every single split point */
    if (all_splits)
        for (size_t i = 1; i < n; i++) {
            cuts[0] = i;
            check_chunking(s, n, cuts, 1, false, &want);
        }
    /* random chunkings */
    uint64_t st = seed | 1;
    for (int r = 0; r < 8; r++) {
        size_t k = 0, at = 0;
        size_t maxc = 1 + rng_next(&st) % 24;
        while (1) {
            at += 1 + rng_next(&st) % maxc;
            if (at >= n)
                break;
            cuts[k++] = at;
        }
        check_chunking(s, n, cuts, k, r == 0, &want);
    }
    free(cuts);
    buf_release(&want);
    buf_release(&ref);
}

/* ---- the fixture corpus ---------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf b = BUF_INIT(0);
    char tmp[4096];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_append(&b, tmp, k);
    fclose(f);
    if (!b.data)
        buf_append(&b, "", 0), buf_putc(&b, 0), b.len = 0;
    return buf_detach(&b, len);
}

static char *canonical(const char *json_text)
{
    json_error_t je;
    json_t *j = json_loads(json_text, 0, &je);
    if (!j)
        return NULL;
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    return s;
}

static void test_fixtures(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/parse", HEW_TEST_FIXTURES);
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    struct dirent *e;
    int count = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".txt") != 0)
            continue;
        char path[2048], exp[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(exp, sizeof exp, "%s/%.*s.expect.json", dir, (int)(l - 4), e->d_name);
        size_t n, en;
        char *text = slurp(path, &n);
        char *expect = slurp(exp, &en);
        REQUIRE(text && expect);
        char *want = canonical(expect);
        CHECK(want != NULL);
        static const size_t chunks[] = { 0, 1, 2, 3, 5, 7, 13, 64 };
        for (size_t c = 0; want && c < sizeof chunks / sizeof chunks[0]; c++) {
            char errbuf[256];
            char *got = NULL;
            (void)hew_debug_parse(text, n, NULL, chunks[c], &got, errbuf, sizeof errbuf);
            CHECK(got != NULL);
            if (got && strcmp(got, want) != 0) {
                fprintf(stderr, "%s (chunk %zu):\n  got  %s\n  want %s\n", e->d_name,
                        chunks[c], got, want);
                check_fail(__FILE__, __LINE__, "fixture mismatch");
            }
            hew_free(got);
        }
        check_input(text, n, 0x9E3779B97F4A7C15ull ^ n, n < 200);
        free(want);
        free(text);
        free(expect);
        count++;
    }
    closedir(d);
    CHECK(count >= 20);
}

/* ---- generated inputs ------------------------------------------------------------------ */

static const char *const TOKENS[] = {
    "<", ">", "/", "</", " ", "  ", "\n", "\r\n", "\t", "x", "ab", "é", "中", "😀",
    "\xE3\x80\x80", "\xC2\xA0", "\xE2\x80\xA8", "\xEF\xBB\xBF", "\xE3\x80", "\xC2", "\xFF",
    "<read_file>", "</read_file>", "<read_fi", "read_file", "<path>", "</path>", "path",
    "<write_to_file>", "</write_to_file>", "<content>", "</content>", "content", "</cont",
    "<execute_command>", "</execute_command>", "<command>", "</command>",
    "<list_files>", "</list_files>", "<recursive>", "</recursive>", "<diff>", "</diff>",
    "<thinking>", "</thinking>", "<div>", "<<", "<>", "</>",
};

static size_t gen(uint64_t *st, char *out, size_t cap)
{
    size_t n = 0, want = 1 + rng_next(st) % 40;
    for (size_t i = 0; i < want; i++) {
        const char *t = TOKENS[rng_next(st) % (sizeof TOKENS / sizeof TOKENS[0])];
        size_t l = strlen(t);
        if (n + l >= cap)
            break;
        memcpy(out + n, t, l);
        n += l;
    }
    return n;
}

static void test_generated(void)
{
    uint64_t st = 0x1234567887654321ull;
    char s[1024];
    for (int i = 0; i < 250 && g_fail_budget > 0; i++) {
        size_t n = gen(&st, s, sizeof s);
        check_input(s, n, st, n < 120);
    }
}

static void test_generated_small_toolset(void)
{
    static const char *const tools[] = { "write_to_file", "path", "x" };
    g_tools = tools;
    g_ntools = 3;
    uint64_t st = 0xABCDEF0123456789ull;
    char s[1024];
    for (int i = 0; i < 100 && g_fail_budget > 0; i++) {
        size_t n = gen(&st, s, sizeof s);
        check_input(s, n, st, false);
    }
    g_tools = NULL;
    g_ntools = 0;
}

/* ---- the streaming view, by hand ------------------------------------------------------- */

static void test_partial_tag_held_back(void)
{
    parser *p = new_parser();
    REQUIRE(p);
    CHECK_INT(parser_text(p, "Let me look <rea", 16, NULL), HEW_OK);
    CHECK_INT(parser_count(p), 1);
    size_t n;
    CHECK_STR(block_text(parser_block(p, 0), &n), "Let me look");
    CHECK_INT(parser_held(p), 4);
    CHECK(parser_block(p, 0)->partial);
    CHECK_INT(parser_text(p, "d_file><path>src/x.c</pa", 24, NULL), HEW_OK);
    CHECK_INT(parser_count(p), 2);
    CHECK(!parser_block(p, 0)->partial);
    const block *t = parser_block(p, 1);
    CHECK_STR(t->name, "read_file");
    CHECK_STR(block_param_lookup(t, "path", NULL), "src/x.c");
    CHECK_INT(parser_held(p), 4);
    CHECK_INT(parser_text(p, "th></read_file>", 15, NULL), HEW_OK);
    CHECK(!t->partial);
    CHECK_INT(parser_held(p), 0);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    CHECK_INT(parser_count(p), 2);
    parser_free(p);
}

static void test_multibyte_never_half_shown(void)
{
    const char *s = "Été 中文 😀 done";
    size_t n = strlen(s);
    parser *p = new_parser();
    REQUIRE(p);
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(parser_text(p, s + i, 1, NULL), HEW_OK);
        if (parser_count(p)) {
            size_t l;
            const char *t = block_text(parser_block(p, 0), &l);
            CHECK(utf8_validate(t, l, NULL));
        }
    }
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    CHECK_STR(block_text(parser_block(p, 0), NULL), s);
    parser_free(p);
}

static void test_write_to_file_view(void)
{
    /* A file that contains </content>: while streaming, the value shows what the tool would
     * hold if it closed now; the final value runs to the last </content>. */
    parser *p = new_parser();
    REQUIRE(p);
    const char *a = "<write_to_file><path>f.xml</path><content>\n<a>\n  <content>x";
    CHECK_INT(parser_text(p, a, strlen(a), NULL), HEW_OK);
    const block *t = parser_block(p, 0);
    CHECK_STR(block_param_lookup(t, "content", NULL), "<a>\n  <content>x");
    const char *b = "</content>\n</a>\n";
    CHECK_INT(parser_text(p, b, strlen(b), NULL), HEW_OK);
    CHECK_STR(block_param_lookup(t, "content", NULL), "<a>\n  <content>x");
    const char *c = "</content>\n</write_to_file>";
    CHECK_INT(parser_text(p, c, strlen(c), NULL), HEW_OK);
    CHECK(!t->partial);
    CHECK_STR(block_param_lookup(t, "content", NULL), "<a>\n  <content>x</content>\n</a>");
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    parser_free(p);
}

static void test_seal_and_dirty(void)
{
    parser *p = new_parser();
    REQUIRE(p);
    CHECK_INT(parser_dirty_from(p), 0);
    const char *s = "Hi <read_file><path>a</path></read_file> bye";
    CHECK_INT(parser_text(p, s, strlen(s), NULL), HEW_OK);
    CHECK_INT(parser_count(p), 3);
    parser_clean(p);
    CHECK_INT(parser_dirty_from(p), 3);
    uint64_t seq = parser_seq(p);
    CHECK_INT(parser_text(p, "!", 1, NULL), HEW_OK);
    CHECK_INT(parser_dirty_from(p), 2);
    CHECK(parser_block(p, 2)->seq > seq);
    CHECK(parser_block(p, 1)->seq <= seq);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    CHECK(parser_block(p, 2)->partial);
    parser_seal(p);
    for (size_t i = 0; i < parser_count(p); i++)
        CHECK(!parser_block(p, i)->partial);
    CHECK_INT(parser_text(p, "x", 1, NULL), HEW_E_INVALID);
    parser_free(p);
}

static void test_cap_and_bad_names(void)
{
    parser_opts o = parser_defaults();
    o.max_bytes = 10;
    hew_err err = HEW_ERR_INIT;
    parser *p = parser_new(&o, &err);
    REQUIRE(p);
    CHECK_INT(parser_text(p, "0123456789", 10, NULL), HEW_OK);
    CHECK_INT(parser_text(p, "x", 1, &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "larger than 10 bytes") != NULL);
    CHECK_INT(parser_text(p, "", 0, NULL), HEW_E_TOOBIG); /* sticky */
    CHECK_STR(block_text(parser_block(p, 0), NULL), "0123456789");
    parser_free(p);

    static const char *const bad[] = { "ok", "a b" };
    o = parser_defaults();
    o.tools = bad;
    o.ntools = 2;
    CHECK(parser_new(&o, &err) == NULL);
    CHECK_INT(err.code, HEW_E_INVALID);
    CHECK(strstr(err.msg, "tool name 2") != NULL);
    static const char *const bad2[] = { "a/b" };
    o.tools = bad2;
    o.ntools = 1;
    CHECK(parser_new(&o, NULL) == NULL);
}

static void test_tval_spaces(void)
{
    /* Every JavaScript space, and near misses that are not spaces. */
    static const char *const spaces[] = { "\t", "\n", "\v", "\f", "\r", " ", "\xC2\xA0",
                                          "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x8A",
                                          "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF",
                                          "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF" };
    static const char *const others[] = { "\xC2\x85", "\xE2\x80\x8B", "\xE2\x80\x90",
                                          "\xE3\x80\x81", "\xEF\xBB\xBE", "\xE2\x81\xA0" };
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
        size_t l = strlen(spaces[i]);
        CHECK_INT(tval_space_at((const unsigned char *)spaces[i], l, NULL), l);
        CHECK_INT(tval_space_before((const unsigned char *)spaces[i], l), l);
    }
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        size_t l = strlen(others[i]);
        CHECK_INT(tval_space_at((const unsigned char *)others[i], l, NULL), 0);
        CHECK_INT(tval_space_before((const unsigned char *)others[i], l), 0);
    }
    tval v;
    tval_init(&v, TVAL_TRIM, 0);
    CHECK(!tval_push(&v, "  \xE3\x80", 4));
    CHECK(tval_push(&v, "\x80 a\xE4\xB8", 5));
    CHECK_STR(tval_str(&v, NULL), "a");
    CHECK(tval_push(&v, "\xAD \xE2\x80", 4));
    CHECK_STR(tval_str(&v, NULL), "a中");
    CHECK(tval_finish(&v)); /* the unfinished E2 80 is a character */
    CHECK_STR(tval_str(&v, NULL), "a中 \xE2\x80");
    tval_release(&v);
}

/* parser_release_text: only a complete text or reasoning block gives its content up; after
 * it block_text is "", and the block keeps its type, completeness and seq. */
static void test_release_text(void)
{
    parser_opts o = parser_defaults();
    parser *p = parser_new(&o, NULL);
    REQUIRE(p);
    const char *in = "Some words first.\n<read_file>\n<path>a.c</path>\n</read_file>\nand aft";
    REQUIRE(parser_text(p, in, strlen(in), NULL) == HEW_OK);
    REQUIRE(parser_count(p) == 3);
    CHECK(!parser_release_text(p, 1)); /* a tool_use */
    CHECK(!parser_release_text(p, 2)); /* still partial */
    CHECK(!parser_release_text(p, 9)); /* no such block */
    size_t len = 0;
    CHECK_STR(block_text(parser_block(p, 2), &len), "and aft");
    /* a partial block's start dropped: what is left, where it starts, and it grows on */
    size_t from = 99;
    parser_drop_text(p, 2, 4);
    CHECK_STR(block_text_from(parser_block(p, 2), &from, &len), "aft");
    CHECK_INT(from, 4);
    parser_drop_text(p, 2, 2); /* behind what is gone: nothing */
    parser_drop_text(p, 1, 3); /* a tool_use: nothing */
    CHECK_STR(block_param_lookup(parser_block(p, 1), "path", &len), "a.c");
    REQUIRE(parser_text(p, "er  all", 7, NULL) == HEW_OK);
    CHECK_STR(block_text_from(parser_block(p, 2), &from, &len), "after  all");
    CHECK_INT(from, 4);
    parser_drop_text(p, 2, 100); /* past the end: all that is visible */
    CHECK_STR(block_text_from(parser_block(p, 2), &from, &len), "");
    CHECK_INT(from, 14);
    REQUIRE(parser_text(p, "!", 1, NULL) == HEW_OK);
    CHECK_STR(block_text_from(parser_block(p, 2), &from, &len), "!");
    CHECK_INT(from, 14);
    const block *b = parser_block(p, 0);
    uint64_t seq = b->seq;
    CHECK_STR(block_text(b, &len), "Some words first.");
    CHECK(parser_release_text(p, 0));
    CHECK_STR(block_text(b, &len), "");
    CHECK_INT(len, 0);
    CHECK(b->type == BLOCK_TEXT && !b->partial && b->seq == seq);
    REQUIRE(parser_finish(p, NULL) == HEW_OK);
    parser_seal(p);
    CHECK(parser_release_text(p, 2));
    CHECK_STR(block_text(parser_block(p, 2), &len), "");
    CHECK_INT(len, 0);
    CHECK_STR(block_param_lookup(parser_block(p, 1), "path", &len), "a.c");
    parser_free(p);
}

int main(void)
{
    RUN(test_tval_spaces);
    RUN(test_partial_tag_held_back);
    RUN(test_multibyte_never_half_shown);
    RUN(test_write_to_file_view);
    RUN(test_seal_and_dirty);
    RUN(test_release_text);
    RUN(test_cap_and_bad_names);
    RUN(test_fixtures);
    RUN(test_generated);
    RUN(test_generated_small_toolset);
    return check_report();
}
