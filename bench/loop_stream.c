/* loop_stream — the whole streaming path under load: a 10 MB answer streamed by the fake
 * provider in 16-byte text deltas with no delay, through HTTP, SSE, the provider decoder,
 * the parser, the presenter and the event machinery to a null front end (which only
 * answers the final ask). Prints wall time, hew's CPU time and peak RSS. Exits non-zero
 * when the task does not complete with the expected result (so it cannot silently
 * measure nothing). */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "fakeprov.h"
#include "hew.h"

/* 10 MiB by default; HEW_BENCH_MB=N for another size (profiling runs), HEW_BENCH_KB=N for
 * a small one (what the run costs without the answer: the base the answer adds to). */
static size_t answer_bytes(void)
{
    const char *kb = getenv("HEW_BENCH_KB");
    if (kb && strtol(kb, NULL, 10) > 0)
        return (size_t)strtol(kb, NULL, 10) << 10;
    const char *mb = getenv("HEW_BENCH_MB");
    long n = mb ? strtol(mb, NULL, 10) : 10;
    return (size_t)(n > 0 ? n : 10) << 20;
}
#define ANSWER_BYTES answer_bytes()

static size_t events_seen;

static void on_event(void *ud, hew_task *t, const hew_event *ev)
{
    (void)ud;
    events_seen++;
    if (ev->is_ask && !ev->partial)
        hew_task_respond(t, HEW_ANSWER_YES, NULL);
}

static double seconds(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Prose of about ANSWER_BYTES, then the completion. */
static char *scenario_text(void)
{
    static const char *words[] = { "the", "parser", "streams", "every", "byte", "once,",
                                   "and", "nothing", "is", "parsed", "twice.", "Tool",
                                   "calls", "arrive", "as", "text", "deltas", "—", "naïve",
                                   "café" };
    size_t cap = ANSWER_BYTES + 4096;
    char *text = malloc(cap);
    size_t len = 0, w = 0;
    while (len < ANSWER_BYTES) {
        const char *word = words[w++ % (sizeof words / sizeof words[0])];
        size_t n = strlen(word);
        memcpy(text + len, word, n);
        len += n;
        text[len++] = (w % 17 == 0) ? '\n' : ' ';
    }
    const char *tail = "\n<attempt_completion>\n<result>streamed</result>\n</attempt_completion>";
    memcpy(text + len, tail, strlen(tail) + 1);
    /* Bytes per socket write: 64 KiB by default (many events per write, as a busy TLS
     * stream delivers them), HEW_BENCH_WRITE=0 for one write per event (kernel-bound). */
    const char *ws = getenv("HEW_BENCH_WRITE");
    long write_size = ws ? strtol(ws, NULL, 10) : 65536;
    json_t *resp = json_pack("{s:s, s:s, s:i, s:I, s:{s:i, s:i}}", "protocol", "anthropic",
                             "text", text, "delta_size", 16, "chunk_size", (json_int_t)write_size,
                             "usage", "input", 1000, "output", 2500000);
    free(text);
    json_t *scenario = json_pack("{s:[o]}", "responses", resp);
    char *s = json_dumps(scenario, JSON_COMPACT);
    json_decref(scenario);
    return s;
}

/* The task itself, in a child process so that its CPU time and peak RSS are hew's alone
 * (not the scenario generation's). Exit status 0 when it completed as expected. */
static int run_task(const char *url)
{
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.model = "claude-bench";
    o.api_key = "bench-key";
    o.base_url = url;
    o.native_tools = 0;
    o.checkpoints = 0;
    /* The store is part of the path measured (HEW_BENCH_NO_STORE=1 leaves it out); its
     * database goes to a scratch folder, never the user's. */
    char data[] = "/tmp/hew-bench-loop-XXXXXX";
    o.persist = getenv("HEW_BENCH_NO_STORE") ? 0 : 1;
    o.data_dir = mkdtemp(data);
    o.on_event = on_event;
    char err[512];
    hew_session *s = NULL;
    if (hew_session_new(&o, &s, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "loop_stream: %s\n", err);
        return 1;
    }
    hew_task *t = NULL;
    (void)hew_task_start(s, "Stream a very long answer.", &t, err, sizeof err);
    hew_task_status st = t ? hew_task_wait(t) : HEW_TASK_FAILED;
    int ok = st == HEW_TASK_COMPLETED && strcmp(hew_task_result(t), "streamed") == 0;
    if (!ok)
        fprintf(stderr, "loop_stream: task ended: %s\n", t ? hew_task_result(t) : err);
    fprintf(stderr, "loop_stream: %zu events\n", events_seen);
    hew_task_free(t);
    hew_session_free(s);
    if (o.data_dir) { /* hew.db and its WAL/lock files */
        static const char *const names[] = { "hew.db", "hew.db-wal", "hew.db-shm" };
        char path[128];
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", o.data_dir, names[i]);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/hew.db.locks", o.data_dir);
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char f[512];
            snprintf(f, sizeof f, "%s/%s", path, e->d_name);
            if (e->d_name[0] != '.')
                unlink(f);
        }
        if (d)
            closedir(d);
        rmdir(path);
        rmdir(o.data_dir);
    }
    return ok ? 0 : 1;
}

int main(void)
{
    /* Fork first: the child (the measured hew) never touches the scenario's memory. It
     * waits for the provider's URL on a pipe (close-on-exec: the fake provider's process
     * must not hold its write end open, or HEW_BENCH_NOFORK would wait forever). */
    int url_pipe[2];
    if (pipe2(url_pipe, O_CLOEXEC) != 0)
        return 1;
    fflush(NULL);
    struct timespec t0, t1;
    pid_t pid = fork();
    if (pid == 0) {
        close(url_pipe[1]);
        char url[128] = "";
        ssize_t n = read(url_pipe[0], url, sizeof url - 1);
        if (n <= 0)
            _exit(1);
        url[n] = '\0';
        _exit(run_task(url));
    }
    close(url_pipe[0]);
    char *scenario = scenario_text();
    fakeprov fp;
    if (fakeprov_start(&fp, scenario) != 0) {
        free(scenario);
        close(url_pipe[1]);
        waitpid(pid, NULL, 0);
        return 1;
    }
    free(scenario);
    if (getenv("HEW_BENCH_NOFORK")) { /* for heap profilers that do not follow fork */
        close(url_pipe[1]);
        waitpid(pid, NULL, 0);
        int rc = run_task(fp.url);
        fakeprov_stop(&fp);
        return rc;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (write(url_pipe[1], fp.url, strlen(fp.url)) < 0)
        perror("loop_stream: write");
    close(url_pipe[1]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &status, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int ok = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    const char *w = getenv("HEW_BENCH_WRITE");
    printf("loop_stream: %.1f MB answer in 16-byte deltas (%s bytes per write): wall %.3f s, "
           "hew CPU %.3f s, peak RSS %.1f MB%s\n",
           (double)ANSWER_BYTES / 1e6, w ? w : "65536", seconds(&t0, &t1), cpu,
           (double)ru.ru_maxrss / 1024.0, ok ? "" : " — FAILED");
    fakeprov_stop(&fp);
    return ok ? 0 : 1;
}
