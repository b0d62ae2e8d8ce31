/* Tests of the user's hooks in a running task through the library, with a front end that
 * answers asks (what hew -p cannot do): a message typed as the answer to the
 * completion_result ask is a prompt for the UserPromptSubmit hooks — a refused one is not
 * said, stored or sent, the reason is an error event and the same ask comes again; an
 * accepted one goes to the model with the hook's context. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "tmpdir.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int completion_asks;
static int refusals_seen;
static int forbidden_said;

static void on_event(void *ud, hew_task *task, const hew_event *ev)
{
    (void)ud;
    pthread_mutex_lock(&mu);
    if (ev->text && strstr(ev->text, "forbidden words") && ev->kind != HEW_EV_ERROR)
        forbidden_said++;
    if (ev->kind == HEW_EV_ERROR && ev->text && strstr(ev->text, "no forbidden prompts"))
        refusals_seen++;
    int n = 0;
    if (ev->is_ask && !ev->partial && ev->kind == HEW_EV_COMPLETION_RESULT)
        n = ++completion_asks;
    pthread_mutex_unlock(&mu);
    if (n == 1)
        hew_task_respond(task, HEW_ANSWER_MESSAGE, "please use forbidden words");
    else if (n == 2)
        hew_task_respond(task, HEW_ANSWER_MESSAGE, "please add a test");
    else if (n > 2)
        hew_task_respond(task, HEW_ANSWER_YES, NULL);
    else if (ev->is_ask && !ev->partial && ev->kind != HEW_EV_COMPLETION_RESULT)
        hew_task_respond(task, HEW_ANSWER_NO, NULL); /* anything else (a failed request
                                                        once the scenario ran out): end */
}

static void test_feedback_prompt(void)
{
    char *tmp = tmpdir_make("taskhooks");
    REQUIRE(tmp);
    fakeprov fp;
    const char *done = "<attempt_completion>\\n<result>done</result>\\n</attempt_completion>";
    char scenario[1024];
    snprintf(scenario, sizeof scenario,
             "{\"responses\": [{\"protocol\": \"anthropic\", \"text\": \"%s\"}, "
             "{\"protocol\": \"anthropic\", \"text\": \"%s\"}]}", done, done);
    if (fakeprov_start(&fp, scenario) != 0) {
        check_fail(__FILE__, __LINE__, "fake provider did not start");
        tmpdir_remove(tmp);
        free(tmp);
        return;
    }
    setenv("HOME", tmp, 1);
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-sonnet-4-5";
    o.api_key = "sk-ant-unit-hooks-0123456789abcdef";
    o.base_url = fp.url;
    o.cwd = tmp;
    o.native_tools = 0;
    o.persist = 0;
    o.checkpoints = 0;
    o.mcp = 0;
    o.on_event = on_event;
    o.hooks = "{\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": "
              "\"if grep -q forbidden; then echo no forbidden prompts >&2; exit 2; fi; "
              "echo ctx-from-hook-77\"}]}]}";
    char err[512] = "";
    hew_session *s = NULL;
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    hew_task *t = NULL;
    REQUIRE(hew_task_start(s, "write the thing", &t, err, sizeof err) == HEW_OK);
    CHECK_INT(hew_task_wait(t), HEW_TASK_COMPLETED);
    hew_task_free(t);
    hew_session_free(s);
    json_t *reqs = fakeprov_requests(&fp);
    fakeprov_stop(&fp);
    CHECK_INT(json_array_size(reqs), 2);
    char *second = json_dumps(json_array_get(reqs, 1), 0);
    CHECK(second && strstr(second, "please add a test"));     /* the accepted answer */
    CHECK(second && strstr(second, "ctx-from-hook-77"));      /* with the hook's context */
    CHECK(second && !strstr(second, "forbidden words"));      /* the refused one: never sent */
    free(second);
    json_decref(reqs);
    CHECK_INT(completion_asks, 3); /* the refused answer: the same ask again */
    CHECK_INT(refusals_seen, 1);
    CHECK_INT(forbidden_said, 0);
    tmpdir_remove(tmp);
    free(tmp);
}

int main(void)
{
    RUN(test_feedback_prompt);
    return check_report();
}
