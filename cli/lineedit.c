/* lineedit — libedit with a history file, multi-line messages and bracketed paste (see
 * lineedit.h). Characters come through our own reader (EL_GETCFN) so that a Ctrl-C, a
 * resize or a paste is seen at once; it never installs signal handlers of its own. */
#include "lineedit.h"

#include <errno.h>
#include <histedit.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "sbuf.h"
#include "sigflags.h"
#include "termsafe.h"

#define PASTE_MAX ((size_t)8 << 20)
#define PASTES_MAX 64
#define CANDIDATES_MAX 64

struct lined {
    EditLine *el;
    History *hist;
    char *history_path;
    int fd;
    const char *prompt;
    int why;
    unsigned char pb[16];     /* bytes read ahead and given back */
    size_t npb;
    sbuf inject;              /* characters to hand to libedit before reading more */
    size_t inject_pos;
    char *pastes[PASTES_MAX]; /* the multi-line pastes of the message being edited */
    size_t npastes;
    FILE *out;
    int has_text;               /* lines of the message already taken (continued) */
    lined_complete_fn complete; /* Tab's completer, or NULL */
    void *complete_arg;
};

static char *prompt_fn(EditLine *el)
{
    lined *l = NULL;
    el_get(el, EL_CLIENTDATA, &l);
    return (char *)(l && l->prompt ? l->prompt : "> ");
}

/* One byte from the terminal (or the read-ahead): 1, 0 at end of input, -1 when a signal
 * flag or an error ends the wait. timeout_ms < 0: wait forever. -2: the timeout passed. */
static int get_byte(lined *l, unsigned char *c, int timeout_ms)
{
    if (l->npb) {
        *c = l->pb[0];
        memmove(l->pb, l->pb + 1, --l->npb);
        return 1;
    }
    for (;;) {
        if (sigflags_peek(SIGF_INT)) {
            const LineInfo *li = el_line(l->el);
            int text = l->has_text || l->inject_pos < l->inject.len ||
                       (li && li->lastchar > li->buffer);
            l->why = text ? LINED_CLEARED : LINED_INTERRUPT;
            return -1;
        }
        if (sigflags_peek(SIGF_QUIT)) {
            l->why = LINED_QUIT;
            return -1;
        }
        if (sigflags_take(SIGF_WINCH))
            el_resize(l->el);
        struct pollfd p = { .fd = l->fd, .events = POLLIN };
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return -2;
        if (r < 0) {
            l->why = LINED_ERROR;
            return -1;
        }
        ssize_t n = read(l->fd, c, 1);
        if (n == 1)
            return 1;
        if (n == 0) {
            l->why = LINED_EOF;
            return 0;
        }
        if (errno == EINTR || errno == EAGAIN)
            continue;
        l->why = LINED_ERROR;
        return -1;
    }
}

static void unget(lined *l, const unsigned char *s, size_t n)
{
    if (n + l->npb > sizeof l->pb)
        n = sizeof l->pb - l->npb;
    memmove(l->pb + n, l->pb, l->npb);
    memcpy(l->pb, s, n);
    l->npb += n;
}

/* Decode one UTF-8 character from s[0..n); *len gets its length (1 for a bad byte). */
static wchar_t decode(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0];
    size_t need = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!need || need > n) {
        *len = 1;
        return 0xFFFD;
    }
    unsigned cp = need == 1 ? c : c & (0x7F >> need);
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *len = need;
    return (wchar_t)cp;
}

/* The rest of a bracketed paste (after ESC [ 200 ~), up to ESC [ 201 ~. */
static int read_paste(lined *l, sbuf *paste)
{
    static const char end[] = "\033[201~";
    size_t matched = 0;
    for (;;) {
        unsigned char c;
        int r = get_byte(l, &c, -1);
        if (r <= 0)
            return -1;
        if ((char)c == end[matched]) {
            if (++matched == sizeof end - 1)
                return 0;
            continue;
        }
        if (matched) {
            sbuf_add(paste, end, matched);
            matched = (char)c == end[0] ? 1 : 0;
            if (matched)
                continue;
        }
        if (paste->len < PASTE_MAX)
            sbuf_putc(paste, c == '\r' ? '\n' : (char)c);
    }
}

/* A pasted block: one line goes in as typed; more become a placeholder. */
static void take_paste(lined *l, sbuf *paste)
{
    while (paste->len && paste->data[paste->len - 1] == '\n')
        paste->data[--paste->len] = '\0';
    if (!paste->len || paste->err)
        return;
    sbuf_reset(&l->inject);
    l->inject_pos = 0;
    if (!memchr(paste->data, '\n', paste->len) || l->npastes == PASTES_MAX) {
        for (size_t i = 0; i < paste->len; i++) /* a tab would be Tab: completion */
            sbuf_putc(&l->inject, paste->data[i] == '\n' || paste->data[i] == '\t'
                                      ? ' '
                                      : paste->data[i]);
        return;
    }
    size_t lines = 1;
    for (size_t i = 0; i < paste->len; i++)
        lines += paste->data[i] == '\n';
    l->pastes[l->npastes++] = sbuf_detach(paste);
    sbuf_printf(&l->inject, "[paste #%zu: %zu lines]", l->npastes, lines);
}

static int getc_fn(EditLine *el, wchar_t *wc)
{
    lined *l = NULL;
    el_get(el, EL_CLIENTDATA, &l);
    for (;;) {
        if (l->inject_pos < l->inject.len) {
            size_t len;
            *wc = decode((const unsigned char *)l->inject.data + l->inject_pos,
                         l->inject.len - l->inject_pos, &len);
            l->inject_pos += len;
            return 1;
        }
        unsigned char c;
        int r = get_byte(l, &c, -1);
        if (r <= 0)
            return r == 0 ? 0 : -1;
        if (c == 0x1b) {
            /* bracketed paste starts with ESC [ 2 0 0 ~ */
            static const char start[] = "[200~";
            unsigned char seen[8];
            size_t k = 0;
            while (k < sizeof start - 1) {
                if (get_byte(l, &seen[k], 30) != 1)
                    break;
                if ((char)seen[k] != start[k]) {
                    k++;
                    break;
                }
                k++;
            }
            if (k == 1 && (seen[0] == '\r' || seen[0] == '\n')) {
                /* Alt-Enter: a backslash and Enter, the line continues (EL_BIND -s would
                 * do the same, but libedit never frees a bound string) */
                sbuf_reset(&l->inject);
                l->inject_pos = 0;
                sbuf_putc(&l->inject, '\n');
                *wc = '\\';
                return 1;
            }
            if (k == sizeof start - 1 && memcmp(seen, start, k) == 0) {
                sbuf paste = SBUF_INIT;
                if (read_paste(l, &paste) != 0) {
                    sbuf_release(&paste);
                    return -1;
                }
                take_paste(l, &paste);
                sbuf_release(&paste);
                continue;
            }
            unget(l, seen, k);
            *wc = 0x1b;
            return 1;
        }
        unsigned char s[4] = { c };
        size_t need = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        size_t have = 1;
        while (have < need && get_byte(l, &s[have], 50) == 1)
            have++;
        size_t len;
        *wc = decode(s, have, &len);
        if (len < have)
            unget(l, s + len, have - len);
        return 1;
    }
}

/* Tab: ask the completer, then write the candidate in, grow the text to what the
 * candidates share, or list them (see lineedit.h). */
static unsigned char complete_fn(EditLine *el, int ch)
{
    (void)ch;
    lined *l = NULL;
    el_get(el, EL_CLIENTDATA, &l);
    const LineInfo *li = el_line(el);
    if (!l || !l->complete || !li)
        return CC_ERROR;
    size_t len = (size_t)(li->cursor - li->buffer), start = 0;
    const char *cand[CANDIDATES_MAX];
    size_t n = l->complete(l->complete_arg, li->buffer, len, &start, cand, CANDIDATES_MAX);
    if (n > CANDIDATES_MAX)
        n = CANDIDATES_MAX;
    if (n == 0 || start > len)
        return CC_REFRESH_BEEP;
    size_t have = len - start; /* what the text already holds of the word */
    size_t common = strlen(cand[0]);
    for (size_t i = 1; i < n; i++) {
        size_t k = 0;
        while (k < common && cand[i][k] == cand[0][k])
            k++;
        common = k;
    }
    if (common < have || strncmp(cand[0], li->buffer + start, have) != 0)
        return CC_REFRESH_BEEP; /* the completer gave words that do not extend the text */
    if (common > have || n == 1) {
        char word[256];
        size_t k = common - have;
        if (k >= sizeof word - 1)
            return CC_REFRESH_BEEP;
        memcpy(word, cand[0] + have, k);
        if (n == 1 && (k == 0 || word[k - 1] != '/') && cand[0][common - 1] != '/')
            word[k++] = ' '; /* a directory goes on: no blank after it */
        word[k] = '\0';
        return el_insertstr(el, word) == 0 ? CC_REFRESH : CC_ERROR;
    }
    fputs("\r\n", l->out);
    for (size_t i = 0; i < n; i++) {
        char *safe = termsafe_dup(cand[i], 1); /* the completer's candidates come from disk */
        fprintf(l->out, "%.*s%s%s", (int)start, li->buffer, safe ? safe : "",
                i + 1 < n ? "  " : "\r\n");
        free(safe);
    }
    fflush(l->out);
    return CC_REDISPLAY;
}

void lined_set_complete(lined *l, lined_complete_fn fn, void *arg)
{
    l->complete = fn;
    l->complete_arg = arg;
    if (fn) {
        /* the wide calls: el_set's EL_ADDFN copies the name and help and never frees them */
        el_wset(l->el, EL_ADDFN, L"hew-complete", L"complete the word before the cursor",
                complete_fn);
        el_wset(l->el, EL_BIND, L"^I", L"hew-complete", NULL);
    }
}

static int mkdirs(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0700);
            *s = '/';
        }
    }
    free(p);
    return 0;
}

lined *lined_new(FILE *in, FILE *out, const char *history_path)
{
    lined *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->fd = fileno(in);
    l->out = out;
    l->el = el_init("hew", in, out, stderr);
    if (!l->el) {
        free(l);
        return NULL;
    }
    el_set(l->el, EL_CLIENTDATA, l);
    el_set(l->el, EL_EDITOR, "emacs");
    el_set(l->el, EL_PROMPT_ESC, prompt_fn, '\1');
    el_set(l->el, EL_GETCFN, getc_fn);
    l->hist = history_init();
    if (l->hist) {
        HistEvent ev;
        history(l->hist, &ev, H_SETSIZE, 1000);
        history(l->hist, &ev, H_SETUNIQUE, 1);
        el_set(l->el, EL_HIST, history, l->hist);
        if (history_path) {
            l->history_path = strdup(history_path);
            history(l->hist, &ev, H_LOAD, history_path);
        }
    }
    return l;
}

void lined_free(lined *l)
{
    if (!l)
        return;
    if (l->hist)
        history_end(l->hist);
    el_end(l->el);
    for (size_t i = 0; i < l->npastes; i++)
        free(l->pastes[i]);
    sbuf_release(&l->inject);
    free(l->history_path);
    free(l);
}

void lined_remember(lined *l, const char *text)
{
    if (!l->hist || !text || !*text)
        return;
    HistEvent ev;
    history(l->hist, &ev, H_ENTER, text);
    if (l->history_path) {
        mkdirs(l->history_path);
        mode_t old = umask(077);
        history(l->hist, &ev, H_SAVE, l->history_path);
        umask(old);
    }
}

/* Put the pasted blocks back in place of their placeholders. */
static char *expand_pastes(lined *l, const char *text)
{
    sbuf out = SBUF_INIT;
    const char *p = text;
    while (*p) {
        const char *open = strstr(p, "[paste #");
        if (!open) {
            sbuf_puts(&out, p);
            break;
        }
        sbuf_add(&out, p, (size_t)(open - p));
        char *end = NULL;
        unsigned long k = strtoul(open + 8, &end, 10);
        const char *close = end ? strchr(end, ']') : NULL;
        if (k >= 1 && k <= l->npastes && end && *end == ':' && close) {
            sbuf_puts(&out, l->pastes[k - 1]);
            p = close + 1;
        } else {
            sbuf_add(&out, open, 1);
            p = open + 1;
        }
    }
    return sbuf_detach(&out);
}

char *lined_read(lined *l, const char *prompt, int multiline, const char *initial, int *why)
{
    sbuf msg = SBUF_INIT;
    int lines = 0;
    static const char more_prompt[] = "\1\033[2m\1… \1\033[0m\1";
    *why = LINED_OK;
    sbuf_reset(&l->inject);
    l->inject_pos = 0;
    if (initial && *initial) { /* in the line as a paste would be */
        sbuf pre = SBUF_INIT;
        sbuf_puts(&pre, initial);
        take_paste(l, &pre);
        sbuf_release(&pre);
    }
    fputs("\033[?2004h", stdout); /* bracketed paste on while we read */
    fflush(stdout);
    for (;;) {
        l->prompt = lines ? more_prompt : prompt;
        l->why = LINED_OK;
        l->has_text = lines > 0;
        int count = 0;
        const char *line = el_gets(l->el, &count);
        if (!line) {
            *why = l->why != LINED_OK ? l->why : count < 0 ? LINED_ERROR : LINED_EOF;
            if (*why == LINED_EOF && lines) { /* Ctrl-D on a continuation line: send */
                *why = LINED_OK;
                break;
            }
            if (*why == LINED_CLEARED)
                sigflags_take(SIGF_INT);
            sbuf_reset(&l->inject);
            l->inject_pos = 0;
            for (size_t i = 0; i < l->npastes; i++)
                free(l->pastes[i]);
            l->npastes = 0;
            sbuf_release(&msg);
            fputs("\033[?2004l", stdout);
            fflush(stdout);
            return NULL;
        }
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n')
            n--;
        int cont = 0;
        if (multiline && n && line[n - 1] == '\\') {
            n--;
            cont = 1;
        }
        if (lines)
            sbuf_putc(&msg, '\n');
        sbuf_add(&msg, line, n);
        lines++;
        if (!cont || !multiline)
            break;
    }
    fputs("\033[?2004l", stdout);
    fflush(stdout);
    char *raw = sbuf_detach(&msg);
    char *text = raw && l->npastes ? expand_pastes(l, raw) : NULL;
    for (size_t i = 0; i < l->npastes; i++)
        free(l->pastes[i]);
    l->npastes = 0;
    if (text) {
        free(raw);
        return text;
    }
    return raw;
}
