/* hooks_session — a session's hooks (hooks/hooks.h): the user's always (hew_options.hooks,
 * the "hooks" of the user's config file, and Cline's folders ~/Documents/Cline/Hooks and
 * ~/Documents/Cline/Rules/Hooks), the workspace's only when the user trusts them
 * (lib/trust.h: .hew/hooks.json, .claude/settings.json's "hooks", .clinerules/hooks/).
 * A trusted Cline script runs from a private copy of the very bytes that were hashed. */
#ifndef HEW_LIB_HOOKS_SESSION_H
#define HEW_LIB_HOOKS_SESSION_H

#include "base/err.h"
#include "hew.h"

/* Load s's hooks (s->hooks; NULL when there are none). HEW_E_INVALID: a hook config is
 * malformed, err names the file and the key; nothing is kept then. */
hew_code lib_session_hooks_start(hew_session *s, const hew_options *o, hew_err *err);
/* Free them and the private copies. */
void lib_session_hooks_stop(hew_session *s);

#endif
