/* help_view — the commands part of /help: one row per slash command ("/name, /alias ARGS"
 * then its help), the help texts aligned in one column by display width (textw), the
 * column as wide as the widest row up to a cap; a row wider than the cap has its help on
 * the next line, in the column. Built from slashcmd.h's table, so a new command shows
 * without touching this file. */
#ifndef HEW_CLI_HELP_VIEW_H
#define HEW_CLI_HELP_VIEW_H

#include "sbuf.h"

/* The rows appended to out, for a terminal `width` columns wide (0: unknown); the help
 * text is wrapped under its column when it would pass the width. */
void help_view_commands(sbuf *out, size_t width);

#endif
