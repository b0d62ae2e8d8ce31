/* parse_nul — a NUL in what the model wrote (a JSON \u0000 in a text, reasoning or
 * tool-argument delta) never silently cuts the text: in the blocks it is U+FFFD and the
 * rest follows, for plain text, reasoning, an XML tool's parameter (write_to_file's
 * content too), and a native call's argument strings, both while they stream (an escape
 * cut across deltas) and once the call is complete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse/parser.h"

#define FFFD "\xEF\xBF\xBD"

static parser *new_parser(bool xml)
{
    parser_opts o = parser_defaults();
    o.xml_tools = xml;
    return parser_new(&o, NULL);
}

/* The whole value of block b's text (or parameter name), checked against want. */
static void check_value(const char *got, size_t len, const char *want)
{
    CHECK_INT(len, strlen(want));
    CHECK_MEM(got, len, want, strlen(want));
}

static void test_text_and_reasoning(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    CHECK_INT(parser_reasoning(p, "think\0ing", 9, NULL), HEW_OK);
    CHECK_INT(parser_text(p, "see a", 5, NULL), HEW_OK);
    CHECK_INT(parser_text(p, "\0b\0\0", 4, NULL), HEW_OK); /* NULs at both ends of a delta */
    CHECK_INT(parser_text(p, " done", 5, NULL), HEW_OK);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    REQUIRE(parser_count(p) == 2);
    size_t len;
    const char *r = block_text(parser_block(p, 0), &len);
    check_value(r, len, "think" FFFD "ing");
    const char *t = block_text(parser_block(p, 1), &len);
    check_value(t, len, "see a" FFFD "b" FFFD FFFD " done");
    CHECK_INT(strlen(t), len); /* a C string reader sees all of it */
    parser_free(p);
}

static void test_xml_tool_content(void)
{
    parser *p = new_parser(true);
    REQUIRE(p);
    static const char msg[] = "<write_to_file>\n<path>nul.txt</path>\n<content>\nx\0y\n"
                              "</content>\n</write_to_file>";
    /* Fed in pieces, one cut right after the NUL. */
    size_t n = sizeof msg - 1, cut = (size_t)(strchr(msg, 'x') - msg) + 2;
    CHECK_INT(parser_text(p, msg, cut, NULL), HEW_OK);
    CHECK_INT(parser_text(p, msg + cut, n - cut, NULL), HEW_OK);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    REQUIRE(parser_count(p) >= 1);
    const block *b = parser_block(p, 0);
    CHECK_STR(b->name, "write_to_file");
    size_t len = 0;
    const char *c = block_param_lookup(b, "content", &len);
    REQUIRE(c != NULL);
    check_value(c, len, "x" FFFD "y");
    parser_free(p);
}

static hew_code delta(parser *p, const char *args, bool first)
{
    parser_tool_delta d = { first ? "call_1" : NULL, 0, true, first ? "write_to_file" : NULL,
                            args, strlen(args), false };
    return parser_tool(p, &d, NULL);
}

static void test_native_arguments(void)
{
    parser *p = new_parser(false);
    REQUIRE(p);
    /* The escape arrives cut in two deltas. */
    CHECK_INT(delta(p, "{\"path\":\"nul.txt\",\"content\":\"x\\u00", true), HEW_OK);
    CHECK_INT(delta(p, "00y\\u0000z", false), HEW_OK);
    REQUIRE(parser_count(p) == 1);
    const block *b = parser_block(p, 0);
    size_t len = 0;
    const char *c = block_param_lookup(b, "content", &len);
    REQUIRE(c != NULL); /* the streaming view, while the call is partial */
    check_value(c, len, "x" FFFD "y" FFFD "z");
    CHECK_INT(delta(p, "\"}", false), HEW_OK);
    CHECK_INT(parser_finish(p, NULL), HEW_OK);
    CHECK(!b->partial && b->args_error == NULL);
    c = block_param_lookup(b, "content", &len);
    REQUIRE(c != NULL); /* the strict parse of the complete call */
    check_value(c, len, "x" FFFD "y" FFFD "z");
    CHECK_STR(block_param_lookup(b, "path", NULL), "nul.txt");
    /* The raw arguments stay as the provider sent them. */
    CHECK(strstr(b->args.data, "x\\u0000y\\u0000z") != NULL);
    parser_free(p);
}

int main(void)
{
    RUN(test_text_and_reasoning);
    RUN(test_xml_tool_content);
    RUN(test_native_arguments);
    return check_report();
}
