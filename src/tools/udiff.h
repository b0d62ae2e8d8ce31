/* udiff — a unified diff of two texts, for showing an edit to the user before approval
 * (the "diff" of a "tool" message; the front end colours it). Pure: no I/O. A shortest
 * line diff (Myers, as git's default algorithm: on files where that is unambiguous the
 * hunks are git diff's), in memory linear in the texts and time about linear for the
 * usual few edits; when two texts share many lines in a different order, the search is
 * cut at a cost bound (xdiff's) and the diff may be longer than shortest, never wrong.
 *
 * Output: hunks only, no ---/+++ header (as Cline's createPrettyPatch shows them):
 *   @@ -a,b +c,d @@
 *    context line
 *   -removed line
 *   +added line
 * with three lines of context, hunks closer than that merged, and "\ No newline at end
 * of file" after a last line without one. Identical texts give an empty diff. Lines end
 * at '\n'; a '\r' before it stays part of the line. */
#ifndef HEW_TOOLS_UDIFF_H
#define HEW_TOOLS_UDIFF_H

#include <stddef.h>

#include "base/buf.h"

/* Append the diff from a[0..alen) to b[0..blen) to out (out's cap and sticky error
 * apply). */
void udiff_make(const char *a, size_t alen, const char *b, size_t blen, buf *out);

#endif
