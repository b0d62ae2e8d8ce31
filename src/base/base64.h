/* base64 — the standard alphabet of RFC 4648 with '=' padding, as the providers' image
 * blocks carry it. Encoding never fails but for memory; decoding is strict (the alphabet,
 * padding only at the end, a length that is a multiple of four, no whitespace), as the
 * APIs are. Nothing here does I/O. */
#ifndef HEW_BASE_BASE64_H
#define HEW_BASE_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* The length of the encoding of n bytes (without the NUL). */
size_t base64_encoded_len(size_t n);

/* The encoding of data[0..n), a new NUL-terminated string the caller frees; NULL when out
 * of memory. */
char *base64_encode(const void *data, size_t n);

/* Decode s[0..n): a new buffer the caller frees, its length in *out_len. NULL when s is
 * not strict base64 (*bad set true) or when out of memory (*bad false). */
unsigned char *base64_decode(const char *s, size_t n, size_t *out_len, bool *bad);

#endif
