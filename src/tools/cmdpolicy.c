/* cmdpolicy — judges a command line (see cmdpolicy.h): the user's deny and allow rules,
 * the shells and wrappers it sees through (sh -c, eval, env, xargs, timeout, nice, …),
 * redirections, assignments, paths, and the verdict with its reason. The read-only
 * programs and their options are in cmdpolicy_progs.c, the sh grammar in shparse.c. It
 * must never run, expand or look up anything, never call a line safe that it could not
 * read whole, and never let anything but a deny rule refuse a command. */
#include "tools/cmdpolicy.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sys/path.h"
#include "base/utf8.h"
#include "tools/cmdpolicy_internal.h"

#define MAX_NESTING 4 /* sh -c / eval inside each other */
#define SHOW_MAX 120  /* bytes of a word quoted in a reason */
#define PART_MAX 240  /* bytes of the part of a line quoted in a reason */

struct cp_judge {
    const cmdpolicy_opts *o;
    char *root;                 /* the workspace root, normalised */
    cmdpolicy_decision decision;
    char reason[CMDPOLICY_TEXT_MAX];
    char part[CMDPOLICY_TEXT_MAX];
    char rule[CMDPOLICY_TEXT_MAX];
    bool outside;
    char out_reason[CMDPOLICY_TEXT_MAX];
    char out_part[CMDPOLICY_TEXT_MAX];
    const char *progs[6];       /* read-only programs seen, for the reason */
    size_t nprogs;
    char allowed[CMDPOLICY_TEXT_MAX]; /* the first allow rule used */
    const char *context;        /* the substitution of the command being judged */
    int depth;                  /* sh -c / eval nesting */
    unsigned parse_flags;       /* SHPARSE_* for the shell that runs the line */
    bool oom;
    char shown[4][SHOW_MAX + 16];
    unsigned next_shown;
};

struct cmdpolicy {
    cp_judge j;
    shparse *p;
    buf line; /* the line as given, for the deny rules (capped like the parser) */
};

/* ---- text for people ---------------------------------------------------------------- */

/* Code points a terminal or an editor would act on: C0, DEL, C1, bidi overrides. */
static bool hidden_cp(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

/* s[0..n) into dst (cap bytes, NUL-terminated), valid UTF-8, control and invisible
 * characters written as escapes, cut with "…" when it does not fit in max bytes. */
static void show_into(char *dst, size_t cap, const char *s, size_t n, size_t max)
{
    if (max > cap - 1)
        max = cap - 1;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char tmp[16];
        size_t tl, adv;
        uint32_t cp = 0;
        size_t sl = utf8_decode(s + i, n - i, &cp);
        if (sl == 0) {
            tl = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned char)s[i]);
            adv = 1;
        } else if (hidden_cp(cp)) {
            if (cp == '\n')
                tl = (size_t)snprintf(tmp, sizeof tmp, "\\n");
            else if (cp == '\t')
                tl = (size_t)snprintf(tmp, sizeof tmp, "\\t");
            else if (cp < 0x80)
                tl = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)cp);
            else
                tl = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
            adv = sl;
        } else {
            memcpy(tmp, s + i, sl);
            tl = sl;
            adv = sl;
        }
        if (o + tl > max - 3) { /* room for "…" */
            memcpy(dst + o, "\xe2\x80\xa6", 3);
            o += 3;
            break;
        }
        memcpy(dst + o, tmp, tl);
        o += tl;
        i += adv;
    }
    dst[o] = '\0';
}

const char *cp_show(cp_judge *j, const char *s)
{
    char *d = j->shown[j->next_shown++ % 4];
    show_into(d, sizeof j->shown[0], s, strlen(s), SHOW_MAX);
    return d;
}

/* reason and part of a note: the message, ": part" unless the message holds it, and the
 * substitution it is in. */
static void compose(cp_judge *j, char *reason, char *part_out, const char *part,
                    const char *fmt, va_list ap)
{
    char msg[1024], shown[PART_MAX + 16];
    vsnprintf(msg, sizeof msg, fmt, ap);
    show_into(shown, sizeof shown, part ? part : "", part ? strlen(part) : 0, PART_MAX);
    char all[2048];
    snprintf(all, sizeof all, "%s%s%s%s%s%s", msg, *shown && !strstr(msg, shown) ? ": " : "",
             *shown && !strstr(msg, shown) ? shown : "", j->context ? " (inside " : "",
             j->context ? j->context : "", j->context ? ")" : "");
    show_into(reason, CMDPOLICY_TEXT_MAX, all, strlen(all), CMDPOLICY_TEXT_MAX - 1);
    snprintf(part_out, CMDPOLICY_TEXT_MAX, "%s", shown);
}

void cp_ask(cp_judge *j, const char *part, const char *fmt, ...)
{
    if (j->decision >= CMDPOLICY_ASK)
        return;
    j->decision = CMDPOLICY_ASK;
    j->rule[0] = '\0';
    va_list ap;
    va_start(ap, fmt);
    compose(j, j->reason, j->part, part, fmt, ap);
    va_end(ap);
}

void cp_outside(cp_judge *j, const char *part, const char *fmt, ...)
{
    if (j->outside)
        return;
    j->outside = true;
    va_list ap;
    va_start(ap, fmt);
    compose(j, j->out_reason, j->out_part, part, fmt, ap);
    va_end(ap);
}

static void deny(cp_judge *j, const char *rule, const char *part)
{
    if (j->decision == CMDPOLICY_DENY)
        return;
    j->decision = CMDPOLICY_DENY;
    char r[SHOW_MAX + 16], shown[PART_MAX + 16], all[1024];
    show_into(r, sizeof r, rule, strlen(rule), SHOW_MAX);
    show_into(shown, sizeof shown, part, strlen(part), PART_MAX);
    snprintf(all, sizeof all, "matches your deny rule `%s`%s%s", r, *shown ? ": " : "", shown);
    show_into(j->reason, CMDPOLICY_TEXT_MAX, all, strlen(all), CMDPOLICY_TEXT_MAX - 1);
    snprintf(j->part, CMDPOLICY_TEXT_MAX, "%s", shown);
    show_into(j->rule, CMDPOLICY_TEXT_MAX, rule, strlen(rule), CMDPOLICY_TEXT_MAX - 1);
}

void cp_read_only(cp_judge *j, const char *name)
{
    for (size_t i = 0; i < j->nprogs; i++)
        if (strcmp(j->progs[i], name) == 0)
            return;
    if (j->nprogs < sizeof j->progs / sizeof j->progs[0])
        j->progs[j->nprogs++] = name;
}

/* ---- paths ------------------------------------------------------------------------- */

/* Devices reading or writing which touches nothing (/dev/tcp and /dev/udp are bash's
 * network connections: never here). */
static bool harmless_device(const char *s)
{
    static const char *const devs[] = { "/dev/null",   "/dev/zero",   "/dev/random",
                                        "/dev/urandom", "/dev/stdin", "/dev/stdout",
                                        "/dev/stderr", "/dev/fd/0",  "/dev/fd/1",
                                        "/dev/fd/2" };
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++)
        if (strcmp(s, devs[i]) == 0)
            return true;
    return false;
}

static bool network_device(const char *s)
{
    return strncmp(s, "/dev/tcp/", 9) == 0 || strncmp(s, "/dev/udp/", 9) == 0;
}

static bool has_dotdot(const char *s)
{
    for (const char *p = s; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == s || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return true;
    return false;
}

/* Is the path s (a word's value) outside the workspace, lexically? glob: components
 * that start with '.' and hold a glob character may match `..`. */
static bool path_outside(cp_judge *j, const char *s, bool glob)
{
    if (!*s || harmless_device(s))
        return false;
    char *copy = NULL;
    if (glob) {
        buf b = BUF_INIT(0);
        for (const char *p = s; *p;) {
            size_t n = strcspn(p, "/");
            if (n && p[0] == '.' &&
                (memchr(p, '*', n) || memchr(p, '?', n) || memchr(p, '[', n)))
                buf_puts(&b, "..");
            else
                buf_append(&b, p, n);
            p += n;
            if (*p == '/') {
                buf_putc(&b, '/');
                p++;
            }
        }
        copy = buf_detach(&b, NULL);
        if (!copy) {
            j->oom = true;
            return true;
        }
        s = copy;
    }
    bool out = false;
    if (s[0] == '/' || has_dotdot(s)) {
        char *joined = path_join(j->root, s);
        char *norm = joined ? path_normalize(joined) : NULL;
        out = !norm || !path_is_inside(j->root, norm);
        if (!norm)
            j->oom = true;
        free(joined);
        free(norm);
    }
    free(copy);
    return out;
}

static bool check_text(cp_judge *j, const char *t, bool glob, const char *part)
{
    const char *cands[3] = { t, NULL, NULL };
    if (t[0] == '-') {
        const char *eq = strchr(t, '=');
        cands[1] = eq ? eq + 1 : NULL;
        cands[2] = t[1] && t[1] != '-' ? t + 2 : NULL;
    }
    for (size_t i = 0; i < 3; i++) {
        if (!cands[i])
            continue;
        if (network_device(cands[i])) {
            cp_ask(j, part, "`%s` opens a network connection", cp_show(j, cands[i]));
            return true;
        }
        if (cands[i][0] == '~' && i > 0) {
            cp_outside(j, part, "`%s` is in your home directory, outside the workspace",
                       cp_show(j, t));
            return true;
        }
        if (path_outside(j, cands[i], glob)) {
            if (glob && !path_outside(j, cands[i], false))
                cp_outside(j, part, "`%s` may match `..`, outside the workspace",
                           cp_show(j, cands[i]));
            else
                cp_outside(j, part, "`%s` is outside the workspace", cp_show(j, cands[i]));
            return true;
        }
    }
    return false;
}

void cp_check_path(cp_judge *j, const sh_word *w, const char *part)
{
    if (w->flags & (SHW_PARAM | SHW_CMDSUB | SHW_ARITH)) {
        cp_outside(j, part, "`%s` may name a path outside the workspace", cp_show(j, w->text));
        return;
    }
    if (w->flags & SHW_TILDE) {
        cp_outside(j, part, "`%s` is in your home directory, outside the workspace",
                   cp_show(j, w->text));
        return;
    }
    if (w->flags & SHW_PROCSUB)
        return; /* a pipe from or to a command judged on its own */
    check_text(j, w->text, (w->flags & SHW_GLOB) != 0, part);
}

/* ---- rules --------------------------------------------------------------------------- */

bool cmdpolicy_rule_matches(const char *rule, const char *text)
{
    if (!rule || !*rule || !text)
        return false;
    if (strpbrk(rule, "*?["))
        return fnmatch(rule, text, 0) == 0;
    size_t n = strlen(rule);
    return strncmp(text, rule, n) == 0 && (text[n] == '\0' || text[n] == ' ');
}

static const char *match_rules(const char *const *rules, const char *const *texts, size_t n)
{
    for (const char *const *r = rules; r && *r; r++)
        for (size_t i = 0; i < n; i++)
            if (texts[i] && cmdpolicy_rule_matches(*r, texts[i]))
                return *r;
    return NULL;
}

/* The words joined by single spaces (base: the program by its base name); a new string,
 * NULL when memory runs out. */
static char *join_words(const sh_word *w, size_t n, bool base)
{
    buf b = BUF_INIT(0);
    for (size_t i = 0; i < n; i++) {
        const char *t = w[i].text;
        if (i == 0 && base && strrchr(t, '/'))
            t = strrchr(t, '/') + 1;
        if (i)
            buf_putc(&b, ' ');
        buf_puts(&b, t);
    }
    if (!b.data && !b.err)
        buf_puts(&b, "");
    return buf_detach(&b, NULL);
}

/* ---- assignments --------------------------------------------------------------------- */

/* NAME=value that cannot change what runs or how (no PATH, IFS, LD_*, BASH_ENV, …): a
 * few locale and display variables with plain values. */
static bool harmless_assignment(const sh_word *w)
{
    static const char *const names[] = { "LANG", "LANGUAGE", "TZ", "NO_COLOR", "TERM",
                                         "COLUMNS", "LINES", "CLICOLOR", "CLICOLOR_FORCE",
                                         "FORCE_COLOR" };
    if (w->flags & ~(unsigned)SHW_QUOTED)
        return false;
    size_t n = (size_t)w->assign;
    bool known = n > 3 && strncmp(w->text, "LC_", 3) == 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !known; i++)
        known = strlen(names[i]) == n && strncmp(w->text, names[i], n) == 0;
    if (!known)
        return false;
    for (const char *c = w->text + n + 1; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || strchr("_.:/@+=,-", *c)))
            return false;
    return true;
}

/* ---- what runs ------------------------------------------------------------------------ */

static void judge_argv(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                       bool unknown_args);
static void judge_string(cp_judge *j, const char *line, const char *part);

/* A wrapper's options from argv[1]: shorts as for getopt ("n:" takes a value, "l::" only
 * an attached one), longs by name ("adjustment=" takes a value). Returns the index of
 * the first operand, or -1 when it asked. Option values are checked as paths. */
static long skip_options(cp_judge *j, const char *prog, const sh_word *argv, size_t n,
                         const char *shorts, const char *const *longs, const char *part)
{
    size_t k = 1;
    while (k < n) {
        const sh_word *w = &argv[k];
        const char *t = w->text;
        if (w->flags & (SHW_UNKNOWN | SHW_LEAD | SHW_SPLIT)) {
            cp_ask(j, part, "hew cannot see what `%s` gives `%s`", cp_show(j, t), prog);
            return -1;
        }
        if (t[0] != '-' || !t[1])
            return (long)k;
        if (strcmp(t, "--") == 0)
            return (long)k + 1;
        cp_check_path(j, w, part);
        if (t[1] == '-') {
            size_t len = strcspn(t + 2, "=");
            const char *match = NULL;
            for (const char *const *l = longs; l && *l && !match; l++)
                if (strcspn(*l, "=") == len && strncmp(*l, t + 2, len) == 0)
                    match = *l;
            if (!match) {
                cp_ask(j, part, "hew does not know the option `%s` of `%s`", cp_show(j, t),
                       prog);
                return -1;
            }
            if (match[len] == '=' && t[2 + len] != '=' && ++k < n)
                cp_check_path(j, &argv[k], part);
            k++;
            continue;
        }
        for (const char *c = t + 1; *c; c++) {
            const char *s = *c != ':' ? strchr(shorts, *c) : NULL;
            if (!s) {
                cp_ask(j, part, "hew does not know the option `-%c` of `%s`", *c, prog);
                return -1;
            }
            if (s[1] == ':') {
                if (!c[1] && s[2] != ':' && ++k < n)
                    cp_check_path(j, &argv[k], part);
                break;
            }
        }
        k++;
    }
    return (long)(k < n ? k : n);
}

typedef long (*wrap_fn)(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                        bool *unknown_args);

static long wrap_command(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                         bool *unknown_args)
{
    (void)unknown_args;
    long k = skip_options(j, "command", argv, n, "pvV", NULL, part);
    for (long i = 1; i < k; i++)
        if (strchr(argv[i].text, 'v') || strchr(argv[i].text, 'V'))
            return (long)n; /* command -v NAME only says where NAME is */
    return k;
}

static long wrap_builtin(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                         bool *unknown_args)
{
    (void)j, (void)argv, (void)n, (void)part, (void)unknown_args;
    return 1;
}

static long wrap_exec(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                      bool *unknown_args)
{
    (void)unknown_args;
    return skip_options(j, "exec", argv, n, "cla:", NULL, part);
}

static long wrap_nice(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                      bool *unknown_args)
{
    static const char *const longs[] = { "adjustment=", NULL };
    (void)unknown_args;
    return skip_options(j, "nice", argv, n, "n:0123456789", longs, part);
}

static long wrap_nohup(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                       bool *unknown_args)
{
    (void)unknown_args;
    return skip_options(j, "nohup", argv, n, "", NULL, part);
}

static long wrap_timeout(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                         bool *unknown_args)
{
    static const char *const longs[] = { "signal=", "kill-after=", "preserve-status",
                                         "foreground", "verbose", NULL };
    (void)unknown_args;
    long k = skip_options(j, "timeout", argv, n, "s:k:v", longs, part);
    if (k < 0 || (size_t)k >= n)
        return k;
    if (argv[k].flags & (SHW_UNKNOWN | SHW_LEAD | SHW_SPLIT)) {
        cp_ask(j, part, "hew cannot see the duration `%s` given to `timeout`",
               cp_show(j, argv[k].text));
        return -1;
    }
    return k + 1;
}

static long wrap_time(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                      bool *unknown_args)
{
    static const char *const longs[] = { "portability", "verbose", "quiet", "format=", NULL };
    (void)unknown_args;
    for (size_t k = 1; k < n && argv[k].text[0] == '-'; k++)
        if (strncmp(argv[k].text, "-o", 2) == 0 || strncmp(argv[k].text, "--o", 3) == 0 ||
            strncmp(argv[k].text, "-a", 2) == 0 || strncmp(argv[k].text, "--a", 3) == 0) {
            cp_ask(j, part, "`time %s` writes a file", cp_show(j, argv[k].text));
            return -1;
        }
    return skip_options(j, "time", argv, n, "pvqf:", longs, part);
}

static long wrap_stdbuf(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                        bool *unknown_args)
{
    static const char *const longs[] = { "input=", "output=", "error=", NULL };
    (void)unknown_args;
    return skip_options(j, "stdbuf", argv, n, "i:o:e:", longs, part);
}

static long wrap_env(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                     bool *unknown_args)
{
    static const char *const longs[] = { "ignore-environment", "null", "unset=", "chdir=",
                                         "debug", NULL };
    (void)unknown_args;
    for (size_t k = 1; k < n && argv[k].text[0] == '-'; k++)
        if (strncmp(argv[k].text, "-S", 2) == 0 || strncmp(argv[k].text, "--s", 3) == 0) {
            cp_ask(j, part, "`env %s` splits a string into a command hew does not read",
                   cp_show(j, argv[k].text));
            return -1;
        }
    long k = skip_options(j, "env", argv, n, "i0u:C:v", longs, part);
    if (k < 0)
        return k;
    for (; (size_t)k < n && argv[k].assign >= 0; k++)
        if (!harmless_assignment(&argv[k])) {
            cp_ask(j, part, "`env %s` sets a variable that can change what runs",
                   cp_show(j, argv[k].text));
            return -1;
        }
    if ((size_t)k == n) {
        cp_ask(j, part, "`env` without a command prints the environment (secrets included)");
        return -1;
    }
    return k;
}

static long wrap_xargs(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                       bool *unknown_args)
{
    static const char *const longs[] = {
        "null",      "no-run-if-empty", "verbose",   "exit",      "interactive",
        "max-args=", "max-lines=",      "max-chars=", "max-procs=", "delimiter=",
        "eof=",      "replace",         "arg-file=", "open-tty",  NULL,
    };
    long k = skip_options(j, "xargs", argv, n, "0rtxpn:L:l::s:P:d:E:e::I:i::a:o", longs, part);
    *unknown_args = true;
    return k;
}

static const struct wrapper {
    const char *name;
    wrap_fn skip;
} wrappers[] = {
    { "builtin", wrap_builtin }, { "command", wrap_command }, { "env", wrap_env },
    { "exec", wrap_exec },       { "nice", wrap_nice },       { "nohup", wrap_nohup },
    { "stdbuf", wrap_stdbuf },   { "time", wrap_time },       { "timeout", wrap_timeout },
    { "xargs", wrap_xargs },
};

static const char *const posix_shells[] = { "sh",  "bash", "dash", "zsh",  "ksh",
                                            "mksh", "ash", "yash", "posh", "lksh" };

static const char *const as_user[] = { "sudo", "doas", "su", "pkexec", "runuser" };

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

/* sh -c SCRIPT: judged as a line of its own. Any other use runs a script hew cannot see. */
static void judge_shell(cp_judge *j, const char *name, const sh_word *argv, size_t n,
                        const char *part)
{
    static const char *const longs[] = { "--norc", "--noprofile", "--posix", "--login" };
    bool c = false;
    size_t k = 1;
    for (; k < n; k++) {
        const sh_word *w = &argv[k];
        const char *t = w->text;
        if ((w->flags & (SHW_UNKNOWN | SHW_LEAD | SHW_SPLIT)) && c)
            break; /* the script, judged below */
        if (w->flags & (SHW_UNKNOWN | SHW_LEAD | SHW_SPLIT)) {
            cp_ask(j, part, "hew cannot see what `%s` gives `%s`", cp_show(j, t), name);
            return;
        }
        if (t[0] != '-' && t[0] != '+')
            break;
        if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
            k++;
            break;
        }
        if (t[1] == '-') {
            if (!in_list(t, longs, sizeof longs / sizeof longs[0])) {
                cp_ask(j, part, "hew does not know the option `%s` of `%s`", cp_show(j, t),
                       name);
                return;
            }
            continue;
        }
        bool takes = false;
        for (const char *l = t + 1; *l; l++) {
            if (*l == 'c')
                c = true;
            else if (*l == 'o')
                takes = true;
            else if (!strchr("euxvlfnh", *l)) {
                cp_ask(j, part, "hew does not know the option `-%c` of `%s`", *l, name);
                return;
            }
        }
        if (takes)
            k++;
    }
    if (!c) {
        cp_ask(j, part, "`%s` runs a script hew cannot see (only `%s -c '…'` is read)", name,
               name);
        return;
    }
    if (k >= n)
        return; /* -c without a command: an error, nothing runs */
    if (argv[k].flags & (SHW_UNKNOWN | SHW_PROCSUB | SHW_SPLIT | SHW_GLOB | SHW_TILDE)) {
        cp_ask(j, part, "hew cannot see through `%s -c` of `%s`", name, cp_show(j, argv[k].text));
        return;
    }
    judge_string(j, argv[k].text, part);
}

static void judge_eval(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    for (size_t k = 1; k < n; k++)
        if (argv[k].flags & (SHW_UNKNOWN | SHW_PROCSUB | SHW_GLOB | SHW_TILDE)) {
            cp_ask(j, part, "hew cannot see through `eval` of `%s`", cp_show(j, argv[k].text));
            return;
        }
    char *line = join_words(argv + 1, n - 1, false);
    if (!line) {
        j->oom = true;
        return;
    }
    judge_string(j, line, part);
    free(line);
}

/* sudo and the like always ask; the command they run is still matched against the deny
 * rules (after their options; `su -c CMD` reads CMD as a line). */
static void judge_as_user(cp_judge *j, const char *name, const sh_word *argv, size_t n,
                          const char *part)
{
    cp_ask(j, part, "`%s` runs a command as another user", name);
    for (size_t k = 1; k < n; k++) {
        const char *t = argv[k].text;
        if (strcmp(t, "-c") == 0 || strcmp(t, "--command") == 0) {
            if (k + 1 < n)
                judge_string(j, argv[k + 1].text, part);
            return;
        }
        if (strncmp(t, "--command=", 10) == 0) {
            judge_string(j, t + 10, part);
            return;
        }
        if (strcmp(t, "--") == 0) {
            judge_argv(j, argv + k + 1, n - k - 1, part, false);
            return;
        }
        if (t[0] == '-') {
            size_t len = strlen(t);
            if ((t[1] != '-' && len == 2 && strchr("ugCDhprtUT", t[1])) ||
                (t[1] == '-' && !strchr(t, '=') &&
                 (strcmp(t, "--user") == 0 || strcmp(t, "--group") == 0)))
                k++; /* the option's value */
            continue;
        }
        if (argv[k].assign >= 0)
            continue;
        judge_argv(j, argv + k, n - k, part, false);
        return;
    }
}

/* find -exec/-execdir/-ok/-okdir CMD … ; or + : CMD against the rules and the policy (the
 * -exec itself asks anyway). */
static void judge_find_exec(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    static const char *const execs[] = { "-exec", "-execdir", "-ok", "-okdir" };
    for (size_t k = 1; k < n; k++) {
        if (!in_list(argv[k].text, execs, sizeof execs / sizeof execs[0]))
            continue;
        size_t end = k + 1;
        while (end < n && strcmp(argv[end].text, ";") != 0 && strcmp(argv[end].text, "+") != 0)
            end++;
        judge_argv(j, argv + k + 1, end - k - 1, part, false);
        k = end;
    }
}

/* A program by path: only the system's own directories name the program hew knows. */
static const char *system_program(const char *path)
{
    static const char *const dirs[] = { "/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/",
                                        "/usr/sbin/" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        size_t n = strlen(dirs[i]);
        if (strncmp(path, dirs[i], n) == 0 && path[n] && !strchr(path + n, '/'))
            return path + n;
    }
    return NULL;
}

static void judge_program(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                          bool unknown_args)
{
    const sh_word *w0 = &argv[0];
    bool bracket = strcmp(w0->text, "[") == 0 && !(w0->flags & ~(unsigned)(SHW_GLOB | SHW_LEAD));
    if (!bracket && (w0->flags & (SHW_UNKNOWN | SHW_GLOB | SHW_TILDE | SHW_PROCSUB | SHW_SPLIT))) {
        cp_ask(j, part, "hew cannot see which program `%s` runs", cp_show(j, w0->text));
        return;
    }
    const char *name = w0->text;
    if (!*name) {
        cp_ask(j, part, "an empty program name");
        return;
    }
    if (strchr(name, '/')) {
        const char *base = system_program(name);
        if (!base) {
            cp_ask(j, part, "`%s` runs a program by its path, not one hew knows as read-only",
                   cp_show(j, name));
            return;
        }
        name = base;
    }
    if (strcmp(name, "for") == 0 && (w0->flags & SHW_QUOTED)) {
        cp_ask(j, part, "`%s` is not a read-only program", cp_show(j, name));
        return;
    }
    bool shell = in_list(name, posix_shells, sizeof posix_shells / sizeof posix_shells[0]);
    if ((shell || strcmp(name, "eval") == 0) && unknown_args) {
        /* xargs -I{} sh -c 'cat {}' puts a file name into the script: a file named
         * $(evil) runs evil */
        cp_ask(j, part, "`xargs` gives `%s` arguments hew cannot see", name);
        return;
    }
    if (shell) {
        judge_shell(j, name, argv, n, part);
        return;
    }
    if (strcmp(name, "eval") == 0) {
        judge_eval(j, argv, n, part);
        return;
    }
    if (in_list(name, as_user, sizeof as_user / sizeof as_user[0])) {
        judge_as_user(j, name, argv, n, part);
        return;
    }
    if (strcmp(name, "find") == 0)
        judge_find_exec(j, argv, n, part);
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++) {
        if (strcmp(name, wrappers[i].name) != 0)
            continue;
        bool more = false;
        long k = wrappers[i].skip(j, argv, n, part, &more);
        if (k >= 0 && (size_t)k < n)
            judge_argv(j, argv + k, n - (size_t)k, part, unknown_args || more);
        else if (k >= 0)
            cp_read_only(j, wrappers[i].name);
        return;
    }
    const cp_prog *pr = cp_prog_find(name);
    if (!pr) {
        cp_ask(j, part, "`%s` is not a read-only program", cp_show(j, name));
        return;
    }
    cp_prog_judge(j, pr, argv, n, part, unknown_args);
}

/* A command to run (argv[0] is its program): the rules, then hew's own judgement. */
static void judge_argv(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                       bool unknown_args)
{
    if (!n)
        return;
    char *text = join_words(argv, n, false);
    char *base = join_words(argv, n, true);
    if (!text || !base) {
        j->oom = true;
    } else {
        const char *texts[] = { text, base, part };
        const char *r = match_rules(j->o->deny, texts, 3);
        if (r) {
            deny(j, r, part);
        } else if ((r = match_rules(j->o->allow, texts, 3)) != NULL) {
            if (!j->allowed[0])
                snprintf(j->allowed, sizeof j->allowed, "%s", r);
        } else {
            judge_program(j, argv, n, part, unknown_args);
        }
    }
    free(text);
    free(base);
}

static void judge_redirs(cp_judge *j, const sh_redir *r, size_t n, const char *part)
{
    for (size_t i = 0; i < n; i++) {
        const sh_word *t = &r[i].target;
        bool pipe = (t->flags & SHW_PROCSUB) &&
                    !(t->flags & (SHW_PARAM | SHW_CMDSUB | SHW_ARITH | SHW_GLOB));
        switch (r[i].op) {
        case SH_REDIR_IN:
            if (!pipe)
                cp_check_path(j, t, part);
            break;
        case SH_REDIR_OUT:
        case SH_REDIR_APPEND:
        case SH_REDIR_RDWR:
            if (pipe)
                break;
            if (t->flags & (SHW_UNKNOWN | SHW_GLOB | SHW_TILDE | SHW_PROCSUB)) {
                cp_ask(j, part, "output redirected to `%s`, a path hew cannot see",
                       cp_show(j, t->text));
            } else if (network_device(t->text)) {
                cp_ask(j, part, "output sent over the network (`%s`)", cp_show(j, t->text));
            } else if (!harmless_device(t->text)) {
                cp_ask(j, part, "output redirected to %s%s", cp_show(j, t->text),
                       path_outside(j, t->text, false) ? " (outside the workspace)" : "");
            }
            break;
        case SH_REDIR_DUP:
        case SH_REDIR_HEREDOC:
        case SH_REDIR_HERESTRING:
            break;
        }
    }
}

static void judge_event(cp_judge *j, const sh_event *ev)
{
    j->context = ev->context;
    if (ev->kind == SH_EV_PROBLEM) {
        cp_ask(j, NULL, "hew cannot judge %s", ev->problem);
        j->context = NULL;
        return;
    }
    char *full = join_words(ev->words, ev->nwords, false);
    if (!full) {
        j->oom = true;
        return;
    }
    judge_redirs(j, ev->redirs, ev->nredirs, full);
    size_t i = 0;
    for (; i < ev->nwords && ev->words[i].assign >= 0; i++)
        if (!harmless_assignment(&ev->words[i]))
            cp_ask(j, full, "`%s` sets a variable that can change what runs",
                   cp_show(j, ev->words[i].text));
    if (i < ev->nwords) {
        judge_argv(j, ev->words + i, ev->nwords - i, full, false);
    } else if (i > 0) {
        const char *texts[] = { full };
        const char *r = match_rules(j->o->deny, texts, 1);
        if (r)
            deny(j, r, full);
    }
    free(full);
    j->context = NULL;
}

static void drain(cp_judge *j, shparse *p)
{
    sh_event ev;
    while (shparse_next(p, &ev))
        judge_event(j, &ev);
}

/* The script of sh -c or eval, judged as a line of its own. */
static void judge_string(cp_judge *j, const char *line, const char *part)
{
    if (j->depth >= MAX_NESTING) {
        cp_ask(j, part, "commands nested too deep (sh -c, eval)");
        return;
    }
    shparse *p = shparse_new(j->parse_flags);
    if (!p) {
        j->oom = true;
        return;
    }
    const char *saved = j->context;
    j->depth++;
    shparse_feed(p, line, strlen(line));
    drain(j, p);
    shparse_end(p);
    drain(j, p);
    if (shparse_broken(p))
        cp_ask(j, part, "hew could not read the whole command");
    j->depth--;
    j->context = saved;
    shparse_free(p);
}

/* ---- the interface ------------------------------------------------------------------- */

static const char *shell_base(const char *shell)
{
    return strrchr(shell, '/') ? strrchr(shell, '/') + 1 : shell;
}

/* Shells that read $'…' (the rest are read as POSIX sh). */
static bool bash_like(const char *shell)
{
    static const char *const shells[] = { "bash", "zsh", "ksh", "mksh", "ksh93" };
    return shell && *shell && in_list(shell_base(shell), shells, sizeof shells / sizeof shells[0]);
}

const char *cmdpolicy_decision_name(cmdpolicy_decision d)
{
    return d == CMDPOLICY_SAFE ? "safe" : d == CMDPOLICY_DENY ? "deny" : "ask";
}

cmdpolicy *cmdpolicy_new(const cmdpolicy_opts *o)
{
    cmdpolicy *cp = calloc(1, sizeof *cp);
    if (!cp)
        return NULL;
    cp->j.o = o;
    cp->j.root = path_normalize(o->root && *o->root ? o->root : "/");
    cp->j.parse_flags = bash_like(o->shell) ? 0 : SHPARSE_POSIX;
    cp->p = shparse_new(cp->j.parse_flags);
    buf_init(&cp->line, SHPARSE_MAX_INPUT);
    if (!cp->j.root || !cp->p) {
        cmdpolicy_free(cp);
        return NULL;
    }
    return cp;
}

void cmdpolicy_free(cmdpolicy *cp)
{
    if (!cp)
        return;
    shparse_free(cp->p);
    free(cp->j.root);
    buf_release(&cp->line);
    free(cp);
}

void cmdpolicy_feed(cmdpolicy *cp, const char *data, size_t len)
{
    size_t room = SHPARSE_MAX_INPUT - cp->line.len;
    buf_append(&cp->line, data, len < room ? len : room);
    shparse_feed(cp->p, data, len);
    drain(&cp->j, cp->p);
}

static bool posix_shell(const char *shell)
{
    if (!shell || !*shell)
        return true;
    return in_list(shell_base(shell), posix_shells, sizeof posix_shells / sizeof posix_shells[0]);
}

void cmdpolicy_end(cmdpolicy *cp, cmdpolicy_verdict *out)
{
    cp_judge *j = &cp->j;
    shparse_end(cp->p);
    drain(j, cp->p);
    if (shparse_broken(cp->p))
        cp_ask(j, NULL, "hew could not read the whole command");
    if (j->oom)
        cp_ask(j, NULL, "hew ran out of memory judging the command");
    /* the whole line against the deny rules, as given and trimmed */
    const char *line = cp->line.data ? cp->line.data : "";
    size_t len = cp->line.len;
    while (len && strchr(" \t\n", line[len - 1]))
        len--;
    while (len && strchr(" \t\n", *line)) {
        line++;
        len--;
    }
    char *whole = strndup(line, len);
    if (whole) {
        const char *texts[] = { whole };
        const char *r = match_rules(j->o->deny, texts, 1);
        if (r)
            deny(j, r, whole);
    }
    if (!posix_shell(j->o->shell))
        cp_ask(j, NULL, "your shell `%s` is not a POSIX shell: hew cannot read its commands",
               cp_show(j, j->o->shell));

    memset(out, 0, sizeof *out);
    out->decision = j->decision;
    if (j->decision != CMDPOLICY_SAFE) {
        snprintf(out->reason, sizeof out->reason, "%s", j->reason);
        snprintf(out->part, sizeof out->part, "%s", j->part);
        snprintf(out->rule, sizeof out->rule, "%s", j->rule);
    } else if (j->outside) {
        out->outside = true;
        snprintf(out->reason, sizeof out->reason, "%s", j->out_reason);
        snprintf(out->part, sizeof out->part, "%s", j->out_part);
    } else {
        char progs[256] = "";
        for (size_t i = 0; i < j->nprogs; i++) {
            size_t at = strlen(progs);
            snprintf(progs + at, sizeof progs - at, "%s`%s`", i ? ", " : "", j->progs[i]);
        }
        char rule[SHOW_MAX + 16] = "";
        if (j->allowed[0]) {
            show_into(rule, sizeof rule, j->allowed, strlen(j->allowed), SHOW_MAX);
            show_into(out->rule, sizeof out->rule, j->allowed, strlen(j->allowed),
                      sizeof out->rule - 1);
        }
        char all[1024];
        if (rule[0] && progs[0])
            snprintf(all, sizeof all, "allowed by your rule `%s`; the rest is read-only (%s)",
                     rule, progs);
        else if (rule[0])
            snprintf(all, sizeof all, "allowed by your rule `%s`", rule);
        else if (progs[0])
            snprintf(all, sizeof all, "read-only: %s", progs);
        else
            snprintf(all, sizeof all, "runs no program");
        show_into(out->reason, sizeof out->reason, all, strlen(all), sizeof out->reason - 1);
        show_into(out->part, sizeof out->part, whole ? whole : "", whole ? strlen(whole) : 0,
                  PART_MAX);
    }
    free(whole);
}

void cmdpolicy_judge(const cmdpolicy_opts *o, const char *line, cmdpolicy_verdict *out)
{
    cmdpolicy *cp = cmdpolicy_new(o);
    if (!cp) {
        memset(out, 0, sizeof *out);
        out->decision = CMDPOLICY_ASK;
        snprintf(out->reason, sizeof out->reason, "hew ran out of memory judging the command");
        return;
    }
    cmdpolicy_feed(cp, line, strlen(line));
    cmdpolicy_end(cp, out);
    cmdpolicy_free(cp);
}
