/* prompt_text — the text of the terminal's input prompt, for lineedit's lined_read (its
 * \1…\1 spans hold the styles, which take no width): "› " in act mode, "plan › " in plan
 * mode, so the mode a message goes in is in sight where it is typed. Act mode, the
 * default, keeps the bare "› ". */
#ifndef HEW_CLI_PROMPT_TEXT_H
#define HEW_CLI_PROMPT_TEXT_H

#include <stddef.h>

/* The prompt for mode ("plan" or "act") into buf (always terminated). */
void prompt_text(char *buf, size_t n, const char *mode, int color);

#endif
