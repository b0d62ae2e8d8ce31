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
