/* mcp_session — a session's MCP servers: started from the settings files when the
 * session is created, stopped when it is freed (task_api.c calls these), and the public
 * hew_mcp_* functions of include/hew.h. */
#ifndef HEW_LIB_MCP_SESSION_H
#define HEW_LIB_MCP_SESSION_H

#include "hew.h"

/* Read the settings and start connecting (never fails the session: a problem with the
 * settings is kept in s->mcp_problem and said by every task). */
void lib_session_mcp_start(hew_session *s, const hew_options *o);
void lib_session_mcp_stop(hew_session *s);

#endif
