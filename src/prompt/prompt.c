/* prompt — assembles the system prompt and the native tool schemas (see prompt.h). Pure
 * string building over the context; it must never read files, the clock or the
 * environment (only prompt_ctx_machine does, and prompt_env_details for the old API), and
 * never name a tool in the text that the context does not offer. */
#include "prompt/prompt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/json.h"
#include "prompt/env_details.h"

#define SECTION_SEP "\n\n====\n\n"

void prompt_ctx_init(prompt_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->mode = MODE_ACT;
}

/* The system's name and release, read once per process: tasks build prompts on their own
 * threads at the same time. */
static char machine_os[160];
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

static void machine_read(void)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(machine_os, sizeof machine_os, "%s %s", u.sysname, u.release);
    else
        snprintf(machine_os, sizeof machine_os, "%s", "unknown");
}

void prompt_ctx_machine(prompt_ctx *ctx)
{
    pthread_once(&machine_once, machine_read);
    ctx->os = machine_os;
    const char *shell = getenv("SHELL");
    ctx->shell = shell && *shell ? shell : "/bin/sh";
    const char *home = getenv("HOME");
    ctx->home = home && *home ? home : "/";
}

static bool plan_mode(const prompt_ctx *ctx)
{
    return ctx->mode == MODE_PLAN;
}

static bool set(const char *s)
{
    return s && *s;
}

bool prompt_tool_offered(const prompt_ctx *ctx, const tool_def *def)
{
    if (!def || !def->name)
        return false;
    if (ctx->yolo && tool_is(def, TOOL_NEEDS_ANSWER))
        return false;
    if (!ctx->condensing && tool_is(def, TOOL_SUMMARY))
        return false;
    if (!plan_mode(ctx) && tool_is(def, TOOL_PLAN_ONLY))
        return false;
    /* MCP tools only with a connected server; with native tool calling each server tool
     * is a function of its own ("<server>__<tool>"), so the gateway is not listed. */
    if (tool_is(def, TOOL_MCP) && ctx->nmcp == 0)
        return false;
    if (ctx->native_tools && tool_is(def, TOOL_MCP_GATEWAY))
        return false;
    if (tool_is(def, TOOL_SKILLS) && !set(ctx->skills))
        return false;
    return true;
}

size_t prompt_tools_offered(const prompt_ctx *ctx, const tool_def **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < ctx->ntools; i++) {
        if (!prompt_tool_offered(ctx, ctx->tools[i]))
            continue;
        if (n < cap)
            out[n] = ctx->tools[i];
        n++;
    }
    return n;
}

/* The offered tool called name, or NULL. */
static const tool_def *offered(const prompt_ctx *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->ntools; i++)
        if (ctx->tools[i] && ctx->tools[i]->name && strcmp(ctx->tools[i]->name, name) == 0)
            return prompt_tool_offered(ctx, ctx->tools[i]) ? ctx->tools[i] : NULL;
    return NULL;
}

static bool has(const prompt_ctx *ctx, const char *name)
{
    return offered(ctx, name) != NULL;
}

/* has() for a tool and each of the parameters (NULL-terminated) an example uses. */
static bool has_params(const prompt_ctx *ctx, const char *name, const char *const *params)
{
    const tool_def *t = offered(ctx, name);
    if (!t)
        return false;
    for (; *params; params++) {
        size_t i = 0;
        while (i < t->nparams && strcmp(t->params[i].name, *params) != 0)
            i++;
        if (i == t->nparams)
            return false;
    }
    return true;
}

json_t *prompt_tool_schema(const tool_def *def)
{
    json_t *props = json_object();
    json_t *required = json_array();
    json_t *schema = json_object();
    hew_code st = props && required && schema ? HEW_OK : HEW_E_NOMEM;
    for (size_t i = 0; i < def->nparams && st == HEW_OK; i++) {
        const tool_param *p = &def->params[i];
        json_t *prop = json_object();
        json_obj_put(prop, "type", json_string("string"), &st);
        json_obj_put(prop, "description", json_string(p->description ? p->description : ""),
                     &st);
        json_obj_put(props, p->name, prop, &st);
        if (p->required)
            json_arr_push(required, json_string(p->name), &st);
    }
    json_obj_put(schema, "type", json_string("object"), &st);
    json_obj_put(schema, "properties", props, &st);
    if (json_array_size(required))
        json_obj_put(schema, "required", required, &st);
    else
        json_decref(required);
    if (st != HEW_OK) {
        json_decref(schema);
        return NULL;
    }
    return schema;
}

/* ---- sections -------------------------------------------------------------------------- */

static void section_role(buf *out)
{
    buf_puts(out, "You are hew, a software engineer with deep knowledge of many programming "
                  "languages, frameworks, design patterns and engineering practices. You work "
                  "in the user's project through the tools described below: you read before "
                  "you change, you make the smallest change that does the job well, and you "
                  "check your work.");
}

static void tool_doc(const tool_def *t, buf *out)
{
    buf_printf(out, "## %s\nDescription: %s\n", t->name, t->description ? t->description : "");
    if (t->nparams) {
        buf_puts(out, "Parameters:\n");
        for (size_t i = 0; i < t->nparams; i++)
            buf_printf(out, "- %s: (%s) %s\n", t->params[i].name,
                       t->params[i].required ? "required" : "optional",
                       t->params[i].description ? t->params[i].description : "");
    } else {
        buf_puts(out, "Parameters: none\n");
    }
    buf_printf(out, "Usage:\n<%s>\n", t->name);
    for (size_t i = 0; i < t->nparams; i++)
        buf_printf(out, "<%s>%s</%s>\n", t->params[i].name,
                   t->params[i].usage ? t->params[i].usage : "", t->params[i].name);
    buf_printf(out, "</%s>", t->name);
}

/* Worked examples for the tools that are easiest to get wrong; each only when the tool
 * (with the parameters the example uses) is offered. */
static void tool_examples(const prompt_ctx *ctx, buf *out)
{
    static const char *const cmd_p[] = { "command", "requires_approval", NULL };
    static const char *const write_p[] = { "path", "content", NULL };
    static const char *const replace_p[] = { "path", "diff", NULL };
    static const char *const read_p[] = { "path", NULL };
    int n = 0;
    buf ex = BUF_INIT(0);
    if (has_params(ctx, "read_file", read_p))
        buf_printf(&ex, "\n\n## Example %d: reading a file\n\n<read_file>\n<path>src/main.c"
                        "</path>\n</read_file>", ++n);
    if (has_params(ctx, "execute_command", cmd_p))
        buf_printf(&ex, "\n\n## Example %d: running a command\n\n<execute_command>\n"
                        "<command>make test</command>\n<requires_approval>false"
                        "</requires_approval>\n</execute_command>", ++n);
    if (has_params(ctx, "write_to_file", write_p))
        buf_printf(&ex, "\n\n## Example %d: creating a file\n\n<write_to_file>\n"
                        "<path>config/settings.json</path>\n<content>\n{\n  \"port\": 8080,\n"
                        "  \"log_level\": \"info\"\n}\n</content>\n</write_to_file>", ++n);
    if (has_params(ctx, "replace_in_file", replace_p))
        buf_printf(&ex, "\n\n## Example %d: changing parts of a file\n\n<replace_in_file>\n"
                        "<path>src/server.c</path>\n<diff>\n------- SEARCH\n"
                        "#include <stdio.h>\n=======\n#include <stdio.h>\n#include <stdlib.h>\n"
                        "+++++++ REPLACE\n\n------- SEARCH\n    int port = 80;\n=======\n"
                        "    int port = config_port();\n+++++++ REPLACE\n</diff>\n"
                        "</replace_in_file>", ++n);
    if (n) {
        buf_puts(out, "\n\n# Examples");
        buf_append(out, ex.data, ex.len);
    }
    buf_release(&ex);
}

static void section_tool_use(const prompt_ctx *ctx, buf *out)
{
    buf_puts(out, "TOOL USE\n\nYou have a set of tools that run on the user's machine");
    buf_puts(out, ctx->yolo ? " (in this session every tool runs without asking the user)."
                            : ", each one after the user approves it.");
    if (ctx->parallel_tools)
        buf_puts(out, " You may call several tools in one message when they do not depend on "
                      "each other; they run in order and all their results come back in the "
                      "next message. When a call needs the result of another, wait for that "
                      "result first.");
    else
        buf_puts(out, " Use one tool per message: its result comes back in the next user "
                      "message.");
    buf_puts(out, " Let each step follow from the result of the one before it, and never "
                  "assume that a tool succeeded or what it returned.");

    if (ctx->native_tools) {
        buf_puts(out, "\n\nThe tools are given to you as functions with a JSON Schema for their "
                      "parameters. Call them through the function-calling interface with every "
                      "required argument; never write a tool call as text or XML in your "
                      "message. Every argument is a string: write numbers and booleans as "
                      "strings (\"true\", \"42\"), and a list, where a parameter asks for one, "
                      "as a JSON array inside the string.");
    } else {
        buf_puts(out, "\n\n# Tool call format\n\n"
                      "Write a tool call in XML: the tool's name is the outer tag, and each "
                      "parameter is a tag of its own inside it:\n\n"
                      "<tool_name>\n<parameter1_name>value1</parameter1_name>\n"
                      "<parameter2_name>value2</parameter2_name>\n...\n</tool_name>\n\n");
        if (has(ctx, "read_file"))
            buf_puts(out, "For example, to read src/main.c:\n\n"
                          "<read_file>\n<path>src/main.c</path>\n</read_file>\n\n");
        buf_puts(out, "Use exactly this format, or the call will not be recognised. Parameter "
                      "values are raw text: do not escape them, and do not wrap them in quotes "
                      "or code fences. Put the tool call at the end of your message.\n\n"
                      "# Tools");
        for (size_t i = 0; i < ctx->ntools; i++) {
            if (!prompt_tool_offered(ctx, ctx->tools[i]))
                continue;
            buf_puts(out, "\n\n");
            tool_doc(ctx->tools[i], out);
        }
        tool_examples(ctx, out);
    }

    buf_puts(out, "\n\n# Tool use guidelines\n\n"
                  "1. Before you call a tool, think about what you already know and what you "
                  "still need to find out for the task");
    buf_puts(out, ctx->native_tools ? ".\n" : " (you may think it through inside "
                                              "<thinking></thinking> tags first).\n");
    buf_puts(out, "2. Choose the tool that fits the step best. ");
    if (has(ctx, "list_files") && has(ctx, "execute_command"))
        buf_puts(out, "For example, list_files shows a folder's content better than running "
                      "`ls` with execute_command. ");
    buf_puts(out, "Think about each tool you have and pick the one that gets the information "
                  "or the change most directly.\n");
    if (ctx->parallel_tools)
        buf_puts(out, "3. Go step by step: call together only tools that are independent of "
                      "each other, and let each round of results decide the next one.\n");
    else
        buf_puts(out, "3. Go step by step, one tool per message, each one chosen with the "
                      "result of the previous one in hand. Do not assume any result.\n");
    buf_puts(out, ctx->native_tools ? "4. Call tools through the function-calling interface "
                                      "only.\n"
                                    : "4. Write every tool call in the XML format shown above.\n");
    buf_puts(out, "5. After each tool use, the result comes back in the user's next message. "
                  "It tells you whether the tool succeeded and why it failed if it did, and "
                  "brings what the tool produced: a file's content, a command's output and "
                  "exit status, errors or warnings to fix, or feedback from the user. Use it "
                  "to decide what to do next.\n"
                  "6. Wait for that result before you go on. Never assume success: a file may "
                  "not have been written, a command may have failed, the user may have said "
                  "no.");
}

static void section_mcp(const prompt_ctx *ctx, buf *out)
{
    buf_puts(out, "MCP SERVERS\n\n"
                  "MCP (Model Context Protocol) servers run on the user's machine and give you "
                  "more tools and resources.\n\n# Connected MCP Servers\n\n");
    if (ctx->native_tools) {
        buf_puts(out, "Each tool of a server below is one of your functions, named "
                      "<server>__<tool> (characters other than letters, digits, '_' and '-' "
                      "become '_').");
        if (has(ctx, "access_mcp_resource"))
            buf_puts(out, " Read a server's resource with access_mcp_resource (the server's "
                          "name and the resource's URI).");
    } else if (has(ctx, "use_mcp_tool") || has(ctx, "access_mcp_resource")) {
        buf_puts(out, "Call a server's tool with use_mcp_tool (the server's name, the tool's "
                      "name, and the arguments as a JSON object that follows the tool's input "
                      "schema), and read a server's resource with access_mcp_resource (the "
                      "server's name and the resource's URI).");
    } else {
        buf_puts(out, "These servers and what they offer are listed for your information.");
    }
    for (size_t s = 0; s < ctx->nmcp; s++) {
        const mcp_offer_server *srv = &ctx->mcp[s];
        buf_printf(out, "\n\n## %s", srv->name ? srv->name : "(unnamed)");
        if (set(srv->command))
            buf_printf(out, " (`%s`)", srv->command);
        if (srv->ntools) {
            buf_puts(out, "\n\n### Available Tools");
            for (size_t i = 0; i < srv->ntools; i++) {
                const mcp_offer_tool *t = &srv->tools[i];
                buf_printf(out, "\n- %s: %s", t->name ? t->name : "",
                           t->description ? t->description : "");
                if (t->input_schema && !ctx->native_tools) {
                    char *js = json_dumps(t->input_schema, JSON_INDENT(2));
                    if (js) {
                        buf_puts(out, "\n    Input Schema:\n    ");
                        for (const char *c = js; *c; c++) {
                            buf_putc(out, *c);
                            if (*c == '\n')
                                buf_puts(out, "    ");
                        }
                        free(js);
                    }
                }
            }
        }
        if (srv->ntemplates) {
            buf_puts(out, "\n\n### Resource Templates");
            for (size_t i = 0; i < srv->ntemplates; i++)
                buf_printf(out, "\n- %s (%s): %s", srv->templates[i].uri,
                           srv->templates[i].name ? srv->templates[i].name : "",
                           srv->templates[i].description ? srv->templates[i].description : "");
        }
        if (srv->nresources) {
            buf_puts(out, "\n\n### Direct Resources");
            for (size_t i = 0; i < srv->nresources; i++)
                buf_printf(out, "\n- %s (%s): %s", srv->resources[i].uri,
                           srv->resources[i].name ? srv->resources[i].name : "",
                           srv->resources[i].description ? srv->resources[i].description : "");
        }
    }
}

static void section_editing(const prompt_ctx *ctx, buf *out)
{
    bool w = has(ctx, "write_to_file"), r = has(ctx, "replace_in_file");
    const char *editor = NULL; /* the first offered tool that edits files */
    for (size_t i = 0; i < ctx->ntools && !editor; i++)
        if (tool_is(ctx->tools[i], TOOL_EDITS_FILES) && prompt_tool_offered(ctx, ctx->tools[i]))
            editor = ctx->tools[i]->name;
    buf_puts(out, "EDITING FILES\n\n");
    if (w && r)
        buf_puts(out, "Two tools change files: write_to_file and replace_in_file. Choosing the "
                      "right one for each change keeps edits fast and safe.");
    else
        buf_printf(out, "%s is the tool that changes files.", editor ? editor : "no tool");
    if (w)
        buf_puts(out, "\n\n# write_to_file\n\n"
                      "It writes a whole file: it creates the file (and any missing folders) "
                      "or replaces everything in it. Use it to create new files, to write "
                      "boilerplate, or to rewrite a file whose content changes almost "
                      "entirely or whose structure you reorganise. You must give the complete "
                      "final content every time: every line, including the ones that do not "
                      "change; never shorten it with placeholders such as \"rest unchanged\".");
    if (r)
        buf_puts(out, "\n\n# replace_in_file\n\n"
                      "It changes chosen parts of an existing file and leaves the rest as it "
                      "is: a few lines, a function body, a renamed identifier, a paragraph. It "
                      "needs far less output than rewriting the file, and it cannot damage "
                      "parts you did not mean to touch, which matters most in long files.\n\n"
                      "# SEARCH/REPLACE blocks\n\n"
                      "Its diff parameter holds one or more blocks of this form:\n\n"
                      "------- SEARCH\n[lines exactly as they are in the file]\n=======\n"
                      "[the lines that take their place]\n+++++++ REPLACE\n\n"
                      "- The SEARCH part must match the file exactly, character for "
                      "character: the same whitespace, indentation, comments and blank "
                      "lines.\n"
                      "- Use whole lines only, never part of a line.\n"
                      "- A block changes only the first place where its SEARCH part matches. "
                      "For several changes use several blocks, each with just enough lines "
                      "to match one place only.\n"
                      "- Put the blocks in the order in which their lines appear in the file, "
                      "from top to bottom.\n"
                      "- Keep blocks small: the lines that change, plus a line or two around "
                      "them when they are needed to make the match unique. Do not copy long "
                      "runs of unchanged lines.\n"
                      "- To delete lines, leave the part after ======= empty. To move code, "
                      "use two blocks: one that deletes it where it is and one that inserts "
                      "it where it goes.\n"
                      "- Write the three markers exactly as shown, each on a line of its own "
                      "with nothing added, and never leave out the closing +++++++ REPLACE.");
    buf_puts(out, "\n\n# Choosing the tool\n\n");
    if (w && r)
        buf_puts(out, "- Use replace_in_file for most changes to existing files: it is the "
                      "safer and more precise choice.\n"
                      "- Use write_to_file for new files, for small files whose content "
                      "changes nearly everywhere, and when targeted edits would be more "
                      "complicated or riskier than rewriting.\n"
                      "- For several changes to one file, make one replace_in_file call with "
                      "several blocks, not one call per change.\n");
    buf_puts(out, "- The result of an edit shows the file as it is saved now; an editor or "
                  "formatter may have changed it (indentation, quotes, line breaks, import "
                  "order). Take that text as the reference for later edits");
    buf_puts(out, r ? ", above all for the SEARCH parts of replace_in_file." : ".");
}

static void section_modes(const prompt_ctx *ctx, buf *out)
{
    bool ask = has(ctx, "ask_followup_question");
    buf_puts(out, "ACT MODE AND PLAN MODE\n\n"
                  "The environment details at the end of each user message say which mode "
                  "you are in.\n\n"
                  "- ACT MODE: you carry out the task with the tools");
    buf_puts(out, has(ctx, "attempt_completion")
                      ? ", and when it is done you present the result with attempt_completion. "
                      : ". ");
    buf_puts(out, "plan_mode_respond is not available in ACT MODE.\n"
                  "- PLAN MODE: you gather information and work out a plan with the user, and "
                  "you answer with plan_mode_respond. ");
    buf_puts(out, ctx->strict_plan ? "File changes are refused in PLAN MODE."
                                   : "You change nothing in PLAN MODE: no file edits, no "
                                     "commands that change anything.");
    buf_puts(out, "\n\n## Working in PLAN MODE\n\n"
                  "- Start by gathering what the plan depends on: read files, search, list "
                  "the code's definitions");
    buf_puts(out, ask ? ", and ask the user clarifying questions with "
                        "ask_followup_question.\n"
                      : ".\n");
    buf_puts(out, "- Then work out a concrete plan: what changes, in which files, in what "
                  "order, and how you will check it. A Mermaid diagram can help when the "
                  "structure or the flow matters.\n"
                  "- Present the plan with plan_mode_respond and refine it with the user: it is "
                  "a discussion, where the user may ask for changes. Answer with "
                  "plan_mode_respond directly; do not announce that you are going to use "
                  "it.\n");
    if (ctx->yolo)
        buf_puts(out, "- Nobody approves the plan in this session: as soon as you present it "
                      "with plan_mode_respond, hew switches to ACT MODE and you carry it out.");
    else
        buf_puts(out, "- When the plan is agreed, ask the user to switch to ACT MODE; you "
                      "cannot switch yourself.");
}

static void section_capabilities(const prompt_ctx *ctx, buf *out)
{
    static const struct {
        const char *tool, *what;
    } abilities[] = {
        { "execute_command", "run commands on the user's computer" },
        { "list_files", "list files" },
        { "list_code_definition_names", "see the definitions in source code" },
        { "search_files", "search files with regular expressions" },
        { "read_file", "read files" },
        { "write_to_file", "write files" },
        { "replace_in_file", "edit files" },
        { "ask_followup_question", "ask the user questions" },
    };
    const char *list[sizeof abilities / sizeof abilities[0]];
    size_t n = 0;
    for (size_t i = 0; i < sizeof abilities / sizeof abilities[0]; i++)
        if (has(ctx, abilities[i].tool))
            list[n++] = abilities[i].what;
    buf_puts(out, "CAPABILITIES\n\n");
    size_t start = out->len;
    if (n) {
        buf_puts(out, "- Your tools let you ");
        for (size_t i = 0; i < n; i++)
            buf_printf(out, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", list[i]);
        buf_puts(out, ". With them you can write code, fix and improve existing files, find "
                      "out how a project is built and what state it is in, carry out system "
                      "tasks, and much more.");
    }
    buf_printf(out, "%s- The first message of a task brings, in its environment details, a "
                    "recursive listing of the files in the working directory (%s). The names "
                    "of folders and files and their extensions show how the project is "
                    "organised and which languages it uses, and help you decide what to look "
                    "at.",
               out->len > start ? "\n" : "", ctx->cwd ? ctx->cwd : ".");
    if (has(ctx, "list_files"))
        buf_puts(out, " To see other folders, including folders outside the working "
                      "directory, use list_files: with recursive 'true' it lists the whole "
                      "tree, without it only the top level (better for big folders such as "
                      "the home directory).");
    if (has(ctx, "search_files"))
        buf_puts(out, "\n- search_files finds a regular expression in the files of a folder "
                      "and shows every match with the lines around it: use it to find where "
                      "something is defined or used, to spot patterns or TODO comments, or to "
                      "find every place a change must reach.");
    if (has(ctx, "list_code_definition_names")) {
        buf_puts(out, "\n- list_code_definition_names lists the classes, functions and other "
                      "definitions in the source files at the top of a folder: a quick map of "
                      "the code and how its parts relate. Call it for each folder that "
                      "matters.");
        if (has(ctx, "read_file") && has(ctx, "replace_in_file"))
            buf_puts(out, "\n  For example, to improve some code you might look at the listing "
                          "in the environment details, map the relevant folders with "
                          "list_code_definition_names, read the files that matter with "
                          "read_file, change them with replace_in_file, and, if the change "
                          "affects code elsewhere, find that code with search_files and "
                          "update it too.");
    }
    if (has(ctx, "execute_command"))
        buf_puts(out, "\n- execute_command runs a command in the user's shell, in the working "
                      "directory. Say what each command does. Prefer a well-formed command "
                      "line to writing a script. Use non-interactive forms: flags that turn "
                      "off pagers (--no-pager), that confirm prompts (-y, when that is safe), "
                      "input given as arguments rather than typed in. Add 2>&1 when you need "
                      "the error output of a command that may fail. Each command runs in a "
                      "new shell. A long-running command may be left running in the "
                      "background; its new output then comes with the environment details.");
    if (ctx->nmcp)
        buf_puts(out, "\n- MCP servers give you more tools and resources; see MCP SERVERS.");
}

static void section_rules(const prompt_ctx *ctx, buf *out)
{
    const char *cwd = ctx->cwd ? ctx->cwd : ".";
    bool cmd = has(ctx, "execute_command"), replace = has(ctx, "replace_in_file");
    bool complete = has(ctx, "attempt_completion"), ask = has(ctx, "ask_followup_question");
    buf_printf(out, "RULES\n\n"
                    "- Your working directory is %s.\n"
                    "- You cannot cd into another directory for the task: you always work from "
                    "%s, so give every tool the right path.\n"
                    "- Do not use ~ or $HOME for the home directory; write the path out.\n",
               cwd, cwd);
    if (cmd)
        buf_printf(out, "- Before you use execute_command, look at SYSTEM INFORMATION and write "
                        "commands that work on that system and in that shell. To run a command "
                        "in another directory, put both in one command line: "
                        "`cd /path/to/project && make` (you stay in %s afterwards).\n",
                   cwd);
    if (has(ctx, "search_files"))
        buf_puts(out, "- Write search_files patterns with care: precise enough to find what "
                      "you need, loose enough not to miss it. Look at the lines around each "
                      "match, and read the interesting files before you change them.\n");
    if (has(ctx, "write_to_file"))
        buf_puts(out, "- Put a new project (an application, a website, a tool) in a folder of "
                      "its own unless the user says otherwise; write_to_file creates missing "
                      "folders. Lay it out as is usual for its kind, and make it easy to run "
                      "without extra setup.\n");
    buf_puts(out, "- Consider the kind of project (language, framework, build system) and read "
                  "its manifest (package.json, Cargo.toml, pyproject.toml, CMakeLists.txt, …) "
                  "to know its dependencies and conventions.\n"
                  "- Make changes that fit the code around them: its conventions, its style and "
                  "its APIs.\n");
    if (has(ctx, "write_to_file") || replace)
        buf_puts(out, "- To change a file, call the editing tool directly with the change; do "
                      "not show the change in your message first.\n");
    buf_puts(out, "- Do not ask for more information than the task needs. Use the tools to get "
                  "the task done efficiently.");
    if (complete)
        buf_puts(out, " When it is done, present the result with attempt_completion; the user "
                      "may answer with feedback, which you then use to improve your work.");
    buf_putc(out, '\n');
    if (ask)
        buf_puts(out, "- Ask the user questions only with ask_followup_question, and only for "
                      "details you need and cannot find yourself. When a tool can answer, use "
                      "the tool: if the user mentions a file that may be on their Desktop, "
                      "list the Desktop with list_files instead of asking for the path.\n");
    if (ctx->yolo)
        buf_puts(out, "- Nobody watches this task while it runs: every tool is approved "
                      "automatically and nobody will answer a question. When something is "
                      "unclear, choose the most reasonable option, say which one you chose, "
                      "and go on.\n");
    if (cmd)
        buf_puts(out, "- The result of a command gives its output and its exit status. Judge "
                      "success from them; a command that prints nothing may still have "
                      "worked.\n");
    buf_puts(out, "- When the user gives the content of a file in the message, do not read "
                  "it again.\n"
                  "- Your goal is to get the task done, not to hold a conversation.\n");
    if (complete)
        buf_puts(out, "- Never end the result of attempt_completion with a question or an "
                      "offer of more help: word it as final.\n");
    buf_puts(out, "- Never start a message with filler such as \"Great\", \"Certainly\", "
                  "\"Okay\" or \"Sure\". Be direct and technical: write \"I changed the "
                  "CSS\", not \"Great, I've changed the CSS\".\n");
    if (ctx->images)
        buf_puts(out, "- When the user gives you images, look at them closely and use what "
                  "they show in your work.\n");
    buf_puts(out, "- Each user message ends with environment details that hew adds by itself. "
                  "They are not part of the user's request: use them as context, but do not "
                  "assume the user refers to them unless they say so, and explain what you do "
                  "with them, since the user may not see them.\n");
    if (cmd)
        buf_puts(out, "- Before you run a command, look at the Running Commands section of the "
                      "environment details: a development server that is already running does "
                      "not need to be started again.\n");
    if (replace)
        buf_puts(out, "- In replace_in_file, every SEARCH part holds complete lines copied "
                      "exactly from the file, the blocks follow the order of the file, and the "
                      "markers are written exactly as shown in EDITING FILES.\n");
    if (ctx->strict_plan && (has(ctx, "write_to_file") || replace))
        buf_puts(out, "- In PLAN MODE, file changes are refused; make them in ACT MODE.\n");
    if (ctx->nmcp)
        buf_puts(out, "- Use MCP tools like any other tool: one call, then wait for its "
                      "result.\n");
    if (ctx->parallel_tools)
        buf_puts(out, "- Wait for the results of your tool calls before you build on them. For "
                      "example, to build a small application, write the files that do not "
                      "depend on each other, wait for the results that they were written, "
                      "then go on.");
    else
        buf_puts(out, "- Wait for the result after each tool use before you go on. For "
                      "example, to build a small application, write one file, wait for the "
                      "result that it was written, then write the next one, and so on.");
}

static void section_system(const prompt_ctx *ctx, buf *out)
{
    buf_printf(out,
               "SYSTEM INFORMATION\n\nOperating System: %s\nDefault Shell: %s\n"
               "Home Directory: %s\nCurrent Working Directory: %s",
               ctx->os ? ctx->os : "unknown", ctx->shell ? ctx->shell : "/bin/sh",
               ctx->home ? ctx->home : "/", ctx->cwd ? ctx->cwd : ".");
}

static void section_objective(const prompt_ctx *ctx, buf *out)
{
    buf_puts(out, "OBJECTIVE\n\n"
                  "You get the task done step by step.\n\n"
                  "1. Read the task, set clear goals that can be reached, and put them in a "
                  "sensible order.\n"
                  "2. Work through the goals one after the other, using the tools as needed. "
                  "Each goal is a distinct step, so you always know what is done and what is "
                  "left.\n"
                  "3. Your tools can do a lot; use them well. Before a tool call, think: look "
                  "at the file listing in the environment details for context, choose the "
                  "tool that fits the step best, and check each of its required parameters: "
                  "did the user give the value, or can you infer it from what you know? When "
                  "every required value is known or can reasonably be inferred, make the "
                  "call. When one is missing, ");
    if (has(ctx, "ask_followup_question"))
        buf_puts(out, "ask the user for it with ask_followup_question instead of calling the "
                      "tool with a made-up value. Do not ask about optional parameters.\n");
    else
        buf_puts(out, "choose a reasonable value and say which one you chose; never call a "
                      "tool with a made-up path or name you have not checked.\n");
    if (has(ctx, "attempt_completion")) {
        buf_puts(out, "4. When the task is done, present the result with attempt_completion.");
        const tool_def *ac = offered(ctx, "attempt_completion");
        bool command = false;
        for (size_t i = 0; ac && i < ac->nparams; i++)
            command = command || strcmp(ac->params[i].name, "command") == 0;
        if (command)
            buf_puts(out, " You may add a command that shows the result (for a web page, one "
                          "that opens it in the browser); not one such as echo or cat that "
                          "only prints text.");
        buf_putc(out, '\n');
    } else {
        buf_puts(out, "4. When the task is done, say so plainly with a short account of the "
                      "result.\n");
    }
    buf_puts(out, "5. The user may give feedback; use it to improve your work. Do not drag the "
                  "conversation on: no questions or offers of more help at the end of your "
                  "answers.");
}

static void section_custom(const prompt_ctx *ctx, buf *out)
{
    buf_puts(out, "USER'S CUSTOM INSTRUCTIONS\n\n"
                  "The user has given the instructions below. Follow them as closely as you "
                  "can, as long as they do not conflict with the TOOL USE guidelines.");
    if (set(ctx->language))
        buf_printf(out, "\n\n# Preferred Language\n\nWrite your messages to the user in %s.",
                   ctx->language);
    if (set(ctx->rules)) {
        buf_puts(out, "\n\n");
        buf_puts(out, ctx->rules);
    }
    if (set(ctx->clineignore)) {
        size_t n = strlen(ctx->clineignore);
        while (n && ctx->clineignore[n - 1] == '\n')
            n--;
        buf_puts(out, "\n\n# .clineignore\n\n(The workspace's .clineignore file, below, lists "
                      "files and folders the user keeps out of your reach, in .gitignore "
                      "syntax. The tools refuse to read or change them, and listings mark "
                      "them with a lock (\xf0\x9f\x94\x92). Do not try to get at their content "
                      "another way, for example with cat in a command.)\n\n");
        buf_append(out, ctx->clineignore, n);
        buf_puts(out, "\n.clineignore");
    }
}

/* The skills: names and descriptions only; use_skill loads one (prompt/skills.h). */
static void section_skills(const prompt_ctx *ctx, buf *out)
{
    buf_puts(out, "SKILLS\n\n"
                  "Skills are instructions for particular kinds of tasks, kept out of this "
                  "prompt until needed. When the user's task matches a skill's description, "
                  "load the skill with the use_skill tool before doing the work, then follow "
                  "its instructions. Only these skills exist:\n\n");
    buf_puts(out, ctx->skills);
}

void prompt_build(const prompt_ctx *ctx, buf *out)
{
    section_role(out);
    buf_puts(out, SECTION_SEP);
    section_tool_use(ctx, out);
    if (ctx->nmcp) {
        buf_puts(out, SECTION_SEP);
        section_mcp(ctx, out);
    }
    bool edits = false, modes = false;
    for (size_t i = 0; i < ctx->ntools; i++) {
        edits = edits || (tool_is(ctx->tools[i], TOOL_EDITS_FILES) &&
                          prompt_tool_offered(ctx, ctx->tools[i]));
        modes = modes || tool_is(ctx->tools[i], TOOL_PLAN_ONLY);
    }
    if (edits) {
        buf_puts(out, SECTION_SEP);
        section_editing(ctx, out);
    }
    if (modes) {
        buf_puts(out, SECTION_SEP);
        section_modes(ctx, out);
    }
    if (set(ctx->skills)) {
        buf_puts(out, SECTION_SEP);
        section_skills(ctx, out);
    }    buf_puts(out, SECTION_SEP);
    section_capabilities(ctx, out);
    buf_puts(out, SECTION_SEP);
    section_rules(ctx, out);
    buf_puts(out, SECTION_SEP);
    section_system(ctx, out);
    buf_puts(out, SECTION_SEP);
    section_objective(ctx, out);
    if (set(ctx->language) || set(ctx->rules) || set(ctx->clineignore)) {
        buf_puts(out, SECTION_SEP);
        section_custom(ctx, out);
    }
}

void prompt_env_details(const prompt_ctx *ctx, bool first_turn, long long now_epoch_s, buf *out)
{
    buf listing = BUF_INIT(0);
    env_details e = {
        .cwd = ctx->cwd,
        .mode = ctx->mode,
        .yolo = ctx->yolo,
        .strict_plan = ctx->strict_plan,
        .ask_tool = !ctx->yolo,
        .now_epoch_s = now_epoch_s,
        .first_turn = first_turn,
    };
    if (first_turn && ctx->cwd && env_details_listing(ctx->cwd, &listing, NULL) == HEW_OK &&
        listing.err == HEW_OK)
        e.listing = listing.data ? listing.data : "";
    env_details_build(&e, out);
    buf_release(&listing);
}
