/* responses — the fixed texts hew sends to the model (in hew's own words; they carry the
 * information Cline's formatResponse carries). One place, so that wording changes never
 * hide in the loop's logic. All are static strings or printf formats. */
#ifndef HEW_TASK_RESPONSES_H
#define HEW_TASK_RESPONSES_H

#include <stdbool.h>

#include "base/buf.h"

/* The answer had no tool call. native: the model uses native tool calls (no XML recap). */
void resp_no_tools_used(buf *out, bool native);

/* toolError: wrap an error text for the model. */
void resp_tool_error(buf *out, const char *error);
/* A required parameter is missing. */
void resp_missing_param(buf *out, const char *tool, const char *param, bool native);
/* A later tool of a message after a rejected one. */
void resp_skipped_after_rejection(buf *out, const char *desc, bool partial);
/* A second tool in one message with parallel tool calling off. */
void resp_tool_already_used(buf *out, const char *tool);
/* The same call repeated. */
void resp_loop_warning(buf *out, const char *tool, int count);
/* The mistake limit was reached and the user gave guidance. */
void resp_mistake_feedback(buf *out, const char *text);
/* A tool name the model made up. */
void resp_unknown_tool(buf *out, const char *tool);
/* Markers appended to an interrupted answer in the history. */
extern const char RESP_INTERRUPTED_BY_USER[];
extern const char RESP_INTERRUPTED_BY_API_ERROR[];
extern const char RESP_INTERRUPTED_BY_FEEDBACK[];
extern const char RESP_INTERRUPTED_BY_TOOL[];
extern const char RESP_EMPTY_ANSWER_PLACEHOLDER[];
/* The result of a tool call the task stopped before it finished (Cline's text, given on
 * resume), and of the attempt_completion of a completed task the user came back to. */
extern const char RESP_TOOL_INTERRUPTED[];
extern const char RESP_COMPLETION_REOPENED[];

#endif
