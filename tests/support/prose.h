/* prose — filler text for benchmarks and tests: words of a caller's list, each followed by
 * a space, repeated up to a length. Deterministic; never reads the clock or randomness. */
#ifndef HEW_TEST_PROSE_H
#define HEW_TEST_PROSE_H

#include <stddef.h>

/* A new NUL-terminated string of exactly len bytes: words[0..nwords) in turn, each with a
 * space after it, the rest padded with 'x'. NULL when out of memory. */
char *prose_make(size_t len, const char *const *words, size_t nwords);

#endif
