/* Tests for lib/batch_line, one line of a `hew batch` TASKS file: each option becomes its
 * `hew -p` flag (a value that looks like a flag stays the value of its own), the defaults
 * of a minimal line, and every kind of bad line — not JSON, not an object, no prompt, an
 * unknown key, a value of the wrong kind — becomes an error that names the key, with no
 * prompt left to run. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/batch_line.h"

static batch_task parse(const char *s, long line)
{
    batch_task t;
    CHECK(batch_line_parse(s, strlen(s), line, &t));
    return t;
}

/* The task's args joined with '|'. */
static void args_of(const batch_task *t, char *out, size_t n)
{
    out[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < t->nargs; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "|" : "", t->args[i]);
    CHECK(t->nargs == 0 || t->args[t->nargs] == NULL);
}

static void test_minimal(void)
{
    batch_task t = parse("{\"prompt\": \"fix the build\"}", 7);
    CHECK(t.error == NULL);
    CHECK_STR(t.id, "line-7");
    CHECK_STR(t.prompt, "fix the build");
    CHECK(t.cwd == NULL);
    CHECK_INT(t.timeout_s, -1);
    CHECK_INT(t.nargs, 0);
    CHECK_INT(t.line, 7);
    batch_task_release(&t);
    batch_task_release(&t); /* harmless twice */
}

static void test_every_option(void)
{
    batch_task t = parse(
        "{\"id\": \"t-1\", \"prompt\": \"p\", \"cwd\": \"/w\", \"model\": \"m\", "
        "\"provider\": \"openai\", \"protocol\": \"openai-responses\", \"base_url\": \"http://x\", "
        "\"timeout\": 30, \"auto_approve\": [\"read\", \"edit\"], \"yolo\": true, "
        "\"mode\": \"plan\", \"tools\": \"xml\", \"thinking\": 1024, \"retry_delay_ms\": 10, "
        "\"allow_command\": [\"npm test*\", \"make\"], \"deny_command\": \"rm -rf*\", "
        "\"no_config\": true, \"trust\": false, \"max_cost\": 0.5, \"max_requests\": 12, "
        "\"data_dir\": \"/d\", \"ephemeral\": true, \"no_checkpoints\": true, \"no_mcp\": true, "
        "\"api_key_file\": \"/k\", \"output\": \"/o\", \"record\": \"/r\", "
        "\"sandbox\": \"read-only\"}",
        1);
    REQUIRE(t.error == NULL);
    CHECK_STR(t.id, "t-1");
    CHECK_STR(t.cwd, "/w");
    CHECK_INT(t.timeout_s, 30);
    char a[2048];
    args_of(&t, a, sizeof a);
    CHECK_STR(a, "--model|m|--provider|openai|--protocol|openai-responses|--base-url|http://x|"
                 "--timeout|30|--auto-approve|read,edit|--yolo|--plan|--xml-tools|"
                 "--thinking|1024|--retry-delay-ms|10|--allow-command|npm test*|"
                 "--allow-command|make|--deny-command|rm -rf*|--no-config|--max-cost|0.5|"
                 "--max-requests|12|--data-dir|/d|--ephemeral|--no-checkpoints|--no-mcp|"
                 "--api-key-file|/k|-o|/o|--record|/r|--sandbox|read-only");
    batch_task_release(&t);
}

static void test_values(void)
{
    char a[512];
    /* A value that looks like a flag stays the value of its own flag. */
    batch_task t = parse("{\"prompt\": \"p\", \"model\": \"--yolo\", \"mode\": \"act\", "
                         "\"max_cost\": 2, \"tools\": \"native\", \"auto_approve\": \"all\"}",
                         3);
    REQUIRE(t.error == NULL);
    args_of(&t, a, sizeof a);
    CHECK_STR(a, "--model|--yolo|--act|--max-cost|2|--native-tools|--auto-approve|all");
    batch_task_release(&t);
    /* A whole-number id; null is as if absent; false adds nothing. */
    t = parse("{\"id\": 42, \"prompt\": \"p\", \"model\": null, \"yolo\": false}", 3);
    REQUIRE(t.error == NULL);
    CHECK_STR(t.id, "42");
    CHECK_INT(t.nargs, 0);
    batch_task_release(&t);
    /* A prompt keeps its bytes (newlines, quotes, a leading dash). */
    t = parse("{\"prompt\": \"-x\\n\\\"q\\\" \\u00e9\"}", 3);
    REQUIRE(t.error == NULL);
    CHECK_STR(t.prompt, "-x\n\"q\" \xc3\xa9");
    batch_task_release(&t);
}

/* A bad line: an error containing want, no prompt; the id is kept when it was good. */
static void bad(const char *line, const char *want, const char *id)
{
    batch_task t = parse(line, 5);
    if (!t.error || !strstr(t.error, want))
        check_fail(__FILE__, __LINE__, "%s: error '%s', wanted '%s'", line,
                   t.error ? t.error : "(none)", want);
    CHECK(t.prompt == NULL);
    CHECK_STR(t.id, id);
    batch_task_release(&t);
}

static void test_bad_lines(void)
{
    bad("{\"prompt\": \"p\"", "invalid JSON", "line-5");
    bad("not json at all", "invalid JSON", "line-5");
    bad("[\"prompt\"]", "expected a JSON object", "line-5");
    bad("\"p\"", "expected a JSON object", "line-5");
    bad("{\"id\": \"a\"}", "no prompt", "a");
    bad("{\"id\": \"a\", \"prompt\": \"\"}", "prompt: expected a non-empty string", "a");
    bad("{\"id\": \"a\", \"prompt\": 3}", "prompt: expected a non-empty string, got a number", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"modle\": \"m\"}", "unknown key \"modle\"", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"timeout\": \"30\"}", "timeout: expected a whole number", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"timeout\": -1}", "timeout: expected a whole number >= 0, got a negative", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"timeout\": 1.5}", "timeout: expected a whole number", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"yolo\": \"yes\"}", "yolo: expected true or false", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"mode\": \"fast\"}", "mode: expected \"plan\" or \"act\"", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"auto_approve\": []}", "auto_approve: expected a string or a non-empty array", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"allow_command\": [\"ls\", 1]}", "allow_command[1]: expected a non-empty string", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"max_cost\": -0.5}", "max_cost: expected a number >= 0", "a");
    bad("{\"id\": \"a\", \"prompt\": \"p\", \"cwd\": 7}", "cwd: expected a non-empty string", "a");
    bad("{\"id\": \"\", \"prompt\": \"p\"}", "id: the string is empty", "line-5");
    bad("{\"id\": \"a\\u0001b\", \"prompt\": \"p\"}", "id: holds a control character", "line-5");
    bad("{\"id\": {\"x\": 1}, \"prompt\": \"p\"}", "id: expected a string or a whole number", "line-5");
    bad("{\"prompt\": \"a\\u0000b\"}", "invalid JSON", "line-5");
    char longid[BATCH_ID_MAX + 40];
    memset(longid, 'x', sizeof longid);
    memcpy(longid, "{\"id\":\"", 7);
    memcpy(longid + 7 + BATCH_ID_MAX + 1, "\",\"prompt\":\"p\"}", 16);
    bad(longid, "id: longer than", "line-5");
}

static void test_blank(void)
{
    CHECK(batch_line_blank("", 0));
    CHECK(batch_line_blank(" \t\r", 3));
    CHECK(!batch_line_blank(" x", 2));
    CHECK(strstr(batch_line_keys(), "max_requests") != NULL);
}

int main(void)
{
    RUN(test_minimal);
    RUN(test_every_option);
    RUN(test_values);
    RUN(test_bad_lines);
    RUN(test_blank);
    return check_report();
}
