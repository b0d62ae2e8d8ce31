/* Unit tests of execute_command (and new_task, condense) through the scripted tool_env:
 * results per ending (exit code, signal, timeout, cancel, background), approvals and
 * rejections, head + tail truncation, coalesced streaming, UTF-8, the environment, abort
 * within 100 ms, "proceed while running"; plus the approval settings (safe / all / yolo)
 * through the real executor and the public API against the fake provider. */
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/utf8.h"
#include "check.h"
#include "evtext.h"
#include "fakeprov.h"
#include "hew.h"
#include "tmpdir.h"
#include "toolenv.h"
#include "tools/execute_command.h"

extern const tool_def tool_execute_command;
extern const tool_def tool_new_task;
extern const tool_def tool_condense;

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}

static bool alive(long pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    const char *rp = ok ? strrchr(line, ')') : NULL;
    return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

static bool gone_within(long pid, long ms)
{
    long long end = ms_now() + ms;
    while (alive(pid)) {
        if (ms_now() > end)
            return false;
        usleep(10000);
    }
    return true;
}

static char *workdir;

/* Run a command in yolo mode (approved, no asks). */
static hew_code yolo_run(toolenv *te, tool_result *r, const char *cmd, const char *timeout)
{
    te->env.yolo = true;
    if (timeout)
        return toolenv_run(te, &tool_execute_command, r, "command", cmd, "requires_approval",
                           "false", "timeout", timeout, NULL);
    return toolenv_run(te, &tool_execute_command, r, "command", cmd, "requires_approval", "false",
                       NULL);
}

static void test_success_and_failure(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    CHECK_INT(yolo_run(&te, &r, "echo hello; echo world", NULL), HEW_OK);
    CHECK_STR(r.text.data, "Command executed successfully (exit code 0).\nOutput:\nhello\nworld");
    CHECK(!r.is_error);
    /* approval said (yolo), one final output message */
    json_t *cmd = toolenv_last(&te, "say", "command");
    REQUIRE(cmd != NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(cmd, "data"), "command")),
              "echo hello; echo world");
    json_t *outmsg = toolenv_last(&te, "say", "command_output");
    REQUIRE(outmsg != NULL);
    CHECK_STR(json_string_value(json_object_get(outmsg, "text")), "hello\nworld");
    buf_release(&r.text);

    CHECK_INT(yolo_run(&te, &r, "echo oops >&2; exit 3", NULL), HEW_OK);
    CHECK_STR(r.text.data, "Command failed with exit code 3.\nOutput:\noops");
    buf_release(&r.text);

    CHECK_INT(yolo_run(&te, &r, "true", NULL), HEW_OK);
    CHECK_STR(r.text.data, "Command executed successfully (exit code 0).");
    buf_release(&r.text);

    CHECK_INT(yolo_run(&te, &r, "kill -TERM $$", NULL), HEW_OK);
    CHECK_STR(r.text.data, "Command terminated by signal SIGTERM.");
    buf_release(&r.text);

    /* runs in the workspace */
    CHECK_INT(yolo_run(&te, &r, "pwd -P", NULL), HEW_OK);
    CHECK(strstr(r.text.data, workdir) != NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_approval_groups_and_rejection(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    unlink("marker1");
    /* requires_approval=false on a command hew judges read-only: group safe_command */
    toolenv_answer(&te, "no", NULL);
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command", "ls -la | wc -l",
                          "requires_approval", "false", NULL),
              HEW_OK);
    json_t *ask = toolenv_last(&te, "ask", "command");
    REQUIRE(ask != NULL);
    CHECK_STR(json_string_value(json_object_get(ask, "group")), "safe_command");
    json_t *policy = json_object_get(json_object_get(ask, "data"), "policy");
    CHECK_STR(json_string_value(json_object_get(policy, "decision")), "safe");
    CHECK_STR(json_string_value(json_object_get(policy, "reason")), "read-only: `ls`, `wc`");
    buf_release(&r.text);

    /* requires_approval=false on one that writes: the model's word does not make it safe
     * (group command, and the policy says why); denied with feedback: nothing runs */
    toolenv_answer(&te, "message", "not now, read the README first");
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command", "touch marker1",
                          "requires_approval", "false", NULL),
              HEW_OK);
    ask = toolenv_last(&te, "ask", "command");
    REQUIRE(ask != NULL);
    CHECK_STR(json_string_value(json_object_get(ask, "group")), "command");
    CHECK(json_is_false(json_object_get(json_object_get(ask, "data"), "requires_approval")));
    policy = json_object_get(json_object_get(ask, "data"), "policy");
    CHECK_STR(json_string_value(json_object_get(policy, "decision")), "ask");
    CHECK_STR(json_string_value(json_object_get(policy, "reason")),
              "`touch` is not a read-only program: touch marker1");
    CHECK_STR(json_string_value(json_object_get(policy, "part")), "touch marker1");
    CHECK(strncmp(r.text.data, "The user denied this operation.", 31) == 0);
    CHECK(strstr(r.text.data, "<feedback>\nnot now, read the README first\n</feedback>") != NULL);
    CHECK(te.rejected);
    CHECK(access("marker1", F_OK) != 0);
    CHECK_INT(toolenv_count(&te, NULL, "command_output"), 0);
    buf_release(&r.text);

    /* requires_approval=true (and anything that is not "false"): group command; "no" */
    toolenv_answer(&te, "no", NULL);
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command", "touch marker1",
                          "requires_approval", "TRUE", NULL),
              HEW_OK);
    ask = toolenv_last(&te, "ask", "command");
    CHECK_STR(json_string_value(json_object_get(ask, "group")), "command");
    CHECK_STR(r.text.data, "The user denied this operation.");
    CHECK(access("marker1", F_OK) != 0);
    buf_release(&r.text);

    /* approved: it runs */
    toolenv_answer(&te, "yes", NULL);
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command", "touch marker1",
                          "requires_approval", "true", NULL),
              HEW_OK);
    CHECK(access("marker1", F_OK) == 0);
    CHECK(strncmp(r.text.data, "Command executed successfully", 29) == 0);
    unlink("marker1");
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_head_tail_truncation(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    CHECK_INT(yolo_run(&te, &r, "seq 1 2000", NULL), HEW_OK);
    const char *t = r.text.data;
    REQUIRE(t != NULL);
    CHECK(strncmp(t, "Command executed successfully (exit code 0).\nOutput:\n1\n2\n", 56) == 0);
    CHECK(strstr(t, "\n250\n") != NULL);
    CHECK(strstr(t, "\n251\n") == NULL);
    CHECK(strstr(t, "\n1750\n") == NULL);
    CHECK(strstr(t, "\n1751\n") != NULL);
    CHECK(strstr(t, "... (output truncated: 1500 lines, ") != NULL);
    size_t n = strlen(t);
    CHECK(n > 5 && strcmp(t + n - 5, "\n2000") == 0);
    buf_release(&r.text);

    /* bytes capped too: one huge line */
    CHECK_INT(yolo_run(&te, &r, "head -c 300000 /dev/zero | tr '\\0' x; echo; echo end", NULL),
              HEW_OK);
    CHECK(r.text.len < 70000);
    CHECK(strstr(r.text.data, "output truncated") != NULL);
    CHECK(strstr(r.text.data, "\nend") != NULL);
    buf_release(&r.text);

    /* short output: nothing cut, no notice */
    CHECK_INT(yolo_run(&te, &r, "seq 1 500", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "truncated") == NULL);
    CHECK(strstr(r.text.data, "\n499\n500") != NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_timeout(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    long long t0 = ms_now();
    /* the model's timeout, honoured in yolo mode; grandchildren die too */
    CHECK_INT(yolo_run(&te, &r, "sleep 100 & echo $!; sleep 100", "1"), HEW_OK);
    long long took = ms_now() - t0;
    CHECK(took >= 1000 && took < 3000);
    CHECK(strncmp(r.text.data, "Command execution timed out after 1 seconds", 43) == 0);
    const char *so = strstr(r.text.data, "Output so far:\n");
    REQUIRE(so != NULL);
    long gpid = strtol(so + 15, NULL, 10);
    CHECK(gpid > 0 && gone_within(gpid, 1000));
    buf_release(&r.text);

    /* outside yolo the parameter is ignored; the configured default applies */
    exec_limits lim;
    exec_limits_default(&lim);
    lim.timeout_s = 1;
    execute_command_set_limits(&lim);
    te.env.yolo = false;
    te.approve_all = true;
    t0 = ms_now();
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command", "sleep 30",
                          "requires_approval", "false", "timeout", "100", NULL),
              HEW_OK);
    took = ms_now() - t0;
    CHECK(took >= 1000 && took < 3000);
    CHECK(strstr(r.text.data, "timed out after 1 seconds") != NULL);
    execute_command_set_limits(NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_long_commands(void)
{
    CHECK(execute_command_is_long("npm install"));
    CHECK(execute_command_is_long("cd web && pnpm run build"));
    CHECK(execute_command_is_long("yarn"));
    CHECK(execute_command_is_long("CI=1 npx jest --runInBand"));
    CHECK(execute_command_is_long("python -m pip install -r requirements.txt"));
    CHECK(execute_command_is_long("cargo test --release"));
    CHECK(execute_command_is_long("make -j8"));
    CHECK(execute_command_is_long("ls; go build ./..."));
    CHECK(execute_command_is_long("docker build -t x ."));
    CHECK(execute_command_is_long("pytest -q"));
    CHECK(execute_command_is_long("./gradlew test"));
    CHECK(!execute_command_is_long("ls -la"));
    CHECK(!execute_command_is_long("npm --version"));
    CHECK(!execute_command_is_long("cargo fmt"));
    CHECK(!execute_command_is_long("echo make"));
    CHECK(!execute_command_is_long("git status | grep make"));
}

static void test_streaming_coalesced(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    /* slow output over ~1 s: several updates, never more than one per 100 ms */
    long long t0 = ms_now();
    CHECK_INT(yolo_run(&te, &r, "for i in 1 2 3 4 5 6 7 8 9 10; do echo line$i; sleep 0.1; done",
                       NULL),
              HEW_OK);
    long long took = ms_now() - t0;
    int updates = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(te.events, i, ev) {
        const char *type = json_string_value(json_object_get(ev, "type"));
        if (strcmp(type, "command_output") == 0 &&
            json_integer_value(json_object_get(ev, "partial")) == 1)
            updates++;
    }
    CHECK(updates >= 3);
    CHECK(updates <= took / 100 + 1);
    json_t *last = toolenv_last(&te, "say", "command_output");
    REQUIRE(last != NULL);
    CHECK_INT(json_integer_value(json_object_get(last, "partial")), 2);
    CHECK(strncmp(json_string_value(json_object_get(last, "text")), "line1\nline2", 11) == 0);
    buf_release(&r.text);
    toolenv_release(&te);

    /* fast output: a handful of updates for 200 000 lines */
    toolenv_init(&te, workdir);
    t0 = ms_now();
    CHECK_INT(yolo_run(&te, &r, "seq 1 200000; sleep 0.3", NULL), HEW_OK);
    took = ms_now() - t0;
    int n = toolenv_count(&te, "say", "command_output");
    CHECK(n >= 2);
    CHECK(n <= took / 100 + 2);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_invalid_utf8(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    CHECK_INT(yolo_run(&te, &r, "printf 'a\\377\\376b\\n\\342\\202'", NULL), HEW_OK);
    REQUIRE(r.text.data != NULL);
    CHECK(utf8_validate(r.text.data, r.text.len, NULL));
    CHECK(strstr(r.text.data, "a" UTF8_REPLACEMENT) != NULL);
    json_t *last = toolenv_last(&te, "say", "command_output");
    REQUIRE(last != NULL);
    CHECK(json_string_value(json_object_get(last, "text")) != NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_environment(void)
{
    setenv("OPENAI_API_KEY", "sk-openai-very-secret", 1);
    setenv("PAGER", "less", 1);
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    CHECK_INT(yolo_run(&te, &r, "env; test -t 0 || echo stdin-not-a-tty; cat; echo done", NULL),
              HEW_OK);
    CHECK(strstr(r.text.data, "very-secret") == NULL);
    CHECK(strstr(r.text.data, "\nPAGER=cat\n") != NULL);
    CHECK(strstr(r.text.data, "\nGIT_PAGER=cat\n") != NULL);
    CHECK(strstr(r.text.data, "stdin-not-a-tty\ndone") != NULL);
    unsetenv("OPENAI_API_KEY");
    unsetenv("PAGER");
    buf_release(&r.text);
    toolenv_release(&te);
}

struct later {
    hew_abort *a;
    long ms;
    long long fired;
};

static void *abort_later(void *arg)
{
    struct later *l = arg;
    usleep((useconds_t)l->ms * 1000);
    l->fired = ms_now();
    abort_trigger(l->a, "test abort");
    return NULL;
}

static void test_abort(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    struct later l = { te.env.abort, 300, 0 };
    pthread_t th;
    pthread_create(&th, NULL, abort_later, &l);
    CHECK_INT(yolo_run(&te, &r, "echo started; sleep 100", NULL), HEW_E_ABORTED);
    long long done = ms_now();
    pthread_join(th, NULL);
    CHECK(done - l.fired < 100);
    buf_release(&r.text);
    toolenv_release(&te);
}

/* "Proceed while running": the user answers the command_output ask while it runs. */
static void test_proceed_while_running(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    te.approve_all = true;
    tool_result r;
    /* answered once both lines are shown (a loaded machine may be slow to print them) */
    toolenv_answer_nowait_after(&te, "yes", NULL, "child ");
    long long t0 = ms_now();
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command",
                          "echo pid $$; sleep 100 & echo child $!; sleep 100",
                          "requires_approval", "false", NULL),
              HEW_OK);
    CHECK(ms_now() - t0 < 2000);
    CHECK(strncmp(r.text.data, "Command is running in the background.", 37) == 0);
    const char *pp = strstr(r.text.data, "pid ");
    const char *cp = strstr(r.text.data, "child ");
    REQUIRE(pp && cp);
    long pid = strtol(pp + 4, NULL, 10), child = strtol(cp + 6, NULL, 10);
    CHECK(alive(pid) && alive(child));
    CHECK_INT(execute_command_background_count(&te.env), 1);
    /* the ask was shown while it ran, then finished */
    json_t *ask = toolenv_last(&te, "ask", "command_output");
    REQUIRE(ask != NULL);
    CHECK_INT(json_integer_value(json_object_get(ask, "partial")), 2);

    buf rep = BUF_INIT(0);
    execute_command_background_report(&te.env, &rep);
    CHECK(rep.data && strstr(rep.data, "is still running") != NULL);
    buf_release(&rep);

    /* the task ends: the whole group goes */
    t0 = ms_now();
    execute_command_stop_background(&te.env);
    CHECK(ms_now() - t0 < 1000);
    CHECK_INT(execute_command_background_count(&te.env), 0);
    CHECK(gone_within(pid, 1000));
    CHECK(gone_within(child, 1000));
    buf_release(&r.text);

    /* a message while it runs: it goes on, the model gets the feedback */
    toolenv_answer_nowait(&te, "message", "that looks stuck");
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command", "echo go; sleep 100",
                          "requires_approval", "false", NULL),
              HEW_OK);
    CHECK(strncmp(r.text.data, "Command is still running in the background", 42) == 0);
    CHECK(strstr(r.text.data, "<feedback>\nthat looks stuck\n</feedback>") != NULL);
    CHECK_INT(toolenv_count(&te, "say", "user_feedback"), 1);
    CHECK_INT(execute_command_background_count(&te.env), 1);
    execute_command_stop_background(&te.env);
    buf_release(&r.text);

    /* no: the command is cancelled */
    toolenv_answer_nowait_after(&te, "no", NULL, "before");
    t0 = ms_now();
    CHECK_INT(toolenv_run(&te, &tool_execute_command, &r, "command", "echo before; sleep 100",
                          "requires_approval", "false", NULL),
              HEW_OK);
    CHECK(ms_now() - t0 < 2000);
    CHECK(strncmp(r.text.data, "Command cancelled by the user.", 30) == 0);
    CHECK(strstr(r.text.data, "before") != NULL);
    CHECK_INT(execute_command_background_count(&te.env), 0);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_new_task_and_condense(void)
{
    toolenv te;
    toolenv_init(&te, workdir);
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_new_task, &r, "context", "Summary of work.", NULL), HEW_OK);
    json_t *ask = toolenv_last(&te, "ask", "new_task");
    REQUIRE(ask != NULL);
    CHECK_STR(json_string_value(json_object_get(ask, "text")), "Summary of work.");
    CHECK(strstr(r.text.data, "created a new task") != NULL);
    CHECK(te.completed);
    CHECK_STR(te.successor, "Summary of work.");
    buf_release(&r.text);
    te.completed = false;
    toolenv_answer(&te, "message", "No, keep going here.");
    CHECK_INT(toolenv_run(&te, &tool_new_task, &r, "context", "x", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "<feedback>\nNo, keep going here.\n</feedback>") != NULL);
    CHECK(!te.completed);
    buf_release(&r.text);
    toolenv_answer(&te, "no", NULL);
    CHECK_INT(toolenv_run(&te, &tool_new_task, &r, "context", "x", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "declined") != NULL);
    CHECK(!te.completed);
    buf_release(&r.text);

    CHECK_INT(toolenv_run(&te, &tool_condense, &r, "context", "The summary.", NULL), HEW_OK);
    CHECK(toolenv_last(&te, "ask", "condense") != NULL);
    CHECK(strstr(r.text.data, "accepted by the user") != NULL);
    buf_release(&r.text);
    te.env.yolo = true;
    CHECK_INT(toolenv_run(&te, &tool_condense, &r, "context", "The summary.", NULL), HEW_OK);
    CHECK(toolenv_last(&te, "say", "condense") != NULL);
    CHECK(strstr(r.text.data, "accepted automatically") != NULL);
    buf_release(&r.text);
    CHECK_INT(toolenv_run(&te, &tool_new_task, &r, "context", "in yolo", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "approved automatically") != NULL);
    CHECK(toolenv_last(&te, "say", "new_task") != NULL);
    CHECK_STR(te.successor, "in yolo");
    buf_release(&r.text);
    te.env.hand_over = NULL; /* a front end that cannot start one */
    CHECK_INT(toolenv_run(&te, &tool_new_task, &r, "context", "x", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "cannot be started from here") != NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

/* ---- approval settings through the real executor ------------------------------------ */

#define CMD_CALL(cmd, req)                                                                 \
    "{\"protocol\":\"anthropic\",\"text\":\"Running it.\\n<execute_command>\\n<command>" cmd \
    "</command>\\n<requires_approval>" req "</requires_approval>\\n</execute_command>\"}"
#define COMPLETE "{\"protocol\":\"anthropic\",\"text\":\"<attempt_completion>\\n<result>done</result>\\n</attempt_completion>\"}"

struct api_run {
    pthread_mutex_t mu;
    json_t *events;
};

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    struct api_run *a = ud;
    json_t *j = evtext_load(a->events, ev);
    pthread_mutex_lock(&a->mu);
    json_array_append_new(a->events, j);
    pthread_mutex_unlock(&a->mu);
    if (ev->is_ask && !ev->partial)
        hew_task_respond(t, HEW_ANSWER_YES, NULL);
}

/* Runs a task whose model calls execute_command with requires_approval=req; returns
 * "say" or "ask" for how the command message came (NULL on failure). */
static const char *command_message_kind(const char *req, int safe, int all, int yolo,
                                        char *out, size_t outlen)
{
    fakeprov fp;
    char scenario[1024];
    snprintf(scenario, sizeof scenario, "{\"responses\":[%s,%s]}",
             strcmp(req, "true") == 0 ? CMD_CALL("echo hi", "true") : CMD_CALL("echo hi", "false"),
             COMPLETE);
    if (fakeprov_start(&fp, scenario) != 0)
        return NULL;
    struct api_run a = { PTHREAD_MUTEX_INITIALIZER, json_array() };
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-test-model";
    o.api_key = "test-key-not-for-children";
    o.base_url = fp.url;
    o.native_tools = 0;
    o.cwd = workdir;
    o.auto_approve_safe_commands = safe;
    o.auto_approve_all_commands = all;
    o.yolo = yolo;
    o.on_event = on_event;
    o.event_ud = &a;
    char err[256];
    hew_session *s = NULL;
    (void)hew_session_new(&o, &s, err, sizeof err);
    hew_task *t = NULL;
    if (s)
        (void)hew_task_start(s, "run it", &t, err, sizeof err);
    const char *kind = NULL;
    if (t) {
        CHECK_INT(hew_task_wait(t), HEW_TASK_COMPLETED);
        size_t i;
        json_t *ev;
        json_array_foreach(a.events, i, ev) {
            if (strcmp(json_string_value(json_object_get(ev, "type")), "command") == 0)
                kind = strcmp(json_string_value(json_object_get(ev, "kind")), "ask") == 0 ? "ask"
                                                                                          : "say";
        }
        snprintf(out, outlen, "%s", kind ? kind : "none");
    }
    json_t *reqs = fakeprov_requests(&fp);
    /* the command ran and its result went back to the model */
    char *dump = reqs ? json_dumps(reqs, 0) : NULL;
    CHECK(dump && strstr(dump, "Command executed successfully (exit code 0).\\nOutput:\\nhi") != NULL);
    free(dump);
    json_decref(reqs);
    hew_task_free(t);
    hew_session_free(s);
    fakeprov_stop(&fp);
    json_decref(a.events);
    return kind ? out : NULL;
}

/* How a command the model marks requires_approval=false fares with these settings and
 * rules (asks are answered no): "ran" (said, not asked), "asked", "refused" (an error
 * naming a deny rule, and the model told so), or NULL on failure. */
struct fate_opts {
    int safe, all, yolo, read_outside;
    const char *const *allow, *const *deny;
};

static void on_event_no(void *ud, hew_task *t, const hew_event *ev)
{
    struct api_run *a = ud;
    json_t *j = evtext_load(a->events, ev);
    pthread_mutex_lock(&a->mu);
    json_array_append_new(a->events, j);
    pthread_mutex_unlock(&a->mu);
    if (ev->is_ask && !ev->partial)
        hew_task_respond(t, strcmp(ev->type, "completion_result") == 0 ? HEW_ANSWER_YES
                                                                       : HEW_ANSWER_NO,
                         NULL);
}

static const char *command_fate(const char *cmd_call, const struct fate_opts *f)
{
    fakeprov fp;
    char scenario[1024];
    snprintf(scenario, sizeof scenario, "{\"responses\":[%s,%s]}", cmd_call, COMPLETE);
    if (fakeprov_start(&fp, scenario) != 0)
        return NULL;
    struct api_run a = { PTHREAD_MUTEX_INITIALIZER, json_array() };
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-test-model";
    o.api_key = "test-key-not-for-children";
    o.base_url = fp.url;
    o.native_tools = 0;
    o.cwd = workdir;
    o.auto_approve_safe_commands = f->safe;
    o.auto_approve_all_commands = f->all;
    o.auto_approve_read_outside = f->read_outside;
    o.yolo = f->yolo;
    o.command_allow = f->allow;
    o.command_deny = f->deny;
    o.on_event = on_event_no;
    o.event_ud = &a;
    char err[256];
    hew_session *s = NULL;
    (void)hew_session_new(&o, &s, err, sizeof err);
    hew_task *t = NULL;
    if (s)
        (void)hew_task_start(s, "run it", &t, err, sizeof err);
    const char *fate = NULL;
    if (t) {
        hew_task_wait(t);
        size_t i;
        json_t *ev;
        json_array_foreach(a.events, i, ev) {
            const char *type = json_string_value(json_object_get(ev, "type"));
            bool ask = strcmp(json_string_value(json_object_get(ev, "kind")), "ask") == 0;
            json_t *policy = json_object_get(json_object_get(ev, "data"), "policy");
            if (strcmp(type, "command") == 0)
                fate = ask ? "asked" : "ran";
            else if (strcmp(type, "error") == 0 && policy)
                fate = "refused";
        }
        json_t *reqs = fakeprov_requests(&fp);
        char *dump = reqs ? json_dumps(reqs, 0) : NULL;
        if (fate && strcmp(fate, "refused") == 0)
            CHECK(dump && strstr(dump, "hew refused to run this command") != NULL);
        free(dump);
        json_decref(reqs);
    }
    hew_task_free(t);
    hew_session_free(s);
    fakeprov_stop(&fp);
    json_decref(a.events);
    return fate;
}

static void test_policy_settings(void)
{
    static const char *const deny[] = { "touch *", NULL };
    static const char *const allow[] = { "touch policy-allowed", NULL };
    struct fate_opts safe = { 1, 0, 0, 0, NULL, NULL };
    /* the model's requires_approval=false does not make a write safe */
    CHECK_STR(command_fate(CMD_CALL("touch policy-x", "false"), &safe), "asked");
    CHECK(access("policy-x", F_OK) != 0);
    CHECK_STR(command_fate(CMD_CALL("cat policy-none 2>/dev/null; ls", "false"), &safe), "ran");
    /* it can only narrow: true makes a read-only command ask */
    CHECK_STR(command_fate(CMD_CALL("ls", "true"), &safe), "asked");
    /* reading outside the workspace needs read-outside too */
    CHECK_STR(command_fate(CMD_CALL("cat /etc/hostname", "false"), &safe), "asked");
    struct fate_opts outside = { 1, 0, 0, 1, NULL, NULL };
    CHECK_STR(command_fate(CMD_CALL("cat /etc/hostname", "false"), &outside), "ran");
    /* all-commands runs what the policy asks about, but never what a rule denies */
    struct fate_opts all = { 1, 1, 0, 0, NULL, deny };
    CHECK_STR(command_fate(CMD_CALL("mkdir -p policy-dir", "false"), &all), "ran");
    CHECK_STR(command_fate(CMD_CALL("touch policy-y", "false"), &all), "refused");
    struct fate_opts yolo = { 0, 0, 1, 0, NULL, deny };
    CHECK_STR(command_fate(CMD_CALL("echo x; touch policy-y", "false"), &yolo), "refused");
    CHECK(access("policy-y", F_OK) != 0);
    /* an allow rule makes a command run like a read-only one (and deny still wins) */
    struct fate_opts allowed = { 1, 0, 0, 0, allow, NULL };
    CHECK_STR(command_fate(CMD_CALL("touch policy-allowed", "false"), &allowed), "ran");
    CHECK(access("policy-allowed", F_OK) == 0);
    struct fate_opts both = { 1, 0, 0, 0, allow, deny };
    unlink("policy-allowed");
    CHECK_STR(command_fate(CMD_CALL("touch policy-allowed", "false"), &both), "refused");
    CHECK(access("policy-allowed", F_OK) != 0);
    rmdir("policy-dir");
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_commands_reading_ignored_files_are_refused(void)
{
    char *ws = tmpdir_make("ignored-cmd");
    REQUIRE(ws != NULL);
    write_file(ws, ".clineignore", "secrets.env\nprivate/\n");
    write_file(ws, "secrets.env", "TOKEN=hunter2\n");
    write_file(ws, "notes.txt", "fine\n");
    toolenv te;
    toolenv_init(&te, ws);
    tool_result r;
    static const char *const refused[] = {
        "cat secrets.env", "head -n 3 ./secrets.env", "grep TOKEN 'secrets.env'",
        "echo x && /bin/cat secrets.env | wc -l", "sed -n 1p private/key.pem",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK_INT(yolo_run(&te, &r, refused[i], NULL), HEW_OK);
        CHECK(r.is_error);
        CHECK(r.text.data && strstr(r.text.data, ".clineignore") != NULL);
        buf_release(&r.text);
    }
    CHECK(toolenv_count(&te, "say", "clineignore_error") == 5);
    /* Reading other files, or merely naming an ignored one, runs. */
    static const char *const allowed[] = { "cat notes.txt", "echo secrets.env",
                                           "ls -la > secrets.listing" };
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        CHECK_INT(yolo_run(&te, &r, allowed[i], NULL), HEW_OK);
        CHECK(!r.is_error);
        buf_release(&r.text);
    }
    toolenv_release(&te);
    tmpdir_remove(ws);
    free(ws);
}

static void test_approval_settings(void)
{
    char k[16];
    /* defaults: every command asks */
    CHECK_STR(command_message_kind("false", 0, 0, 0, k, sizeof k), "ask");
    /* safe commands on: requires_approval=false runs, true still asks */
    CHECK_STR(command_message_kind("false", 1, 0, 0, k, sizeof k), "say");
    CHECK_STR(command_message_kind("true", 1, 0, 0, k, sizeof k), "ask");
    /* all commands needs safe commands too */
    CHECK_STR(command_message_kind("true", 0, 1, 0, k, sizeof k), "ask");
    CHECK_STR(command_message_kind("true", 1, 1, 0, k, sizeof k), "say");
    /* yolo: everything */
    CHECK_STR(command_message_kind("true", 0, 0, 1, k, sizeof k), "say");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    workdir = tmpdir_make("execcmd");
    if (!workdir || chdir(workdir) != 0)
        return 1;
    RUN(test_success_and_failure);
    RUN(test_approval_groups_and_rejection);
    RUN(test_head_tail_truncation);
    RUN(test_timeout);
    RUN(test_long_commands);
    RUN(test_streaming_coalesced);
    RUN(test_invalid_utf8);
    RUN(test_environment);
    RUN(test_abort);
    RUN(test_proceed_while_running);
    RUN(test_new_task_and_condense);
    RUN(test_approval_settings);
    RUN(test_policy_settings);
    RUN(test_commands_reading_ignored_files_are_refused);
    if (chdir("/") != 0)
        return 1;
    tmpdir_remove(workdir);
    free(workdir);
    return check_report();
}
