/* fuzz_redact — libFuzzer target for base/redact. Any input is redacted whole and in place
 * at caps taken from its own first byte; a registered secret never survives, text with
 * nothing to redact comes back unchanged, the in-place result is NUL-terminated, within
 * its cap and valid where the input was, and nothing reads outside the input. Any broken
 * invariant aborts. It must never keep state between runs other than the one registered
 * secret. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KNOWN "fuzz-known-secret-1234"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        redact_secret_add(KNOWN);
        once = 1;
    }
    const char *in = (const char *)data;
    buf out = BUF_INIT(BUF_DEFAULT_MAX);
    redact_text(in, size, &out);
    if (out.err != HEW_OK)
        abort();
    const char *o = out.data ? out.data : "";
    if (memmem(o, out.len, KNOWN, strlen(KNOWN)))
        abort(); /* a known secret survived */
    if (!redact_found(in, size) && (out.len != size || memcmp(o, in, size) != 0))
        abort(); /* nothing to redact, yet changed */

    /* In place, at a cap derived from the input, over a NUL-terminated copy. */
    size_t cap = size ? 1 + (size_t)data[0] % (size + 16) : 1;
    char *s = malloc(cap);
    if (!s)
        abort();
    size_t n = size < cap - 1 ? size : cap - 1;
    memcpy(s, in, n);
    s[n] = '\0';
    redact_inplace(s, cap);
    if (strnlen(s, cap) >= cap)
        abort(); /* not terminated within the cap */
    if (strstr(s, KNOWN))
        abort();
    free(s);
    buf_release(&out);
    return 0;
}
