/* tagset — a fixed set of tag names (tool names, parameter names) and the incremental
 * matcher that recognises `<name>` (and one extra fixed `</name>`) byte by byte, so that
 * a streaming parser can tell at every byte whether what it holds after a '<' may still
 * become a tag. It must never allocate while matching, never look at a byte twice, and
 * never accept a name that could make two tags overlap.
 *
 * Names: 1..TAGSET_NAME_MAX bytes, none of '<', '>', '/', ASCII space or control bytes.
 * This is what makes matching simple and exact: a tag can only begin at a '<', a '<' can
 * never be inside a half-matched tag, so when a candidate fails only the failing byte
 * itself may start a new one (no backtracking), and at most one name can end at a byte.
 *
 * Ownership: a tagset owns sorted, de-duplicated copies of the names; release it with
 * tagset_release (a zeroed or released tagset is empty and safe to release again). A tagm
 * borrows its tagset and fixed string, which must outlive it. */
#ifndef HEW_PARSE_TAGSET_H
#define HEW_PARSE_TAGSET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define TAGSET_NAME_MAX 64

typedef struct tagset {
    char **names;  /* sorted (bytewise), unique, NUL-terminated */
    size_t *lens;
    size_t n;
    size_t maxlen;
    unsigned short first_lo[256], first_hi[256]; /* range of names by first byte */
} tagset;

/* Copy names[0..n) into t. HEW_E_INVALID names the offending entry ("tool name 3 ...")
 * using what ("tool name", "parameter name"); HEW_E_NOMEM. On failure t is empty. */
hew_code tagset_init(tagset *t, const char *const *names, size_t n, const char *what,
                     hew_err *err);
void tagset_release(tagset *t);

/* True when name is a valid tag name (see above). */
bool tagset_valid_name(const char *name, size_t len);


/* ---- the matcher --------------------------------------------------------------------- */

enum tagm_result {
    TAGM_MORE,   /* still a possible tag: give the next byte */
    TAGM_SET,    /* `<name>` of the set recognised; tagm.match is its index */
    TAGM_FIXED,  /* `<fixed>` recognised (fixed is given without the brackets, e.g. "/path") */
    TAGM_FAIL    /* not a tag: tagm.buf[0..len) are ordinary bytes, and so is the byte
                    just given, which the caller must process again (it may be a '<') */
};

typedef struct tagm {
    const tagset *set;   /* may be NULL */
    const char *fixed;   /* may be NULL */
    size_t fixed_len;
    size_t lo, hi;       /* names of set still possible */
    bool fixed_alive;
    size_t len;          /* bytes held in buf, the '<' included; 0 = no candidate */
    size_t match;
    char buf[TAGSET_NAME_MAX + 4];
} tagm;

/* Start a candidate at a '<' (the caller has consumed it). */
void tagm_start(tagm *m, const tagset *set, const char *fixed, size_t fixed_len);

/* Give the next byte of a started candidate. After anything but TAGM_MORE the candidate
 * is over (len stays valid until the next start, for TAGM_FAIL flushing). */
enum tagm_result tagm_step(tagm *m, unsigned char c);

#endif
