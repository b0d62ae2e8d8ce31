/* fakeprov — spawn/stop hew-fake-provider for C tests (see fakeprov.h). Never uses a
 * shell (fork + execv only); never leaves the child or its temporary directory behind. */
#include "fakeprov.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"

#define FAKEPROV_START_MS 15000

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The scenario text with @FIXTURES@ replaced (JSON-escaped) and base_dir defaulted. */
static char *prepare_scenario(const char *text)
{
    json_t *fx = json_string(HEW_TEST_FIXTURES);
    char *quoted = fx ? json_dumps(fx, JSON_ENCODE_ANY) : NULL;
    json_decref(fx);
    if (!quoted)
        return NULL;
    /* the escaped path without its quotes */
    size_t qlen = strlen(quoted);
    buf b = BUF_INIT(0);
    buf_puts(&b, "");
    const char *p = text;
    const char *hit;
    while ((hit = strstr(p, "@FIXTURES@"))) {
        buf_append(&b, p, (size_t)(hit - p));
        buf_append(&b, quoted + 1, qlen - 2);
        p = hit + strlen("@FIXTURES@");
    }
    buf_puts(&b, p);
    free(quoted);
    char *out = buf_detach(&b, NULL);
    if (!out)
        return NULL;
    json_t *root = json_loads(out, 0, NULL);
    if (json_is_object(root) && !json_object_get(root, "base_dir")) {
        json_object_set_new(root, "base_dir", json_string(HEW_TEST_FIXTURES));
        char *again = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (again) {
            free(out);
            out = again;
        }
    }
    json_decref(root);
    return out;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

static void remove_dir(fakeprov *fp)
{
    if (!fp->dir[0])
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/scenario.json", fp->dir);
    unlink(path);
    unlink(fp->record_path);
    if (fp->outcomes_path[0])
        unlink(fp->outcomes_path);
    if (rmdir(fp->dir) != 0)
        fprintf(stderr, "fakeprov: cannot remove %s: %s\n", fp->dir, strerror(errno));
    fp->dir[0] = '\0';
}

/* Read one line from fd into out within the deadline; 0 on success. */
static int read_line(int fd, int pid, char *out, size_t cap)
{
    size_t n = 0;
    long long deadline = mono_ms() + FAKEPROV_START_MS;
    for (;;) {
        long long left = deadline - mono_ms();
        if (left <= 0) {
            fprintf(stderr, "fakeprov: %s printed no URL within %d ms\n", HEW_FAKE_PROVIDER,
                    FAKEPROV_START_MS);
            return -1;
        }
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        ssize_t k = read(fd, out + n, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int status = 0;
            waitpid(pid, &status, WNOHANG);
            fprintf(stderr,
                    "fakeprov: %s exited before printing its URL (bad scenario? see the "
                    "message above)\n",
                    HEW_FAKE_PROVIDER);
            return -1;
        }
        if (out[n] == '\n') {
            out[n] = '\0';
            return 0;
        }
        if (++n + 1 >= cap) {
            fprintf(stderr, "fakeprov: the URL line is too long\n");
            return -1;
        }
    }
}

int fakeprov_start(fakeprov *fp, const char *scenario_json)
{
    memset(fp, 0, sizeof *fp);
    fp->pid = -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(fp->dir, sizeof fp->dir, "%s/hew-fakeprov.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fp->dir)) {
        fprintf(stderr, "fakeprov: mkdtemp %s: %s\n", fp->dir, strerror(errno));
        fp->dir[0] = '\0';
        return -1;
    }
    snprintf(fp->record_path, sizeof fp->record_path, "%s/requests.jsonl", fp->dir);
    snprintf(fp->outcomes_path, sizeof fp->outcomes_path, "%s/outcomes.jsonl", fp->dir);
    char scenario_path[300];
    snprintf(scenario_path, sizeof scenario_path, "%s/scenario.json", fp->dir);
    char *text = prepare_scenario(scenario_json);
    if (!text || write_file(scenario_path, text) != 0) {
        fprintf(stderr, "fakeprov: cannot write %s\n", scenario_path);
        free(text);
        remove_dir(fp);
        return -1;
    }
    free(text);

    if (!HEW_FAKE_PROVIDER[0]) { /* a build without libmicrohttpd registers no such test */
        fprintf(stderr, "fakeprov: this build has no fake provider (libmicrohttpd-dev was "
                        "missing when it was configured): install it and configure again\n");
        remove_dir(fp);
        return -1;
    }
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        fprintf(stderr, "fakeprov: pipe: %s\n", strerror(errno));
        remove_dir(fp);
        return -1;
    }
    bool quiet = !getenv("HEW_FAKE_VERBOSE");
    char *argv[] = {(char *)HEW_FAKE_PROVIDER, "--scenario", scenario_path, "--port", "0",
                    "--record", fp->record_path, "--record-outcomes", fp->outcomes_path,
                    quiet ? "--quiet" : NULL, NULL};
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "fakeprov: fork: %s\n", strerror(errno));
        close(out[0]);
        close(out[1]);
        remove_dir(fp);
        return -1;
    }
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO); /* dup2 clears O_CLOEXEC on the copy */
        execv(HEW_FAKE_PROVIDER, argv);
        fprintf(stderr, "fakeprov: cannot run %s: %s\n", HEW_FAKE_PROVIDER, strerror(errno));
        _exit(127);
    }
    close(out[1]);
    fp->pid = (int)pid;
    int rc = read_line(out[0], fp->pid, fp->url, sizeof fp->url);
    close(out[0]);
    const char *prefix = "http://127.0.0.1:";
    if (rc == 0 && strncmp(fp->url, prefix, strlen(prefix)) == 0) {
        char *end;
        long port = strtol(fp->url + strlen(prefix), &end, 10);
        if (*end == '\0' && port > 0 && port < 65536) {
            fp->port = (int)port;
            return 0;
        }
    }
    if (rc == 0)
        fprintf(stderr, "fakeprov: unexpected URL line \"%s\"\n", fp->url);
    fakeprov_stop(fp);
    return -1;
}

int fakeprov_stop_status(fakeprov *fp)
{
    int result = -1;
    if (fp->pid > 0) {
        kill((pid_t)fp->pid, SIGTERM);
        long long deadline = mono_ms() + 10000;
        int status = 0;
        pid_t w = 0;
        while ((w = waitpid((pid_t)fp->pid, &status, WNOHANG)) == 0 && mono_ms() < deadline) {
            struct timespec nap = {0, 10 * 1000000L};
            nanosleep(&nap, NULL);
        }
        if (w == 0) {
            fprintf(stderr, "fakeprov: provider %d ignored SIGTERM for 10 s; killing it\n",
                    fp->pid);
            kill((pid_t)fp->pid, SIGKILL);
            waitpid((pid_t)fp->pid, &status, 0);
        } else if (w > 0 && WIFEXITED(status)) {
            result = WEXITSTATUS(status);
        }
        fp->pid = -1;
    }
    remove_dir(fp);
    return result;
}

void fakeprov_stop(fakeprov *fp)
{
    int pid = fp->pid;
    int status = fakeprov_stop_status(fp);
    if (pid > 0 && status != 0)
        fprintf(stderr, "fakeprov: provider %d did not shut down cleanly (status %d)\n", pid,
                status);
}

int fakeprov_violations(const fakeprov *fp, char *first, size_t cap)
{
    if (cap)
        first[0] = '\0';
    json_t *all = fakeprov_requests(fp);
    if (!all)
        return -1;
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r) {
        const char *v = json_string_value(json_object_get(r, "violation"));
        if (!v)
            continue;
        if (n++ == 0 && cap)
            snprintf(first, cap, "%s", v);
    }
    json_decref(all);
    return n;
}

/* The JSON lines of path as an array (empty when the file is not there yet). */
static json_t *read_lines(const char *path)
{
    json_t *all = json_array();
    FILE *f = fopen(path, "r");
    if (!f)
        return all; /* nothing recorded yet */
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (n == 1 && line[0] == '\n')
            continue;
        json_error_t je;
        json_t *entry = json_loadb(line, (size_t)n, 0, &je);
        if (!entry) {
            fprintf(stderr, "fakeprov: bad record line in %s: %s\n", path, je.text);
            json_decref(all);
            all = NULL;
            break;
        }
        json_array_append_new(all, entry);
    }
    free(line);
    fclose(f);
    return all;
}

json_t *fakeprov_requests(const fakeprov *fp)
{
    return read_lines(fp->record_path);
}

json_t *fakeprov_outcomes(const fakeprov *fp)
{
    return read_lines(fp->outcomes_path);
}

json_t *fakeprov_wait_outcome(const fakeprov *fp, size_t index, int timeout_s)
{
    long long deadline = mono_ms() + (long long)timeout_s * 1000;
    for (;;) {
        json_t *all = fakeprov_outcomes(fp);
        size_t i;
        json_t *o;
        json_array_foreach(all, i, o) {
            if ((size_t)json_integer_value(json_object_get(o, "index")) == index) {
                json_incref(o);
                json_decref(all);
                return o;
            }
        }
        json_decref(all);
        if (mono_ms() >= deadline)
            return NULL;
        struct timespec nap = {0, 20 * 1000000L};
        nanosleep(&nap, NULL);
    }
}
