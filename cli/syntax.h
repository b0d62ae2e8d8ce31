/* syntax — colours for the code blocks of an answer: a small lexer driven by one table row
 * per language family (keywords, comment and string marks, a few flags) that paints
 * keywords, strings, comments and numbers with ANSI SGR codes. It knows C, C++, C#, Java,
 * Kotlin, JavaScript/TypeScript, Go, Rust, Python, Ruby, shell, JSON, YAML/TOML, SQL and
 * diffs; any other language is left to the caller (shown in one colour).
 *
 * Written here rather than taken from a library: Debian's C options are either whole
 * editors' engines (GtkSourceView, tree-sitter with a grammar per language, each a large
 * generated parser) or programs rather than libraries (highlight, source-highlight: C++
 * with regex language files read at run time). A terminal answer needs keywords,
 * strings, comments and numbers, line by line, at streaming speed, with no files to load.
 *
 * Pure functions over memory: the code's bytes (already made safe by termsafe) are copied
 * as they are; the only bytes added are SGR colour codes. */
#ifndef HEW_CLI_SYNTAX_H
#define HEW_CLI_SYNTAX_H

#include <stddef.h>

#include "sbuf.h"

typedef struct syn_lang syn_lang;

/* The language a fence's info string names ("python", "py", "c++", "tsx", "sh", ...;
 * case-insensitive), or NULL when it is not one this file knows. */
const syn_lang *syn_find(const char *name, size_t n);

/* The language's own name, for the label over a code block ("python" for "py"). */
const char *syn_name(const syn_lang *l);

/* Append one line of code s[0..n) (without its newline) to out, its tokens coloured.
 * *state carries what a line leaves open to the next one (a block comment, a triple-quoted
 * or raw string): set it to 0 before the first line of a block. After each coloured token
 * `plain` is written (the SGR codes that restore the block's own style, e.g. "\033[0m"). */
void syn_line(sbuf *out, const syn_lang *l, const char *s, size_t n, int *state,
              const char *plain);

#endif
