/* Unit tests for base/json: located parse errors, path reads with full-path messages,
 * optional reads, 64-bit integers, lossy strings, sticky builders, dumping into a buf. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "check.h"

static json_t *parse_ok(const char *s)
{
    json_t *v = NULL;
    hew_err err = HEW_ERR_INIT;
    if (json_parse(s, strlen(s), "test", &v, &err) != HEW_OK)
        check_fail(__FILE__, __LINE__, "parse failed: %s", err.msg);
    return v;
}

static void test_parse(void)
{
    json_t *v = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(json_parse("{\"a\":1}", 7, "body", &v, &err), HEW_OK);
    CHECK(json_is_object(v));
    json_decref(v);
    CHECK_INT(json_parse("42", 2, "body", &v, &err), HEW_OK); /* any top-level value */
    CHECK(json_is_integer(v));
    json_decref(v);
    /* Only n bytes are read. */
    CHECK_INT(json_parse("[1]garbage", 3, "body", &v, &err), HEW_OK);
    json_decref(v);

    const char *bad = "{\n  \"a\": 1,\n  \"b\": tru\n}";
    CHECK_INT(json_parse(bad, strlen(bad), "scenario file x.json", &v, &err), HEW_E_INVALID);
    CHECK(v == NULL);
    CHECK(strstr(err.msg, "scenario file x.json: invalid JSON at line 3") != NULL);
    CHECK(strstr(err.msg, "column") != NULL);
    CHECK_INT(json_parse("", 0, "empty", &v, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "empty: invalid JSON") != NULL);
    CHECK_INT(json_parse("\"a\\u0000b\"", 10, "nul", &v, &err), HEW_E_INVALID);
    CHECK_INT(json_parse("[1] [2]", 7, "two", &v, &err), HEW_E_INVALID);
    CHECK_INT(json_parse("\"\xFF\"", 3, "bytes", &v, &err), HEW_E_INVALID);
}

static void test_path_get(void)
{
    json_t *v = parse_ok("{\"a\":{\"b\":[10,{\"c\":\"x\"},[7,8]]},\"k\":null}");
    CHECK(json_path_get(v, "") == v);
    CHECK(json_is_object(json_path_get(v, "a")));
    CHECK_INT(json_integer_value(json_path_get(v, "a.b[0]")), 10);
    CHECK_STR(json_string_value(json_path_get(v, "a.b[1].c")), "x");
    CHECK_INT(json_integer_value(json_path_get(v, "a.b[2][1]")), 8);
    CHECK(json_is_null(json_path_get(v, "k")));
    CHECK(json_path_get(v, "a.b[3]") == NULL);
    CHECK(json_path_get(v, "a.x") == NULL);
    CHECK(json_path_get(v, "a.b.c") == NULL);  /* b is an array */
    CHECK(json_path_get(v, "a[0]") == NULL);   /* a is an object */
    CHECK(json_path_get(v, "a..b") == NULL);   /* malformed */
    CHECK(json_path_get(v, ".a") == NULL);
    CHECK(json_path_get(v, "a.") == NULL);
    CHECK(json_path_get(v, "a.b[x]") == NULL);
    CHECK(json_path_get(v, "a.b[1") == NULL);
    CHECK(json_path_get(v, "a.b[99999999999999999999999]") == NULL);
    CHECK(json_path_get(v, "a.b[]") == NULL);
    CHECK(json_path_get(v, "a]") == NULL);
    CHECK(json_path_get(v, "[0]x") == NULL);
    CHECK(json_path_get(NULL, "a") == NULL);
    json_t *arr = parse_ok("[[1,2],[3]]");
    CHECK_INT(json_integer_value(json_path_get(arr, "[1][0]")), 3);
    CHECK(json_path_get(arr, "[0]x") == NULL);
    CHECK(json_path_get(v, "a.b[1]c") == NULL);
    CHECK_STR(json_string_value(json_path_get(v, "a.b[1].c")), "x");
    json_decref(arr);
    json_decref(v);
}

static void test_getters_and_messages(void)
{
    json_t *v = parse_ok("{\"messages\":[{\"content\":\"hi\"},{\"content\":\"yo\"},"
                         "{\"content\":\"x\"},{\"content\":5}],"
                         "\"n\":-3,\"big\":9223372036854775807,\"small\":-9223372036854775808,"
                         "\"f\":1.5,\"whole\":3.0,\"t\":true,\"nul\":null,\"o\":{},\"s\":\"str\"}");
    json_ref doc = json_ref_root(v, NULL);
    hew_err err = HEW_ERR_INIT;
    const char *s = NULL;
    int64_t i = 0;
    double d = 0;
    bool b = false;
    json_ref r;

    CHECK_INT(json_get_string(&doc, "messages[1].content", &s, &err), HEW_OK);
    CHECK_STR(s, "yo");
    CHECK_INT(json_get_string(&doc, "messages[3].content", &s, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "messages[3].content: expected a string, got a number (5)");
    CHECK_STR(s, "yo"); /* unchanged on failure */
    CHECK_INT(json_get_string(&doc, "messages[9].content", &s, &err), HEW_E_NOTFOUND);
    CHECK_STR(err.msg, "messages[9]: missing (the array has 4 items)");
    CHECK_INT(json_get_string(&doc, "nope", &s, &err), HEW_E_NOTFOUND);
    CHECK_STR(err.msg, "nope: missing");
    CHECK_INT(json_get_string(&doc, "nul", &s, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "nul: expected a string, got null");
    CHECK_INT(json_get_string(&doc, "s.x", &s, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "s: expected an object, got a string");
    CHECK_INT(json_get_string(&doc, "o[0]", &s, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "o: expected an array, got an object");
    CHECK_INT(json_get_string(&doc, "a..b", &s, &err), HEW_E_INTERNAL);
    CHECK(strstr(err.msg, "bad JSON path") != NULL);
    CHECK_INT(json_get_object(&doc, "", &r, &err), HEW_OK); /* the value itself */
    CHECK_INT(json_get_array(&doc, "", &r, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "top level: expected an array, got an object");

    CHECK_INT(json_get_int(&doc, "n", &i, &err), HEW_OK);
    CHECK_INT(i, -3);
    CHECK_INT(json_get_int(&doc, "big", &i, &err), HEW_OK);
    CHECK(i == INT64_MAX);
    CHECK_INT(json_get_int(&doc, "small", &i, &err), HEW_OK);
    CHECK(i == INT64_MIN);
    CHECK_INT(json_get_int(&doc, "whole", &i, &err), HEW_OK); /* 3.0 is an integer */
    CHECK_INT(i, 3);
    CHECK_INT(json_get_int(&doc, "f", &i, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "f: expected an integer, got a number (1.5)");
    CHECK_INT(json_get_int(&doc, "t", &i, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "t: expected an integer, got a boolean (true)");
    CHECK_INT(json_get_int(&doc, "s", &i, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "s: expected an integer, got a string"); /* never shows content */

    CHECK_INT(json_get_number(&doc, "f", &d, &err), HEW_OK);
    CHECK(d == 1.5);
    CHECK_INT(json_get_number(&doc, "n", &d, &err), HEW_OK);
    CHECK(d == -3.0);
    CHECK_INT(json_get_number(&doc, "s", &d, &err), HEW_E_INVALID);

    CHECK_INT(json_get_bool(&doc, "t", &b, &err), HEW_OK);
    CHECK(b);
    CHECK_INT(json_get_bool(&doc, "n", &b, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "n: expected a boolean, got a number (-3)");

    CHECK_INT(json_get_object(&doc, "o", &r, &err), HEW_OK);
    CHECK(json_is_object(r.v));
    CHECK_STR(r.path, "o");
    CHECK_INT(json_get_array(&doc, "messages", &r, &err), HEW_OK);
    CHECK_INT(json_array_size(r.v), 4);
    CHECK_INT(json_get_array(&doc, "o", &r, &err), HEW_E_INVALID);
    json_decref(v);
}

static void test_optional(void)
{
    json_t *v = parse_ok("{\"a\":{\"x\":1},\"nul\":null,\"s\":\"str\",\"t\":false}");
    json_ref doc = json_ref_root(v, "cfg");
    hew_err err = HEW_ERR_INIT;
    const char *s = NULL;
    int64_t i = 0;
    double d = 0;
    bool b = true;
    json_ref r;

    CHECK_INT(json_opt_string(&doc, "missing", "def", &s, &err), HEW_OK);
    CHECK_STR(s, "def");
    CHECK_INT(json_opt_string(&doc, "nul", "def2", &s, &err), HEW_OK); /* null = missing */
    CHECK_STR(s, "def2");
    CHECK_INT(json_opt_string(&doc, "nope.deeper[2]", "d3", &s, &err), HEW_OK);
    CHECK_STR(s, "d3");
    CHECK_INT(json_opt_string(&doc, "nul.deeper", "d4", &s, &err), HEW_OK);
    CHECK_STR(s, "d4");
    CHECK_INT(json_opt_string(&doc, "s", "d", &s, &err), HEW_OK);
    CHECK_STR(s, "str");
    CHECK_INT(json_opt_string(&doc, "a.x", "d", &s, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "cfg.a.x: expected a string, got a number (1)");
    CHECK_INT(json_opt_string(&doc, "s.deeper", "d", &s, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "cfg.s: expected an object, got a string");

    CHECK_INT(json_opt_int(&doc, "a.y", 42, &i, &err), HEW_OK);
    CHECK_INT(i, 42);
    CHECK_INT(json_opt_int(&doc, "a.x", 42, &i, &err), HEW_OK);
    CHECK_INT(i, 1);
    CHECK_INT(json_opt_int(&doc, "s", 42, &i, &err), HEW_E_INVALID);
    CHECK_INT(json_opt_bool(&doc, "t", true, &b, &err), HEW_OK);
    CHECK(!b);
    CHECK_INT(json_opt_bool(&doc, "u", true, &b, &err), HEW_OK);
    CHECK(b);
    CHECK_INT(json_opt_bool(&doc, "s", true, &b, &err), HEW_E_INVALID);
    CHECK_INT(json_opt_number(&doc, "u", 2.5, &d, &err), HEW_OK);
    CHECK(d == 2.5);
    CHECK_INT(json_opt_number(&doc, "a.x", 2.5, &d, &err), HEW_OK);
    CHECK(d == 1.0);
    CHECK_INT(json_opt_number(&doc, "s", 2.5, &d, &err), HEW_E_INVALID);

    CHECK_INT(json_opt_object(&doc, "a", &r, &err), HEW_OK);
    CHECK(json_is_object(r.v));
    CHECK_STR(r.path, "cfg.a");
    CHECK_INT(json_opt_object(&doc, "zz", &r, &err), HEW_OK);
    CHECK(r.v == NULL);
    CHECK_STR(r.path, "cfg.zz");
    CHECK_INT(json_opt_object(&doc, "s", &r, &err), HEW_E_INVALID);
    CHECK_INT(json_opt_array(&doc, "list", &r, &err), HEW_OK);
    CHECK(r.v == NULL);
    CHECK_INT(json_array_size(r.v), 0); /* a missing array loops zero times */
    CHECK_INT(json_opt_array(&doc, "a", &r, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "cfg.a: expected an array, got an object");
    json_decref(v);
}

/* The loop pattern: nested refs carry the full path into messages. */
static void test_refs_in_loops(void)
{
    json_t *v = parse_ok("{\"responses\":[{\"status\":200},{\"status\":200},"
                         "{\"tool_calls\":[{\"name\":7}]}]}");
    json_ref doc = json_ref_root(v, "scenario");
    hew_err err = HEW_ERR_INIT;
    json_ref responses;
    REQUIRE(json_get_array(&doc, "responses", &responses, &err) == HEW_OK);
    CHECK_STR(responses.path, "scenario.responses");
    int64_t status = 0;
    hew_code last = HEW_OK;
    for (size_t i = 0; i < json_array_size(responses.v); i++) {
        json_ref r = json_ref_index(&responses, i);
        last = json_get_int(&r, "status", &status, &err);
    }
    CHECK_INT(last, HEW_E_NOTFOUND);
    CHECK_STR(err.msg, "scenario.responses[2].status: missing");

    json_ref r2 = json_ref_index(&responses, 2);
    json_ref calls;
    REQUIRE(json_opt_array(&r2, "tool_calls", &calls, &err) == HEW_OK);
    json_ref call0 = json_ref_index(&calls, 0);
    const char *name = NULL;
    CHECK_INT(json_get_string(&call0, "name", &name, &err), HEW_E_INVALID);
    CHECK_STR(err.msg, "scenario.responses[2].tool_calls[0].name: expected a string, got a number (7)");
    json_ref nm = json_ref_key(&call0, "name");
    CHECK_INT(json_integer_value(nm.v), 7);
    CHECK_STR(nm.path, "scenario.responses[2].tool_calls[0].name");
    /* Children of the wrong kind or past the end are NULL but still carry a path. */
    json_ref past = json_ref_index(&responses, 5);
    CHECK(past.v == NULL);
    CHECK_INT(json_get_int(&past, "status", &status, &err), HEW_E_NOTFOUND);
    CHECK_STR(err.msg, "scenario.responses[5]: missing");
    json_ref odd = json_ref_key(&doc, "a.b");
    CHECK_STR(odd.path, "scenario[\"a.b\"]");
    json_ref notobj = json_ref_key(&responses, "x");
    CHECK(notobj.v == NULL);

    /* Very long paths are shortened, never overflowed, never cut inside a character. */
    json_ref deep = json_ref_root(v, "\xC3\xA9");
    for (int k = 0; k < 200; k++)
        deep = json_ref_key(&deep, "\xC3\xA9\xC3\xA9");
    size_t len = strlen(deep.path);
    CHECK(len < JSON_PATH_MAX);
    CHECK(len >= 3 && strcmp(deep.path + len - 3, "...") == 0);
    CHECK((unsigned char)deep.path[len - 4] == 0xA9);
    json_decref(v);
}

static void test_int64_round_trip(void)
{
    const int64_t values[] = { 0, 1, -1, INT64_MAX, INT64_MIN, 9007199254740993LL,
                               -9007199254740993LL };
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        json_t *o = NULL;
        REQUIRE(json_build(&o, "test", NULL, "{s:I}", "v", (json_int_t)values[k]) == HEW_OK);
        buf b = BUF_INIT(0);
        json_dump_into(o, &b, 0);
        json_decref(o);
        REQUIRE(b.err == HEW_OK);
        json_t *back = NULL;
        REQUIRE(json_parse(b.data, b.len, "dump", &back, NULL) == HEW_OK);
        json_ref r = json_ref_root(back, NULL);
        int64_t got = 0;
        CHECK_INT(json_get_int(&r, "v", &got, NULL), HEW_OK);
        CHECK(got == values[k]);
        json_decref(back);
        buf_release(&b);
    }
    json_t *v = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(json_parse("9223372036854775808", 19, "n", &v, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "too big") != NULL);
}

static void test_string_lossy(void)
{
    json_t *s = json_string_lossy("ok", 2);
    CHECK_STR(json_string_value(s), "ok");
    json_decref(s);
    s = json_string_lossy("a\xFF" "b", 3);
    REQUIRE(s != NULL);
    CHECK_STR(json_string_value(s), "a\xEF\xBF\xBD" "b");
    json_decref(s);
    s = json_string_lossy("a\0b", 3);
    REQUIRE(s != NULL);
    CHECK_INT(json_string_length(s), 3);
    json_decref(s);
    s = json_string_lossy("", 0);
    CHECK_STR(json_string_value(s), "");
    json_decref(s);
}

static void test_build_and_sticky_setters(void)
{
    json_t *o = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(json_build(&o, "message", &err, "{s:s, s:[i,b]}", "role", "user", "xs", 1, 1),
              HEW_OK);
    buf b = BUF_INIT(0);
    json_dump_into(o, &b, JSON_SORT_KEYS);
    CHECK_STR(b.data, "{\"role\":\"user\",\"xs\":[1,true]}");
    json_decref(o);

    CHECK_INT(json_build(&o, "message", &err, "{s:s}", "role", (const char *)NULL), HEW_E_INVALID);
    CHECK(o == NULL);
    CHECK(strstr(err.msg, "cannot build message: ") != NULL);
    CHECK_INT(json_build(&o, "message", &err, "{s:s}", "role", "\xFF"), HEW_E_INVALID);
    /* "o" is stolen even when the build fails (LeakSanitizer checks this). */
    CHECK_INT(json_build(&o, "message", &err, "{s:o, s:s}", "a", json_object(), "b",
                         (const char *)NULL),
              HEW_E_INVALID);

    hew_code st = HEW_OK;
    json_t *msg = json_object();
    json_t *parts = json_array();
    json_arr_push(parts, json_string("p1"), &st);
    json_arr_push(parts, json_integer(2), &st);
    json_obj_put(msg, "parts", parts, &st);
    json_obj_put(msg, "role", json_string("user"), &st);
    CHECK_INT(st, HEW_OK);
    buf_reset(&b);
    json_dump_into(msg, &b, JSON_SORT_KEYS);
    CHECK_STR(b.data, "{\"parts\":[\"p1\",2],\"role\":\"user\"}");

    json_obj_put(msg, "bad", json_string("\xFF"), &st); /* json_string gives NULL */
    CHECK_INT(st, HEW_E_NOMEM);
    json_obj_put(msg, "later", json_string("x"), &st); /* sticky: ignored, value dropped */
    CHECK(json_object_get(msg, "later") == NULL);
    st = HEW_OK;
    json_obj_put(msg, "\xFF", json_string("x"), &st);
    CHECK_INT(st, HEW_E_INVALID);
    st = HEW_OK;
    json_obj_put(NULL, "k", json_string("x"), &st);
    CHECK_INT(st, HEW_E_NOMEM);
    st = HEW_OK;
    json_arr_push(msg, json_string("x"), &st); /* not an array */
    CHECK_INT(st, HEW_E_INVALID);
    st = HEW_OK;
    json_obj_put(parts, "k", json_string("x"), &st); /* not an object */
    CHECK_INT(st, HEW_E_INVALID);
    st = HEW_OK;
    json_arr_push(NULL, json_string("x"), &st);
    CHECK_INT(st, HEW_E_NOMEM);
    json_decref(msg);
    buf_release(&b);
}

static void test_dump_into(void)
{
    json_t *v = parse_ok("{\"a\": [1, 2.5, \"\xC3\xA9\", null, true]}");
    buf b = BUF_INIT(0);
    buf_puts(&b, "data: ");
    json_dump_into(v, &b, 0);
    CHECK_STR(b.data, "data: {\"a\":[1,2.5,\"\xC3\xA9\",null,true]}");
    buf_reset(&b);
    json_dump_into(v, &b, JSON_ENSURE_ASCII);
    CHECK_STR(b.data, "{\"a\":[1,2.5,\"\\u00E9\",null,true]}");
    json_t *str = json_string("plain");
    buf_reset(&b);
    json_dump_into(str, &b, 0); /* scalars too */
    CHECK_STR(b.data, "\"plain\"");
    json_decref(str);
    buf_release(&b);

    /* The cap: nothing partial is left behind, the error is sticky. */
    buf small = BUF_INIT(10);
    buf_puts(&small, "ab");
    json_dump_into(v, &small, 0);
    CHECK_INT(small.err, HEW_E_TOOBIG);
    CHECK_INT(small.len, 2);
    CHECK_STR(small.data, "ab");
    buf_release(&small);

    buf n = BUF_INIT(0);
    json_dump_into(NULL, &n, 0);
    CHECK_INT(n.err, HEW_E_INVALID);
    buf_release(&n);
    json_decref(v);

    CHECK_STR(json_type_phrase(NULL), "nothing");
}

int main(void)
{
    RUN(test_parse);
    RUN(test_path_get);
    RUN(test_getters_and_messages);
    RUN(test_optional);
    RUN(test_refs_in_loops);
    RUN(test_int64_round_trip);
    RUN(test_string_lossy);
    RUN(test_build_and_sticky_setters);
    RUN(test_dump_into);
    return check_report();
}
