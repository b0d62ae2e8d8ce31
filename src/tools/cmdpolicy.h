/* cmdpolicy — hew's own judgement of a shell command line, so that what runs without
 * asking never rests on the model's word. A push-style analyser with no I/O: feed it the
 * line (in any pieces), end it, and it gives a decision with a reason a person can read.
 *
 *   SAFE  every simple command of the line (pipes, lists, subshells, substitutions and
 *         what `sh -c`, `eval`, `xargs`, `env`, `timeout`, … run included) is a program
 *         on hew's read-only list used without its dangerous options, or is allowed by
 *         one of the user's allow rules; nothing is written except to /dev/null or the
 *         command's own output; no substitution it cannot see through. `outside` says
 *         that it names (or may name: an expansion, `~`) a path outside the workspace —
 *         it then counts as reading outside the workspace.
 *   ASK   anything else: a program not on the list, a dangerous option (`find -delete`,
 *         `sed -i`, `git -c`, `sort -o`, …), a redirection that writes a file, an
 *         assignment that can change what runs (PATH=…), a construct it cannot read.
 *   DENY  a simple command, a command a wrapper runs, or the whole line matches one of
 *         the user's deny rules. Deny wins over everything, allow rules included.
 *
 * Rules (allow and deny) are command prefixes or globs: a pattern without * ? [ matches
 * a command equal to it or starting with it and a space ("git status" matches
 * "git status -s", not "git statusx"); with them it is an fnmatch(3) glob over the whole
 * command ("npm test*", "rm -rf*"; `*` matches `/` too). A simple command is matched
 * after quote removal, its words joined by single spaces, with and without its leading
 * assignments, and with its program named as written and by its base name ("/bin/rm -rf
 * x" is also "rm -rf x"). The whole line is matched (as given) against deny rules only:
 * allowing `npm test*` never lets `npm test; rm -rf ~` through.
 *
 * Paths: an argument (or an option's value after `=`) that is absolute, starts with `~`
 * or climbs out with `..` is resolved lexically against the workspace root; outside it,
 * the command is outside. Lexical only: a symlink inside the workspace that points out
 * is not seen (the sandbox closes that). What it cannot catch is documented in hew(1).
 *
 * The analysis of one line is bounded (SHPARSE_MAX_INPUT bytes, nesting depth) and never
 * crashes on any input; anything it cannot read asks. */
#ifndef HEW_TOOLS_CMDPOLICY_H
#define HEW_TOOLS_CMDPOLICY_H

#include <stdbool.h>
#include <stddef.h>

typedef enum cmdpolicy_decision { CMDPOLICY_SAFE, CMDPOLICY_ASK, CMDPOLICY_DENY } cmdpolicy_decision;

typedef struct cmdpolicy_opts {
    const char *root;          /* the workspace root, absolute (the commands' directory) */
    const char *shell;         /* the shell that will run the line; NULL: /bin/sh. A shell
                                  that is not POSIX-like (fish, csh, …) makes every line ask */
    const char *const *allow;  /* the user's allow rules, NULL-terminated; NULL: none */
    const char *const *deny;   /* the deny rules, NULL-terminated; NULL: none */
} cmdpolicy_opts;

#define CMDPOLICY_TEXT_MAX 512

typedef struct cmdpolicy_verdict {
    cmdpolicy_decision decision;
    bool outside;                   /* SAFE, but reads (or may read) outside the workspace */
    char reason[CMDPOLICY_TEXT_MAX]; /* why, naming the rule and the part: "`rm` is not a
                                        read-only program: rm -rf build" */
    char part[CMDPOLICY_TEXT_MAX];   /* the part of the line the reason is about */
    char rule[CMDPOLICY_TEXT_MAX];   /* the user's rule that decided (deny, or the allow
                                        rule of a SAFE line), else "" */
} cmdpolicy_verdict;
/* The texts are valid UTF-8 with control characters shown as \n, \t, \xNN: safe to show
 * and to put in JSON. Long parts are cut with "…". */

typedef struct cmdpolicy cmdpolicy;

/* A new analyser for one line; o and the strings it points to are borrowed until
 * cmdpolicy_free. NULL when memory runs out. */
cmdpolicy *cmdpolicy_new(const cmdpolicy_opts *o);
void cmdpolicy_free(cmdpolicy *cp);
/* Push bytes of the line. */
void cmdpolicy_feed(cmdpolicy *cp, const char *data, size_t len);
/* The line is complete: the verdict. Call once. */
void cmdpolicy_end(cmdpolicy *cp, cmdpolicy_verdict *out);

/* The whole thing for a NUL-terminated line. Out of memory gives ASK. */
void cmdpolicy_judge(const cmdpolicy_opts *o, const char *line, cmdpolicy_verdict *out);

/* "safe", "ask", "deny". */
const char *cmdpolicy_decision_name(cmdpolicy_decision d);

/* Does rule match the command text (the rule syntax above)? */
bool cmdpolicy_rule_matches(const char *rule, const char *text);

#endif
