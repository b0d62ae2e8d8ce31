/* Tests for --record through the library (hew_options.record_dir) across sessions of one
 * process, as the terminal uses it: it replaces its session when the model or the mode
 * changes, the new one made while the old still lives. Both sessions share the
 * recording: the second task's exchanges are numbered on (0002 after 0001, nothing
 * written over) and session.json describes the first task only. A session of a later
 * run naming the same folder is refused. A model the session described (model_info) is
 * kept in session.json, and hew_replay_apply gives it back with the recorded task id,
 * clock and a base URL on 127.0.0.1. Its server answers a request to another path with
 * a 400 naming the request and both paths, and every later request the same (the first
 * difference sticks), and the verdict says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "net/http.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "tmpdir.h"

static void on_event(void *ud, hew_task *task, const hew_event *ev)
{
    (void)ud;
    if (ev->is_ask && !ev->partial && ev->kind == HEW_EV_COMPLETION_RESULT)
        hew_task_respond(task, HEW_ANSWER_YES, NULL);
}

static hew_session *session(const char *url, const char *ws, const char *rec, char *err,
                            size_t errlen)
{
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-sonnet-4-5";
    o.api_key = "sk-ant-unit-record-0123456789abcdef";
    o.base_url = url;
    o.cwd = ws;
    o.native_tools = 0;
    o.persist = 0;
    o.checkpoints = 0;
    o.mcp = 0;
    o.record_dir = rec;
    o.model_info = "{\"context_window\": 1234567, \"max_output\": 4321}";
    o.on_event = on_event;
    hew_session *s = NULL;
    return hew_session_new(&o, &s, err, errlen) == HEW_OK ? s : NULL;
}

static void run(hew_session *s, const char *text)
{
    hew_task *t = NULL;
    char err[512] = "";
    REQUIRE(hew_task_start(s, text, &t, err, sizeof err) == HEW_OK);
    CHECK_INT(hew_task_wait(t), HEW_TASK_COMPLETED);
    hew_task_free(t);
}

static char *read_in(const char *dir, const char *name)
{
    char path[1024], *text = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fs_read_file(path, 1 << 24, &text, NULL, NULL) == HEW_OK ? text : NULL;
}

static void sessions_share_a_recording(void)
{
    fakeprov fp;
    const char *scenario =
        "{\"responses\": ["
        "{\"protocol\": \"anthropic\", \"text\": \"<attempt_completion>\\n<result>one</result>\\n</attempt_completion>\"},"
        "{\"protocol\": \"anthropic\", \"text\": \"<attempt_completion>\\n<result>two</result>\\n</attempt_completion>\"}]}";
    REQUIRE(fakeprov_start(&fp, scenario) == 0);
    char *dir = tmpdir_make("lib-record");
    char ws[512], rec[512], err[512] = "";
    snprintf(ws, sizeof ws, "%s/ws", dir);
    snprintf(rec, sizeof rec, "%s/rec", dir);
    CHECK(fs_mkdirs(ws, 0700, NULL) == HEW_OK);

    hew_session *a = session(fp.url, ws, rec, err, sizeof err);
    REQUIRE(a);
    run(a, "first task");
    hew_session *b = session(fp.url, ws, rec, err, sizeof err); /* while a lives */
    if (!b)
        check_fail(__FILE__, __LINE__, "a second session on the same recording: %s", err);
    check_count++;
    hew_session_free(a);
    if (b) {
        run(b, "second task");
        hew_session_free(b);
    }

    char *m = read_in(rec, "session.json"), *one = read_in(rec, "0001.request"),
         *two = read_in(rec, "0002.request"), *three = read_in(rec, "0003.json");
    CHECK(m && strstr(m, "\"task\": \"first task\"") != NULL);
    CHECK(m && strstr(m, "\"context_window\": 1234567") != NULL);
    CHECK(one && strstr(one, "first task") != NULL);
    CHECK(two && strstr(two, "second task") != NULL);
    CHECK(three == NULL);
    free(m);
    free(one);
    free(two);
    free(three);

    /* what a replay of it runs with */
    hew_replay *r = NULL;
    REQUIRE(hew_replay_open(rec, &r, err, sizeof err) == HEW_OK);
    hew_options o;
    hew_options_init(&o);
    hew_replay_apply(r, &o);
    CHECK(o.model_info && strstr(o.model_info, "1234567") != NULL);
    CHECK(o.base_url && strncmp(o.base_url, "http://127.0.0.1:", 17) == 0);
    CHECK(o.clock_s != NULL && o.task_id != NULL && o.persist == 0 && o.checkpoints == 0);
    CHECK_STR(hew_replay_task_text(r), "first task");
    long matched = -1;
    CHECK(hew_replay_finish(r, &matched, err, sizeof err) == HEW_E_STALE); /* nothing ran */
    CHECK_INT(matched, 0);
    CHECK(strstr(err, "request 1 was never sent") != NULL);
    hew_replay_free(r);

    /* a request to another path than the recorded one is refused, and so is the next */
    REQUIRE(hew_replay_open(rec, &r, err, sizeof err) == HEW_OK);
    hew_options_init(&o);
    hew_replay_apply(r, &o);
    char url[600];
    snprintf(url, sizeof url, "%s/v1/elsewhere", o.base_url);
    for (int i = 0; i < 2; i++) {
        http_request req = http_request_defaults();
        req.url = url;
        req.body = "{}";
        req.body_len = 2;
        buf body = BUF_INIT(1 << 20);
        http_response resp = HTTP_RESPONSE_INIT;
        CHECK(http_perform_collect(&req, &resp, &body, NULL) == HEW_OK);
        CHECK_INT(resp.status, 400);
        CHECK(body.data && strstr(body.data, "hew replay: request 1 differs from the recording: "
                                             "hew sent POST /v1/elsewhere, the recording has "
                                             "POST /v1/messages") != NULL);
        http_response_release(&resp);
        buf_release(&body);
    }
    CHECK(hew_replay_finish(r, &matched, err, sizeof err) == HEW_E_STALE);
    CHECK_INT(matched, 0);
    CHECK(strstr(err, "hew sent POST /v1/elsewhere") != NULL);
    hew_replay_free(r);

    /* a later run: the folder holds a recording */
    hew_session *c = session(fp.url, ws, rec, err, sizeof err);
    CHECK(c == NULL);
    CHECK(strstr(err, "already holds a recording") != NULL);
    hew_session_free(c);

    fakeprov_stop(&fp);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    RUN(sessions_share_a_recording);
    return check_report();
}
