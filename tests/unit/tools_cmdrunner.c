/* Unit tests of execute_command's front-end runner (hew_options.cmd_runner, tool_env's
 * cmd_runner): an unconfined command (no sandbox settings, or the user's
 * danger-full-access) runs through the runner — the model gets the runner's output (not
 * what running it would print) with hew's result text and caps, the command_output events
 * name the runner's terminal, the runner is released once, keys in its output are
 * redacted; a signal, the timeout (kill), an
 * abort (kill, HEW_E_ABORTED), a start that fails, a runner error; and a command hew
 * confines (workspace-write) never reaches the runner. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hew.h"
#include "sys/sbpolicy.h"
#include "tmpdir.h"
#include "toolenv.h"

extern const tool_def tool_execute_command;

/* A scripted runner: the output after `polls_before_end` polls, then the end. */
typedef struct fake {
    int starts, outputs, kills, releases;
    char shell[256], command[256], cwd[1024];
    const char *out;       /* the whole output it shows */
    int polls_before_end;  /* -1: never ends */
    int exit_code;         /* at the end; -1: the signal */
    const char *signal;
    hew_code start_rc, output_rc;
    int handle;
} fake;

static hew_code f_start(void *ud, const char *shell, const char *command, const char *cwd,
                        void **run, char *name, size_t namelen, char *err, size_t errlen)
{
    fake *f = ud;
    f->starts++;
    snprintf(f->shell, sizeof f->shell, "%s", shell);
    snprintf(f->command, sizeof f->command, "%s", command);
    snprintf(f->cwd, sizeof f->cwd, "%s", cwd);
    if (f->start_rc != HEW_OK) {
        snprintf(err, errlen, "no terminal today");
        return f->start_rc;
    }
    *run = &f->handle;
    snprintf(name, namelen, "term-7");
    return HEW_OK;
}

static hew_code f_output(void *ud, void *run, hew_file_put_fn put, void *sink,
                         hew_cmd_state *st, char *err, size_t errlen)
{
    fake *f = ud;
    CHECK(run == &f->handle);
    f->outputs++;
    if (f->output_rc != HEW_OK) {
        snprintf(err, errlen, "the terminal vanished");
        return f->output_rc;
    }
    bool end = f->polls_before_end >= 0 && f->outputs > f->polls_before_end;
    if (end || f->kills) {
        put(sink, f->out, strlen(f->out));
        st->done = end;
        st->exit_code = f->exit_code;
        if (f->exit_code < 0 && f->signal)
            snprintf(st->signal, sizeof st->signal, "%s", f->signal);
    } else {
        put(sink, "partial\n", 8);
    }
    return HEW_OK;
}

static void f_kill(void *ud, void *run)
{
    fake *f = ud;
    CHECK(run == &f->handle);
    f->kills++;
}

static void f_release(void *ud, void *run)
{
    fake *f = ud;
    CHECK(run == &f->handle);
    f->releases++;
}

static char *workdir;

static void setup(toolenv *te, fake *f, hew_cmd_runner *cr)
{
    toolenv_init(te, workdir);
    te->env.yolo = true;
    *cr = (hew_cmd_runner){ f_start, f_output, f_kill, f_release, f };
    te->env.cmd_runner = cr;
}

static hew_code run_cmd(toolenv *te, tool_result *r, const char *cmd, const char *timeout)
{
    return toolenv_run(te, &tool_execute_command, r, "command", cmd, "requires_approval", "false",
                       timeout ? "timeout" : NULL, timeout, NULL);
}

static void test_runs_in_the_runner(void)
{
    toolenv te;
    fake f = { .out = "from the runner\nsecond line\n", .polls_before_end = 2, .exit_code = 3 };
    hew_cmd_runner cr;
    setup(&te, &f, &cr);
    tool_result r;
    CHECK_INT(run_cmd(&te, &r, "echo from-$((6*7))", NULL), HEW_OK);
    CHECK_STR(r.text.data, "Command failed with exit code 3.\nOutput:\nfrom the runner\nsecond line");
    CHECK(strstr(r.text.data, "from-42") == NULL);
    CHECK_INT(f.starts, 1);
    CHECK_STR(f.command, "echo from-$((6*7))");
    CHECK(f.shell[0] == '/');
    CHECK_STR(f.cwd, workdir);
    CHECK_INT(f.outputs, 3);
    CHECK_INT(f.kills, 0);
    CHECK_INT(f.releases, 1);
    /* the output events name the terminal; the last one has the whole output */
    json_t *o = toolenv_last(&te, "say", "command_output");
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(o, "data"), "terminal")), "term-7");
    CHECK_STR(json_string_value(json_object_get(o, "text")), "from the runner\nsecond line");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(o, "data"), "exitCode")), 3);
    buf_release(&r.text);

    f = (fake){ .out = "", .polls_before_end = 0, .exit_code = -1, .signal = "SIGKILL" };
    CHECK_INT(run_cmd(&te, &r, "sleep 5", NULL), HEW_OK);
    CHECK_STR(r.text.data, "Command terminated by signal SIGKILL.");
    CHECK_INT(f.releases, 1);
    buf_release(&r.text);
    toolenv_release(&te);
}

/* The terminal has the editor's environment, not hew's scrubbed one: keys in its output
 * never reach the model or an event. */
static void test_secrets_redacted(void)
{
    toolenv te;
    const char *key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    char out[256];
    snprintf(out, sizeof out, "ANTHROPIC_API_KEY=%s\n", key);
    fake f = { .out = out, .polls_before_end = 0, .exit_code = 0 };
    hew_cmd_runner cr;
    setup(&te, &f, &cr);
    tool_result r;
    CHECK_INT(run_cmd(&te, &r, "env", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "ANTHROPIC_API_KEY=") != NULL);
    CHECK(strstr(r.text.data, "abcdefghijklmnop") == NULL);
    json_t *o = toolenv_last(&te, "say", "command_output");
    REQUIRE(o != NULL);
    CHECK(strstr(json_string_value(json_object_get(o, "text")), "abcdefghijklmnop") == NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_caps(void)
{
    toolenv te;
    buf big = BUF_INIT(0);
    for (int i = 0; i < 20000; i++)
        buf_printf(&big, "line %d\n", i);
    fake f = { .out = big.data, .polls_before_end = 0, .exit_code = 0 };
    hew_cmd_runner cr;
    setup(&te, &f, &cr);
    tool_result r;
    CHECK_INT(run_cmd(&te, &r, "seq 20000", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "line 0\n") != NULL);
    CHECK(strstr(r.text.data, "line 19999") != NULL);
    CHECK(strstr(r.text.data, "line 10000\n") == NULL);
    CHECK(strstr(r.text.data, "... (output truncated:") != NULL);
    CHECK(r.text.len < 80000);
    buf_release(&r.text);
    buf_release(&big);
    toolenv_release(&te);
}

static void test_timeout_abort_errors(void)
{
    toolenv te;
    fake f = { .out = "so far\n", .polls_before_end = -1 };
    hew_cmd_runner cr;
    setup(&te, &f, &cr);
    tool_result r;
    CHECK_INT(run_cmd(&te, &r, "sleep 600", "1"), HEW_OK);
    CHECK(strncmp(r.text.data, "Command execution timed out after 1 seconds", 43) == 0);
    CHECK(strstr(r.text.data, "Output so far:\nso far") != NULL);
    CHECK_INT(f.kills, 1);
    CHECK_INT(f.releases, 1);
    buf_release(&r.text);

    /* the front end gave up (session/cancel): killed, released, the tool aborts */
    f = (fake){ .out = "", .polls_before_end = -1, .output_rc = HEW_E_ABORTED };
    CHECK_INT(run_cmd(&te, &r, "sleep 600", NULL), HEW_E_ABORTED);
    CHECK_INT(f.kills, 1);
    CHECK_INT(f.releases, 1);
    buf_release(&r.text);

    /* the task's abort: the same */
    f = (fake){ .out = "", .polls_before_end = -1 };
    abort_trigger(te.env.abort, "test");
    CHECK_INT(run_cmd(&te, &r, "sleep 600", NULL), HEW_E_ABORTED);
    CHECK_INT(f.kills, 1);
    CHECK_INT(f.releases, 1);
    abort_reset(te.env.abort);
    buf_release(&r.text);

    /* the runner fails: stopped, the model told */
    f = (fake){ .out = "", .polls_before_end = -1, .output_rc = HEW_E_IO };
    CHECK_INT(run_cmd(&te, &r, "sleep 600", NULL), HEW_OK);
    CHECK(r.is_error);
    CHECK(strstr(r.text.data, "the terminal vanished") != NULL);
    CHECK_INT(f.kills, 1);
    CHECK_INT(f.releases, 1);
    buf_release(&r.text);

    /* it cannot start: nothing to release, the model told */
    f = (fake){ .start_rc = HEW_E_IO };
    CHECK_INT(run_cmd(&te, &r, "true", NULL), HEW_OK);
    CHECK(r.is_error);
    CHECK(strstr(r.text.data, "no terminal today") != NULL);
    CHECK_INT(f.releases, 0);
    buf_release(&r.text);
    toolenv_release(&te);
}

/* The user's sandbox mode decides: confined runs hew's own way, full access the runner's. */
static void test_only_unconfined(void)
{
    struct { const char *mode; bool runner; } cases[] = {
        { "workspace-write", false },
        { "read-only", false },
        { "danger-full-access", true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        toolenv te;
        fake f = { .out = "from the runner\n", .polls_before_end = 0, .exit_code = 0 };
        hew_cmd_runner cr;
        setup(&te, &f, &cr);
        sbpolicy_opts so = { .mode = cases[i].mode, .cwd = workdir };
        sbpolicy *p = NULL;
        hew_err err = HEW_ERR_INIT;
        REQUIRE(sbpolicy_new(&so, &p, &err) == HEW_OK);
        te.env.sandbox = p;
        tool_result r;
        CHECK_INT(run_cmd(&te, &r, "echo from-$((6*7))", NULL), HEW_OK);
        CHECK_INT(f.starts, cases[i].runner ? 1 : 0);
        if (cases[i].runner) {
            CHECK(strstr(r.text.data, "from the runner") != NULL);
        } else {
            const sandbox *sb = NULL;
            hew_err e2 = HEW_ERR_INIT;
            bool confinable = sbpolicy_sandbox(p, sbpolicy_pick(p, false), -1, &sb, &e2) == HEW_OK;
            /* run by hew in its sandbox, or refused when it cannot set one up: never the
             * runner's */
            CHECK(strstr(r.text.data, "from the runner") == NULL);
            if (confinable)
                CHECK(strstr(r.text.data, "from-42") != NULL);
        }
        buf_release(&r.text);
        toolenv_release(&te);
        sbpolicy_free(p);
    }
}

int main(void)
{
    workdir = tmpdir_make("cmdrunner");
    if (!workdir) {
        fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    RUN(test_runs_in_the_runner);
    RUN(test_secrets_redacted);
    RUN(test_caps);
    RUN(test_timeout_abort_errors);
    RUN(test_only_unconfined);
    tmpdir_remove(workdir);
    free(workdir);
    return check_report();
}
