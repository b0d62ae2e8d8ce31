/* A long answer (past API_TURN_TEXT_PART) goes back to the provider whole on the next
 * request, on each of the four protocols, and the strict fake provider accepts it: the
 * history holds it as consecutive text blocks (api/turn.h), which every protocol reads
 * as one text — joined, they are the answer byte for byte. The request is the same
 * whether the answer's text waited on disk while it streamed (a store: the spill folder
 * is the store's) or stayed in memory (no store), and the spill leaves no file behind. */
#include <dirent.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "tmpdir.h"

#define DONE "<attempt_completion><result>long</result></attempt_completion>"

static const struct proto {
    const char *fake, *provider, *protocol, *model;
    const char *list, *role_key, *role, *parts_key, *text_key; /* where the answer is */
} protos[] = {
    { "anthropic", "anthropic", NULL, "claude-sonnet-4-5", "messages", "role", "assistant",
      "content", "text" },
    { "openai-chat", "openai", NULL, "gpt-4.1", "messages", "role", "assistant", "content",
      "text" },
    { "openai-responses", "openai", "openai-responses", "gpt-5", "input", "role", "assistant",
      "content", "text" },
    { "gemini", "gemini", NULL, "gemini-2.5-pro", "contents", "role", "model", "parts",
      "text" },
};

static void nap(void)
{
    struct timespec d = { 0, 5 * 1000000L };
    nanosleep(&d, NULL);
}

/* The assistant's text in a request body, joined; *nparts gets how many pieces. */
static void answer_in(const struct proto *p, const json_t *body, buf *out, size_t *nparts)
{
    *nparts = 0;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(body, p->list), i, m) {
        const char *role = json_string_value(json_object_get(m, p->role_key));
        if (!role || strcmp(role, p->role) != 0)
            continue;
        const json_t *c = json_object_get(m, p->parts_key);
        if (json_is_string(c)) {
            buf_append(out, json_string_value(c), json_string_length(c));
            (*nparts)++;
            continue;
        }
        size_t k;
        json_t *part;
        json_array_foreach(c, k, part) {
            const json_t *tx = json_object_get(part, p->text_key);
            if (json_is_string(tx)) {
                buf_append(out, json_string_value(tx), json_string_length(tx));
                (*nparts)++;
            }
        }
    }
}

static size_t spill_files(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, ".hew-spill", 10) == 0; /* a spill file with a name */
    if (d)
        closedir(d);
    return n;
}

/* One run: the long answer, hew's nudge (no tool was used), the completion. The joined
 * answer of the second request goes to sent. */
static void run(const struct proto *p, const char *scenario, bool store, buf *sent,
                size_t *nparts)
{
    char *data = tmpdir_make("long-data");
    char *ws = tmpdir_make("long-ws");
    REQUIRE(data && ws);
    fakeprov fp;
    REQUIRE(fakeprov_start(&fp, scenario) == 0);
    hew_options o;
    hew_options_init(&o);
    o.provider = p->provider;
    o.protocol = p->protocol;
    o.model = p->model;
    o.api_key = "long-key";
    o.base_url = fp.url;
    o.cwd = ws;
    o.native_tools = 0;
    o.checkpoints = 0;
    o.persist = store;
    o.data_dir = data;
    char err[256];
    hew_session *s = NULL;
    REQUIRE(hew_session_new(&o, &s, err, sizeof err) == HEW_OK);
    hew_task *t = NULL;
    REQUIRE(hew_task_start(s, "Write at length.", &t, err, sizeof err) == HEW_OK);
    while (hew_task_status_now(t) == HEW_TASK_RUNNING &&
           hew_task_respond(t, HEW_ANSWER_YES, NULL) != 0)
        nap();
    CHECK_INT(hew_task_wait(t), HEW_TASK_COMPLETED);
    hew_task_free(t);
    hew_session_free(s);
    char first[512];
    CHECK_INT(fakeprov_violations(&fp, first, sizeof first), 0);
    json_t *reqs = fakeprov_requests(&fp);
    CHECK_INT(json_array_size(reqs), 2);
    answer_in(p, json_object_get(json_array_get(reqs, 1), "body"), sent, nparts);
    json_decref(reqs);
    CHECK_INT(spill_files(data), 0); /* the spill file has no name: nothing left */
    fakeprov_stop(&fp);
    tmpdir_remove(data);
    tmpdir_remove(ws);
    free(data);
    free(ws);
}

static void test_long_answer_on_every_protocol(void)
{
    buf answer = BUF_INIT(0);
    for (unsigned i = 0; answer.len < 2300000; i++)
        buf_printf(&answer, "line %u: caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80\\n", i);
    for (size_t k = 0; k < sizeof protos / sizeof protos[0]; k++) {
        const struct proto *p = &protos[k];
        buf scen = BUF_INIT(0);
        buf_printf(&scen,
                   "{\"responses\":[{\"protocol\":\"%s\",\"text\":\"%s\",\"delta_size\":"
                   "65536},{\"protocol\":\"%s\",\"text\":\"" DONE "\"}]}",
                   p->fake, answer.data, p->fake);
        /* the answer as the model wrote it: the scenario's "\n" escapes are newlines */
        buf want = BUF_INIT(0);
        for (size_t i = 0; i < answer.len; i++) {
            if (answer.data[i] == '\\' && answer.data[i + 1] == 'n') {
                buf_putc(&want, '\n');
                i++;
            } else {
                buf_putc(&want, answer.data[i]);
            }
        }
        buf spilled = BUF_INIT(0), kept = BUF_INIT(0);
        size_t np_spilled = 0, np_kept = 0;
        run(p, scen.data, true, &spilled, &np_spilled);
        run(p, scen.data, false, &kept, &np_kept);
        CHECK(spilled.len == want.len && memcmp(spilled.data, want.data, want.len) == 0);
        CHECK(kept.len == spilled.len && memcmp(kept.data, spilled.data, kept.len) == 0);
        CHECK_INT(np_spilled, np_kept);
        if (strcmp(p->fake, "openai-chat") == 0)
            CHECK_INT(np_spilled, 1); /* Chat joins an assistant's text into one string */
        else
            CHECK_INT(np_spilled, 3); /* 2.3 MB: three blocks of at most 1 MiB */
        buf_release(&spilled);
        buf_release(&kept);
        buf_release(&want);
        buf_release(&scen);
    }
    buf_release(&answer);
}

int main(void)
{
    RUN(test_long_answer_on_every_protocol);
    return check_report();
}
