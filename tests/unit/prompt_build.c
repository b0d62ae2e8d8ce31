/* Unit tests of the system prompt (prompt/prompt): golden files of the assembled prompt
 * for a few contexts (XML vs native tools, act vs plan, yolo, rules and MCP), determinism,
 * the tool filter, the native schemas, and the prompt over the real tool table.
 *
 * The golden files live in tests/fixtures/prompt/. After a deliberate change of the
 * prompt text, regenerate them with
 *     HEW_UPDATE_GOLDEN=1 ./test_prompt_build
 * and review the diff like code. The goldens use a fixed tool table defined here, so that
 * a change of a real tool's description does not touch them. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "check.h"
#include "prompt/prompt.h"
#include "tools/registry.h"

/* ---- a fixed tool table ---------------------------------------------------------------- */

static const tool_param p_path[] = { { "path", true, "The path, relative to the working "
                                       "directory.", "File path here", NULL } };
static const tool_param p_read[] = {
    { "path", true, "The file to read.", "File path here", NULL },
    { "start_line", false, "First line to show.", "Starting line number (optional)", NULL },
};
static const tool_param p_write[] = {
    { "path", true, "The file to write.", "File path here", NULL },
    { "content", true, "The complete content.", "Your file content here", NULL },
};
static const tool_param p_replace[] = {
    { "path", true, "The file to change.", "File path here", NULL },
    { "diff", true, "SEARCH/REPLACE blocks.", "Search and replace blocks here", NULL },
};
static const tool_param p_cmd[] = {
    { "command", true, "The command line.", "Your command here", NULL },
    { "requires_approval", true, "\"true\" for commands with side effects.", "true or false", NULL },
};
static const tool_param p_list[] = {
    { "path", true, "The folder to list.", "Directory path here", NULL },
    { "recursive", false, "'true' to list subfolders too.", "true or false (optional)", NULL },
};
static const tool_param p_search[] = {
    { "path", true, "The folder to search.", "Directory path here", NULL },
    { "regex", true, "The regular expression.", "Your regex pattern here", NULL },
};
static const tool_param p_ask[] = { { "question", true, "The question.", "Your question here", NULL } };
static const tool_param p_done[] = {
    { "result", true, "The final result.", "Your final result description here", NULL },
    { "command", false, "A command that shows it.", "Command (optional)", NULL },
};
static const tool_param p_plan[] = { { "response", true, "Your answer.", "Your response here", NULL } };
static const tool_param p_ctx[] = { { "context", true, "The summary.", "Your summary", NULL } };
static const tool_param p_mcp[] = {
    { "server_name", true, "The server.", "server name here", NULL },
    { "tool_name", true, "The tool.", "tool name here", NULL },
    { "arguments", true, "JSON arguments.", "{\"key\": \"value\"}", NULL },
};

/* The flags are the registry's (tools/tool.h): what the prompt offers follows them. */
#define T(var, nm, desc, ps, fl)                                                                \
    static const tool_def var = { .name = nm, .description = desc, .params = ps,               \
                                  .nparams = sizeof ps / sizeof ps[0], .flags = fl }
T(t_ask, "ask_followup_question", "Ask the user a question.", p_ask,
  TOOL_READ_ONLY | TOOL_ASKS_USER | TOOL_NEEDS_ANSWER);
T(t_done, "attempt_completion", "Present the result.", p_done, TOOL_ASKS_USER | TOOL_COMPLETES);
T(t_plan, "plan_mode_respond", "Answer in PLAN MODE.", p_plan,
  TOOL_READ_ONLY | TOOL_ASKS_USER | TOOL_PLAN_ONLY);
T(t_cmd, "execute_command", "Run a command.", p_cmd, 0);
T(t_newtask, "new_task", "Start a new task.", p_ctx, TOOL_ASKS_USER);
T(t_condense, "condense", "Summarise the conversation.", p_ctx, TOOL_ASKS_USER);
T(t_summarize, "summarize_task", "Give the summary asked for.", p_ctx,
  TOOL_READ_ONLY | TOOL_SUMMARY);
T(t_read, "read_file", "Read a file.", p_read, TOOL_READ_ONLY);
T(t_write, "write_to_file", "Write a file.", p_write, TOOL_EDITS_FILES);
T(t_replace, "replace_in_file", "Change parts of a file.", p_replace, TOOL_EDITS_FILES);
T(t_list, "list_files", "List a folder.", p_list, TOOL_READ_ONLY);
T(t_search, "search_files", "Search files.", p_search, TOOL_READ_ONLY);
T(t_defs, "list_code_definition_names", "List definitions.", p_path, TOOL_READ_ONLY);
T(t_mcp, "use_mcp_tool", "Call an MCP tool.", p_mcp, TOOL_MCP | TOOL_MCP_GATEWAY);

static const tool_def *const table[] = {
    &t_ask, &t_done, &t_plan, &t_cmd, &t_newtask, &t_condense, &t_read,
    &t_write, &t_replace, &t_list, &t_search, &t_defs,
};
static const tool_def *const table_mcp[] = {
    &t_ask, &t_done, &t_plan, &t_cmd, &t_newtask, &t_condense, &t_read,
    &t_write, &t_replace, &t_list, &t_search, &t_defs, &t_mcp,
};

static prompt_ctx base_ctx(void)
{
    prompt_ctx c;
    prompt_ctx_init(&c);
    c.cwd = "/home/ada/project";
    c.os = "Linux 6.1.0";
    c.shell = "/bin/bash";
    c.home = "/home/ada";
    c.provider = "anthropic";
    c.model = "claude-sonnet-4-5";
    c.tools = table;
    c.ntools = sizeof table / sizeof table[0];
    return c;
}

static char *build(const prompt_ctx *c)
{
    buf b = BUF_INIT(0);
    prompt_build(c, &b);
    if (b.err != HEW_OK) {
        buf_release(&b);
        return NULL;
    }
    return buf_detach(&b, NULL);
}

/* Compare text with tests/fixtures/prompt/<name>, or write it there when
 * HEW_UPDATE_GOLDEN is set. */
static void golden(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/prompt/%s", HEW_TEST_FIXTURES, name);
    const char *upd = getenv("HEW_UPDATE_GOLDEN");
    if (upd && *upd && strcmp(upd, "0") != 0) {
        hew_err err = HEW_ERR_INIT;
        CHECK(fs_write_atomic(path, text, strlen(text), 0644, &err) == HEW_OK);
        fprintf(stderr, "wrote %s\n", path);
        return;
    }
    char *want = NULL;
    size_t wlen = 0;
    if (fs_read_file(path, 1 << 20, &want, &wlen, NULL) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "golden %s missing (HEW_UPDATE_GOLDEN=1 makes it)", path);
        return;
    }
    size_t glen = strlen(text), i = 0;
    while (i < glen && i < wlen && text[i] == want[i])
        i++;
    check_count++;
    if (i != glen || i != wlen) {
        size_t from = i > 60 ? i - 60 : 0;
        check_fail(__FILE__, __LINE__,
                   "golden %s differs at byte %zu (lengths %zu vs %zu)\n--- got:\n%.160s\n"
                   "--- want:\n%.160s\n(HEW_UPDATE_GOLDEN=1 regenerates after a deliberate "
                   "change)",
                   name, i, glen, wlen, text + from, want + (from < wlen ? from : wlen));
    }
    free(want);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- goldens ---------------------------------------------------------------------------- */

static void test_golden_xml_act(void)
{
    prompt_ctx c = base_ctx();
    char *p = build(&c);
    REQUIRE(p != NULL);
    golden("xml_act.txt", p);
    /* every offered tool is documented once, with its usage block */
    CHECK(strstr(p, "## read_file\nDescription: Read a file.\n") != NULL);
    CHECK(strstr(p, "- start_line: (optional) First line to show.\n") != NULL);
    CHECK(strstr(p, "<read_file>\n<path>File path here</path>\n<start_line>Starting line "
                    "number (optional)</start_line>\n</read_file>") != NULL);
    CHECK(strstr(p, "## plan_mode_respond") == NULL); /* act mode */
    CHECK(strstr(p, "## ask_followup_question") != NULL);
    CHECK(strstr(p, "# Tool call format") != NULL);
    CHECK(strstr(p, "------- SEARCH") != NULL);
    CHECK(strstr(p, "USER'S CUSTOM INSTRUCTIONS") == NULL); /* empty section left out */
    CHECK(strstr(p, "MCP SERVERS") == NULL);
    CHECK(strstr(p, "Current Working Directory: /home/ada/project") != NULL);
    free(p);
}

static void test_golden_native_act(void)
{
    prompt_ctx c = base_ctx();
    c.native_tools = true;
    char *p = build(&c);
    REQUIRE(p != NULL);
    golden("native_act.txt", p);
    /* no XML tool text at all with native tool calling */
    CHECK(strstr(p, "<read_file>") == NULL);
    CHECK(strstr(p, "<tool_name>") == NULL);
    CHECK(strstr(p, "## read_file") == NULL);
    CHECK(strstr(p, "<thinking>") == NULL);
    CHECK(strstr(p, "function-calling interface") != NULL);
    /* the editing rules still teach the SEARCH/REPLACE format (it is the diff's content) */
    CHECK(strstr(p, "------- SEARCH") != NULL);
    free(p);
}

static void test_golden_xml_plan_yolo(void)
{
    prompt_ctx c = base_ctx();
    c.mode = MODE_PLAN;
    c.yolo = true;
    char *p = build(&c);
    REQUIRE(p != NULL);
    golden("xml_plan_yolo.txt", p);
    CHECK(strstr(p, "## plan_mode_respond") != NULL);
    CHECK(strstr(p, "ask_followup_question") == NULL); /* hidden in yolo, never named */
    CHECK(strstr(p, "## new_task") != NULL); /* yolo accepts it without asking */
    CHECK(strstr(p, "hew switches to ACT MODE") != NULL);
    CHECK(strstr(p, "nobody will answer a question") != NULL);
    free(p);
}

static void test_golden_rules_mcp(void)
{
    json_t *schema = json_loads("{\"type\":\"object\",\"properties\":{\"city\":{\"type\":"
                                "\"string\",\"description\":\"City name\"}},\"required\":"
                                "[\"city\"]}",
                                0, NULL);
    REQUIRE(schema != NULL);
    mcp_offer_tool tools[] = { { "get_forecast", "Weather forecast for a city.", schema },
                                { "ping", "Check the server.", NULL } };
    mcp_offer_resource templates[] = { { "weather://{city}/now", "Current weather",
                                          "Conditions now." } };
    mcp_offer_resource resources[] = { { "weather://stations", "Stations", "All stations." } };
    mcp_offer_server servers[] = { { "weather", "node weather.js", tools, 2, templates, 1,
                                      resources, 1 } };
    prompt_ctx c = base_ctx();
    c.tools = table_mcp;
    c.ntools = sizeof table_mcp / sizeof table_mcp[0];
    c.mode = MODE_PLAN;
    c.strict_plan = true;
    c.parallel_tools = true;
    c.images = true;
    c.mcp = servers;
    c.nmcp = 1;
    c.language = "German";
    c.rules = "# .clinerules/\n\nThese rules come from the .clinerules/ folder at the top of "
              "the workspace:\n\nstyle.md\nUse tabs.";
    c.clineignore = "secrets/\n*.pem\n";
    char *p = build(&c);
    REQUIRE(p != NULL);
    golden("xml_rules_mcp.txt", p);
    CHECK(strstr(p, "MCP SERVERS") != NULL);
    CHECK(strstr(p, "## weather (`node weather.js`)") != NULL);
    CHECK(strstr(p, "      \"city\": {") != NULL); /* the schema, indented */
    CHECK(strstr(p, "use_mcp_tool") != NULL);
    CHECK(strstr(p, "USER'S CUSTOM INSTRUCTIONS") != NULL);
    CHECK(strstr(p, "# Preferred Language\n\nWrite your messages to the user in German.") != NULL);
    CHECK(strstr(p, "style.md\nUse tabs.") != NULL);
    CHECK(strstr(p, "# .clineignore") != NULL);
    CHECK(strstr(p, "secrets/\n*.pem\n.clineignore") != NULL);
    CHECK(strstr(p, "File changes are refused in PLAN MODE.") != NULL);
    CHECK(strstr(p, "several tools in one message") != NULL);
    CHECK(strstr(p, "images") != NULL);
    /* the custom instructions come last */
    CHECK(strstr(p, "USER'S CUSTOM INSTRUCTIONS") > strstr(p, "OBJECTIVE"));
    free(p);
    json_decref(schema);
}

static void test_golden_native_plan(void)
{
    prompt_ctx c = base_ctx();
    c.native_tools = true;
    c.mode = MODE_PLAN;
    c.rules = "# AGENTS.md\n\nSome instructions.";
    char *p = build(&c);
    REQUIRE(p != NULL);
    golden("native_plan.txt", p);
    CHECK(strstr(p, "<plan_mode_respond>") == NULL);
    CHECK(strstr(p, "ask the user to switch to ACT MODE") != NULL);
    free(p);
}

/* ---- properties -------------------------------------------------------------------------- */

static void test_deterministic(void)
{
    prompt_ctx c = base_ctx();
    c.language = "French";
    c.rules = "rule";
    for (int native = 0; native < 2; native++) {
        c.native_tools = native;
        char *a = build(&c);
        char *b = build(&c);
        /* a context copied field by field gives the same bytes too */
        prompt_ctx d = c;
        char lang[] = "French";
        d.language = lang;
        char *e = build(&d);
        REQUIRE(a && b && e);
        CHECK_STR(a, b);
        CHECK_STR(a, e);
        free(a);
        free(b);
        free(e);
    }
}

static void test_sections(void)
{
    prompt_ctx c = base_ctx();
    char *p = build(&c);
    REQUIRE(p != NULL);
    static const char *const order[] = { "You are hew", "TOOL USE", "EDITING FILES",
                                         "ACT MODE AND PLAN MODE", "CAPABILITIES", "RULES",
                                         "SYSTEM INFORMATION", "OBJECTIVE" };
    const char *prev = p;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *at = strstr(p, order[i]);
        CHECK(at != NULL && at >= prev);
        if (at)
            prev = at;
    }
    CHECK_INT(count(p, "\n\n====\n\n"), 7);
    free(p);

    /* a table without editing tools has no EDITING FILES section and never names them */
    static const tool_def *const ro[] = { &t_read, &t_list, &t_done };
    c.tools = ro;
    c.ntools = 3;
    p = build(&c);
    REQUIRE(p != NULL);
    CHECK(strstr(p, "EDITING FILES") == NULL);
    CHECK(strstr(p, "replace_in_file") == NULL);
    CHECK(strstr(p, "write_to_file") == NULL);
    CHECK(strstr(p, "execute_command") == NULL);
    CHECK(strstr(p, "ACT MODE AND PLAN MODE") == NULL); /* no plan_mode_respond in the table */
    free(p);
}

static void test_offered(void)
{
    prompt_ctx c = base_ctx();
    const tool_def *out[32];
    size_t n = prompt_tools_offered(&c, out, 32);
    CHECK_INT(n, 11); /* all but plan_mode_respond */
    for (size_t i = 0; i < n; i++)
        CHECK(strcmp(out[i]->name, "plan_mode_respond") != 0);
    c.mode = MODE_PLAN;
    CHECK_INT(prompt_tools_offered(&c, out, 32), 12);
    c.yolo = true;
    n = prompt_tools_offered(&c, out, 32);
    CHECK_INT(n, 11);
    CHECK(!prompt_tool_offered(&c, &t_ask));
    CHECK(prompt_tool_offered(&c, &t_newtask)); /* yolo starts it without asking */
    CHECK(prompt_tool_offered(&c, &t_condense));
    CHECK(prompt_tool_offered(&c, &t_plan));
    /* the count is returned even when cap is smaller */
    CHECK_INT(prompt_tools_offered(&c, out, 2), 11);
    /* summarize_task only in the request that asks for a summary */
    CHECK(!prompt_tool_offered(&c, &t_summarize));
    c.condensing = true;
    CHECK(prompt_tool_offered(&c, &t_summarize));
}

static void test_schema(void)
{
    json_t *s = prompt_tool_schema(&t_read);
    REQUIRE(s != NULL);
    char *js = json_dumps(s, JSON_COMPACT);
    CHECK_STR(js, "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
                  "\"description\":\"The file to read.\"},\"start_line\":{\"type\":\"string\","
                  "\"description\":\"First line to show.\"}},\"required\":[\"path\"]}");
    free(js);
    json_decref(s);
    static const tool_param opt[] = { { "x", false, "optional", "x", NULL } };
    static const tool_def t_opt = { .name = "o", .description = "d", .params = opt, .nparams = 1 };
    s = prompt_tool_schema(&t_opt);
    REQUIRE(s != NULL);
    CHECK(json_object_get(s, "required") == NULL);
    json_decref(s);
}

/* The real table: every offered tool is documented (XML) and has a schema (native) that
 * lists exactly its parameters. */
static void test_real_registry(void)
{
    size_t n = 0;
    const tool_def *const *tools = registry_tools(&n);
    prompt_ctx c = base_ctx();
    c.tools = tools;
    c.ntools = n;
    for (int mode = 0; mode < 2; mode++) {
        c.mode = mode ? MODE_PLAN : MODE_ACT;
        char *p = build(&c);
        REQUIRE(p != NULL);
        const tool_def *off[64];
        size_t k = prompt_tools_offered(&c, off, 64);
        REQUIRE(k <= 64);
        for (size_t i = 0; i < k; i++) {
            char head[128];
            snprintf(head, sizeof head, "\n## %s\nDescription: ", off[i]->name);
            CHECK(count(p, head) == 1);
            json_t *s = prompt_tool_schema(off[i]);
            REQUIRE(s != NULL);
            CHECK_INT(json_object_size(json_object_get(s, "properties")), off[i]->nparams);
            json_decref(s);
        }
        free(p);
    }
    c.native_tools = true;
    char *p = build(&c);
    REQUIRE(p != NULL);
    CHECK(strstr(p, "<read_file>") == NULL);
    free(p);
}

/* The old entry points still work (task/ calls them until it moves to the new ones). */
static void test_compat(void)
{
    prompt_ctx c = { 0 };
    prompt_ctx_machine(&c);
    c.cwd = "/tmp";
    c.mode = MODE_PLAN;
    buf b = BUF_INIT(0);
    prompt_build(&c, &b); /* no tools: still a whole prompt */
    CHECK(b.err == HEW_OK && strstr(b.data, "RULES") != NULL);
    buf_reset(&b);
    prompt_env_details(&c, false, 0, &b);
    CHECK(b.err == HEW_OK);
    CHECK(strncmp(b.data, "<environment_details>\n# Current Time\n", 37) == 0);
    CHECK(strstr(b.data, "PLAN MODE") != NULL);
    buf_release(&b);
}

int main(void)
{
    RUN(test_golden_xml_act);
    RUN(test_golden_native_act);
    RUN(test_golden_xml_plan_yolo);
    RUN(test_golden_rules_mcp);
    RUN(test_golden_native_plan);
    RUN(test_deterministic);
    RUN(test_sections);
    RUN(test_offered);
    RUN(test_schema);
    RUN(test_real_registry);
    RUN(test_compat);
    return check_report();
}
