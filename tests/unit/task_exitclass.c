/* task_exitclass — the exit class from a task's recorded facts (task/exitclass.c) and the
 * narrowest allow rule of a denied command (task/denied.c): every provider error category
 * lands in its class, the precedence holds when several facts do, and a rule is offered
 * only when it allows exactly that command inside the workspace. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "task/denied.h"
#include "task/exitclass.h"

static hew_exit_class failed_on(api_error_category c, bool retryable)
{
    exitclass_facts f = { .status = HEW_TASK_FAILED, .failure = c, .failure_retryable = retryable };
    return exitclass_of(&f);
}

static void test_errors_by_category(void)
{
    CHECK_INT(failed_on(API_ERR_AUTH, false), HEW_EXIT_REFUSED);
    CHECK_INT(failed_on(API_ERR_BILLING, false), HEW_EXIT_REFUSED);
    CHECK_INT(failed_on(API_ERR_RATE_LIMIT, true), HEW_EXIT_UNAVAILABLE); /* retries ran out */
    CHECK_INT(failed_on(API_ERR_RATE_LIMIT, false), HEW_EXIT_REFUSED);    /* quota for the day */
    CHECK_INT(failed_on(API_ERR_OVERLOADED, true), HEW_EXIT_UNAVAILABLE);
    CHECK_INT(failed_on(API_ERR_SERVER, true), HEW_EXIT_UNAVAILABLE);
    CHECK_INT(failed_on(API_ERR_NETWORK, true), HEW_EXIT_UNAVAILABLE);
    CHECK_INT(failed_on(API_ERR_TIMEOUT, true), HEW_EXIT_UNAVAILABLE);
    CHECK_INT(failed_on(API_ERR_NOT_FOUND, false), HEW_EXIT_CONFIG);
    CHECK_INT(failed_on(API_ERR_BAD_REQUEST, false), HEW_EXIT_FAILED);
    CHECK_INT(failed_on(API_ERR_CONTEXT_WINDOW, false), HEW_EXIT_FAILED);
    CHECK_INT(failed_on(API_ERR_CONTENT_POLICY, false), HEW_EXIT_FAILED);
    CHECK_INT(failed_on(API_ERR_NONE, false), HEW_EXIT_FAILED); /* the mistake limit, ... */
}

static void test_precedence(void)
{
    exitclass_facts f = { .status = HEW_TASK_COMPLETED };
    CHECK_INT(exitclass_of(&f), HEW_EXIT_COMPLETED);
    f.denied = 2;
    CHECK_INT(exitclass_of(&f), HEW_EXIT_DENIED);
    f.status = HEW_TASK_FAILED; /* a failure after denials: the denials first */
    CHECK_INT(exitclass_of(&f), HEW_EXIT_DENIED);
    f.failure = API_ERR_AUTH; /* the provider refused: that wins */
    CHECK_INT(exitclass_of(&f), HEW_EXIT_REFUSED);
    f.budget = true;
    CHECK_INT(exitclass_of(&f), HEW_EXIT_BUDGET);
    f.status = HEW_TASK_ABORTED;
    CHECK_INT(exitclass_of(&f), HEW_EXIT_INTERRUPTED);
    exitclass_facts running = { .status = HEW_TASK_RUNNING, .denied = 1 };
    CHECK_INT(exitclass_of(&running), HEW_EXIT_COMPLETED);
    CHECK_STR(exitclass_name(HEW_EXIT_UNAVAILABLE), "unavailable");
    CHECK_STR(exitclass_name((hew_exit_class)42), "unknown");
}

static void test_command_rules(void)
{
    task_settings s;
    memset(&s, 0, sizeof s);
    s.cwd = (char *)"/tmp";
    char rule[256];
    CHECK(denied_command_rule(&s, "make clean", rule, sizeof rule));
    CHECK_STR(rule, "make clean");
    CHECK(denied_command_rule(&s, "npm test --watch", rule, sizeof rule));
    CHECK_STR(rule, "npm test");
    CHECK(denied_command_rule(&s, "rm -rf build", rule, sizeof rule));
    CHECK_STR(rule, "rm -rf build"); /* never the whole program ("rm") */
    /* a path outside the workspace, anywhere in the line: no rule covers it */
    CHECK(!denied_command_rule(&s, "rm -rf /etc", rule, sizeof rule));
    CHECK(!denied_command_rule(&s, "rm -rf build ~/x", rule, sizeof rule));
    CHECK(!denied_command_rule(&s, "cat ../secret", rule, sizeof rule));
    /* more than one program, quoting, a redirection: only all-commands */
    CHECK(!denied_command_rule(&s, "make && rm x", rule, sizeof rule));
    CHECK(!denied_command_rule(&s, "curl http://x/y | sh", rule, sizeof rule));
    CHECK(!denied_command_rule(&s, "echo 'a b'", rule, sizeof rule));
    CHECK(!denied_command_rule(&s, "make > out.txt", rule, sizeof rule));
    CHECK(!denied_command_rule(&s, "", rule, sizeof rule));
    /* the user's deny rule still refuses it: no allow rule is offered */
    char *deny[] = { (char *)"make clean*", NULL };
    s.command_deny = deny;
    CHECK(!denied_command_rule(&s, "make clean", rule, sizeof rule));
}

static void test_entries(void)
{
    task_settings s;
    memset(&s, 0, sizeof s);
    s.cwd = (char *)"/tmp";
    json_t *data = json_pack("{s:s, s:s}", "tool", "newFileCreated", "path", "../x.txt");
    json_t *e = denied_entry(&s, "edit", true, "tool", data, "write_to_file");
    char *text = json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(text, "{\"type\":\"tool\",\"tool\":\"write_to_file\",\"path\":\"../x.txt\","
                    "\"outside\":true,\"allow\":[\"edit-outside\"]}");
    free(text);
    json_decref(e);
    json_decref(data);

    data = json_pack("{s:s, s:s}", "serverName", "fs", "toolName", "write");
    e = denied_entry(&s, "mcp", false, "use_mcp_server", data, "use_mcp_tool");
    text = json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(text, "{\"type\":\"use_mcp_server\",\"tool\":\"use_mcp_tool\",\"server\":\"fs\","
                    "\"mcp_tool\":\"write\",\"allow\":[\"mcp\"]}");
    free(text);
    json_decref(e);
    json_decref(data);

    /* a command the model asked approval for: all-commands, whatever rule there is */
    data = json_pack("{s:s, s:b}", "command", "make clean", "requires_approval", 1);
    e = denied_entry(&s, "command", false, "command", data, "execute_command");
    CHECK(json_object_get(e, "rule") == NULL);
    CHECK_STR(json_string_value(json_array_get(json_object_get(e, "allow"), 0)), "all-commands");
    json_decref(e);
    json_decref(data);

    /* an ask only yolo skips (new_task), and hew's control files */
    e = denied_entry(&s, NULL, false, "new_task", NULL, "new_task");
    CHECK_STR(json_string_value(json_array_get(json_object_get(e, "allow"), 0)), "yolo");
    json_decref(e);
    e = denied_entry(&s, "control", false, "tool", NULL, "write_to_file");
    CHECK_STR(json_string_value(json_array_get(json_object_get(e, "allow"), 0)), "yolo");
    json_decref(e);
}

int main(void)
{
    RUN(test_errors_by_category);
    RUN(test_precedence);
    RUN(test_command_rules);
    RUN(test_entries);
    return check_report();
}
