/* Unit tests of running hooks (src/hooks/run.c) with real shell commands: exit 2 blocks
 * with stderr as the reason, another exit warns, exit 0's JSON (continue false, decision
 * block, permissionDecision deny/allow/ask, additionalContext, systemMessage), plain
 * stdout as context only for UserPromptSubmit and SessionStart, output that is not JSON;
 * the first block ends the run; a hook that never reads its (large) stdin cannot block
 * hew, one that floods stdout is capped; the timeout kills the group; the environment
 * has CLAUDE_PROJECT_DIR and no secrets; Cline's {"cancel"} answer; every run reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hooks/hooks.h"
#include "tmpdir.h"

static char *tmp;
static int reports;
static char last_decision[16];

static void on_report(void *ud, const hooks_report *r)
{
    (void)ud;
    reports++;
    snprintf(last_decision, sizeof last_decision, "%s", r->decision);
}

/* Run the hooks of `json` (the events object) for event e; out initialised by the run. */
static void run(const char *json, hooks_event e, const char *tool, const char *payload,
                hooks_outcome *out)
{
    hooks_set *s = hooks_set_new();
    hew_err err = HEW_ERR_INIT;
    if (hooks_set_add_json(s, json, strlen(json), NULL, "test.json", &err) != HEW_OK)
        check_fail(__FILE__, __LINE__, "config refused: %s", err.msg);
    hooks_input in = { .event = e, .session_id = "t1", .cwd = tmp, .tool_name = tool,
                       .prompt = payload, .tool_response = payload };
    hooks_run_opts o = { .project_dir = tmp, .report = on_report };
    reports = 0;
    last_decision[0] = '\0';
    hooks_run(s, &in, &o, out);
    hooks_set_free(s);
}

static char *hook(const char *event, const char *command)
{
    static char text[4096];
    snprintf(text, sizeof text, "{\"%s\": [{\"hooks\": [{\"type\": \"command\", \"command\": "
             "\"%s\", \"timeout\": 5}]}]}", event, command);
    return text;
}

static const char *s(const buf *b)
{
    return b->data ? b->data : "";
}

static void test_exit_codes(void)
{
    hooks_outcome o;
    run(hook("PreToolUse", "cat >/dev/null; echo not today >&2; exit 2"), HOOKS_PRE_TOOL_USE,
        "execute_command", NULL, &o);
    CHECK(o.block);
    CHECK_STR(s(&o.reason), "not today");
    CHECK_INT(reports, 1);
    CHECK_STR(last_decision, "block");
    hooks_outcome_release(&o);
    run(hook("PreToolUse", "echo oops >&2; exit 1"), HOOKS_PRE_TOOL_USE, "read_file", NULL, &o);
    CHECK(!o.block);
    CHECK(strstr(s(&o.warnings), "exit code 1: oops") != NULL);
    CHECK_STR(last_decision, "warn");
    hooks_outcome_release(&o);
    /* exit 0, nothing said */
    run(hook("PostToolUse", "true"), HOOKS_POST_TOOL_USE, "read_file", "x", &o);
    CHECK(!o.block && !o.stop && o.permission == HOOKS_PERMISSION_NONE && !o.warnings.len);
    CHECK_STR(last_decision, "none");
    hooks_outcome_release(&o);
}

static void test_json(void)
{
    hooks_outcome o;
    run(hook("Stop", "echo '{\\\"continue\\\": false, \\\"stopReason\\\": \\\"enough\\\"}'"),
        HOOKS_STOP, NULL, NULL, &o);
    CHECK(o.stop);
    CHECK_STR(s(&o.reason), "enough");
    hooks_outcome_release(&o);
    run(hook("PostToolUse", "echo '{\\\"decision\\\": \\\"block\\\", \\\"reason\\\": \\\"lint "
                            "failed\\\"}'"), HOOKS_POST_TOOL_USE, "write_to_file", "", &o);
    CHECK(o.block);
    CHECK_STR(s(&o.reason), "lint failed");
    hooks_outcome_release(&o);
    static const struct {
        const char *pd;
        hooks_permission want;
        bool block;
    } pds[] = { { "allow", HOOKS_PERMISSION_ALLOW, false }, { "ask", HOOKS_PERMISSION_ASK, false },
                { "deny", HOOKS_PERMISSION_NONE, true } };
    for (size_t i = 0; i < 3; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "echo '{\\\"hookSpecificOutput\\\": {\\\"hookEventName\\\": "
                 "\\\"PreToolUse\\\", \\\"permissionDecision\\\": \\\"%s\\\", "
                 "\\\"permissionDecisionReason\\\": \\\"why-%s\\\", \\\"additionalContext\\\": "
                 "\\\"ctx-%s\\\"}, \\\"systemMessage\\\": \\\"sys-%s\\\"}'",
                 pds[i].pd, pds[i].pd, pds[i].pd, pds[i].pd);
        run(hook("PreToolUse", cmd), HOOKS_PRE_TOOL_USE, "execute_command", NULL, &o);
        CHECK_INT(o.block, pds[i].block);
        if (!pds[i].block)
            CHECK_INT(o.permission, pds[i].want);
        else
            CHECK(strstr(s(&o.reason), "why-deny") != NULL);
        CHECK(strstr(s(&o.context), "ctx-") != NULL);
        CHECK(strstr(s(&o.warnings), "sys-") != NULL);
        CHECK_STR(last_decision, pds[i].pd);
        hooks_outcome_release(&o);
    }
    /* plain stdout: context for UserPromptSubmit, ignored for PreToolUse */
    run(hook("UserPromptSubmit", "cat >/dev/null; echo plain words"), HOOKS_USER_PROMPT_SUBMIT,
        NULL, "hi", &o);
    CHECK_STR(s(&o.context), "plain words");
    hooks_outcome_release(&o);
    run(hook("PreToolUse", "echo plain words"), HOOKS_PRE_TOOL_USE, "read_file", NULL, &o);
    CHECK(!o.context.len && !o.warnings.len);
    hooks_outcome_release(&o);
    /* something that looks like JSON but is not: a warning, nothing decided */
    run(hook("PreToolUse", "echo '{not json'"), HOOKS_PRE_TOOL_USE, "read_file", NULL, &o);
    CHECK(!o.block && strstr(s(&o.warnings), "not a JSON object") != NULL);
    hooks_outcome_release(&o);
}

/* The first hook that blocks ends the run: the second never runs. */
static void test_first_block_ends(void)
{
    char json[1024];
    snprintf(json, sizeof json, "{\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", "
             "\"command\": \"exit 2\"}, {\"type\": \"command\", \"command\": \"touch "
             "%s/second\"}]}]}", tmp);
    hooks_outcome o;
    run(json, HOOKS_PRE_TOOL_USE, "read_file", NULL, &o);
    CHECK(o.block);
    CHECK_INT(o.ran, 1);
    char path[600];
    snprintf(path, sizeof path, "%s/second", tmp);
    CHECK(access(path, F_OK) != 0);
    CHECK_STR(s(&o.reason), "blocked by a hook"); /* no stderr: a reason anyway */
    hooks_outcome_release(&o);
}

/* A hook that never reads 4 MB of input, one that floods its output, one that outlives
 * its timeout: hew neither blocks nor grows without bound. */
static void test_hostile(void)
{
    size_t n = (size_t)4 << 20;
    char *big = malloc(n + 1);
    REQUIRE(big);
    memset(big, 'a', n);
    big[n] = '\0';
    hooks_outcome o;
    run(hook("UserPromptSubmit", "exit 0"), HOOKS_USER_PROMPT_SUBMIT, NULL, big, &o);
    CHECK_INT(o.ran, 1);
    CHECK(!o.warnings.len);
    hooks_outcome_release(&o);
    /* the flood: stdout capped, the context capped */
    run(hook("UserPromptSubmit", "cat >/dev/null; yes xxxxxxx | head -c 3000000"),
        HOOKS_USER_PROMPT_SUBMIT, NULL, "hi", &o);
    CHECK(o.context.len <= HOOKS_CONTEXT_MAX);
    CHECK(o.context.len > 1000);
    hooks_outcome_release(&o);
    free(big);
    /* the timeout (1 s): killed, a warning */
    const char *slow = "{\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": "
                       "\"sleep 30\", \"timeout\": 1}]}]}";
    run(slow, HOOKS_STOP, NULL, NULL, &o);
    CHECK(!o.block);
    CHECK(strstr(s(&o.warnings), "did not finish within 1 s") != NULL);
    CHECK_STR(last_decision, "warn");
    hooks_outcome_release(&o);
}

static void test_env(void)
{
    setenv("HOOKS_TEST_TOKEN", "secret-value-1", 1);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "echo \\\"$CLAUDE_PROJECT_DIR|$HEW_PROJECT_DIR|"
             "${HOOKS_TEST_TOKEN:-none}|$(pwd)\\\"");
    hooks_outcome o;
    run(hook("SessionStart", cmd), HOOKS_SESSION_START, NULL, NULL, &o);
    char want[2048];
    snprintf(want, sizeof want, "%s|%s|none|%s", tmp, tmp, tmp);
    CHECK_STR(s(&o.context), want);
    hooks_outcome_release(&o);
    unsetenv("HOOKS_TEST_TOKEN");
}

static void test_cline(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/PreToolUse", tmp);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("#!/bin/sh\ncat >/dev/null\necho '{\"cancel\": true, \"errorMessage\": \"no\", "
          "\"contextModification\": \"use X\"}'\n", f);
    fclose(f);
    chmod(path, 0755);
    hooks_set *set = hooks_set_new();
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(hooks_set_add_cline(set, "PreToolUse", path, NULL, &err), HEW_OK);
    hooks_input in = { .event = HOOKS_PRE_TOOL_USE, .session_id = "t", .cwd = tmp,
                       .tool_name = "execute_command" };
    hooks_run_opts o = { .project_dir = tmp };
    hooks_outcome out;
    hooks_run(set, &in, &o, &out);
    CHECK(out.block);
    CHECK_STR(s(&out.reason), "no");
    CHECK_STR(s(&out.context), "use X");
    hooks_outcome_release(&out);
    hooks_set_free(set);
}

int main(void)
{
    tmp = tmpdir_make("hooksrun");
    if (!tmp)
        return 1;
    RUN(test_exit_codes);
    RUN(test_json);
    RUN(test_first_block_ends);
    RUN(test_hostile);
    RUN(test_env);
    RUN(test_cline);
    tmpdir_remove(tmp);
    free(tmp);
    return check_report();
}
