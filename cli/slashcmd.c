/* slashcmd — the table of the interactive terminal's slash commands and the lookups on it
 * (see slashcmd.h). It holds no state, does no command's work and never prints. */
#include "slashcmd.h"

#include <string.h>

static const slashcmd commands[] = {
    { "plan", NULL, NULL, "switch to plan mode: the model discusses before it acts",
      interactive_cmd_mode },
    { "act", NULL, NULL, "switch to act mode (a plan waiting for it is carried out)",
      interactive_cmd_mode },
    { "model", NULL, "[NAME]", "show the model and the ones hew knows, or use another (a task "
                               "waiting here goes on with it)",
      interactive_cmd_model },
    { "yolo", NULL, NULL, "approve everything from now on (again: ask again)",
      interactive_cmd_yolo },
    { "cost", NULL, NULL, "tokens and cost of this task and session", interactive_cmd_cost },
    { "new", "clear", NULL, "finish the current task; the next message starts a new one",
      interactive_cmd_new },
    { "history", NULL, "[--all] [--page N] [SEARCH]",
      "this workspace's stored tasks, newest first, a page at a time (--all: every "
      "workspace's, and the probe runs)",
      interactive_cmd_history },
    { "resume", NULL, "[ID]", "go on with a stored task (default: this workspace's latest)",
      interactive_cmd_resume },
    { "checkpoints", NULL, NULL, "the checkpoints of the task that ended last",
      interactive_cmd_checkpoint },
    { "diff", NULL, "N [M]", "its changes from checkpoint N to M (or now)",
      interactive_cmd_checkpoint },
    { "restore", NULL, "N [files|task|both]", "back to checkpoint N (default files; undoable)",
      interactive_cmd_checkpoint },
    { "mcp", NULL, "[reload]", "the MCP servers and their tools; reload re-reads mcp.json",
      interactive_cmd_mcp },
    { "skills", NULL, NULL, "the Agent Skills (SKILL.md) the model is offered",
      interactive_cmd_skills },
    { "help", "?", NULL, "these commands and keys", interactive_cmd_help },
    { "exit", "quit", NULL, "leave hew (Ctrl-D does too)", interactive_cmd_exit },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The column where the help text starts (after two blanks of indent). */
#define HELP_COLUMN 19

const slashcmd *slashcmd_table(size_t *count)
{
    *count = NCOMMANDS;
    return commands;
}

const slashcmd *slashcmd_find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0 ||
            (commands[i].alias && strcmp(commands[i].alias, name) == 0))
            return &commands[i];
    return NULL;
}

size_t slashcmd_complete(const char *prefix, size_t len, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strncmp(commands[i].name, prefix, len) != 0)
            continue;
        if (n < cap)
            out[n] = commands[i].name;
        n++;
    }
    return n;
}

size_t slashcmd_complete_line(void *arg, const char *line, size_t len, size_t *start,
                              const char **out, size_t cap)
{
    (void)arg;
    *start = 1;
    if (len == 0 || line[0] != '/' || memchr(line, ' ', len) || memchr(line, '\t', len))
        return 0;
    return slashcmd_complete(line + 1, len - 1, out, cap);
}

size_t slashcmd_distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= MAX || m >= MAX)
        return MAX;
    size_t d[MAX][MAX];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1; /* two neighbours swapped */
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *slashcmd_suggest(const char *name)
{
    const char *best = NULL;
    size_t best_d = 3; /* farther than 2 is no suggestion */
    for (size_t i = 0; i < NCOMMANDS; i++) {
        size_t d = slashcmd_distance(name, commands[i].name);
        if (commands[i].alias) {
            size_t da = slashcmd_distance(name, commands[i].alias);
            if (da < d)
                d = da;
        }
        if (d < best_d) {
            best_d = d;
            best = commands[i].name;
        }
    }
    if (best || !*name)
        return best;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strncmp(commands[i].name, name, strlen(name)) == 0)
            return commands[i].name;
    return NULL;
}

int slashcmd_looks_like(const char *line)
{
    if (line[0] != '/')
        return 0;
    size_t i = 1;
    while ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z') ||
           line[i] == '-' || line[i] == '_')
        i++;
    return i > 1 && (line[i] == '\0' || line[i] == ' ' || line[i] == '\t' || line[i] == '\n');
}

void slashcmd_help(sbuf *out)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const slashcmd *c = &commands[i];
        size_t from = out->len;
        sbuf_printf(out, "  /%s", c->name);
        if (c->alias)
            sbuf_printf(out, ", /%s", c->alias);
        if (c->args)
            sbuf_printf(out, " %s", c->args);
        size_t width = out->len - from;
        do
            sbuf_putc(out, ' ');
        while (++width < HELP_COLUMN);
        sbuf_printf(out, "%s\n", c->help);
    }
}
