/* jsonpeek — a streaming reader for a JSON object that may still be cut off, for native
 * tool-call arguments that arrive in fragments: it reports the top-level keys and their
 * values as far as they can already be read (a string value grows as it arrives; any other
 * value is reported whole, as its JSON text without the white space outside strings, once
 * it is complete). It is a viewer, not a validator: the owner parses the complete document
 * strictly at the end. It must never look at a byte twice, never allocate per byte, and
 * never report a value it has not read.
 *
 * Usage: jsonpeek_init(&p, sink, ud, max); jsonpeek_feed(&p, frag, n) per fragment.
 * Malformed input stops the reader (p.dead): what was reported stays, nothing more comes.
 * Only the first JSONPEEK_MAX_KEYS keys are reported (the strict parse sees them all). */
#ifndef HEW_PARSE_JSONPEEK_H
#define HEW_PARSE_JSONPEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define JSONPEEK_MAX_KEYS 256

typedef struct jsonpeek_sink {
    /* A value for key begins; is_string tells whether it is a string. */
    void (*begin)(void *ud, const char *key, size_t key_len, bool is_string);
    /* More bytes of the current value: decoded UTF-8 for a string, JSON text otherwise. */
    void (*bytes)(void *ud, const char *s, size_t n);
    /* The current value is complete. */
    void (*end)(void *ud);
} jsonpeek_sink;

typedef struct jsonpeek {
    jsonpeek_sink sink;
    void *ud;
    int st;              /* internal state */
    bool dead, done;
    bool in_value_str;   /* the string being read is a value, not a key */
    bool reporting;      /* the current value is reported */
    int depth;           /* nesting inside a non-string value */
    bool raw_str, raw_esc;
    unsigned esc_hex, esc_n;   /* \uXXXX being read */
    uint32_t hi_surrogate;
    size_t keys;
    buf key;
    buf raw;             /* non-string value being collected */
} jsonpeek;

void jsonpeek_init(jsonpeek *p, jsonpeek_sink sink, void *ud, size_t max_bytes);
void jsonpeek_release(jsonpeek *p);
void jsonpeek_feed(jsonpeek *p, const char *s, size_t n);

#endif
