/* Unit tests of the interactive tools (attempt_completion, ask_followup_question,
 * plan_mode_respond) through a scripted tool_env. */
#include <string.h>

#include "check.h"
#include "toolenv.h"

extern const tool_def tool_attempt_completion;
extern const tool_def tool_ask_followup_question;
extern const tool_def tool_plan_mode_respond;

static void test_completion_accepted(void)
{
    toolenv te;
    toolenv_init(&te, "/tmp");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_attempt_completion, &r, "result", "It works.", NULL), HEW_OK);
    CHECK(te.completed);
    CHECK_STR(te.completion, "It works.");
    CHECK_INT(toolenv_count(&te, "say", "completion_result"), 1);
    CHECK_INT(toolenv_count(&te, "ask", "completion_result"), 1);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_completion_feedback_continues(void)
{
    toolenv te;
    toolenv_init(&te, "/tmp");
    toolenv_answer(&te, "message", "Also update the README.");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_attempt_completion, &r, "result", "Done.", NULL), HEW_OK);
    CHECK(!te.completed);
    CHECK(strstr(r.text.data, "<feedback>\nAlso update the README.\n</feedback>") != NULL);
    CHECK_INT(toolenv_count(&te, "say", "user_feedback"), 1);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_completion_in_yolo_needs_no_ask(void)
{
    toolenv te;
    toolenv_init(&te, "/tmp");
    te.env.yolo = true;
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_attempt_completion, &r, "result", "ok", NULL), HEW_OK);
    CHECK(te.completed);
    CHECK_INT(toolenv_count(&te, "ask", NULL), 0);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_followup_answer_and_options(void)
{
    toolenv te;
    toolenv_init(&te, "/tmp");
    toolenv_answer(&te, "message", "Option B");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_ask_followup_question, &r, "question", "Which one?",
                          "options", "[\"Option A\", \"Option B\"]", NULL),
              HEW_OK);
    CHECK_STR(r.text.data, "<answer>\nOption B\n</answer>");
    json_t *ask = toolenv_last(&te, "ask", "followup");
    REQUIRE(ask != NULL);
    json_t *opts = json_object_get(json_object_get(ask, "data"), "options");
    CHECK_INT(json_array_size(opts), 2);
    buf_release(&r.text);
    /* Options that are not a JSON array are left out, the question still goes. */
    toolenv_answer(&te, "message", "x");
    CHECK_INT(toolenv_run(&te, &tool_ask_followup_question, &r, "question", "Q?", "options",
                          "A, B", NULL),
              HEW_OK);
    ask = toolenv_last(&te, "ask", "followup");
    CHECK(json_object_get(json_object_get(ask, "data"), "options") == NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

/* A yes or no with nothing typed never sends the model an empty answer. */
static void test_empty_answers_say_what_happened(void)
{
    toolenv te;
    toolenv_init(&te, "/tmp");
    te.mode = MODE_PLAN;
    tool_result r;
    toolenv_answer(&te, "no", NULL);
    CHECK_INT(toolenv_run(&te, &tool_ask_followup_question, &r, "question", "Q?", NULL), HEW_OK);
    CHECK_STR(r.text.data, "[The user declined to answer this question. Go on without it, or "
                           "ask in another way.]");
    buf_release(&r.text);
    toolenv_answer(&te, "yes", NULL);
    CHECK_INT(toolenv_run(&te, &tool_ask_followup_question, &r, "question", "Q?", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "gave no answer") != NULL);
    buf_release(&r.text);
    toolenv_answer(&te, "yes", NULL);
    CHECK_INT(toolenv_run(&te, &tool_plan_mode_respond, &r, "response", "Plan.", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "nothing to add") != NULL);
    buf_release(&r.text);
    toolenv_answer(&te, "no", NULL);
    CHECK_INT(toolenv_run(&te, &tool_plan_mode_respond, &r, "response", "Plan.", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "does not agree") != NULL);
    buf_release(&r.text);
    CHECK_INT(toolenv_count(&te, "say", "user_feedback"), 0);
    toolenv_release(&te);
}

static void test_followup_in_yolo_tells_the_model_to_decide(void)
{
    toolenv te;
    toolenv_init(&te, "/tmp");
    te.env.yolo = true;
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_ask_followup_question, &r, "question", "Q?", NULL), HEW_OK);
    CHECK(strstr(r.text.data, "Decide") != NULL);
    CHECK_INT(toolenv_count(&te, "ask", NULL), 0);
    buf_release(&r.text);
    toolenv_release(&te);
}

static void test_plan_mode_respond(void)
{
    toolenv te;
    toolenv_init(&te, "/tmp");
    te.mode = MODE_PLAN;
    toolenv_answer(&te, "message", "Looks good, but keep the old API.");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_plan_mode_respond, &r, "response", "Plan: 1. 2. 3.", NULL),
              HEW_OK);
    CHECK_STR(r.text.data, "<user_message>\nLooks good, but keep the old API.\n</user_message>");
    buf_release(&r.text);
    CHECK_INT(toolenv_run(&te, &tool_plan_mode_respond, &r, "response", "Need to look more.",
                          "needs_more_exploration", "true", NULL),
              HEW_OK);
    CHECK(strstr(r.text.data, "explore more") != NULL);
    buf_release(&r.text);
    te.env.yolo = true; /* yolo switches to act by itself */
    CHECK_INT(toolenv_run(&te, &tool_plan_mode_respond, &r, "response", "Plan.", NULL), HEW_OK);
    CHECK_INT(te.mode, MODE_ACT);
    CHECK(strstr(r.text.data, "ACT MODE") != NULL);
    buf_release(&r.text);
    toolenv_release(&te);
}

int main(void)
{
    RUN(test_completion_accepted);
    RUN(test_completion_feedback_continues);
    RUN(test_completion_in_yolo_needs_no_ask);
    RUN(test_followup_answer_and_options);
    RUN(test_followup_in_yolo_tells_the_model_to_decide);
    RUN(test_empty_answers_say_what_happened);
    RUN(test_plan_mode_respond);
    return check_report();
}
