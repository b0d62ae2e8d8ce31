/* slashcmd — the interactive terminal's slash commands, as one table: each command's name,
 * its other names, an argument hint, one line of help and its handler. The terminal
 * dispatches a typed "/name args" through slashcmd_find, /help is written from the table
 * (slashcmd_help), and the line editor's Tab completes command names from it
 * (slashcmd_complete_line). Adding a command = one row in slashcmd.c and its handler.
 *
 * The handlers do the work and live with the terminal's state in interactive.c; this file
 * never does a command's work, never reads input and never prints. A name the table does
 * not know is not a command of the terminal: the caller sends the line on to the prompt
 * layer (src/prompt/slash.c: /newtask, /smol, workflows), so that layer's commands are not
 * repeated here. */
#ifndef HEW_CLI_SLASHCMD_H
#define HEW_CLI_SLASHCMD_H

#include <stddef.h>

#include "sbuf.h"

struct ui;

/* Run the command: name is the name typed (a row's name or alias), arg what followed it,
 * blanks trimmed at the start ("" when nothing). */
typedef void (*slashcmd_fn)(struct ui *u, const char *name, const char *arg);

typedef struct slashcmd {
    const char *name;  /* without the slash: "help" */
    const char *alias; /* another name the same row answers to, or NULL: "?" */
    const char *args;  /* the argument hint for /help ("N [M]"), or NULL: none */
    const char *help;  /* one line, no final period */
    slashcmd_fn run;
} slashcmd;

/* The table, in /help order, and how many rows it has. */
const slashcmd *slashcmd_table(size_t *count);

/* The row whose name or alias is exactly name (no slash), or NULL. A prefix is never
 * enough here: "/re" may be a workflow of the prompt layer. */
const slashcmd *slashcmd_find(const char *name);

/* The names (not aliases) of the rows that start with the len bytes at prefix, in table
 * order: up to cap of them into out (static strings); returns how many there are. */
size_t slashcmd_complete(const char *prefix, size_t len, const char **out, size_t cap);

/* A line editor's completer (lineedit.h, lined_complete_fn): when the text before the
 * cursor (len bytes at line) is "/" and part of a command name, *start is 1 and the
 * candidates are the names that complete it; otherwise 0 candidates. arg is unused. */
size_t slashcmd_complete_line(void *arg, const char *line, size_t len, size_t *start,
                              const char **out, size_t cap);

/* The edit distance of a and b (Damerau–Levenshtein, optimal string alignment: an
 * insertion, a deletion, a change or two neighbours swapped cost 1 each), in bytes;
 * strings longer than 63 bytes count as far apart (64). */
size_t slashcmd_distance(const char *a, const char *b);

/* The command a mistyped name most likely meant: the row whose name or alias is nearest
 * (slashcmd_distance <= 2), or else the first whose name starts with name; NULL when
 * none is near. Returns the row's name. */
const char *slashcmd_suggest(const char *name);

/* Whether a line typed at the prompt looks like a command rather than a message: "/"
 * then a single word of letters (and '-' or '_'), then nothing or a blank — "/hlep",
 * "/modle x"; never "/usr/bin/foo is broken" or "/ 2". */
int slashcmd_looks_like(const char *line);

/* Append the commands part of /help: one line per row, "  /name, /alias ARGS" padded to
 * a column and then its help. */
void slashcmd_help(sbuf *out);

/* The handlers, in interactive.c: X(name) for each, so that a test that links this
 * table without interactive.c defines them all from one list. */
#define SLASHCMD_HANDLERS(X)                                                               \
    X(interactive_cmd_help)                                                                \
    X(interactive_cmd_exit)                                                                \
    X(interactive_cmd_mode)                                                                \
    X(interactive_cmd_model)                                                               \
    X(interactive_cmd_yolo)                                                                \
    X(interactive_cmd_cost)                                                                \
    X(interactive_cmd_new)                                                                 \
    X(interactive_cmd_history)                                                             \
    X(interactive_cmd_resume)                                                              \
    X(interactive_cmd_checkpoint)                                                          \
    X(interactive_cmd_mcp)                                                                 \
    X(interactive_cmd_skills)
#define SLASHCMD_DECLARE_(fn) void fn(struct ui *u, const char *name, const char *arg);
SLASHCMD_HANDLERS(SLASHCMD_DECLARE_)

#endif
