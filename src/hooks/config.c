/* hooks config — the set of hooks: Claude Code's JSON shape parsed strictly (errors name
 * the file and the JSON key), Cline's hook scripts, the matcher (a whole-name POSIX ERE)
 * and the table of Claude Code's tool names. Never reads a project file on its own (lib/
 * decides trust), never runs anything. */
#include "hooks/internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "sys/path.h"

static const char *const EVENT_NAMES[HOOKS_NEVENTS] = {
    [HOOKS_PRE_TOOL_USE] = "PreToolUse",     [HOOKS_POST_TOOL_USE] = "PostToolUse",
    [HOOKS_USER_PROMPT_SUBMIT] = "UserPromptSubmit", [HOOKS_STOP] = "Stop",
    [HOOKS_SESSION_START] = "SessionStart",  [HOOKS_PRE_COMPACT] = "PreCompact",
};

const char *hooks_event_name(hooks_event e)
{
    return (unsigned)e < HOOKS_NEVENTS ? EVENT_NAMES[e] : NULL;
}

static int event_of(const char *name)
{
    for (int e = 0; e < HOOKS_NEVENTS; e++)
        if (strcmp(EVENT_NAMES[e], name) == 0)
            return e;
    return -1;
}

/* Cline's hook files and what they are here (TaskCancel has no counterpart: not run). */
static const hooks_cline_name CLINE_NAMES[] = {
    { "PreToolUse", HOOKS_PRE_TOOL_USE, NULL },
    { "PostToolUse", HOOKS_POST_TOOL_USE, NULL },
    { "UserPromptSubmit", HOOKS_USER_PROMPT_SUBMIT, NULL },
    { "TaskStart", HOOKS_SESSION_START, "startup" },
    { "TaskResume", HOOKS_SESSION_START, "resume" },
    { "TaskComplete", HOOKS_STOP, NULL },
    { "PreCompact", HOOKS_PRE_COMPACT, NULL },
    { NULL, HOOKS_NEVENTS, NULL },
};

const hooks_cline_name *hooks_cline_names(void)
{
    return CLINE_NAMES;
}

/* Claude Code's names of hew's tools. */
static const struct {
    const char *tool;
    const char *const aliases[3];
} ALIASES[] = {
    { "execute_command", { "Bash", NULL } },
    { "replace_in_file", { "Edit", "MultiEdit", NULL } },
    { "write_to_file", { "Write", NULL } },
    { "read_file", { "Read", NULL } },
    { "list_files", { "Glob", "LS", NULL } },
    { "search_files", { "Grep", NULL } },
    { "web_fetch", { "WebFetch", NULL } },
    { "ask_followup_question", { "AskUserQuestion", NULL } },
};

const char *const *hooks_tool_aliases(const char *tool)
{
    static const char *const none[] = { NULL };
    for (size_t i = 0; tool && i < sizeof ALIASES / sizeof ALIASES[0]; i++)
        if (strcmp(ALIASES[i].tool, tool) == 0)
            return ALIASES[i].aliases;
    return none;
}

/* ---- the set ------------------------------------------------------------------------ */

hooks_set *hooks_set_new(void)
{
    return calloc(1, sizeof(hooks_set));
}

static void hook_release(hooks_hook *h)
{
    free(h->command);
    free(h->script);
    free(h->source);
    free(h->matcher_text);
    if (h->has_re)
        regfree(&h->re);
    memset(h, 0, sizeof *h);
}

void hooks_set_free(hooks_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        hook_release(&s->hooks[i]);
    free(s->hooks);
    free(s);
}

size_t hooks_set_count(const hooks_set *s, hooks_event e)
{
    size_t n = 0;
    for (size_t i = 0; s && i < s->n; i++)
        n += s->hooks[i].event == e;
    return n;
}

const hooks_hook *hooks_set_nth(const hooks_set *s, hooks_event e, size_t i)
{
    for (size_t k = 0; s && k < s->n; k++)
        if (s->hooks[k].event == e && i-- == 0)
            return &s->hooks[k];
    return NULL;
}

static hew_code push(hooks_set *s, hooks_hook *h, hew_err *err)
{
    if (s->n >= HOOKS_MAX) {
        hook_release(h);
        return hew_err_set(err, HEW_E_INVALID, "%s: more than %d hooks — keep fewer", h->source
                           ? h->source : "hooks", HOOKS_MAX);
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        hooks_hook *grown = realloc(s->hooks, cap * sizeof *grown);
        if (!grown) {
            hook_release(h);
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        }
        s->hooks = grown;
        s->cap = cap;
    }
    s->hooks[s->n++] = *h;
    return HEW_OK;
}

/* The matcher as a whole-name regular expression; "", "*" and none match everything. */
static hew_code compile_matcher(hooks_hook *h, const char *m, const char *where, hew_err *err)
{
    if (!m || !*m || strcmp(m, "*") == 0)
        return HEW_OK;
    h->matcher_text = strdup(m);
    size_t n = strlen(m) + 8;
    char *anchored = malloc(n);
    if (!h->matcher_text || !anchored) {
        free(anchored);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    snprintf(anchored, n, "^(%s)$", m);
    int rc = regcomp(&h->re, anchored, REG_EXTENDED | REG_NOSUB);
    free(anchored);
    if (rc != 0) {
        char why[160];
        regerror(rc, &h->re, why, sizeof why);
        return hew_err_set(err, HEW_E_INVALID, "%s: not a regular expression (%s) — write "
                           "a tool name, names joined by |, or an extended regular "
                           "expression", where, why);
    }
    h->has_re = true;
    return HEW_OK;
}

/* One {"type": "command", "command", "timeout"} of events[ev][i].hooks[j]. */
static hew_code parse_hook(hooks_set *s, hooks_event ev, const json_t *matcher_v,
                           const json_t *hv, const char *where, const char *source,
                           hew_err *err)
{
    if (!json_is_object(hv))
        return hew_err_set(err, HEW_E_INVALID, "%s: expected an object {\"type\": "
                           "\"command\", \"command\": \"...\"}, not %s", where,
                           json_type_phrase(hv));
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)hv, k, v) {
        if (strcmp(k, "type") && strcmp(k, "command") && strcmp(k, "timeout"))
            return hew_err_set(err, HEW_E_INVALID, "%s.%s: unknown key (a hook has type, "
                               "command and timeout)", where, k);
    }
    const json_t *type = json_object_get(hv, "type");
    if (!json_is_string(type) || strcmp(json_string_value(type), "command") != 0)
        return hew_err_set(err, HEW_E_INVALID, "%s.type: must be \"command\" (the only "
                           "kind of hook hew runs)", where);
    const json_t *cmd = json_object_get(hv, "command");
    if (!json_is_string(cmd) || !*json_string_value(cmd))
        return hew_err_set(err, HEW_E_INVALID, "%s.command: expected the command to run, "
                           "a non-empty string", where);
    long timeout_s = HOOKS_TIMEOUT_DEFAULT_S;
    const json_t *to = json_object_get(hv, "timeout");
    if (to) {
        double d = json_is_number(to) ? json_number_value(to) : -1;
        if (!(d > 0 && d <= HOOKS_TIMEOUT_MAX_S))
            return hew_err_set(err, HEW_E_INVALID, "%s.timeout: expected seconds, a number "
                               "above 0 and at most %d", where, HOOKS_TIMEOUT_MAX_S);
        timeout_s = (long)d;
        if (timeout_s < 1)
            timeout_s = 1;
    }
    hooks_hook h = { 0 };
    h.event = ev;
    h.timeout_ms = timeout_s * 1000L;
    h.command = strdup(json_string_value(cmd));
    h.source = strdup(source);
    if (!h.command || !h.source) {
        hook_release(&h);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    char mwhere[512];
    snprintf(mwhere, sizeof mwhere, "%.500s", where);
    char *cut = strstr(mwhere, ".hooks[");
    if (cut)
        snprintf(cut, sizeof mwhere - (size_t)(cut - mwhere), ".matcher");
    hew_code rc = compile_matcher(&h, json_string_value(matcher_v), mwhere, err);
    if (rc != HEW_OK) {
        hook_release(&h);
        return rc;
    }
    return push(s, &h, err);
}

hew_code hooks_set_add_value(hooks_set *s, const json_t *events, const char *source,
                             hew_err *err)
{
    if (!s)
        return hew_err_set(err, HEW_E_INVALID, "no hook set");
    size_t before = s->n;
    hew_code rc = HEW_OK;
    char where[600];
    if (!json_is_object(events)) {
        rc = hew_err_set(err, HEW_E_INVALID, "%s: hooks: expected an object of events "
                         "(PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, "
                         "PreCompact), not %s", source, json_type_phrase(events));
        goto out;
    }
    const char *name;
    json_t *groups;
    json_object_foreach((json_t *)events, name, groups) {
        int ev = event_of(name);
        if (ev < 0) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s: hooks.%s: unknown event (hew runs "
                             "PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart "
                             "and PreCompact)", source, name);
            goto out;
        }
        if (!json_is_array(groups)) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s: hooks.%s: expected a list of "
                             "{\"matcher\", \"hooks\"}, not %s", source, name,
                             json_type_phrase(groups));
            goto out;
        }
        size_t i;
        json_t *g;
        json_array_foreach(groups, i, g) {
            snprintf(where, sizeof where, "%.200s: hooks.%s[%zu]", source, name, i);
            if (!json_is_object(g)) {
                rc = hew_err_set(err, HEW_E_INVALID, "%s: expected an object {\"matcher\", "
                                 "\"hooks\"}, not %s", where, json_type_phrase(g));
                goto out;
            }
            const char *k;
            json_t *v;
            json_object_foreach(g, k, v) {
                if (strcmp(k, "matcher") && strcmp(k, "hooks")) {
                    rc = hew_err_set(err, HEW_E_INVALID, "%s.%s: unknown key (a group has "
                                     "matcher and hooks)", where, k);
                    goto out;
                }
            }
            const json_t *m = json_object_get(g, "matcher");
            if (m && !json_is_string(m)) {
                rc = hew_err_set(err, HEW_E_INVALID, "%s.matcher: expected a string (a tool "
                                 "name or a regular expression), not %s", where,
                                 json_type_phrase(m));
                goto out;
            }
            if (m) { /* checked even when the group has no hooks */
                hooks_hook probe = { 0 };
                char mwhere[620];
                snprintf(mwhere, sizeof mwhere, "%s.matcher", where);
                rc = compile_matcher(&probe, json_string_value(m), mwhere, err);
                hook_release(&probe);
                if (rc != HEW_OK)
                    goto out;
            }
            const json_t *list = json_object_get(g, "hooks");
            if (!json_is_array(list)) {
                rc = hew_err_set(err, HEW_E_INVALID, "%s.hooks: expected a list of hooks, "
                                 "not %s", where, json_type_phrase(list));
                goto out;
            }
            size_t j;
            json_t *hv;
            json_array_foreach(list, j, hv) {
                char hwhere[700];
                snprintf(hwhere, sizeof hwhere, "%s.hooks[%zu]", where, j);
                rc = parse_hook(s, (hooks_event)ev, m, hv, hwhere, source, err);
                if (rc != HEW_OK)
                    goto out;
            }
        }
    }
out:
    if (rc != HEW_OK) /* nothing of this text stays */
        while (s->n > before)
            hook_release(&s->hooks[--s->n]);
    return rc;
}

hew_code hooks_set_add_json(hooks_set *s, const char *text, size_t len, const char *key,
                            const char *source, hew_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return hew_err_set(err, HEW_E_INVALID, "%s:%d:%d: not valid JSON: %s", source,
                           je.line, je.column, je.text);
    hew_code rc = HEW_OK;
    if (!json_is_object(root)) {
        rc = hew_err_set(err, HEW_E_INVALID, "%s: the top level must be an object ({ ... })",
                         source);
    } else {
        /* {"hooks": {...}} (the settings shape), or the events object itself */
        const json_t *events = json_object_get(root, "hooks");
        if (key) {
            if (events)
                rc = hooks_set_add_value(s, events, source, err);
        } else {
            rc = hooks_set_add_value(s, events ? events : root, source, err);
        }
    }
    json_decref(root);
    return rc;
}

hew_code hooks_set_add_cline(hooks_set *s, const char *name, const char *path,
                             const char *shown, hew_err *err)
{
    const hooks_cline_name *c = CLINE_NAMES;
    while (c->file && strcmp(c->file, name) != 0)
        c++;
    if (!c->file)
        return hew_err_set(err, HEW_E_INVALID, "%s: not a Cline hook name", path);
    hooks_hook h = { 0 };
    h.event = c->event;
    h.only_source = c->source;
    h.cline = true;
    h.cline_name = c->file;
    h.timeout_ms = HOOKS_CLINE_TIMEOUT_MS;
    h.script = strdup(path);
    h.source = strdup(shown ? shown : path);
    if (!h.script || !h.source) {
        hook_release(&h);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    return push(s, &h, err);
}

hew_code hooks_set_add_cline_dir(hooks_set *s, const char *dir, hew_err *err)
{
    for (const hooks_cline_name *c = CLINE_NAMES; c->file; c++) {
        char *path = path_join(dir, c->file);
        if (!path)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        struct stat st;
        hew_code rc = HEW_OK;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            rc = hooks_set_add_cline(s, c->file, path, path, err);
        free(path);
        if (rc != HEW_OK)
            return rc;
    }
    return HEW_OK;
}

/* ---- matching ----------------------------------------------------------------------- */

static bool re_whole(const hooks_hook *h, const char *name)
{
    return name && regexec(&h->re, name, 0, NULL, 0) == 0;
}

bool hooks_hook_matches(const hooks_hook *h, const char *tool, const char *mcp_server,
                        const char *mcp_tool)
{
    if (!h->has_re || (h->event != HOOKS_PRE_TOOL_USE && h->event != HOOKS_POST_TOOL_USE))
        return true;
    if (re_whole(h, tool))
        return true;
    for (const char *const *a = hooks_tool_aliases(tool); *a; a++)
        if (re_whole(h, *a))
            return true;
    if (mcp_server && mcp_tool) {
        char name[512];
        snprintf(name, sizeof name, "mcp__%s__%s", mcp_server, mcp_tool);
        if (re_whole(h, name))
            return true;
    }
    return false;
}

bool hooks_matches(const hooks_set *s, hooks_event e, size_t i, const char *tool,
                   const char *mcp_server, const char *mcp_tool)
{
    const hooks_hook *h = hooks_set_nth(s, e, i);
    return h && hooks_hook_matches(h, tool, mcp_server, mcp_tool);
}

/* ---- description (hew trust) -------------------------------------------------------- */

json_t *hooks_set_describe(const hooks_set *s)
{
    json_t *all = json_array();
    for (size_t i = 0; all && s && i < s->n; i++) {
        const hooks_hook *h = &s->hooks[i];
        char name[300];
        if (h->cline)
            snprintf(name, sizeof name, "Cline %s hook (as %s)", h->cline_name,
                     hooks_event_name(h->event));
        else
            snprintf(name, sizeof name, "%s hook%s%.200s%s", hooks_event_name(h->event),
                     h->matcher_text ? " for " : "", h->matcher_text ? h->matcher_text : "",
                     "");
        json_array_append_new(all, json_pack("{s:s, s:s, s:s, s:I}", "name", name, "event",
                                             hooks_event_name(h->event), "command",
                                             h->command ? h->command : h->script,
                                             "timeout_s", (json_int_t)(h->timeout_ms / 1000)));
    }
    return all;
}
