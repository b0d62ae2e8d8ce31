/* base64 — RFC 4648 encoding and strict decoding (see base64.h). */
#include "base/base64.h"

#include <stdint.h>
#include <stdlib.h>

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

char *base64_encode(const void *data, size_t n)
{
    if (n > (SIZE_MAX - 1) / 4 * 3 - 2)
        return NULL;
    const unsigned char *p = data;
    char *out = malloc(base64_encoded_len(n) + 1);
    if (!out)
        return NULL;
    char *o = out;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = ALPHABET[v >> 18];
        *o++ = ALPHABET[(v >> 12) & 63];
        *o++ = ALPHABET[(v >> 6) & 63];
        *o++ = ALPHABET[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *o++ = ALPHABET[v >> 18];
        *o++ = ALPHABET[(v >> 12) & 63];
        *o++ = i + 1 < n ? ALPHABET[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

static int value_of(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

unsigned char *base64_decode(const char *s, size_t n, size_t *out_len, bool *bad)
{
    *bad = false;
    *out_len = 0;
    if (n % 4) {
        *bad = true;
        return NULL;
    }
    size_t pad = 0;
    if (n && s[n - 1] == '=')
        pad = n >= 2 && s[n - 2] == '=' ? 2 : 1;
    unsigned char *out = malloc(n / 4 * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int v[4];
        for (int k = 0; k < 4; k++) {
            bool padded = last && k >= 4 - (int)pad;
            v[k] = padded ? 0 : value_of((unsigned char)s[i + (size_t)k]);
            if (v[k] < 0) {
                free(out);
                *bad = true;
                return NULL;
            }
        }
        uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (unsigned char)(x >> 16);
        if (!last || pad < 2)
            out[o++] = (unsigned char)(x >> 8);
        if (!last || pad < 1)
            out[o++] = (unsigned char)x;
    }
    *out_len = o;
    return out;
}
