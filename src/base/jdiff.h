/* jdiff — the first difference between two JSON documents, canonically: objects compare
 * by their keys whatever their order, arrays by position, numbers by value (1 and 1.0 are
 * the same), strings byte for byte. What hew replay uses to say where the request hew
 * sent differs from the recorded one.
 *
 * The difference is named by a path ($, $.messages[2].content[0].text, $["a b"]) and the
 * two values at it, each shown as compact JSON cut to a readable size (a long string is
 * shown around its first differing byte, with that byte's offset). It must never
 * allocate without bound (the shown values are capped) nor report a difference between
 * two documents that mean the same JSON. */
#ifndef HEW_BASE_JDIFF_H
#define HEW_BASE_JDIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define JDIFF_PATH_MAX 512
#define JDIFF_SHOW_MAX 240

typedef struct jdiff {
    char path[JDIFF_PATH_MAX];  /* where: "$" is the whole document */
    char want[JDIFF_SHOW_MAX];  /* the value in the first document ("(missing)" when absent) */
    char got[JDIFF_SHOW_MAX];   /* the value in the second */
} jdiff;

/* true when want and got are the same JSON; else false with the first difference in *d
 * (keys in sorted order, so the same two documents always name the same place). */
bool jdiff_first(const json_t *want, const json_t *got, jdiff *d);

/* The same for two texts: each is parsed as JSON; a text that does not parse is compared
 * byte for byte with the other (path "$", shown around the first differing byte). */
bool jdiff_text(const char *want, size_t want_len, const char *got, size_t got_len, jdiff *d);

#endif
