/* Crash safety of a task (issue #7): the real `hew -p` runs scripted tasks and is killed
 * with SIGKILL at seeded random moments (at least 50 kills); after each kill, every
 * message hew had emitted complete (a non-partial event) must be in the store exactly as
 * emitted, the database must open, and the task must resume and complete. */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "fakeprov.h"
#include "hew.h"
#include "store/store.h"
#include "tmpdir.h"

#define KILLS 50

#define STEP(q)                                                                            \
    "{\"protocol\":\"anthropic\",\"text\":\"Step " q " of the plan, explained at some length "   \
    "so that the text streams for a while.\\n<list_files><path>.</path></list_files>\","     \
    "\"delta_size\":8,\"delay_ms\":4}"
#define DONE                                                                               \
    "{\"protocol\":\"anthropic\",\"text\":\"<attempt_completion><result>all done</result>"     \
    "</attempt_completion>\"}"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Run hew -p --json --yolo in ws with its data in data; kill it after delay_ms. The
 * non-partial events it printed go into seen (an array). A delay under EARLY_MS counts
 * from the start (a kill before or during start-up); a longer one from hew's first line,
 * so that a slow start on a loaded machine does not turn every kill into an early one. */
#define EARLY_MS 60
static void run_and_kill(const char *url, const char *ws, const char *data, long delay_ms,
                         json_t *seen)
{
    int out[2];
    if (pipe(out) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(devnull, 2);
        setenv("XDG_DATA_HOME", data, 1);
        setenv("ANTHROPIC_API_KEY", "crash-test-key", 1);
        execl(HEW_BIN, HEW_BIN, "-p", "walk the plan", "--json", "--yolo", "--xml-tools",
              "--provider", "anthropic", "--model", "claude-crash", "--base-url", url, "--cwd",
              ws, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    long start = now_ms(), t0 = start;
    bool waiting = delay_ms >= EARLY_MS; /* for the first line, before the delay runs */
    buf acc = BUF_INIT(0);
    char chunk[4096];
    while (waiting ? now_ms() - start < 60000 : now_ms() - t0 < delay_ms) {
        ssize_t n = read(out[0], chunk, sizeof chunk);
        if (n > 0) {
            buf_append(&acc, chunk, (size_t)n);
            if (waiting && memchr(acc.data, '\n', acc.len)) {
                waiting = false; /* the first line: the delay counts from here */
                t0 = now_ms();
            }
        } else if (n == 0) {
            break; /* it ended before the kill */
        } else {
            struct timespec d = { 0, 1000000L };
            nanosleep(&d, NULL);
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ssize_t n;
    while ((n = read(out[0], chunk, sizeof chunk)) > 0)
        buf_append(&acc, chunk, (size_t)n);
    close(out[0]);
    /* Complete lines only: the last one may have been cut by the kill. */
    const char *p = acc.data ? acc.data : "";
    const char *nl;
    while ((nl = strchr(p, '\n'))) {
        json_t *ev = json_loadb(p, (size_t)(nl - p), 0, NULL);
        if (ev && !json_is_true(json_object_get(ev, "partial")) &&
            json_object_get(ev, "index"))
            json_array_append(seen, ev);
        json_decref(ev);
        p = nl + 1;
    }
    buf_release(&acc);
}

static int answer_yes(void *ud)
{
    (void)ud;
    return 0;
}

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    (void)ud;
    if (ev->is_ask && !ev->partial)
        hew_task_respond(t, HEW_ANSWER_YES, NULL);
}

static void test_kills_lose_nothing_committed(void)
{
    unsigned seed = 20261202;
    int resumed = 0, with_messages = 0;
    for (int k = 0; k < KILLS; k++) {
        char *ws = tmpdir_make("crash-ws");
        char *data = tmpdir_make("crash-data");
        REQUIRE(ws && data);
        fakeprov fp;
        REQUIRE(fakeprov_start(&fp, "{\"responses\":[" STEP("one") "," STEP("two") "," STEP("three")
                                    "," DONE "]}") == 0);
        seed = seed * 1103515245u + 12345u;
        long delay = 20 + (long)((seed >> 8) % 600); /* from before the first byte to the end */
        json_t *seen = json_array();
        run_and_kill(fp.url, ws, data, delay, seen);
        fakeprov_stop(&fp);

        /* The store opens, and everything emitted complete is there as emitted. */
        char db[600];
        snprintf(db, sizeof db, "%s/hew/hew.db", data);
        store_options so = STORE_OPTIONS_INIT;
        so.path = db;
        store *s = NULL;
        hew_err err = HEW_ERR_INIT;
        char id[64] = "";
        if (access(db, F_OK) == 0) {
            CHECK_INT(store_open(&so, &s, &err), HEW_OK);
            store_query q = STORE_QUERY_INIT;
            store_task *items = NULL;
            size_t n = 0;
            if (s && store_task_list(s, &q, &items, &n, &err) == HEW_OK && n == 1)
                snprintf(id, sizeof id, "%s", items[0].id);
            store_task_list_free(items, n);
            if (id[0]) {
                store_loaded l = STORE_LOADED_INIT;
                CHECK_INT(store_task_load(s, id, &l, &err), HEW_OK);
                size_t i;
                json_t *ev;
                json_array_foreach(seen, i, ev) {
                    json_int_t index = json_integer_value(json_object_get(ev, "index"));
                    json_t *stored = json_array_get(l.ui, (size_t)index);
                    /* A complete message's type and text never change; its data may grow
                     * later (usage, a commit hash), and the store may hold a newer version
                     * than the one printed (it is written before the front end hears). */
                    json_t *st_text = stored ? json_object_get(stored, "text") : NULL;
                    json_t *ev_text = json_object_get(ev, "text");
                    bool same_text = (!st_text && !ev_text) ||
                                     (st_text && ev_text && json_equal(st_text, ev_text));
                    check_count++;
                    if (!stored || !same_text ||
                        !json_equal(json_object_get(stored, "type"), json_object_get(ev, "type")))
                        check_fail(__FILE__, __LINE__, "kill %d: message %lld lost or changed",
                                   k, (long long)index);
                }
                store_loaded_release(&l);
            }
            store_free(s);
        } else {
            CHECK_INT(json_array_size(seen), 0); /* no store: nothing was emitted */
        }
        if (json_array_size(seen))
            with_messages++;

        /* The task resumes and completes. */
        if (id[0]) {
            fakeprov fp2;
            REQUIRE(fakeprov_start(&fp2, "{\"responses\":[" DONE "," DONE "]}") == 0);
            hew_options o;
            hew_options_init(&o);
            o.provider = "anthropic";
            o.model = "claude-crash";
            o.api_key = "crash-test-key";
            o.base_url = fp2.url;
            o.cwd = ws;
            o.yolo = 1;
            o.native_tools = 0;
            o.checkpoints = 0;
            char dd[600];
            snprintf(dd, sizeof dd, "%s/hew", data);
            o.data_dir = dd;
            o.on_event = on_event;
            char e[256];
            hew_session *sess = NULL;
            (void)hew_session_new(&o, &sess, e, sizeof e);
            REQUIRE(sess != NULL);
            hew_task *t = NULL;
            (void)hew_task_resume(sess, id, &t, e, sizeof e);
            REQUIRE(t != NULL);
            hew_task_status st = hew_task_wait(t);
            check_count++;
            if (st != HEW_TASK_COMPLETED)
                check_fail(__FILE__, __LINE__, "kill %d: resume ended %d: %s", k, (int)st,
                           hew_task_result(t));
            else
                resumed++;
            hew_task_free(t);
            hew_session_free(sess);
            fakeprov_stop(&fp2);
        }
        json_decref(seen);
        tmpdir_remove(ws);
        tmpdir_remove(data);
        free(ws);
        free(data);
    }
    fprintf(stderr, "crash: %d kills, %d after messages were emitted, %d resumed to completion\n",
            KILLS, with_messages, resumed);
    CHECK(with_messages >= KILLS / 2);
    (void)answer_yes;
}

int main(void)
{
    RUN(test_kills_lose_nothing_committed);
    return check_report();
}
