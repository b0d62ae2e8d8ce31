/* shparse — the push parser of sh command lines (see shparse.h). A stack of frames, one
 * per open substitution, each with its own lexer state and the simple command it is
 * building; a byte goes through the backslash filter of every open backtick frame and
 * then to the innermost frame's lexer. It must never execute, expand or look anything
 * up, never read past what it was fed, and never keep more than its caps. */
#include "tools/shparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/* Lexer states. L_ESC, L_DOLLAR, L_PARAM, L_BRACE, L_DPAREN and L_ARITH return to
 * frame.ret (L_WORD, or L_DQ inside double quotes) when done. */
enum lstate {
    L_BLANK,     /* between words */
    L_WORD,      /* in an unquoted part of a word */
    L_ESC,       /* after an unquoted backslash */
    L_SQ,        /* in '…' */
    L_DQ,        /* in "…" */
    L_DQ_ESC,    /* after a backslash in "…" */
    L_ANSI,      /* in $'…' */
    L_ANSI_ESC,  /* after a backslash in $'…' */
    L_ANSI_NUM,  /* \xHH, \NNN, \uHHHH, \UHHHHHHHH in $'…' */
    L_ANSI_CTRL, /* \cX in $'…' */
    L_DOLLAR,    /* after $ */
    L_PARAM,     /* $name */
    L_BRACE,     /* ${…} */
    L_DPAREN,    /* after $( : a command substitution or $(( */
    L_ARITH,     /* $((…)) */
    L_COMMENT,   /* # … up to the newline */
    L_OP,        /* an operator being read */
    L_HEREDOC,   /* the lines of a here-document body */
};

enum fkind { F_TOP, F_CMDSUB, F_BACKTICK, F_PROCIN, F_PROCOUT };
static const char *const fkind_context[] = { NULL, "$(…)", "`…`", "<(…)", ">(…)" };

/* Pending redirections beyond sh_redir_op: `>&` and `<&` decide on their target. */
enum { R_DUPOUT = 100, R_DUPIN = 101 };

typedef struct wbuild {
    bool open;
    buf text;
    unsigned flags;
    bool name_ok;    /* only unquoted name characters so far: may become NAME=… */
    int assign;
    bool lbrace, brace_sep;
    char prev;       /* the last character appended, 0 after an expansion */
    bool prev_plain; /* ... and it was unquoted */
} wbuild;

typedef struct cmdb {
    sh_word *words;
    size_t nwords, wcap;
    sh_redir *redirs;
    size_t nredirs, rcap;
} cmdb;

typedef struct heredoc {
    char *delim;
    bool quoted, strip;
} heredoc;

typedef struct frame {
    enum fkind kind;
    enum lstate st, ret;
    wbuild w;
    cmdb c;
    int redir;        /* a redirection waiting for its target, or -1 */
    int redir_fd;
    int fd_pending;   /* an IO number read before an operator, or -1 */
    int paren;        /* open subshells */
    char op[4];
    size_t oplen;
    /* $'…' escapes */
    int esc_base, esc_max, esc_n;
    uint32_t esc_val;
    bool esc_utf8, ansi_nul;
    buf exp;          /* the name, ${…} or $((…)) being read */
    int arith_depth;
    bool arith_close;
    bool bt_esc;      /* backtick frame: a backslash waits for the next byte */
    bool bt_dq;       /* ... opened inside double quotes: \" loses its backslash too */
    buf raw;          /* every byte fed while this frame was open (for the parent's word) */
    heredoc *hd;
    size_t nhd, hdcap, hdi;
    buf hdline;
    bool hd_flagged;
} frame;

typedef struct qev {
    sh_event_kind kind;
    const char *context;
    const char *problem;
    cmdb c;
} qev;

struct shparse {
    unsigned flags;
    frame fr[SHPARSE_MAX_DEPTH];
    size_t depth;
    qev *q;
    size_t qhead, qlen, qcap;
    qev cur;
    bool has_cur;
    size_t fed;
    bool ended, broken;
};

#define WORD_MAX (SHPARSE_MAX_INPUT * 2)

/* ---- small helpers ------------------------------------------------------------------ */

static void cmdb_release(cmdb *c)
{
    for (size_t i = 0; i < c->nwords; i++)
        free((char *)c->words[i].text);
    for (size_t i = 0; i < c->nredirs; i++)
        free((char *)c->redirs[i].target.text);
    free(c->words);
    free(c->redirs);
    memset(c, 0, sizeof *c);
}

static void frame_init(frame *f, enum fkind kind)
{
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->st = L_BLANK;
    f->ret = L_WORD;
    f->redir = -1;
    f->fd_pending = -1;
    buf_init(&f->w.text, WORD_MAX);
    buf_init(&f->exp, SHPARSE_MAX_INPUT);
    buf_init(&f->raw, SHPARSE_MAX_INPUT);
    buf_init(&f->hdline, SHPARSE_MAX_INPUT);
}

static void frame_release(frame *f)
{
    buf_release(&f->w.text);
    buf_release(&f->exp);
    buf_release(&f->raw);
    buf_release(&f->hdline);
    cmdb_release(&f->c);
    for (size_t i = 0; i < f->nhd; i++)
        free(f->hd[i].delim);
    free(f->hd);
    f->hd = NULL;
    f->nhd = f->hdcap = f->hdi = 0;
}

static bool queue_push(shparse *p, const qev *e)
{
    if (p->qhead + p->qlen == p->qcap) {
        if (p->qhead) {
            memmove(p->q, p->q + p->qhead, p->qlen * sizeof *p->q);
            p->qhead = 0;
        } else {
            size_t cap = p->qcap ? p->qcap * 2 : 8;
            qev *q = realloc(p->q, cap * sizeof *q);
            if (!q)
                return false;
            p->q = q;
            p->qcap = cap;
        }
    }
    p->q[p->qhead + p->qlen++] = *e;
    return true;
}

static void problem(shparse *p, const frame *f, const char *what)
{
    qev e = { SH_EV_PROBLEM, fkind_context[f->kind], what, { 0 } };
    if (!queue_push(p, &e))
        p->broken = true;
}

/* ---- words ------------------------------------------------------------------------ */

static void word_open(frame *f)
{
    wbuild *w = &f->w;
    if (w->open)
        return;
    w->open = true;
    buf_reset(&w->text);
    w->flags = 0;
    w->name_ok = true;
    w->assign = -1;
    w->lbrace = w->brace_sep = false;
    w->prev = 0;
    w->prev_plain = false;
}

static bool is_name_char(char c, bool first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

/* Append a character of the value; quoted: it came from quotes or an escape. */
static void wput(frame *f, char c, bool quoted)
{
    wbuild *w = &f->w;
    word_open(f);
    bool first = w->text.len == 0;
    if (quoted) {
        w->flags |= SHW_QUOTED;
    } else {
        if (c == '*' || c == '?' || c == '[') {
            w->flags |= SHW_GLOB;
            if (first)
                w->flags |= SHW_LEAD;
        }
        if (c == '~' && (first || (w->prev_plain && (w->prev == '=' || w->prev == ':'))))
            w->flags |= SHW_TILDE;
        if (c == '{')
            w->lbrace = true;
        else if (w->lbrace && (c == ',' || (c == '.' && w->prev_plain && w->prev == '.')))
            w->brace_sep = true;
        else if (c == '}' && w->lbrace && w->brace_sep)
            w->flags |= SHW_BRACE;
    }
    if (w->assign < 0 && w->name_ok) {
        if (!quoted && c == '=' && !first)
            w->assign = (int)w->text.len;
        else if (quoted || !is_name_char(c, first))
            w->name_ok = false;
    }
    buf_putc(&w->text, c);
    w->prev = c;
    w->prev_plain = !quoted;
}

/* Append an expansion (its source text stands for its unknown value). */
static void wput_exp(frame *f, const char *src, size_t n, unsigned flags, bool in_dq)
{
    wbuild *w = &f->w;
    word_open(f);
    w->flags |= flags;
    if (in_dq)
        w->flags |= SHW_QUOTED;
    else if (flags & (SHW_PARAM | SHW_CMDSUB | SHW_ARITH))
        w->flags |= SHW_SPLIT;
    if (w->text.len == 0)
        w->flags |= SHW_LEAD;
    if (w->assign < 0)
        w->name_ok = false;
    buf_append(&w->text, src, n);
    w->prev = 0;
    w->prev_plain = false;
}

static const char *const reserved[] = { "if", "then", "else", "elif", "fi", "do", "done",
                                        "while", "until", "!", "{", "}" };

static bool is_reserved(const char *s)
{
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(s, reserved[i]) == 0)
            return true;
    return false;
}

static bool all_digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool cmd_add_word(shparse *p, frame *f, sh_word w)
{
    cmdb *c = &f->c;
    if (c->nwords + c->nredirs >= SHPARSE_MAX_WORDS) {
        problem(p, f, "a command with too many words");
        p->broken = true;
        return false;
    }
    if (c->nwords == c->wcap) {
        size_t cap = c->wcap ? c->wcap * 2 : 8;
        sh_word *a = realloc(c->words, cap * sizeof *a);
        if (!a) {
            p->broken = true;
            return false;
        }
        c->words = a;
        c->wcap = cap;
    }
    c->words[c->nwords++] = w;
    return true;
}

static bool cmd_add_redir(shparse *p, frame *f, sh_redir r)
{
    cmdb *c = &f->c;
    if (c->nwords + c->nredirs >= SHPARSE_MAX_WORDS) {
        problem(p, f, "a command with too many words");
        p->broken = true;
        return false;
    }
    if (c->nredirs == c->rcap) {
        size_t cap = c->rcap ? c->rcap * 2 : 4;
        sh_redir *a = realloc(c->redirs, cap * sizeof *a);
        if (!a) {
            p->broken = true;
            return false;
        }
        c->redirs = a;
        c->rcap = cap;
    }
    c->redirs[c->nredirs++] = r;
    return true;
}

static void heredoc_add(shparse *p, frame *f, const char *delim, bool quoted, bool strip)
{
    if (f->nhd == f->hdcap) {
        size_t cap = f->hdcap ? f->hdcap * 2 : 2;
        heredoc *a = realloc(f->hd, cap * sizeof *a);
        if (!a) {
            p->broken = true;
            return;
        }
        f->hd = a;
        f->hdcap = cap;
    }
    char *d = strdup(delim);
    if (!d) {
        p->broken = true;
        return;
    }
    f->hd[f->nhd++] = (heredoc){ d, quoted, strip };
}

/* The word being built is complete: a redirection's target, a reserved word (dropped) or
 * a word of the command. */
static void word_end(shparse *p, frame *f)
{
    wbuild *w = &f->w;
    if (!w->open)
        return;
    w->open = false;
    if (w->text.err) {
        problem(p, f, "a word too long to read");
        p->broken = true;
        buf_release(&w->text);
        buf_init(&w->text, WORD_MAX);
        return;
    }
    size_t len = w->text.len;
    char *text = buf_detach(&w->text, NULL);
    buf_init(&w->text, WORD_MAX);
    if (!text) {
        p->broken = true;
        return;
    }
    sh_word sw = { text, len, w->flags, w->assign };
    if (f->redir >= 0) {
        int op = f->redir;
        f->redir = -1;
        bool fdish = !(sw.flags & ~SHW_QUOTED) &&
                     (all_digits(text, len) || (len == 1 && text[0] == '-'));
        if (op == R_DUPOUT)
            op = fdish ? SH_REDIR_DUP : SH_REDIR_OUT;
        else if (op == R_DUPIN)
            op = fdish ? SH_REDIR_DUP : SH_REDIR_IN;
        if (op == SH_REDIR_HEREDOC)
            heredoc_add(p, f, text, (sw.flags & SHW_QUOTED) != 0, f->redir_fd == -3);
        sh_redir r = { (sh_redir_op)op, f->redir_fd == -3 ? -1 : f->redir_fd, sw };
        if (!cmd_add_redir(p, f, r))
            free(text);
        return;
    }
    if (f->c.nwords == 0 && f->c.nredirs == 0 && sw.flags == 0 && is_reserved(text)) {
        free(text);
        return;
    }
    if (!cmd_add_word(p, f, sw))
        free(text);
}

/* The simple command is complete: queue it. */
static void end_command(shparse *p, frame *f)
{
    word_end(p, f);
    if (f->redir >= 0) {
        problem(p, f, "a redirection without a target");
        f->redir = -1;
    }
    f->fd_pending = -1;
    if (!f->c.nwords && !f->c.nredirs)
        return;
    qev e = { SH_EV_COMMAND, fkind_context[f->kind], NULL, f->c };
    memset(&f->c, 0, sizeof f->c);
    if (!queue_push(p, &e)) {
        cmdb_release(&e.c);
        p->broken = true;
    }
}

/* ---- operators ---------------------------------------------------------------------- */

static const char *const operators[] = { "&",  "&&", "&>", "&>>", "|",   "||", "|&",
                                         ";",  ";;", ";&", ";;&", "<",   "<<", "<<-",
                                         "<<<", "<&", "<>", ">",  ">>",  ">&", ">|" };

static bool op_extends(const frame *f, char c)
{
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++) {
        const char *o = operators[i];
        if (strlen(o) > f->oplen && memcmp(o, f->op, f->oplen) == 0 && o[f->oplen] == c)
            return true;
    }
    return false;
}

static const struct {
    const char *op;
    int redir; /* sh_redir_op, R_DUP*, or -1: a command separator */
    int fd;    /* -2: both outputs (&>), -3: a here-document that strips tabs */
} op_table[] = {
    { "&", -1, 0 },  { "&&", -1, 0 }, { "|", -1, 0 }, { "||", -1, 0 }, { "|&", -1, 0 },
    { ";", -1, 0 },  { ";;", -1, 0 }, { ";&", -1, 0 }, { ";;&", -1, 0 },
    { "<", SH_REDIR_IN, 0 },           { "<&", R_DUPIN, 0 },  { "<>", SH_REDIR_RDWR, 0 },
    { "<<", SH_REDIR_HEREDOC, 0 },     { "<<-", SH_REDIR_HEREDOC, -3 },
    { "<<<", SH_REDIR_HERESTRING, 0 }, { ">", SH_REDIR_OUT, 0 }, { ">|", SH_REDIR_OUT, 0 },
    { ">>", SH_REDIR_APPEND, 0 },      { ">&", R_DUPOUT, 0 },
    { "&>", SH_REDIR_OUT, -2 },        { "&>>", SH_REDIR_APPEND, -2 },
};

static void finish_op(shparse *p, frame *f)
{
    size_t n = f->oplen;
    f->oplen = 0;
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++) {
        if (strlen(op_table[i].op) != n || memcmp(op_table[i].op, f->op, n) != 0)
            continue;
        if (op_table[i].redir < 0) {
            end_command(p, f);
            if (f->op[0] == ';' && n > 1)
                problem(p, f, "a `case` statement (`;;`), which hew does not read");
            return;
        }
        if (f->redir >= 0)
            problem(p, f, "a redirection without a target");
        f->redir = op_table[i].redir;
        f->redir_fd = op_table[i].fd < 0 ? op_table[i].fd : f->fd_pending;
        f->fd_pending = -1;
        return;
    }
    problem(p, f, "an operator hew does not know");
}

/* ---- frames ------------------------------------------------------------------------ */

static void lex(shparse *p, size_t level, char c);

static frame *push(shparse *p, enum fkind kind)
{
    if (p->depth == SHPARSE_MAX_DEPTH) {
        problem(p, &p->fr[p->depth - 1], "substitutions nested too deep");
        p->broken = true;
        return NULL;
    }
    frame *f = &p->fr[p->depth++];
    frame_init(f, kind);
    return f;
}

static void heredoc_check(shparse *p, frame *f, const char *line, size_t n);

/* Close what is open in f at its end (clean: closed by its own closing character). */
static void frame_finish(shparse *p, frame *f)
{
    switch (f->st) {
    case L_OP:
        finish_op(p, f);
        break;
    case L_SQ:
    case L_DQ:
    case L_DQ_ESC:
    case L_ANSI:
    case L_ANSI_ESC:
    case L_ANSI_NUM:
    case L_ANSI_CTRL:
        problem(p, f, "an unterminated quote");
        break;
    case L_ESC:
        wput(f, '\\', true);
        break;
    case L_DOLLAR:
        wput(f, '$', f->ret == L_DQ);
        if (f->ret == L_DQ)
            problem(p, f, "an unterminated quote");
        break;
    case L_PARAM:
        wput_exp(f, "$", 1, SHW_PARAM, f->ret == L_DQ);
        buf_append(&f->w.text, f->exp.data ? f->exp.data : "", f->exp.len);
        if (f->ret == L_DQ)
            problem(p, f, "an unterminated quote");
        break;
    case L_BRACE:
        problem(p, f, "an unterminated `${`");
        break;
    case L_DPAREN:
        problem(p, f, "an unterminated `$(`");
        break;
    case L_ARITH:
        problem(p, f, "an unterminated `$((`");
        break;
    case L_HEREDOC: /* a body the input ended in: its last line is body too */
        if (f->hdline.len)
            heredoc_check(p, f, f->hdline.data, f->hdline.len);
        break;
    case L_BLANK:
    case L_WORD:
    case L_COMMENT:
        break;
    }
    f->st = L_BLANK;
    end_command(p, f);
    if (f->paren > 0)
        problem(p, f, "an unclosed `(`");
    if (f->kind != F_TOP && f->hdi < f->nhd)
        problem(p, f, "a here-document that is not closed inside its substitution");
}

/* Close the innermost frame: its commands are queued, its text joins the parent's word. */
static void pop(shparse *p)
{
    frame *f = &p->fr[p->depth - 1];
    frame_finish(p, f);
    frame *parent = &p->fr[p->depth - 2];
    word_open(parent);
    if (f->raw.len)
        buf_append(&parent->w.text, f->raw.data, f->raw.len);
    frame_release(f);
    p->depth--;
}

/* A backtick closed frame `level`: whatever is still open inside it is unterminated. */
static void close_backtick(shparse *p, size_t level)
{
    while (p->depth - 1 > level) {
        problem(p, &p->fr[p->depth - 1], "an unterminated substitution inside `…`");
        pop(p);
    }
    pop(p);
}

/* ---- the lexer ---------------------------------------------------------------------- */

static void newline(shparse *p, frame *f)
{
    /* a here-document of an enclosing frame whose body would start on this line: shells
     * do not agree where it goes */
    for (size_t i = 0; i + 1 < p->depth && &p->fr[i] != f; i++)
        if (p->fr[i].hdi < p->fr[i].nhd) {
            problem(p, f, "a here-document whose body starts inside a substitution");
            break;
        }
    end_command(p, f);
    if (f->hdi < f->nhd) {
        f->st = L_HEREDOC;
        buf_reset(&f->hdline);
        f->hd_flagged = false;
    } else {
        f->st = L_BLANK;
    }
}

/* A line of an unquoted here-document body: a command substitution in it runs. */
static void heredoc_check(shparse *p, frame *f, const char *line, size_t n)
{
    if (!f->hd[f->hdi].quoted && !f->hd_flagged &&
        (memchr(line, '`', n) || (n > 1 && memmem(line, n, "$(", 2)))) {
        problem(p, f, "a here-document body with a command substitution");
        f->hd_flagged = true;
    }
}

/* The end of a line of a here-document body. An unquoted body joins a line that ends in
 * an unescaped backslash to the next before comparing with the delimiter, as bash does
 * (so "EO\<newline>F" ends a body delimited by EOF). */
static void heredoc_line(shparse *p, frame *f)
{
    const heredoc *h = &f->hd[f->hdi];
    if (!h->quoted) {
        size_t bs = 0;
        while (bs < f->hdline.len && f->hdline.data[f->hdline.len - 1 - bs] == '\\')
            bs++;
        if (bs % 2 == 1) {
            buf_truncate(&f->hdline, f->hdline.len - 1);
            return;
        }
    }
    const char *line = f->hdline.data ? f->hdline.data : "";
    size_t n = f->hdline.len;
    if (h->strip)
        while (n && *line == '\t') {
            line++;
            n--;
        }
    if (n == strlen(h->delim) && memcmp(line, h->delim, n) == 0) {
        if (++f->hdi == f->nhd) {
            for (size_t i = 0; i < f->nhd; i++)
                free(f->hd[i].delim);
            f->nhd = f->hdi = 0;
            f->st = L_BLANK;
        }
        f->hd_flagged = false;
    } else {
        heredoc_check(p, f, line, n);
    }
    buf_reset(&f->hdline);
}

static void start_ansi_num(frame *f, int base, int max, bool utf8, uint32_t first, int n)
{
    f->esc_base = base;
    f->esc_max = max;
    f->esc_utf8 = utf8;
    f->esc_val = first;
    f->esc_n = n;
    f->st = L_ANSI_NUM;
}

static int digit_value(char c, int base)
{
    int v = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : 99;
    return v < base ? v : -1;
}

static void ansi_put(frame *f, uint32_t v, bool utf8)
{
    if (f->ansi_nul)
        return;
    if (v == 0) {
        f->ansi_nul = true; /* bash drops the rest of the string after a NUL */
        return;
    }
    if (!utf8 || v < 0x80) {
        wput(f, (char)(v & 0xff), true);
        return;
    }
    char u[4];
    size_t n;
    if (v < 0x800) {
        u[0] = (char)(0xC0 | (v >> 6));
        u[1] = (char)(0x80 | (v & 0x3F));
        n = 2;
    } else if (v < 0x10000) {
        u[0] = (char)(0xE0 | (v >> 12));
        u[1] = (char)(0x80 | ((v >> 6) & 0x3F));
        u[2] = (char)(0x80 | (v & 0x3F));
        n = 3;
    } else if (v <= 0x10FFFF) {
        u[0] = (char)(0xF0 | (v >> 18));
        u[1] = (char)(0x80 | ((v >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((v >> 6) & 0x3F));
        u[3] = (char)(0x80 | (v & 0x3F));
        n = 4;
    } else {
        return;
    }
    for (size_t i = 0; i < n; i++)
        wput(f, u[i], true);
}

/* ${…}: only a plain name, a positional or special parameter, or its length. */
static bool simple_brace(const char *s, size_t n)
{
    if (n && *s == '#' && n > 1) {
        s++;
        n--;
    }
    if (n == 1 && strchr("@*#?$!-0123456789", *s))
        return true;
    if (all_digits(s, n))
        return true;
    if (!n || !is_name_char(s[0], true))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!is_name_char(s[i], false))
            return false;
    return true;
}

/* $((…)): numbers and operators only (a name in arithmetic can run commands in bash
 * through array subscripts). */
static bool plain_arith(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789 \t+-*/%<>=!&|^~?:,()", s[i]))
            return false;
    return true;
}

/* The byte c in the unquoted part of a word (or at its start, from L_BLANK). */
static void lex_word(shparse *p, frame *f, char c)
{
    switch (c) {
    case ' ':
    case '\t':
        word_end(p, f);
        f->st = L_BLANK;
        return;
    case '\n':
        newline(p, f);
        return;
    case ';':
    case '&':
    case '|':
        word_end(p, f);
        f->op[0] = c;
        f->oplen = 1;
        f->st = L_OP;
        return;
    case '<':
    case '>':
        if (f->w.open && f->w.flags == 0 && f->w.text.len <= 4 &&
            all_digits(f->w.text.data, f->w.text.len) && f->redir < 0) {
            f->fd_pending = (int)strtol(f->w.text.data, NULL, 10);
            f->w.open = false;
            buf_reset(&f->w.text);
        } else {
            word_end(p, f);
        }
        f->op[0] = c;
        f->oplen = 1;
        f->st = L_OP;
        return;
    case '(':
        word_end(p, f);
        if (f->c.nwords == 0 && f->c.nredirs == 0 && f->redir < 0) {
            f->paren++;
        } else {
            problem(p, f, "a `(` inside a command (a function definition or another "
                          "shell's syntax)");
        }
        f->st = L_BLANK;
        return;
    case ')':
        word_end(p, f);
        end_command(p, f);
        f->st = L_BLANK;
        if (f->paren > 0) {
            f->paren--;
        } else if (f->kind == F_CMDSUB || f->kind == F_PROCIN || f->kind == F_PROCOUT) {
            pop(p);
        } else {
            problem(p, f, "an unmatched `)`");
        }
        return;
    case '\\':
        word_open(f);
        f->ret = L_WORD;
        f->st = L_ESC;
        return;
    case '\'':
        word_open(f);
        f->w.flags |= SHW_QUOTED;
        f->w.name_ok = f->w.assign >= 0 && f->w.name_ok;
        f->st = L_SQ;
        return;
    case '"':
        word_open(f);
        f->w.flags |= SHW_QUOTED;
        f->w.name_ok = f->w.assign >= 0 && f->w.name_ok;
        f->st = L_DQ;
        return;
    case '$':
        word_open(f);
        f->ret = L_WORD;
        f->st = L_DOLLAR;
        return;
    case '`':
        wput_exp(f, "`", 1, SHW_CMDSUB, false);
        f->st = L_WORD;
        push(p, F_BACKTICK);
        return;
    default:
        wput(f, c, false);
        f->st = L_WORD;
        return;
    }
}

/* The byte c for frame `level` (the innermost one, after the backtick filters). */
static void lex(shparse *p, size_t level, char c)
{
    frame *f = &p->fr[level];
    for (;;) {
        switch (f->st) {
        case L_BLANK:
            if (c == ' ' || c == '\t')
                return;
            if (c == '#') {
                f->st = L_COMMENT;
                return;
            }
            lex_word(p, f, c);
            return;
        case L_WORD:
            lex_word(p, f, c);
            return;
        case L_COMMENT:
            if (c == '\n')
                newline(p, f);
            return;
        case L_ESC:
            f->st = f->ret;
            if (c == '\n') { /* a line continuation */
                if (f->ret == L_WORD && f->w.open && f->w.text.len == 0 &&
                    !(f->w.flags & SHW_QUOTED))
                    f->w.open = false;
                if (!f->w.open)
                    f->st = L_BLANK;
                return;
            }
            wput(f, c, true);
            return;
        case L_SQ:
            if (c == '\'')
                f->st = L_WORD;
            else
                wput(f, c, true);
            return;
        case L_DQ:
            if (c == '"') {
                f->st = L_WORD;
            } else if (c == '\\') {
                f->st = L_DQ_ESC;
            } else if (c == '$') {
                f->ret = L_DQ;
                f->st = L_DOLLAR;
            } else if (c == '`') {
                wput_exp(f, "`", 1, SHW_CMDSUB, true);
                frame *child = push(p, F_BACKTICK);
                if (child)
                    child->bt_dq = true;
            } else {
                wput(f, c, true);
            }
            return;
        case L_DQ_ESC:
            f->st = L_DQ;
            if (c == '\n')
                return;
            if (c != '$' && c != '`' && c != '"' && c != '\\')
                wput(f, '\\', true);
            wput(f, c, true);
            return;
        case L_ANSI:
            if (c == '\'') {
                f->st = L_WORD;
                f->ansi_nul = false;
            } else if (c == '\\') {
                f->st = L_ANSI_ESC;
            } else if (!f->ansi_nul) {
                wput(f, c, true);
            }
            return;
        case L_ANSI_ESC: {
            static const char from[] = "abeEfnrtv\\'\"?";
            static const char to[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
            const char *k = c ? strchr(from, c) : NULL;
            f->st = L_ANSI;
            if (k) {
                ansi_put(f, (unsigned char)to[k - from], false);
            } else if (c == 'x') {
                start_ansi_num(f, 16, 2, false, 0, 0);
            } else if (c == 'u') {
                start_ansi_num(f, 16, 4, true, 0, 0);
            } else if (c == 'U') {
                start_ansi_num(f, 16, 8, true, 0, 0);
            } else if (c >= '0' && c <= '7') {
                start_ansi_num(f, 8, 3, false, (uint32_t)(c - '0'), 1);
            } else if (c == 'c') {
                f->st = L_ANSI_CTRL;
            } else {
                ansi_put(f, '\\', false);
                ansi_put(f, (unsigned char)c, false);
            }
            return;
        }
        case L_ANSI_NUM: {
            int d = digit_value(c, f->esc_base);
            if (d >= 0 && f->esc_n < f->esc_max) {
                f->esc_val = f->esc_val * (uint32_t)f->esc_base + (uint32_t)d;
                f->esc_n++;
                return;
            }
            if (f->esc_n == 0) { /* \x with no digits stays as written */
                ansi_put(f, '\\', false);
                ansi_put(f, f->esc_max == 2 ? 'x' : f->esc_max == 4 ? 'u' : 'U', false);
            } else {
                ansi_put(f, f->esc_val, f->esc_utf8);
            }
            f->st = L_ANSI;
            continue; /* c itself */
        }
        case L_ANSI_CTRL:
            ansi_put(f, c == '?' ? 0x7f : (unsigned char)c & 0x1f, false);
            f->st = L_ANSI;
            return;
        case L_DOLLAR: {
            bool dq = f->ret == L_DQ;
            if (c == '(') {
                f->st = L_DPAREN;
            } else if (c == '{') {
                buf_reset(&f->exp);
                f->st = L_BRACE;
            } else if ((c == '\'' || c == '"') && !dq && (p->flags & SHPARSE_POSIX)) {
                problem(p, f, "a `$'…'` or `$\"…\"` string, which a POSIX shell reads "
                              "differently");
                wput(f, '$', false);
                f->st = f->ret;
                continue; /* c itself, as sh reads it */
            } else if (c == '\'' && !dq) {
                word_open(f);
                f->w.flags |= SHW_QUOTED;
                f->w.name_ok = f->w.assign >= 0 && f->w.name_ok;
                f->ansi_nul = false;
                f->st = L_ANSI;
            } else if (c == '"' && !dq) { /* $"…": a translated string, read as "…" */
                word_open(f);
                f->w.flags |= SHW_QUOTED;
                f->w.name_ok = f->w.assign >= 0 && f->w.name_ok;
                f->st = L_DQ;
            } else if (is_name_char(c, true)) {
                buf_reset(&f->exp);
                buf_putc(&f->exp, c);
                f->st = L_PARAM;
            } else if (c && strchr("0123456789@*", c)) {
                char s[2] = { '$', c };
                wput_exp(f, s, 2, SHW_PARAM, dq);
                f->st = f->ret;
            } else if (c && strchr("?#$!-", c)) {
                /* numbers and flags: known not to be paths or options */
                word_open(f);
                if (dq)
                    f->w.flags |= SHW_QUOTED;
                buf_putc(&f->w.text, '$');
                buf_putc(&f->w.text, c);
                f->w.name_ok = f->w.assign >= 0 && f->w.name_ok;
                f->st = f->ret;
            } else {
                wput(f, '$', dq);
                f->st = f->ret;
                continue; /* c itself */
            }
            return;
        }
        case L_PARAM:
            if (is_name_char(c, false)) {
                buf_putc(&f->exp, c);
                return;
            }
            wput_exp(f, "$", 1, SHW_PARAM, f->ret == L_DQ);
            buf_append(&f->w.text, f->exp.data, f->exp.len);
            f->st = f->ret;
            continue;
        case L_BRACE:
            if (c != '}') {
                buf_putc(&f->exp, c);
                return;
            }
            if (!simple_brace(f->exp.data ? f->exp.data : "", f->exp.len))
                problem(p, f, "a `${…}` expansion with an operator");
            wput_exp(f, "${", 2, SHW_PARAM, f->ret == L_DQ);
            buf_append(&f->w.text, f->exp.data, f->exp.len);
            buf_putc(&f->w.text, '}');
            f->st = f->ret;
            return;
        case L_DPAREN:
            if (c == '(') {
                buf_reset(&f->exp);
                f->arith_depth = 0;
                f->arith_close = false;
                f->st = L_ARITH;
                return;
            }
            wput_exp(f, "$(", 2, SHW_CMDSUB, f->ret == L_DQ);
            f->st = f->ret;
            {
                frame *child = push(p, F_CMDSUB);
                if (!child)
                    return;
                buf_putc(&child->raw, c);
                lex(p, p->depth - 1, c);
            }
            return;
        case L_ARITH:
            if (f->arith_close) {
                f->arith_close = false;
                if (c == ')') {
                    if (!plain_arith(f->exp.data ? f->exp.data : "", f->exp.len))
                        problem(p, f, "an arithmetic expansion with names or expansions");
                    wput_exp(f, "$((", 3, SHW_ARITH, f->ret == L_DQ);
                    buf_append(&f->w.text, f->exp.data, f->exp.len);
                    buf_append(&f->w.text, "))", 2);
                    f->st = f->ret;
                    return;
                }
                problem(p, f, "a `$((` hew cannot read");
                buf_putc(&f->exp, ')');
            }
            if (c == '(') {
                f->arith_depth++;
            } else if (c == ')') {
                if (f->arith_depth == 0) {
                    f->arith_close = true;
                    return;
                }
                f->arith_depth--;
            }
            buf_putc(&f->exp, c);
            return;
        case L_OP:
            if (op_extends(f, c)) {
                f->op[f->oplen++] = c;
                return;
            }
            if (f->oplen == 1 && (f->op[0] == '<' || f->op[0] == '>') && c == '(') {
                bool out = f->op[0] == '>';
                f->oplen = 0;
                if (f->fd_pending >= 0) {
                    problem(p, f, "a process substitution after a descriptor number");
                    f->fd_pending = -1;
                }
                word_end(p, f);
                wput_exp(f, out ? ">(" : "<(", 2, SHW_PROCSUB, false);
                f->w.flags &= ~(unsigned)SHW_LEAD;
                f->st = L_WORD;
                push(p, out ? F_PROCOUT : F_PROCIN);
                return;
            }
            finish_op(p, f);
            f->st = L_BLANK;
            continue;
        case L_HEREDOC:
            if (c == '\n')
                heredoc_line(p, f);
            else
                buf_putc(&f->hdline, c);
            return;
        }
        return;
    }
}

/* Give byte c to the frames from `from` up: through the backslash filter of each open
 * backtick frame (\$, \` and \\ lose their backslash, and \" inside double quotes; an
 * unescaped ` closes it), then to the innermost frame's lexer. */
static void deliver(shparse *p, size_t from, char c)
{
    for (size_t i = from; i < p->depth; i++) {
        frame *f = &p->fr[i];
        if (f->kind != F_BACKTICK)
            continue;
        if (f->bt_esc) {
            f->bt_esc = false;
            if (c != '$' && c != '`' && c != '\\' && !(f->bt_dq && c == '"')) {
                deliver(p, i + 1, '\\');
                if (p->broken || p->depth <= i)
                    return;
            }
            deliver(p, i + 1, c);
            return;
        }
        if (c == '\\') {
            f->bt_esc = true;
            return;
        }
        if (c == '`') {
            close_backtick(p, i);
            return;
        }
    }
    lex(p, p->depth - 1, c);
}

/* ---- the interface ------------------------------------------------------------------ */

shparse *shparse_new(unsigned flags)
{
    shparse *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->flags = flags;
    frame_init(&p->fr[0], F_TOP);
    p->depth = 1;
    return p;
}

void shparse_free(shparse *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->depth; i++)
        frame_release(&p->fr[i]);
    for (size_t i = 0; i < p->qlen; i++)
        cmdb_release(&p->q[p->qhead + i].c);
    if (p->has_cur)
        cmdb_release(&p->cur.c);
    free(p->q);
    free(p);
}

void shparse_feed(shparse *p, const char *data, size_t len)
{
    if (p->ended)
        return;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        p->fed++;
        if (p->broken)
            continue;
        if (p->fed > SHPARSE_MAX_INPUT) {
            problem(p, &p->fr[p->depth - 1], "a command line longer than hew reads (1 MiB)");
            p->broken = true;
            continue;
        }
        if (c == '\0') {
            problem(p, &p->fr[p->depth - 1], "a NUL byte");
            continue;
        }
        for (size_t k = 1; k < p->depth; k++)
            buf_putc(&p->fr[k].raw, c);
        deliver(p, 1, c);
    }
}

void shparse_end(shparse *p)
{
    if (p->ended)
        return;
    p->ended = true;
    if (p->broken)
        return;
    while (p->depth > 1) {
        frame *f = &p->fr[p->depth - 1];
        problem(p, f, f->kind == F_BACKTICK ? "an unterminated `…`" : "an unterminated substitution");
        pop(p);
    }
    frame_finish(p, &p->fr[0]);
}

int shparse_next(shparse *p, sh_event *ev)
{
    if (p->has_cur) {
        cmdb_release(&p->cur.c);
        p->has_cur = false;
    }
    if (!p->qlen)
        return 0;
    p->cur = p->q[p->qhead++];
    p->qlen--;
    if (!p->qlen)
        p->qhead = 0;
    p->has_cur = true;
    memset(ev, 0, sizeof *ev);
    ev->kind = p->cur.kind;
    ev->context = p->cur.context;
    ev->problem = p->cur.problem;
    ev->words = p->cur.c.words;
    ev->nwords = p->cur.c.nwords;
    ev->redirs = p->cur.c.redirs;
    ev->nredirs = p->cur.c.nredirs;
    return 1;
}

bool shparse_broken(const shparse *p)
{
    return p->broken;
}
