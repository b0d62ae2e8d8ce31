/* registry — the table of built-in tools (see registry.h). Adding a tool = one file and
 * one line here. */
#include "tools/registry.h"

#include <string.h>

extern const tool_def tool_attempt_completion;
extern const tool_def tool_ask_followup_question;
extern const tool_def tool_plan_mode_respond;
extern const tool_def tool_execute_command;
extern const tool_def tool_new_task;
extern const tool_def tool_condense;
extern const tool_def tool_summarize_task;
extern const tool_def tool_read_file;
extern const tool_def tool_write_to_file;
extern const tool_def tool_replace_in_file;
extern const tool_def tool_list_files;
extern const tool_def tool_search_files;
extern const tool_def tool_list_code_definition_names;
extern const tool_def tool_use_mcp_tool;
extern const tool_def tool_access_mcp_resource;
extern const tool_def tool_load_mcp_documentation;
extern const tool_def tool_use_skill;

static const tool_def *const builtin_tools[] = {
    &tool_ask_followup_question,
    &tool_attempt_completion,
    &tool_plan_mode_respond,
    &tool_execute_command,
    &tool_new_task,
    &tool_condense,
    &tool_summarize_task,
    &tool_read_file,
    &tool_write_to_file,
    &tool_replace_in_file,
    &tool_list_files,
    &tool_search_files,
    &tool_list_code_definition_names,
    &tool_use_mcp_tool,
    &tool_access_mcp_resource,
    &tool_load_mcp_documentation,
    &tool_use_skill,
};

const tool_def *const *registry_tools(size_t *count)
{
    *count = sizeof builtin_tools / sizeof builtin_tools[0];
    return builtin_tools;
}

const tool_def *registry_find(const char *name)
{
    for (size_t i = 0; i < sizeof builtin_tools / sizeof builtin_tools[0]; i++)
        if (strcmp(builtin_tools[i]->name, name) == 0)
            return builtin_tools[i];
    return NULL;
}
