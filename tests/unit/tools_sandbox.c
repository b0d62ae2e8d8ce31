/* Which sandbox execute_command uses, through the library API against the fake provider
 * (a scripted model writes a file outside the workspace; the test answers the asks as a
 * person would):
 *   - auto: a command a person approved by hand runs unconfined (the file is written, the
 *     event says danger-full-access); an auto-approved one runs under workspace-write (not
 *     written, the model told which rule), and the user is asked once to run it again
 *     without the sandbox — yes runs it unconfined, no leaves it;
 *   - a yes the front end gave by a rule (HEW_ANSWER_YES_BY_RULE, an editor's "allow
 *     always") is no person's: the command stays confined;
 *   - a mode the user set (sandbox_mode) confines even what a person approved by hand;
 *   - yolo never approves leaving the sandbox: the command_unsandboxed ask is asked;
 *   - unattended: a front end's "yes" is nobody's hand — the command stays confined, and
 *     leaving the sandbox is refused without asking and recorded as denied.
 * Skipped (with a message) on a machine where no sandbox backend works. */
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hew.h"
#include "check.h"
#include "evtext.h"
#include "fakeprov.h"
#include "tmpdir.h"

#define COMPLETE                                                                           \
    "{\"protocol\":\"anthropic\",\"text\":\"<attempt_completion>\\n<result>done</result>\\n" \
    "</attempt_completion>\"}"

static char *tmp;
static char ws[PATH_MAX], outside[PATH_MAX];

struct run {
    pthread_mutex_t mu;
    json_t *events;
    hew_answer command;     /* the answer to a "command" ask */
    hew_answer unsandboxed; /* ... to a "command_unsandboxed" ask */
};

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    struct run *r = ud;
    json_t *j = evtext_load(r->events, ev);
    pthread_mutex_lock(&r->mu);
    json_array_append_new(r->events, j);
    pthread_mutex_unlock(&r->mu);
    if (!ev->is_ask || ev->partial)
        return;
    hew_answer a = HEW_ANSWER_YES;
    if (strcmp(ev->type, "command") == 0)
        a = r->command;
    else if (strcmp(ev->type, "command_unsandboxed") == 0)
        a = r->unsandboxed;
    hew_task_respond(t, a, NULL);
}

struct opts {
    const char *mode;     /* sandbox_mode */
    int all_commands;     /* auto-approve every command */
    int yolo, unattended;
    hew_answer command, unsandboxed;
};

struct outcome {
    bool written;         /* the file outside the workspace exists */
    char mode[32];        /* the command event's sandbox.mode */
    char command_kind[8]; /* "say" or "ask" */
    char unsandboxed[8];  /* the command_unsandboxed message's kind, "" none */
    bool stopped;         /* a sandbox_denied say */
    bool told_stopped;    /* the model was told the sandbox stopped it */
    bool told_again;      /* ... that the user let it run again without */
    size_t denied;        /* hew_task_outcome's denied entries with "sandbox" */
};

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static bool fate(const struct opts *f, struct outcome *out)
{
    memset(out, 0, sizeof *out);
    char target[PATH_MAX + 16];
    snprintf(target, sizeof target, "%s/made", outside);
    unlink(target);
    char scenario[PATH_MAX + 1024];
    snprintf(scenario, sizeof scenario,
             "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Writing.\\n"
             "<execute_command>\\n<command>touch %s</command>\\n<requires_approval>false"
             "</requires_approval>\\n</execute_command>\"},%s]}",
             target, COMPLETE);
    fakeprov fp;
    if (fakeprov_start(&fp, scenario) != 0)
        return false;
    struct run r = { PTHREAD_MUTEX_INITIALIZER, json_array(), f->command, f->unsandboxed };
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-test-model";
    o.api_key = "test-key-not-for-children";
    o.base_url = fp.url;
    o.native_tools = 0;
    o.cwd = ws;
    o.checkpoints = 0;
    o.persist = 0;
    o.auto_approve_safe_commands = f->all_commands;
    o.auto_approve_all_commands = f->all_commands;
    o.yolo = f->yolo;
    o.unattended = f->unattended;
    o.sandbox_mode = f->mode;
    o.on_event = on_event;
    o.event_ud = &r;
    char err[512] = "";
    hew_session *s = NULL;
    hew_task *t = NULL;
    if (hew_session_new(&o, &s, err, sizeof err) == HEW_OK)
        (void)hew_task_start(s, "write it", &t, err, sizeof err);
    if (!t)
        check_fail(__FILE__, __LINE__, "no task: %s", err);
    if (t) {
        hew_task_wait(t);
        hew_outcome oc;
        char *denied = NULL;
        if (hew_task_outcome(t, &oc, &denied) == HEW_OK && denied) {
            json_t *list = json_loads(denied, 0, NULL);
            size_t i;
            json_t *e;
            json_array_foreach(list, i, e) {
                if (json_object_get(e, "sandbox"))
                    out->denied++;
            }
            json_decref(list);
        }
        hew_free(denied);
    }
    size_t i;
    json_t *ev;
    json_array_foreach(r.events, i, ev) {
        const char *type = jstr(ev, "type");
        json_t *data = json_object_get(ev, "data");
        if (strcmp(type, "command") == 0) {
            snprintf(out->command_kind, sizeof out->command_kind, "%s", jstr(ev, "kind"));
            snprintf(out->mode, sizeof out->mode, "%s",
                     jstr(json_object_get(data, "sandbox"), "mode"));
        } else if (strcmp(type, "command_unsandboxed") == 0) {
            snprintf(out->unsandboxed, sizeof out->unsandboxed, "%s", jstr(ev, "kind"));
        } else if (strcmp(type, "sandbox_denied") == 0) {
            out->stopped = true;
        }
    }
    json_t *reqs = fakeprov_requests(&fp);
    char *dump = reqs ? json_dumps(reqs, 0) : NULL;
    out->told_stopped = dump && strstr(dump, "The sandbox stopped this command");
    out->told_again = dump && strstr(dump, "the user allowed running it again without the "
                                           "sandbox");
    free(dump);
    json_decref(reqs);
    hew_task_free(t);
    hew_session_free(s);
    fakeprov_stop(&fp);
    json_decref(r.events);
    out->written = access(target, F_OK) == 0;
    return t != NULL;
}

/* auto: approved by hand → unconfined */
static void test_by_hand_runs_unconfined(void)
{
    struct opts f = { .command = HEW_ANSWER_YES, .unsandboxed = HEW_ANSWER_NO };
    struct outcome o;
    REQUIRE(fate(&f, &o));
    CHECK_STR(o.command_kind, "ask");
    CHECK_STR(o.mode, "danger-full-access");
    CHECK(o.written);
    CHECK(!o.stopped);
    CHECK_STR(o.unsandboxed, "");
}

/* auto: a yes by the front end's rule (an editor's "allow always" for this command line)
 * is no person's yes to this ask → workspace-write, as an auto-approved one */
static void test_by_rule_is_confined(void)
{
    struct opts f = { .command = HEW_ANSWER_YES_BY_RULE, .unsandboxed = HEW_ANSWER_NO };
    struct outcome o;
    REQUIRE(fate(&f, &o));
    CHECK_STR(o.command_kind, "ask"); /* (its event foretold a person's yes: unconfined) */
    CHECK(!o.written);
    CHECK(o.stopped);
    CHECK(o.told_stopped);
    CHECK_STR(o.unsandboxed, "ask"); /* leaving the sandbox: a person is asked */
}

/* auto: auto-approved → workspace-write; the re-run asked once: no, then yes */
static void test_auto_approved_is_confined(void)
{
    struct opts f = { .all_commands = 1, .unsandboxed = HEW_ANSWER_NO };
    struct outcome o;
    REQUIRE(fate(&f, &o));
    CHECK_STR(o.command_kind, "say");
    CHECK_STR(o.mode, "workspace-write");
    CHECK(!o.written);
    CHECK(o.stopped);
    CHECK(o.told_stopped);
    CHECK_STR(o.unsandboxed, "ask");
    f.unsandboxed = HEW_ANSWER_YES;
    REQUIRE(fate(&f, &o));
    CHECK(o.written); /* run again, unconfined, on the person's yes */
    CHECK(o.told_again);
}

/* the user's own mode confines what a person approved too */
static void test_explicit_mode_confines_by_hand(void)
{
    struct opts f = { .mode = "workspace-write", .command = HEW_ANSWER_YES,
                      .unsandboxed = HEW_ANSWER_NO };
    struct outcome o;
    REQUIRE(fate(&f, &o));
    CHECK_STR(o.command_kind, "ask");
    CHECK_STR(o.mode, "workspace-write");
    CHECK(!o.written);
    CHECK(o.told_stopped);
    f.mode = "read-only";
    REQUIRE(fate(&f, &o));
    CHECK_STR(o.mode, "read-only");
    CHECK(!o.written);
    f.mode = "danger-full-access"; /* and the user can turn it off */
    REQUIRE(fate(&f, &o));
    CHECK(o.written);
}

/* yolo approves everything but leaving the sandbox */
static void test_yolo_still_asks_to_leave(void)
{
    struct opts f = { .yolo = 1, .unsandboxed = HEW_ANSWER_NO };
    struct outcome o;
    REQUIRE(fate(&f, &o));
    CHECK_STR(o.command_kind, "say");
    CHECK_STR(o.mode, "workspace-write");
    CHECK_STR(o.unsandboxed, "ask");
    CHECK(!o.written);
}

/* unattended: a "yes" is nobody's hand; leaving is refused unasked and recorded */
static void test_unattended(void)
{
    struct opts f = { .unattended = 1, .command = HEW_ANSWER_YES,
                      .unsandboxed = HEW_ANSWER_YES };
    struct outcome o;
    REQUIRE(fate(&f, &o));
    CHECK_STR(o.command_kind, "ask");
    CHECK(!o.written);
    CHECK_STR(o.unsandboxed, "say");
    CHECK_INT(o.denied, 1);
}

int main(void)
{
    char *report = NULL;
    hew_options o;
    hew_options_init(&o);
    if (hew_sandbox_report(&o, &report, NULL, 0) != HEW_OK || !report ||
        strstr(report, "\"error\"")) {
        printf("tools_sandbox: SKIP: no sandbox backend works here: %s\n",
               report ? report : "(no report)");
        hew_free(report);
        return 77; /* skipped (tests/CMakeLists.txt) */
    }
    hew_free(report);
    tmp = tmpdir_make("sandbox");
    if (!tmp)
        return 1;
    snprintf(ws, sizeof ws, "%s/ws", tmp);
    snprintf(outside, sizeof outside, "%s/outside", tmp);
    mkdir(ws, 0700);
    mkdir(outside, 0700);
    char tmpd[PATH_MAX];
    snprintf(tmpd, sizeof tmpd, "%s/tmp", tmp);
    mkdir(tmpd, 0700);
    setenv("TMPDIR", tmpd, 1); /* the writable temp dir is not above `outside` */
    RUN(test_by_hand_runs_unconfined);
    RUN(test_by_rule_is_confined);
    RUN(test_auto_approved_is_confined);
    RUN(test_explicit_mode_confines_by_hand);
    RUN(test_yolo_still_asks_to_leave);
    RUN(test_unattended);
    tmpdir_remove(tmp);
    free(tmp);
    return check_report();
}
