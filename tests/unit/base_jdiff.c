/* Tests for base/jdiff, the compare behind hew replay: documents that mean the same JSON
 * are equal whatever their key order or number spelling; a difference is named by its
 * path (object keys, array positions, quoted odd keys) with both values, a long string
 * shown around its first differing byte and capped; texts that are not JSON compare as
 * bytes. */
#include <stdlib.h>
#include <string.h>

#include "base/jdiff.h"
#include "check.h"

static bool texts(const char *a, const char *b, jdiff *d)
{
    return jdiff_text(a, strlen(a), b, strlen(b), d);
}

static void same_json(void)
{
    jdiff d;
    CHECK(texts("{\"a\":1,\"b\":[1,2,{\"c\":\"x\"}]}", "{\"b\":[1,2,{\"c\":\"x\"}],\"a\":1}", &d));
    CHECK(texts("{\"n\":1}", "{\"n\":1.0}", &d));
    CHECK(texts(" [ ] ", "[]", &d));
    CHECK(!texts("{\"n\":1}", "{\"n\":2}", &d));
    CHECK_STR(d.path, "$.n");
    CHECK_STR(d.want, "1");
    CHECK_STR(d.got, "2");
}

static void names_the_path(void)
{
    jdiff d;
    const char *want = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                       "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"apple\"}]}]}";
    const char *got = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                      "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"banana\"}]}],"
                      "\"model\":\"m\"}";
    REQUIRE(!texts(want, got, &d));
    CHECK_STR(d.path, "$.messages[1].content[0].text");
    CHECK(strstr(d.want, "\"apple\"") != NULL);
    CHECK(strstr(d.got, "\"banana\"") != NULL);
    CHECK(strstr(d.want, "differs at byte 0") != NULL);

    REQUIRE(!texts("{\"a b\":{\"x\":1}}", "{\"a b\":{\"x\":1,\"y\":2}}", &d));
    CHECK_STR(d.path, "$[\"a b\"].y");
    CHECK_STR(d.want, "(missing)");
    CHECK_STR(d.got, "2");

    REQUIRE(!texts("[1,2,3]", "[1,2]", &d));
    CHECK_STR(d.path, "$[2]");
    CHECK_STR(d.want, "3");
    CHECK_STR(d.got, "(missing)");

    REQUIRE(!texts("{\"k\":\"1\"}", "{\"k\":1}", &d)); /* a string is not a number */
    CHECK_STR(d.path, "$.k");
}

/* Keys are visited in sorted order: the same two documents always name the same place. */
static void first_in_key_order(void)
{
    jdiff d;
    REQUIRE(!texts("{\"z\":1,\"a\":1}", "{\"z\":2,\"a\":2}", &d));
    CHECK_STR(d.path, "$.a");
}

static void long_strings_are_capped(void)
{
    size_t n = 100000;
    char *a = malloc(n + 16), *b = malloc(n + 16);
    REQUIRE(a && b);
    memcpy(a, "{\"t\":\"", 6);
    memset(a + 6, 'x', n);
    memcpy(a + 6 + n, "\"}", 3);
    memcpy(b, a, n + 9);
    b[6 + 70000] = 'Y';
    jdiff d;
    CHECK(!jdiff_text(a, strlen(a), b, strlen(b), &d));
    CHECK_STR(d.path, "$.t");
    CHECK(strlen(d.want) < JDIFF_SHOW_MAX && strlen(d.got) < JDIFF_SHOW_MAX);
    CHECK(strstr(d.got, "Y") != NULL);
    CHECK(strstr(d.got, "differs at byte 70000") != NULL);
    /* a big value (not a string) is cut too */
    char *c = malloc(n * 2 + 16);
    REQUIRE(c);
    size_t k = 0;
    c[k++] = '[';
    for (size_t i = 0; i < n / 2; i++) {
        c[k++] = '1';
        c[k++] = ',';
    }
    c[k++] = '1';
    c[k++] = ']';
    c[k] = '\0';
    CHECK(!jdiff_text(c, k, "{}", 2, &d));
    CHECK(strlen(d.want) < JDIFF_SHOW_MAX);
    free(a);
    free(b);
    free(c);
}

static void not_json_compares_bytes(void)
{
    jdiff d;
    CHECK(texts("not json", "not json", &d));
    REQUIRE(!texts("not json", "not jsan", &d));
    CHECK_STR(d.path, "$");
    CHECK(strstr(d.want, "differs at byte 6") != NULL);
    CHECK(!texts("{\"a\":1}", "{\"a\":1", &d)); /* one side cut off */
    CHECK(texts("", "", &d));
}

int main(void)
{
    RUN(same_json);
    RUN(names_the_path);
    RUN(first_in_key_order);
    RUN(long_strings_are_capped);
    RUN(not_json_compares_bytes);
    return check_report();
}
