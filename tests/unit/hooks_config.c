/* Unit tests of the hooks' config (src/hooks/config.c) and their loading by a session
 * (lib/hooks_session.c): Claude Code's shape parsed (both {"hooks": ...} and the events
 * object), every malformed case refused with the file and the JSON key named and nothing
 * of the text kept; the matcher as a whole-name ERE ("Edit|Write" is not "Editor"), "" and
 * "*" matching all, Claude Code's names (Bash, Edit, mcp__server__tool) as aliases; the
 * Cline names mapped; the event JSON of both shapes; and the trust gate: a workspace's
 * .hew/hooks.json loads only when trusted (stored or --trust), a malformed trusted one
 * fails hew_session_new with HEW_E_INVALID naming it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "check.h"
#include "hew.h"
#include "hooks/hooks.h"
#include "sys/path.h"
#include "task/settings.h"
#include "tmpdir.h"

static char *tmp;

static hew_code add(hooks_set *s, const char *text, hew_err *err)
{
    return hooks_set_add_json(s, text, strlen(text), NULL, "/cfg/hooks.json", err);
}

static void test_good(void)
{
    hooks_set *s = hooks_set_new();
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(add(s, "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": "
                     "[{\"type\": \"command\", \"command\": \"a\", \"timeout\": 5}, "
                     "{\"type\": \"command\", \"command\": \"b\"}]}], \"Stop\": [{\"hooks\": "
                     "[{\"type\": \"command\", \"command\": \"c\"}]}]}}", &err), HEW_OK);
    CHECK_INT(hooks_set_count(s, HOOKS_PRE_TOOL_USE), 2);
    CHECK_INT(hooks_set_count(s, HOOKS_STOP), 1);
    /* the events object itself, every event name */
    CHECK_INT(add(s, "{\"PostToolUse\": [], \"UserPromptSubmit\": [{\"hooks\": [{\"type\": "
                     "\"command\", \"command\": \"d\"}]}], \"SessionStart\": [], "
                     "\"PreCompact\": []}", &err), HEW_OK);
    CHECK_INT(hooks_set_count(s, HOOKS_USER_PROMPT_SUBMIT), 1);
    json_t *d = hooks_set_describe(s);
    CHECK_INT(json_array_size(d), 4);
    CHECK_STR(json_string_value(json_object_get(json_array_get(d, 0), "command")), "a");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(d, 0), "timeout_s")), 5);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(d, 1), "timeout_s")), 60);
    json_decref(d);
    /* .claude/settings.json: only its "hooks"; none at all adds nothing */
    const char *claude = "{\"permissions\": {}, \"env\": {}}";
    CHECK_INT(hooks_set_add_json(s, claude, strlen(claude), "hooks", "s.json", &err), HEW_OK);
    CHECK_INT(hooks_set_count(s, HOOKS_PRE_TOOL_USE), 2);
    hooks_set_free(s);
    hooks_set_free(NULL);
}

/* Each malformed text is refused with the file and the key in the message, and the set
 * keeps nothing of it. */
static void test_malformed(void)
{
    static const struct {
        const char *text, *key;
    } cases[] = {
        { "{\"PreToolUse\": [{\"matcher\": \"(Bash\", \"hooks\": [{\"type\": \"command\", "
          "\"command\": \"x\"}]}]}", "hooks.PreToolUse[0].matcher" },
        { "{\"PreToolUse\": [{\"matcher\": 3, \"hooks\": []}]}", "hooks.PreToolUse[0].matcher" },
        { "{\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", "
          "\"timeout\": \"soon\"}]}]}", "hooks.PreToolUse[0].hooks[0].timeout" },
        { "{\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", "
          "\"timeout\": 0}]}]}", "hooks.PreToolUse[0].hooks[0].timeout" },
        { "{\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"\"}]}]}",
          "hooks.Stop[0].hooks[0].command" },
        { "{\"Stop\": [{\"hooks\": [{\"type\": \"prompt\", \"command\": \"x\"}]}]}",
          "hooks.Stop[0].hooks[0].type" },
        { "{\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", "
          "\"cmd\": 1}]}]}", "hooks.Stop[0].hooks[0].cmd" },
        { "{\"Stop\": [{\"hooks\": {}}]}", "hooks.Stop[0].hooks" },
        { "{\"Stop\": [{\"matchers\": \"x\", \"hooks\": []}]}", "hooks.Stop[0].matchers" },
        { "{\"Stop\": [7]}", "hooks.Stop[0]" },
        { "{\"Stop\": {}}", "hooks.Stop" },
        { "{\"OnEverything\": []}", "hooks.OnEverything" },
        { "{\"hooks\": []}", "hooks" },
        { "[1]", "top level" },
        { "{\"Stop\": [", "not valid JSON" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hooks_set *s = hooks_set_new();
        hew_err err = HEW_ERR_INIT;
        /* a good hook first: it stays; the bad text adds nothing */
        CHECK_INT(add(s, "{\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": "
                         "\"ok\"}]}]}", &err), HEW_OK);
        CHECK_INT(add(s, "{\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", "
                         "\"command\": \"ok\"}]}], \"Stop\": [{\"hooks\": [{\"type\": "
                         "\"command\", \"command\": \"x\", \"timeout\": -1}]}]}", &err),
                  HEW_E_INVALID);
        CHECK_INT(hooks_set_count(s, HOOKS_PRE_TOOL_USE), 0); /* none of that text kept */
        hew_err_clear(&err);
        CHECK_INT(add(s, cases[i].text, &err), HEW_E_INVALID);
        if (!strstr(err.msg, "/cfg/hooks.json") || !strstr(err.msg, cases[i].key))
            check_fail(__FILE__, __LINE__, "case %zu: \"%s\" does not name the file and %s",
                       i, err.msg, cases[i].key);
        CHECK_INT(hooks_set_count(s, HOOKS_STOP), 1);
        CHECK_INT(hooks_set_count(s, HOOKS_PRE_TOOL_USE), 0);
        hooks_set_free(s);
    }
}

static bool match(const char *matcher, const char *tool, const char *server, const char *mt)
{
    hooks_set *s = hooks_set_new();
    char text[512];
    snprintf(text, sizeof text, "{\"PreToolUse\": [{\"matcher\": \"%s\", \"hooks\": "
             "[{\"type\": \"command\", \"command\": \"x\"}]}]}", matcher);
    hew_err err = HEW_ERR_INIT;
    bool ok = add(s, text, &err) == HEW_OK && hooks_matches(s, HOOKS_PRE_TOOL_USE, 0, tool,
                                                            server, mt);
    if (err.code != HEW_OK)
        check_fail(__FILE__, __LINE__, "matcher %s refused: %s", matcher, err.msg);
    hooks_set_free(s);
    return ok;
}

static void test_matcher(void)
{
    CHECK(match("", "read_file", NULL, NULL));
    CHECK(match("*", "execute_command", NULL, NULL));
    CHECK(match("execute_command", "execute_command", NULL, NULL));
    CHECK(!match("execute", "execute_command", NULL, NULL)); /* whole names only */
    CHECK(!match("command", "execute_command", NULL, NULL));
    CHECK(match("write_to_file|replace_in_file", "replace_in_file", NULL, NULL));
    /* Claude Code's names */
    CHECK(match("Bash", "execute_command", NULL, NULL));
    CHECK(!match("Bash", "read_file", NULL, NULL));
    CHECK(match("Edit|Write", "replace_in_file", NULL, NULL));
    CHECK(match("Edit|Write", "write_to_file", NULL, NULL));
    CHECK(!match("Edit|Write", "read_file", NULL, NULL));
    CHECK(match("Read", "read_file", NULL, NULL));
    CHECK(match("Grep", "search_files", NULL, NULL));
    CHECK(match("Glob", "list_files", NULL, NULL));
    CHECK(match("mcp__github__.*", "use_mcp_tool", "github", "create_issue"));
    CHECK(match("mcp__github__create_issue", "use_mcp_tool", "github", "create_issue"));
    CHECK(!match("mcp__gitlab__.*", "use_mcp_tool", "github", "create_issue"));
    CHECK(match("use_mcp_tool", "use_mcp_tool", "github", "create_issue"));
    CHECK(match("Ed.*", "replace_in_file", NULL, NULL)); /* a regular expression */
    /* events without tools ignore the matcher */
    hooks_set *s = hooks_set_new();
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(add(s, "{\"Stop\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": "
                     "\"command\", \"command\": \"x\"}]}]}", &err), HEW_OK);
    CHECK(hooks_matches(s, HOOKS_STOP, 0, NULL, NULL, NULL));
    hooks_set_free(s);
}

static void test_cline(void)
{
    const hooks_cline_name *n = hooks_cline_names();
    int seen = 0;
    for (; n->file; n++) {
        if (strcmp(n->file, "TaskStart") == 0) {
            CHECK_INT(n->event, HOOKS_SESSION_START);
            CHECK_STR(n->source, "startup");
            seen++;
        } else if (strcmp(n->file, "TaskResume") == 0) {
            CHECK_STR(n->source, "resume");
            seen++;
        } else if (strcmp(n->file, "TaskComplete") == 0) {
            CHECK_INT(n->event, HOOKS_STOP);
            seen++;
        }
    }
    CHECK_INT(seen, 3);
    hooks_set *s = hooks_set_new();
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(hooks_set_add_cline(s, "TaskCancelled", "/x", NULL, &err), HEW_E_INVALID);
    CHECK_INT(hooks_set_add_cline(s, "PreToolUse", "/x/PreToolUse", NULL, &err), HEW_OK);
    /* the folder: only executable regular files with Cline's names */
    char *dir = path_join(tmp, "cline");
    fs_mkdirs(dir, 0755, NULL);
    char *exe = path_join(dir, "PostToolUse"), *plain = path_join(dir, "PreCompact"),
         *other = path_join(dir, "Whatever");
    fs_write_atomic(exe, "#!/bin/sh\n", 10, 0755, NULL);
    fs_write_atomic(plain, "#!/bin/sh\n", 10, 0644, NULL);
    fs_write_atomic(other, "#!/bin/sh\n", 10, 0755, NULL);
    CHECK_INT(hooks_set_add_cline_dir(s, dir, &err), HEW_OK);
    CHECK_INT(hooks_set_count(s, HOOKS_POST_TOOL_USE), 1);
    CHECK_INT(hooks_set_count(s, HOOKS_PRE_COMPACT), 0);
    /* Cline's input shape */
    json_t *params = json_pack("{s:s}", "command", "ls");
    hooks_input in = { .event = HOOKS_PRE_TOOL_USE, .session_id = "t1", .cwd = "/ws",
                       .tool_name = "execute_command", .tool_input = params };
    char *j = hooks_input_json(s, 0, &in);
    json_t *v = j ? json_loads(j, 0, NULL) : NULL;
    CHECK_STR(json_string_value(json_object_get(v, "hookName")), "PreToolUse");
    CHECK_STR(json_string_value(json_path_get(v, "preToolUse.toolName")), "execute_command");
    CHECK_STR(json_string_value(json_path_get(v, "preToolUse.parameters.command")), "ls");
    CHECK_STR(json_string_value(json_object_get(v, "taskId")), "t1");
    json_decref(v);
    free(j);
    json_decref(params);
    hooks_set_free(s);
    free(exe);
    free(plain);
    free(other);
    free(dir);
}

static void test_claude_input(void)
{
    hooks_set *s = hooks_set_new();
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(add(s, "{\"PostToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": "
                     "\"x\"}]}]}", &err), HEW_OK);
    json_t *params = json_pack("{s:s}", "path", "a.c");
    hooks_input in = { .event = HOOKS_POST_TOOL_USE, .session_id = "t9", .cwd = "/ws",
                       .tool_name = "read_file", .tool_input = params,
                       .tool_response = "int main;" };
    char *j = hooks_input_json(s, 0, &in);
    json_t *v = j ? json_loads(j, 0, NULL) : NULL;
    CHECK_STR(json_string_value(json_object_get(v, "hook_event_name")), "PostToolUse");
    CHECK_STR(json_string_value(json_object_get(v, "session_id")), "t9");
    CHECK(json_is_null(json_object_get(v, "transcript_path")));
    CHECK_STR(json_string_value(json_object_get(v, "cwd")), "/ws");
    CHECK_STR(json_string_value(json_object_get(v, "tool_name")), "read_file");
    CHECK_STR(json_string_value(json_path_get(v, "tool_input.path")), "a.c");
    CHECK_STR(json_string_value(json_object_get(v, "tool_response")), "int main;");
    json_decref(v);
    free(j);
    json_decref(params);
    hooks_set_free(s);
}

/* A session's hooks: the user's from hew_options.hooks; the workspace's .hew/hooks.json
 * only when trusted. */
static void test_trust_gate(void)
{
    char *ws = path_join(tmp, "ws");
    char *hew_dir = path_join(ws, ".hew");
    fs_mkdirs(hew_dir, 0755, NULL);
    char *file = path_join(hew_dir, "hooks.json");
    const char *text = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", "
                       "\"command\": \"touch x\"}]}]}}";
    fs_write_atomic(file, text, strlen(text), 0644, NULL);
    char *data = path_join(tmp, "data");
    hew_options o;
    hew_options_init(&o);
    o.cwd = ws;
    o.data_dir = data;
    o.api_key = "k";
    o.mcp = 0;
    o.persist = 0;
    o.checkpoints = 0;
    char err[512] = "";
    hew_session *s = NULL;
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    CHECK(s->hooks == NULL); /* untrusted: not loaded */
    CHECK(s->hooks_notice && strstr(s->hooks_notice, ".hew/hooks.json"));
    hew_session_free(s);
    /* the user's own hooks load either way */
    o.hooks = "{\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"u\"}]}]}";
    o.hooks_source = "/home/me/.config/hew/config.json";
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    CHECK_INT(hooks_set_count(s->hooks, HOOKS_PRE_TOOL_USE), 1);
    CHECK_INT(hooks_set_count(s->hooks, HOOKS_STOP), 0);
    hew_session_free(s);
    /* trusted for the run */
    o.trust_workspace = 1;
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    CHECK_INT(hooks_set_count(s->hooks, HOOKS_STOP), 1);
    CHECK(s->hooks_notice == NULL);
    hew_session_free(s);
    /* trusted through the store (hew trust) */
    o.trust_workspace = 0;
    char *rep = NULL;
    REQUIRE(hew_trust_check(&o, ws, &rep, err, sizeof err) == HEW_OK);
    CHECK(strstr(rep, "touch x") != NULL); /* what it would run is shown */
    REQUIRE(hew_trust_grant(&o, rep, err, sizeof err) == HEW_OK);
    hew_free(rep);
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    CHECK_INT(hooks_set_count(s->hooks, HOOKS_STOP), 1);
    hew_session_free(s);
    /* a malformed user config: HEW_E_INVALID naming the file and key */
    o.hooks = "{\"PreToolUse\": [{\"matcher\": \"[\", \"hooks\": []}]}";
    CHECK_INT(hew_session_new(&o, &s, err, sizeof err), HEW_E_INVALID);
    CHECK(s == NULL);
    CHECK(strstr(err, "/home/me/.config/hew/config.json") &&
          strstr(err, "hooks.PreToolUse[0].matcher"));
    /* a malformed trusted project file: the same, naming it */
    o.hooks = NULL;
    o.trust_workspace = 1;
    const char *bad = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\"}]}]}}";
    fs_write_atomic(file, bad, strlen(bad), 0644, NULL);
    CHECK_INT(hew_session_new(&o, &s, err, sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, ".hew/hooks.json") && strstr(err, "hooks.Stop[0].hooks[0].command"));
    free(file);
    free(hew_dir);
    free(ws);
    free(data);
}

int main(void)
{
    tmp = tmpdir_make("hooks");
    if (!tmp)
        return 1;
    setenv("XDG_CONFIG_HOME", tmp, 1);
    setenv("HOME", tmp, 1); /* no Cline folders */
    RUN(test_good);
    RUN(test_malformed);
    RUN(test_matcher);
    RUN(test_cline);
    RUN(test_claude_input);
    RUN(test_trust_gate);
    tmpdir_remove(tmp);
    free(tmp);
    return check_report();
}
