/* fuzz_decode_common — the body of every fuzz_decode_* target: the input (after one
 * byte that picks a split size) is a response body; it is decoded whole and in pieces,
 * and both results must be identical (the decoder must not depend on read boundaries);
 * the split decoding runs without the jansson-free fast paths (decode_fast.c), so any
 * difference between the two ways of reading an event is a finding too;
 * the turn is then turned into its debug JSON and an assistant message. Any crash,
 * sanitizer report, leak or mismatch is a finding. Header-only, for fuzz/ targets. */
#ifndef HEW_FUZZ_DECODE_COMMON_H
#define HEW_FUZZ_DECODE_COMMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/decoder.h"
#include "api/turn.h"

static json_t *fuzz_decode(api_protocol p, const uint8_t *data, size_t size, size_t step,
                           bool fast)
{
    api_turn t;
    api_turn_init(&t);
    api_decoder *d = api_decoder_new(p, 200, api_turn_add, &t);
    if (!d) {
        api_turn_release(&t);
        return NULL;
    }
    api_decoder_set_fast_paths(d, fast);
    for (size_t at = 0; at < size; at += step)
        api_decoder_feed(d, (const char *)data + at, size - at < step ? size - at : step);
    api_decoder_end(d);
    api_decoder_free(d);
    json_t *o = api_turn_debug_json(&t);
    json_t *m = api_turn_to_message(&t);
    json_decref(m);
    api_turn_release(&t);
    return o;
}

static int fuzz_decode_one(api_protocol p, const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t step = (size_t)(data[0] % 17) + 1;
    data++;
    size--;
    json_t *whole = fuzz_decode(p, data, size, size ? size : 1, true);
    json_t *split = fuzz_decode(p, data, size, step, false);
    if (whole && split && !json_equal(whole, split))
        abort(); /* the result depends on where reads end, or on the fast paths */
    json_decref(whole);
    json_decref(split);
    return 0;
}

#endif
