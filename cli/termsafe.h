/* termsafe — the one sanitiser for text that came from outside hew on its way to a
 * terminal: what the model writes, file contents (tool messages, diffs), command output,
 * MCP servers' answers and names, providers' error bodies, stored tasks. Such text must
 * never drive the terminal: no clipboard write (OSC 52), no window title (OSC 0/2), no
 * hyperlink (OSC 8), no clear screen or cursor move (CSI), no DCS/APC/PM/SOS string, no
 * 8-bit C1 control, no backspace or carriage-return overprinting, no bell, no hidden
 * (SGR 8) or otherwise styled text. Styles on the screen are hew's own, written after
 * the text was sanitised.
 *
 * A push state machine over bytes: termsafe_feed pieces of any size (a streamed delta
 * may end inside an escape sequence, a CR LF or a UTF-8 character: those bytes are held,
 * at most TERMSAFE_HOLD of them, and decided when the next piece comes), then
 * termsafe_finish. Cutting the input anywhere gives the same output as feeding it whole,
 * and what was output before a cut never changes (so a growing text sanitised without
 * finish only ever grows). Whatever the input, the output is valid UTF-8 with no ESC, no
 * C1 control (U+0080–U+009F), no DEL and no C0 control but TAB, LF and a CR directly
 * before an LF. Sanitised text comes back unchanged (the function is idempotent).
 *
 * What happens to the rest — one style, as cat -v and less show control characters:
 *   - an SGR sequence (ESC [ digits ; : m — colours, bold, concealed text) is removed;
 *   - every other escape sequence shows as text: ESC as ^[ and the rest of the sequence
 *     as the printable characters it is made of ("^[]52;c;SGk=^G", "^[[2J");
 *   - other C0 controls and DEL in caret notation (^G bell, ^H backspace, ^?); a lone
 *     CR, which would overprint the line, becomes a line break;
 *   - C1 controls, bidirectional overrides and isolates (U+202A–U+202E,
 *     U+2066–U+2069: "Trojan Source") and Unicode tag characters (U+E0000–U+E007F,
 *     invisible text) show as <U+XXXX>;
 *   - each invalid UTF-8 sequence (a stray byte, an overlong form, a surrogate, a
 *     character cut off at the end) becomes U+FFFD.
 * Printable ASCII, TAB, LF and every other valid UTF-8 character pass through as they are.
 *
 * It never allocates except through the sbuf it writes to (no allocation per byte: runs
 * of plain text are copied at once) and never writes anywhere else, except
 * termsafe_fputs, which writes to the stream it is given. */
#ifndef HEW_CLI_TERMSAFE_H
#define HEW_CLI_TERMSAFE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sbuf.h"

#define TERMSAFE_HOLD 64 /* the longest CSI held to see whether it is an SGR */

/* The machine's state between two feeds; a value on the stack or in a struct, no
 * resources (nothing to release). */
typedef struct termsafe {
    uint8_t state;  /* ground, after ESC, in a CSI, after CR, inside a UTF-8 character */
    uint8_t len;    /* bytes in held */
    uint8_t flags;  /* CSI: can still be an SGR / an intermediate byte was seen */
    uint8_t need;   /* UTF-8: continuation bytes still to come */
    uint8_t lo, hi; /* UTF-8: the range the next continuation byte must be in */
    uint32_t cp;    /* UTF-8: the code point so far */
    unsigned char held[TERMSAFE_HOLD];
} termsafe;

#define TERMSAFE_INIT { 0, 0, 0, 0, 0, 0, 0, { 0 } }

/* Start over (as TERMSAFE_INIT), forgetting anything held. */
void termsafe_init(termsafe *t);

/* Sanitise s[0..n) and append what is decided to out; bytes that need what comes next
 * stay held in t. */
void termsafe_feed(termsafe *t, sbuf *out, const char *s, size_t n);

/* The text has ended: append what is still held (an unfinished escape shows as text, a
 * cut-off UTF-8 character as U+FFFD, a trailing CR as a line break) and start over. */
void termsafe_finish(termsafe *t, sbuf *out);

/* How many of the bytes fed so far are held, undecided (they are the last ones fed): a
 * caller whose text was cut back can feed them again after termsafe_init. */
size_t termsafe_held(const termsafe *t);

/* A whole text s[0..n): feed then finish with a fresh state, appended to out. */
void termsafe_add(sbuf *out, const char *s, size_t n);

/* A new NUL-terminated sanitised copy of the NUL-terminated s, which the caller frees.
 * complete 0: s is a growing text that goes on later (nothing held is output, so the
 * copy of a longer version of s starts with this copy); 1: s is whole. NULL when out of
 * memory; s NULL gives NULL. */
char *termsafe_dup(const char *s, int complete);

/* Write the whole NUL-terminated s to f, sanitised (s NULL writes nothing). Returns 0, or
 * EOF when out of memory or the write failed. */
int termsafe_fputs(const char *s, FILE *f);

/* 1 when s[0..n) comes out of the sanitiser as it is (nothing to change). */
int termsafe_is_clean(const char *s, size_t n);

/* Sanitise, in place, every string value inside a jansson value (objects and arrays
 * recursively; object keys are left as they are). NULL is a no-op. Returns 0, or -1 when
 * out of memory (some strings may then be left as they were). */
struct json_t;
int termsafe_json(struct json_t *v);

#endif
