/* fuzz_termsafe — differential libFuzzer target for cli/termsafe, the terminal sanitiser.
 * The input is sanitised fed whole, fed at two cut points taken from its own first bytes,
 * fed one byte at a time, and fed growing (without finish) then finished; all must give
 * the same bytes, and the output must hold nothing that can drive a terminal: valid
 * UTF-8, no ESC, no DEL, no C1 (U+0080–U+009F), no bidi override or tag character, no C0
 * control but TAB, LF and CR directly before LF. Sanitising the output again must change
 * nothing. Any difference aborts. It must never read outside the input or keep state
 * between runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "sbuf.h"
#include "termsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_safe(const sbuf *o)
{
    const unsigned char *p = (const unsigned char *)(o->data ? o->data : "");
    size_t n = o->len;
    if (o->err || !utf8_validate((const char *)p, n, NULL))
        abort();
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == 0x1b || c == 0x7f)
            abort();
        if (c < 0x20 && c != '\n' && c != '\t' && !(c == '\r' && i + 1 < n && p[i + 1] == '\n'))
            abort();
        if (c == 0xc2 && i + 1 < n && p[i + 1] <= 0x9f)
            abort();
        if (c == 0xe2 && i + 2 < n && ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
                                       (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))
            abort();
        if (c == 0xf3 && i + 2 < n && p[i + 1] == 0xa0 && p[i + 2] <= 0x81)
            abort();
    }
}

static void same(const sbuf *a, const sbuf *b)
{
    if (a->len != b->len || (a->len && memcmp(a->data, b->data, a->len) != 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    sbuf whole = SBUF_INIT, cut = SBUF_INIT, bytes = SBUF_INIT, again = SBUF_INIT;
    termsafe_add(&whole, s, size);
    check_safe(&whole);

    size_t a = size ? data[0] % (size + 1) : 0;
    size_t b = size > 1 ? a + data[1] % (size - a + 1) : a;
    termsafe t = TERMSAFE_INIT;
    termsafe_feed(&t, &cut, s, a);
    size_t prefix = cut.len; /* what was output stays: the whole output starts with it */
    if (prefix > whole.len || (prefix && memcmp(cut.data, whole.data, prefix) != 0))
        abort();
    termsafe_feed(&t, &cut, s + a, b - a);
    termsafe_feed(&t, &cut, s + b, size - b);
    termsafe_finish(&t, &cut);
    same(&whole, &cut);

    termsafe_init(&t);
    for (size_t i = 0; i < size; i++)
        termsafe_feed(&t, &bytes, s + i, 1);
    termsafe_finish(&t, &bytes);
    same(&whole, &bytes);

    termsafe_add(&again, whole.data ? whole.data : "", whole.len);
    same(&whole, &again);
    if (!termsafe_is_clean(whole.data ? whole.data : "", whole.len))
        abort();
    if (termsafe_is_clean(s, size) != (whole.len == size && (!size || memcmp(whole.data, s, size) == 0)))
        abort();

    sbuf_release(&whole);
    sbuf_release(&cut);
    sbuf_release(&bytes);
    sbuf_release(&again);
    return 0;
}
