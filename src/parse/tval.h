/* tval — a text value that grows by appends and is shown the way the reference parser
 * shows it: trimmed like JavaScript's String.prototype.trim(), without ever re-scanning what
 * it already holds. It is the storage of every growing string of the parser (text blocks,
 * XML parameter values, native argument strings, reasoning). It must never show half a
 * UTF-8 character, never drop or reorder a byte it was given, and never do work that grows
 * with what it already holds.
 *
 * The visible value is `text` (always NUL-terminated once non-empty; use tval_str). Bytes
 * that are not visible yet wait in `pend`:
 *   - TVAL_TRIM (default): white space at the start is dropped; white space at the end and
 *     an unfinished UTF-8 sequence wait in pend and become visible when a non-space
 *     character follows (trim-end of everything seen so far is always a prefix of the
 *     final trim, so the visible value only grows);
 *   - TVAL_RAW: nothing is trimmed; only an unfinished UTF-8 sequence waits;
 *   - TVAL_MARKED: like TRIM at the start, but bytes become visible only when the owner
 *     calls tval_mark(): the value is "everything up to the last mark, trimmed". Used for
 *     write_to_file's content, which runs to the LAST `</content>`.
 * "White space" is exactly JavaScript's: U+0009..U+000D, U+0020, U+00A0, U+1680,
 * U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF. Invalid bytes are not
 * white space.
 *
 * Errors: appends past the cap set a sticky error on the buffers (tval_error).
 * Ownership: a tval owns its two buffers; tval_release frees them. */
#ifndef HEW_PARSE_TVAL_H
#define HEW_PARSE_TVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

enum tval_mode { TVAL_TRIM, TVAL_RAW, TVAL_MARKED };

typedef struct tval {
    buf text;            /* the visible value */
    buf pend;            /* bytes after it, not visible yet */
    size_t nw;           /* MARKED: end in pend of the last byte known not to be space */
    unsigned char unk;   /* trailing bytes of pend not classified yet (unfinished UTF-8) */
    bool started;        /* a non-space character has been seen (TRIM, MARKED) */
    unsigned char mode;  /* enum tval_mode */
    size_t dropped;      /* visible bytes given up from the front (tval_drop) */
} tval;

void tval_init(tval *v, enum tval_mode mode, size_t max_bytes);
void tval_release(tval *v);

/* Forget everything (keeps mode and cap). */
void tval_reset(tval *v);

/* Append bytes. Returns true when the visible value changed. */
bool tval_push(tval *v, const char *s, size_t n);

/* tval_push, with every NUL byte (a model's \u0000) pushed as U+FFFD: the values of
 * blocks end up in C strings (what is shown, what the tools get), where a NUL would
 * silently cut the rest off. */
bool tval_push_nonul(tval *v, const char *s, size_t n);

/* End of input for this value: an unfinished UTF-8 sequence counts as a (non-space)
 * character; trailing white space is dropped for good (MARKED: the unmarked rest is
 * dropped). Returns true when the visible value changed. */
bool tval_finish(tval *v);

/* TRIM -> MARKED: resolve an unfinished sequence as above, keep the pending bytes, and from
 * now on only marks make bytes visible. */
void tval_to_marked(tval *v);

/* MARKED: the position (in all bytes pushed since the last mark) up to which a mark made
 * now would reveal: the end of the last non-space byte so far. An unfinished UTF-8 tail
 * counts as non-space (the caller asks this just before pushing an ASCII byte). */
size_t tval_mark_point(const tval *v);

/* MARKED: make pend[0..point) visible (point from tval_mark_point, with no mark since).
 * Returns true when the visible value changed. */
bool tval_mark(tval *v, size_t point);

/* The visible value (never NULL; "" when empty) and its length: after tval_drop, what is
 * left of it — visible bytes [tval_dropped, tval_dropped + len). */
const char *tval_str(const tval *v, size_t *len);

/* Give up the visible bytes before position upto (counted from the value's start, at most
 * its visible length): a reader that has taken them (the presenter) frees their memory.
 * The value goes on growing as before; only its start is gone. */
void tval_drop(tval *v, size_t upto);
size_t tval_dropped(const tval *v);

/* HEW_OK or the sticky buffer error. */
hew_code tval_error(const tval *v);

/* Length of the JavaScript white-space character starting at s[0..n), or 0 when s does not
 * start with one. *need_more (may be NULL) is set when s[0..n) is a proper prefix of one. */
size_t tval_space_at(const unsigned char *s, size_t n, bool *need_more);

/* Length of the white-space character ending at s[end-1], or 0 (looks back at most 3). */
size_t tval_space_before(const unsigned char *s, size_t end);

#endif
