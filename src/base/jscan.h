/* jscan — hew's one strict JSON scanner: RFC 8259 text, read without building anything
 * and without allocating, for the two places where jansson's own parser is too slow: the
 * decoders' fast paths (api/decode_fast.c: a text delta read without a jansson tree per
 * 16 bytes of text) and the store's loader (store/jload.c: megabytes of stored messages
 * turned into jansson trees at resume).
 *
 * One place for what JSON means here, with jansson's choices where the RFC leaves room, so
 * that what jscan accepts jansson (json_loadb with JSON_DECODE_ANY | JSON_ALLOW_NUL)
 * accepts, with the same values, and the other way round (fuzz/fuzz_jscan.c checks it):
 *   - strings: no raw control characters, valid UTF-8 (no overlongs, surrogates or code
 *     points past U+10FFFF), the escapes \" \\ \/ \b \f \n \r \t \uXXXX; a \u escape of a
 *     high surrogate must be followed by one of a low surrogate (a pair), a lone one of
 *     either is invalid; "\u0000" is allowed and flagged (a value with a NUL byte: the
 *     consumer decides — jansson refuses it in keys, the decoders take the general path);
 *   - numbers: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; one without fraction or
 *     exponent is an integer and must fit int64 (else invalid, as jansson's "too big
 *     integer"); any other is a real, read with strtod in the C locale whatever the
 *     process's locale (correctly rounded; one that overflows to infinity is invalid, one
 *     that underflows becomes 0 or a subnormal);
 *   - nesting: at most JSCAN_MAX_DEPTH arrays and objects open at once (jansson's limit);
 *   - white space: space, tab, LF, CR; one value at the top level, any kind, with nothing
 *     after it but white space;
 *   - duplicate keys are not this layer's business (jansson keeps the last one).
 * The one place jscan and jansson part: a raw NUL byte outside a string is refused here;
 * jansson's stream reader takes it for the end of its buffer and skips it in places
 * ("1\0" and "[1\0]" load). No JSON text hew writes holds one.
 *
 * Two ways in:
 *   - the reader (jscan_reader_init / jscan_next): a pull tokenizer over a whole text that
 *     checks the grammar with a bit stack (no recursion, 256 bytes) and hands out tokens:
 *     keys, scalar values, and the begin and end of containers. The loader builds from it;
 *     jscan_valid runs it to the end.
 *   - the walker (jscan_object / jscan_member / ...): the members of one object or the
 *     elements of one array with each value's span, skipping nested values whole (checked
 *     all the same), for code that wants two fields of an event.
 * Strings come out raw (their JSON bytes, flagged when they hold escapes) and are decoded
 * on demand (jscan_unescape, jscan_string) without checking again.
 *
 * No I/O, no allocation (except into a caller's buf), no global state but the C locale
 * created once; thread-safe. Invalid input is a "no" (false / -1), never a guess; the
 * callers go to jansson for its message. */
#ifndef HEW_BASE_JSCAN_H
#define HEW_BASE_JSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

#define JSCAN_MAX_DEPTH 2048 /* arrays and objects open at once (jansson's limit) */

typedef enum jscan_kind {
    JSCAN_STRING,
    JSCAN_NUMBER,
    JSCAN_OBJECT,
    JSCAN_ARRAY,
    JSCAN_TRUE,
    JSCAN_FALSE,
    JSCAN_NULL
} jscan_kind;

/* A value: its kind and its bytes (a string's span includes the quotes; a container's, its
 * brackets — from the reader a container token covers only its bracket). Filled by the
 * scanner; a value made by hand only for jscan_int. */
typedef struct jscan_val {
    jscan_kind kind;
    const char *start;
    size_t len;
    bool escaped; /* a string with at least one backslash escape */
    bool nul;     /* a string that decodes with a NUL byte ("\u0000") */
    bool real;    /* a number with a fraction or an exponent (its value in d, else in i) */
    long long i;
    double d;
} jscan_val;

/* ---- the reader ---------------------------------------------------------------------- */

typedef enum jscan_tok {
    JSCAN_TOK_VALUE, /* a string, number or literal: v is the whole value */
    JSCAN_TOK_KEY,   /* an object member's key: v is a string (its value comes next) */
    JSCAN_TOK_BEGIN, /* '{' or '[': v.kind is JSCAN_OBJECT or JSCAN_ARRAY, v.start the bracket */
    JSCAN_TOK_END    /* '}' or ']': v.kind as at its begin, v.start the bracket */
} jscan_tok;

typedef struct jscan_reader {
    const char *p, *end;
    int depth;                                   /* containers open */
    int state;                                   /* what may come next (jscan.c) */
    unsigned char is_object[JSCAN_MAX_DEPTH / 8]; /* a bit per open container */
} jscan_reader;

/* Read the JSON text s[0..n) (one value, white space around it allowed). */
void jscan_reader_init(jscan_reader *r, const char *s, size_t n);

/* The next token: 1 = *tok and *v filled; 0 = the text is complete (its one value ended
 * and only white space followed); -1 = not valid JSON (or nested too deep); after 0 or -1
 * every further call gives the same. */
int jscan_next(jscan_reader *r, jscan_tok *tok, jscan_val *v);

/* True when s[0..n) is one valid JSON value by the rules above (a "\u0000" anywhere is
 * allowed; see jload for jansson's rule on keys). */
bool jscan_valid(const char *s, size_t n);

/* ---- the walker ------------------------------------------------------------------------ */

typedef struct jscan {
    jscan_reader r;
} jscan;

/* Start walking the object that s[0..n) holds (leading white space allowed). */
bool jscan_object(jscan *js, const char *s, size_t n);
/* Start walking an object value found by a previous scan. */
bool jscan_object_val(jscan *js, const jscan_val *v);

/* The next member: 1 = key (raw bytes between the quotes; a key with escapes gives -1)
 * and value filled (a nested object or array is checked and spanned whole); 0 = the
 * object ended; -1 = not valid JSON (or too deep). */
int jscan_member(jscan *js, const char **key, size_t *klen, jscan_val *v);

/* Only white space is left after the object (call after jscan_member returned 0). */
bool jscan_done(jscan *js);

/* Start walking an array value; jscan_element works like jscan_member without keys. */
bool jscan_array_val(jscan *js, const jscan_val *v);
int jscan_element(jscan *js, jscan_val *v);

/* ---- values ---------------------------------------------------------------------------- */

/* Key / string comparisons. */
bool jscan_key_is(const char *key, size_t klen, const char *want);
bool jscan_str_is(const jscan_val *v, const char *want); /* unescaped string equal to want */

/* Decode the string value v (from a scan: already checked) into out, which has room for
 * v->len bytes (decoded text is never longer than its JSON form); returns the decoded
 * length. */
size_t jscan_unescape(const jscan_val *v, char *out);

/* Append the decoded string value v to out; false when v is not a string or out's sticky
 * error is set (out is then as it was). */
bool jscan_string(const jscan_val *v, buf *out);

/* An integer value (no fraction, no exponent) that fits a long long. */
bool jscan_int(const jscan_val *v, long long *out);

#endif
