/* prompt — the system prompt and the environment details, built from one prompt context
 * object (seed 003: "SystemPromptContext as a collecting vessel"). Deterministic: the same
 * context gives the same bytes (provider prompt caching depends on it). The tool
 * documentation comes from the tool table (tools/registry), never a second copy.
 * This is the first cut (role, tool use, rules, system information, objective, mode);
 * rules files, MCP servers and slash commands join in the prompt issue. */
#ifndef HEW_PROMPT_PROMPT_H
#define HEW_PROMPT_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "tools/tool.h"

typedef struct prompt_ctx {
    const char *cwd;
    const char *os;          /* "Linux 6.1" */
    const char *shell;       /* "/bin/bash" */
    const char *home;
    const char *model;
    const char *mode;        /* "act" / "plan" */
    bool native_tools;       /* tools go as API schemas: no XML format text */
    bool yolo;
    const tool_def *const *tools;
    size_t ntools;
} prompt_ctx;

/* Fill the machine facts (os, shell, home) from the environment; strings are static or
 * borrowed from getenv and stay valid for the process. */
void prompt_ctx_machine(prompt_ctx *ctx);

/* Append the system prompt to out. */
void prompt_build(const prompt_ctx *ctx, buf *out);

/* Append the <environment_details> block for a turn. now_epoch_s: the time to show. */
void prompt_env_details(const prompt_ctx *ctx, bool first_turn, long long now_epoch_s, buf *out);

#endif
