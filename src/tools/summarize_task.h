/* summarize_task — the tool of automatic condensing (cline-spec §6.4). When a request
 * comes near the context limit, the task asks the model for a structured summary of the
 * conversation (summarize_task_instruction, in place of the environment details); the
 * model answers with a summarize_task call whose `context` holds it; the tool re-reads the
 * files the summary lists under "Required Files" and returns the continuation prompt
 * (summarize_task_continuation); the task then drops everything but the first pair from
 * what the model sees (tool_env.accept_summary). The tool is offered only in that request
 * (prompt_tool_offered).
 *
 * The files are read only when reads are approved without asking (tool_env.auto_approved
 * "read"; outside the workspace also needs the outside flag), never a path .clineignore
 * blocks, at most SUMMARIZE_FILES_READ files of the first SUMMARIZE_FILES_LISTED listed,
 * SUMMARIZE_FILES_CHARS bytes of content in all; what is not read is named with the
 * reason, so the model can read it itself. */
#ifndef HEW_TOOLS_SUMMARIZE_TASK_H
#define HEW_TOOLS_SUMMARIZE_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "tools/tool.h"

#define SUMMARIZE_FILES_LISTED 10
#define SUMMARIZE_FILES_READ 8
#define SUMMARIZE_FILES_CHARS 100000

/* How the instruction starts: a user message holding it asked for a summary. */
extern const char SUMMARIZE_TASK_INSTRUCTION_TAG[];
/* How the continuation prompt starts. */
extern const char SUMMARIZE_TASK_CONTINUATION_START[];

/* Append the instruction that asks the model for the summary. native: the model calls
 * tools natively (no XML usage example). */
void summarize_task_instruction(bool native, buf *out);

/* The paths listed under the summary's "Required Files" section, in order, at most cap
 * (new strings the caller frees); how many were written. */
size_t summarize_task_required_files(const char *summary, char **out, size_t cap);

/* Append the continuation prompt: the summary, then the required files as they are now
 * (<file_content path="…">) within the limits above. */
void summarize_task_continuation(tool_env *env, const char *summary, buf *out);

#endif
