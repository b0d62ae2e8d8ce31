/* fuzz_parse — differential libFuzzer target for parse/. The first input byte picks the
 * mode and the tag names (Cline's, or a tiny set where tool and parameter names collide);
 * the rest is the message. XML mode: the text is fed whole, one byte at a time, and in
 * chunks cut at points derived from the input; every result must equal the literal port
 * of Cline's algorithm (tests/unit/parse_oracle.h), and for short inputs every
 * intermediate snapshot must be what the reference gives for the text so far, minus what
 * is held back. Native mode: the rest is tool-call arguments, fed whole and in chunks; the
 * final blocks must be identical. Any difference aborts. It must never read outside the
 * input or keep state between runs. A NUL byte is U+FFFD to the parser (parse/parser.h):
 * XML mode feeds both sides the text with that done, so they compare the same thing (the
 * mapping itself is tested in tests/unit/parse_nul.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/parse_oracle.h"
#include "base/buf.h"
#include "base/utf8.h"
#include "parse/cline_names.h"
#include "parse/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const TINY_TOOLS[] = { "a", "ab", "write_to_file", "x_y" };
static const char *const TINY_PARAMS[] = { "a", "p", "content", "pq" };

typedef struct names {
    const char *const *tools, *const *params;
    size_t ntools, nparams;
} names;

static parser *make(const names *nm, bool xml)
{
    parser_opts o = parser_defaults();
    o.tools = nm->tools;
    o.ntools = nm->ntools;
    o.params = nm->params;
    o.nparams = nm->nparams;
    o.xml_tools = xml;
    parser *p = parser_new(&o, NULL);
    if (!p)
        abort();
    return p;
}

static bool same(const buf *a, const buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static void fail(const char *what, const buf *a, const buf *b)
{
    fprintf(stderr, "fuzz_parse: %s\n", what);
    dump_print(stderr, "got", a);
    dump_print(stderr, "want", b);
    abort();
}

static uint64_t mix(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void snapshot_check(const parser *p, const char *s, size_t fed, const names *nm)
{
    size_t cut = utf8_complete_prefix(s, fed - parser_held(p));
    buf a = BUF_INIT(0), o = BUF_INIT(0);
    for (size_t i = 0; i < parser_count(p); i++) {
        const block *b = parser_block(p, i);
        bool skip = b->type == BLOCK_TOOL_USE && b->partial && strcmp(b->name, "write_to_file") == 0;
        parser_dump_block(&a, b, skip ? "content" : NULL);
    }
    oresult r = oracle_parse(s, cut, nm->tools, nm->ntools, nm->params, nm->nparams,
                             "write_to_file");
    for (size_t i = 0; i < r.n; i++) {
        bool skip = r.v[i].tool && r.v[i].partial && strcmp(r.v[i].name, "write_to_file") == 0;
        oracle_dump_block(&o, &r.v[i], skip ? "content" : NULL);
    }
    oracle_free(&r);
    if (!same(&a, &o))
        fail("snapshot differs from the reference on the text so far", &a, &o);
    buf_release(&a);
    buf_release(&o);
}

/* Feed s in pieces (cuts from seed; step 1 = bytewise; 0 = whole) and dump the result. */
static void run_xml(const names *nm, const char *s, size_t n, int how, uint64_t seed,
                    bool snapshots, buf *out)
{
    parser *p = make(nm, true);
    size_t at = 0;
    size_t prev_count = 0;
    while (at < n) {
        size_t k = how == 0 ? n - at : how == 1 ? 1 : 1 + mix(&seed) % 17;
        if (k > n - at)
            k = n - at;
        if (parser_text(p, s + at, k, NULL) != HEW_OK)
            abort();
        at += k;
        if (parser_count(p) < prev_count)
            abort();
        prev_count = parser_count(p);
        if (snapshots)
            snapshot_check(p, s, at, nm);
    }
    if (parser_finish(p, NULL) != HEW_OK)
        abort();
    parser_dump(out, p);
    parser_free(p);
}

static void run_native(const char *s, size_t n, int how, uint64_t seed, buf *out)
{
    names nm = { cline_tool_names, cline_param_names, cline_tool_count, cline_param_count };
    parser *p = make(&nm, false);
    parser_tool_delta d = { "call_1", 3, true, "execute_command", NULL, 0, false };
    if (parser_tool(p, &d, NULL) != HEW_OK)
        abort();
    size_t at = 0;
    while (at < n) {
        size_t k = how == 0 ? n - at : 1 + mix(&seed) % 9;
        if (k > n - at)
            k = n - at;
        parser_tool_delta f = { NULL, 3, true, NULL, s + at, k, false };
        if (parser_tool(p, &f, NULL) != HEW_OK)
            abort();
        at += k;
    }
    if (parser_finish(p, NULL) != HEW_OK)
        abort();
    parser_dump(out, p);
    parser_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 16))
        return 0;
    uint8_t mode = data[0];
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < size; i++)
        seed = (seed ^ data[i]) * 0x100000001B3ull;
    seed |= 1;

    if (mode & 0x80) {
        buf whole = BUF_INIT(0), chunked = BUF_INIT(0);
        run_native(s, n, 0, seed, &whole);
        run_native(s, n, 2, seed, &chunked);
        if (!same(&whole, &chunked))
            fail("native: chunked arguments differ from whole", &chunked, &whole);
        buf_release(&whole);
        buf_release(&chunked);
        return 0;
    }
    buf nonul = BUF_INIT(0); /* the text as the parser reads it: NUL is U+FFFD */
    for (size_t i = 0; i < n; i++) {
        if (s[i])
            buf_putc(&nonul, s[i]);
        else
            buf_puts(&nonul, "\xEF\xBF\xBD");
    }
    s = nonul.data ? nonul.data : "";
    n = nonul.len;
    names nm = { cline_tool_names, cline_param_names, cline_tool_count, cline_param_count };
    if (mode & 1)
        nm = (names){ TINY_TOOLS, TINY_PARAMS, 4, 4 };
    buf want = BUF_INIT(0), whole = BUF_INIT(0), bytes = BUF_INIT(0), chunks = BUF_INIT(0);
    oresult r = oracle_parse(s, n, nm.tools, nm.ntools, nm.params, nm.nparams, "write_to_file");
    oracle_dump(&want, &r);
    oracle_free(&r);
    run_xml(&nm, s, n, 0, seed, false, &whole);
    if (!same(&whole, &want))
        fail("whole feed differs from the reference", &whole, &want);
    if (n <= 4096) {
        run_xml(&nm, s, n, 1, seed, false, &bytes);
        if (!same(&bytes, &want))
            fail("byte-by-byte feed differs from the reference", &bytes, &want);
    }
    run_xml(&nm, s, n, 2, seed, n <= 300, &chunks);
    if (!same(&chunks, &want))
        fail("chunked feed differs from the reference", &chunks, &want);
    buf_release(&want);
    buf_release(&whole);
    buf_release(&bytes);
    buf_release(&chunks);
    buf_release(&nonul);
    return 0;
}
