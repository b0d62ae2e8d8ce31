/* fuzz_sse — differential libFuzzer target for net/sse. The input is decoded fed whole and
 * fed at split points derived from the input's own bytes, with default and with tiny caps;
 * the event lists (type, data, id), the final error code, the last event id and the retry
 * value must be identical, and every event must keep the documented invariants. Any
 * difference aborts. It must never read outside the input or keep state between runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "net/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One decoding, flattened: for each event, three length-prefixed fields. */
typedef struct outcome {
    buf events;
    size_t count;
    hew_code code;
    char last_id[64];
    size_t last_id_len;
    long retry;
} outcome;

static void put_field(buf *b, const char *p, size_t n)
{
    buf_append(b, &n, sizeof n);
    buf_append(b, p, n);
}

static void check_event(const sse_event *ev)
{
    if (!ev->event || !ev->data || !ev->id || ev->data[ev->data_len] != '\0' ||
        ev->event[ev->event_len] != '\0' || ev->id[ev->id_len] != '\0' ||
        memchr(ev->id, '\0', ev->id_len) != NULL)
        abort();
    /* Terminators never reach an event: they end lines. */
    if (memchr(ev->event, '\n', ev->event_len) || memchr(ev->event, '\r', ev->event_len) ||
        memchr(ev->id, '\n', ev->id_len) || memchr(ev->id, '\r', ev->id_len) ||
        memchr(ev->data, '\r', ev->data_len))
        abort();
}

static void drain(sse_decoder *d, outcome *o, int *failed)
{
    sse_event ev;
    int rc;
    hew_err err = HEW_ERR_INIT;
    while ((rc = sse_next(d, &ev, &err)) == 1) {
        check_event(&ev);
        put_field(&o->events, ev.event, ev.event_len);
        put_field(&o->events, ev.data, ev.data_len);
        put_field(&o->events, ev.id, ev.id_len);
        o->count++;
    }
    if (rc < 0) {
        if (err.code == HEW_OK || err.msg[0] == '\0')
            abort();
        o->code = err.code;
        *failed = 1;
    }
}

/* Decode data cut before every offset in cuts (ascending), then end. */
static void decode(const uint8_t *data, size_t size, const size_t *cuts, size_t ncuts,
                   const sse_limits *lim, outcome *o)
{
    buf_init(&o->events, 0);
    o->count = 0;
    o->code = HEW_OK;
    sse_decoder *d = sse_decoder_new(lim);
    if (!d)
        abort();
    size_t at = 0;
    int failed = 0;
    for (size_t i = 0; i <= ncuts && !failed; i++) {
        size_t to = i < ncuts ? cuts[i] : size;
        hew_err err = HEW_ERR_INIT;
        if (sse_feed(d, data + at, to - at, &err) != HEW_OK) {
            o->code = err.code;
            failed = 1;
            break;
        }
        at = to;
        drain(d, o, &failed);
    }
    if (!failed) {
        sse_end(d);
        drain(d, o, &failed);
        sse_event ev;
        if (!failed && sse_next(d, &ev, NULL) != 0)
            abort();
    } else {
        sse_event ev;
        if (sse_next(d, &ev, NULL) != -1 || sse_feed(d, "\n", 1, NULL) != o->code)
            abort(); /* errors are sticky */
    }
    const char *id = sse_last_event_id(d);
    o->last_id_len = strlen(id);
    snprintf(o->last_id, sizeof o->last_id, "%s", id);
    o->retry = sse_retry_ms(d);
    if (o->events.err)
        abort();
    sse_decoder_free(d);
}

static void same(const outcome *a, const outcome *b)
{
    if (a->count != b->count || a->code != b->code || a->events.len != b->events.len ||
        (a->events.len && memcmp(a->events.data, b->events.data, a->events.len) != 0) ||
        a->last_id_len != b->last_id_len || strcmp(a->last_id, b->last_id) != 0 ||
        a->retry != b->retry)
        abort();
}

/* Cut points from the input itself: each byte b gives a piece of 1 + (b % span). */
static size_t derive_cuts(const uint8_t *data, size_t size, size_t span, size_t *cuts)
{
    size_t k = 0, at = 0;
    for (size_t i = 0; i < size; i++) {
        at += 1 + data[i] % span;
        if (at >= size)
            break;
        cuts[k++] = at;
    }
    return k;
}

static void compare_feedings(const uint8_t *data, size_t size, const sse_limits *lim,
                             size_t *cuts)
{
    outcome whole, split;
    decode(data, size, NULL, 0, lim, &whole);

    static const size_t spans[] = { 1, 3, 16, 200 };
    for (size_t s = 0; s < sizeof spans / sizeof spans[0]; s++) {
        size_t n = derive_cuts(data, size, spans[s], cuts);
        decode(data, size, cuts, n, lim, &split);
        same(&whole, &split);
        buf_release(&split.events);
    }
    /* Cut right after every CR: the CR/LF decision at a feed boundary. */
    size_t n = 0;
    for (size_t i = 0; i + 1 < size; i++)
        if (data[i] == '\r')
            cuts[n++] = i + 1;
    decode(data, size, cuts, n, lim, &split);
    same(&whole, &split);
    buf_release(&split.events);
    buf_release(&whole.events);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    size_t *cuts = malloc((size + 1) * sizeof *cuts);
    if (!cuts)
        return 0;
    compare_feedings(data, size, NULL, cuts);
    /* Tiny caps, chosen by the first byte: exercise the line and event limits. */
    size_t small = size ? (size_t)(data[0] & 15) + 1 : 1;
    sse_limits lim = { .max_line = small, .max_event = small * 2 };
    compare_feedings(data, size, &lim, cuts);
    free(cuts);
    return 0;
}
