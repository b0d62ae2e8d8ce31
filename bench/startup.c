/* bench/startup — how fast the `hew` command starts and how small it stays: the wall time
 * of `hew --version` (goal < 5 ms), the time from starting `hew -p` to its first request
 * reaching the fake provider (goal < 20 ms; measured as the moment the provider's request
 * record appears, so a little late), and the peak RSS of a short task (goal < 15 MB).
 * The tasks keep their store in a data directory of the bench's own (created by the first
 * run, reused by the others, as a user's is), never in the user's.
 * Prints the figures (median of several runs) and the goals; exits non-zero only when a
 * run failed (a goal missed is reported, not fatal: sanitizer builds are slower). Runs
 * only the built binaries against 127.0.0.1; never uses a shell. */
#include <fcntl.h>
#include <ftw.h>
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

#define RUNS 15

static double median(double *v, int n)
{
    bench_sort(v, (size_t)n);
    return v[n / 2];
}

static char data_env[64] = "XDG_DATA_HOME=/nonexistent";

/* Start argv with stdout/stderr to /dev/null and a fixed environment; returns the pid. */
static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        char *envp[] = { "ANTHROPIC_API_KEY=bench-key", "PATH=/usr/bin:/bin",
                         "HOME=/nonexistent", data_env, "ASAN_OPTIONS=detect_leaks=0", NULL };
        execve(argv[0], argv, envp);
        _exit(127);
    }
    return pid;
}

static int run_version(double *ms)
{
    char *argv[] = { HEW_BIN, "--version", NULL };
    double t0 = bench_now_ms();
    pid_t pid = spawn(argv);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    *ms = bench_now_ms() - t0;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static const char scenario[] =
    "{\"responses\": [{\"protocol\": \"anthropic\", \"text\": \"<attempt_completion>\\n"
    "<result>\\ndone\\n</result>\\n</attempt_completion>\", \"usage\": {\"input\": 10, "
    "\"output\": 5}}]}";

/* One short task: the time until its request is recorded, and its peak RSS. */
static int run_task(double *first_ms, long *rss_kb)
{
    fakeprov fp;
    if (fakeprov_start(&fp, scenario) != 0)
        return -1;
    char ws[] = "/tmp/hew-bench-startup.XXXXXX";
    if (!mkdtemp(ws)) {
        fakeprov_stop(&fp);
        return -1;
    }
    char *argv[] = { HEW_BIN, "-p", "Say done.", "--no-config", "--provider", "anthropic",
                     "--model", "claude-sonnet-4-5", "--xml-tools", "--base-url", fp.url,
                     "--cwd", ws, "--timeout", "30", NULL };
    double t0 = bench_now_ms();
    pid_t pid = spawn(argv);
    int rc = -1;
    *first_ms = -1;
    struct stat st;
    while (pid > 0) {
        if (*first_ms < 0 && stat(fp.record_path, &st) == 0 && st.st_size > 0)
            *first_ms = bench_now_ms() - t0;
        int status;
        struct rusage ru;
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid) {
            if (*first_ms < 0 && stat(fp.record_path, &st) == 0 && st.st_size > 0)
                *first_ms = bench_now_ms() - t0;
            *rss_kb = ru.ru_maxrss;
            rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 && *first_ms >= 0 ? 0 : -1;
            break;
        }
        if (w < 0 || bench_now_ms() - t0 > 30000) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            break;
        }
        if (*first_ms >= 0)
            usleep(1000);
    }
    fakeprov_stop(&fp);
    nftw(ws, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}

int main(void)
{
    double v[RUNS], f[RUNS];
    long rss[RUNS];
    char data[] = "/tmp/hew-bench-data.XXXXXX";
    if (!mkdtemp(data)) {
        fprintf(stderr, "startup: cannot make a data directory\n");
        return 1;
    }
    snprintf(data_env, sizeof data_env, "XDG_DATA_HOME=%s", data);
    for (int i = 0; i < RUNS; i++)
        if (run_version(&v[i]) != 0) {
            fprintf(stderr, "startup: hew --version failed\n");
            nftw(data, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            return 1;
        }
    int n = 0;
    for (int i = 0; i < 7; i++) {
        if (run_task(&f[n], &rss[n]) != 0) {
            fprintf(stderr, "startup: a short task through hew -p failed\n");
            nftw(data, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            return 1;
        }
        n++;
    }
    nftw(data, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    long peak = 0;
    for (int i = 0; i < n; i++)
        if (rss[i] > peak)
            peak = rss[i];
    double ver = median(v, RUNS), first = median(f, n);
    printf("startup: hew --version          %6.2f ms   (goal < 5 ms)%s\n", ver,
           ver < 5 ? "" : "  MISSED");
    printf("startup: start → first request  %6.2f ms   (goal < 20 ms)%s\n", first,
           first < 20 ? "" : "  MISSED");
    printf("startup: peak RSS, short task   %6.1f MB   (goal < 15 MB)%s\n",
           (double)peak / 1024, peak < 15 * 1024 ? "" : "  MISSED");
    return 0;
}
