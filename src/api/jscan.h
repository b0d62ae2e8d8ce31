/* jscan — a small allocation-free JSON scanner for the decoders' fast paths: it walks the
 * members of an object and hands out value spans, so the few event shapes that make up
 * almost all of a stream (a text delta) can be read without building a jansson tree for
 * every 16 bytes of text. It is strict where it looks (RFC 8259 grammar, escapes, UTF-8 in
 * decoded strings) and gives up — never guesses — on anything else: a caller treats
 * "false" as "take the general (jansson) path", which then reports real errors. No I/O,
 * no allocation except into the caller's buf. */
#ifndef HEW_API_JSCAN_H
#define HEW_API_JSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

typedef enum jscan_kind {
    JSCAN_STRING,
    JSCAN_NUMBER,
    JSCAN_OBJECT,
    JSCAN_ARRAY,
    JSCAN_TRUE,
    JSCAN_FALSE,
    JSCAN_NULL
} jscan_kind;

/* A value: its kind and its bytes (a string's span includes the quotes). */
typedef struct jscan_val {
    jscan_kind kind;
    const char *start;
    size_t len;
    bool escaped; /* a string with at least one backslash escape */
} jscan_val;

typedef struct jscan {
    const char *p;
    const char *end;
    bool first;
} jscan;

/* Start walking the object that s[0..n) holds (leading white space allowed). */
bool jscan_object(jscan *js, const char *s, size_t n);
/* Start walking an object value found by a previous scan. */
bool jscan_object_val(jscan *js, const jscan_val *v);

/* The next member: 1 = key (raw bytes between the quotes; a key with escapes gives -1)
 * and value filled; 0 = the object ended; -1 = not valid JSON (or too deep). */
int jscan_member(jscan *js, const char **key, size_t *klen, jscan_val *v);

/* Only white space is left after the object (call after jscan_member returned 0). */
bool jscan_done(const jscan *js);

/* Start walking an array value; jscan_element works like jscan_member without keys. */
bool jscan_array_val(jscan *js, const jscan_val *v);
int jscan_element(jscan *js, jscan_val *v);

/* Key / string comparisons. */
bool jscan_key_is(const char *key, size_t klen, const char *want);
bool jscan_str_is(const jscan_val *v, const char *want); /* unescaped string equal to want */

/* Decode a string value (escapes, surrogate pairs) and append it to out; false when it is
 * not a string, has an invalid escape or a lone surrogate, or is not valid UTF-8. */
bool jscan_string(const jscan_val *v, buf *out);

/* An integer value (no fraction, no exponent) that fits a long long. */
bool jscan_int(const jscan_val *v, long long *out);

#endif
