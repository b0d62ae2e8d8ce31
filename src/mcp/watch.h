/* watch — notices when MCP settings files change (inotify on their folders), so a
 * session picks up an edited mcp.json by itself, as Cline's file watcher does. A change is
 * reported once it has settled (no further event for WATCH_SETTLE_MS), from the watcher's
 * own thread, which blocks the process's signals. Files whose folder does not exist are
 * not watched (`/mcp reload` still reads them). */
#ifndef HEW_MCP_WATCH_H
#define HEW_MCP_WATCH_H

#include "base/err.h"

#define WATCH_SETTLE_MS 150

typedef struct mcp_watch mcp_watch;

/* Watch paths (NULL-terminated; NULL entries before the end are skipped: give a count).
 * fn(ud) runs on the watcher's thread after each settled change of one of them. */
hew_code mcp_watch_start(const char *const *paths, int npaths, void (*fn)(void *ud), void *ud,
                         mcp_watch **out, hew_err *err);

/* Stop watching and join the thread (no call of fn after it returns). NULL is a no-op. */
void mcp_watch_stop(mcp_watch *w);

#endif
