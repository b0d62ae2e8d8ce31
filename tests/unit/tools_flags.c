/* tools_flags — what a tool is comes from its flags in the registry, never its name. The
 * registry's table is consistent (a tool that edits files is not read-only, one that needs
 * an answer asks the user, …), and the prompt offers tools by their flags: a tool of any
 * name with a flag is treated as the flag says, and a tool without it is not. Must never
 * depend on the order of the table or on a tool's description. */
#include <string.h>

#include "check.h"
#include "prompt/prompt.h"
#include "tools/registry.h"

#define ALL_FLAGS                                                                          \
    (TOOL_READ_ONLY | TOOL_EDITS_FILES | TOOL_ASKS_USER | TOOL_NEEDS_ANSWER |              \
     TOOL_PLAN_ONLY | TOOL_SUMMARY | TOOL_MCP | TOOL_MCP_GATEWAY | TOOL_COMPLETES |         \
     TOOL_RESULT_IS_FILE | TOOL_SKILLS)

static size_t count_with(unsigned flag)
{
    size_t n, c = 0;
    const tool_def *const *t = registry_tools(&n);
    for (size_t i = 0; i < n; i++)
        c += tool_is(t[i], flag);
    return c;
}

static void test_table_consistent(void)
{
    size_t n;
    const tool_def *const *t = registry_tools(&n);
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++) {
        const tool_def *d = t[i];
        REQUIRE(d && d->name && *d->name);
        CHECK(d->run != NULL);
        CHECK(d->description && *d->description);
        CHECK((d->flags & ~(unsigned)ALL_FLAGS) == 0);
        /* a tool that edits files changes the workspace */
        CHECK(!(tool_is(d, TOOL_EDITS_FILES) && tool_is(d, TOOL_READ_ONLY)));
        /* planning never edits */
        CHECK(!(tool_is(d, TOOL_PLAN_ONLY) && tool_is(d, TOOL_EDITS_FILES)));
        /* implications written in tools/tool.h */
        if (tool_is(d, TOOL_NEEDS_ANSWER))
            CHECK(tool_is(d, TOOL_ASKS_USER));
        if (tool_is(d, TOOL_MCP_GATEWAY))
            CHECK(tool_is(d, TOOL_MCP));
        if (tool_is(d, TOOL_COMPLETES))
            CHECK(tool_is(d, TOOL_ASKS_USER) && !tool_is(d, TOOL_READ_ONLY));
        if (tool_is(d, TOOL_RESULT_IS_FILE))
            CHECK(tool_is(d, TOOL_READ_ONLY));
        if (tool_is(d, TOOL_SUMMARY))
            CHECK(!tool_is(d, TOOL_ASKS_USER) && !tool_is(d, TOOL_EDITS_FILES));
        /* lookups find the same entry; names are unique */
        CHECK(registry_find(d->name) == d);
        for (size_t j = i + 1; j < n; j++)
            CHECK(strcmp(d->name, t[j]->name) != 0);
        /* an alias never shadows another parameter of the same tool */
        for (size_t p = 0; p < d->nparams; p++)
            for (size_t q = 0; q < d->nparams && d->params[p].alias; q++)
                CHECK(strcmp(d->params[p].alias, d->params[q].name) != 0);
    }
    /* the task needs exactly one way to complete and one summary tool; the gateway is one */
    CHECK(count_with(TOOL_COMPLETES) == 1);
    CHECK(count_with(TOOL_SUMMARY) == 1);
    CHECK(count_with(TOOL_MCP_GATEWAY) == 1);
    CHECK(count_with(TOOL_PLAN_ONLY) >= 1);
    CHECK(count_with(TOOL_EDITS_FILES) >= 1);
    CHECK(count_with(TOOL_NEEDS_ANSWER) >= 1);
    CHECK(tool_is(NULL, 0) == false);
}

/* What the built-in tools are: the facts the prompt and the executor relied on when they
 * compared names, now read from the table. */
static void test_builtin_facts(void)
{
    CHECK(tool_is(registry_find("write_to_file"), TOOL_EDITS_FILES));
    CHECK(tool_is(registry_find("replace_in_file"), TOOL_EDITS_FILES));
    CHECK(!tool_is(registry_find("execute_command"), TOOL_READ_ONLY));
    CHECK(!tool_is(registry_find("execute_command"), TOOL_EDITS_FILES));
    CHECK(tool_is(registry_find("read_file"), TOOL_READ_ONLY | TOOL_RESULT_IS_FILE));
    CHECK(!tool_is(registry_find("search_files"), TOOL_RESULT_IS_FILE));
    CHECK(tool_is(registry_find("ask_followup_question"), TOOL_NEEDS_ANSWER));
    CHECK(!tool_is(registry_find("new_task"), TOOL_NEEDS_ANSWER)); /* yolo accepts it */
    CHECK(tool_is(registry_find("plan_mode_respond"), TOOL_PLAN_ONLY));
    CHECK(tool_is(registry_find("summarize_task"), TOOL_SUMMARY));
    CHECK(tool_is(registry_find("attempt_completion"), TOOL_COMPLETES));
    CHECK(tool_is(registry_find("use_mcp_tool"), TOOL_MCP_GATEWAY));
    CHECK(tool_is(registry_find("access_mcp_resource"), TOOL_MCP | TOOL_READ_ONLY));
    CHECK(tool_is(registry_find("load_mcp_documentation"), TOOL_MCP));
    CHECK(tool_is(registry_find("use_skill"), TOOL_SKILLS | TOOL_READ_ONLY));
    CHECK_INT(count_with(TOOL_SKILLS), 1);
    CHECK(registry_find("no_such_tool") == NULL);
}

static hew_code no_run(tool_env *env, const tool_call *call, tool_result *out)
{
    (void)env;
    (void)call;
    (void)out;
    return HEW_OK;
}

/* The prompt's filter reads flags: tools of made-up names behave as their flags say, and
 * a tool that borrows a built-in's name but not its flags is an ordinary tool. */
static void test_offered_by_flags(void)
{
    static const tool_def asks = { .name = "quiz_user", .description = "d",
                                   .flags = TOOL_ASKS_USER | TOOL_NEEDS_ANSWER, .run = no_run };
    static const tool_def plan = { .name = "propose_plan", .description = "d",
                                   .flags = TOOL_PLAN_ONLY, .run = no_run };
    static const tool_def summary = { .name = "give_summary", .description = "d",
                                      .flags = TOOL_SUMMARY, .run = no_run };
    static const tool_def mcp = { .name = "mcp_thing", .description = "d", .flags = TOOL_MCP,
                                  .run = no_run };
    static const tool_def gateway = { .name = "call_server", .description = "d",
                                      .flags = TOOL_MCP | TOOL_MCP_GATEWAY, .run = no_run };
    static const tool_def plain_plan = { .name = "plan_mode_respond", .description = "d",
                                         .run = no_run };
    static const tool_def plain_ask = { .name = "ask_followup_question", .description = "d",
                                        .run = no_run };
    static const tool_def plain_mcp = { .name = "use_mcp_tool", .description = "d",
                                        .run = no_run };
    prompt_ctx c;
    prompt_ctx_init(&c); /* act mode, no MCP, not yolo, XML tools, not condensing */
    CHECK(prompt_tool_offered(&c, &asks));
    CHECK(!prompt_tool_offered(&c, &plan));
    CHECK(!prompt_tool_offered(&c, &summary));
    CHECK(!prompt_tool_offered(&c, &mcp));
    CHECK(!prompt_tool_offered(&c, &gateway));
    CHECK(prompt_tool_offered(&c, &plain_plan));
    CHECK(prompt_tool_offered(&c, &plain_mcp));

    c.yolo = true;
    CHECK(!prompt_tool_offered(&c, &asks));
    CHECK(prompt_tool_offered(&c, &plain_ask));
    c.yolo = false;

    c.mode = MODE_PLAN;
    CHECK(prompt_tool_offered(&c, &plan));
    c.condensing = true;
    CHECK(prompt_tool_offered(&c, &summary));

    c.nmcp = 1;
    CHECK(prompt_tool_offered(&c, &mcp));
    CHECK(prompt_tool_offered(&c, &gateway));
    c.native_tools = true;
    CHECK(prompt_tool_offered(&c, &mcp));
    CHECK(!prompt_tool_offered(&c, &gateway));
    CHECK(prompt_tool_offered(&c, &plain_mcp));
    /* a skills tool only when the task has skills, whatever its name */
    static const tool_def skills = { .name = "load_it", .description = "d",
                                     .flags = TOOL_SKILLS | TOOL_READ_ONLY, .run = no_run };
    prompt_ctx_init(&c);
    CHECK(!prompt_tool_offered(&c, &skills));
    c.skills = "";
    CHECK(!prompt_tool_offered(&c, &skills));
    c.skills = "- pdf: Work with PDF files\n";
    CHECK(prompt_tool_offered(&c, &skills));
}

/* The EDITING FILES section is there when any tool that edits files is offered, whatever
 * its name, and names that tool. */
static void test_editing_section_by_flag(void)
{
    static const tool_def patch = { .name = "patch_files", .description = "Patch files.",
                                    .flags = TOOL_EDITS_FILES, .run = no_run };
    static const tool_def look = { .name = "look", .description = "Look around.",
                                   .flags = TOOL_READ_ONLY, .run = no_run };
    const tool_def *with[] = { &look, &patch };
    const tool_def *without[] = { &look };
    prompt_ctx c;
    prompt_ctx_init(&c);
    c.cwd = "/w";
    c.tools = with;
    c.ntools = 2;
    buf b = BUF_INIT(0);
    prompt_build(&c, &b);
    REQUIRE(b.err == HEW_OK && b.data);
    CHECK(strstr(b.data, "EDITING FILES\n\npatch_files is the tool that changes files.") != NULL);
    buf_reset(&b);
    c.tools = without;
    c.ntools = 1;
    prompt_build(&c, &b);
    REQUIRE(b.err == HEW_OK && b.data);
    CHECK(strstr(b.data, "EDITING FILES") == NULL);
    buf_release(&b);
}

/* A parameter's alias: the value under it counts when the name is absent or empty, and
 * the parser knows it as a tag. */
static void test_param_alias(void)
{
    const tool_def *ac = registry_find("attempt_completion");
    REQUIRE(ac && ac->nparams > 0);
    const tool_param *result = &ac->params[0];
    CHECK_STR(result->name, "result");
    CHECK_STR(result->alias, "response");
    const char *keys[] = { "response" }, *vals[] = { "done" };
    tool_call call = { .name = "attempt_completion", .nparams = 1, .keys = keys, .values = vals };
    CHECK_STR(tool_param_value(result, &call), "done");
    const char *keys2[] = { "result", "response" }, *vals2[] = { "", "done" };
    tool_call call2 = { .name = "attempt_completion", .nparams = 2, .keys = keys2,
                        .values = vals2 };
    CHECK_STR(tool_param_value(result, &call2), "done");
    const char *keys3[] = { "result", "response" }, *vals3[] = { "first", "second" };
    tool_call call3 = { .name = "attempt_completion", .nparams = 2, .keys = keys3,
                        .values = vals3 };
    CHECK_STR(tool_param_value(result, &call3), "first");
    tool_call none = { .name = "attempt_completion" };
    CHECK(tool_param_value(result, &none) == NULL);
}

int main(void)
{
    test_table_consistent();
    test_builtin_facts();
    test_offered_by_flags();
    test_editing_section_by_flag();
    test_param_alias();
    return check_report();
}
