/* hex — the value of one hexadecimal digit, for the decoders that read \uXXXX escapes
 * and %XX percent-encoding. Header-only: it is one comparison chain, inlined where it is
 * used. It never reads more than the one character it is given. */
#ifndef HEW_BASE_HEX_H
#define HEW_BASE_HEX_H

/* 0..15 for '0'-'9', 'a'-'f', 'A'-'F'; -1 for anything else. */
static inline int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
