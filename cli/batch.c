/* batch — `hew batch [--jobs N] [--shard I/N] [--events-dir DIR] [--timeout S] TASKS.jsonl
 * [-- FLAGS…]`: reads the arguments and the tasks file, runs hew_batch_run (the library
 * does the running: a child process per task), prints one JSON line per task on stdout as
 * each ends and, when standard error is a terminal, a progress line redrawn in place.
 * SIGINT/SIGTERM stop the batch: no new task starts, the running ones are told to stop
 * and their lines still come; exit 130. A standard output that cannot be written (a
 * closed pipe) stops it too (exit 1): never a death by SIGPIPE that orphans children. Exit 0 only when every task completed, 1
 * otherwise, 2 for a usage error. It must never fork (the library starts the children)
 * and never print anything but result lines on stdout. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sigwatch.h"
#include "hew.h"

#define BATCH_TASKS_MAX ((size_t)256 << 20)

static const char batch_usage[] =
    "usage: hew batch [options] TASKS.jsonl [-- FLAGS...]   run many tasks, one per line\n"
    "  each line: {\"id\": \"...\", \"prompt\": \"...\", \"cwd\": \"DIR\", ...options} (man hew: BATCH)\n"
    "  TASKS.jsonl may be - (standard input)\n"
    "options:\n"
    "  -j, --jobs N          tasks at once (default: the number of CPUs)\n"
    "  --shard I/N           only the lines whose 0-based index is I modulo N\n"
    "  --events-dir DIR      keep each task's events in DIR/<id>.jsonl\n"
    "  --timeout SECONDS     each task's --timeout unless its line says (0: none)\n"
    "  --program PATH        the hew to run for each task (default: this one;\n"
    "                        or HEW_BATCH_PROGRAM): a wrapper that sandboxes it\n"
    "  -- FLAGS...           flags given to every task's hew -p (--provider, --model, ...)\n"
    "prints one JSON line per task as it ends: id, status, exit_code, usage, cost_usd,\n"
    "duration_ms, events, error; exit 0 only when every task completed\n";

typedef struct batch_cli {
    int tty;          /* standard error is a terminal: the progress line */
    int drawn;        /* a progress line is on the screen */
    hew_batch *batch;
    pthread_mutex_t lock;
    int interrupted;
    int out_failed;   /* standard output cannot be written: the batch was stopped */
} batch_cli;

static void clear_progress(batch_cli *c)
{
    if (c->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        c->drawn = 0;
    }
}

static void on_result(void *ud, const hew_batch_result *r)
{
    batch_cli *c = ud;
    clear_progress(c);
    if (c->out_failed)
        return;
    fputs(r->json, stdout); /* JSON: nothing in it can drive a terminal */
    fputc('\n', stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        /* Nobody reads the results (a closed pipe): running on would spend tokens for
         * nothing, and dying of SIGPIPE would leave the children running. */
        c->out_failed = 1;
        fprintf(stderr, "\nhew batch: cannot write the results (%s): stopping\n",
                strerror(errno));
        hew_batch_stop(c->batch);
    }
}

static void on_progress(void *ud, const hew_batch_progress *p)
{
    batch_cli *c = ud;
    if (!c->tty)
        return;
    long long s = p->elapsed_ms / 1000;
    fprintf(stderr, "\r\033[Khew batch: %ld/%ld done, %ld running, %ld failed, %lld:%02lld%s",
            p->done, p->total, p->running, p->failed, s / 60, s % 60,
            p->stopped ? " (stopping)" : "");
    fflush(stderr);
    c->drawn = 1;
}

/* SIGINT/SIGTERM (sigwatch): stop the batch — no new task starts, the running ones are
 * told to stop and report. */
static void on_signal(void *ud, int sig)
{
    (void)sig;
    batch_cli *c = ud;
    pthread_mutex_lock(&c->lock);
    c->interrupted = 1;
    pthread_mutex_unlock(&c->lock);
    hew_batch_stop(c->batch);
}

static int parse_count(const char *flag, const char *s, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : -1;
    if (!s || !*s || *end || errno || v < 0 || v > max) {
        fprintf(stderr, "hew batch: %s needs a number from 0 to %ld, got '%s'\n", flag, max,
                s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_shard(const char *s, int *index, int *count)
{
    char *end = NULL;
    errno = 0;
    long i = s ? strtol(s, &end, 10) : -1;
    long n = -1;
    if (s && end && *end == '/' && end != s) {
        const char *rest = end + 1;
        n = strtol(rest, &end, 10);
        if (end == rest || *end)
            n = -1;
    }
    if (!s || errno || i < 0 || n < 1 || n > 1000000 || i >= n) {
        fprintf(stderr, "hew batch: --shard needs I/N with 0 <= I < N (e.g. --shard 0/4), "
                        "got '%s'\n",
                s ? s : "");
        return -1;
    }
    *index = (int)i;
    *count = (int)n;
    return 0;
}

int cli_batch(int argc, char **argv)
{
    hew_batch_options o;
    hew_batch_options_init(&o);
    const char *path = NULL;
    const char *program = getenv("HEW_BATCH_PROGRAM");
    char **child = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        long v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(batch_usage, stdout);
            return 0;
        } else if (strcmp(a, "--jobs") == 0 || strcmp(a, "-j") == 0) {
            if (parse_count(a, next, 1024, &v) != 0)
                return 2;
            o.jobs = (int)v;
            i++;
        } else if (strcmp(a, "--timeout") == 0) {
            if (parse_count(a, next, 100L * 365 * 24 * 3600, &v) != 0)
                return 2;
            o.timeout_s = v;
            i++;
        } else if (strcmp(a, "--shard") == 0) {
            if (parse_shard(next, &o.shard_index, &o.shard_count) != 0)
                return 2;
            i++;
        } else if (strcmp(a, "--events-dir") == 0 || strcmp(a, "--program") == 0) {
            if (!next || !*next) {
                fprintf(stderr, "hew batch: %s needs a value\n", a);
                return 2;
            }
            if (a[2] == 'e')
                o.events_dir = next;
            else
                program = next;
            i++;
        } else if (strcmp(a, "--") == 0) {
            child = argv + i + 1; /* argv is NULL-terminated, as main's is */
            break;
        } else if ((a[0] != '-' || strcmp(a, "-") == 0) && !path) {
            path = a;
        } else {
            fprintf(stderr, "hew batch: unknown option '%s' (see hew batch --help)\n", a);
            return 2;
        }
    }
    if (!path) {
        fputs("hew batch: no tasks file — give TASKS.jsonl (or - for standard input)\n", stderr);
        fputs(batch_usage, stderr);
        return 2;
    }
    if (program && !*program)
        program = NULL;
    size_t len = 0;
    char *text = cli_read_file_n(path, BATCH_TASKS_MAX, &len);
    if (!text)
        return 2;
    o.tasks = text;
    o.tasks_len = len;
    o.program = program;
    o.child_args = (const char *const *)child;
    batch_cli c;
    memset(&c, 0, sizeof c);
    c.tty = isatty(2);
    pthread_mutex_init(&c.lock, NULL);
    o.on_result = on_result;
    o.on_progress = on_progress;
    o.ud = &c;
    char err[1024] = "";
    if (hew_batch_new(&o, &c.batch, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew batch: %s\n", err);
        free(text);
        pthread_mutex_destroy(&c.lock);
        return 2;
    }
    free(text);

    signal(SIGPIPE, SIG_IGN); /* a closed standard output is an error, not a death */
    sigwatch watch;
    sigwatch_start(&watch, 0, false, on_signal, &c);

    hew_batch_progress sum;
    hew_code rc = hew_batch_run(c.batch, &sum, err, sizeof err);
    sigwatch_stop(&watch);
    clear_progress(&c);
    int code;
    if (rc != HEW_OK) {
        fprintf(stderr, "hew batch: %s\n", err);
        code = 2;
    } else {
        if (c.tty)
            fprintf(stderr, "hew batch: %ld of %ld completed, %ld failed%s (%lld s)\n",
                    sum.completed, sum.total, sum.failed,
                    c.interrupted ? ", interrupted" : "", sum.elapsed_ms / 1000);
        code = c.interrupted ? 130 : c.out_failed ? 1 : sum.completed == sum.total ? 0 : 1;
    }
    hew_batch_free(c.batch);
    pthread_mutex_destroy(&c.lock);
    return code;
}
