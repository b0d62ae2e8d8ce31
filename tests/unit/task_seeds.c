/* Seed behaviours no other test pins (docs/seed-behaviours.md lists them all, P1–P15 and
 * A1–A18, with the test of each): present_assistant_message and attempt_api_request
 * through the public API (include/hew.h) against the fake provider, observed on the
 * events, the request bodies the provider recorded and its outcome record (how and when
 * each response ended: docs/fake-provider.md). Orderings are proved by events — a stream
 * held open by a long stall that only the client's closing ends — never by timing; the
 * long waits below are safety nets only. This file must never assert a duration. */
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
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

/* A stall no passing test waits out: only the client closing (or the provider stopping)
 * ends it. hew's idle timeout is set far above it (run_start), so hew never ends it. */
#define HOLD_MS "60000"
/* Safety nets for waits on events (never reached when the behaviour is right). */
#define SAFETY_S 30

/* ---- harness: taskrun (tests/support/taskrun.h) with this file's policy ------------------- */

/* How many api_req_failed default_policy answers yes (under the run's mu: the test sets
 * it while the task runs), and how many it has. */
static struct {
    int retry_yes;
    int answered_retry;
} retries;

static const char *ev_type(const json_t *ev)
{
    return json_string_value(json_object_get(ev, "type"));
}

static const char *ev_text(const json_t *ev)
{
    const char *s = json_string_value(json_object_get(ev, "text"));
    return s ? s : "";
}

static int default_policy(taskrun *r, hew_task *t, const json_t *ev)
{
    const char *type = ev_type(ev);
    if (strcmp(type, "followup") == 0)
        return hew_task_respond(t, HEW_ANSWER_MESSAGE, "blue");
    if (strcmp(type, "api_req_failed") == 0) {
        pthread_mutex_lock(&r->mu);
        int yes = retries.answered_retry < retries.retry_yes;
        if (yes)
            retries.answered_retry++;
        pthread_mutex_unlock(&r->mu);
        return hew_task_respond(t, yes ? HEW_ANSWER_YES : HEW_ANSWER_NO, NULL);
    }
    return hew_task_respond(t, HEW_ANSWER_YES, NULL);
}

static char workspace[256];

/* This file's options: no store, no MCP, the workspace of the test. */
static void seeds_options(hew_options *o)
{
    o->idle_timeout_ms = 600000; /* never shorter than a held response (HOLD_MS) */
    o->persist = 0;
    o->mcp = 0;
    o->cwd = workspace;
}

static int run_start(taskrun *r, const char *scenario, const char *task, taskrun_tweak tweak)
{
    memset(&retries, 0, sizeof retries);
    return taskrun_start(r, &(taskrun_spec){ .scenario = scenario, .task = task,
                                             .defaults = seeds_options, .tweak = tweak,
                                             .policy = default_policy });
}

/* Has any event (partial or not) of a type whose text holds needle arrived? */
static bool has_event_with(taskrun *r, const char *type, const char *needle)
{
    bool found = false;
    size_t i;
    json_t *ev;
    pthread_mutex_lock(&r->mu);
    json_array_foreach(r->events, i, ev)
        if (strcmp(ev_type(ev), type) == 0 && strstr(ev_text(ev), needle))
            found = true;
    pthread_mutex_unlock(&r->mu);
    return found;
}

/* Wait until a final event of a type whose text holds needle has arrived (safety net
 * TASKRUN_WAIT_S, as SAFETY_S). */
static int wait_final_with(taskrun *r, const char *type, const char *needle)
{
    return taskrun_wait(r, 0, &(taskrun_match){ .type = type, .needle = needle, .final = 1 }) !=
           0;
}

/* The recorded request i's message m as text (text blocks and tool_result contents). */
static char *request_message_text(json_t *reqs, size_t i, size_t m)
{
    json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages");
    json_t *content = json_object_get(json_array_get(msgs, m), "content");
    buf out = BUF_INIT(0);
    if (json_is_string(content))
        buf_puts(&out, json_string_value(content));
    size_t k;
    json_t *b;
    json_array_foreach(content, k, b) {
        const char *text = json_string_value(json_object_get(b, "text"));
        if (text)
            buf_puts(&out, text);
        buf_putc(&out, '\n');
    }
    return buf_detach(&out, NULL);
}

static size_t request_message_count(json_t *reqs, size_t i)
{
    return json_array_size(
        json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages"));
}

/* Has response index ended (the provider's outcome record has its line)? */
static bool response_ended(taskrun *r, size_t index)
{
    json_t *all = fakeprov_outcomes(&r->fp);
    bool found = false;
    size_t i;
    json_t *o;
    json_array_foreach(all, i, o)
        if ((size_t)json_integer_value(json_object_get(o, "index")) == index)
            found = true;
    json_decref(all);
    return found;
}

/* Wait until path exists (safety net SAFETY_S). */
static bool wait_file(const char *path)
{
    for (int i = 0; i < SAFETY_S * 50; i++) {
        if (access(path, F_OK) == 0)
            return true;
        struct timespec nap = {0, 20 * 1000000L};
        nanosleep(&nap, NULL);
    }
    return false;
}

/* An Anthropic stream of one text block cut into the given deltas, written like the API
 * writes it; ends[k] is the body offset right after delta k's event (a write boundary of
 * the fake provider, which writes one event at a time). */
static char *anthropic_text_sse(const char *const *deltas, size_t n, size_t *ends)
{
    buf b = BUF_INIT(0);
    buf_puts(&b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"
                 "\"msg_seed\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
                 "\"claude-test-model\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":"
                 "null,\"usage\":{\"input_tokens\":100,\"output_tokens\":1}}}\n\n");
    buf_puts(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\","
                 "\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    for (size_t k = 0; k < n; k++) {
        json_t *ev = json_pack("{s:s,s:i,s:{s:s,s:s}}", "type", "content_block_delta", "index", 0,
                               "delta", "type", "text_delta", "text", deltas[k]);
        char *data = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
        buf_printf(&b, "event: content_block_delta\ndata: %s\n\n", data);
        free(data);
        json_decref(ev);
        ends[k] = b.len;
    }
    buf_puts(&b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}"
                 "\n\n");
    buf_puts(&b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
                 "{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":"
                 "{\"output_tokens\":40}}\n\n");
    buf_puts(&b, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    return buf_detach(&b, NULL);
}

/* Write body into the workspace's sibling file and return a scenario response that
 * replays it, stalled HOLD_MS after byte hold_at. */
static char *held_response(const char *body, size_t hold_at, const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s.%s.sse", workspace, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(body, f);
    fclose(f);
    buf b = BUF_INIT(0);
    buf_printf(&b, "{\"replay\":\"%s\",\"stall_after_bytes\":%zu,\"stall_ms\":" HOLD_MS "}", path,
               hold_at);
    return buf_detach(&b, NULL);
}

static void remove_held(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s.%s.sse", workspace, name);
    unlink(path);
}

static void new_workspace(void)
{
    snprintf(workspace, sizeof workspace, "/tmp/hew-task-seeds-XXXXXX");
    if (!mkdtemp(workspace))
        workspace[0] = '\0';
}

#define COMPLETE(res)                                                                      \
    "{\"protocol\":\"anthropic\",\"text\":\"Done.\\n<attempt_completion>\\n<result>" res      \
    "</result>\\n</attempt_completion>\"}"
#define FOLLOWUP(q)                                                                        \
    "{\"protocol\":\"anthropic\",\"text\":\"<ask_followup_question>\\n<question>" q            \
    "</question>\\n</ask_followup_question>\"}"

static void yolo(hew_options *o)
{
    o->yolo = 1;
}

static void yolo_serial(hew_options *o)
{
    o->yolo = 1;
    o->parallel_tool_calls = 0;
}

/* ---- the provider's outcome record -------------------------------------------------------- */

/* A response sent whole is "complete", every byte counted. */
static void test_outcome_record_complete(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" COMPLETE("ok") "]}", "x", NULL) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(o, "outcome")), "complete");
    CHECK_INT(json_integer_value(json_object_get(o, "status")), 200);
    CHECK(json_integer_value(json_object_get(o, "bytes_total")) > 100);
    CHECK_INT(json_integer_value(json_object_get(o, "bytes_sent")),
              json_integer_value(json_object_get(o, "bytes_total")));
    CHECK(json_integer_value(json_object_get(o, "finished_ms")) > 0);
    json_decref(o);
    taskrun_free(&r);
    tmpdir_remove(workspace);
}

/* ---- present_assistant_message (seed 000) ------------------------------------------------ */

/* P2: a tool block runs as soon as it is complete, while the stream goes on: the file the
 * tool writes exists while the provider still holds the rest of the answer (it ends only
 * when hew, aborted, closes the connection). */
static void test_tool_runs_while_the_stream_goes_on(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    const char *deltas[] = {"Writing it now.\n<write_to_file>\n<path>early.txt</path>\n"
                            "<content>\nhello\n</content>\n</write_to_file>\n",
                            "And more text after the tool."};
    size_t ends[2];
    char *body = anthropic_text_sse(deltas, 2, ends);
    char *held = held_response(body, ends[0], "early");
    REQUIRE(held != NULL);
    buf sc = BUF_INIT(0);
    buf_printf(&sc, "{\"responses\":[%s]}", held);
    taskrun r;
    REQUIRE(run_start(&r, sc.data, "write early.txt", yolo) == 0);
    char path[400];
    snprintf(path, sizeof path, "%s/early.txt", workspace);
    CHECK(wait_file(path));
    /* The tool's effect is there, and the provider has not finished sending. */
    CHECK(!response_ended(&r, 0));
    hew_task_abort(r.t, "seen enough");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
    CHECK_INT(json_integer_value(json_object_get(o, "bytes_sent")), (long long)ends[0]);
    CHECK_INT(json_integer_value(json_object_get(o, "bytes_total")), (long long)strlen(body));
    json_decref(o);
    taskrun_free(&r);
    buf_release(&sc);
    free(held);
    free(body);
    remove_held("early");
    tmpdir_remove(workspace);
}

/* P6 + P13: blocks already there are presented one after the other at once (the
 * presenter goes on by itself, it does not wait for the stream): two tools and the text
 * between them, all in one chunk, run and are said while the provider still holds the
 * rest of the answer. (ask_followup_question and attempt_completion would wait for the
 * stream's end: hew shows the request's cost before a question — executor.c.) */
static void test_blocks_already_there_are_presented_at_once(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    const char *deltas[] = {"First.\n<write_to_file>\n<path>one.txt</path>\n<content>\n1\n"
                            "</content>\n</write_to_file>\nBetween them.\n<write_to_file>\n"
                            "<path>two.txt</path>\n<content>\n2\n</content>\n</write_to_file>\n",
                            "Never seen."};
    size_t ends[2];
    char *body = anthropic_text_sse(deltas, 2, ends);
    char *held = held_response(body, ends[0], "there");
    REQUIRE(held != NULL);
    buf sc = BUF_INIT(0);
    buf_printf(&sc, "{\"responses\":[%s]}", held);
    taskrun r;
    REQUIRE(run_start(&r, sc.data, "write two files", yolo) == 0);
    char path[400];
    snprintf(path, sizeof path, "%s/two.txt", workspace);
    CHECK(wait_file(path));
    CHECK(!response_ended(&r, 0));
    snprintf(path, sizeof path, "%s/one.txt", workspace);
    CHECK(access(path, F_OK) == 0);
    /* The text between the tools was said, and the answer's tail never came. */
    CHECK(wait_final_with(&r, "text", "Between them."));
    hew_task_abort(r.t, "seen enough");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
    json_decref(o);
    CHECK(!has_event_with(&r, "text", "Never seen"));
    taskrun_free(&r);
    buf_release(&sc);
    free(held);
    free(body);
    remove_held("there");
    tmpdir_remove(workspace);
}

/* P1: what arrives while the presenter is busy (here: the first tool waits for the
 * user's approval) is not lost: the second tool, streamed during the approval, runs once
 * the first is approved, while the provider still holds the rest of the answer. */
static void test_blocks_arriving_during_an_approval_are_presented(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    const char *deltas[] = {"<write_to_file>\n<path>one.txt</path>\n<content>\n1\n</content>\n"
                            "</write_to_file>\n",
                            "<write_to_file>\n<path>two.txt</path>\n<content>\n2\n</content>\n"
                            "</write_to_file>\n",
                            "Never seen."};
    size_t ends[3];
    char *body = anthropic_text_sse(deltas, 3, ends);
    char *held = held_response(body, ends[1], "during");
    REQUIRE(held != NULL);
    buf sc = BUF_INIT(0);
    buf_printf(&sc, "{\"responses\":[%s]}", held);
    taskrun r;
    REQUIRE(run_start(&r, sc.data, "write two files", NULL) == 0); /* edits are asked */
    char path[400];
    snprintf(path, sizeof path, "%s/two.txt", workspace);
    CHECK(wait_file(path));
    CHECK(!response_ended(&r, 0));
    CHECK_INT(taskrun_count_messages(&r, "tool"), 2);
    hew_task_abort(r.t, "seen enough");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
    json_decref(o);
    taskrun_free(&r);
    buf_release(&sc);
    free(held);
    free(body);
    remove_held("during");
    tmpdir_remove(workspace);
}

/* P5: a tool block still streaming is only shown (a partial "tool" message), never run:
 * while the provider holds the rest of write_to_file's content, the file does not exist. */
static void test_a_partial_tool_is_shown_not_run(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    const char *deltas[] = {"<write_to_file>\n<path>half.txt</path>\n<content>\nfirst half",
                            " second half\n</content>\n</write_to_file>\n"};
    size_t ends[2];
    char *body = anthropic_text_sse(deltas, 2, ends);
    char *held = held_response(body, ends[0], "half");
    REQUIRE(held != NULL);
    buf sc = BUF_INIT(0);
    buf_printf(&sc, "{\"responses\":[%s]}", held);
    taskrun r;
    REQUIRE(run_start(&r, sc.data, "write a file", yolo) == 0);
    /* Wait for the partial tool message that shows the half-streamed content. */
    bool shown = false;
    for (int i = 0; i < SAFETY_S * 50 && !shown; i++) {
        pthread_mutex_lock(&r.mu);
        size_t k;
        json_t *ev;
        json_array_foreach(r.events, k, ev)
            if (strcmp(ev_type(ev), "tool") == 0 && json_is_true(json_object_get(ev, "partial")))
                shown = true;
        pthread_mutex_unlock(&r.mu);
        struct timespec nap = {0, 20 * 1000000L};
        if (!shown)
            nanosleep(&nap, NULL);
    }
    CHECK(shown);
    char path[400];
    snprintf(path, sizeof path, "%s/half.txt", workspace);
    CHECK(access(path, F_OK) != 0);
    CHECK(!response_ended(&r, 0));
    hew_task_abort(r.t, "seen enough");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    CHECK(access(path, F_OK) != 0); /* an interrupted tool never runs */
    json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
    json_decref(o);
    taskrun_free(&r);
    buf_release(&sc);
    free(held);
    free(body);
    remove_held("half");
    tmpdir_remove(workspace);
}

/* P3: with parallel tool calling off the stream is really cut after the first tool: the
 * provider sees the connection closed after the first tool's bytes (its stall would last
 * two minutes), the second tool never runs, and the answer in the history carries the
 * "one tool per message" marker. */
static void test_serial_tools_cut_the_stream_after_the_first(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    const char *deltas[] = {"<write_to_file>\n<path>first.txt</path>\n<content>\n1\n</content>\n"
                            "</write_to_file>\n",
                            "<write_to_file>\n<path>second.txt</path>\n<content>\n2\n</content>\n"
                            "</write_to_file>\n"};
    size_t ends[2];
    char *body = anthropic_text_sse(deltas, 2, ends);
    char *held = held_response(body, ends[0], "serial");
    REQUIRE(held != NULL);
    buf sc = BUF_INIT(0);
    buf_printf(&sc, "{\"responses\":[%s," COMPLETE("one at a time") "]}", held);
    taskrun r;
    REQUIRE(run_start(&r, sc.data, "write two files", yolo_serial) == 0);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
    REQUIRE(o != NULL);
    CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
    CHECK_INT(json_integer_value(json_object_get(o, "bytes_sent")), (long long)ends[0]);
    CHECK(json_integer_value(json_object_get(o, "bytes_total")) > (json_int_t)ends[0]);
    json_decref(o);
    char path[400];
    snprintf(path, sizeof path, "%s/first.txt", workspace);
    CHECK(access(path, F_OK) == 0);
    snprintf(path, sizeof path, "%s/second.txt", workspace);
    CHECK(access(path, F_OK) != 0);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *answer = request_message_text(reqs, 1, 1);
    CHECK(strstr(answer, "second.txt") == NULL);
    CHECK(strstr(answer, "\n\n[Answer interrupted after a tool use. Only one tool may be used "
                         "per message, and it must be at the end of the message.]") != NULL);
    free(answer);
    json_decref(reqs);
    taskrun_free(&r);
    buf_release(&sc);
    free(held);
    free(body);
    remove_held("serial");
    tmpdir_remove(workspace);
}

/* ---- native tool calls: complete before the answer ends ---------------------------------- */

/* An answer of n write_to_file calls (file_k.txt) in one protocol's stream; ends[k] is
 * the byte offset just after the event that completes call k (Anthropic
 * content_block_stop, Responses output_item.done, Gemini's chunk holding the whole
 * functionCall). */
static char *native_calls_sse(const char *proto, const char *const *files, size_t n,
                              size_t *ends)
{
    buf b = BUF_INIT(0);
    bool anth = strcmp(proto, "anthropic") == 0, resp = strcmp(proto, "openai-responses") == 0;
    if (anth)
        buf_puts(&b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"
                     "\"msg_native\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
                     "\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":"
                     "{\"input_tokens\":100,\"output_tokens\":1}}}\n\n");
    if (resp)
        buf_puts(&b, "event: response.created\ndata: {\"type\":\"response.created\","
                     "\"sequence_number\":0,\"response\":{\"id\":\"resp_native\",\"status\":"
                     "\"in_progress\",\"output\":[]}}\n\n");
    for (size_t k = 0; k < n; k++) {
        json_t *args = json_pack("{s:s,s:s}", "path", files[k], "content", "x\n");
        char *a = json_dumps(args, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_t *ev;
        char *data;
        if (anth) {
            buf_printf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\","
                           "\"index\":%zu,\"content_block\":{\"type\":\"tool_use\",\"id\":"
                           "\"toolu_native%zu\",\"name\":\"write_to_file\",\"input\":{}}}\n\n",
                       k, k);
            ev = json_pack("{s:s,s:I,s:{s:s,s:s}}", "type", "content_block_delta", "index",
                           (json_int_t)k, "delta", "type", "input_json_delta", "partial_json", a);
            data = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
            buf_printf(&b, "event: content_block_delta\ndata: %s\n\n", data);
            buf_printf(&b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\","
                           "\"index\":%zu}\n\n", k);
        } else if (resp) {
            char id[32];
            snprintf(id, sizeof id, "call_native%zu", k);
            ev = json_pack("{s:s,s:I,s:I,s:{s:s,s:s,s:s,s:s,s:s}}", "type",
                           "response.output_item.done", "sequence_number", (json_int_t)k + 1,
                           "output_index", (json_int_t)k, "item", "type", "function_call", "id",
                           "fc_native", "call_id", id, "name", "write_to_file", "arguments", a);
            data = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
            buf_printf(&b, "event: response.output_item.done\ndata: %s\n\n", data);
        } else {
            ev = json_pack("{s:[{s:{s:s,s:[{s:{s:s,s:o}}]},s:i}]}", "candidates", "content",
                           "role", "model", "parts", "functionCall", "name", "write_to_file",
                           "args", json_incref(args), "index", 0);
            data = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
            buf_printf(&b, "data: %s\r\n\r\n", data);
        }
        ends[k] = b.len;
        free(data);
        json_decref(ev);
        free(a);
        json_decref(args);
    }
    if (anth)
        buf_puts(&b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
                     "{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":"
                     "{\"output_tokens\":40}}\n\nevent: message_stop\ndata: "
                     "{\"type\":\"message_stop\"}\n\n");
    else if (resp)
        buf_printf(&b, "event: response.completed\ndata: {\"type\":\"response.completed\","
                       "\"sequence_number\":%zu,\"response\":{\"id\":\"resp_native\",\"status\":"
                       "\"completed\",\"output\":[],\"usage\":{\"input_tokens\":100,"
                       "\"output_tokens\":40,\"total_tokens\":140}}}\n\n", n + 1);
    else
        buf_puts(&b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}],"
                     "\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}]}\r\n\r\n");
    return buf_detach(&b, NULL);
}

static const char *const native_protos[] = { "anthropic", "openai-responses", "gemini" };
static const char *native_proto;

static void native_yolo(hew_options *o)
{
    o->yolo = 1;
    o->native_tools = 1;
    o->protocol = native_proto;
}

static void native_yolo_serial(hew_options *o)
{
    native_yolo(o);
    o->parallel_tool_calls = 0;
}

#define COMPLETE_NATIVE_FOR(proto)                                                         \
    "{\"protocol\":\"%s\",\"tool_calls\":[{\"id\":\"toolu_native_done\",\"name\":"            \
    "\"attempt_completion\",\"arguments\":{\"result\":\"done\"}}]}", proto

/* P3 with native tool calls: a call the wire says is complete (Anthropic
 * content_block_stop, Responses output_item.done, Gemini's whole functionCall) runs while
 * the provider still holds the rest of the answer. */
static void test_native_call_runs_while_the_stream_goes_on(void)
{
    for (size_t p = 0; p < 3; p++) {
        native_proto = native_protos[p];
        check_current = native_proto;
        new_workspace();
        REQUIRE(workspace[0]);
        const char *files[] = { "early.txt", "later.txt" };
        size_t ends[2];
        char *body = native_calls_sse(native_proto, files, 2, ends);
        char *held = held_response(body, ends[0], "native");
        REQUIRE(held != NULL);
        buf sc = BUF_INIT(0);
        buf_printf(&sc, "{\"responses\":[%s]}", held);
        taskrun r;
        REQUIRE(run_start(&r, sc.data, "write early.txt", native_yolo) == 0);
        char path[400];
        snprintf(path, sizeof path, "%s/early.txt", workspace);
        CHECK(wait_file(path));
        CHECK(!response_ended(&r, 0)); /* the provider has not finished sending */
        hew_task_abort(r.t, "seen enough");
        CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
        json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
        REQUIRE(o != NULL);
        CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
        CHECK_INT(json_integer_value(json_object_get(o, "bytes_sent")), (long long)ends[0]);
        json_decref(o);
        snprintf(path, sizeof path, "%s/later.txt", workspace);
        CHECK(access(path, F_OK) != 0);
        taskrun_free(&r);
        buf_release(&sc);
        free(held);
        free(body);
        remove_held("native");
        tmpdir_remove(workspace);
    }
}

/* P4 with native tool calls: with parallel tool calling off the stream is cut right after
 * the first complete call; the second never runs; the next request is valid (the strict
 * fake would refuse it otherwise: the cut call gets its result). */
static void test_native_serial_calls_cut_the_stream_after_the_first(void)
{
    for (size_t p = 0; p < 3; p++) {
        native_proto = native_protos[p];
        check_current = native_proto;
        new_workspace();
        REQUIRE(workspace[0]);
        const char *files[] = { "first.txt", "second.txt" };
        size_t ends[2];
        char *body = native_calls_sse(native_proto, files, 2, ends);
        char *held = held_response(body, ends[0], "nserial");
        REQUIRE(held != NULL);
        buf sc = BUF_INIT(0);
        buf_printf(&sc, "{\"responses\":[%s,", held);
        buf_printf(&sc, COMPLETE_NATIVE_FOR(native_proto));
        buf_puts(&sc, "]}");
        taskrun r;
        REQUIRE(run_start(&r, sc.data, "write two files", native_yolo_serial) == 0);
        CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
        json_t *o = fakeprov_wait_outcome(&r.fp, 0, SAFETY_S);
        REQUIRE(o != NULL);
        CHECK_STR(json_string_value(json_object_get(o, "outcome")), "client_closed");
        CHECK_INT(json_integer_value(json_object_get(o, "bytes_sent")), (long long)ends[0]);
        json_decref(o);
        char path[400];
        snprintf(path, sizeof path, "%s/first.txt", workspace);
        CHECK(access(path, F_OK) == 0);
        snprintf(path, sizeof path, "%s/second.txt", workspace);
        CHECK(access(path, F_OK) != 0);
        char first[512];
        CHECK_INT(fakeprov_violations(&r.fp, first, sizeof first), 0);
        taskrun_free(&r);
        buf_release(&sc);
        free(held);
        free(body);
        remove_held("nserial");
        tmpdir_remove(workspace);
    }
}

static int reject_tools(taskrun *r, hew_task *t, const json_t *ev)
{
    if (strcmp(ev_type(ev), "tool") == 0)
        return hew_task_respond(t, HEW_ANSWER_NO, NULL);
    return default_policy(r, t, ev);
}

/* P9: after a rejection every later tool of the answer gets exactly the "skipped"
 * result, and the text after it is not said. The whole answer comes in one chunk, so the
 * later tool is complete before the first is even asked about. */
static void test_rejection_skips_later_tools_with_the_exact_result(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"anthropic\",\"deltas\":[\"I will "
                          "create it.\\n<write_to_file>\\n<path>a.txt</path>\\n<content>\\nhi\\n"
                          "</content>\\n</write_to_file>\\nMore words.\\n<ask_followup_question>\\n"
                          "<question>Next?</question>\\n</ask_followup_question>\"]},"
                          COMPLETE("understood") "]}",
                      "create a file", NULL) == 0);
    taskrun_set_policy(&r, reject_tools);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(taskrun_count_messages(&r, "followup"), 0);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    char *results = request_message_text(reqs, 1, 2);
    const char *expect =
        "[write_to_file for 'a.txt'] Result:\nThe user denied this operation. The file was not "
        "created.\n[ask_followup_question for 'Next?'] was skipped because the user rejected "
        "an earlier tool of this message.\n<environment_details>";
    if (strncmp(results, expect, strlen(expect)) != 0)
        fprintf(stderr, "tool results were:\n%s\n", results);
    CHECK(strncmp(results, expect, strlen(expect)) == 0);
    free(results);
    json_decref(reqs);
    taskrun_free(&r);
    tmpdir_remove(workspace);
}

static void native_tools_chat(hew_options *o)
{
    o->native_tools = 1;
    o->protocol = "openai-chat";
}

/* P14 with native tool calls: the skipped call gets exactly the "skipped" result, paired
 * with its tool_use id, right after the denied one. OpenAI Chat completes every call at
 * the end of the answer, so both calls are complete when the first is asked about (an
 * Anthropic call completes at its content_block_stop and may run while the next one
 * streams: that one gets the "cut off" result, or is not in the answer at all, depending
 * on how much of it had arrived). */
static void test_native_rejection_skips_later_calls_with_the_exact_result(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[{\"protocol\":\"openai-chat\",\"text\":\"Creating.\","
                          "\"tool_calls\":[{\"id\":\"toolu_A\",\"name\":\"write_to_file\","
                          "\"arguments\":{\"path\":\"a.txt\",\"content\":\"hi\"}},{\"id\":"
                          "\"toolu_B\",\"name\":\"ask_followup_question\",\"arguments\":"
                          "{\"question\":\"Next?\"}}]},{\"protocol\":\"openai-chat\",\"tool_calls\":"
                          "[{\"id\":\"toolu_C\",\"name\":\"attempt_completion\",\"arguments\":"
                          "{\"result\":\"understood\"}}]}]}",
                      "create a file", native_tools_chat) == 0);
    taskrun_set_policy(&r, reject_tools);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    CHECK_INT(taskrun_count_messages(&r, "followup"), 0);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    /* Chat: [system, user, assistant(tool_calls A, B), tool A, tool B, user, ...] */
    json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, 1), "body"), "messages");
    json_t *denied = json_array_get(msgs, 3), *skipped = json_array_get(msgs, 4);
    CHECK_STR(json_string_value(json_object_get(denied, "role")), "tool");
    CHECK_STR(json_string_value(json_object_get(denied, "tool_call_id")), "toolu_A");
    CHECK_STR(json_string_value(json_object_get(skipped, "role")), "tool");
    CHECK_STR(json_string_value(json_object_get(skipped, "tool_call_id")), "toolu_B");
    const char *text = json_string_value(json_object_get(skipped, "content"));
    char first[512];
    CHECK_INT(fakeprov_violations(&r.fp, first, sizeof first), 0);
    CHECK_STR(text, "[ask_followup_question for 'Next?'] was skipped because the user rejected "
                    "an earlier tool of this message.");
    json_decref(reqs);
    taskrun_free(&r);
    tmpdir_remove(workspace);
}


/* ---- attempt_api_request (seed 003) ------------------------------------------------------- */

#define TOO_LONG                                                                           \
    "{\"status\":400,\"body\":{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"," \
    "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}}"

/* A6 + A12 + A14: a context-window error with more than 3 messages left removes a quarter
 * at once (the 9 messages of request 4: 7 after the first pair, floor(7*3/4/2)*2 = 4
 * removed, so the retry carries 5); a second one in a row is not truncated automatically
 * again but asked about (api_req_failed, no error_retry); the user's yes sends the
 * request again, and only a new error would cut again. */
static void test_context_window_error_cuts_a_quarter_then_asks(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    taskrun r;
    REQUIRE(run_start(&r, "{\"responses\":[" FOLLOWUP("a?") "," FOLLOWUP("b?") "," FOLLOWUP("c?")
                          "," FOLLOWUP("d?") "," TOO_LONG "," TOO_LONG "," COMPLETE("fits") "]}",
                      "long task", NULL) == 0);
    pthread_mutex_lock(&r.mu);
    retries.retry_yes = 1;
    pthread_mutex_unlock(&r.mu);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 7);
    CHECK_INT(request_message_count(reqs, 4), 9);
    CHECK_INT(request_message_count(reqs, 5), 5); /* 4 removed: a quarter kept */
    CHECK_INT(request_message_count(reqs, 6), 5); /* asked, not cut again */
    CHECK_INT(taskrun_count_messages(&r, "api_req_failed"), 1);
    CHECK_INT(taskrun_count_messages(&r, "error_retry"), 0);
    CHECK(wait_final_with(&r, "api_req_failed", "Retry to remove older messages"));
    json_decref(reqs);
    taskrun_free(&r);
    tmpdir_remove(workspace);
}

/* Does any message of recorded request i hold needle? */
static bool request_has(json_t *reqs, size_t i, const char *needle)
{
    bool found = false;
    for (size_t m = 0; m < request_message_count(reqs, i) && !found; m++) {
        char *text = request_message_text(reqs, i, m);
        found = text && strstr(text, needle);
        free(text);
    }
    return found;
}

static void persisted(hew_options *o)
{
    o->persist = 1;
}

/* A6: the cut is saved at once: a task interrupted right after a context-window cut and
 * resumed sends the same cut view (the removed question "b?" stays out), plus the
 * resumption note. */
static void test_the_cut_survives_a_resume(void)
{
    new_workspace();
    REQUIRE(workspace[0]);
    const char *deltas[] = {"Carrying on with the task", " and more."};
    size_t ends[2];
    char *body = anthropic_text_sse(deltas, 2, ends);
    char *held = held_response(body, ends[0], "cut");
    REQUIRE(held != NULL);
    buf sc = BUF_INIT(0);
    buf_printf(&sc, "{\"responses\":[" FOLLOWUP("a?") "," FOLLOWUP("b?") "," FOLLOWUP("c?") ","
                    FOLLOWUP("d?") "," TOO_LONG ",%s," COMPLETE("fits") "]}", held);
    taskrun r;
    REQUIRE(run_start(&r, sc.data, "long task", persisted) == 0);
    CHECK(taskrun_wait_event(&r, "text", "Carrying on"));
    hew_task_abort(r.t, "the laptop lid closed");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(r.t));
    hew_task_free(r.t);
    char err[256];
    (void)hew_task_resume(r.s, id, &r.t, err, sizeof err);
    REQUIRE(r.t != NULL);
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_COMPLETED);
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 7);
    CHECK(request_has(reqs, 4, "b?</question>"));
    CHECK(!request_has(reqs, 5, "b?</question>"));
    CHECK(!request_has(reqs, 6, "b?</question>")); /* the resumed request: still cut */
    CHECK(request_has(reqs, 6, "[TASK RESUMPTION]"));
    CHECK(request_has(reqs, 6, "d?</question>"));
    json_decref(reqs);
    taskrun_free(&r);
    buf_release(&sc);
    free(held);
    free(body);
    remove_held("cut");
    tmpdir_remove(workspace);
}

/* SEEDS_ONLY=name runs one test (debugging). */
#undef RUN
#define RUN(fn)                                                                            \
    do {                                                                                   \
        const char *only_ = getenv("SEEDS_ONLY");                                          \
        if (!only_ || strcmp(only_, #fn) == 0) {                                           \
            check_current = #fn;                                                           \
            fn();                                                                          \
        }                                                                                  \
    } while (0)

int main(void)
{
    RUN(test_outcome_record_complete);
    RUN(test_tool_runs_while_the_stream_goes_on);
    RUN(test_blocks_already_there_are_presented_at_once);
    RUN(test_blocks_arriving_during_an_approval_are_presented);
    RUN(test_a_partial_tool_is_shown_not_run);
    RUN(test_serial_tools_cut_the_stream_after_the_first);
    RUN(test_native_call_runs_while_the_stream_goes_on);
    RUN(test_native_serial_calls_cut_the_stream_after_the_first);
    RUN(test_rejection_skips_later_tools_with_the_exact_result);
    RUN(test_native_rejection_skips_later_calls_with_the_exact_result);
    RUN(test_context_window_error_cuts_a_quarter_then_asks);
    RUN(test_the_cut_survives_a_resume);
    return check_report();
}
