/* Images attached to an answer (hew_task_respond_with_images) through the public API
 * against the strict fake provider: where they reach the model (after the answer in the
 * question's or the completion's tool result, XML and native; after the tool's result for
 * feedback on a denied approval; after the resume note), what the user_feedback event
 * says of them, and each refusal, after which the ask still waits for a good answer;
 * hew_images_check refuses what they refuse. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "taskrun.h"
#include "tmpdir.h"

/* A valid 1x1 RGBA PNG: small enough to be sent as it is. */
static const unsigned char png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
    0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78,
    0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
};

static char *data_dir;

/* ---- harness: taskrun (tests/support/taskrun.h); the test thread answers the asks ------ */

static const char *ev_str(const json_t *ev, const char *key)
{
    return json_string_value(json_object_get(ev, key));
}

/* Wait for the next final ask after the first `seen` events; its type in *type (the
 * events' storage: valid while the run lives). The event count after it, or 0 when none
 * came. */
static size_t wait_ask(taskrun *r, size_t seen, const char **type)
{
    size_t found = taskrun_wait(r, seen, &(taskrun_match){ .kind = "ask", .final = 1 });
    if (found) {
        pthread_mutex_lock(&r->mu);
        *type = ev_str(json_array_get(r->events, found - 1), "type");
        pthread_mutex_unlock(&r->mu);
    }
    return found;
}

/* wait_ask for an ask of the type want: the event count after it, or 0 when the next ask
 * did not come or was another. */
static size_t expect_ask(taskrun *r, size_t seen, const char *want)
{
    const char *type = NULL;
    seen = wait_ask(r, seen, &type);
    return seen && strcmp(type, want) == 0 ? seen : 0;
}

/* Accept the completion asked after the first `seen` events and see the task complete;
 * 0 when that ask did not come (the test stops there). */
static int accept_completion(taskrun *r, size_t seen)
{
    if (!expect_ask(r, seen, "completion_result"))
        return 0;
    CHECK_INT(hew_task_respond(r->t, HEW_ANSWER_YES, NULL), HEW_OK);
    CHECK_INT(hew_task_wait(r->t), HEW_TASK_COMPLETED);
    return 1;
}

/* This file's options: a model that reads images, hew's data and workspace in the test's
 * directory, no sandbox. */
static void image_options(hew_options *o)
{
    o->model = "claude-sonnet-4-5";
    o->data_dir = data_dir;
    o->cwd = data_dir;
    o->sandbox_mode = "danger-full-access";
}

static void xml_model(hew_options *o)
{
    (void)o;
}

static void native_model(hew_options *o)
{
    o->native_tools = 1;
}

static void no_images_model(hew_options *o)
{
    o->model = "claude-test-model"; /* not in hew's table: assumed to read no images */
}

static void ask_edits(hew_options *o)
{
    o->auto_approve_edit = 0;
}

/* Start the run and wait for its first ask, which must be of the type want: the event
 * count after it, or 0 when the run did not start or the ask was another. */
static size_t start_at_ask(taskrun *r, const char *scenario, taskrun_tweak tweak,
                           const char *want)
{
    if (taskrun_start(r, &(taskrun_spec){ .scenario = scenario, .task = "Pick a colour",
                                          .defaults = image_options, .tweak = tweak }) != 0)
        return 0;
    return expect_ask(r, 0, want);
}

/* The last user_feedback event's data.images as one comma-joined string (static storage:
 * valid until the next call). */
static const char *feedback_captions(taskrun *r)
{
    static char out[512];
    size_t cap = sizeof out;
    out[0] = '\0';
    pthread_mutex_lock(&r->mu);
    size_t i;
    json_t *ev;
    json_array_foreach(r->events, i, ev) {
        const char *type = ev_str(ev, "type");
        if (!type || strcmp(type, "user_feedback") != 0)
            continue;
        out[0] = '\0';
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(json_object_get(ev, "data"), "images"), k, c)
            snprintf(out + strlen(out), cap - strlen(out), "%s%s", k ? "," : "",
                     json_string_value(c));
    }
    pthread_mutex_unlock(&r->mu);
    return out;
}

/* The content blocks of request i's last message (a new reference; an array). */
static json_t *last_message_blocks(json_t *reqs, size_t i)
{
    json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages");
    json_t *last = json_array_get(msgs, json_array_size(msgs) - 1);
    json_t *c = json_object_get(last, "content");
    return json_is_array(c) ? json_incref(c) : json_array();
}

/* Whether block b is the PNG above, as an Anthropic image block, byte for byte. */
static int is_our_png(const json_t *b)
{
    json_t *src = json_object_get(b, "source");
    char *want = base64_encode(png, sizeof png);
    int ok = strcmp(ev_str(b, "type") ? ev_str(b, "type") : "", "image") == 0 &&
             strcmp(ev_str(src, "type") ? ev_str(src, "type") : "", "base64") == 0 &&
             strcmp(ev_str(src, "media_type") ? ev_str(src, "media_type") : "",
                    "image/png") == 0 &&
             want && strcmp(ev_str(src, "data") ? ev_str(src, "data") : "", want) == 0;
    free(want);
    return ok;
}

static int no_violations(taskrun *r)
{
    char first[512];
    int n = fakeprov_violations(&r->fp, first, sizeof first);
    if (n != 0)
        fprintf(stderr, "strict fake refused %d request(s): %s\n", n, first);
    return n == 0;
}

/* Request req (of n recorded) carries, in its last message, the PNG right after the first
 * text block holding both needles (b may be NULL), and the strict fake refused nothing. */
static int image_follows(taskrun *r, size_t n, size_t req, const char *a, const char *b)
{
    json_t *reqs = fakeprov_requests(&r->fp);
    if (json_array_size(reqs) != n) {
        fprintf(stderr, "%zu requests, not %zu\n", json_array_size(reqs), n);
        json_decref(reqs);
        return 0;
    }
    json_t *blocks = last_message_blocks(reqs, req);
    size_t text = (size_t)-1, img = (size_t)-1, i;
    json_t *blk;
    json_array_foreach(blocks, i, blk) {
        const char *t = ev_str(blk, "text");
        if (t && text == (size_t)-1 && strstr(t, a) && (!b || strstr(t, b)))
            text = i;
        if (is_our_png(blk) && img == (size_t)-1)
            img = i;
    }
    json_decref(blocks);
    json_decref(reqs);
    if (text == (size_t)-1 || img != text + 1)
        fprintf(stderr, "text block %ld, image block %ld\n", (long)text, (long)img);
    return text != (size_t)-1 && img == text + 1 && no_violations(r);
}

#define FOLLOWUP_XML                                                                       \
    "{\"protocol\":\"anthropic\",\"text\":\"<ask_followup_question><question>Which colour?"  \
    "</question></ask_followup_question>\"}"
#define COMPLETE_XML(res)                                                                  \
    "{\"protocol\":\"anthropic\",\"text\":\"<attempt_completion><result>" res                \
    "</result></attempt_completion>\"}"

/* ---- the tests ---------------------------------------------------------------------------- */

/* XML tools: the question's answer, then the image, in the next user message; the
 * refusals first, each leaving the ask waiting. */
static void test_followup_answer_with_image_xml(void)
{
    taskrun r;
    size_t seen = start_at_ask(&r, "{\"responses\":[" FOLLOWUP_XML "," COMPLETE_XML("blue it is")
                                   "]}", xml_model, "followup");
    REQUIRE(seen);
    char err[512] = "";
    hew_image bad64 = { .data = "not base64!", .len = 11, .base64 = 1 };
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "x", &bad64, 1, err,
                                           sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "image 1") && strstr(err, "base64"));
    size_t big = ((size_t)20 << 20) / 3 * 4 + 4000; /* decoded: over the 20 MiB hew reads */
    char *huge64 = malloc(big);
    REQUIRE(huge64 != NULL);
    memset(huge64, 'A', big);
    hew_image huge = { .data = huge64, .len = big, .base64 = 1, .name = "huge.png" };
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "x", &huge, 1, err,
                                           sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "huge.png: the image is about") != NULL); /* refused undecoded */
    free(huge64);
    hew_image text = { .data = "hello, not an image", .len = 19, .name = "notes.txt" };
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "x", &text, 1, err,
                                           sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "notes.txt") != NULL);
    CHECK_INT(hew_images_check(r.s, &text, 1, err, sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "notes.txt") != NULL);
    hew_image missing = { .path = "/nonexistent/shot.png" };
    CHECK_INT(hew_images_check(r.s, &missing, 1, err, sizeof err), HEW_E_NOTFOUND);
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "x", &missing, 1, err,
                                           sizeof err), HEW_E_NOTFOUND);
    hew_image raw = { .data = (const char *)png, .len = sizeof png, .name = "swatch.png" };
    CHECK_INT(hew_images_check(r.s, &raw, 1, err, sizeof err), HEW_OK);
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_YES_BY_RULE, NULL, &raw, 1, err,
                                           sizeof err), HEW_E_INVALID);
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "x", &raw,
                                           HEW_TASK_IMAGES_MAX + 1, err, sizeof err),
              HEW_E_INVALID);
    /* after every refusal the question still waits: this answer is taken */
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "this one", &raw, 1, err,
                                           sizeof err), HEW_OK);
    REQUIRE(accept_completion(&r, seen));
    /* not waiting any more */
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "late", &raw, 1, err,
                                           sizeof err), HEW_E_STATE);
    CHECK_STR(feedback_captions(&r), "swatch.png, 1x1 png");
    /* [the tool's result text] [the image] [environment details] */
    CHECK(image_follows(&r, 2, 1, "<answer>\nthis one\n</answer>", NULL));
    taskrun_free(&r);
}

/* Native tools: the image inside the question's tool_result, after its text; base64 data
 * given in base64 is decoded and sent again as the same bytes. */
static void test_followup_answer_with_image_native(void)
{
    taskrun r;
    size_t seen = start_at_ask(&r, "{\"responses\":["
                               "{\"protocol\":\"anthropic\",\"tool_calls\":[{\"id\":\"toolu_Q1\","
                               "\"name\":\"ask_followup_question\",\"arguments\":{\"question\":"
                               "\"Which colour?\"}}]},"
                               "{\"protocol\":\"anthropic\",\"tool_calls\":[{\"id\":\"toolu_C2\","
                               "\"name\":\"attempt_completion\",\"arguments\":{\"result\":"
                               "\"ok\"}}]}]}",
                               native_model, "followup");
    REQUIRE(seen);
    char *b64 = base64_encode(png, sizeof png);
    hew_image img = { .data = b64, .len = strlen(b64), .base64 = 1 };
    char err[512] = "";
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "green", &img, 1, err,
                                           sizeof err), HEW_OK);
    free(b64);
    REQUIRE(accept_completion(&r, seen));
    CHECK_STR(feedback_captions(&r), "image 1, 1x1 png");
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 2);
    json_t *blocks = last_message_blocks(reqs, 1);
    json_t *result = json_array_get(blocks, 0);
    CHECK_STR(ev_str(result, "type"), "tool_result");
    CHECK_STR(ev_str(result, "tool_use_id"), "toolu_Q1");
    json_t *inner = json_object_get(result, "content");
    REQUIRE(json_is_array(inner) && json_array_size(inner) == 2);
    CHECK(strstr(ev_str(json_array_get(inner, 0), "text"), "<answer>\ngreen\n</answer>"));
    CHECK(is_our_png(json_array_get(inner, 1)));
    CHECK(no_violations(&r));
    json_decref(blocks);
    json_decref(reqs);
    taskrun_free(&r);
}

/* Feedback of images alone on a completion: not an acceptance; the task goes on with the
 * image after the feedback. */
static void test_completion_feedback_of_an_image_alone(void)
{
    taskrun r;
    size_t seen = start_at_ask(&r, "{\"responses\":[" COMPLETE_XML("first try") ","
                               COMPLETE_XML("second try") "]}", xml_model, "completion_result");
    REQUIRE(seen);
    hew_image raw = { .data = (const char *)png, .len = sizeof png, .name = "bug.png" };
    char err[512] = "";
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, NULL, &raw, 1, err,
                                           sizeof err), HEW_OK);
    REQUIRE(accept_completion(&r, seen));
    CHECK_STR(hew_task_result(r.t), "second try");
    CHECK(image_follows(&r, 2, 1, "not satisfied yet", "<feedback>"));
    taskrun_free(&r);
}

/* A denied edit with feedback and an image: the image follows the tool's result; the
 * file is not written. */
static void test_denied_approval_feedback_with_image(void)
{
    taskrun r;
    size_t seen = start_at_ask(&r, "{\"responses\":["
                               "{\"protocol\":\"anthropic\",\"text\":\"<write_to_file><path>ui.css"
                               "</path><content>a{}\\n</content></write_to_file>\"},"
                               COMPLETE_XML("left alone") "]}", ask_edits, "tool");
    REQUIRE(seen);
    hew_image raw = { .data = (const char *)png, .len = sizeof png, .name = "look.png" };
    char err[512] = "";
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_NO, "not like this", &raw, 1, err,
                                           sizeof err), HEW_OK);
    REQUIRE(accept_completion(&r, seen));
    CHECK_STR(feedback_captions(&r), "look.png, 1x1 png");
    CHECK(image_follows(&r, 2, 1, "not like this", NULL));
    taskrun_free(&r);
}

/* A model that reads no images: refused with its name, the ask still waits. */
static void test_model_without_images_is_refused(void)
{
    taskrun r;
    size_t seen = start_at_ask(&r, "{\"responses\":[" FOLLOWUP_XML "," COMPLETE_XML("ok") "]}",
                               no_images_model, "followup");
    REQUIRE(seen);
    hew_image raw = { .data = (const char *)png, .len = sizeof png };
    char err[512] = "";
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "x", &raw, 1, err,
                                           sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "claude-test-model") && strstr(err, "does not read images"));
    CHECK_INT(hew_images_check(r.s, &raw, 1, err, sizeof err), HEW_E_INVALID);
    CHECK(strstr(err, "does not read images") != NULL);
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "plain", NULL, 0, err,
                                           sizeof err), HEW_OK);
    REQUIRE(accept_completion(&r, seen));
    taskrun_free(&r);
}

/* Count the PNG blocks in every message of request i (tool_result contents too). */
static size_t count_pngs(json_t *reqs, size_t i)
{
    json_t *msgs = json_object_get(json_object_get(json_array_get(reqs, i), "body"), "messages");
    size_t n = 0, k, j;
    json_t *m, *b;
    json_array_foreach(msgs, k, m) {
        json_array_foreach(json_object_get(m, "content"), j, b) {
            n += (size_t)is_our_png(b);
            size_t q;
            json_t *inner;
            json_array_foreach(json_object_get(b, "content"), q, inner)
                n += (size_t)is_our_png(inner);
        }
    }
    return n;
}

/* A stopped task resumed with an answer that holds an image: after the resume note; the
 * image of an earlier answer is still in the stored conversation. */
static void test_resume_answer_with_image(void)
{
    taskrun r;
    size_t seen = start_at_ask(&r, "{\"responses\":[" FOLLOWUP_XML "," COMPLETE_XML("first") ","
                               COMPLETE_XML("resumed") "]}", xml_model, "followup");
    REQUIRE(seen);
    hew_image raw = { .data = (const char *)png, .len = sizeof png, .name = "then.png" };
    char err[512] = "";
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "red", &raw, 1, err,
                                           sizeof err), HEW_OK);
    seen = expect_ask(&r, seen, "completion_result");
    REQUIRE(seen);
    hew_task_abort(r.t, "stopped by the test");
    CHECK_INT(hew_task_wait(r.t), HEW_TASK_ABORTED);
    char id[64];
    snprintf(id, sizeof id, "%s", hew_task_id(r.t));
    hew_task_free(r.t);
    r.t = NULL;
    pthread_mutex_lock(&r.mu);
    seen = json_array_size(r.events);
    pthread_mutex_unlock(&r.mu);
    REQUIRE(hew_task_resume(r.s, id, &r.t, err, sizeof err) == HEW_OK);
    /* the replayed asks are answered no more: the first waiting one is the resume ask */
    for (;;) {
        const char *type = NULL;
        seen = wait_ask(&r, seen, &type);
        REQUIRE(seen);
        if (strncmp(type, "resume_", 7) == 0)
            break;
    }
    raw.name = "now.png";
    CHECK_INT(hew_task_respond_with_images(r.t, HEW_ANSWER_MESSAGE, "go on, see this", &raw,
                                           1, err, sizeof err), HEW_OK);
    REQUIRE(accept_completion(&r, seen));
    CHECK_STR(hew_task_result(r.t), "resumed");
    json_t *reqs = fakeprov_requests(&r.fp);
    REQUIRE(json_array_size(reqs) == 3);
    CHECK_INT((long)count_pngs(reqs, 2), 2); /* the stored answer's and the new one */
    json_decref(reqs);
    CHECK(image_follows(&r, 3, 2, "[TASK RESUMPTION]", "go on, see this"));
    CHECK_STR(feedback_captions(&r), "now.png, 1x1 png");
    taskrun_free(&r);
}

int main(void)
{
    data_dir = tmpdir_make("answer-images");
    if (!data_dir)
        return 1;
    RUN(test_followup_answer_with_image_xml);
    RUN(test_followup_answer_with_image_native);
    RUN(test_completion_feedback_of_an_image_alone);
    RUN(test_denied_approval_feedback_with_image);
    RUN(test_model_without_images_is_refused);
    RUN(test_resume_answer_with_image);
    tmpdir_remove(data_dir);
    free(data_dir);
    return check_report();
}
