/* err — fills hew_err values. Never allocates, so it works when memory is gone. */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Cut s (NUL-terminated, len bytes) back to a UTF-8 boundary if vsnprintf cut a character. */
static void trim_partial_utf8(char *s, size_t len)
{
    size_t i = len;
    while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0)
        return;
    unsigned char lead = (unsigned char)s[i - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (len - (i - 1) < need)
        s[i - 1] = '\0';
}

static void format_into(char *dst, size_t cap, const char *fmt, va_list ap)
{
    int n = vsnprintf(dst, cap, fmt, ap);
    if (n < 0) {
        dst[0] = '\0';
        return;
    }
    if ((size_t)n >= cap)
        trim_partial_utf8(dst, cap - 1);
}

hew_code hew_err_set(hew_err *err, hew_code code, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    format_into(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

hew_code hew_err_wrap(hew_err *err, const char *fmt, ...)
{
    if (!err)
        return HEW_E_INTERNAL;
    char prefix[HEW_ERR_MSG_MAX];
    char old[HEW_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    format_into(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t used = strlen(prefix);
    memcpy(err->msg, prefix, used + 1);
    if (used + 2 < sizeof err->msg) {
        memcpy(err->msg + used, ": ", 3);
        used += 2;
        size_t rest = strlen(old);
        size_t room = sizeof err->msg - 1 - used;
        if (rest > room)
            rest = room;
        memcpy(err->msg + used, old, rest);
        err->msg[used + rest] = '\0';
        trim_partial_utf8(err->msg, used + rest);
    }
    return err->code;
}

void hew_err_clear(hew_err *err)
{
    if (!err)
        return;
    err->code = HEW_OK;
    err->msg[0] = '\0';
}

const char *hew_code_name(hew_code code)
{
    static const char *const names[] = {
        [HEW_OK] = "ok",           [HEW_E_NOMEM] = "nomem",     [HEW_E_INVALID] = "invalid",
        [HEW_E_IO] = "io",         [HEW_E_NOTFOUND] = "notfound", [HEW_E_TOOBIG] = "toobig",
        [HEW_E_ESCAPE] = "escape", [HEW_E_NET] = "net",         [HEW_E_TIMEOUT] = "timeout",
        [HEW_E_ABORTED] = "aborted", [HEW_E_PROTOCOL] = "protocol", [HEW_E_HTTP] = "http",
        [HEW_E_INTERNAL] = "internal",
    };
    if ((unsigned)code < sizeof names / sizeof names[0] && names[code])
        return names[code];
    return "unknown";
}
