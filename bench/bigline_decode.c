/* bigline_decode — a tool call that arrives whole in one SSE line (Gemini's functionCall)
 * through the Gemini decoder, fed in 16 KiB reads as a socket delivers them: MB/s and the
 * peak resident memory for calls of 2 MB, 8 MB and 20 MB of file content (the largest a
 * tool writes; its line is near LIMITS_STREAM_LINE). Shows that decoding is linear in the
 * line and that memory is a small multiple of it (the SSE buffer stops at the cap; the
 * JSON tree and the arguments text are the other copies). Exits non-zero when the call is
 * not decoded whole, so it never measures a failure. Usage: bigline_decode. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "api/decoder.h"
#include "api/error.h"

#define FEED 16384

struct got {
    size_t args_len, calls, ends, errors;
};

static int on_chunk(void *ud, const api_chunk *c)
{
    struct got *g = ud;
    if (c->kind == API_CHUNK_TOOL_DELTA) {
        g->args_len += c->tool.args_len;
        g->calls++;
    } else if (c->kind == API_CHUNK_END) {
        g->ends++;
    } else if (c->kind == API_CHUNK_ERROR) {
        g->errors++;
        fprintf(stderr, "bigline_decode: %s\n", c->error ? c->error->message : "error");
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* A Gemini body: one data line with a write_to_file call of n bytes of content. */
static char *body_of(size_t n, size_t *len)
{
    static const char line[] = "    if (x->len > max) return fail(\"too \\\\ long\", x);\n";
    char *content = malloc(n + 1);
    if (!content)
        return NULL;
    for (size_t i = 0; i < n; i++)
        content[i] = line[i % (sizeof line - 1)];
    content[n] = '\0';
    json_t *chunk = json_pack(
        "{s:[{s:{s:[{s:{s:s, s:{s:s, s:s}}}], s:s}, s:s}]}", "candidates", "content", "parts",
        "functionCall", "name", "write_to_file", "args", "path", "big.c", "content", content,
        "role", "model", "finishReason", "STOP");
    free(content);
    char *data = chunk ? json_dumps(chunk, JSON_COMPACT) : NULL;
    json_decref(chunk);
    if (!data)
        return NULL;
    size_t dl = strlen(data);
    char *body = malloc(dl + 16);
    if (body)
        *len = (size_t)snprintf(body, dl + 16, "data: %s\r\n\r\n", data);
    free(data);
    return body;
}

int main(void)
{
    static const size_t sizes[] = { (size_t)2 << 20, (size_t)8 << 20, (size_t)20 * 1000 * 1024 };
    int bad = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t len = 0;
        char *body = body_of(sizes[k], &len);
        if (!body) {
            fprintf(stderr, "bigline_decode: out of memory\n");
            return 1;
        }
        long rss_before = maxrss_kb();
        struct got g = { 0 };
        double t0 = now_s();
        api_decoder *d = api_decoder_new(API_PROTO_GEMINI, 200, on_chunk, &g);
        for (size_t at = 0; at < len; at += FEED)
            api_decoder_feed(d, body + at, len - at < FEED ? len - at : FEED);
        api_decoder_end(d);
        api_decoder_free(d);
        double secs = now_s() - t0;
        long rss_after = maxrss_kb();
        bool ok = g.calls == 1 && g.ends == 1 && g.errors == 0 && g.args_len > sizes[k];
        bad |= !ok;
        printf("bigline_decode: %6.2f MB line (%5.2f MB content): %7.1f MB/s, peak RSS %6.1f MB "
               "(+%.1f MB)%s\n",
               (double)len / 1e6, (double)sizes[k] / 1e6, (double)len / 1e6 / secs,
               (double)rss_after / 1024.0, (double)(rss_after - rss_before) / 1024.0,
               ok ? "" : " — FAILED");
        free(body);
    }
    return bad;
}
