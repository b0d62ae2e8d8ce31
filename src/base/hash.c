/* hash — SHA-256 through libmd (see hash.h). Never hashes more than it is given, never
 * allocates. Why libmd: it is already in the process (libedit needs libbsd, which needs
 * it), so hashing costs hew no extra library to load at start-up — nettle did (+0.3 ms
 * on `hew --version`, measured). */
#include "base/hash.h"

#include <string.h>

#include <sha2.h>

void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX + 1])
{
    static const char HEX[] = "0123456789abcdef";
    SHA2_CTX ctx;
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256Init(&ctx);
    if (len)
        SHA256Update(&ctx, data, len);
    SHA256Final(digest, &ctx);
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
