/* responses — hew's texts for the model (see responses.h). Only words live here. */
#include <stdbool.h>

#include "task/responses.h"

/* A reminder of the XML tool-call format. */
static const char RESP_TOOL_FORMAT_REMINDER[] =
    "# Reminder: how to use a tool\n\n"
    "Write the tool call as XML: the tool's name as the outer tag and each parameter as a "
    "tag inside it, like this:\n\n"
    "<attempt_completion>\n"
    "<result>\n"
    "I added the missing null check to parse_header() and the tests pass.\n"
    "</result>\n"
    "</attempt_completion>\n\n"
    "Use exactly one tool call per message, at the end of the message, and wait for its "
    "result before going on.";

void resp_no_tools_used(buf *out, bool native)
{
    buf_puts(out, "[ERROR] Your last answer did not use a tool. Every answer must use one.\n\n");
    if (!native) {
        buf_puts(out, RESP_TOOL_FORMAT_REMINDER);
        buf_puts(out, "\n\n");
    }
    buf_puts(out, "# What to do next\n\n"
                  "- The task is done: use attempt_completion.\n"
                  "- You need something only the user knows: use ask_followup_question.\n"
                  "- Otherwise: go on with the next step of the task, using a tool.\n"
                  "(This message was sent automatically; do not answer it in conversation.)");
}

void resp_tool_error(buf *out, const char *error)
{
    buf_printf(out, "The tool failed with this error:\n<error>\n%s\n</error>", error);
}

void resp_missing_param(buf *out, const char *tool, const char *param, bool native)
{
    buf_printf(out,
               "The tool failed with this error:\n<error>\nThe required parameter '%s' of "
               "%s is missing. Call the tool again with every required parameter.\n</error>",
               param, tool);
    if (!native) {
        buf_puts(out, "\n\n");
        buf_puts(out, RESP_TOOL_FORMAT_REMINDER);
    }
}

void resp_skipped_after_rejection(buf *out, const char *desc, bool partial)
{
    if (partial)
        buf_printf(out, "%s was cut off and not run, because the user rejected an earlier "
                        "tool of this message.", desc);
    else
        buf_printf(out, "%s was skipped because the user rejected an earlier tool of this "
                        "message.", desc);
}

void resp_tool_already_used(buf *out, const char *tool)
{
    buf_printf(out,
               "Tool %s was not run: a tool was already used in this message, and only one "
               "tool may be used per message. Look at the first tool's result before "
               "using the next tool.",
               tool);
}

void resp_loop_warning(buf *out, const char *tool, int count)
{
    buf_printf(out,
               "\n\n[WARNING] %s has now been called %d times in a row with exactly the same "
               "arguments. This makes no progress: use a different tool or different "
               "arguments.",
               tool, count);
}

void resp_mistake_feedback(buf *out, const char *text)
{
    buf_printf(out,
               "You seem to be having trouble making progress. The user sent this feedback "
               "to help you:\n<feedback>\n%s\n</feedback>",
               text);
}

void resp_unknown_tool(buf *out, const char *tool)
{
    buf_printf(out,
               "The tool failed with this error:\n<error>\nThere is no tool named '%s'. Use "
               "one of the tools described in the system prompt.\n</error>",
               tool);
}

const char RESP_INTERRUPTED_BY_USER[] = "\n\n[Answer interrupted by the user]";
const char RESP_INTERRUPTED_BY_API_ERROR[] = "\n\n[Answer interrupted by an API error]";
const char RESP_INTERRUPTED_BY_FEEDBACK[] = "\n\n[Answer interrupted by the user's feedback]";
const char RESP_INTERRUPTED_BY_TOOL[] =
    "\n\n[Answer interrupted after a tool use. Only one tool may be used per message, and it "
    "must be at the end of the message.]";
const char RESP_EMPTY_ANSWER_PLACEHOLDER[] = "Failure: I did not give an answer.";
const char RESP_TOOL_INTERRUPTED[] = "Task was interrupted before this tool call could be completed.";
const char RESP_COMPLETION_REOPENED[] =
    "The user saw this result and came back to the task with more to do.";
