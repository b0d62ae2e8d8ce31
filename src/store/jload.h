/* jload — JSON text → jansson tree for the store's read path. Resuming a task parses
 * every stored message (megabytes of long strings); jansson's own parser reads one byte at
 * a time through a stream and re-validates UTF-8 per character, which makes a 20 MB
 * history take a quarter of a second. jload builds the same tree from the tokens of
 * base/jscan (the one strict scanner, strings checked sixteen bytes at a time), handing
 * jansson finished values (json_stringn_nocheck: jscan has checked the UTF-8). It has no
 * JSON grammar, escapes or numbers of its own.
 *
 * It must never accept what jansson refuses, nor build a different value than jansson
 * would: jscan's rules are jansson's (JSON_DECODE_ANY | JSON_ALLOW_NUL: any value at the
 * top level, "\u0000" allowed in strings, integers that fit int64 become integers, every
 * other number a real, a real that overflows is an error, at most 2048 levels of nesting),
 * plus jansson's own rules of a tree: a key that decodes with a NUL byte is refused,
 * duplicate keys keep the last value. Whenever jscan says no, jansson parses the same bytes
 * and its answer — value or error — is the result (so an error has jansson's message with
 * line and column, and jload can never refuse what jansson takes). No I/O; thread-safe (no
 * shared state; a jload scratch belongs to one thread at a time). */
#ifndef HEW_STORE_JLOAD_H
#define HEW_STORE_JLOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* A reusable scratch for decoded strings and the stack of open containers (one per thread;
 * loading many rows with one avoids allocations per row). JLOAD_INIT, then jload_release. */
typedef struct jload {
    char *data; /* a decoded string value */
    size_t cap;
    char *key; /* a decoded key (kept while its value is decoded) */
    size_t key_cap;
    json_t **stack; /* open containers, borrowed from the tree being built */
    size_t stack_cap;
} jload;

#define JLOAD_INIT { NULL, 0, NULL, 0, NULL, 0 }

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
