/* fuzz_mcp — libFuzzer target for the MCP client's input side: the stdio framing
 * (mcp/framing.c) fed whole and at split points derived from the input's own bytes, with
 * the default and a tiny line cap — the messages and the noise must be identical and every
 * message NUL-terminated and starting with '{' or '[' — and every message then handed to a
 * JSON-RPC client (mcp/client.c, no transport attached) as a server would send it:
 * responses to unknown ids, notifications, progress, server requests (whose answers cannot
 * be sent), batches and malformed JSON must all be handled without a crash. Any difference
 * aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "mcp/client.h"
#include "mcp/framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct outcome {
    buf messages; /* length-prefixed */
    buf noise;
    mcp_client *client; /* gets every message, or NULL */
} outcome;

static void on_message(void *ud, const char *json, size_t len)
{
    outcome *o = ud;
    if (json[len] != '\0' || len == 0 || (json[0] != '{' && json[0] != '['))
        abort();
    buf_append(&o->messages, &len, sizeof len);
    buf_append(&o->messages, json, len);
    if (o->client) {
        mcp_sink sink = mcp_client_sink(o->client);
        sink.on_message(sink.ud, json, len);
    }
}

static void on_noise(void *ud, const char *text, size_t len)
{
    outcome *o = ud;
    buf_append(&o->noise, &len, sizeof len);
    buf_append(&o->noise, text, len);
}

static void run(const uint8_t *data, size_t size, size_t cap, const size_t *splits,
                size_t nsplits, outcome *o)
{
    mcp_lines l;
    mcp_lines_init(&l, cap, on_message, on_noise, o);
    size_t at = 0;
    for (size_t i = 0; i <= nsplits; i++) {
        size_t end = i < nsplits ? splits[i] : size;
        if (end > at) {
            mcp_lines_feed(&l, (const char *)data + at, end - at);
            at = end;
        }
    }
    mcp_lines_finish(&l);
    mcp_lines_release(&l);
}

static bool same(const outcome *a, const outcome *b)
{
    return a->messages.len == b->messages.len && a->noise.len == b->noise.len &&
           (!a->messages.len || memcmp(a->messages.data, b->messages.data, a->messages.len) == 0) &&
           (!a->noise.len || memcmp(a->noise.data, b->noise.data, a->noise.len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t splits[16], nsplits = 0;
    for (size_t i = 0; i < size && nsplits < 16; i += 1 + data[i] % 23)
        splits[nsplits++] = i;
    for (size_t cap = 0; cap <= 40; cap += 40) { /* 0: the default cap */
        hew_err err = HEW_ERR_INIT;
        outcome whole = { BUF_INIT(0), BUF_INIT(0), NULL };
        outcome split = { BUF_INIT(0), BUF_INIT(0), NULL };
        if (cap == 0 && mcp_client_new("fuzz", "/tmp", NULL, &whole.client, &err) != HEW_OK)
            abort();
        run(data, size, cap, NULL, 0, &whole);
        run(data, size, cap, splits, nsplits, &split);
        if (!same(&whole, &split))
            abort();
        mcp_client_free(whole.client);
        buf_release(&whole.messages);
        buf_release(&whole.noise);
        buf_release(&split.messages);
        buf_release(&split.noise);
    }
    return 0;
}
