/* registry — the one table of tools hew offers the model. Each tool is one file exporting
 * one `const tool_def`; this table lists them, and is where the prompt, the native tool
 * schemas, the parser's tag names and the executor all look tools up (never two copies).
 * Each entry's flags (tools/tool.h, enum tool_flag) say what the tool is; nobody else
 * decides that from a tool's name.
 * MCP tools join at run time through the same shape (a later part). */
#ifndef HEW_TOOLS_REGISTRY_H
#define HEW_TOOLS_REGISTRY_H

#include <stddef.h>

#include "tools/tool.h"

/* The built-in tools, in prompt order, and how many there are. */
const tool_def *const *registry_tools(size_t *count);

/* The tool called name, or NULL. */
const tool_def *registry_find(const char *name);


#endif
