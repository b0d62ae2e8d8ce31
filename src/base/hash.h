/* hash — content digests: the SHA-256 of a byte string as 64 lowercase hex digits (libmd).
 * For the identity of file contents (a workspace's trusted files); never used to store or
 * compare secrets. It reads only the bytes it is given and allocates nothing. */
#ifndef HEW_BASE_HASH_H
#define HEW_BASE_HASH_H

#include <stdbool.h>
#include <stddef.h>

#define HASH_SHA256_HEX 64 /* hex digits; buffers hold one more for the NUL */

/* out (HASH_SHA256_HEX + 1 bytes) receives the hex digest of data[0..len). data may be
 * NULL when len is 0. */
void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX + 1]);

/* True when s is exactly 64 lowercase hex digits (a digest hash_sha256_hex could make). */
bool hash_sha256_hex_ok(const char *s);

#endif
