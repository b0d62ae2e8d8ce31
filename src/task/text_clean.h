/* text_clean — what the user sees of a text block (seed 000, "thinking tag strip" and
 * "partial tag trim"): <thinking>, <think> and <function_calls> tags removed with one
 * adjacent white-space character; while the block grows, a tag still being written at the
 * end (`<thin`, `</`) cut off together with the white space around; when final, a trailing
 * code-fence language tag (```bash) left by the model removed.
 *
 * Two forms with the same result: text_clean cleans a whole text at once (pure function);
 * a text_cleaner cleans a growing text by appends, doing work in proportion to what was
 * appended, never to what it already holds (a stable prefix that can no longer change,
 * plus a held-back tail: a tag still being written, the white space a cut takes).
 * It must never give a view that text_clean would not give for the same bytes. */
#ifndef HEW_TASK_TEXT_CLEAN_H
#define HEW_TASK_TEXT_CLEAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Append the cleaned form of s[0..n) to out. */
void text_clean(const char *s, size_t n, bool partial, buf *out);

/* The incremental cleaner of one growing text. Its output is a caller's buffer `out`
 * (the message's own text: no second copy), which holds, after each feed, exactly
 * text_clean(s, n, partial) — and which nobody else may change between feeds. The
 * cleaner keeps only what it cut from the view to give back later (the white space and
 * the unfinished tag at the end; rarely, white space at the start, Cline's trim).
 * Work per feed: the new bytes, plus what the view cuts (a tag being written and the
 * white space next to it), plus — only when the text starts with white space and its
 * end holds a tag being written — a move of the whole text. */
typedef struct text_cleaner {
    size_t in;             /* bytes of s consumed (stripped into out) */
    size_t commit;         /* length of the stripped output (the view may be shorter) */
    size_t lt;             /* out: the last '<' ... */
    unsigned char lt_state;/* ... and how the bytes after it read (a tag being written?) */
    bool has_lt;
    bool eat_ws;           /* an opening tag ended the input: one white space to drop */
    bool verbatim;         /* copy, never clean (reasoning) */
    buf tail;              /* out[view end .. commit), cut from the view */
    buf lead;              /* white space cut from the start of the view */
} text_cleaner;

/* verbatim: the text is copied as it is (a reasoning block). */
void text_cleaner_init(text_cleaner *c, bool verbatim);
void text_cleaner_release(text_cleaner *c);

/* s[0..n) is the whole text so far (the bytes of earlier feeds unchanged: it only grows);
 * partial false: this is the last feed. out holds the previous feed's view (empty at the
 * first) and gets the new one; *changed_from gets the first offset at which it may differ
 * from the previous view (so out = previous[0..*changed_from) + the bytes after it).
 * Out of memory: out's sticky error is set. */
void text_cleaner_feed(text_cleaner *c, const char *s, size_t n, bool partial, buf *out,
                       size_t *changed_from);

/* The same, when the caller no longer holds the text's start: s holds the text from
 * position off on (off at most the bytes consumed so far, text_cleaner.in). The cleaner
 * never reads a byte it has consumed, so the text's owner may free them (the presenter
 * drops a block's start as it goes: parser_drop_text). */
void text_cleaner_feed_from(text_cleaner *c, const char *s, size_t off, size_t n, bool partial,
                            buf *out, size_t *changed_from);

#endif
