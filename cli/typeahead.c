/* typeahead — the line typed while a task runs, edited key by key (see typeahead.h). */
#include "typeahead.h"

#include <stdlib.h>
#include <string.h>

enum { S_TEXT, S_ESC, S_CSI, S_SS3, S_PASTE };

static const char PASTE_END[] = "\033[201~";

void typeahead_init(typeahead *t)
{
    memset(t, 0, sizeof *t);
}

void typeahead_release(typeahead *t)
{
    sbuf_release(&t->text);
    typeahead_init(t);
}

/* Drop the last character (a whole UTF-8 sequence). */
static void backspace(typeahead *t)
{
    size_t n = t->text.len;
    while (n > 0 && ((unsigned char)t->text.data[n - 1] & 0xC0) == 0x80)
        n--;
    if (n > 0)
        n--;
    t->text.len = n;
    if (t->text.data)
        t->text.data[n] = '\0';
}

/* Ctrl-W: the blanks before the cursor, then the word before them. */
static void kill_word(typeahead *t)
{
    size_t n = t->text.len;
    while (n > 0 && (t->text.data[n - 1] == ' ' || t->text.data[n - 1] == '\n'))
        n--;
    while (n > 0 && t->text.data[n - 1] != ' ' && t->text.data[n - 1] != '\n')
        n--;
    t->text.len = n;
    if (t->text.data)
        t->text.data[n] = '\0';
}

static void add(typeahead *t, char c)
{
    if (t->text.len < TYPEAHEAD_PASTE_MAX)
        sbuf_putc(&t->text, c);
}

/* One byte of a bracketed paste: kept (CR as LF, tabs as they are, other controls
 * dropped) until the end marker. */
static void paste_byte(typeahead *t, unsigned char c)
{
    if ((char)c == PASTE_END[t->pmatch]) {
        if (++t->pmatch == sizeof PASTE_END - 1) {
            t->pmatch = 0;
            t->state = S_TEXT;
        }
        return;
    }
    if (t->pmatch) { /* a false start of the marker: its bytes were text (ESC dropped) */
        for (size_t i = 1; i < t->pmatch; i++)
            add(t, PASTE_END[i]);
        t->pmatch = (char)c == PASTE_END[0] ? 1 : 0;
        if (t->pmatch)
            return;
    }
    if (c == '\r')
        c = '\n';
    if (c >= 0x20 || c == '\n' || c == '\t')
        add(t, (char)c);
}

int typeahead_feed(typeahead *t, const char *s, size_t n, size_t *used)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (t->state) {
        case S_PASTE:
            paste_byte(t, c);
            continue;
        case S_ESC:
            if (c == '[') {
                t->state = S_CSI;
                t->nseq = 0;
            } else if (c == 'O') {
                t->state = S_SS3;
            } else if (c == '\r' || c == '\n') { /* Alt-Enter: a newline in the text */
                t->state = S_TEXT;
                add(t, '\n');
            } else if (c == 0x1b) { /* Esc, then another ESC: the first was the key */
                *used = i; /* this ESC is read again, as a new start */
                t->state = S_TEXT;
                return TA_STOP;
            } else {
                t->state = S_TEXT; /* Alt-key: dropped */
            }
            continue;
        case S_SS3:
            t->state = S_TEXT; /* ESC O x: a function key */
            continue;
        case S_CSI:
            if (t->nseq < sizeof t->seq - 1)
                t->seq[t->nseq++] = (char)c;
            if (c >= 0x40 && c <= 0x7e) { /* the final byte */
                t->seq[t->nseq] = '\0';
                t->state = strcmp(t->seq, "200~") == 0 ? S_PASTE : S_TEXT;
                t->pmatch = 0;
            }
            continue;
        default:
            break;
        }
        if (c == 0x1b) {
            t->state = S_ESC;
        } else if (c == '\r' || c == '\n') {
            if (t->text.len) {
                *used = i + 1;
                return TA_SUBMIT;
            }
        } else if (c == 0x7f || c == 0x08) {
            backspace(t);
        } else if (c == 0x15) {
            t->text.len = 0;
            if (t->text.data)
                t->text.data[0] = '\0';
        } else if (c == 0x17) {
            kill_word(t);
        } else if (c == 0x03) {
            *used = i + 1;
            return TA_STOP;
        } else if (c >= 0x20) {
            add(t, (char)c);
        }
    }
    *used = n;
    return TA_NONE;
}

int typeahead_esc_pending(const typeahead *t)
{
    return t->state == S_ESC;
}

int typeahead_timeout(typeahead *t)
{
    if (t->state != S_ESC)
        return TA_NONE;
    t->state = S_TEXT;
    return TA_STOP;
}

const char *typeahead_text(const typeahead *t, size_t *len)
{
    *len = t->text.len;
    return t->text.data ? t->text.data : "";
}

char *typeahead_take(typeahead *t)
{
    if (!t->text.len)
        return NULL;
    char *s = sbuf_detach(&t->text);
    return s;
}
