/* help_view — /help's command rows, aligned by display width (help_view.h). */
#include "help_view.h"

#include <string.h>

#include "slashcmd.h"
#include "textw.h"

#define INDENT 2
#define GAP 2
#define MAX_LEFT 32 /* a wider row puts its help on the next line */

/* "/name, /alias ARGS" */
static void left_part(sbuf *b, const slashcmd *c)
{
    sbuf_printf(b, "/%s", c->name);
    if (c->alias)
        sbuf_printf(b, ", /%s", c->alias);
    if (c->args)
        sbuf_printf(b, " %s", c->args);
}

/* The help text at column col, wrapped at spaces to the width (0: not wrapped). */
static void help_text(sbuf *out, const char *h, size_t col, size_t width)
{
    size_t room = width > col + 20 ? width - col : 0, used = 0;
    while (*h) {
        size_t n = strcspn(h, " ");
        size_t w = textw_width(h, n);
        if (room && used && used + 1 + w > room) {
            sbuf_putc(out, '\n');
            sbuf_repeat(out, " ", col);
            used = 0;
        } else if (used) {
            sbuf_putc(out, ' ');
            used++;
        }
        sbuf_add(out, h, n);
        used += w;
        h += n;
        while (*h == ' ')
            h++;
    }
    sbuf_putc(out, '\n');
}

void help_view_commands(sbuf *out, size_t width)
{
    size_t n = 0;
    const slashcmd *t = slashcmd_table(&n);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        sbuf l = SBUF_INIT;
        left_part(&l, &t[i]);
        size_t w = textw_width(l.data ? l.data : "", l.len);
        if (w <= MAX_LEFT && w > left)
            left = w;
        sbuf_release(&l);
    }
    size_t col = INDENT + left + GAP;
    for (size_t i = 0; i < n; i++) {
        sbuf l = SBUF_INIT;
        left_part(&l, &t[i]);
        size_t w = textw_width(l.data ? l.data : "", l.len);
        sbuf_repeat(out, " ", INDENT);
        sbuf_add(out, l.data ? l.data : "", l.len);
        if (w > left) { /* too wide: the help goes under, in the column */
            sbuf_putc(out, '\n');
            sbuf_repeat(out, " ", col);
        } else {
            sbuf_repeat(out, " ", col - INDENT - w);
        }
        sbuf_release(&l);
        help_text(out, t[i].help, col, width);
    }
}
