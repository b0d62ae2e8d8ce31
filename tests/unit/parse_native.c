/* Unit tests for parse/ native tool calls and reasoning: deltas keyed by index and/or id
 * (interleaved, whole call in one delta, indexes not starting at 0), the streaming view of
 * cut-off arguments, strict parsing at the end (invalid JSON is an error on the block, not
 * a crash or a guess), and how native calls and reasoning sit among text blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse/jsonpeek.h"
#include "parse/parser.h"

static parser *new_parser(bool xml)
{
    parser_opts o = parser_defaults();
    o.xml_tools = xml;
    return parser_new(&o, NULL);
}

static hew_code delta(parser *p, const char *id, long long index, const char *name,
                      const char *args, bool done)
{
    parser_tool_delta d = { id, index, index >= 0, name, args, args ? strlen(args) : 0, done };
    return parser_tool(p, &d, NULL);
}

static const char *param(const block *b, const char *name)
{
    const char *v = block_param_lookup(b, name, NULL);
    return v ? v : "(absent)";
}

static void test_interleaved_indexes(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    /* OpenAI chat style: id+name once per index, then fragments; indexes 1 and 2. */
    CHECK_INT(delta(p, "call_a", 1, "read_file", "", false), HEW_OK);
    CHECK_INT(delta(p, "call_b", 2, "list_files", "{\"pa", false), HEW_OK);
    CHECK_INT(delta(p, NULL, 1, NULL, "{\"path\": \"src/", false), HEW_OK);
    CHECK_INT(delta(p, NULL, 2, NULL, "th\":\"lib\",\"recursive\":tr", false), HEW_OK);
    CHECK_INT(delta(p, NULL, 1, NULL, "ma", false), HEW_OK);
    REQUIRE(parser_count(p) == 2);
    const block *a = parser_block(p, 0), *b = parser_block(p, 1);
    CHECK_STR(a->name, "read_file");
    CHECK_STR(a->id, "call_a");
    CHECK(a->native && a->partial);
    CHECK_STR(param(a, "path"), "src/ma");
    CHECK_STR(param(b, "path"), "lib");
    CHECK_STR(param(b, "recursive"), "(absent)"); /* not complete yet */
    CHECK_INT(delta(p, NULL, 2, NULL, "ue}", false), HEW_OK);
    CHECK_STR(param(b, "recursive"), "true");
    CHECK_INT(delta(p, NULL, 1, NULL, "in.c\"}", false), HEW_OK);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    CHECK(!a->partial && !b->partial);
    CHECK(a->args_error == NULL && b->args_error == NULL);
    CHECK_STR(param(a, "path"), "src/main.c");
    CHECK_STR(param(b, "recursive"), "true");
    CHECK_INT(a->nparams, 1);
    CHECK_STR(block_param_name(b, 0), "path");
    CHECK_STR(block_param_name(b, 1), "recursive");
    parser_free(p);
}

static void test_whole_call_one_delta(void)
{
    parser *p = new_parser(true);
    REQUIRE(p);
    CHECK_INT(parser_text(p, "Let me run it.", 14, NULL), HEW_OK);
    CHECK_INT(delta(p, "toolu_1", -1, "execute_command",
                    "{\"command\":\"ls -la\\n\\t\\\"x\\\" \\u00e9\\ud83d\\ude00\","
                    "\"requires_approval\":false,\"timeout\":1.5,\"n\":[1, {\"a\": \"b\"}]}",
                    true),
              HEW_OK);
    REQUIRE(parser_count(p) == 2);
    const block *t = parser_block(p, 0), *c = parser_block(p, 1);
    CHECK(!t->partial); /* the call ended the text */
    CHECK_STR(block_text(t, NULL), "Let me run it.");
    CHECK(!c->partial);
    CHECK_STR(c->id, "toolu_1");
    CHECK_STR(param(c, "command"), "ls -la\n\t\"x\" é😀");
    CHECK_STR(param(c, "requires_approval"), "false");
    CHECK_STR(param(c, "timeout"), "1.5");
    CHECK_STR(param(c, "n"), "[1,{\"a\":\"b\"}]");
    /* Text after a native call starts a new block. */
    CHECK_INT(parser_text(p, " Done.", 6, NULL), HEW_OK);
    CHECK_INT(parser_count(p), 3);
    parser_free(p);
}

static void test_cut_off_arguments_show_partial_params(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    const char *args = "{\"path\": \"src/a\\u00e9\\n.c\", \"content\": \"line1\\nline2 \\ud83d\\ude00 end\"}";
    size_t n = strlen(args);
    CHECK_INT(delta(p, "c1", 0, "write_to_file", NULL, false), HEW_OK);
    const block *b = parser_block(p, 0);
    REQUIRE(b);
    size_t prev_content = 0;
    for (size_t i = 0; i < n; i++) {
        char one[2] = { args[i], 0 };
        CHECK_INT(delta(p, NULL, 0, NULL, one, false), HEW_OK);
        size_t len;
        const char *v = block_param_lookup(b, "content", &len);
        if (v) {
            CHECK(len >= prev_content); /* grows */
            CHECK(strncmp(v, "line1\nline2 😀 end", len) == 0);
            prev_content = len;
        }
        const char *pv = block_param_lookup(b, "path", &len);
        if (pv)
            CHECK(strncmp(pv, "src/aé\n.c", len) == 0);
    }
    CHECK(b->partial);
    CHECK_INT(delta(p, NULL, 0, NULL, NULL, true), HEW_OK);
    CHECK(!b->partial);
    CHECK_STR(param(b, "path"), "src/aé\n.c");
    CHECK_STR(param(b, "content"), "line1\nline2 😀 end");
    parser_free(p);
}

/* A stream that ended cleanly completes the calls it left open (OpenAI Chat never closes
 * one); a cut stream leaves a call its wire did not close partial (its arguments may be
 * cut: it must never run), while a closed call stays complete. */
static void test_cut_stream_leaves_open_calls_partial(void)
{
    for (int cut = 0; cut < 2; cut++) {
        parser *p = new_parser(false);
        REQUIRE(p);
        CHECK_INT(delta(p, "c1", 0, "read_file", "{\"path\": \"a.c\"}", true), HEW_OK);
        CHECK_INT(delta(p, "c2", 1, "write_to_file", "{\"path\": \"b.c\", \"cont", false),
                  HEW_OK);
        CHECK_INT(cut ? parser_finish_cut(p, NULL) : parser_finish(p, NULL), HEW_OK);
        REQUIRE(parser_count(p) == 2);
        CHECK(!parser_block(p, 0)->partial);
        CHECK(parser_block(p, 1)->partial == (cut == 1));
        parser_free(p);
    }
}

static void test_invalid_json_is_an_error(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    CHECK_INT(delta(p, "c1", 0, "read_file", "{\"path\": \"a.c\", ", false), HEW_OK);
    CHECK_INT(delta(p, "c2", 1, "read_file", "[1,2]", false), HEW_OK);
    CHECK_INT(delta(p, "c3", 2, "attempt_completion", "", false), HEW_OK);
    CHECK_INT(delta(p, "c4", 3, "read_file", "{\"path\": \"b\"} trailing", false), HEW_OK);
    const block *a = parser_block(p, 0);
    CHECK_STR(param(a, "path"), "a.c"); /* shown while streaming */
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    REQUIRE(parser_count(p) == 4);
    CHECK(!a->partial);
    CHECK(a->args_error != NULL);
    CHECK(a->args_error && strstr(a->args_error, "not valid JSON") != NULL);
    CHECK(a->args_error && strstr(a->args_error, "read_file") != NULL);
    CHECK_INT(a->nparams, 0); /* no guess */
    const block *b = parser_block(p, 1);
    CHECK(b->args_error && strstr(b->args_error, "must be a JSON object") != NULL);
    const block *c = parser_block(p, 2);
    CHECK(c->args_error == NULL); /* empty arguments are {} */
    CHECK_INT(c->nparams, 0);
    const block *d = parser_block(p, 3);
    CHECK(d->args_error != NULL);
    parser_free(p);
}

static void test_keys_by_id_and_no_key(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    /* Anthropic style: id+name first (index 1 after a text block 0), then fragments with
     * index only; Responses style: by id only; a delta with neither continues the last. */
    CHECK_INT(delta(p, "toolu_x", 1, "read_file", NULL, false), HEW_OK);
    CHECK_INT(delta(p, NULL, 1, NULL, "{\"path\":", false), HEW_OK);
    CHECK_INT(delta(p, "fc_2", -1, "list_files", "{\"path\":\"d\"", false), HEW_OK);
    CHECK_INT(delta(p, NULL, 1, NULL, "\"z\"}", true), HEW_OK);
    CHECK_INT(delta(p, NULL, -1, NULL, "}", false), HEW_OK); /* continues the last used */
    CHECK_INT(delta(p, "fc_2", -1, NULL, NULL, true), HEW_OK);
    REQUIRE(parser_count(p) == 2);
    CHECK_STR(param(parser_block(p, 0), "path"), "z");
    CHECK_STR(param(parser_block(p, 1), "path"), "d");
    CHECK(!parser_block(p, 1)->partial);
    /* A repeated delta for a finished call changes nothing. */
    uint64_t seq = parser_seq(p);
    CHECK_INT(delta(p, "fc_2", -1, NULL, "garbage", false), HEW_OK);
    CHECK(parser_seq(p) == seq);
    /* An index reused with a different id is a new call. */
    CHECK_INT(delta(p, "other", 1, "read_file", "{}", true), HEW_OK);
    CHECK_INT(parser_count(p), 3);
    parser_free(p);
}

static void test_name_arrives_late_and_never(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    CHECK_INT(delta(p, "c1", 0, NULL, "{\"path\":\"x\"}", false), HEW_OK);
    CHECK_INT(parser_count(p), 0); /* no block before the name */
    CHECK_INT(delta(p, NULL, 0, "read_file", NULL, false), HEW_OK);
    REQUIRE(parser_count(p) == 1);
    CHECK_STR(param(parser_block(p, 0), "path"), "x");
    CHECK_INT(delta(p, "c2", 1, NULL, "{}", false), HEW_OK);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    REQUIRE(parser_count(p) == 2);
    const block *b = parser_block(p, 1);
    CHECK(b->args_error && strstr(b->args_error, "no tool name") != NULL);
    parser_free(p);
}

static void test_reasoning_blocks(void)
{
    parser *p = new_parser(true);
    REQUIRE(p);
    CHECK_INT(parser_reasoning(p, "Think \xE4\xB8", 8, NULL), HEW_OK);
    REQUIRE(parser_count(p) == 1);
    const block *r = parser_block(p, 0);
    CHECK(r->type == BLOCK_REASONING && r->partial);
    CHECK_STR(block_text(r, NULL), "Think "); /* untrimmed, half character held */
    CHECK_INT(parser_reasoning(p, "\xAD ", 2, NULL), HEW_OK);
    CHECK_STR(block_text(r, NULL), "Think 中 ");
    CHECK_INT(parser_text(p, "Answer", 6, NULL), HEW_OK);
    CHECK(!r->partial);
    CHECK_INT(parser_reasoning(p, "more", 4, NULL), HEW_OK);
    CHECK_INT(parser_count(p), 3);
    CHECK(parser_block(p, 2)->type == BLOCK_REASONING);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    CHECK(!parser_block(p, 2)->partial);
    CHECK(parser_block(p, 1)->partial); /* trailing text, as the reference leaves it */
    parser_free(p);
}

static void test_plain_text_mode(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    const char *s = "  <read_file><path>x</path></read_file>  ";
    CHECK_INT(parser_text(p, s, strlen(s), NULL), HEW_OK);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    REQUIRE(parser_count(p) == 1);
    CHECK_STR(block_text(parser_block(p, 0), NULL), "<read_file><path>x</path></read_file>");
    parser_free(p);
}

/* jsonpeek alone: events for a cut-off document. */
struct rec {
    char log[512];
};

static void r_begin(void *ud, const char *k, size_t n, bool is_string)
{
    struct rec *r = ud;
    size_t l = strlen(r->log);
    snprintf(r->log + l, sizeof r->log - l, "[%.*s%s]", (int)n, k, is_string ? "" : "#");
}

static void r_bytes(void *ud, const char *s, size_t n)
{
    struct rec *r = ud;
    size_t l = strlen(r->log);
    snprintf(r->log + l, sizeof r->log - l, "%.*s", (int)n, s);
}

static void r_end(void *ud)
{
    struct rec *r = ud;
    size_t l = strlen(r->log);
    snprintf(r->log + l, sizeof r->log - l, ";");
}

static void test_jsonpeek(void)
{
    struct rec r = { "" };
    jsonpeek jp;
    jsonpeek_sink sink = { r_begin, r_bytes, r_end };
    jsonpeek_init(&jp, sink, &r, 0);
    const char *doc = " { \"a\\\"b\" : \"x\\u0041y\" , \"n\": -1.5e3, \"o\": { \"k\": [ \"]\" ] }, \"t\":true, \"s\": \"cut";
    for (const char *c = doc; *c; c++)
        jsonpeek_feed(&jp, c, 1);
    CHECK_STR(r.log, "[a\"b]xAy;[n#]-1.5e3;[o#]{\"k\":[\"]\"]};[t#]true;[s]cut");
    CHECK(!jp.dead && !jp.done);
    jsonpeek_release(&jp);
    struct rec r2 = { "" };
    jsonpeek_init(&jp, sink, &r2, 0);
    jsonpeek_feed(&jp, "[1]", 3);
    CHECK(jp.dead);
    CHECK_STR(r2.log, "");
    jsonpeek_release(&jp);
}

int main(void)
{
    RUN(test_interleaved_indexes);
    RUN(test_cut_stream_leaves_open_calls_partial);
    RUN(test_whole_call_one_delta);
    RUN(test_cut_off_arguments_show_partial_params);
    RUN(test_invalid_json_is_an_error);
    RUN(test_keys_by_id_and_no_key);
    RUN(test_name_arrives_late_and_never);
    RUN(test_reasoning_blocks);
    RUN(test_plain_text_mode);
    RUN(test_jsonpeek);
    return check_report();
}
