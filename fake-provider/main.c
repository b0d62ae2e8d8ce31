/* main — hew-fake-provider: play an LLM provider on 127.0.0.1 for end-to-end tests.
 *
 *   hew-fake-provider --scenario FILE [--port N] [--record FILE.jsonl] [--quiet]
 *                     [--lenient]
 *
 * Strict by default: requests to provider paths are checked as the real APIs check them
 * (validate.h); --lenient (or "lenient": true in the scenario) turns that off.
 *
 * Loads the scenario (a bad one: a message naming the JSON path, exit 2), listens, prints
 * exactly one line — the base URL http://127.0.0.1:PORT — and serves until SIGTERM or
 * SIGINT, then shuts down cleanly and exits 0. The signal handler only writes to a pipe.
 * This program must never listen on anything but loopback or reach the network. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder.h"
#include "scenario.h"
#include "server.h"

static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    ssize_t w = write(sig_pipe[1], "s", 1);
    (void)w;
    errno = saved;
}

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "hew-fake-provider: %s\n", why);
    fputs("usage: hew-fake-provider --scenario FILE [--port N] [--record FILE.jsonl] "
          "[--quiet] [--lenient]\n",
          stderr);
    return 2;
}

/* "--name VALUE" or "--name=VALUE"; advances *i past a separate value. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        return "";
    return argv[++*i];
}

int main(int argc, char **argv)
{
    const char *scenario_file = NULL, *record_file = NULL;
    unsigned port = 0;
    bool quiet = false, lenient = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--scenario"))) {
            scenario_file = v;
        } else if ((v = opt_value(argc, argv, &i, "--record"))) {
            record_file = v;
        } else if ((v = opt_value(argc, argv, &i, "--port"))) {
            char *end;
            errno = 0;
            long p = strtol(v, &end, 10);
            if (!*v || *end || errno || p < 0 || p > 65535)
                return usage("--port takes a number from 0 to 65535");
            port = (unsigned)p;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(argv[i], "--lenient") == 0) {
            lenient = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(NULL);
            return 0;
        } else {
            fprintf(stderr, "hew-fake-provider: unknown argument \"%s\"\n", argv[i]);
            return usage(NULL);
        }
    }
    if (!scenario_file || !*scenario_file)
        return usage("--scenario FILE is required");
    if (record_file && !*record_file)
        return usage("--record takes a file name");

    hew_err err = HEW_ERR_INIT;
    scenario sc;
    if (scenario_load(&sc, scenario_file, &err) != HEW_OK) {
        fprintf(stderr, "%s: %s\n", scenario_file, err.msg);
        return 2;
    }
    recorder *rec = NULL;
    if (record_file && !(rec = recorder_open(record_file, &err))) {
        fprintf(stderr, "hew-fake-provider: %s\n", err.msg);
        scenario_release(&sc);
        return 2;
    }

    if (pipe(sig_pipe) != 0) {
        fprintf(stderr, "hew-fake-provider: cannot create a pipe: %s\n", strerror(errno));
        recorder_free(rec);
        scenario_release(&sc);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    server_opts opts = {.sc = &sc, .port = port, .rec = rec, .quiet = quiet,
                        .lenient = lenient || sc.lenient};
    server *srv = server_start(&opts, &err);
    int rc = 0;
    if (!srv) {
        fprintf(stderr, "hew-fake-provider: %s\n", err.msg);
        rc = 1;
    } else {
        printf("http://127.0.0.1:%u\n", server_port(srv));
        fflush(stdout);
        char c;
        ssize_t r;
        do
            r = read(sig_pipe[0], &c, 1);
        while (r < 0 && errno == EINTR);
        server_stop(srv);
    }
    recorder_free(rec);
    scenario_release(&sc);
    close(sig_pipe[0]);
    close(sig_pipe[1]);
    return rc;
}
