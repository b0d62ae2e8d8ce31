/* sse_throughput — benchmark for net/sse. Builds a 64 MB synthetic stream in memory (OpenAI
 * chat chunks, Anthropic events with pings, Gemini-style CRLF chunks, keep-alive comments,
 * some multi-line data), decodes it fed in 16 KiB and 1 KiB reads, and prints MB/s
 * (MB = 10^6 bytes) and events/s for the best of several runs. Exits non-zero if the event
 * count or the data byte count is wrong, so it can never silently measure nothing. It must
 * never do I/O beyond printing, and never depend on anything but the decoder. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "net/sse.h"

#define STREAM_BYTES ((size_t)64 << 20)
#define REPS 5

static const char *const WORDS[] = {
    "the ", "parser ", "reads ", "bytes ", "until ", "a ", "blank ", "line ", "arrives, ",
    "then ", "dispatches ", "one ", "event ", "— ", "see ", "`sse_next` ", "for ", "details. ",
    "Let ", "me ", "check ", "src/net/sse.c ", "first.\\n", "I’ll ", "fix ", "it ", "now: ",
};

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A text delta of 20..200 bytes of JSON-escaped words. */
static void delta_text(buf *b, uint64_t *s)
{
    size_t want = 20 + rng(s) % 180, have = 0;
    while (have < want) {
        const char *w = WORDS[rng(s) % (sizeof WORDS / sizeof WORDS[0])];
        buf_puts(b, w);
        have += strlen(w);
    }
}

typedef struct expect {
    size_t events, data_bytes;
} expect;

/* Append one event and account for what the decoder must report. */
static void gen_event(buf *out, uint64_t *s, size_t seq, expect *x)
{
    buf data = BUF_INIT(0);
    unsigned kind = (unsigned)(rng(s) % 100);
    if (kind < 3) { /* keep-alive comment: no event */
        buf_puts(out, kind == 0 ? ": OPENROUTER PROCESSING\n\n" : ": keep-alive\n\n");
        return;
    }
    if (kind < 45) { /* OpenAI chat chunk */
        buf_printf(&data,
                   "{\"id\":\"chatcmpl-CDqC8Mw3Pb6Tn1Xr9Kv4Lz7Ha2Ys\",\"object\":\"chat."
                   "completion.chunk\",\"created\":%zu,\"model\":\"gpt-4o-mini-2024-07-18\","
                   "\"system_fingerprint\":\"fp_560af6e559\",\"choices\":[{\"index\":0,"
                   "\"delta\":{\"content\":\"",
                   1757412800 + seq / 50);
        delta_text(&data, s);
        buf_puts(&data, "\"},\"logprobs\":null,\"finish_reason\":null}]}");
        buf_puts(out, "data: ");
        buf_append(out, data.data, data.len);
        buf_puts(out, "\n\n");
    } else if (kind < 85) { /* Anthropic: event line + data line; some pings */
        if (kind < 48) {
            buf_puts(&data, "{\"type\": \"ping\"}");
            buf_puts(out, "event: ping\ndata: ");
        } else {
            buf_puts(&data, "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
                            "\"text_delta\",\"text\":\"");
            delta_text(&data, s);
            buf_puts(&data, "\"}}");
            buf_puts(out, "event: content_block_delta\ndata: ");
        }
        buf_append(out, data.data, data.len);
        buf_puts(out, "\n\n");
    } else if (kind < 95) { /* Gemini over CRLF */
        buf_puts(&data, "{\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"");
        delta_text(&data, s);
        buf_puts(&data, "\"}],\"role\": \"model\"},\"index\": 0}],\"modelVersion\": "
                        "\"gemini-2.5-pro\",\"responseId\": \"mJ7BaPqfLr6Nz7IPk4W9gQk\"}");
        buf_puts(out, "data: ");
        buf_append(out, data.data, data.len);
        buf_puts(out, "\r\n\r\n");
    } else { /* one JSON object over three data: lines, with a comment and an id */
        buf_puts(out, "id: ");
        buf_printf(out, "%zu\n", seq);
        const char *parts[3] = {
            "{\"id\":\"chatcmpl-CDqC8Mw3Pb6Tn1Xr9Kv4Lz7Ha2Ys\",\"object\":\"chat.completion.chunk\",",
            "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"multi-line data joins\"},",
            "\"logprobs\":null,\"finish_reason\":null}]}",
        };
        for (int i = 0; i < 3; i++) {
            if (i)
                buf_putc(&data, '\n');
            buf_puts(&data, parts[i]);
            buf_printf(out, "data:%s\n", parts[i]);
            if (i == 0)
                buf_puts(out, ": a comment inside the event\n");
        }
        buf_putc(out, '\n');
    }
    x->events++;
    x->data_bytes += data.len;
    buf_release(&data);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Decode the stream in reads of `chunk` bytes; returns seconds, or -1 if the counts are
 * wrong. */
static double run_once(const buf *in, size_t chunk, const expect *x)
{
    sse_decoder *d = sse_decoder_new(NULL);
    if (!d)
        return -1;
    size_t events = 0, bytes = 0;
    hew_err err = HEW_ERR_INIT;
    sse_event ev;
    int rc = 0;
    double t0 = now();
    for (size_t at = 0; at < in->len && rc >= 0; at += chunk) {
        size_t n = in->len - at < chunk ? in->len - at : chunk;
        if (sse_feed(d, in->data + at, n, &err) != HEW_OK) {
            rc = -1;
            break;
        }
        while ((rc = sse_next(d, &ev, &err)) == 1) {
            events++;
            bytes += ev.data_len;
        }
    }
    if (rc >= 0) {
        sse_end(d);
        while ((rc = sse_next(d, &ev, &err)) == 1) {
            events++;
            bytes += ev.data_len;
        }
    }
    double t = now() - t0;
    sse_decoder_free(d);
    if (rc < 0) {
        fprintf(stderr, "sse_throughput: decode failed: %s\n", err.msg);
        return -1;
    }
    if (events != x->events || bytes != x->data_bytes) {
        fprintf(stderr, "sse_throughput: got %zu events / %zu data bytes, expected %zu / %zu\n",
                events, bytes, x->events, x->data_bytes);
        return -1;
    }
    return t;
}

int main(void)
{
    buf in = BUF_INIT(0);
    expect x = { 0, 0 };
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    size_t seq = 0;
    while (in.len < STREAM_BYTES)
        gen_event(&in, &seed, seq++, &x);
    if (in.err) {
        fprintf(stderr, "sse_throughput: cannot build the stream\n");
        return 1;
    }
    printf("stream: %.1f MB, %zu events (avg %.0f bytes/event)\n", (double)in.len / 1e6,
           x.events, (double)in.len / (double)x.events);

    static const size_t chunks[] = { 16 << 10, 1 << 10 };
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        double best = 0, total = 0;
        for (int r = 0; r < REPS; r++) {
            double t = run_once(&in, chunks[c], &x);
            if (t < 0) {
                buf_release(&in);
                return 1;
            }
            total += t;
            if (r == 0 || t < best)
                best = t;
        }
        printf("%2zu KiB reads: best %7.1f MB/s  %6.2f M events/s   (mean %7.1f MB/s over %d "
               "runs)\n",
               chunks[c] >> 10, (double)in.len / best / 1e6, (double)x.events / best / 1e6,
               (double)in.len / (total / REPS) / 1e6, REPS);
    }
    buf_release(&in);
    return 0;
}
