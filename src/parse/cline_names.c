/* cline_names — Cline's tool and parameter names (see cline_names.h). */
#include "parse/cline_names.h"

const char *const cline_tool_names[] = {
    "execute_command", "read_file", "write_to_file", "replace_in_file", "search_files",
    "list_files", "list_code_definition_names", "browser_action", "use_mcp_tool",
    "access_mcp_resource", "load_mcp_documentation", "ask_followup_question",
    "attempt_completion", "plan_mode_respond", "act_mode_respond", "new_task", "condense",
    "summarize_task", "report_bug", "new_rule", "apply_patch", "generate_explanation",
    "web_fetch", "web_search", "use_skill", "use_subagents", "focus_chain",
};
const size_t cline_tool_count = sizeof cline_tool_names / sizeof cline_tool_names[0];

const char *const cline_param_names[] = {
    "command", "requires_approval", "path", "absolutePath", "content", "diff", "regex",
    "file_pattern", "recursive", "action", "url", "coordinate", "text", "query",
    "allowed_domains", "blocked_domains", "prompt", "server_name", "tool_name", "arguments",
    "uri", "question", "options", "response", "result", "context", "title", "what_happened",
    "steps_to_reproduce", "api_request_output", "additional_context",
    "needs_more_exploration", "task_progress", "timeout", "input", "from_ref", "to_ref",
    "skill_name", "prompt_1", "prompt_2", "prompt_3", "prompt_4", "prompt_5", "start_line",
    "end_line",
};
const size_t cline_param_count = sizeof cline_param_names / sizeof cline_param_names[0];
