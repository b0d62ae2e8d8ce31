/* prompt — assembles the system prompt and the environment details (see prompt.h). Pure
 * string building: no I/O beyond reading the clock the caller passes and uname/getenv in
 * prompt_ctx_machine. */
#include "prompt/prompt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#define SECTION_SEP "\n\n====\n\n"

void prompt_ctx_machine(prompt_ctx *ctx)
{
    static char os[160];
    struct utsname u;
    if (!os[0]) {
        if (uname(&u) == 0)
            snprintf(os, sizeof os, "%s %s", u.sysname, u.release);
        else
            snprintf(os, sizeof os, "%s", "unknown");
    }
    ctx->os = os;
    const char *shell = getenv("SHELL");
    ctx->shell = shell && *shell ? shell : "/bin/sh";
    const char *home = getenv("HOME");
    ctx->home = home && *home ? home : "/";
}

static void section_role(buf *out)
{
    buf_puts(out, "You are hew, a careful and skilled software engineer working in the user's "
                  "project through tools. You read before you change, you make the smallest "
                  "change that does the job, and you check your work.");
}

static void tool_doc(const tool_def *t, buf *out)
{
    buf_printf(out, "## %s\nDescription: %s\nParameters:\n", t->name, t->description);
    for (size_t i = 0; i < t->nparams; i++)
        buf_printf(out, "- %s: (%s) %s\n", t->params[i].name,
                   t->params[i].required ? "required" : "optional", t->params[i].description);
    buf_printf(out, "Usage:\n<%s>\n", t->name);
    for (size_t i = 0; i < t->nparams; i++)
        buf_printf(out, "<%s>%s</%s>\n", t->params[i].name, t->params[i].usage,
                   t->params[i].name);
    buf_printf(out, "</%s>\n", t->name);
}

static void section_tool_use(const prompt_ctx *ctx, buf *out)
{
    buf_puts(out, "TOOL USE\n\n"
                  "You work through tools, which run when the user approves them. Use one "
                  "tool at a time and wait for its result, which comes in the user's next "
                  "message, before deciding the next step. Never assume the outcome of a "
                  "tool.");
    if (ctx->native_tools) {
        buf_puts(out, "\n\nThe tools are given to you as functions: call them with their "
                      "JSON arguments.");
        return;
    }
    buf_puts(out, "\n\n# Tool call format\n\n"
                  "Write a tool call as XML: the tool's name is the outer tag, each parameter "
                  "is a tag inside it:\n\n"
                  "<tool_name>\n<parameter1_name>value1</parameter1_name>\n"
                  "<parameter2_name>value2</parameter2_name>\n</tool_name>\n\n"
                  "Put the tool call at the end of your message.\n\n# Tools\n\n");
    for (size_t i = 0; i < ctx->ntools; i++) {
        tool_doc(ctx->tools[i], out);
        if (i + 1 < ctx->ntools)
            buf_putc(out, '\n');
    }
}

static void section_modes(buf *out)
{
    buf_puts(out, "ACT MODE AND PLAN MODE\n\n"
                  "In ACT MODE you carry out the task with the tools, and finish with "
                  "attempt_completion. In PLAN MODE you explore (read, list, search) and "
                  "talk the plan through with the user with plan_mode_respond; you do not "
                  "change anything until the user switches to ACT MODE. The environment "
                  "details of each message tell you the current mode.");
}

static void section_rules(const prompt_ctx *ctx, buf *out)
{
    buf_printf(out,
               "RULES\n\n"
               "- Your working directory is %s. Work inside it; give paths relative to it.\n"
               "- Do not ask for information a tool can find; ask with "
               "ask_followup_question only what only the user knows.\n"
               "- After each tool use, wait for its result before the next step.\n"
               "- When the task is done, use attempt_completion with a final result; do not "
               "end with a question or an offer of more help.\n"
               "- Be direct and technical in what you write; no filler.",
               ctx->cwd);
    if (ctx->yolo)
        buf_puts(out, "\n- Nobody watches this task: every tool is approved automatically and "
                      "questions to the user get no answer. Decide for yourself.");
}

static void section_system(const prompt_ctx *ctx, buf *out)
{
    buf_printf(out,
               "SYSTEM INFORMATION\n\nOperating system: %s\nDefault shell: %s\n"
               "Home directory: %s\nCurrent working directory: %s",
               ctx->os ? ctx->os : "unknown", ctx->shell ? ctx->shell : "/bin/sh",
               ctx->home ? ctx->home : "/", ctx->cwd);
}

static void section_objective(buf *out)
{
    buf_puts(out, "OBJECTIVE\n\n"
                  "1. Understand the task; break it into clear steps.\n"
                  "2. Work through the steps one tool at a time, using each result.\n"
                  "3. Before a tool call, check you have every required parameter; if one is "
                  "missing and no tool can find it, ask the user.\n"
                  "4. Finish with attempt_completion and the result.");
}

void prompt_build(const prompt_ctx *ctx, buf *out)
{
    section_role(out);
    buf_puts(out, SECTION_SEP);
    section_tool_use(ctx, out);
    buf_puts(out, SECTION_SEP);
    section_modes(out);
    buf_puts(out, SECTION_SEP);
    section_rules(ctx, out);
    buf_puts(out, SECTION_SEP);
    section_system(ctx, out);
    buf_puts(out, SECTION_SEP);
    section_objective(out);
}

void prompt_env_details(const prompt_ctx *ctx, bool first_turn, long long now_epoch_s, buf *out)
{
    time_t now = (time_t)now_epoch_s;
    struct tm tm;
    char when[64] = "";
    localtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z (UTC%z)", &tm);
    buf_puts(out, "<environment_details>\n");
    buf_printf(out, "# Current Time\n%s\n", when);
    if (first_turn)
        buf_printf(out, "\n# Current Working Directory\n%s\n", ctx->cwd);
    buf_printf(out, "\n# Current Mode\n%s\n",
               strcmp(ctx->mode, "plan") == 0
                   ? "PLAN MODE\nExplore and discuss the plan with plan_mode_respond; change "
                     "nothing until the user switches to ACT MODE."
                   : "ACT MODE");
    buf_puts(out, "</environment_details>");
}
