/* bench/batch — `hew batch` against 200 sequential `hew -p` runs: N short tasks (one
 * request each, answered at once by the fake provider) run by `hew batch --jobs 2`, then
 * the same N tasks one after another as separate `hew -p` processes. Prints tasks per
 * second for both and the peak RSS per task (median and largest: hew batch's max_rss_kb
 * of each result line, wait4's for the sequential runs) and the batch process tree's
 * peak; once as a user runs it (a store, checkpoints), once with --ephemeral (nothing
 * stored, as a fleet would). N is 200, or the first argument. Each task has its own workspace; the store and
 * log go to a data directory of the bench's own, never the user's. Exits non-zero when
 * a task failed. Runs only the built binaries against 127.0.0.1; never uses a shell. */
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchclock.h"
#include "fakeprov.h"

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static char data_env[300], state_env[300], home_env[300];

/* Run argv with stdout to out_path (or /dev/null) and stderr to /dev/null under a fixed
 * environment; wait; fill *ru. Returns the exit status, or -1. */
static int run(char *const argv[], const char *out_path, struct rusage *ru)
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int out = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : null;
        if (null < 0 || out < 0)
            _exit(127);
        dup2(null, 0);
        dup2(out, 1);
        dup2(null, 2);
        char *envp[] = { "ANTHROPIC_API_KEY=bench-key", "PATH=/usr/bin:/bin", home_env,
                         data_env, state_env, "ASAN_OPTIONS=detect_leaks=0", NULL };
        execve(argv[0], argv, envp);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    int status;
    if (wait4(pid, &status, 0, ru) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void report(const char *what, int n, double ms, long *rss, int nrss)
{
    qsort(rss, (size_t)nrss, sizeof *rss, cmp_long);
    printf("batch: %-36s %4d tasks in %7.2f s = %6.1f tasks/s; peak RSS per task "
           "median %5.1f MB, largest %5.1f MB\n",
           what, n, ms / 1e3, n / (ms / 1e3), nrss ? rss[nrss / 2] / 1024.0 : 0,
           nrss ? rss[nrss - 1] / 1024.0 : 0);
}

/* hew batch --jobs 2 over n tasks, then the same n as sequential hew -p runs, each with
 * extra (NULL: none) among its flags; pass tells the workspaces apart. 0, or 1 when a
 * task failed. */
static int compare(const char *label, const char *extra, const fakeprov *fp,
                   const char *top, int n, int pass)
{
    const char *flag = extra ? extra : "--no-config"; /* given twice: harmless */
    char what[64];
    char tasks[400], out[400], ws[400];
    snprintf(tasks, sizeof tasks, "%s/tasks.jsonl", top);
    snprintf(out, sizeof out, "%s/out.jsonl", top);
    FILE *f = fopen(tasks, "w");
    for (int i = 0; f && i < n; i++) {
        snprintf(ws, sizeof ws, "%s/ws/b%d-%d", top, i, pass);
        char mk[400];
        snprintf(mk, sizeof mk, "%s/ws", top);
        mkdir(mk, 0700);
        mkdir(ws, 0700);
        fprintf(f, "{\"id\":\"b%d\",\"prompt\":\"Say done (%d).\",\"cwd\":\"%s\"}\n", i, i, ws);
    }
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "batch: cannot write %s\n", tasks);
        return 1;
    }
    int failed = 0;

    /* hew batch --jobs 2 */
    char *bargv[] = { HEW_BIN, "batch", "--jobs", "2", tasks, "--", "--no-config",
                      "--provider", "anthropic", "--model", "claude-sonnet-4-5",
                      "--xml-tools", "--base-url", (char *)fp->url, (char *)flag, NULL };
    struct rusage ru;
    double t0 = bench_now_ms();
    int rc = run(bargv, out, &ru);
    double batch_ms = bench_now_ms() - t0;
    long tree_peak = ru.ru_maxrss;
    long *rss = calloc((size_t)n, sizeof *rss);
    int nrss = 0, done = 0;
    f = fopen(out, "r");
    char line[65536];
    while (f && rss && fgets(line, sizeof line, f)) {
        json_t *l = json_loads(line, 0, NULL);
        if (l && json_integer_value(json_object_get(l, "exit_code")) == 0 &&
            json_object_get(l, "exit_code"))
            done++;
        json_t *r = json_object_get(l, "max_rss_kb");
        if (json_is_integer(r) && nrss < n)
            rss[nrss++] = (long)json_integer_value(r);
        json_decref(l);
    }
    if (f)
        fclose(f);
    if (rc != 0 || done != n) {
        fprintf(stderr, "batch: hew batch exited %d with %d of %d tasks completed\n", rc,
                done, n);
        failed = 1;
    }
    snprintf(what, sizeof what, "hew batch --jobs 2%s:", label);
    report(what, n, batch_ms, rss, nrss);
    printf("batch: %-36s the batch's process tree peaked at %.1f MB\n", "", tree_peak / 1024.0);

    /* n sequential hew -p */
    nrss = 0;
    t0 = bench_now_ms();
    for (int i = 0; i < n && !failed; i++) {
        char prompt[64];
        snprintf(prompt, sizeof prompt, "Say done (%d).", i);
        snprintf(ws, sizeof ws, "%s/ws/s%d-%d", top, i, pass);
        mkdir(ws, 0700);
        char *pargv[] = { HEW_BIN, "-p", prompt, "--no-config", "--provider", "anthropic",
                          "--model", "claude-sonnet-4-5", "--xml-tools", "--base-url",
                          (char *)fp->url, "--cwd", ws, (char *)flag, NULL };
        if (run(pargv, NULL, &ru) != 0) {
            fprintf(stderr, "batch: sequential hew -p number %d failed\n", i);
            failed = 1;
            break;
        }
        rss[nrss++] = ru.ru_maxrss;
    }
    double seq_ms = bench_now_ms() - t0;
    snprintf(what, sizeof what, "sequential hew -p%s:", label);
    if (!failed)
        report(what, n, seq_ms, rss, nrss);
    free(rss);
    return failed;
}


int main(int argc, char **argv)
{
    int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200;
    if (n < 1 || n > 100000) {
        fprintf(stderr, "batch: N must be 1 to 100000\n");
        return 2;
    }
    char top[] = "/tmp/hew-bench-batch.XXXXXX";
    if (!mkdtemp(top)) {
        fprintf(stderr, "batch: cannot make a temporary directory\n");
        return 1;
    }
    snprintf(data_env, sizeof data_env, "XDG_DATA_HOME=%s/data", top);
    snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s/state", top);
    snprintf(home_env, sizeof home_env, "HOME=%s", top);

    /* 4n identical answers that complete a task (two passes of 2n). */
    json_t *resp = json_pack("{s:s, s:s, s:{s:i, s:i}}", "protocol", "anthropic", "text",
                             "<attempt_completion>\n<result>\ndone\n</result>\n"
                             "</attempt_completion>",
                             "usage", "input", 10, "output", 5);
    json_t *list = json_array();
    for (int i = 0; i < 4 * n; i++)
        json_array_append(list, resp);
    json_t *sc = json_pack("{s:o}", "responses", list);
    char *scenario = json_dumps(sc, JSON_COMPACT);
    json_decref(sc);
    json_decref(resp);
    fakeprov fp;
    if (!scenario || fakeprov_start(&fp, scenario) != 0) {
        free(scenario);
        nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        return 1;
    }
    free(scenario);

    int failed = compare("", NULL, &fp, top, n, 0);
    if (!failed) /* the isolation a fleet would use: no store, no checkpoints */
        failed = compare(" --ephemeral", "--ephemeral", &fp, top, n, 1);
    fakeprov_stop(&fp);
    nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return failed;
}
