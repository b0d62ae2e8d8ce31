/* hash — SHA-256 through nettle (see hash.h). Never hashes more than it is given, never
 * allocates. */
#include "base/hash.h"

#include <string.h>

#include <nettle/sha2.h>

void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX + 1])
{
    static const char HEX[] = "0123456789abcdef";
    struct sha256_ctx ctx;
    unsigned char digest[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    if (len)
        sha256_update(&ctx, len, data);
    sha256_digest(&ctx, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++) {
        out[2 * i] = HEX[digest[i] >> 4];
        out[2 * i + 1] = HEX[digest[i] & 15];
    }
    out[HASH_SHA256_HEX] = '\0';
}

bool hash_sha256_hex_ok(const char *s)
{
    return s && strlen(s) == HASH_SHA256_HEX &&
           strspn(s, "0123456789abcdef") == HASH_SHA256_HEX;
}
