/* textw — terminal display widths with utf8proc (see textw.h). Never writes to the
 * terminal and never allocates except through the sbuf it is given. */
#include "textw.h"

#include <utf8proc.h>

size_t textw_escape_len(const char *s, size_t n)
{
    if (n < 2)
        return n;
    size_t i = 2;
    if (s[1] == '[') { /* CSI: parameters, then a final byte 0x40..0x7e */
        while (i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
            i++;
        return i < n ? i + 1 : n;
    }
    if (s[1] == ']') { /* OSC: up to BEL or ESC \ */
        while (i < n && s[i] != '\a' && !(s[i] == '\033' && i + 1 < n && s[i + 1] == '\\'))
            i++;
        if (i < n && s[i] == '\a')
            return i + 1;
        return i + 2 <= n ? i + 2 : n;
    }
    return 2;
}

/* The code point at s[0..n), or -1 with *len 0 when there is none (not UTF-8 or empty). */
static utf8proc_int32_t peek(const char *s, size_t n, size_t *len)
{
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t l =
        n ? utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &cp) : 0;
    *len = l > 0 ? (size_t)l : 0;
    return l > 0 ? cp : -1;
}

static int is_regional(utf8proc_int32_t cp)
{
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

static int is_skin_tone(utf8proc_int32_t cp)
{
    return cp >= 0x1F3FB && cp <= 0x1F3FF;
}

/* One character as the terminal draws it: the code point with what joins it into one
 * picture (terminals draw "⚠" + VS16 as one emoji two columns wide, a ZWJ sequence and a
 * skin-tone modifier as one emoji, two regional indicators as one flag). */
size_t textw_char(const char *s, size_t n, int *cols)
{
    size_t len;
    utf8proc_int32_t cp = peek(s, n, &len);
    if (cp < 0) { /* not UTF-8: one byte, one column (shown as is by most terminals) */
        *cols = 1;
        return 1;
    }
    if (cp < 0x20 || cp == 0x7f) {
        *cols = 0;
        return len;
    }
    int w = utf8proc_charwidth(cp);
    if (w < 0)
        w = 0;
    if (w == 0) {
        *cols = 0;
        return len;
    }
    size_t nl;
    utf8proc_int32_t next = peek(s + len, n - len, &nl);
    if (is_regional(cp) && is_regional(next)) { /* a flag */
        *cols = 2;
        return len + nl;
    }
    for (;;) {
        if (next == 0xFE0F) { /* emoji presentation: two columns */
            w = 2;
        } else if (next == 0x200D) { /* joined to the next picture: no room of its own */
            size_t jl;
            utf8proc_int32_t joined = peek(s + len + nl, n - len - nl, &jl);
            if (joined < 0x80)
                break;
            nl += jl;
        } else if (!is_skin_tone(next) || w != 2) {
            break;
        }
        len += nl;
        next = peek(s + len, n - len, &nl);
    }
    *cols = w;
    return len;
}

size_t textw_width(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '\033') {
            i += textw_escape_len(s + i, n - i);
            continue;
        }
        if (s[i] == '\t') {
            w += 4;
            i++;
            continue;
        }
        int cols;
        i += textw_char(s + i, n - i, &cols);
        w += (size_t)cols;
    }
    return w;
}

size_t textw_wrap_hard(sbuf *out, const char *s, size_t n, size_t width)
{
    if (width < 1)
        width = 1;
    size_t rows = 1, col = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '\033') {
            size_t e = textw_escape_len(s + i, n - i);
            sbuf_add(out, s + i, e);
            i += e;
            continue;
        }
        if (c == '\n') {
            sbuf_puts(out, "\r\n");
            rows++;
            col = 0;
            i++;
            continue;
        }
        if (c == '\t') {
            size_t spaces = 4 - col % 4;
            for (size_t k = 0; k < spaces; k++) {
                if (col >= width) {
                    sbuf_puts(out, "\r\n");
                    rows++;
                    col = 0;
                }
                sbuf_putc(out, ' ');
                col++;
            }
            i++;
            continue;
        }
        if ((unsigned char)c < 0x20 || c == 0x7f) {
            i++;
            continue;
        }
        int cols;
        size_t len = textw_char(s + i, n - i, &cols);
        if (col + (size_t)cols > width && col > 0) {
            sbuf_puts(out, "\r\n");
            rows++;
            col = 0;
        }
        sbuf_add(out, s + i, len);
        col += (size_t)cols;
        i += len;
    }
    return rows;
}
