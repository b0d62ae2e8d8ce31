/* denied — what an action refused for want of approval was, and what would have allowed
 * it (denied.h). The approval groups map to the auto-approve words by a table; a command
 * that no word short of all-commands allows gets the narrowest allow rule the command
 * policy accepts. Never approves, never says, never touches a task. */
#include "task/denied.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tools/cmdpolicy.h"
#include "tools/execute_command.h"

/* An approval group (tool_env.approve) and where: the words that allow it. */
static const struct {
    const char *group;
    bool outside;
    const char *words[2];
} allow_of[] = {
    { "read", false, { "read", NULL } },
    { "read", true, { "read-outside", NULL } },
    { "edit", false, { "edit", NULL } },
    { "edit", true, { "edit-outside", NULL } },
    { "safe_command", false, { "commands", NULL } },
    { "safe_command", true, { "read-outside", "commands" } },
    { "command", false, { "all-commands", NULL } },
    { "command", true, { "all-commands", NULL } },
    { "mcp", false, { "mcp", NULL } },
    { "mcp", true, { "mcp", NULL } },
};

/* A word a rule may hold as written: no shell meaning, no glob. */
static size_t plain_word(const char *p)
{
    size_t n = 0;
    while (p[n] && (isalnum((unsigned char)p[n]) || strchr("._/:@+=,-", p[n])))
        n++;
    return p[n] == '\0' || p[n] == ' ' || p[n] == '\t' ? n : 0;
}

/* A word that names a place outside the workspace (or may): an allow rule never covers
 * one. */
static bool leaves_workspace(const char *w, size_t n)
{
    if (n && (w[0] == '/' || w[0] == '~'))
        return true;
    for (size_t i = 0; i + 1 < n; i++)
        if (w[i] == '.' && w[i + 1] == '.')
            return true;
    return false;
}

bool denied_command_rule(const task_settings *s, const char *command, char *rule, size_t n)
{
    /* the program, its options, and its first other argument: "npm test", "make clean",
     * "rm -rf build" — every word plain and inside the workspace */
    size_t len = 0, words = 0;
    bool done = false;
    const char *p = command;
    if (strchr(command, '\n'))
        return false;
    while (!done) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        size_t w = plain_word(p);
        if (!w || leaves_workspace(p, w) || len + w + 2 > n)
            return false;
        done = words > 0 && *p != '-';
        if (len)
            rule[len++] = ' ';
        memcpy(rule + len, p, w);
        len += w;
        rule[len] = '\0';
        words++;
        p += w;
    }
    if (!words)
        return false;
    /* nor may the rest of the line name a place outside: the rule would let it through */
    for (const char *q = command; *q;) {
        while (*q == ' ' || *q == '\t')
            q++;
        size_t w = strcspn(q, " \t");
        if (leaves_workspace(q, w))
            return false;
        q += w;
    }
    /* the user's rules and this one: the line must then be safe, and inside the
     * workspace (a line that reads outside needs read-outside as well: not this rule) */
    const char *allow[65];
    size_t k = 0;
    for (char **r = s->command_allow; r && *r && k < 63; r++)
        allow[k++] = *r;
    allow[k++] = rule;
    allow[k] = NULL;
    cmdpolicy_opts o = { s->cwd, execute_command_shell(), allow,
                         (const char *const *)s->command_deny };
    cmdpolicy_verdict v;
    cmdpolicy_judge(&o, command, &v);
    return v.decision == CMDPOLICY_SAFE && !v.outside;
}

static void put_str(json_t *o, const char *key, const json_t *data, const char *from)
{
    const char *v = json_string_value(json_object_get(data, from));
    if (v)
        json_object_set_new(o, key, json_string(v));
}

json_t *denied_entry(const task_settings *s, const char *group, bool outside, const char *type,
                     const json_t *data, const char *tool)
{
    json_t *e = json_pack("{s:s}", "type", type ? type : "tool");
    json_t *allow = json_array();
    if (!e || !allow) {
        json_decref(e);
        json_decref(allow);
        return NULL;
    }
    if (tool)
        json_object_set_new(e, "tool", json_string(tool));
    put_str(e, "path", data, "path");
    put_str(e, "command", data, "command");
    put_str(e, "server", data, "serverName");
    put_str(e, "mcp_tool", data, "toolName");
    put_str(e, "uri", data, "uri");
    put_str(e, "control", data, "controlFile");
    if (outside)
        json_object_set_new(e, "outside", json_true());

    const char *command = json_string_value(json_object_get(data, "command"));
    bool asked = json_is_true(json_object_get(data, "requires_approval"));
    char rule[256];
    size_t i = 0;
    if (group && strcmp(group, "sandbox") == 0) {
        /* no auto-approve word leaves the sandbox: only the mode does */
        json_object_set_new(e, "sandbox", json_string("danger-full-access"));
    } else if (group && strcmp(group, "command") == 0 && command && !asked &&
        denied_command_rule(s, command, rule, sizeof rule)) {
        json_array_append_new(allow, json_string("commands"));
        json_object_set_new(e, "rule", json_string(rule));
    } else {
        for (i = 0; group && i < sizeof allow_of / sizeof allow_of[0]; i++)
            if (strcmp(allow_of[i].group, group) == 0 && allow_of[i].outside == outside)
                break;
        if (group && i < sizeof allow_of / sizeof allow_of[0]) {
            for (size_t w = 0; w < 2 && allow_of[i].words[w]; w++)
                json_array_append_new(allow, json_string(allow_of[i].words[w]));
        } else { /* hew's control files, new_task, condense: nothing short of yolo */
            json_array_append_new(allow, json_string("yolo"));
        }
    }
    json_object_set_new(e, "allow", allow);
    return e;
}
