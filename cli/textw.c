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

size_t textw_char(const char *s, size_t n, int *cols)
{
    utf8proc_int32_t cp;
    utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &cp);
    if (len <= 0) { /* not UTF-8: one byte, one column (shown as is by most terminals) */
        *cols = 1;
        return 1;
    }
    if (cp < 0x20 || cp == 0x7f)
        *cols = 0;
    else
        *cols = utf8proc_charwidth(cp);
    if (*cols < 0)
        *cols = 0;
    return (size_t)len;
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
