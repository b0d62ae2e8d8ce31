/* framing — newline-delimited JSON-RPC messages out of a byte stream (see framing.h). */
#include "mcp/framing.h"

#include <string.h>

#define NOISE_PREVIEW 200 /* bytes of an overlong line shown in the noise report */

void mcp_lines_init(mcp_lines *l, size_t cap, void (*on_message)(void *, const char *, size_t),
                    void (*on_noise)(void *, const char *, size_t), void *ud)
{
    memset(l, 0, sizeof *l);
    l->cap = cap ? cap : MCP_LINE_MAX;
    buf_init(&l->line, l->cap + 1);
    l->on_message = on_message;
    l->on_noise = on_noise;
    l->ud = ud;
}

void mcp_lines_release(mcp_lines *l)
{
    buf_release(&l->line);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static void deliver(mcp_lines *l, char *s, size_t n)
{
    if (n && s[n - 1] == '\r')
        s[--n] = '\0';
    size_t i = 0;
    while (i < n && is_blank(s[i]))
        i++;
    if (i == n)
        return;
    if (s[i] == '{' || s[i] == '[') {
        if (l->on_message)
            l->on_message(l->ud, s + i, n - i);
    } else if (l->on_noise) {
        l->on_noise(l->ud, s, n);
    }
}

/* Deliver the collected line (NUL-terminated in the buffer, as receivers expect) and
 * start a new one; an overlong line being skipped ends here instead. */
static void finish_line(mcp_lines *l)
{
    if (l->skipping) {
        l->skipping = false;
    } else {
        char empty[1] = "";
        deliver(l, l->line.data ? l->line.data : empty, l->line.len);
    }
    buf_reset(&l->line);
}

static void start_skipping(mcp_lines *l)
{
    if (l->on_noise) {
        static const char note[] = "(a line longer than the limit was dropped) ";
        buf preview = BUF_INIT(sizeof note + NOISE_PREVIEW);
        buf_puts(&preview, note);
        buf_append(&preview, l->line.data, l->line.len < NOISE_PREVIEW ? l->line.len
                                                                        : NOISE_PREVIEW);
        if (preview.err == HEW_OK)
            l->on_noise(l->ud, preview.data, preview.len);
        buf_release(&preview);
    }
    l->skipping = true;
    buf_reset(&l->line);
}

void mcp_lines_feed(mcp_lines *l, const char *data, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        size_t take = nl ? (size_t)(nl - data) : n;
        if (!l->skipping) {
            if (l->line.len + take > l->cap) {
                size_t room = l->cap - l->line.len;
                buf_append(&l->line, data, room < NOISE_PREVIEW ? room : NOISE_PREVIEW);
                start_skipping(l);
            } else {
                buf_append(&l->line, data, take);
                if (l->line.err != HEW_OK) /* out of memory: this line is lost */
                    start_skipping(l);
            }
        }
        if (!nl)
            return;
        finish_line(l);
        data = nl + 1;
        n -= take + 1;
    }
}

void mcp_lines_finish(mcp_lines *l)
{
    if (l->line.len || l->skipping)
        finish_line(l);
}
