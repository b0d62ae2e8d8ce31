/* jload — a fast JSON text → jansson tree loader for the store's read path. Resuming a
 * task parses every stored message (megabytes of long strings); jansson's own parser
 * reads one byte at a time through a stream and re-validates UTF-8 per character, which
 * makes a 20 MB history take a quarter of a second. This one scans strings eight bytes at
 * a time and hands jansson finished values (json_stringn_nocheck after its own strict
 * UTF-8 check).
 *
 * It must never accept what jansson would refuse, nor build a different value than
 * jansson would: it is strict RFC 8259 (any value at the top level, white space around
 * it, nothing after), with jansson's choices where the RFC leaves room — "\u0000" and
 * raw NUL-free strings allowed (JSON_ALLOW_NUL), duplicate keys keep the last value,
 * integers that fit int64 become integers, every other number a real, a real that
 * overflows is an error. Whenever it gives up (anything unusual: very deep nesting, a
 * number it does not take), jansson parses the same bytes and its answer — value or
 * error — is the result. No I/O; thread-safe (no shared state; a jload scratch belongs to
 * one thread at a time). */
#ifndef HEW_STORE_JLOAD_H
#define HEW_STORE_JLOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* A reusable scratch for decoded strings (one per thread; loading many rows with one
 * avoids an allocation per row). JLOAD_INIT, then jload_release. */
typedef struct jload {
    char *data;
    size_t cap;
} jload;

#define JLOAD_INIT { NULL, 0 }

void jload_release(jload *j);

/* Parse s[0..n) into a new reference. On failure NULL, and err says HEW_E_INVALID
 * "<what>: invalid JSON at line L, column C: <reason>" (or HEW_E_NOMEM). */
json_t *jload_parse_with(jload *j, const char *s, size_t n, const char *what, hew_err *err);
/* The same with a scratch of its own. */
json_t *jload_parse(const char *s, size_t n, const char *what, hew_err *err);

/* True when s[0..n) is one valid JSON value (the same grammar), without building it. */
bool jload_valid_with(jload *j, const char *s, size_t n);
bool jload_valid(const char *s, size_t n);

#endif
