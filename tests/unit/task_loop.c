/* End-to-end tests of the agent loop through the public API (include/hew.h) against the
 * fake provider: every behaviour of the two seeds (present_assistant_message,
 * attempt_api_request) and of task_loop, observed on the events the front end gets and on
 * the request bodies the provider recorded. */
#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "taskrun.h"
#include "tmpdir.h"

/* ---- harness: taskrun (tests/support/taskrun.h) with this file's policy ------------------- */

/* What default_policy answers; the test sets them (ANSWERS_SET) while the task may run. */
static struct {
    const char *feedback; /* the answer to mistake_limit_reached (NULL: no) */
    int retry_yes;        /* how many api_req_failed to answer yes */
    int answered_retry;   /* api_req_failed answered yes so far */
} answers;

/* Set a field of answers, which the policy reads while the task may be running. */
#define ANSWERS_SET(r, field, value)                                                       \
    do {                                                                                   \
        pthread_mutex_lock(&(r)->mu);                                                      \
        answers.field = (value);                                                           \
        pthread_mutex_unlock(&(r)->mu);                                                    \
    } while (0)

static const char *ev_type(const json_t *ev)
{
    return json_string_value(json_object_get(ev, "type"));
}

static int default_policy(taskrun *r, hew_task *t, const json_t *ev)
{
    const char *type = ev_type(ev);
    pthread_mutex_lock(&r->mu); /* the test may set them while the task runs */
    const char *feedback = answers.feedback;
    int retry_yes = answers.retry_yes;
    pthread_mutex_unlock(&r->mu);
    if (strcmp(type, "followup") == 0 || strcmp(type, "plan_mode_respond") == 0)
        return hew_task_respond(t, HEW_ANSWER_MESSAGE, "blue");
    if (strcmp(type, "api_req_failed") == 0) {
        if (answers.answered_retry < retry_yes) {
            answers.answered_retry++;
            return hew_task_respond(t, HEW_ANSWER_YES, NULL);
        }
        return hew_task_respond(t, HEW_ANSWER_NO, NULL);
    }
    if (strcmp(type, "mistake_limit_reached") == 0)
        return feedback ? hew_task_respond(t, HEW_ANSWER_MESSAGE, feedback)
                           : hew_task_respond(t, HEW_ANSWER_NO, NULL);
    return hew_task_respond(t, HEW_ANSWER_YES, NULL);
}

static int run_start(taskrun *r, const char *scenario, const char *task, taskrun_tweak tweak)
{
    memset(&answers, 0, sizeof answers);
    return taskrun_start(r, &(taskrun_spec){ .scenario = scenario, .task = task,
                                             .tweak = tweak, .policy = default_policy });
}

static size_t count_type(taskrun *r, const char *type)
{
    size_t n = 0, i;
    json_t *ev;
    json_array_foreach(r->events, i, ev)
        if (strcmp(ev_type(ev), type) == 0)
            n++;
    return n;
}

/* Every text of a message's content joined (text blocks, tool_result contents). */
static void message_text(const json_t *msg, buf *out)
{
    json_t *content = json_object_get(msg, "content");
    if (json_is_string(content)) {
        buf_puts(out, json_string_value(content));
        return;
    }
    size_t i;
    json_t *b;
    json_array_foreach(content, i, b) {
        const char *text = json_string_value(json_object_get(b, "text"));
        json_t *c = json_object_get(b, "content");
        if (text)
            buf_puts(out, text);
        else if (json_is_string(c))
            buf_puts(out, json_string_value(c));
        else if (json_is_array(c))
            message_text(b, out);
        buf_putc(out, '\n');
    }
}

/* The recorded request i's message m as text (m < 0 counts from the end). */
static char *request_message_text(json_t *reqs, size_t i, long m)
{
    json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages");
    size_t n = json_array_size(msgs);
    size_t idx = m < 0 ? n - (size_t)(-m) : (size_t)m;
    buf out = BUF_INIT(0);
    message_text(json_array_get(msgs, idx), &out);
    return buf_detach(&out, NULL);
}

static size_t request_message_count(json_t *reqs, size_t i)
{
    return json_array_size(
        json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages"));
}

#define FOLLOWUP(q)                                                                        \
    "{\"protocol\":\"anthropic\",\"text\":\"Let me ask.\\n<ask_followup_question>\\n<question>" q \
    "</question>\\n</ask_followup_question>\",\"usage\":{\"input\":1000,\"output\":50}}"
#define COMPLETE(res)                                                                      \
    "{\"protocol\":\"anthropic\",\"text\":\"Done.\\n<attempt_completion>\\n<result>" res      \
    "</result>\\n</attempt_completion>\",\"usage\":{\"input\":1200,\"output\":40}}"
#define PROSE(txt) "{\"protocol\":\"anthropic\",\"text\":\"" txt "\"}"

#define LIST_DOT                                                                           \
    "{\"protocol\":\"anthropic\",\"text\":\"<list_files><path>.</path></list_files>\"}"

static void yolo(hew_options *o)
{
    o->yolo = 1;
}

/* ---- task_loop ---------------------------------------------------------------------------- */

static void test_three_turn_task_completes(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("Which color?") "," FOLLOWUP("Which size?")
                          "," COMPLETE("Painted it blue.") "]}",
                      "Paint the shed", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "Painted it blue.");
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 3);
    /* Turn 1: the task in <task>, with environment details. */
    char *first = request_message_text(reqs, 0, 0);
    CHECK(strstr(first, "<task>\nPaint the shed\n</task>") != NULL);
    CHECK(strstr(first, "<environment_details>") != NULL);
    free(first);
    /* Turn 2: the tool's result became the next user message, after the answer. */
    CHECK_INT(request_message_count(reqs, 1), 3);
    char *answer = request_message_text(reqs, 1, 1);
    CHECK(strstr(answer, "<ask_followup_question>") != NULL); /* the raw answer is kept */
    free(answer);
    char *result = request_message_text(reqs, 1, 2);
    CHECK(strstr(result, "[ask_followup_question for 'Which color?'] Result:\n<answer>\nblue\n"
                         "</answer>") != NULL);
    CHECK(strstr(result, "<environment_details>") != NULL);
    free(result);
    CHECK_INT(request_message_count(reqs, 2), 5);
    json_t *body = json_object_get(json_array_get(reqs, 2), "body");
    CHECK(json_is_array(json_object_get(body, "system"))); /* a system prompt went along */
    CHECK_INT(taskrun_count_messages(&r, "api_req_started"), 3);
    CHECK_INT(count_type(&r, "user_feedback"), 2);
    CHECK_INT(count_type(&r, "completion_result"), 2); /* the say and the ask */
    json_t *req = taskrun_last(&r, "api_req_started", 1);
    json_t *data = json_object_get(req, "data");
    CHECK_INT(json_integer_value(json_object_get(data, "tokensOut")), 40);
    /* The last request's usage reaches the front end before the completion ask. */
    long usage_at = -1, ask_at = -1;
    size_t i;
    json_t *ev;
    json_array_foreach(r.events, i, ev) {
        json_t *d = json_object_get(ev, "data");
        if (strcmp(ev_type(ev), "api_req_started") == 0 &&
            json_integer_value(json_object_get(d, "tokensOut")) == 40 && usage_at < 0)
            usage_at = (long)i;
        if (strcmp(ev_type(ev), "completion_result") == 0 &&
            strcmp(json_string_value(json_object_get(ev, "kind")), "ask") == 0)
            ask_at = (long)i;
    }
    CHECK(usage_at >= 0 && ask_at >= 0 && usage_at < ask_at);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_partial_text_streams_then_completes(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Streaming a "
                          "longer sentence word by word so the screen can follow it.\\n"
                          "<attempt_completion><result>ok</result></attempt_completion>\","
                          "\"delta_size\":4,\"delay_ms\":60}]}",
                      "stream please", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    size_t partials = 0, i;
    long index = -1;
    json_t *ev;
    json_array_foreach(r.events, i, ev) {
        if (strcmp(ev_type(ev), "text") != 0)
            continue;
        if (index < 0)
            index = (long)json_integer_value(json_object_get(ev, "index"));
        CHECK_INT(json_integer_value(json_object_get(ev, "index")), index); /* one message */
        if (json_is_true(json_object_get(ev, "partial")))
            partials++;
    }
    CHECK(partials >= 3);
    CHECK_STR(json_string_value(json_object_get(taskrun_last(&r, "text", 1), "text")),
              "Streaming a longer sentence word by word so the screen can follow it.");
    taskrun_free(&r);
}

static void test_no_tool_answer_gets_nudge(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" PROSE("I think the answer is 42.") "," COMPLETE("42")
                          "]}", "What is the answer?", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *nudge = request_message_text(reqs, 1, -1);
    CHECK(strstr(nudge, "did not use a tool") != NULL);
    CHECK(strstr(nudge, "attempt_completion") != NULL);
    free(nudge);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_mistake_limit_fails_in_yolo(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" PROSE("one") "," PROSE("two") "," PROSE("three")
                          "," COMPLETE("never") "]}", "Do it", yolo) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_FAILED);
    CHECK(strstr(hew_task_result(r.t), "mistakes") != NULL);
    json_t *reqs = fakeprov_requests(&r.fp);
    CHECK_INT(json_array_size(reqs), 3);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_mistake_limit_asks_for_feedback(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" PROSE("one") "," PROSE("two") "," PROSE("three")
                          "," COMPLETE("finally") "]}", "Do it", NULL) == 0);
    ANSWERS_SET(&r, feedback, "Just call attempt_completion.");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(count_type(&r, "mistake_limit_reached"), 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 4);
    char *fb = request_message_text(reqs, 3, -1);
    CHECK(strstr(fb, "<feedback>\nJust call attempt_completion.\n</feedback>") != NULL);
    free(fb);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_identical_calls_warn_then_hit_the_limit(void)
{
    taskrun r;
    /* The same listing five times (in yolo: approved without asking). */
    REQUIRE(run_start(&r, "{\"responses\":[" LIST_DOT "," LIST_DOT "," LIST_DOT "," LIST_DOT ","
                          LIST_DOT "," COMPLETE("never") "]}", "loop", yolo) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_FAILED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    char *second = request_message_text(reqs, 2, -1);
    CHECK(strstr(second, "[WARNING]") == NULL);
    free(second);
    char *third = request_message_text(reqs, 3, -1);
    CHECK(strstr(third, "[WARNING]") != NULL);
    CHECK(strstr(third, "3 times") != NULL);
    free(third);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_empty_answer_is_retried(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" PROSE("") "," COMPLETE("fine") "]}", "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(count_type(&r, "error_retry"), 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *placeholder = request_message_text(reqs, 1, 1);
    CHECK(strstr(placeholder, "did not give an answer") != NULL);
    free(placeholder);
    json_decref(reqs);
    taskrun_free(&r);
}

static void patient(hew_options *o)
{
    o->max_consecutive_mistakes = 10; /* so that the retries run out before the mistakes */
}

static void test_empty_answers_exhaust_retries_then_ask(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" PROSE("") "," PROSE("") "," PROSE("") "," PROSE("")
                          "]}", "x", patient) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_FAILED);
    CHECK_INT(count_type(&r, "api_req_failed"), 1);
    json_t *last = taskrun_last(&r, "error_retry", 1);
    CHECK(json_is_true(json_object_get(json_object_get(last, "data"), "failed")));
    json_t *reqs = fakeprov_requests(&r.fp);
    CHECK_INT(json_array_size(reqs), 4);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_midstream_drop_is_retried_with_marker(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Working on "
                          "it, reading everything carefully before I change anything at "
                          "all.\",\"delta_size\":8,\"close_after_bytes\":900},"
                          COMPLETE("done after the drop") "]}", "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(count_type(&r, "error_retry"), 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *partial = request_message_text(reqs, 1, 1);
    CHECK(strstr(partial, "Working on") != NULL);
    CHECK(strstr(partial, "[Answer interrupted by an API error]") != NULL);
    free(partial);
    char *note = request_message_text(reqs, 1, 2);
    CHECK(strstr(note, "cut off") != NULL);
    free(note);
    json_decref(reqs);
    taskrun_free(&r);
}

/* ---- attempt_api_request (seed 003) --------------------------------------------------- */

static void test_429_retry_after_wins_over_backoff(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"status\":429,\"headers\":{\"retry-after\":\"1\"},"
                          "\"body\":{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                          "\"message\":\"Number of request tokens has exceeded your per-minute "
                          "rate limit\"}}}," COMPLETE("ok") "]}", "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *retry = taskrun_last(&r, "error_retry", 1);
    REQUIRE(retry != NULL);
    double delay = json_number_value(json_object_get(json_object_get(retry, "data"), "delaySeconds"));
    CHECK(delay > 0.99 && delay < 1.01);
    CHECK_INT(count_type(&r, "api_req_retried"), 1);
    /* The failure is shown once: by error_retry, not again on api_req_started; once the
     * retry streams, the request is no longer marked failed (its usage counts). */
    int had_retry_status = 0;
    size_t ei;
    json_t *e;
    json_array_foreach(r.events, ei, e)
        if (strcmp(ev_type(e), "api_req_started") == 0 &&
            json_object_get(json_object_get(e, "data"), "retryStatus"))
            had_retry_status = 1;
    CHECK(had_retry_status);
    json_t *req = json_object_get(taskrun_last(&r, "api_req_started", 1), "data");
    CHECK(json_object_get(req, "streamingFailedMessage") == NULL);
    CHECK(json_object_get(req, "retryStatus") == NULL);
    CHECK(json_object_get(req, "cancelReason") == NULL);
    CHECK_INT(json_integer_value(json_object_get(req, "retries")), 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    CHECK_INT(json_array_size(reqs), 2);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_backoff_doubles_then_asks_and_user_retry_resets(void)
{
    taskrun r;
    const char *err500 = "{\"status\":500,\"body\":{\"type\":\"error\",\"error\":{\"type\":"
                         "\"api_error\",\"message\":\"Internal server error\"}}}";
    char scenario[2048];
    snprintf(scenario, sizeof scenario, "{\"responses\":[%s,%s,%s,%s,%s,%s]}", err500, err500,
             err500, err500, err500, COMPLETE("ok"));
    REQUIRE(run_start(&r, scenario, "x", NULL) == 0);
    ANSWERS_SET(&r, retry_yes, 1);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    /* 3 automatic retries at 10, 20, 40 ms, a failed notice, the ask, then the user's
     * retry opens a new round (the 5th request fails, the 6th succeeds). */
    double delays[4] = { 0 };
    size_t n = 0, i;
    json_t *ev;
    json_array_foreach(r.events, i, ev)
        if (strcmp(ev_type(ev), "error_retry") == 0 && n < 4)
            delays[n++] = json_number_value(json_object_get(json_object_get(ev, "data"),
                                                            "delaySeconds"));
    CHECK(n == 4);
    CHECK(delays[0] > 0.009 && delays[0] < 0.011);
    CHECK(delays[1] > 0.019 && delays[1] < 0.021);
    CHECK(delays[2] > 0.039 && delays[2] < 0.041);
    CHECK_INT(count_type(&r, "api_req_failed"), 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    CHECK_INT(json_array_size(reqs), 6);
    json_decref(reqs);
    taskrun_free(&r);
}

static int plan_then_retry(taskrun *r, hew_task *t, const json_t *ev)
{
    if (strcmp(ev_type(ev), "api_req_failed") == 0) {
        hew_task_set_mode(t, "plan"); /* /plan while the failed request waits */
        return hew_task_respond(t, HEW_ANSWER_YES, NULL);
    }
    return default_policy(r, t, ev);
}

/* The mode the user chose at a failed request's ask is the one the retry tells the model
 * (the retried request's environment details are made anew), in the store too. */
static void test_mode_chosen_at_a_failed_request_reaches_the_retry(void)
{
    taskrun r;
    const char *err500 = "{\"status\":500,\"body\":{\"type\":\"error\",\"error\":{\"type\":"
                         "\"api_error\",\"message\":\"Internal server error\"}}}";
    char scenario[2048];
    snprintf(scenario, sizeof scenario, "{\"responses\":[%s,%s,%s,%s,%s]}", err500, err500,
             err500, err500, COMPLETE("ok"));
    REQUIRE(run_start(&r, scenario, "x", NULL) == 0);
    taskrun_set_policy(&r, plan_then_retry);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    char *first = request_message_text(reqs, 3, -1), *retried = request_message_text(reqs, 4, -1);
    CHECK(strstr(first, "# Current Mode\nACT MODE") != NULL);
    CHECK(strstr(retried, "# Current Mode\nPLAN MODE") != NULL);
    CHECK(strstr(retried, "# Current Mode\nACT MODE") == NULL);
    free(first);
    free(retried);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_401_is_not_retried_and_explained(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"status\":401,\"body\":{\"type\":\"error\",\"error\":"
                          "{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}}]}",
                      "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_FAILED);
    CHECK_INT(count_type(&r, "error_retry"), 0);
    json_t *ask = taskrun_last(&r, "api_req_failed", 1);
    REQUIRE(ask != NULL);
    const char *text = json_string_value(json_object_get(ask, "text"));
    CHECK(text && (strstr(text, "key") || strstr(text, "Key")));
    json_t *reqs = fakeprov_requests(&r.fp);
    CHECK_INT(json_array_size(reqs), 1);
    json_decref(reqs);
    taskrun_free(&r);
}

#define TOO_LONG                                                                           \
    "{\"status\":400,\"body\":{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"," \
    "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}}"

static void test_context_window_error_truncates_once_and_succeeds(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("a?") "," FOLLOWUP("b?") "," FOLLOWUP("c?")
                          "," FOLLOWUP("d?") "," TOO_LONG "," COMPLETE("fits now") "]}",
                      "long task", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(count_type(&r, "deleted_api_reqs"), 1);
    CHECK_INT(count_type(&r, "error_retry"), 0);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 6);
    CHECK_INT(request_message_count(reqs, 4), 9);
    CHECK(request_message_count(reqs, 5) < 9);
    char *note = request_message_text(reqs, 5, 1);
    CHECK(strstr(note, "removed") != NULL);
    free(note);
    char *task = request_message_text(reqs, 5, 0);
    CHECK(strstr(task, "<task>\nlong task\n</task>") != NULL); /* the task is kept */
    free(task);
    json_decref(reqs);
    taskrun_free(&r);
}

#define BIG_FOLLOWUP(q)                                                                    \
    "{\"protocol\":\"anthropic\",\"text\":\"<ask_followup_question><question>" q                 \
    "</question></ask_followup_question>\",\"usage\":{\"input\":30000,\"output\":500}}"

/* The model described with a 32k window (an unknown one gets Cline's 128k). */
static void window_32k(hew_options *o)
{
    o->model_info = "{\"context_window\":32768}";
}

static void test_usage_over_the_window_truncates_and_goes_on(void)
{
    /* A 32k window: 30k tokens per request crosses its threshold, so the history is cut
     * (half kept) while the task goes on. */
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" BIG_FOLLOWUP("a?") "," BIG_FOLLOWUP("b?") ","
                          BIG_FOLLOWUP("c?") "," BIG_FOLLOWUP("d?") "," COMPLETE("done") "]}",
                      "a big task", window_32k) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK(taskrun_count_messages(&r, "deleted_api_reqs") >= 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    /* Without the cut the last request would hold 9 messages. */
    CHECK(request_message_count(reqs, 4) < 9);
    char *task = request_message_text(reqs, 4, 0);
    CHECK(strstr(task, "<task>\na big task\n</task>") != NULL);
    free(task);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_condense_drops_the_older_messages(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" LIST_DOT "," LIST_DOT ","
                          "{\"protocol\":\"anthropic\",\"text\":\"<condense><context>"
                          "SUMMARY-XYZ: listed the files twice.</context></condense>\"},"
                          COMPLETE("condensed and done") "]}",
                      "condense me", yolo) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(taskrun_count_messages(&r, "deleted_api_reqs"), 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 4);
    /* Without the condense the last request would hold 7 messages. */
    CHECK_INT(request_message_count(reqs, 3), 5);
    char *summary = request_message_text(reqs, 3, 3);
    CHECK(strstr(summary, "SUMMARY-XYZ") != NULL);
    free(summary);
    char *result = request_message_text(reqs, 3, 4);
    CHECK(strstr(result, "condensed") != NULL);
    free(result);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_bricked_conversation_is_explained(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" TOO_LONG "," TOO_LONG "]}", "huge", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_FAILED);
    json_t *ask = taskrun_last(&r, "api_req_failed", 1);
    REQUIRE(ask != NULL);
    CHECK(strstr(json_string_value(json_object_get(ask, "text")), "no longer fits") != NULL);
    json_t *reqs = fakeprov_requests(&r.fp);
    CHECK_INT(json_array_size(reqs), 2);
    json_decref(reqs);
    taskrun_free(&r);
}

/* ---- present_assistant_message (seed 000) ------------------------------------------------ */

static void test_thinking_tags_and_partial_tags_are_not_shown(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"deltas\":["
                          "\"<thinking>I plan\", \" things</thinking> Hello <thi\", "
                          "\"nking>more</thinking> world.\\nHere:\\n```bash\\n"
                          "<attempt_completion><result>ok</result></attempt_completion>\"],"
                          "\"delay_ms\":120}]}",
                      "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    size_t i;
    json_t *ev;
    int saw_trimmed_partial = 0;
    json_array_foreach(r.events, i, ev) {
        if (strcmp(ev_type(ev), "text") != 0)
            continue;
        const char *text = json_string_value(json_object_get(ev, "text"));
        CHECK(strstr(text, "<thinking>") == NULL && strstr(text, "</thinking>") == NULL);
        CHECK(strstr(text, "<thi") == NULL);
        if (json_is_true(json_object_get(ev, "partial")) &&
            strcmp(text, "I plan things Hello") == 0)
            saw_trimmed_partial = 1;
    }
    CHECK(saw_trimmed_partial);
    CHECK_STR(json_string_value(json_object_get(taskrun_last(&r, "text", 1), "text")),
              "I plan things Hello more world.\nHere:\n"); /* the fence's line end stays,
                                                                as Cline leaves it */
    taskrun_free(&r);
}

static void no_parallel(hew_options *o)
{
    o->parallel_tool_calls = 0;
}

#define TWO_QUESTIONS                                                                      \
    "{\"protocol\":\"anthropic\",\"text\":\"<ask_followup_question><question>First?</question>" \
    "</ask_followup_question>\\n<ask_followup_question><question>Second?</question>"       \
    "</ask_followup_question>\"}"

static void test_one_tool_per_message_when_parallel_is_off(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" TWO_QUESTIONS "," COMPLETE("ok") "]}", "x",
                      no_parallel) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(taskrun_count_messages(&r, "followup"), 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *results = request_message_text(reqs, 1, 2);
    CHECK(strstr(results, "First?") != NULL);
    /* Only the first tool ran. A question waits for the stream's end before it is asked
     * (the request's cost is shown first), so the second one has always arrived by then:
     * it gets exactly the "one tool per message" result. */
    const char *first_answer = strstr(results, "<answer>");
    CHECK(first_answer && !strstr(first_answer + 1, "<answer>"));
    CHECK(strstr(results, "Tool ask_followup_question was not run: a tool was already used in "
                          "this message, and only one tool may be used per message. Look at "
                          "the first tool's result before using the next tool.") != NULL);
    free(results);
    char *answer = request_message_text(reqs, 1, 1);
    CHECK(strstr(answer, "[Answer interrupted after a tool use") != NULL);
    free(answer);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_every_tool_runs_in_order_when_parallel_is_on(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" TWO_QUESTIONS "," COMPLETE("ok") "]}", "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(taskrun_count_messages(&r, "followup"), 2);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *results = request_message_text(reqs, 1, 2);
    char *first = strstr(results, "'First?'");
    char *second = strstr(results, "'Second?'");
    CHECK(first && second && first < second);
    free(results);
    json_decref(reqs);
    taskrun_free(&r);
}

static void native(hew_options *o)
{
    o->native_tools = 1;
    o->provider = "openai-compatible";
    o->model = "local-model";
}

static void test_native_tool_results_are_paired_by_id(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"openai-chat\",\"text\":\"Asking.\","
                          "\"tool_calls\":[{\"id\":\"call_A1\",\"name\":\"ask_followup_question\","
                          "\"arguments\":{\"question\":\"Tabs or spaces?\"}}]},"
                          "{\"protocol\":\"openai-chat\",\"tool_calls\":[{\"id\":\"call_B2\","
                          "\"name\":\"attempt_completion\",\"arguments\":{\"result\":\"Spaces.\"}}]}]}",
                      "format", native) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "Spaces.");
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    json_t *body = json_object_get(json_array_get(reqs, 1), "body");
    CHECK(json_array_size(json_object_get(body, "tools")) >= 3);
    json_t *msgs = json_object_get(body, "messages");
    int found = 0;
    size_t i;
    json_t *m;
    json_array_foreach(msgs, i, m) {
        const char *role = json_string_value(json_object_get(m, "role"));
        const char *id = json_string_value(json_object_get(m, "tool_call_id"));
        if (role && strcmp(role, "tool") == 0 && id && strcmp(id, "call_A1") == 0) {
            found = 1;
            CHECK(strstr(json_string_value(json_object_get(m, "content")), "blue") != NULL);
        }
    }
    CHECK(found);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_reasoning_is_shown_and_sent_back_signed(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"reasoning\":\"The user "
                          "wants a color. I should ask.\",\"signature\":\"sig-abc\",\"delta_size\":6,"
                          "\"delay_ms\":50,\"text\":\"<ask_followup_question><question>Color?</question>"
                          "</ask_followup_question>\"}," COMPLETE("ok") "]}",
                      "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *last = taskrun_last(&r, "reasoning", 1);
    REQUIRE(last != NULL);
    CHECK_STR(json_string_value(json_object_get(last, "text")),
              "The user wants a color. I should ask.");
    CHECK(count_type(&r, "reasoning") > taskrun_count_messages(&r, "reasoning")); /* it streamed */
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    json_t *answer = json_array_get(
        json_object_get(json_object_get(json_array_get(reqs, 1), "body"), "messages"), 1);
    json_t *first = json_array_get(json_object_get(answer, "content"), 0);
    CHECK_STR(json_string_value(json_object_get(first, "type")), "thinking");
    CHECK_STR(json_string_value(json_object_get(first, "signature")), "sig-abc");
    json_decref(reqs);
    taskrun_free(&r);
}

static int reject_edits_policy(taskrun *r, hew_task *t, const json_t *ev)
{
    if (strcmp(ev_type(ev), "tool") == 0)
        return hew_task_respond(t, HEW_ANSWER_NO, "Use b.txt instead.");
    return default_policy(r, t, ev);
}

static char workspace[256];

static void in_workspace(hew_options *o)
{
    o->cwd = workspace;
}

static void test_rejection_with_feedback_skips_the_rest(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-task-loop-XXXXXX");
    REQUIRE(mkdtemp(workspace) != NULL);
    taskrun r;
    /* One chunk: the question is there before the rejection (deterministic). */
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"deltas\":[\"I will create "
                          "it.\\n<write_to_file><path>a.txt</path><content>hi</content>"
                          "</write_to_file>\\nAnd then more words.\\n<ask_followup_question><question>"
                          "Next?</question></ask_followup_question>\"]}," COMPLETE("b.txt it is") "]}",
                      "create a file", in_workspace) == 0);
    taskrun_set_policy(&r, reject_edits_policy);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    char path[300];
    snprintf(path, sizeof path, "%s/a.txt", workspace);
    CHECK(access(path, F_OK) != 0); /* rejected: nothing written */
    CHECK_INT(taskrun_count_messages(&r, "followup"), 0);
    size_t i;
    json_t *ev;
    json_array_foreach(r.events, i, ev) {
        const char *text = json_string_value(json_object_get(ev, "text"));
        if (strcmp(ev_type(ev), "text") == 0)
            CHECK(!strstr(text, "more words")); /* text after a rejected tool is skipped */
    }
    CHECK(taskrun_last(&r, "user_feedback", 1) != NULL);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *results = request_message_text(reqs, 1, 2);
    CHECK(strstr(results, "The user denied this operation.") != NULL);
    CHECK(strstr(results, "Use b.txt instead.") != NULL);
    CHECK(strstr(results, "[ask_followup_question for 'Next?'] was skipped because the user "
                          "rejected an earlier tool of this message.") != NULL);
    free(results);
    char *answer = request_message_text(reqs, 1, 1);
    CHECK(strstr(answer, "[Answer interrupted by the user's feedback]") != NULL);
    free(answer);
    json_decref(reqs);
    taskrun_free(&r);
    rmdir(workspace);
}

static char ckpt_data[300];

static void with_checkpoints(hew_options *o)
{
    o->cwd = workspace;
    o->checkpoints = 1;
    o->data_dir = ckpt_data;
}

static void test_checkpoints_follow_the_task(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-ckpt-ws-XXXXXX");
    REQUIRE(mkdtemp(workspace) != NULL);
    snprintf(ckpt_data, sizeof ckpt_data, "/tmp/hew-ckpt-data-XXXXXX");
    REQUIRE(mkdtemp(ckpt_data) != NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/notes.txt", workspace);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("first\n", f);
    fclose(f);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"<write_to_file>"
                          "<path>notes.txt</path><content>second</content></write_to_file>\"},"
                          COMPLETE("edited") "]}",
                      "edit the notes", with_checkpoints) == 0);
    taskrun_set_policy(&r, default_policy);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    /* initial, after the edit, at completion: each with its commit */
    CHECK_INT(taskrun_count_messages(&r, "checkpoint_created"), 3);
    size_t with_hash = 0, i;
    json_t *ev;
    json_array_foreach(r.events, i, ev)
        if (strcmp(ev_type(ev), "checkpoint_created") == 0 &&
            json_string_value(json_object_get(json_object_get(ev, "data"), "hash")))
            with_hash++;
    CHECK_INT(with_hash, 3);
    /* the shadow repository lives in hew's data folder, never in the workspace */
    snprintf(path, sizeof path, "%s/.git", workspace);
    CHECK(access(path, F_OK) != 0);
    taskrun_free(&r);
    tmpdir_remove(workspace);
    tmpdir_remove(ckpt_data);
}

static void test_interrupted_task_resumes_with_its_history(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Reading the "
                          "whole thing carefully first, this takes a while\",\"delta_size\":4,"
                          "\"stall_after_bytes\":700,\"stall_ms\":30000},"
                          COMPLETE("finished after the resume") "]}",
                      "a long job", NULL) == 0);
    /* the text streams 4 bytes at a time: the first text event may be only "Read" */
    CHECK(taskrun_wait_event(&r, "text", "Reading"));
    hew_task_abort(r.t, "the laptop lid closed");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(r.t));
    hew_task_free(r.t);
    size_t before = json_array_size(r.events);

    /* The same session resumes it: the history is replayed, the user is asked, and the
     * model gets the conversation so far plus the resumption note. */
    ANSWERS_SET(&r, feedback, NULL);
    taskrun_set_policy(&r, default_policy);
    char err[256];
    (void)hew_task_resume(r.s, id, &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "finished after the resume");
    CHECK_STR(hew_task_id(r.t), id);
    int replayed_task = 0, asked = 0;
    for (size_t i = before; i < json_array_size(r.events); i++) {
        json_t *ev = json_array_get(r.events, i);
        if (strcmp(ev_type(ev), "task") == 0)
            replayed_task = 1;
        if (strcmp(ev_type(ev), "resume_task") == 0)
            asked = 1;
    }
    CHECK(replayed_task && asked);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *task = request_message_text(reqs, 1, 0);
    CHECK(strstr(task, "<task>\na long job\n</task>") != NULL);
    free(task);
    char *partial = request_message_text(reqs, 1, 1);
    CHECK(strstr(partial, "Reading") != NULL);
    CHECK(strstr(partial, "[Answer interrupted by the user]") != NULL);
    free(partial);
    char *note = request_message_text(reqs, 1, -1);
    CHECK(strstr(note, "[TASK RESUMPTION]") != NULL);
    free(note);
    json_decref(reqs);
    taskrun_free(&r);
}

/* A `git` first on PATH that makes the shadow repository's write-tree slow and writes the
 * time it finished (ms since the epoch) into the file done. */
static void install_slow_git(const char *dir, const char *done)
{
    char path[400];
    snprintf(path, sizeof path, "%s/git", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    /* git gets only PATH from hew, so the stamp file's name is written into the script */
    fprintf(f,
            "#!/bin/sh\n"
            "real=$(PATH=/usr/local/bin:/usr/bin:/bin command -v git)\n"
            "case \" $* \" in *\" write-tree\"*)\n"
            "  sleep 1; \"$real\" \"$@\"; rc=$?\n"
            "  [ -e '%s' ] || date +%%s%%3N > '%s'\n"
            "  exit $rc;;\n"
            "esac\n"
            "exec \"$real\" \"$@\"\n",
            done, done);
    fclose(f);
    chmod(path, 0755);
}

static long long event_ts(taskrun *r, const char *tool)
{
    size_t i;
    json_t *ev;
    json_array_foreach(r->events, i, ev) {
        const char *t = json_string_value(json_object_get(json_object_get(ev, "data"), "tool"));
        if (strcmp(ev_type(ev), "tool") == 0 && t && strcmp(t, tool) == 0)
            return json_integer_value(json_object_get(ev, "ts"));
    }
    return -1;
}

static void yolo_with_checkpoints(hew_options *o)
{
    with_checkpoints(o);
    o->yolo = 1;
}

static void test_changing_tools_wait_for_the_initial_checkpoint(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-ckgate-ws-XXXXXX");
    REQUIRE(mkdtemp(workspace) != NULL);
    snprintf(ckpt_data, sizeof ckpt_data, "/tmp/hew-ckgate-data-XXXXXX");
    REQUIRE(mkdtemp(ckpt_data) != NULL);
    char bin[320], done[420], path[400];
    snprintf(bin, sizeof bin, "%s/bin", ckpt_data);
    REQUIRE(mkdir(bin, 0755) == 0);
    snprintf(done, sizeof done, "%s/git-done", ckpt_data);
    install_slow_git(bin, done);
    snprintf(path, sizeof path, "%s/notes.txt", workspace);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("notes\n", f);
    fclose(f);
    const char *old_path = getenv("PATH");
    char *saved = strdup(old_path ? old_path : "/usr/bin:/bin");
    char new_path[1200];
    snprintf(new_path, sizeof new_path, "%s:%s", bin, saved);
    setenv("PATH", new_path, 1);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\""
                          "<read_file><path>notes.txt</path></read_file>\\n"
                          "<write_to_file><path>new.txt</path><content>x</content>"
                          "</write_to_file>\"}," COMPLETE("ok") "]}",
                      "read then write", yolo_with_checkpoints) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    setenv("PATH", saved, 1);
    free(saved);
    FILE *d = fopen(done, "r");
    long long done_ms = -1;
    if (d) {
        if (fscanf(d, "%lld", &done_ms) != 1)
            done_ms = -1;
        fclose(d);
    }
    long long read_ms = event_ts(&r, "readFile"), write_ms = event_ts(&r, "newFileCreated");
    fprintf(stderr, "read at 0 ms, initial commit done at +%lld ms, write at +%lld ms\n",
            done_ms - read_ms, write_ms - read_ms);
    CHECK(done_ms > 0 && read_ms > 0 && write_ms > 0);
    CHECK(read_ms < done_ms);   /* the read-only tool did not wait */
    CHECK(write_ms >= done_ms); /* the changing one waited for the commit */
    taskrun_free(&r);
    tmpdir_remove(workspace);
    tmpdir_remove(ckpt_data);
}

static void strict_plan(hew_options *o)
{
    o->cwd = workspace;
    o->mode = "plan";
    o->strict_plan = 1;
    o->yolo = 1;
}

static void test_strict_plan_refuses_edits(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-task-strict-XXXXXX");
    REQUIRE(mkdtemp(workspace) != NULL);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\""
                          "<write_to_file><path>plan.txt</path><content>x</content>"
                          "</write_to_file>\"}," COMPLETE("planned") "]}",
                      "plan it", strict_plan) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    char path[400];
    snprintf(path, sizeof path, "%s/plan.txt", workspace);
    CHECK(access(path, F_OK) != 0);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *results = request_message_text(reqs, 1, -1);
    CHECK(strstr(results, "not available in PLAN MODE") != NULL);
    free(results);
    json_decref(reqs);
    taskrun_free(&r);
    tmpdir_remove(workspace);
}

/* attempt_completion's result under its alias (`response`, as some models write it)
 * counts as the required `result`: no missing-parameter retry, the task completes with it. */
static void test_completion_result_by_alias(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\""
                          "<attempt_completion><response>Said as response.</response>"
                          "</attempt_completion>\"}]}",
                      "finish", yolo) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "Said as response.");
    json_t *reqs = fakeprov_requests(&r.fp);
    CHECK_INT((int)json_array_size(reqs), 1);
    json_decref(reqs);
    taskrun_free(&r);
}

static int system_prompt_has(taskrun *r, const char *needle)
{
    json_t *reqs = fakeprov_requests(&r->fp);
    json_t *system = json_object_get(json_object_get(json_array_get(reqs, 0), "body"), "system");
    char *dump = json_dumps(system, JSON_COMPACT);
    int found = dump && strstr(dump, needle) != NULL;
    free(dump);
    json_decref(reqs);
    return found;
}

static void in_german(hew_options *o)
{
    o->language = "German";
}

static void test_preferred_language_reaches_the_prompt(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" COMPLETE("ok") "]}", "x", in_german) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK(system_prompt_has(&r, "German"));
    taskrun_free(&r);
}

static void no_agents_rules(hew_options *o)
{
    o->cwd = workspace;
    o->rules_agents = 0;
}


static void test_rule_sources_can_be_turned_off(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-task-rules-XXXXXX");
    REQUIRE(mkdtemp(workspace) != NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/AGENTS.md", workspace);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("Always name variables in snake_case.\n", f);
    fclose(f);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" COMPLETE("ok") "]}", "x", in_workspace) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK(system_prompt_has(&r, "Always name variables in snake_case."));
    taskrun_free(&r);
    REQUIRE(run_start(&r, "{\"responses\":[" COMPLETE("ok") "]}", "x", no_agents_rules) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK(!system_prompt_has(&r, "Always name variables in snake_case."));
    taskrun_free(&r);
    tmpdir_remove(workspace);
}

static void test_workflow_reaches_the_request(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-task-wf-XXXXXX");
    REQUIRE(mkdtemp(workspace) != NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/.clinerules/workflows", workspace);
    char cmd_dir[400];
    snprintf(cmd_dir, sizeof cmd_dir, "%s/.clinerules", workspace);
    REQUIRE(mkdir(cmd_dir, 0755) == 0 && mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/.clinerules/workflows/release.md", workspace);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("Bump the version number, then tag the release.\n", f);
    fclose(f);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" COMPLETE("released") "]}", "/release v2.1",
                      in_workspace) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 1);
    char *first = request_message_text(reqs, 0, 0);
    CHECK(strstr(first, "Bump the version number, then tag the release.") != NULL);
    CHECK(strstr(first, "explicit_instructions") != NULL);
    CHECK(strstr(first, "v2.1") != NULL);
    free(first);
    json_decref(reqs);
    taskrun_free(&r);
    tmpdir_remove(workspace);
}

static int edit_outside_policy(taskrun *r, hew_task *t, const json_t *ev)
{
    if (strcmp(ev_type(ev), "followup") == 0) { /* the user edits the file meanwhile */
        char path[400];
        snprintf(path, sizeof path, "%s/notes.txt", workspace);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs("changed by the user, and longer than before\n", f);
            fclose(f);
        }
    }
    return default_policy(r, t, ev);
}

static void test_files_changed_outside_are_reported(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-task-chg-XXXXXX");
    REQUIRE(mkdtemp(workspace) != NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/notes.txt", workspace);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("original\n", f);
    fclose(f);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\""
                          "<read_file><path>notes.txt</path></read_file>\\n"
                          "<ask_followup_question><question>Edit it?</question>"
                          "</ask_followup_question>\"}," COMPLETE("ok") "]}",
                      "look at the notes", in_workspace) == 0);
    taskrun_set_policy(&r, edit_outside_policy);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *second = request_message_text(reqs, 1, -1);
    char *section = strstr(second, "# Recently Modified Files");
    CHECK(section != NULL && strstr(section, "notes.txt") != NULL);
    free(second);
    char *first = request_message_text(reqs, 0, -1);
    CHECK(strstr(first, "Recently Modified") == NULL);
    free(first);
    json_decref(reqs);
    taskrun_free(&r);
    tmpdir_remove(workspace);
}

static int plan_then_act_policy(taskrun *r, hew_task *t, const json_t *ev)
{
    if (strcmp(ev_type(ev), "plan_mode_respond") == 0) {
        hew_task_set_mode(t, "act"); /* the user switches, then lets the plan go ahead */
        return hew_task_respond(t, HEW_ANSWER_YES, NULL);
    }
    return default_policy(r, t, ev);
}

static void plan_mode(hew_options *o)
{
    o->mode = "plan";
}

static void test_plan_mode_then_act(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\""
                          "<plan_mode_respond><response>Plan: 1. read 2. fix</response>"
                          "</plan_mode_respond>\"}," COMPLETE("fixed") "]}",
                      "fix the bug", plan_mode) == 0);
    taskrun_set_policy(&r, plan_then_act_policy);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *first = request_message_text(reqs, 0, -1);
    CHECK(strstr(first, "PLAN MODE") != NULL);
    free(first);
    char *second = request_message_text(reqs, 1, -1);
    CHECK(strstr(second, "# Current Mode\nACT MODE") != NULL);
    CHECK(strstr(second, "ACT MODE: carry out the plan") != NULL);
    free(second);
    json_decref(reqs);
    taskrun_free(&r);
}

/* ---- abort ----------------------------------------------------------------------------------
 * How fast an abort acts is for benches to measure; these check what it does: the stream
 * is cut while the provider still stalls, the command is killed before it ends, the ask
 * stops waiting (a wait that never ended would hang the test until ctest's timeout). */

static void test_abort_during_stream(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\"Thinking very "
                          "hard about this for a long while\",\"delta_size\":4,"
                          "\"stall_after_bytes\":700,\"stall_ms\":30000}]}",
                      "x", NULL) == 0);
    CHECK(taskrun_wait_event(&r, "text", NULL));
    hew_task_abort(r.t, "stop now");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    CHECK_STR(hew_task_result(r.t), "stop now");
    /* hew closed the connection during the stall: an abort that waited for the stream
     * would have let the provider send the rest ("complete") */
    json_t *o = fakeprov_wait_outcome(&r.fp, 0, 60);
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
    CHECK_INT(json_integer_value(json_object_get(o, "bytes_sent")), 700);
    json_decref(o);
    taskrun_free(&r);
}

static char abort_marker[300];

static void auto_commands(hew_options *o)
{
    o->auto_approve_safe_commands = 1;
    o->auto_approve_all_commands = 1;
    o->sandbox_mode = "danger-full-access";
}

/* Whether a live process's command line holds needle (a zombie's is empty). */
static int process_with(const char *needle)
{
    DIR *proc = opendir("/proc");
    int found = 0;
    struct dirent *e;
    while (proc && !found && (e = readdir(proc))) {
        char path[300], cmd[4096];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
        if (f)
            fclose(f);
        for (size_t i = 0; i < n; i++)
            if (!cmd[i])
                cmd[i] = ' ';
        cmd[n] = '\0';
        found = strstr(cmd, needle) != NULL;
    }
    if (proc)
        closedir(proc);
    return found;
}

static void test_abort_during_a_command(void)
{
    char *dir = tmpdir_make("abort-cmd");
    REQUIRE(dir != NULL);
    snprintf(abort_marker, sizeof abort_marker, "%s/ran-to-the-end", dir);
    char scenario[1024];
    snprintf(scenario, sizeof scenario,
             "{\"responses\":[{\"protocol\":\"anthropic\",\"text\":\""
             "<execute_command><command>sleep 30; touch %s</command><requires_approval>true"
             "</requires_approval></execute_command>\"}]}",
             abort_marker);
    taskrun r;
    REQUIRE(run_start(&r, scenario, "wait", auto_commands) == 0);
    CHECK(taskrun_wait_event(&r, "command", NULL));
    int running = 0; /* it runs (the event comes as it starts): 20 s at most */
    for (int i = 0; i < 400 && !(running = process_with(abort_marker)); i++)
        nanosleep(&(struct timespec){ 0, 50 * 1000000L }, NULL);
    CHECK(running);
    hew_task_abort(r.t, "enough");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    /* killed: not run to its end (an abort that waited for it), and not left running */
    struct stat st;
    CHECK(stat(abort_marker, &st) != 0);
    CHECK(!process_with(abort_marker));
    taskrun_free(&r);
    tmpdir_remove(dir);
    free(dir);
}

static void test_abort_during_ask(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("Are you there?") "]}", "x", NULL) == 0);
    taskrun_hold_asks(&r, 1);
    CHECK(taskrun_wait_event(&r, "followup", NULL));
    hew_task_abort(r.t, NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    CHECK_INT(hew_task_respond(r.t, HEW_ANSWER_YES, NULL), HEW_E_STATE); /* nothing pending now */
    taskrun_free(&r);
}

int main(void)
{
    RUN(test_three_turn_task_completes);
    RUN(test_partial_text_streams_then_completes);
    RUN(test_no_tool_answer_gets_nudge);
    RUN(test_mistake_limit_fails_in_yolo);
    RUN(test_mistake_limit_asks_for_feedback);
    RUN(test_identical_calls_warn_then_hit_the_limit);
    RUN(test_empty_answer_is_retried);
    RUN(test_empty_answers_exhaust_retries_then_ask);
    RUN(test_midstream_drop_is_retried_with_marker);
    RUN(test_429_retry_after_wins_over_backoff);
    RUN(test_backoff_doubles_then_asks_and_user_retry_resets);
    RUN(test_mode_chosen_at_a_failed_request_reaches_the_retry);
    RUN(test_401_is_not_retried_and_explained);
    RUN(test_context_window_error_truncates_once_and_succeeds);
    RUN(test_bricked_conversation_is_explained);
    RUN(test_usage_over_the_window_truncates_and_goes_on);
    RUN(test_condense_drops_the_older_messages);
    RUN(test_thinking_tags_and_partial_tags_are_not_shown);
    RUN(test_one_tool_per_message_when_parallel_is_off);
    RUN(test_every_tool_runs_in_order_when_parallel_is_on);
    RUN(test_native_tool_results_are_paired_by_id);
    RUN(test_reasoning_is_shown_and_sent_back_signed);
    RUN(test_rejection_with_feedback_skips_the_rest);
    RUN(test_checkpoints_follow_the_task);
    RUN(test_changing_tools_wait_for_the_initial_checkpoint);
    RUN(test_workflow_reaches_the_request);
    RUN(test_strict_plan_refuses_edits);
    RUN(test_completion_result_by_alias);
    RUN(test_rule_sources_can_be_turned_off);
    RUN(test_preferred_language_reaches_the_prompt);
    RUN(test_plan_mode_then_act);
    RUN(test_files_changed_outside_are_reported);
    RUN(test_interrupted_task_resumes_with_its_history);
    RUN(test_abort_during_stream);
    RUN(test_abort_during_a_command);
    RUN(test_abort_during_ask);
    return check_report();
}
