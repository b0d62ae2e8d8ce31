/* Tests of automatic condensing (summarize_task near the context limit) and of new_task
 * starting a new task, through the public API (include/hew.h) against the fake provider:
 * observed on the events the front end gets and on the request bodies the provider
 * recorded. Also the "Required Files" reader of the summary. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "taskrun.h"
#include "tmpdir.h"
#include "tools/summarize_task.h"

/* ---- harness: taskrun (tests/support/taskrun.h) with this file's answers ------------------ */

static char *workspace;

/* The answer to a new_task ask: "yes", "no" or a message (NULL: yes). */
static const char *new_task_answer;

static const char *ev_type(const json_t *ev)
{
    return json_string_value(json_object_get(ev, "type"));
}

static int answer(taskrun *r, hew_task *t, const json_t *ev)
{
    (void)r;
    const char *type = ev_type(ev);
    const char *nt = new_task_answer;
    if (strcmp(type, "followup") == 0)
        return hew_task_respond(t, HEW_ANSWER_MESSAGE, "blue");
    if (strcmp(type, "new_task") == 0 && nt && strcmp(nt, "no") == 0)
        return hew_task_respond(t, HEW_ANSWER_NO, NULL);
    if (strcmp(type, "new_task") == 0 && nt && strcmp(nt, "yes") != 0)
        return hew_task_respond(t, HEW_ANSWER_MESSAGE, nt);
    if (strcmp(type, "api_req_failed") == 0)
        return hew_task_respond(t, HEW_ANSWER_NO, NULL);
    return hew_task_respond(t, HEW_ANSWER_YES, NULL);
}

static void condense_on(hew_options *o)
{
    o->auto_condense = 1;
}

/* This file's options: a small context window, the workspace of main. */
static void condense_options(hew_options *o)
{
    o->model_info = "{\"context_window\":32768}"; /* 26 214 tokens usable */
    o->cwd = workspace;
}

/* The fake provider and a session on it, and the task when task is set; new_task answers
 * a new_task ask. */
static int run_start_answering(taskrun *r, const char *scenario, const char *task,
                               taskrun_tweak tweak, const char *new_task)
{
    new_task_answer = new_task; /* before the task thread starts: it reads it */
    return taskrun_start(r, &(taskrun_spec){ .scenario = scenario, .task = task,
                                             .defaults = condense_options, .tweak = tweak,
                                             .policy = answer });
}

/* The fake provider and a session on it, no task yet. */
static int run_session(taskrun *r, const char *scenario, taskrun_tweak tweak)
{
    return run_start_answering(r, scenario, NULL, tweak, NULL);
}

static int run_start(taskrun *r, const char *scenario, const char *task, taskrun_tweak tweak)
{
    return run_start_answering(r, scenario, task, tweak, NULL);
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

static json_t *request_messages(json_t *reqs, size_t i)
{
    return json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages");
}

/* The recorded request i's message m as text (m < 0 counts from the end). */
static char *request_message_text(json_t *reqs, size_t i, long m)
{
    json_t *msgs = request_messages(reqs, i);
    size_t n = json_array_size(msgs);
    size_t idx = m < 0 ? n - (size_t)(-m) : (size_t)m;
    buf out = BUF_INIT(0);
    message_text(json_array_get(msgs, idx), &out);
    return buf_detach(&out, NULL);
}

/* The whole request i (system prompt, tools, messages) as compact JSON. */
static char *request_dump(json_t *reqs, size_t i)
{
    return json_dumps(json_object_get(json_array_get(reqs, i), "body"), JSON_COMPACT);
}

static size_t request_message_count(json_t *reqs, size_t i)
{
    return json_array_size(request_messages(reqs, i));
}

/* How many times needle occurs in s. */
static size_t occurrences(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

#define FOLLOWUP(q, tokens)                                                                \
    "{\"protocol\":\"anthropic\",\"text\":\"Let me ask.\\n<ask_followup_question>\\n"          \
    "<question>" q "</question>\\n</ask_followup_question>\",\"usage\":{\"input\":" tokens      \
    ",\"output\":50}}"
#define SMALL "1000"
#define BIG "30000" /* over the 32k window's usable 26 214 */
#define COMPLETE(res)                                                                      \
    "{\"protocol\":\"anthropic\",\"text\":\"Done.\\n<attempt_completion>\\n<result>" res      \
    "</result>\\n</attempt_completion>\",\"usage\":{\"input\":1200,\"output\":40}}"
#define PROSE(txt, tokens)                                                                 \
    "{\"protocol\":\"anthropic\",\"text\":\"" txt "\",\"usage\":{\"input\":" tokens             \
    ",\"output\":20}}"
#define SUMMARY_TEXT                                                                       \
    "1. Primary Request and Intent:\\n   Paint the shed blue.\\n"                             \
    "7. Current Work:\\n   SUMMARY-MARK choosing the paint.\\n"                                \
    "9. Required Files:\\n   - notes.txt\\n   - secret.txt\\n"                                 \
    "10. Other Important Details:\\n   none"
#define SUMMARIZE                                                                          \
    "{\"protocol\":\"anthropic\",\"text\":\"<summarize_task>\\n<context>\\n" SUMMARY_TEXT      \
    "\\n</context>\\n</summarize_task>\",\"usage\":{\"input\":" BIG ",\"output\":400}}"
#define SUMMARIZE_NATIVE                                                                   \
    "{\"protocol\":\"anthropic\",\"tool_calls\":[{\"id\":\"toolu_sum\",\"name\":"              \
    "\"summarize_task\",\"arguments\":{\"context\":\"" SUMMARY_TEXT "\"}}],"                  \
    "\"usage\":{\"input\":" BIG ",\"output\":400}}"

/* ---- automatic condensing ------------------------------------------------------------------ */

/* The shape of the conversation around an accepted summary: request 2 asks for it,
 * request 3 shows the task, the note and the continuation with the required file,
 * request 4 keeps the summarize pair hidden. */
static void check_condensed_requests(taskrun *r, json_t *reqs)
{
    /* request 2: the instruction instead of the environment details */
    char *ask = request_message_text(reqs, 2, -1);
    CHECK(strstr(ask, SUMMARIZE_TASK_INSTRUCTION_TAG) != NULL);
    CHECK(strstr(ask, "9. Required Files") != NULL);
    CHECK(strstr(ask, "<environment_details>") == NULL);
    CHECK(strstr(ask, "blue") != NULL); /* the followup's answer goes along */
    free(ask);
    char *body2 = request_dump(reqs, 2);
    CHECK(strstr(body2, "## summarize_task") != NULL || /* offered in that request */
          strstr(body2, "\"name\":\"summarize_task\"") != NULL);
    free(body2);
    CHECK_INT(request_message_count(reqs, 2), 5);

    /* request 3: the first pair (its answer replaced by the note) and the continuation */
    CHECK_INT(request_message_count(reqs, 3), 3);
    char *task = request_message_text(reqs, 3, 0);
    CHECK(strstr(task, "<task>\nPaint the shed\n</task>") != NULL);
    free(task);
    char *note = request_message_text(reqs, 3, 1);
    CHECK(strstr(note, "removed") != NULL);
    free(note);
    char *cont = request_message_text(reqs, 3, 2);
    CHECK(strncmp(cont, SUMMARIZE_TASK_CONTINUATION_START,
                  strlen(SUMMARIZE_TASK_CONTINUATION_START)) == 0);
    CHECK(strstr(cont, "SUMMARY-MARK") != NULL);
    CHECK(strstr(cont, "<file_content path=\"notes.txt\">\nNOTES-CONTENT-42\n</file_content>") != NULL);
    CHECK(strstr(cont, "TOP-SECRET") == NULL); /* .clineignore'd: never read */
    CHECK(strstr(cont, "secret.txt (blocked by .clineignore)") != NULL);
    CHECK(strstr(cont, "<environment_details>") != NULL);
    CHECK(strstr(cont, "Which color") == NULL); /* the older turns are gone */
    free(cont);
    char *body3 = request_dump(reqs, 3);
    CHECK(strstr(body3, "explicit_instructions") == NULL); /* the request is hidden too */
    CHECK(strstr(body3, "## summarize_task") == NULL);      /* no longer offered */
    CHECK(strstr(body3, "\"name\":\"summarize_task\"") == NULL);
    free(body3);

    /* request 4: still hidden, the conversation grows from the continuation */
    CHECK_INT(request_message_count(reqs, 4), 5);
    char *body4 = request_dump(reqs, 4);
    CHECK_INT(occurrences(body4, "SUMMARY-MARK"), 1);
    CHECK(strstr(body4, "explicit_instructions") == NULL);
    free(body4);

    CHECK_INT(taskrun_count_messages(r, "condensing"), 1);
    CHECK_INT(taskrun_count_messages(r, "condensed"), 1);
    json_t *done = taskrun_last(r, "condensed", 1);
    REQUIRE(done != NULL);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(done, "data"), "removed")), 4);
    json_t *tool = taskrun_last(r, "tool", 1);
    REQUIRE(tool != NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(tool, "data"), "tool")),
              "summarizeTask");
}

static void test_summary_replaces_the_older_messages(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("Which color?", SMALL) ","
                          FOLLOWUP("Which brush?", BIG) "," SUMMARIZE ","
                          FOLLOWUP("Which can?", SMALL) "," COMPLETE("Painted it blue.") "]}",
                      "Paint the shed", condense_on) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "Painted it blue.");
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    check_condensed_requests(&r, reqs);
    json_decref(reqs);
    taskrun_free(&r);
}

static void native(hew_options *o)
{
    o->auto_condense = 1;
    o->native_tools = 1;
}

#define FOLLOWUP_NATIVE(id, q, tokens)                                                     \
    "{\"protocol\":\"anthropic\",\"tool_calls\":[{\"id\":\"" id "\",\"name\":"                 \
    "\"ask_followup_question\",\"arguments\":{\"question\":\"" q "\"}}],"                      \
    "\"usage\":{\"input\":" tokens ",\"output\":50}}"
#define COMPLETE_NATIVE                                                                    \
    "{\"protocol\":\"anthropic\",\"tool_calls\":[{\"id\":\"toolu_done\",\"name\":"             \
    "\"attempt_completion\",\"arguments\":{\"result\":\"Painted it blue.\"}}]}"

static void test_native_summary_survives_as_text(void)
{
    /* With native tool calls the continuation comes as the summarize_task call's result;
     * the call is hidden, so the result must reach the model as text. */
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP_NATIVE("toolu_1", "Which color?", SMALL)
                          "," FOLLOWUP_NATIVE("toolu_2", "Which brush?", BIG) ","
                          SUMMARIZE_NATIVE "," FOLLOWUP_NATIVE("toolu_3", "Which can?", SMALL)
                          "," COMPLETE_NATIVE "]}",
                      "Paint the shed", native) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    check_condensed_requests(&r, reqs);
    char *body3 = request_dump(reqs, 3);
    CHECK(strstr(body3, "toolu_sum") == NULL); /* no result for a call the model cannot see */
    free(body3);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_condensing_off_truncates_as_before(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("a?", BIG) "," FOLLOWUP("b?", BIG) ","
                          FOLLOWUP("c?", BIG) "," FOLLOWUP("d?", BIG) "," COMPLETE("done") "]}",
                      "a big task", NULL) == 0); /* an unknown model: off by default */
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK(taskrun_count_messages(&r, "deleted_api_reqs") >= 1);
    CHECK_INT(taskrun_count_messages(&r, "condensing"), 0);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    for (size_t i = 0; i < 5; i++) {
        char *body = request_dump(reqs, i);
        CHECK(strstr(body, "explicit_instructions") == NULL);
        CHECK(strstr(body, "summarize_task") == NULL);
        free(body);
    }
    CHECK(request_message_count(reqs, 4) < 9);
    json_decref(reqs);
    taskrun_free(&r);
}

/* Anthropic's rule: every tool_use answered by its tool_result first in the very next
 * user message, and no tool_result without its tool_use in the message before. */
static void check_pairs(json_t *reqs, size_t i)
{
    json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages");
    size_t k, j;
    json_t *m, *b;
    json_array_foreach(msgs, k, m) {
        json_t *next = json_array_get(msgs, k + 1);
        json_t *prev = k ? json_array_get(msgs, k - 1) : NULL;
        size_t calls = 0;
        json_array_foreach(json_object_get(m, "content"), j, b) {
            const char *type = json_string_value(json_object_get(b, "type"));
            if (type && strcmp(type, "tool_use") == 0) {
                json_t *answer = json_array_get(json_object_get(next, "content"), calls++);
                const char *rid = json_string_value(json_object_get(answer, "tool_use_id"));
                const char *id = json_string_value(json_object_get(b, "id"));
                if (!rid || !id || strcmp(rid, id) != 0)
                    check_fail(__FILE__, __LINE__, "request %zu: tool_use %s not answered first (%s)",
                               i, id ? id : "?", rid ? rid : "none");
            }
            if (type && strcmp(type, "tool_result") == 0) {
                const char *rid = json_string_value(json_object_get(b, "tool_use_id"));
                bool found = false;
                size_t q;
                json_t *c;
                json_array_foreach(json_object_get(prev, "content"), q, c) {
                    const char *cid = json_string_value(json_object_get(c, "id"));
                    found = found || (cid && rid && strcmp(cid, rid) == 0);
                }
                if (!found)
                    check_fail(__FILE__, __LINE__, "request %zu: tool_result %s without its tool_use",
                               i, rid ? rid : "?");
            }
        }
    }
}

#define READ(path, tokens)                                                                 \
    "{\"protocol\":\"anthropic\",\"text\":\"<read_file>\\n<path>" path "</path>\\n"          \
    "</read_file>\",\"usage\":{\"input\":" tokens ",\"output\":50}}"

/* Near the limit a file read twice is collapsed: the older read's content gives way to the
 * note, the latest stays whole, and nothing is cut (the collapse saved enough). The task
 * tells context/ which tools read files from the registry's flags (TOOL_RESULT_IS_FILE). */
static void test_repeated_read_is_collapsed(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" READ("big.txt", SMALL) "," READ("big.txt", BIG)
                          "," COMPLETE("done") "]}",
                      "read big.txt twice", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 3);
    char *second = request_dump(reqs, 1), *third = request_dump(reqs, 2);
    CHECK_INT((int)occurrences(second, "BIG-LINE-0001"), 1); /* the first read only */
    CHECK_INT((int)occurrences(third, "BIG-LINE-0001"), 1);
    CHECK(strstr(third, "This file read was removed to save space") != NULL);
    CHECK_INT(taskrun_count_messages(&r, "deleted_api_reqs"), 0);
    free(second);
    free(third);
    json_decref(reqs);
    taskrun_free(&r);
}

static void native_only(hew_options *o)
{
    o->native_tools = 1;
}

static void test_native_truncation_keeps_pairs(void)
{
    /* Condensing off: the cut drops older messages; with native tools, the kept messages
     * never hold a result whose call was cut, nor a call without its result. */
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP_NATIVE("toolu_t1", "a?", BIG) ","
                          FOLLOWUP_NATIVE("toolu_t2", "b?", BIG) ","
                          FOLLOWUP_NATIVE("toolu_t3", "c?", BIG) ","
                          FOLLOWUP_NATIVE("toolu_t4", "d?", BIG) "," COMPLETE_NATIVE "]}",
                      "a big task", native_only) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK(taskrun_count_messages(&r, "deleted_api_reqs") >= 1);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    for (size_t i = 0; i < 5; i++)
        check_pairs(reqs, i);
    CHECK(request_message_count(reqs, 4) < 9);
    json_decref(reqs);
    taskrun_free(&r);
}

static void capable_model(hew_options *o)
{
    o->model = "claude-sonnet-4-5"; /* 200k window, 160k usable; on by default */
}

static void test_on_by_default_for_capable_models_and_completion_allowed(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("a?", SMALL) "," FOLLOWUP("b?", "170000")
                          "," COMPLETE("Already done.") "]}",
                      "finish it", capable_model) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "Already done.");
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 3);
    char *ask = request_message_text(reqs, 2, -1);
    CHECK(strstr(ask, SUMMARIZE_TASK_INSTRUCTION_TAG) != NULL);
    free(ask);
    CHECK_INT(taskrun_count_messages(&r, "condensing"), 1);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_no_summary_falls_back_to_truncation(void)
{
    /* Asked for a summary, the model answers in prose; the next request is cut the old
     * way, and later requests over the threshold are cut too instead of asking again. */
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("a?", SMALL) "," FOLLOWUP("b?", BIG) ","
                          PROSE("I would rather not summarise.", BIG) "," FOLLOWUP("c?", BIG)
                          "," FOLLOWUP("d?", BIG) "," COMPLETE("done anyway") "]}",
                      "keep going", condense_on) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 6);
    size_t asked = 0;
    for (size_t i = 0; i < 6; i++) {
        char *last = request_message_text(reqs, i, -1);
        asked += strstr(last, SUMMARIZE_TASK_INSTRUCTION_TAG) != NULL;
        free(last);
    }
    CHECK_INT(asked, 1);
    char *after = request_message_text(reqs, 3, -1);
    CHECK(strstr(after, "<environment_details>") != NULL);
    free(after);
    CHECK(taskrun_count_messages(&r, "deleted_api_reqs") >= 1);
    CHECK_INT(taskrun_count_messages(&r, "condensing"), 1);
    CHECK_INT(taskrun_count_messages(&r, "condensed"), 0);
    CHECK(request_message_count(reqs, 3) < 7); /* cut: 7 messages without it */
    json_decref(reqs);
    taskrun_free(&r);
}

#define TOO_LONG                                                                           \
    "{\"status\":400,\"body\":{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"," \
    "\"message\":\"prompt is too long: 40000 tokens > 32768 maximum\"}}}"

static void test_summary_request_too_long_is_truncated_and_asked_again(void)
{
    /* The summarize request itself no longer fits: older messages are cut (a quarter
     * kept) and the same request goes again, still asking for the summary. */
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("a?", SMALL) "," FOLLOWUP("b?", SMALL) ","
                          FOLLOWUP("c?", BIG) "," TOO_LONG "," SUMMARIZE ","
                          COMPLETE("Painted it blue.") "]}",
                      "Paint the shed", condense_on) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 6);
    char *retry = request_message_text(reqs, 4, -1);
    CHECK(strstr(retry, SUMMARIZE_TASK_INSTRUCTION_TAG) != NULL);
    free(retry);
    CHECK(request_message_count(reqs, 4) < request_message_count(reqs, 3));
    CHECK_INT(request_message_count(reqs, 5), 3);
    CHECK_INT(taskrun_count_messages(&r, "condensed"), 1);
    json_decref(reqs);
    taskrun_free(&r);
}

/* ---- resume in the middle of condensing ------------------------------------------------------ */

#define STALLED(txt)                                                                       \
    "{\"protocol\":\"anthropic\",\"text\":\"" txt "\",\"delta_size\":4,"                      \
    "\"stall_after_bytes\":1200,\"stall_ms\":30000}"

/* Abort at the request of stalled text, then resume the task in the same session. */
static void abort_and_resume(taskrun *r, const char *stalled_text)
{
    REQUIRE(taskrun_wait_event(r, "text", stalled_text));
    hew_task_abort(r->t, "the laptop lid closed");
    CHECK_INT(hew_task_wait(r->t), HEW_TASK_ABORTED);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(r->t));
    hew_task_free(r->t);
    char err[256];
    (void)hew_task_resume(r->s, id, &r->t, err, sizeof err);
    REQUIRE(r->t != NULL);
}

static void test_resume_while_the_summary_is_asked_for_asks_again(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("Which color?", SMALL) ","
                          FOLLOWUP("Which brush?", BIG) ","
                          STALLED("Summarising the conversation now, one moment") ","
                          SUMMARIZE "," COMPLETE("Painted it blue.") "]}",
                      "Paint the shed", condense_on) == 0);
    abort_and_resume(&r, "Summarising");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    /* the resumed request asks again, after the resumption note */
    char *again = request_message_text(reqs, 3, -1);
    CHECK(strstr(again, "[TASK RESUMPTION]") != NULL);
    CHECK(strstr(again, SUMMARIZE_TASK_INSTRUCTION_TAG) != NULL);
    CHECK(strstr(again, "<environment_details>") == NULL);
    free(again);
    /* and the summary is taken: the task, the note, the continuation */
    CHECK_INT(request_message_count(reqs, 4), 3);
    char *cont = request_message_text(reqs, 4, 2);
    CHECK(strstr(cont, "SUMMARY-MARK") != NULL);
    CHECK(strstr(cont, "NOTES-CONTENT-42") != NULL);
    free(cont);
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_resume_after_the_cut_goes_on_from_the_summary(void)
{
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("Which color?", SMALL) ","
                          FOLLOWUP("Which brush?", BIG) "," SUMMARIZE ","
                          STALLED("Carrying on from the summary with the paint") ","
                          COMPLETE("Painted it blue.") "]}",
                      "Paint the shed", condense_on) == 0);
    abort_and_resume(&r, "Carrying");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 5);
    /* the resumed request still sees the continuation (once), not the older turns */
    char *body = request_dump(reqs, 4);
    CHECK_INT(occurrences(body, "SUMMARY-MARK"), 1);
    CHECK(strstr(body, "Which color") == NULL);
    CHECK(strstr(body, "explicit_instructions") == NULL);
    free(body);
    char *last = request_message_text(reqs, 4, -1);
    CHECK(strstr(last, "[TASK RESUMPTION]") != NULL);
    free(last);
    CHECK_INT(taskrun_count_messages(&r, "condensed"), 1);
    json_decref(reqs);
    taskrun_free(&r);
}

/* A stored conversation, as a crash left it: the first pair, then the user message that
 * asked for the summary, and the model's summary when `with_summary`. Imported into the
 * store; the new task's id goes to id. */
static int import_stopped_condense(bool with_summary, char id[64])
{
    char *dir = tmpdir_make("condense-import");
    if (!dir)
        return -1;
    buf instruction = BUF_INIT(0);
    summarize_task_instruction(false, &instruction);
    json_t *history = json_pack(
        "[{s:s, s:[{s:s, s:s}]}, {s:s, s:[{s:s, s:s}]}, {s:s, s:[{s:s, s:s}, {s:s, s:s}]}]",
        "role", "user", "content", "type", "text", "text", "<task>\nPaint the shed\n</task>",
        "role", "assistant", "content", "type", "text", "text",
        "<ask_followup_question><question>Which color?</question></ask_followup_question>",
        "role", "user", "content", "type", "text", "text",
        "[ask_followup_question for 'Which color?'] Result:\n<answer>\nblue\n</answer>",
        "type", "text", "text", instruction.data);
    buf_release(&instruction);
    if (with_summary)
        json_array_append_new(
            history, json_pack("{s:s, s:[{s:s, s:s}]}", "role", "assistant", "content", "type",
                               "text", "text",
                               "<summarize_task>\n<context>\n7. Current Work:\n   SUMMARY-MARK\n"
                               "9. Required Files:\n   - notes.txt\n</context>\n"
                               "</summarize_task>"));
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/api_conversation_history.json", dir);
    int rc = history && json_dump_file(history, path, 0) == 0 &&
                     hew_history_import(NULL, dir, workspace, id, 64, err, sizeof err) == 0
                 ? 0
                 : -1;
    json_decref(history);
    tmpdir_remove(dir);
    free(dir);
    return rc;
}

/* Stopped right after the model gave the summary (before the next request was stored):
 * resumed, the task goes on from the summary. */
static void test_resume_right_after_the_summary_takes_it(void)
{
    char id[64], err[256];
    REQUIRE(import_stopped_condense(true, id) == 0);
    taskrun r;
    REQUIRE(run_session(&r, "{\"responses\":[" COMPLETE("Painted it blue.") "]}",
                        condense_on) == 0);
    (void)hew_task_resume(r.s, id, &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 1);
    CHECK_INT(request_message_count(reqs, 0), 3);
    char *cont = request_message_text(reqs, 0, 2);
    CHECK(strncmp(cont, SUMMARIZE_TASK_CONTINUATION_START,
                  strlen(SUMMARIZE_TASK_CONTINUATION_START)) == 0);
    CHECK_INT(occurrences(cont, "SUMMARY-MARK"), 1);
    CHECK(strstr(cont, "NOTES-CONTENT-42") != NULL);
    CHECK(strstr(cont, "[TASK RESUMPTION]") != NULL);
    free(cont);
    CHECK_INT(taskrun_count_messages(&r, "condensed"), 1);
    json_decref(reqs);
    taskrun_free(&r);
    hew_history_delete(NULL, id, err, sizeof err);
}

/* Stopped after the request that asked for the summary went out, before any answer:
 * resumed, the request goes again and asks once more (once). */
static void test_resume_before_the_answer_asks_again(void)
{
    char id[64], err[256];
    REQUIRE(import_stopped_condense(false, id) == 0);
    taskrun r;
    REQUIRE(run_session(&r, "{\"responses\":[" SUMMARIZE "," COMPLETE("Painted it blue.") "]}",
                        condense_on) == 0);
    (void)hew_task_resume(r.s, id, &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *again = request_message_text(reqs, 0, -1);
    CHECK_INT(occurrences(again, SUMMARIZE_TASK_INSTRUCTION_TAG), 1);
    CHECK(strstr(again, "<answer>\nblue\n</answer>") != NULL); /* taken back, sent again */
    CHECK(strstr(again, "[TASK RESUMPTION]") != NULL);
    CHECK(strstr(again, "<environment_details>") == NULL);
    free(again);
    CHECK_INT(request_message_count(reqs, 1), 3);
    char *cont = request_message_text(reqs, 1, 2);
    CHECK(strstr(cont, "SUMMARY-MARK") != NULL);
    free(cont);
    json_decref(reqs);
    taskrun_free(&r);
    hew_history_delete(NULL, id, err, sizeof err);
}

/* ---- new_task ---------------------------------------------------------------------------------- */

#define NEW_TASK(ctx)                                                                      \
    "{\"protocol\":\"anthropic\",\"text\":\"A fresh start is better.\\n<new_task>\\n<context>" \
    ctx "</context>\\n</new_task>\"}"

static void test_confirmed_new_task_starts_the_successor(void)
{
    taskrun r;
    REQUIRE(run_start_answering(&r, "{\"responses\":[" NEW_TASK("CTX-77: paint the second coat.")
                                    "," COMPLETE("Second coat done.") "]}",
                                "Paint the shed", NULL, "yes") == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK(strstr(hew_task_result(r.t), "new task") != NULL);
    const char *next = hew_task_successor(r.t);
    REQUIRE(next != NULL);
    CHECK_STR(next, "CTX-77: paint the second coat.");
    char first_id[64];
    snprintf(first_id, sizeof first_id, "%s", hew_task_id(r.t));
    json_t *ask = taskrun_last(&r, "new_task", 1);
    REQUIRE(ask != NULL);
    CHECK_STR(json_string_value(json_object_get(ask, "task")), first_id);

    /* the front end goes on with it, in the same session */
    char err[256];
    hew_task *second = NULL;
    (void)hew_task_start(r.s, next, &second, err, sizeof err);
    REQUIRE(second != NULL);
    hew_task_free(r.t);
    r.t = second;
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "Second coat done.");
    CHECK(hew_task_successor(r.t) == NULL);
    CHECK(strcmp(hew_task_id(r.t), first_id) != 0);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    CHECK_INT(request_message_count(reqs, 1), 1); /* a new conversation */
    char *first = request_message_text(reqs, 1, 0);
    CHECK(strstr(first, "<task>\nCTX-77: paint the second coat.\n</task>") != NULL);
    free(first);
    json_t *end = taskrun_last(&r, "completion_result", 1);
    CHECK_STR(json_string_value(json_object_get(end, "task")), hew_task_id(r.t));
    json_decref(reqs);
    taskrun_free(&r);
}

static void test_declined_new_task_goes_on(void)
{
    taskrun r;
    REQUIRE(run_start_answering(&r, "{\"responses\":[" NEW_TASK("CTX-78") "," COMPLETE("Stayed.")
                                    "]}",
                                "Paint the shed", NULL, "no") == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_STR(hew_task_result(r.t), "Stayed.");
    CHECK(hew_task_successor(r.t) == NULL);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    CHECK_INT(request_message_count(reqs, 1), 3); /* the same conversation goes on */
    char *result = request_message_text(reqs, 1, -1);
    CHECK(strstr(result, "declined") != NULL);
    free(result);
    json_decref(reqs);
    taskrun_free(&r);
}

/* ---- the summary's "Required Files" ------------------------------------------------------- */

static void test_required_files_are_read_from_the_summary(void)
{
    const char *summary = "1. Primary Request and Intent:\n  Fix it.\n"
                          "## 9. Required Files:\n"
                          "- `src/a.c` (the parser)\n"
                          "  * src/b.c - tests\n"
                          "1. docs/c.md\n"
                          "- src/a.c\n"
                          "\n"
                          "10. Other Important Details:\n- not/a/file.c\n";
    char *paths[10];
    size_t n = summarize_task_required_files(summary, paths, 10);
    CHECK_INT(n, 3);
    if (n == 3) {
        CHECK_STR(paths[0], "src/a.c");
        CHECK_STR(paths[1], "src/b.c");
        CHECK_STR(paths[2], "docs/c.md");
    }
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    n = summarize_task_required_files("**Required Files**: x.c, y.h\n", paths, 10);
    CHECK_INT(n, 2);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    CHECK_INT(summarize_task_required_files("9. Required Files:\n- none\n", paths, 10), 0);
    CHECK_INT(summarize_task_required_files("no such section", paths, 10), 0);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    workspace = tmpdir_make("condense");
    if (!workspace)
        return 1;
    write_file(workspace, "notes.txt", "NOTES-CONTENT-42\n");
    write_file(workspace, "secret.txt", "TOP-SECRET\n");
    write_file(workspace, ".clineignore", "secret.txt\n");
    buf big = BUF_INIT(0);
    for (int i = 1; i <= 600; i++)
        buf_printf(&big, "BIG-LINE-%04d some text to make the file worth collapsing\n", i);
    write_file(workspace, "big.txt", big.data);
    buf_release(&big);
    RUN(test_required_files_are_read_from_the_summary);
    RUN(test_summary_replaces_the_older_messages);
    RUN(test_native_summary_survives_as_text);
    RUN(test_condensing_off_truncates_as_before);
    RUN(test_native_truncation_keeps_pairs);
    RUN(test_repeated_read_is_collapsed);
    RUN(test_on_by_default_for_capable_models_and_completion_allowed);
    RUN(test_no_summary_falls_back_to_truncation);
    RUN(test_summary_request_too_long_is_truncated_and_asked_again);
    RUN(test_resume_while_the_summary_is_asked_for_asks_again);
    RUN(test_resume_after_the_cut_goes_on_from_the_summary);
    RUN(test_resume_right_after_the_summary_takes_it);
    RUN(test_resume_before_the_answer_asks_again);
    RUN(test_confirmed_new_task_starts_the_successor);
    RUN(test_declined_new_task_goes_on);
    tmpdir_remove(workspace);
    free(workspace);
    return check_report();
}
