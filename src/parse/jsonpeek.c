/* jsonpeek — tolerant streaming view of a top-level JSON object (see jsonpeek.h). */
#include "parse/jsonpeek.h"

#include <string.h>

#include "base/hex.h"
#include "base/utf8.h"

enum {
    JP_START,      /* before '{' */
    JP_KEY_OR_END, /* after '{': '"' or '}' */
    JP_KEY,        /* after ',': '"' */
    JP_STR,        /* inside a string (key or value) */
    JP_ESC,        /* after a backslash */
    JP_HEX,        /* inside \uXXXX */
    JP_COLON,
    JP_VALUE,
    JP_RAW,        /* inside a non-string value */
    JP_AFTER,      /* after a value: ',' or '}' */
    JP_DONE
};

void jsonpeek_init(jsonpeek *p, jsonpeek_sink sink, void *ud, size_t max_bytes)
{
    memset(p, 0, sizeof *p);
    p->sink = sink;
    p->ud = ud;
    buf_init(&p->key, 4096);
    buf_init(&p->raw, max_bytes);
}

void jsonpeek_release(jsonpeek *p)
{
    buf_release(&p->key);
    buf_release(&p->raw);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Decoded bytes of the string being read. */
static void str_out(jsonpeek *p, const char *s, size_t n)
{
    if (!p->in_value_str)
        buf_append(&p->key, s, n);
    else if (p->reporting)
        p->sink.bytes(p->ud, s, n);
}

static void put_cp(jsonpeek *p, uint32_t cp)
{
    char out[4];
    size_t k = cp ? utf8_encode(cp, out) : 0; /* \u0000 as U+FFFD, as native.c does */
    if (k == 0)
        str_out(p, UTF8_REPLACEMENT, 3);
    else
        str_out(p, out, k);
}

static void begin_value(jsonpeek *p, bool is_string)
{
    p->reporting = p->keys < JSONPEEK_MAX_KEYS && p->key.err == HEW_OK;
    p->keys++;
    if (p->reporting)
        p->sink.begin(p->ud, p->key.data ? p->key.data : "", p->key.len, is_string);
}

static void end_value(jsonpeek *p)
{
    if (p->reporting)
        p->sink.end(p->ud);
    p->reporting = false;
    p->st = JP_AFTER;
}

/* End of a non-string value: report its text. */
static void raw_end(jsonpeek *p)
{
    if (p->reporting && p->raw.err == HEW_OK)
        p->sink.bytes(p->ud, p->raw.data ? p->raw.data : "", p->raw.len);
    buf_reset(&p->raw);
    end_value(p);
}

/* One byte in JP_RAW. Returns true when the byte ends the value without belonging to it
 * (it must be read again in JP_AFTER). */
static bool raw_byte(jsonpeek *p, char c)
{
    if (p->raw_str) {
        buf_putc(&p->raw, c);
        if (p->raw_esc)
            p->raw_esc = false;
        else if (c == '\\')
            p->raw_esc = true;
        else if (c == '"')
            p->raw_str = false;
        return false;
    }
    if (is_space(c)) {
        if (p->depth == 0) {
            raw_end(p);
            return false;
        }
        return false;
    }
    if (c == '"') {
        p->raw_str = true;
        buf_putc(&p->raw, c);
        return false;
    }
    if (c == '{' || c == '[') {
        p->depth++;
        buf_putc(&p->raw, c);
        return false;
    }
    if (c == '}' || c == ']') {
        if (p->depth == 0) {
            raw_end(p);
            return true;
        }
        buf_putc(&p->raw, c);
        if (--p->depth == 0)
            raw_end(p);
        return false;
    }
    if (c == ',' && p->depth == 0) {
        raw_end(p);
        return true;
    }
    buf_putc(&p->raw, c);
    return false;
}

static void string_done(jsonpeek *p)
{
    if (p->hi_surrogate) {
        put_cp(p, 0xFFFD);
        p->hi_surrogate = 0;
    }
    if (p->in_value_str) {
        end_value(p);
    } else {
        p->st = JP_COLON;
    }
}

void jsonpeek_feed(jsonpeek *p, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && !p->dead) {
        char c = s[i];
        switch (p->st) {
        case JP_START:
            if (c == '{')
                p->st = JP_KEY_OR_END;
            else if (!is_space(c))
                p->dead = true;
            i++;
            break;
        case JP_KEY_OR_END:
        case JP_KEY:
            if (c == '"') {
                buf_reset(&p->key);
                p->in_value_str = false;
                p->st = JP_STR;
            } else if (c == '}' && p->st == JP_KEY_OR_END) {
                p->st = JP_DONE;
                p->done = true;
            } else if (!is_space(c)) {
                p->dead = true;
            }
            i++;
            break;
        case JP_STR: {
            /* A run of plain bytes at once. */
            size_t j = i;
            while (j < n && s[j] != '"' && s[j] != '\\')
                j++;
            if (j > i) {
                if (p->hi_surrogate) {
                    put_cp(p, 0xFFFD);
                    p->hi_surrogate = 0;
                }
                str_out(p, s + i, j - i);
            }
            i = j;
            if (i < n) {
                if (s[i] == '"')
                    string_done(p);
                else
                    p->st = JP_ESC;
                i++;
            }
            break;
        }
        case JP_ESC: {
            const char *out = NULL;
            switch (c) {
            case '"': out = "\""; break;
            case '\\': out = "\\"; break;
            case '/': out = "/"; break;
            case 'b': out = "\b"; break;
            case 'f': out = "\f"; break;
            case 'n': out = "\n"; break;
            case 'r': out = "\r"; break;
            case 't': out = "\t"; break;
            case 'u':
                p->st = JP_HEX;
                p->esc_hex = 0;
                p->esc_n = 0;
                break;
            default: p->dead = true; break;
            }
            if (out) {
                if (p->hi_surrogate) {
                    put_cp(p, 0xFFFD);
                    p->hi_surrogate = 0;
                }
                str_out(p, out, 1);
                p->st = JP_STR;
            }
            i++;
            break;
        }
        case JP_HEX: {
            int h = hex_digit(c);
            i++;
            if (h < 0) {
                p->dead = true;
                break;
            }
            p->esc_hex = p->esc_hex * 16 + (unsigned)h;
            if (++p->esc_n < 4)
                break;
            uint32_t cp = p->esc_hex;
            p->st = JP_STR;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (p->hi_surrogate)
                    put_cp(p, 0xFFFD);
                p->hi_surrogate = cp;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                if (p->hi_surrogate) {
                    put_cp(p, 0x10000 + ((p->hi_surrogate - 0xD800) << 10) + (cp - 0xDC00));
                    p->hi_surrogate = 0;
                } else {
                    put_cp(p, 0xFFFD);
                }
            } else {
                if (p->hi_surrogate) {
                    put_cp(p, 0xFFFD);
                    p->hi_surrogate = 0;
                }
                put_cp(p, cp);
            }
            break;
        }
        case JP_COLON:
            if (c == ':')
                p->st = JP_VALUE;
            else if (!is_space(c))
                p->dead = true;
            i++;
            break;
        case JP_VALUE:
            if (is_space(c)) {
                i++;
            } else if (c == '"') {
                begin_value(p, true);
                p->in_value_str = true;
                p->st = JP_STR;
                i++;
            } else if (c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9') ||
                       c == 't' || c == 'f' || c == 'n') {
                begin_value(p, false);
                buf_reset(&p->raw);
                p->depth = 0;
                p->raw_str = p->raw_esc = false;
                p->st = JP_RAW;
                /* the byte is read by JP_RAW */
            } else {
                p->dead = true;
            }
            break;
        case JP_RAW:
            if (!raw_byte(p, c))
                i++;
            break;
        case JP_AFTER:
            if (c == ',')
                p->st = JP_KEY;
            else if (c == '}') {
                p->st = JP_DONE;
                p->done = true;
            } else if (!is_space(c))
                p->dead = true;
            i++;
            break;
        case JP_DONE:
            if (!is_space(c))
                p->dead = true;
            i++;
            break;
        }
    }
}
