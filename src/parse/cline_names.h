/* cline_names — the default tag names of the XML tool-call format: Cline's tool names
 * (ClineDefaultTool) and parameter names (toolParamNames), as data. parse/ uses them only
 * when its caller gives no names of its own; it must never learn about the tools
 * themselves (that is tools/). */
#ifndef HEW_PARSE_CLINE_NAMES_H
#define HEW_PARSE_CLINE_NAMES_H

#include <stddef.h>

extern const char *const cline_tool_names[];
extern const size_t cline_tool_count;
extern const char *const cline_param_names[];
extern const size_t cline_param_count;

#endif
