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

/* One row per code: its stable name (JSON events) and what it means (hew_strerror). */
static const struct {
    const char *name, *text;
} code_rows[HEW_CODE_COUNT] = {
    [HEW_OK] = { "ok", "no error" },
    [HEW_E_NOMEM] = { "nomem", "out of memory" },
    [HEW_E_INVALID] = { "invalid", "invalid argument or malformed input" },
    [HEW_E_IO] = { "io", "file system or pipe failure" },
    [HEW_E_NOTFOUND] = { "notfound", "not found" },
    [HEW_E_TOOBIG] = { "toobig", "a size limit was hit" },
    [HEW_E_ESCAPE] = { "escape", "the path leaves the workspace" },
    [HEW_E_NET] = { "net", "connection failed or dropped" },
    [HEW_E_TIMEOUT] = { "timeout", "timed out" },
    [HEW_E_ABORTED] = { "aborted", "stopped on request" },
    [HEW_E_PROTOCOL] = { "protocol", "the peer broke its wire format" },
    [HEW_E_HTTP] = { "http", "the server answered with an error status" },
    [HEW_E_INTERNAL] = { "internal", "internal error (a bug in hew)" },
    [HEW_E_BUSY] = { "busy", "in use by a running task or another hew" },
    [HEW_E_STATE] = { "state", "not possible in the current state" },
    [HEW_E_CORRUPT] = { "corrupt", "stored data is damaged" },
    [HEW_E_STALE] = { "stale", "changed since it was looked at" },
    [HEW_E_UNSUPPORTED] = { "unsupported", "not supported on this machine" },
};

const char *hew_code_name(hew_code code)
{
    if ((unsigned)code < HEW_CODE_COUNT && code_rows[code].name)
        return code_rows[code].name;
    return "unknown";
}

const char *hew_strerror(hew_code code)
{
    if ((unsigned)code < HEW_CODE_COUNT && code_rows[code].text)
        return code_rows[code].text;
    return "unknown error code";
}
