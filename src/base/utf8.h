/* utf8 — strict UTF-8 validation and safe cutting of byte strings, for the streaming path
 * (model output, tool output, terminal text). It must never split a character, never
 * allocate (except utf8_sanitize through a buf), and never read past len.
 *
 * "Strict" means RFC 3629: no overlong forms (C0, C1, E0 80..9F, F0 80..8F), no UTF-16
 * surrogates (U+D800..U+DFFF, i.e. ED A0..BF), nothing above U+10FFFF (F4 90.., F5..FF),
 * no stray continuation bytes. NUL bytes are valid UTF-8 (U+0000).
 *
 * Every function takes (s, len) and does not need a NUL terminator. All are fast on ASCII:
 * they skip eight bytes at a time while the high bits are clear. */
#ifndef HEW_BASE_UTF8_H
#define HEW_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

/* The replacement character U+FFFD as UTF-8. */
#define UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* True when s[0..len) is valid UTF-8. When it is not and bad_offset is not NULL, it gets
 * the offset of the first byte of the first invalid (or truncated) sequence. */
bool utf8_validate(const char *s, size_t len, size_t *bad_offset);

/* Like utf8_validate, but as an error value: HEW_E_INVALID with a message naming what
 * ("tool output") and the byte offset. */
hew_code utf8_check(const char *s, size_t len, const char *what, hew_err *err);

/* Length of a valid sequence starting at s (1..4), or 0 when s[0..len) does not start
 * with one (invalid, or truncated at len). len 0 gives 0. If cp is not NULL it gets the
 * code point on success. */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);

/* Encode cp into out (at least 4 bytes); returns the length, or 0 for a surrogate or a
 * value above U+10FFFF. */
size_t utf8_encode(uint32_t cp, char out[4]);

/* Length of the longest prefix of s[0..len) that is at most max bytes and does not end
 * in the middle of a character. Byte-oriented: the cut only looks at lead/continuation
 * bytes, so it also behaves on invalid input (it never cuts between a lead byte and its
 * continuation bytes, and never moves back more than 3 bytes). */
size_t utf8_cut(const char *s, size_t len, size_t max);

/* Length of the prefix of s[0..len) that does not end inside an incomplete (but so far
 * valid) trailing sequence: the caller holds back s[result..len) until more bytes arrive.
 * Invalid bytes are not held back (they will never become valid); result >= len - 3. */
size_t utf8_complete_prefix(const char *s, size_t len);

/* Append s[0..len) to out with every invalid or truncated sequence replaced by U+FFFD
 * (one replacement per maximal invalid subpart, as the Unicode standard recommends).
 * Errors are out's sticky error. */
void utf8_sanitize(const char *s, size_t len, buf *out);

/* Number of code points in s[0..len) (invalid bytes count one each). */
size_t utf8_count(const char *s, size_t len);

#endif
