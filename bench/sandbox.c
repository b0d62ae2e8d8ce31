/* bench/sandbox — what the sandbox costs per command (issue #19): 200 × `true` through
 * proc_run unconfined (posix_spawn), with the landlock backend (a clone that joins the
 * namespaces made when the sandbox was prepared, Landlock, seccomp) and with the bwrap backend (bwrap's namespaces and mounts), in ms per
 * command, plus the one-off cost of sandbox_prepare for each. Goal: < 2 ms added per
 * command for landlock. A backend this machine lacks is reported as skipped. Prints the
 * figures; exits non-zero only when a run failed (a goal missed is reported, not fatal:
 * sanitizer builds are slower). Beside the wall clock it gives the CPU time per command
 * (hew's and the child's, user + system, from getrusage), which a loaded machine does not
 * inflate the way it does the wall clock: compare those on a busy machine (the goal is
 * judged on them). The policy is workspace-write on a scratch directory with
 * .git and .hew read-only and hew's config and data dirs hidden, as hew's is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchclock.h"
#include "sys/proc.h"
#include "sys/sandbox.h"

#define RUNS 200

static const char *truth(void)
{
    static const char *const where[] = { "/usr/bin/true", "/bin/true" };
    for (size_t i = 0; i < sizeof where / sizeof *where; i++)
        if (access(where[i], X_OK) == 0)
            return where[i];
    return NULL;
}

/* User + system CPU ms of this process and its reaped children so far. */
static double cpu_ms(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    const struct timeval *tv[] = { &self.ru_utime, &self.ru_stime, &kids.ru_utime,
                                   &kids.ru_stime };
    double ms = 0;
    for (size_t i = 0; i < 4; i++)
        ms += (double)tv[i]->tv_sec * 1e3 + (double)tv[i]->tv_usec / 1e3;
    return ms;
}

/* The median ms per command over RUNS runs (robust to a loaded machine; *mean gets the
 * mean, *cpu the CPU ms per command); < 0 when one failed. */
static double per_command(const sandbox *sb, const char *ws, double *mean, double *cpu)
{
    const char *argv[] = { truth(), NULL };
    static const char *const env[] = { "PATH=/usr/bin:/bin", NULL };
    proc_opts o = { 0 };
    o.argv = argv;
    o.cwd = ws;
    o.envp = env;
    o.sandbox = sb;
    static double t[RUNS];
    double sum = 0, c0 = cpu_ms();
    for (int i = 0; i < RUNS; i++) {
        proc_status st;
        hew_err e = { 0 };
        double t0 = bench_now_ms();
        if (proc_run(&o, NULL, NULL, &st, &e) != HEW_OK || st.exit_code != 0) {
            fprintf(stderr, "sandbox bench: run %d failed: %s\n", i, e.msg);
            return -1;
        }
        t[i] = bench_now_ms() - t0;
        sum += t[i];
    }
    *mean = sum / RUNS;
    *cpu = (cpu_ms() - c0) / RUNS;
    bench_sort(t, RUNS);
    return t[RUNS / 2];
}

int main(void)
{
    if (!truth()) {
        printf("sandbox: skipped (no `true` program)\n");
        return 0;
    }
    char ws[] = "/tmp/hew-bench-sandbox-XXXXXX";
    if (!mkdtemp(ws))
        return 1;
    char git[256], hew[256];
    snprintf(git, sizeof git, "%s/.git", ws);
    snprintf(hew, sizeof hew, "%s/.hew", ws);
    mkdir(git, 0755);
    mkdir(hew, 0755);

    sandbox_caps caps;
    double p0 = bench_now_ms();
    sandbox_probe(&caps);
    double probe_ms = bench_now_ms() - p0;
    printf("sandbox: probe %.2f ms (landlock ABI %d, seccomp %s, userns %s, bwrap %s)\n",
           probe_ms, caps.landlock_abi, caps.seccomp ? "yes" : "no", caps.userns ? "yes" : "no",
           caps.bwrap[0] ? "yes" : "no");

    int failed = 0;
    double base_mean = 0, base_cpu = 0, base = per_command(NULL, ws, &base_mean, &base_cpu);
    if (base < 0)
        failed = 1;
    printf("sandbox: unconfined  %.3f ms per command, median of %d x true (mean %.3f; cpu "
           "%.3f)\n", base, RUNS, base_mean, base_cpu);

    static const sandbox_backend backends[] = { SANDBOX_BACKEND_LANDLOCK, SANDBOX_BACKEND_BWRAP };
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++) {
        const char *writable[] = { ws, "/tmp", NULL };
        const char *ro[] = { git, hew, NULL };
        char cfg[512], data[512];
        const char *home = getenv("HOME") ? getenv("HOME") : "/root";
        snprintf(cfg, sizeof cfg, "%s/.config/hew", home);
        snprintf(data, sizeof data, "%s/.local/share/hew", home);
        const char *hidden[] = { cfg, data, NULL };
        sandbox_policy pol = { .mode = SANDBOX_WORKSPACE_WRITE, .backend = backends[i],
                               .writable_roots = writable, .readonly_paths = ro,
                               .hidden_paths = hidden };
        sandbox *sb = NULL;
        hew_err e = { 0 };
        double t0 = bench_now_ms();
        hew_code rc = sandbox_prepare(&pol, &sb, &e);
        double prep = bench_now_ms() - t0;
        const char *name = sandbox_backend_name(backends[i]);
        if (rc != HEW_OK) {
            printf("sandbox: %-10s skipped (%s)\n", name, e.msg);
            continue;
        }
        double mean = 0, cpu = 0, ms = per_command(sb, ws, &mean, &cpu);
        if (ms < 0)
            failed = 1;
        double added = ms - base;
        printf("sandbox: %-10s %.3f ms per command (%+.3f ms; mean %.3f; cpu %.3f, %+.3f), "
               "prepare %.2f ms once%s\n",
               name, ms, added, mean, cpu, cpu - base_cpu, prep,
               backends[i] == SANDBOX_BACKEND_LANDLOCK
                   ? (cpu - base_cpu < 2.0 ? "   goal < 2 ms added (cpu): met"
                                           : "   goal < 2 ms added (cpu): MISSED")
                   : "");
        sandbox_free(sb);
    }
    rmdir(git);
    rmdir(hew);
    rmdir(ws);
    return failed;
}
