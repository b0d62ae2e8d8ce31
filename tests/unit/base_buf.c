/* Unit tests for base/buf and base/err: growth, the hard cap, the sticky error. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "check.h"

static void test_append_grows_and_terminates(void)
{
    buf b = BUF_INIT(0);
    for (int i = 0; i < 1000; i++)
        buf_puts(&b, "abc");
    CHECK_INT(b.len, 3000);
    CHECK_INT(b.data[b.len], '\0');
    CHECK(memcmp(b.data + 2997, "abc", 3) == 0);
    CHECK_INT(buf_check(&b, "x", NULL), HEW_OK);
    buf_release(&b);
    CHECK(b.data == NULL && b.len == 0);
}

static void test_cap_is_hard_and_sticky(void)
{
    buf b = BUF_INIT(8);
    buf_puts(&b, "12345");
    buf_puts(&b, "6789"); /* would be 9 > 8: refused whole */
    CHECK_INT(b.len, 5);
    CHECK_STR(b.data, "12345");
    CHECK_INT(b.err, HEW_E_TOOBIG);
    buf_puts(&b, "x"); /* sticky: ignored even though it would fit */
    CHECK_INT(b.len, 5);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(buf_check(&b, "SSE line", &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "SSE line") != NULL);
    CHECK(strstr(err.msg, "8 bytes") != NULL);
    CHECK(buf_detach(&b, NULL) == NULL);
    buf_reset(&b);
    buf_puts(&b, "abcdefgh"); /* exactly the cap is fine */
    CHECK_INT(b.len, 8);
    CHECK_INT(b.err, HEW_OK);
    buf_release(&b);
}

static void test_printf_consume_truncate_detach(void)
{
    buf b = BUF_INIT(0);
    buf_printf(&b, "%d-%s", 42, "x");
    CHECK_STR(b.data, "42-x");
    buf_consume(&b, 3);
    CHECK_STR(b.data, "x");
    buf_printf(&b, "%s", "yz");
    buf_truncate(&b, 2);
    CHECK_STR(b.data, "xy");
    size_t n = 0;
    char *s = buf_detach(&b, &n);
    CHECK_STR(s, "xy");
    CHECK_INT(n, 2);
    CHECK(b.data == NULL);
    free(s);
    s = buf_detach(&b, &n); /* empty buffer gives "" */
    CHECK_STR(s, "");
    free(s);
    buf_release(&b);
}

static void test_reserve_commit(void)
{
    buf b = BUF_INIT(16);
    char *p = buf_reserve(&b, 4);
    REQUIRE(p != NULL);
    memcpy(p, "wxyz", 4);
    buf_commit(&b, 4);
    CHECK_STR(b.data, "wxyz");
    CHECK(buf_reserve(&b, 100) == NULL);
    CHECK_INT(b.err, HEW_E_TOOBIG);
    buf_release(&b);
}

static void test_err_set_wrap_and_utf8_cut(void)
{
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(hew_err_set(&err, HEW_E_IO, "cannot open %s", "a.txt"), HEW_E_IO);
    hew_err_wrap(&err, "loading %s", "scenario");
    CHECK_STR(err.msg, "loading scenario: cannot open a.txt");
    CHECK_STR(hew_code_name(err.code), "io");
    /* A message cut by the buffer never ends in half a character. */
    char big[HEW_ERR_MSG_MAX * 2];
    size_t i = 0;
    big[i++] = 'a';
    while (i + 2 < sizeof big) {
        big[i++] = (char)0xC3;
        big[i++] = (char)0xA9; /* é */
    }
    big[i] = '\0';
    hew_err_set(&err, HEW_E_INVALID, "%s", big);
    size_t len = strlen(err.msg);
    CHECK(len < HEW_ERR_MSG_MAX);
    CHECK(((unsigned char)err.msg[len - 1]) == 0xA9);
    CHECK_INT(hew_err_set(NULL, HEW_E_NET, "x"), HEW_E_NET);
    hew_err_clear(&err);
    CHECK_INT(err.code, HEW_OK);
    CHECK_STR(err.msg, "");
}

int main(void)
{
    RUN(test_append_grows_and_terminates);
    RUN(test_cap_is_hard_and_sticky);
    RUN(test_printf_consume_truncate_detach);
    RUN(test_reserve_commit);
    RUN(test_err_set_wrap_and_utf8_cut);
    return check_report();
}
