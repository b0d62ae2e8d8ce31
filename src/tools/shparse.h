/* shparse — a push parser for a POSIX sh command line (with the bash forms models write:
 * $'…', <( ), >( ), &>, |&), made to JUDGE commands, never to run them. Feed it bytes in
 * any pieces; it hands back each simple command (its words after quote removal, its
 * redirections) as soon as the command is complete, and a "problem" for every construct
 * it cannot read with certainty. It does no I/O, expands nothing and never executes.
 *
 * What it reads: single, double and $'…' quotes, backslashes (and backslash-newline),
 * `|`, `||`, `&&`, `;`, `&`, `|&`, newlines, subshells `( )`, groups `{ }` and the
 * reserved words of if/while/until/for (dropped: the commands inside are returned one by
 * one), comments, redirections (`<`, `>`, `>>`, `>|`, `<>`, `&>`, `&>>`, `N>&M`, `<<`,
 * `<<-`, `<<<`, here-document bodies, with bash's backslash-newline joining in an
 * unquoted body), and expansions: `$name`, `${name}`, `$((…))`,
 * command substitutions `$(…)` and backticks and process substitutions `<(…)`, `>(…)`,
 * whose inner commands are returned too (with `context` saying where they came from).
 *
 * Words: `text` is the value with quotes removed and escapes applied; where a part of a
 * word is an expansion its value cannot be known, so the part's source text stands in it
 * (`cat $(echo f)` gives the words "cat" and "$(echo f)") and `flags` say so.
 *
 * Problems (kind SH_EV_PROBLEM, `problem` a static sentence): an unterminated quote or
 * substitution, an unmatched `)`, a `(` inside a command (function definitions, other
 * shells' syntax), `case` (`;;`), `${…}` with operators, `$((…))` with names or
 * expansions, a here-document body with a command substitution, nesting deeper than
 * SHPARSE_MAX_DEPTH, more than SHPARSE_MAX_INPUT bytes or SHPARSE_MAX_WORDS words. After
 * a problem the parser goes on as well as it can; a caller judging safety treats any
 * problem as "cannot judge". It never crashes or loops on any input.
 *
 * Use: p = shparse_new(0); shparse_feed(p, …) any number of times, draining with
 * shparse_next after each; shparse_end(p); drain again; shparse_free(p). */
#ifndef HEW_TOOLS_SHPARSE_H
#define HEW_TOOLS_SHPARSE_H

#include <stdbool.h>
#include <stddef.h>

#define SHPARSE_MAX_INPUT ((size_t)1 << 20) /* bytes of one command line */
#define SHPARSE_MAX_DEPTH 16                /* nested substitutions */
#define SHPARSE_MAX_WORDS 4096              /* words and redirections of one command */

/* sh_word.flags */
enum {
    SHW_QUOTED = 1 << 0,  /* some part was quoted or escaped */
    SHW_PARAM = 1 << 1,   /* holds a parameter expansion ($x, ${x}, $1, $@) */
    SHW_CMDSUB = 1 << 2,  /* holds a command substitution ($(…) or `…`) */
    SHW_PROCSUB = 1 << 3, /* holds a process substitution (<(…) or >(…)) */
    SHW_ARITH = 1 << 4,   /* holds an arithmetic expansion ($((…))) */
    SHW_SPLIT = 1 << 5,   /* an expansion outside double quotes: its value may split
                             into several words */
    SHW_LEAD = 1 << 6,    /* the value begins with an expansion or an unquoted glob
                             character: it may begin with anything, `-` included */
    SHW_GLOB = 1 << 7,    /* an unquoted *, ? or [ */
    SHW_TILDE = 1 << 8,   /* an unquoted ~ at the start (or after = or :): a home dir */
    SHW_BRACE = 1 << 9,   /* an unquoted {…,…} or {a..b}: bash brace expansion */
};
/* The flags that make a word's value unknown. */
#define SHW_UNKNOWN (SHW_PARAM | SHW_CMDSUB | SHW_ARITH | SHW_BRACE)

typedef struct sh_word {
    const char *text; /* NUL-terminated, no NUL inside ($'a\0b'c is "ac", as in bash) */
    size_t len;
    unsigned flags;
    int assign;       /* NAME=… (unquoted, valid name): the length of NAME; else -1 */
} sh_word;

typedef enum sh_redir_op {
    SH_REDIR_IN,         /* <  file, <& file */
    SH_REDIR_OUT,        /* >, >|, &>, >& file */
    SH_REDIR_APPEND,     /* >>, &>> */
    SH_REDIR_RDWR,       /* <> */
    SH_REDIR_DUP,        /* N>&M, N<&M with M a number or - (target: M) */
    SH_REDIR_HEREDOC,    /* <<, <<- (target: the delimiter; SHW_QUOTED: a literal body) */
    SH_REDIR_HERESTRING, /* <<< word */
} sh_redir_op;

typedef struct sh_redir {
    sh_redir_op op;
    int fd;          /* the descriptor written before the operator; -1: none given;
                        -2: &> (both output and errors) */
    sh_word target;
} sh_redir;

typedef enum sh_event_kind { SH_EV_COMMAND, SH_EV_PROBLEM } sh_event_kind;

typedef struct sh_event {
    sh_event_kind kind;
    const char *context;    /* NULL at the top level, else the innermost substitution:
                               "$(…)", "`…`", "<(…)", ">(…)" (static) */
    size_t nwords;          /* SH_EV_COMMAND: the words, assignments included */
    const sh_word *words;
    size_t nredirs;
    const sh_redir *redirs;
    const char *problem;    /* SH_EV_PROBLEM: what could not be read (static) */
} sh_event;

typedef struct shparse shparse;

/* shparse_new flags */
enum {
    SHPARSE_POSIX = 1 << 0, /* the line is for a POSIX sh (dash, …) rather than bash, zsh
                               or ksh: $'…' and $"…", which such a shell reads as `$`
                               and a quoted string (changing where quotes end), are
                               problems */
};

/* A new parser (flags: SHPARSE_*), or NULL when memory runs out. */
shparse *shparse_new(unsigned flags);
void shparse_free(shparse *p);

/* Push len bytes of the line. Never fails: input past SHPARSE_MAX_INPUT becomes a
 * problem and is skipped. */
void shparse_feed(shparse *p, const char *data, size_t len);
/* The line is complete: whatever is open is closed (and reported when it should not
 * be open). Feeding after this is ignored. */
void shparse_end(shparse *p);

/* The next event: 1 and *ev filled (borrowed until the next call or shparse_free), or 0
 * when there is none yet. Simple commands come in the order they end (so the commands
 * of a substitution come before the command holding it). */
int shparse_next(shparse *p, sh_event *ev);

/* True when the parser gave up reading (a cap, or memory ran out): what it returned is
 * not the whole line. A problem event says why, except when memory ran out. */
bool shparse_broken(const shparse *p);

#endif
