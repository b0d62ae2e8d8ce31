/* hooks internal — the set's layout, shared by config.c (which builds it) and run.c
 * (which reads it). Nothing outside src/hooks/ includes this. */
#ifndef HEW_HOOKS_INTERNAL_H
#define HEW_HOOKS_INTERNAL_H

#include <regex.h>

#include "hooks/hooks.h"

#define HOOKS_CLINE_TIMEOUT_MS 30000L /* Cline's own limit */

typedef struct hooks_hook {
    hooks_event event;
    char *command;          /* run as $SHELL -c command; NULL for a Cline script */
    char *script;           /* a Cline script, run as it is; NULL for a command */
    char *source;           /* the file it came from */
    char *matcher_text;     /* as written, or NULL (all) */
    regex_t re;             /* ^(matcher)$ when has_re */
    bool has_re;
    long timeout_ms;
    bool cline;             /* speaks Cline's JSON */
    const char *cline_name; /* Cline's file name ("TaskStart") */
    const char *only_source; /* SessionStart from TaskStart / TaskResume: that source only */
} hooks_hook;

struct hooks_set {
    hooks_hook *hooks;      /* in the order they were added */
    size_t n, cap;
};

/* Hook i of event e (NULL past the end). */
const hooks_hook *hooks_set_nth(const hooks_set *s, hooks_event e, size_t i);
/* hooks_matches for one hook. */
bool hooks_hook_matches(const hooks_hook *h, const char *tool, const char *mcp_server,
                        const char *mcp_tool);

#endif
