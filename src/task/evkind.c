/* evkind — the table of message types (see evkind.h). Pure. */
#include "task/evkind.h"

#include <string.h>

static const struct {
    const char *type;
    hew_event_kind kind;
} evkinds[] = {
    { "task", HEW_EV_TASK },
    { "text", HEW_EV_TEXT },
    { "reasoning", HEW_EV_REASONING },
    { "api_req_started", HEW_EV_API_REQ_STARTED },
    { "api_req_retried", HEW_EV_API_REQ_RETRIED },
    { "api_req_failed", HEW_EV_API_REQ_FAILED },
    { "error_retry", HEW_EV_ERROR_RETRY },
    { "error", HEW_EV_ERROR },
    { "info", HEW_EV_INFO },
    { "notice", HEW_EV_NOTICE },
    { "user_feedback", HEW_EV_USER_FEEDBACK },
    { "completion_result", HEW_EV_COMPLETION_RESULT },
    { "followup", HEW_EV_FOLLOWUP },
    { "plan_mode_respond", HEW_EV_PLAN_MODE_RESPOND },
    { "mistake_limit_reached", HEW_EV_MISTAKE_LIMIT_REACHED },
    { "resume_task", HEW_EV_RESUME_TASK },
    { "resume_completed_task", HEW_EV_RESUME_COMPLETED_TASK },
    { "deleted_api_reqs", HEW_EV_DELETED_API_REQS },
    { "condensing", HEW_EV_CONDENSING },
    { "condensed", HEW_EV_CONDENSED },
    { "new_task", HEW_EV_NEW_TASK },
    { "tool", HEW_EV_TOOL },
    { "command", HEW_EV_COMMAND },
    { "command_output", HEW_EV_COMMAND_OUTPUT },
    { "use_mcp_server", HEW_EV_USE_MCP_SERVER },
    { "mcp_server_request_started", HEW_EV_MCP_SERVER_REQUEST_STARTED },
    { "mcp_server_response", HEW_EV_MCP_SERVER_RESPONSE },
    { "mcp_notification", HEW_EV_MCP_NOTIFICATION },
    { "load_mcp_documentation", HEW_EV_LOAD_MCP_DOCUMENTATION },
    { "checkpoint_created", HEW_EV_CHECKPOINT_CREATED },
    { "clineignore_error", HEW_EV_CLINEIGNORE_ERROR },
    { "diff_error", HEW_EV_DIFF_ERROR },
    { "sandbox_denied", HEW_EV_SANDBOX_DENIED },
    { "command_unsandboxed", HEW_EV_COMMAND_UNSANDBOXED },
    { "hook", HEW_EV_HOOK },
};

hew_event_kind evkind_of(const char *type)
{
    for (size_t i = 0; type && i < sizeof evkinds / sizeof evkinds[0]; i++)
        if (strcmp(evkinds[i].type, type) == 0)
            return evkinds[i].kind;
    return HEW_EV_OTHER;
}
