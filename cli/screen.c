/* screen — frames for the interactive terminal: committed lines plus a live region, built
 * in a buffer and written once (see screen.h). Never reads input, never runs in a signal
 * handler, never moves the cursor above the live region it drew. */
#include "screen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sbuf.h"
#include "textw.h"

struct screen {
    int fd;
    int color;
    size_t width, rows;
    sbuf committed;  /* waiting to be printed */
    sbuf live;       /* the live tail */
    char live_style[16];
    sbuf status;
    sbuf input;        /* the input row, ready to print ("" none) */
    size_t drawn_rows; /* rows the live region takes on the terminal now (0: none) */
    int dirty;
    int cursor_hidden;
    sbuf frame;
};

screen *screen_new(int fd, int color)
{
    screen *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = fd;
    s->color = color;
    screen_resize(s);
    return s;
}

void screen_free(screen *s)
{
    if (!s)
        return;
    sbuf_release(&s->committed);
    sbuf_release(&s->live);
    sbuf_release(&s->status);
    sbuf_release(&s->input);
    sbuf_release(&s->frame);
    free(s);
}

void screen_resize(screen *s)
{
    struct winsize ws;
    if (ioctl(s->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        s->width = ws.ws_col;
        s->rows = ws.ws_row ? ws.ws_row : 24;
    } else {
        s->width = 80;
        s->rows = 24;
    }
    s->dirty = 1;
}

size_t screen_width(const screen *s)
{
    return s->width;
}

size_t screen_rows(const screen *s)
{
    return s->rows;
}

int screen_color(const screen *s)
{
    return s->color;
}

/* Copy text, keeping newlines, printable characters and (with colour) SGR sequences. */
static void clean_into(sbuf *out, const char *t, size_t n, int color)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)t[i];
        if (c == 0x1b) {
            size_t e = textw_escape_len(t + i, n - i);
            if (color && e >= 3 && t[i + 1] == '[' && t[i + e - 1] == 'm')
                sbuf_add(out, t + i, e);
            i += e;
            continue;
        }
        if (c == '\n') {
            sbuf_puts(out, "\r\n");
        } else if (c == '\t') {
            sbuf_puts(out, "    ");
        } else if (c >= 0x20 && c != 0x7f) {
            sbuf_putc(out, (char)c);
        }
        i++;
    }
}

void screen_commit(screen *s, const char *text, size_t n)
{
    if (!n)
        return;
    clean_into(&s->committed, text, n, s->color);
    s->dirty = 1;
}

void screen_commitf(screen *s, const char *fmt, ...)
{
    sbuf line = SBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    char small[1024];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        sbuf_add(&line, small, (size_t)n);
    } else if (n >= 0) {
        char *big = malloc((size_t)n + 1);
        if (big) {
            va_start(ap, fmt);
            vsnprintf(big, (size_t)n + 1, fmt, ap);
            va_end(ap);
            sbuf_add(&line, big, (size_t)n);
            free(big);
        }
    }
    sbuf_putc(&line, '\n');
    if (!line.err)
        screen_commit(s, line.data, line.len);
    sbuf_release(&line);
}

void screen_set_live(screen *s, const char *text, size_t n, const char *style)
{
    if (n == s->live.len && (n == 0 || memcmp(s->live.data, text, n) == 0))
        return;
    sbuf_reset(&s->live);
    sbuf_add(&s->live, text, n);
    snprintf(s->live_style, sizeof s->live_style, "%s", style && s->color ? style : "");
    s->dirty = 1;
}

void screen_set_status(screen *s, const char *status)
{
    const char *st = status ? status : "";
    if (s->status.len == strlen(st) && (!s->status.len || strcmp(s->status.data, st) == 0))
        return;
    sbuf_reset(&s->status);
    sbuf_puts(&s->status, st);
    s->dirty = 1;
}

void screen_set_input(screen *s, const char *marker, const char *text, size_t n)
{
    sbuf row = SBUF_INIT;
    if (marker) {
        size_t width = s->width > 4 ? s->width - 2 : 2, mcols = textw_width(marker, strlen(marker));
        size_t room = width > mcols + 1 ? width - mcols - 1 : 1, cols = 0;
        sbuf shown = SBUF_INIT; /* the text with its newlines as ⏎, control bytes dropped */
        for (size_t i = 0; i < n; i++) {
            if (text[i] == '\n')
                sbuf_puts(&shown, "⏎ ");
            else if ((unsigned char)text[i] >= 0x20 && text[i] != 0x7f)
                sbuf_putc(&shown, text[i]);
        }
        const char *t = shown.data ? shown.data : "";
        size_t len = shown.len, from = 0;
        cols = textw_width(t, len);
        while (cols > room && from < len) { /* too wide: show its end */
            int w;
            size_t k = textw_char(t + from, len - from, &w);
            from += k ? k : 1;
            cols -= (size_t)w <= cols ? (size_t)w : cols;
        }
        clean_into(&row, marker, strlen(marker), s->color);
        if (from)
            sbuf_puts(&row, "…");
        clean_into(&row, t + from, len - from, 0);
        sbuf_puts(&row, s->color ? "\033[7m \033[0m" : "_"); /* where the next key goes */
        sbuf_release(&shown);
    }
    if (row.len != s->input.len || (row.len && memcmp(row.data, s->input.data, row.len) != 0)) {
        sbuf_reset(&s->input);
        sbuf_add(&s->input, row.data ? row.data : "", row.len);
        s->dirty = 1;
    }
    sbuf_release(&row);
}

size_t screen_live_max(const screen *s)
{
    size_t max = s->rows > 6 ? s->rows - 4 : 2;
    return max > 40 ? 40 : max;
}

size_t screen_live_rows(const screen *s, const char *text, size_t n)
{
    sbuf tmp = SBUF_INIT;
    size_t rows = textw_wrap_hard(&tmp, text, n, s->width > 1 ? s->width - 1 : 1);
    sbuf_release(&tmp);
    return rows;
}

/* Append the live region to the frame; returns the rows it takes. */
static size_t put_live(screen *s, sbuf *f)
{
    size_t rows = 0;
    size_t width = s->width > 1 ? s->width - 1 : 1;
    if (s->live.len) {
        sbuf wrapped = SBUF_INIT;
        size_t n = textw_wrap_hard(&wrapped, s->live.data, s->live.len, width);
        const char *start = wrapped.data ? wrapped.data : "";
        size_t max = screen_live_max(s);
        while (n > max) { /* show only the last rows */
            const char *nl = strstr(start, "\r\n");
            if (!nl)
                break;
            start = nl + 2;
            n--;
        }
        sbuf_puts(f, s->live_style);
        sbuf_puts(f, start);
        if (*s->live_style)
            sbuf_puts(f, "\033[0m");
        rows += n;
        sbuf_release(&wrapped);
    }
    if (s->status.len) {
        if (rows)
            sbuf_puts(f, "\r\n");
        sbuf wrapped = SBUF_INIT;
        /* the status line is one row: cut to the width */
        size_t cols = 0, i = 0;
        const char *t = s->status.data;
        while (i < s->status.len) {
            if (t[i] == '\033') {
                i += textw_escape_len(t + i, s->status.len - i);
                continue;
            }
            int w;
            size_t len = textw_char(t + i, s->status.len - i, &w);
            if (cols + (size_t)w > width)
                break;
            cols += (size_t)w;
            i += len;
        }
        clean_into(&wrapped, t, i, s->color);
        sbuf_add(f, wrapped.data ? wrapped.data : "", wrapped.len);
        if (s->color)
            sbuf_puts(f, "\033[0m");
        sbuf_release(&wrapped);
        rows++;
    }
    if (s->input.len) {
        if (rows)
            sbuf_puts(f, "\r\n");
        sbuf_add(f, s->input.data, s->input.len);
        rows++;
    }
    return rows;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Back to the top of the live region, and clear it. */
static void erase_live(screen *s, sbuf *f)
{
    if (!s->drawn_rows)
        return;
    sbuf_putc(f, '\r');
    if (s->drawn_rows > 1)
        sbuf_printf(f, "\033[%zuA", s->drawn_rows - 1);
    sbuf_puts(f, "\033[J");
    s->drawn_rows = 0;
}

void screen_draw(screen *s)
{
    if (!s->dirty)
        return;
    sbuf *f = &s->frame;
    sbuf_reset(f);
    if (!s->cursor_hidden) {
        sbuf_puts(f, "\033[?25l");
        s->cursor_hidden = 1;
    }
    erase_live(s, f);
    sbuf_add(f, s->committed.data ? s->committed.data : "", s->committed.len);
    sbuf_reset(&s->committed);
    s->drawn_rows = put_live(s, f);
    if (!f->err)
        write_all(s->fd, f->data, f->len);
    s->dirty = 0;
}

void screen_release(screen *s)
{
    sbuf *f = &s->frame;
    sbuf_reset(f);
    erase_live(s, f);
    sbuf_add(f, s->committed.data ? s->committed.data : "", s->committed.len);
    sbuf_reset(&s->committed);
    sbuf_reset(&s->live);
    sbuf_reset(&s->status);
    sbuf_reset(&s->input);
    if (s->cursor_hidden) {
        sbuf_puts(f, "\033[?25h");
        s->cursor_hidden = 0;
    }
    if (!f->err && f->len)
        write_all(s->fd, f->data, f->len);
    s->dirty = 0;
}
