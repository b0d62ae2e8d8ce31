/* prompt_text — the input prompt's text (prompt_text.h). */
#include "prompt_text.h"

#include <stdio.h>
#include <string.h>

void prompt_text(char *buf, size_t n, const char *mode, int color)
{
    int plan = mode && strcmp(mode, "plan") == 0;
    snprintf(buf, n, "\1%s\1%s› \1%s\1", color ? (plan ? "\033[1;35m" : "\033[1;36m") : "",
             plan ? "plan " : "", color ? "\033[0m" : "");
}
