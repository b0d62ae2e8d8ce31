/* prompt — the system prompt, built from one prompt context (seed 003: "SystemPromptContext
 * as a collecting vessel"), and the native tool schemas, built from the same tool table.
 * hew writes its own prompt text: it teaches what a coding agent's model must know (the
 * tool call format, editing with SEARCH/REPLACE, the modes, the rules of work) in hew's
 * words. It must never read files, the clock or the environment while building (the
 * caller gathers those into the context), and never keep a second copy of a tool's
 * documentation: every tool's name, description and parameters come from its tool_def.
 *
 * Deterministic: the same context gives the same bytes (provider prompt caching depends
 * on it). Sections, joined by "\n\n====\n\n", empty ones left out:
 *   role · TOOL USE (format, the tools, examples, guidelines; with native tool calling no
 *   XML text at all) · MCP SERVERS · EDITING FILES · ACT MODE AND PLAN MODE · CAPABILITIES
 *   · RULES · SYSTEM INFORMATION · OBJECTIVE · USER'S CUSTOM INSTRUCTIONS (preferred
 *   language, rules, .clineignore).
 *
 * Which tools are offered (prompt_tool_offered) follows the tools' flags (tools/tool.h),
 * never their names: every tool of ctx->tools except one that needs an answer
 * (ask_followup_question) in yolo mode (nobody answers; new_task stays: yolo accepts it),
 * a plan-only one (plan_mode_respond) outside PLAN MODE, the summary tool
 * (summarize_task) unless the request asks for a summary (ctx->condensing), MCP tools
 * without a connected server, and the MCP gateway (use_mcp_tool) with native tool
 * calling. The same filter serves the XML documentation and the native schemas. The
 * prose that names a particular tool appears only when that tool is offered.
 *
 * Wiring (what task/ calls):
 *   system prompt  prompt_ctx_init + prompt_ctx_machine, fill the rest, prompt_build;
 *   native tools   prompt_tools_offered, then prompt_tool_schema for each (api_tool =
 *                  {def->name, def->description, schema});
 *   rules          rules.h (rules_load + rules_render into ctx.rules, set.clineignore
 *                  into ctx.clineignore);
 *   every turn     env_details.h; slash commands on user text: slash.h. */
#ifndef HEW_PROMPT_PROMPT_H
#define HEW_PROMPT_PROMPT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "mcp/offer.h"
#include "tools/tool.h"

typedef struct prompt_ctx {
    const char *cwd;
    const char *os;          /* "Linux 6.1" */
    const char *shell;       /* "/bin/bash" */
    const char *home;
    const char *provider;    /* profile name (informational; not in the text) */
    const char *model;       /* model name (informational; not in the text) */
    bool images;             /* the model reads images */
    mode_kind mode;          /* MODE_ACT (0) / MODE_PLAN */
    bool native_tools;       /* tools go as API schemas: no XML format text */
    bool parallel_tools;     /* several tool calls in one message are allowed */
    bool yolo;               /* everything approved, nobody answers questions */
    bool strict_plan;        /* edits are refused in PLAN MODE */
    bool condensing;         /* this request asks the model for a summary (summarize_task) */
    const tool_def *const *tools;  /* the tool table (registry_tools), filtered here */
    size_t ntools;
    const mcp_offer_server *mcp;   /* connected MCP servers, in display order */
    size_t nmcp;
    const char *language;    /* preferred language ("German"); NULL or "": none */
    const char *rules;       /* rendered rules (rules_render); NULL or "": none */
    const char *clineignore; /* the .clineignore text; NULL or "": none */
    const char *skills;      /* the skills' list (skills_render); NULL or "": none, and
                                use_skill (TOOL_SKILLS) is not offered */
} prompt_ctx;

/* Defaults: MODE_ACT, everything else empty/false. */
void prompt_ctx_init(prompt_ctx *ctx);

/* Fill the machine facts (os, shell, home) from the environment; strings are static or
 * borrowed from getenv and stay valid for the process. */
void prompt_ctx_machine(prompt_ctx *ctx);

/* True when the tool is offered in this context (see above). */
bool prompt_tool_offered(const prompt_ctx *ctx, const tool_def *def);

/* The offered tools, in table order, into out (at most cap); returns how many there are
 * (may be more than cap: then only cap were written). */
size_t prompt_tools_offered(const prompt_ctx *ctx, const tool_def **out, size_t cap);

/* The native input schema of a tool: {"type":"object","properties":{p:{"type":"string",
 * "description":…}},"required":[…]} ("required" left out when nothing is). Every value is
 * a string, as in the XML format. A new reference the caller json_decref()s; NULL when
 * memory runs out. */
json_t *prompt_tool_schema(const tool_def *def);

/* Append the system prompt to out (errors are out's sticky error). */
void prompt_build(const prompt_ctx *ctx, buf *out);

/* Compatibility with the first cut (task/ still calls it): the environment details with
 * the time, the first-turn workspace listing and the mode only. Prefer env_details_build
 * (env_details.h), which also takes commands, changed files and the context usage. */
void prompt_env_details(const prompt_ctx *ctx, bool first_turn, long long now_epoch_s, buf *out);

#endif
