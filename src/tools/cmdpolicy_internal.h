/* cmdpolicy_internal — what cmdpolicy.c (the judge: rules, wrappers, paths, the verdict)
 * and cmdpolicy_progs.c (the table of read-only programs and their dangerous options)
 * share. Not for any other file. */
#ifndef HEW_TOOLS_CMDPOLICY_INTERNAL_H
#define HEW_TOOLS_CMDPOLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/cmdpolicy.h"
#include "tools/shparse.h"

/* The judgement of one line as it goes (cmdpolicy.c). */
typedef struct cp_judge cp_judge;

/* The line cannot run without asking: reason (printf-style; the part is added after a
 * colon unless the reason holds it already). The first ask's reason is kept. */
void cp_ask(cp_judge *j, const char *part, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* It may run, but it reads (or may read) outside the workspace: reason as for cp_ask. */
void cp_outside(cp_judge *j, const char *part, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A program was judged read-only (for the reason of a safe line); name is static. */
void cp_read_only(cp_judge *j, const char *name);
/* A word given to a program that opens it as a file: an expansion may name any path, `~`
 * is the home directory, an absolute path or one that climbs out with `..` may be
 * outside the workspace (also an option's value after `=` or attached: -f/etc/x). */
void cp_check_path(cp_judge *j, const sh_word *w, const char *part);
/* s cut and made printable for a reason ("`%s`"); valid until four more calls. */
const char *cp_show(cp_judge *j, const char *s);

/* A read-only program of the table (cmdpolicy_progs.c). */
typedef struct cp_prog cp_prog;
/* The program called name (a base name), or NULL. */
const cp_prog *cp_prog_find(const char *name);
/* Judge argv (argv[0] names pr) with its options and operands; unknown_args: xargs adds
 * arguments nobody can see. Notes an ask, an outside read, or the program as read-only. */
void cp_prog_judge(cp_judge *j, const cp_prog *pr, const sh_word *argv, size_t n,
                   const char *part, bool unknown_args);

#endif
