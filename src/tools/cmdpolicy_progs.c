/* cmdpolicy_progs — the table of programs hew runs without asking (under "commands"),
 * each with the options that would make it write, run another program or read files it
 * cannot see: `find -exec`, `sed -i` and sed's w/e commands, `sort -o`, `git -c`, `git
 * log --output`, `rg --pre`, … It must stay conservative: a program is here only when
 * every use of it that passes these checks reads and prints, and an option it does not
 * know how to read makes the command ask. It never touches the file system. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "tools/cmdpolicy_internal.h"

typedef bool (*prog_check_fn)(cp_judge *j, const sh_word *argv, size_t n, const char *part);

enum {
    P_NOFILES = 1 << 0,    /* its operands are not files (echo, basename, expr) */
    P_OPTS_FIRST = 1 << 1, /* options only before the first operand (printf) */
    P_CUSTOM = 1 << 2,     /* the check reads every argument itself (git, sed) */
};

struct cp_prog {
    const char *name;
    unsigned flags;
    const char *bad_short;         /* letters forbidden in a cluster of short options */
    const char *const *bad_long;   /* forbidden long options (without --), abbreviated too */
    const char *const *bad_exact;  /* forbidden words (find's primaries) */
    const char *why;               /* what the forbidden options do */
    const char *arg_short;         /* short options whose value follows (attached or next) */
    int max_operands;              /* more makes it write (uniq IN OUT); 0: any number */
    prog_check_fn check;           /* more checks, after the arguments; false: it asked */
};

/* ---- arguments ------------------------------------------------------------------------ */

struct argspec {
    const char *name;
    const char *bad_short;
    const char *const *bad_long;
    const char *const *bad_exact;
    const char *why;
    const char *arg_short;
    bool nofiles, opts_first;
};

/* May the word become an option (or several words) once the shell expands it? */
static bool may_be_option(const struct argspec *s, const sh_word *w)
{
    if (w->flags & SHW_SPLIT)
        return true;
    if (!(w->flags & SHW_LEAD))
        return false;
    if (w->flags & (SHW_PARAM | SHW_CMDSUB | SHW_ARITH))
        return true;
    if (s->bad_short || s->bad_long)
        return true; /* a glob like *.txt matches a file named -o.txt */
    for (const char *const *e = s->bad_exact; e && *e; e++)
        if (fnmatch(w->text, *e, 0) == 0)
            return true;
    return false;
}

/* The forbidden option t is or holds, or NULL. */
static const char *bad_option(const struct argspec *s, const char *t, char *letter)
{
    for (const char *const *e = s->bad_exact; e && *e; e++)
        if (strcmp(t, *e) == 0)
            return *e;
    if (t[1] == '-') {
        const char *name = t + 2;
        size_t n = strcspn(name, "=");
        if (!n)
            return NULL;
        for (const char *const *b = s->bad_long; b && *b; b++)
            if (strncmp(*b, name, n) == 0) /* GNU takes any unambiguous abbreviation */
                return *b;
        return NULL;
    }
    if (s->bad_exact && !s->bad_short)
        return NULL; /* find: its primaries are words, not letters */
    for (const char *c = t + 1; *c; c++) {
        if (s->bad_short && strchr(s->bad_short, *c)) {
            letter[0] = '-';
            letter[1] = *c;
            letter[2] = '\0';
            return letter;
        }
        if (s->arg_short && strchr(s->arg_short, *c))
            break; /* the rest is this option's value */
    }
    return NULL;
}

/* Does the option word t take the next word as its value? */
static bool takes_next(const struct argspec *s, const char *t)
{
    if (t[1] == '-' || !s->arg_short)
        return false;
    for (const char *c = t + 1; *c; c++)
        if (strchr(s->arg_short, *c))
            return c[1] == '\0';
    return false;
}

/* The arguments argv[start..n): forbidden options, words that may expand to options,
 * brace expansions, paths. Counts the operands. false: it asked. */
static bool check_args(cp_judge *j, const struct argspec *s, const sh_word *argv, size_t n,
                       size_t start, const char *part, int *operands)
{
    bool ended = false, value_next = false;
    bool options = s->bad_short || s->bad_long || s->bad_exact;
    *operands = 0;
    for (size_t k = start; k < n; k++) {
        const sh_word *w = &argv[k];
        const char *t = w->text;
        bool optpos = !ended && (!s->opts_first || (k == start && !value_next));
        if (w->flags & SHW_BRACE) {
            cp_ask(j, part, "`%s` is a brace expansion: hew cannot see the words it makes",
                   cp_show(j, t));
            return false;
        }
        if (options && optpos && !value_next && may_be_option(s, w)) {
            cp_ask(j, part, "`%s` may expand to an option of `%s` (some of its options %s)",
                   cp_show(j, t), s->name, s->why);
            return false;
        }
        if (value_next) { /* an option's value: not an operand, maybe a file */
            value_next = false;
            if (!s->nofiles)
                cp_check_path(j, w, part);
            continue;
        }
        bool plain = !(w->flags & (SHW_UNKNOWN | SHW_LEAD));
        if (optpos && plain && strcmp(t, "--") == 0 && !s->bad_exact) {
            ended = true;
            continue;
        }
        if (optpos && plain && t[0] == '-' && t[1]) {
            char letter[3];
            const char *bad = bad_option(s, t, letter);
            if (bad) {
                cp_ask(j, part, "`%s %s%s` %s", s->name, bad[0] == '-' ? "" : "--", bad,
                       s->why);
                return false;
            }
            if (!s->nofiles)
                cp_check_path(j, w, part); /* its value: --file=/etc/x, -f/etc/x */
            value_next = takes_next(s, t);
            continue;
        }
        (*operands)++;
        if (!s->nofiles)
            cp_check_path(j, w, part);
    }
    return true;
}

static struct argspec spec_of(const cp_prog *pr)
{
    return (struct argspec){ pr->name,         pr->bad_short, pr->bad_long,
                             pr->bad_exact,    pr->why,       pr->arg_short,
                             (pr->flags & P_NOFILES) != 0, (pr->flags & P_OPTS_FIRST) != 0 };
}

/* ---- checks of single programs ---------------------------------------------------- */

/* date: an operand that is not a +FORMAT sets the clock. */
static bool date_check(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    static const struct argspec s = { "date", NULL, NULL, NULL, NULL, "dfrI", true, false };
    bool value_next = false;
    for (size_t k = 1; k < n; k++) {
        const char *t = argv[k].text;
        if (value_next) {
            value_next = false;
            continue;
        }
        if (t[0] == '-') {
            value_next = takes_next(&s, t);
            continue;
        }
        if (t[0] != '+' || (argv[k].flags & SHW_LEAD)) {
            cp_ask(j, part, "`date %s` sets the system clock", cp_show(j, t));
            return false;
        }
    }
    return true;
}

/* cd: no operand or `-` goes to a directory outside the workspace. */
static bool cd_check(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    size_t k = 1;
    while (k < n && argv[k].text[0] == '-' && strcmp(argv[k].text, "-") != 0)
        k++;
    if (k == n)
        cp_outside(j, part, "`cd` alone goes to your home directory, outside the workspace");
    else if (strcmp(argv[k].text, "-") == 0)
        cp_outside(j, part, "`cd -` goes back to a directory hew cannot see");
    return true;
}

/* for NAME in WORDS: the loop variable must not be one that changes what runs (PATH,
 * IFS, …): only lower-case names. */
static bool for_check(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    if (n < 2 || argv[1].flags != 0) {
        cp_ask(j, part, "a `for` loop hew cannot read");
        return false;
    }
    for (const char *c = argv[1].text; *c; c++)
        if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_')) {
            cp_ask(j, part, "`for %s` sets a variable that may change what runs (only "
                            "lower-case loop variables run without asking)",
                   cp_show(j, argv[1].text));
            return false;
        }
    size_t k = 2;
    if (k < n && strcmp(argv[k].text, "in") == 0)
        k++;
    for (; k < n; k++) {
        if (argv[k].flags & SHW_BRACE) {
            cp_ask(j, part, "`%s` is a brace expansion: hew cannot see the words it makes",
                   cp_show(j, argv[k].text));
            return false;
        }
        cp_check_path(j, &argv[k], part);
    }
    return true;
}

/* ---- sed ------------------------------------------------------------------------------ */

struct sedscan {
    const char *s;
    size_t i;
    const char *why;
};

static void sed_blank(struct sedscan *sc)
{
    while (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\t')
        sc->i++;
}

/* The text of a regex or a replacement up to the delimiter; in a regex a bracket
 * expression may hold the delimiter (as GNU sed reads it). */
static bool sed_part(struct sedscan *sc, char delim, bool regex)
{
    const char *s = sc->s;
    while (s[sc->i] && s[sc->i] != delim) {
        if (s[sc->i] == '\\') {
            if (!s[sc->i + 1])
                return false;
            sc->i += 2;
            continue;
        }
        if (regex && s[sc->i] == '[') {
            sc->i++;
            if (s[sc->i] == '^')
                sc->i++;
            if (s[sc->i] == ']')
                sc->i++;
            while (s[sc->i] && s[sc->i] != ']') {
                if (s[sc->i] == '\\')
                    return false; /* read differently by different seds: ask */
                if (s[sc->i] == '[' && s[sc->i + 1] && strchr(":.=", s[sc->i + 1])) {
                    char close = s[sc->i + 1];
                    sc->i += 2;
                    while (s[sc->i] && !(s[sc->i] == close && s[sc->i + 1] == ']'))
                        sc->i++;
                    if (!s[sc->i])
                        return false;
                    sc->i += 2;
                    continue;
                }
                sc->i++;
            }
            if (!s[sc->i])
                return false;
            sc->i++;
            continue;
        }
        sc->i++;
    }
    if (s[sc->i] != delim)
        return false;
    sc->i++;
    return true;
}

static bool sed_address(struct sedscan *sc, bool second)
{
    const char *s = sc->s;
    if (second && (s[sc->i] == '+' || s[sc->i] == '~'))
        sc->i++;
    if (isdigit((unsigned char)s[sc->i])) {
        while (isdigit((unsigned char)s[sc->i]))
            sc->i++;
        if (s[sc->i] == '~') {
            sc->i++;
            while (isdigit((unsigned char)s[sc->i]))
                sc->i++;
        }
        return true;
    }
    if (s[sc->i] == '$') {
        sc->i++;
        return true;
    }
    char delim = 0;
    if (s[sc->i] == '/') {
        delim = '/';
        sc->i++;
    } else if (s[sc->i] == '\\' && s[sc->i + 1] && s[sc->i + 1] != '\n') {
        delim = s[sc->i + 1];
        sc->i += 2;
    }
    if (delim) {
        if (!sed_part(sc, delim, true))
            return false;
        while (s[sc->i] == 'I' || s[sc->i] == 'M')
            sc->i++;
    }
    return true;
}

/* The label of b, t, T, : — up to a `;` or the end of the line (a sed that reads the
 * rest of the line as the label only makes the script do less). */
static void sed_label(struct sedscan *sc)
{
    sed_blank(sc);
    while (sc->s[sc->i] && sc->s[sc->i] != ';' && sc->s[sc->i] != '\n')
        sc->i++;
}

/* After a command: only a separator may follow. */
static bool sed_end_of_command(struct sedscan *sc)
{
    sed_blank(sc);
    char c = sc->s[sc->i];
    if (c && !strchr(";\n}#", c)) {
        sc->why = "has a sed command hew cannot read";
        return false;
    }
    return true;
}

/* A sed script that only prints: no w/W (write), e (run), r/R (read a file hew cannot
 * see), no s///w or s///e, nothing hew cannot read. */
static bool sed_script_ok(const char *script, const char **why)
{
    struct sedscan sc = { script, 0, "has a sed command hew cannot read" };
    const char *s = script;
    for (;;) {
        while (s[sc.i] && strchr(" \t\n;", s[sc.i]))
            sc.i++;
        if (!s[sc.i])
            return true;
        if (!sed_address(&sc, false))
            goto bad;
        sed_blank(&sc);
        if (s[sc.i] == ',') {
            sc.i++;
            sed_blank(&sc);
            if (!sed_address(&sc, true))
                goto bad;
        }
        sed_blank(&sc);
        while (s[sc.i] == '!') {
            sc.i++;
            sed_blank(&sc);
        }
        char cmd = s[sc.i];
        if (!cmd)
            goto bad;
        sc.i++;
        switch (cmd) {
        case '{':
        case '}':
            continue;
        case '#':
            while (s[sc.i] && s[sc.i] != '\n')
                sc.i++;
            continue;
        case ':':
        case 'b':
        case 't':
        case 'T':
            sed_label(&sc);
            continue;
        case '=':
        case 'd':
        case 'D':
        case 'g':
        case 'G':
        case 'h':
        case 'H':
        case 'l':
        case 'L':
        case 'n':
        case 'N':
        case 'p':
        case 'P':
        case 'q':
        case 'Q':
        case 'x':
        case 'z':
        case 'F':
            sed_blank(&sc);
            while (isdigit((unsigned char)s[sc.i]))
                sc.i++;
            if (!sed_end_of_command(&sc))
                goto bad;
            continue;
        case 'a':
        case 'i':
        case 'c':
            /* text to the end of the line, lines ending in a backslash go on */
            while (s[sc.i]) {
                if (s[sc.i] == '\\' && s[sc.i + 1]) {
                    sc.i += 2;
                    continue;
                }
                if (s[sc.i] == '\n')
                    break;
                sc.i++;
            }
            continue;
        case 's': {
            char delim = s[sc.i];
            if (!delim || delim == '\n' || delim == '\\')
                goto bad;
            sc.i++;
            if (!sed_part(&sc, delim, true) || !sed_part(&sc, delim, false)) {
                sc.why = "has an `s` command hew cannot read";
                goto bad;
            }
            for (;;) {
                char f = s[sc.i];
                if (f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' ||
                    isdigit((unsigned char)f)) {
                    sc.i++;
                    continue;
                }
                if (f == 'w' || f == 'W') {
                    sc.why = "writes a file (the `w` flag of `s`)";
                    goto bad;
                }
                if (f == 'e') {
                    sc.why = "runs a command (the `e` flag of `s`)";
                    goto bad;
                }
                break;
            }
            if (!sed_end_of_command(&sc))
                goto bad;
            continue;
        }
        case 'y': {
            char delim = s[sc.i];
            if (!delim || delim == '\n' || delim == '\\')
                goto bad;
            sc.i++;
            if (!sed_part(&sc, delim, false) || !sed_part(&sc, delim, false) ||
                !sed_end_of_command(&sc))
                goto bad;
            continue;
        }
        case 'w':
        case 'W':
            sc.why = "writes a file (sed's `w` command)";
            goto bad;
        case 'e':
            sc.why = "runs a command (sed's `e` command)";
            goto bad;
        case 'r':
        case 'R':
            sc.why = "reads a file hew does not check (sed's `r` command)";
            goto bad;
        default:
            goto bad;
        }
    }
bad:
    *why = sc.why;
    return false;
}

static bool sed_script(cp_judge *j, const sh_word *w, const char *script, const char *part)
{
    if (w->flags & (SHW_UNKNOWN | SHW_PROCSUB)) {
        cp_ask(j, part, "hew cannot see the sed script `%s`", cp_show(j, w->text));
        return false;
    }
    const char *why = NULL;
    if (!sed_script_ok(script, &why)) {
        cp_ask(j, part, "the sed script `%s` %s", cp_show(j, script), why);
        return false;
    }
    return true;
}

static bool prefix_of(const char *name, size_t n, const char *full)
{
    return n && strncmp(full, name, n) == 0;
}

/* sed: options, the script (-e/--expression, else the first operand), files. */
static bool sed_check(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    static const char *const fine_long[] = {
        "quiet", "silent", "regexp-extended", "posix", "debug", "sandbox", "separate",
        "unbuffered", "null-data", "zero-terminated", "line-length", "help", "version",
        "binary", NULL,
    };
    bool have_script = false, ended = false;
    for (size_t k = 1; k < n; k++) {
        const sh_word *w = &argv[k];
        const char *t = w->text;
        if (!ended && (w->flags & (SHW_SPLIT | SHW_LEAD))) {
            cp_ask(j, part, "`%s` may expand to an option of `sed` (-i edits files in place)",
                   cp_show(j, t));
            return false;
        }
        if (ended || t[0] != '-' || !t[1]) {
            if (!have_script) {
                if (!sed_script(j, w, t, part))
                    return false;
                have_script = true;
            } else {
                cp_check_path(j, w, part);
            }
            continue;
        }
        if (strcmp(t, "--") == 0) {
            ended = true;
            continue;
        }
        if (t[1] == '-') {
            const char *name = t + 2;
            size_t len = strcspn(name, "=");
            if (prefix_of(name, len, "in-place")) {
                cp_ask(j, part, "`sed %s` edits files in place", cp_show(j, t));
                return false;
            }
            if (prefix_of(name, len, "file")) {
                cp_ask(j, part, "`sed %s` reads a script hew cannot see", cp_show(j, t));
                return false;
            }
            if (prefix_of(name, len, "expression")) {
                const sh_word *sw = w;
                const char *script = name[len] == '=' ? name + len + 1 : NULL;
                if (!script) {
                    if (k + 1 >= n)
                        return true;
                    sw = &argv[++k];
                    script = sw->text;
                }
                if (!sed_script(j, sw, script, part))
                    return false;
                have_script = true;
                continue;
            }
            bool fine = false;
            for (const char *const *f = fine_long; *f && !fine; f++)
                fine = prefix_of(name, len, *f);
            if (!fine) {
                cp_ask(j, part, "hew does not know the sed option `%s`", cp_show(j, t));
                return false;
            }
            continue;
        }
        for (const char *c = t + 1; *c; c++) {
            if (strchr("nErsuz", *c))
                continue;
            if (*c == 'i') {
                cp_ask(j, part, "`sed -i` edits files in place");
                return false;
            }
            if (*c == 'f') {
                cp_ask(j, part, "`sed -f` reads a script hew cannot see");
                return false;
            }
            if (*c == 'e' || *c == 'l') {
                const sh_word *vw = w;
                const char *v = c + 1;
                if (!*v) {
                    if (k + 1 >= n)
                        return true;
                    vw = &argv[++k];
                    v = vw->text;
                }
                if (*c == 'e') {
                    if (!sed_script(j, vw, v, part))
                        return false;
                    have_script = true;
                }
                break;
            }
            cp_ask(j, part, "hew does not know the sed option `-%c`", *c);
            return false;
        }
    }
    return true;
}

/* ---- git ------------------------------------------------------------------------------ */

static const char *const git_bad_long[] = {
    "output", "ext-diff", "textconv", "exec", "paginate", "open-files-in-pager", "filters",
    "upload-pack", "receive-pack", "config-env", NULL,
};

/* git branch: only listing (Codex's rule): no name, no -d/-D/-m/-c. */
static bool git_branch(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    static const char *const ok[] = { "--list", "-l", "--show-current", "-a", "--all", "-r",
                                      "--remotes", "-v", "-vv", "--verbose", "--no-color",
                                      "--color", NULL };
    for (size_t k = 0; k < n; k++) {
        const char *t = argv[k].text;
        bool fine = strncmp(t, "--format=", 9) == 0 || strncmp(t, "--sort=", 7) == 0;
        for (const char *const *o = ok; *o && !fine; o++)
            fine = strcmp(t, *o) == 0;
        if (!fine) {
            cp_ask(j, part, "`git branch %s` may create, rename or delete a branch",
                   cp_show(j, t));
            return false;
        }
    }
    return true;
}

/* git tag: listing only (-l/--list, or nothing). */
static bool git_tag(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    bool list = false;
    for (size_t k = 0; k < n; k++) {
        const char *t = argv[k].text;
        if (strcmp(t, "-l") == 0 || strcmp(t, "--list") == 0)
            list = true;
        else if (t[0] == '-' && strncmp(t, "--sort=", 7) != 0 &&
                 strncmp(t, "--format=", 9) != 0 && strncmp(t, "-n", 2) != 0) {
            cp_ask(j, part, "`git tag %s` may create or delete a tag", cp_show(j, t));
            return false;
        }
    }
    for (size_t k = 0; k < n && !list; k++)
        if (argv[k].text[0] != '-') {
            cp_ask(j, part, "`git tag %s` creates a tag", cp_show(j, argv[k].text));
            return false;
        }
    return true;
}

/* git remote: listing (-v) and get-url only. */
static bool git_remote(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    for (size_t k = 0; k < n; k++) {
        const char *t = argv[k].text;
        if (strcmp(t, "-v") == 0 || strcmp(t, "--verbose") == 0)
            continue;
        if (k == 0 && strcmp(t, "get-url") == 0)
            return true;
        cp_ask(j, part, "`git remote %s` may change the remotes or reach the network",
               cp_show(j, t));
        return false;
    }
    return true;
}

/* git reflog / git stash: showing only (bare: whether the command alone only shows). */
static bool git_show_only(cp_judge *j, const sh_word *argv, size_t n, const char *part,
                          const char *sub, bool bare, const char *const *ok)
{
    if (n == 0 || argv[0].text[0] == '-') {
        if (!bare)
            cp_ask(j, part, "`git %s` without a subcommand changes the work tree", sub);
        return bare;
    }
    for (const char *const *o = ok; *o; o++)
        if (strcmp(argv[0].text, *o) == 0)
            return true;
    cp_ask(j, part, "`git %s %s` changes the repository", sub, cp_show(j, argv[0].text));
    return false;
}

static bool git_reflog(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    static const char *const ok[] = { "show", "exists", NULL };
    return git_show_only(j, argv, n, part, "reflog", true, ok);
}

static bool git_stash(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    static const char *const ok[] = { "list", "show", NULL };
    return git_show_only(j, argv, n, part, "stash", false, ok);
}

static const struct git_sub {
    const char *name;
    const char *bad_short;
    bool (*check)(cp_judge *j, const sh_word *argv, size_t n, const char *part);
} git_subs[] = {
    { "status", NULL, NULL },      { "log", NULL, NULL },          { "diff", NULL, NULL },
    { "show", NULL, NULL },        { "rev-parse", NULL, NULL },    { "ls-files", NULL, NULL },
    { "blame", NULL, NULL },       { "annotate", NULL, NULL },     { "grep", "O", NULL },
    { "shortlog", NULL, NULL },    { "describe", NULL, NULL },     { "rev-list", NULL, NULL },
    { "ls-tree", NULL, NULL },     { "cat-file", NULL, NULL },     { "merge-base", NULL, NULL },
    { "name-rev", NULL, NULL },    { "whatchanged", NULL, NULL },  { "show-ref", NULL, NULL },
    { "count-objects", NULL, NULL }, { "version", NULL, NULL },    { "diff-tree", NULL, NULL },
    { "diff-files", NULL, NULL },  { "diff-index", NULL, NULL },   { "for-each-ref", NULL, NULL },
    { "show-branch", NULL, NULL }, { "branch", NULL, git_branch }, { "tag", NULL, git_tag },
    { "remote", NULL, git_remote }, { "reflog", NULL, git_reflog }, { "stash", NULL, git_stash },
};

static bool git_check(cp_judge *j, const sh_word *argv, size_t n, const char *part)
{
    static const char *const fine_global[] = {
        "--no-pager", "-P", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
        "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice",
        "--version", NULL,
    };
    size_t k = 1;
    for (; k < n; k++) {
        const sh_word *w = &argv[k];
        const char *t = w->text;
        if (w->flags & (SHW_UNKNOWN | SHW_LEAD | SHW_SPLIT)) {
            cp_ask(j, part, "`%s` may expand to an option of `git` (-c can make git run any "
                            "program)",
                   cp_show(j, t));
            return false;
        }
        if (t[0] != '-')
            break;
        if (strcmp(t, "-C") == 0) {
            if (++k < n)
                cp_check_path(j, &argv[k], part);
            continue;
        }
        if (strncmp(t, "-C", 2) == 0) {
            cp_check_path(j, w, part);
            continue;
        }
        bool fine = false;
        for (const char *const *f = fine_global; *f && !fine; f++)
            fine = strcmp(t, *f) == 0;
        if (fine)
            continue;
        if (strncmp(t, "-c", 2) == 0 || strncmp(t, "--config-env", 12) == 0)
            cp_ask(j, part, "`git %s` sets configuration that can make git run any program",
                   cp_show(j, t));
        else if (strncmp(t, "--git-dir", 9) == 0 || strncmp(t, "--work-tree", 11) == 0 ||
                 strncmp(t, "--exec-path", 11) == 0)
            cp_ask(j, part, "`git %s` points git at another repository or programs (whose "
                            "configuration can run anything)",
                   cp_show(j, t));
        else
            cp_ask(j, part, "hew does not know the git option `%s`", cp_show(j, t));
        return false;
    }
    if (k >= n)
        return true; /* git alone prints its help */
    const char *sub = argv[k].text;
    const struct git_sub *gs = NULL;
    for (size_t i = 0; i < sizeof git_subs / sizeof git_subs[0] && !gs; i++)
        if (strcmp(git_subs[i].name, sub) == 0)
            gs = &git_subs[i];
    if (!gs) {
        cp_ask(j, part, "`git %s` is not a read-only git command", cp_show(j, sub));
        return false;
    }
    char name[64];
    snprintf(name, sizeof name, "git %s", gs->name);
    const struct argspec s = { name, gs->bad_short, git_bad_long, NULL,
                               "can write files or run other programs", NULL, false, false };
    int operands;
    if (!check_args(j, &s, argv, n, k + 1, part, &operands))
        return false;
    return !gs->check || gs->check(j, argv + k + 1, n - k - 1, part);
}

/* ---- the table ------------------------------------------------------------------------- */

static const char *const find_bad[] = { "-exec",  "-execdir", "-ok",      "-okdir",   "-delete",
                                        "-fls",   "-fprint",  "-fprint0", "-fprintf", NULL };
static const char *const rg_bad[] = { "pre", "hostname-bin", "search-zip", NULL };
static const char *const sort_bad[] = { "output", "compress-program", "files0-from", NULL };
static const char *const output_bad[] = { "output", NULL };
static const char *const file_bad[] = { "compile", "files-from", NULL };
static const char *const check_bad[] = { "check", NULL };
static const char *const date_bad[] = { "set", NULL };

#define READS "can read a list of files hew cannot see"

/* Sorted by name. */
static const cp_prog progs[] = {
    { ":", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "[", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "arch", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "b2sum", 0, "c", check_bad, NULL, READS, NULL, 0, NULL },
    { "base32", 0, "o", output_bad, NULL, "can write a file", "w", 0, NULL },
    { "base64", 0, "o", output_bad, NULL, "can write a file", "w", 0, NULL },
    { "basename", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "cat", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "cd", 0, NULL, NULL, NULL, NULL, NULL, 0, cd_check },
    { "cksum", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "cmp", 0, NULL, NULL, NULL, NULL, "in", 0, NULL },
    { "column", 0, NULL, NULL, NULL, NULL, "cstoNRWHE", 0, NULL },
    { "comm", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "cut", 0, NULL, NULL, NULL, NULL, "bcdf", 0, NULL },
    { "date", 0, "s", date_bad, NULL, "can set the system clock", "dfrI", 0, date_check },
    { "df", 0, NULL, NULL, NULL, NULL, "BtxF", 0, NULL },
    { "diff", 0, NULL, NULL, NULL, NULL, "CDFILSUXx", 0, NULL },
    { "dirname", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "du", 0, NULL, NULL, NULL, NULL, "BdtX", 0, NULL },
    { "echo", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "egrep", 0, NULL, NULL, NULL, NULL, "efmABCdD", 0, NULL },
    { "expand", 0, NULL, NULL, NULL, NULL, "t", 0, NULL },
    { "expr", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "false", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "fgrep", 0, NULL, NULL, NULL, NULL, "efmABCdD", 0, NULL },
    { "file", 0, "Cf", file_bad, NULL, "can write a compiled magic file or read a list of files hew cannot see", "mFeP", 0,
      NULL },
    { "find", 0, NULL, NULL, find_bad, "can delete files, write files or run other programs", NULL,
      0, NULL },
    { "fmt", 0, NULL, NULL, NULL, NULL, "wgp", 0, NULL },
    { "fold", 0, NULL, NULL, NULL, NULL, "w", 0, NULL },
    { "for", 0, NULL, NULL, NULL, NULL, NULL, 0, for_check },
    { "git", P_CUSTOM, NULL, NULL, NULL, NULL, NULL, 0, git_check },
    { "grep", 0, NULL, NULL, NULL, NULL, "efmABCdD", 0, NULL },
    { "head", 0, NULL, NULL, NULL, NULL, "nc", 0, NULL },
    { "id", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "join", 0, NULL, NULL, NULL, NULL, "aejot12", 0, NULL },
    { "jq", 0, NULL, NULL, NULL, NULL, "fL", 0, NULL },
    { "ls", 0, NULL, NULL, NULL, NULL, "IwT", 0, NULL },
    { "md5sum", 0, "c", check_bad, NULL, READS, NULL, 0, NULL },
    { "nl", 0, NULL, NULL, NULL, NULL, "bdfhilnsvw", 0, NULL },
    { "nproc", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "numfmt", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "od", 0, NULL, NULL, NULL, NULL, "AjNtw", 0, NULL },
    { "paste", 0, NULL, NULL, NULL, NULL, "d", 0, NULL },
    { "printf", P_NOFILES | P_OPTS_FIRST, "v", NULL, NULL, "can set a shell variable", NULL, 0,
      NULL },
    { "pwd", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "readlink", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "realpath", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "rev", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "rg", 0, "z", rg_bad, NULL, "can run other programs", "efgtTmABCMjrE", 0, NULL },
    { "sed", P_CUSTOM, NULL, NULL, NULL, NULL, NULL, 0, sed_check },
    { "seq", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "sha1sum", 0, "c", check_bad, NULL, READS, NULL, 0, NULL },
    { "sha224sum", 0, "c", check_bad, NULL, READS, NULL, 0, NULL },
    { "sha256sum", 0, "c", check_bad, NULL, READS, NULL, 0, NULL },
    { "sha384sum", 0, "c", check_bad, NULL, READS, NULL, 0, NULL },
    { "sha512sum", 0, "c", check_bad, NULL, READS, NULL, 0, NULL },
    { "sleep", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "sort", 0, "o", sort_bad, NULL, "can write files or run other programs", "kStT", 0, NULL },
    { "stat", 0, NULL, NULL, NULL, NULL, "c", 0, NULL },
    { "strings", 0, NULL, NULL, NULL, NULL, "nte", 0, NULL },
    { "tac", 0, NULL, NULL, NULL, NULL, "s", 0, NULL },
    { "tail", 0, NULL, NULL, NULL, NULL, "nc", 0, NULL },
    { "test", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "tr", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "tree", 0, "oR", NULL, NULL, "can write files", "LPIH", 0, NULL },
    { "true", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "type", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "uname", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "unexpand", 0, NULL, NULL, NULL, NULL, "t", 0, NULL },
    { "uniq", 0, NULL, NULL, NULL, NULL, "fsw", 1, NULL },
    { "wc", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "which", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "whoami", P_NOFILES, NULL, NULL, NULL, NULL, NULL, 0, NULL },
    { "xxd", 0, NULL, NULL, NULL, NULL, "cglosn", 1, NULL },
};

const cp_prog *cp_prog_find(const char *name)
{
    size_t lo = 0, hi = sizeof progs / sizeof progs[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, progs[mid].name);
        if (c == 0)
            return &progs[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

void cp_prog_judge(cp_judge *j, const cp_prog *pr, const sh_word *argv, size_t n,
                   const char *part, bool unknown_args)
{
    struct argspec s = spec_of(pr);
    bool options = pr->bad_short || pr->bad_long || pr->bad_exact || (pr->flags & P_CUSTOM);
    if (unknown_args) {
        if (options || pr->max_operands || pr->check) {
            cp_ask(j, part, "`xargs` gives `%s` arguments hew cannot see", pr->name);
            return;
        }
        if (!(pr->flags & P_NOFILES))
            cp_outside(j, part, "`xargs` gives `%s` paths hew cannot see", pr->name);
    }
    if (!(pr->flags & P_CUSTOM)) {
        int operands = 0;
        if (!check_args(j, &s, argv, n, 1, part, &operands))
            return;
        if (pr->max_operands && operands > pr->max_operands) {
            cp_ask(j, part, "`%s` with %d operands writes its output to the last one",
                   pr->name, operands);
            return;
        }
    }
    if (pr->check && !pr->check(j, argv, n, part))
        return;
    cp_read_only(j, pr->name);
}
