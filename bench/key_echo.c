/* key_echo — how long a key typed while the model streams takes to show on the terminal
 * (issue #20: typing while the model works; the goal is under 16 ms, one frame at 60 Hz).
 * It runs the real hew in a pseudo-terminal against the fake provider streaming a 2 MB
 * answer (markdown prose, 512-byte deltas, 1 ms apart), and while the answer streams it
 * writes one key at a time to the terminal and times until the input line showing it
 * ("› " and every key so far, NO_COLOR) comes back in hew's output. Prints the median,
 * 90th percentile and worst of the samples, and how many were taken while the stream
 * still ran (a sample after the answer ended does not count). Exits non-zero when hew
 * does not echo a key within 5 s or the stream ended before enough samples. Never
 * touches the user's terminal or data (a temporary XDG_DATA_HOME, --ephemeral). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "benchclock.h"
#include "fakeprov.h"

#define ANSWER_BYTES (2u << 20)
#define SAMPLES 40
#define GAP_MS 40

/* What hew wrote so far (a window of its last bytes is enough to find the input line). */
static char seen[1 << 16];
static size_t nseen;
static int stream_done;

/* Read what is there (waiting up to ms); 0, or -1 when hew is gone. */
static int drain(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int r = poll(&p, 1, ms);
    if (r <= 0)
        return r < 0 && errno != EINTR ? -1 : 0;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0)
        return -1;
    if ((size_t)n >= sizeof seen) {
        memcpy(seen, buf + n - sizeof seen, sizeof seen);
        nseen = sizeof seen;
    } else {
        if (nseen + (size_t)n > sizeof seen) {
            size_t drop = nseen + (size_t)n - sizeof seen;
            memmove(seen, seen + drop, nseen - drop);
            nseen -= drop;
        }
        memcpy(seen + nseen, buf, (size_t)n);
        nseen += (size_t)n;
    }
    if (memmem(seen, nseen, "Done", 4))
        stream_done = 1;
    return 0;
}

static int wait_for(int fd, const char *s, double limit_ms)
{
    double until = bench_now_ms() + limit_ms;
    while (!memmem(seen, nseen, s, strlen(s))) {
        if (bench_now_ms() > until || drain(fd, 5) < 0)
            return -1;
    }
    return 0;
}

/* The scenario: one answer of ANSWER_BYTES of prose, then a completion. */
static char *scenario(void)
{
    static const char line[] = "the terminal keeps what is typed while the model writes on\\n";
    size_t per = sizeof line - 1, n = ANSWER_BYTES / (per - 1);
    size_t cap = n * per + 1024;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t o = (size_t)snprintf(s, cap, "{\"responses\": [{\"protocol\": \"anthropic\", "
                                        "\"delta_size\": 512, \"delay_ms\": 1, \"text\": \"");
    for (size_t i = 0; i < n; i++, o += per)
        memcpy(s + o, line, per);
    snprintf(s + o, cap - o, "\"}, {\"protocol\": \"anthropic\", \"text\": \"<attempt_completion>"
                             "\\n<result>\\nok\\n</result>\\n</attempt_completion>\"}]}");
    return s;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    char *sc = scenario();
    fakeprov fp;
    if (!sc || fakeprov_start(&fp, sc) != 0)
        return 1;
    free(sc);
    char data[] = "/tmp/hew-bench-keyecho.XXXXXX";
    if (!mkdtemp(data)) {
        fakeprov_stop(&fp);
        return 1;
    }
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        fakeprov_stop(&fp);
        return 1;
    }
    struct winsize ws = { .ws_row = 40, .ws_col = 100 };
    ioctl(master, TIOCSWINSZ, &ws);
    const char *slave_name = ptsname(master);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int s = open(slave_name, O_RDWR);
        if (s < 0)
            _exit(127);
        ioctl(s, TIOCSCTTY, 0);
        dup2(s, 0);
        dup2(s, 1);
        dup2(s, 2);
        char env_data[300], env_state[300];
        snprintf(env_data, sizeof env_data, "XDG_DATA_HOME=%s", data);
        snprintf(env_state, sizeof env_state, "XDG_STATE_HOME=%s", data);
        char *envp[] = { "ANTHROPIC_API_KEY=bench-key", "PATH=/usr/bin:/bin", "TERM=xterm",
                         "NO_COLOR=1", "LANG=C.UTF-8", env_data, env_state,
                         "ASAN_OPTIONS=detect_leaks=0", NULL };
        char *argv[] = { HEW_BIN, "--provider", "anthropic", "--model", "claude-sonnet-4-5",
                         "--xml-tools", "--ephemeral", "--base-url", fp.url, "--cwd", data,
                         "write a lot", NULL };
        execve(argv[0], argv, envp);
        _exit(127);
    }
    int rc = 1;
    double lat[SAMPLES];
    int n = 0;
    if (wait_for(master, "Ctrl-C to stop", 20000) != 0) {
        fprintf(stderr, "key_echo: hew did not start the task\n");
        goto out;
    }
    /* wait until the answer pours in */
    double until = bench_now_ms() + 300;
    while (bench_now_ms() < until)
        drain(master, 5);
    char typed[SAMPLES + 1] = "";
    for (int i = 0; i < SAMPLES && !stream_done; i++) {
        char key = (char)('A' + i % 26);
        typed[i] = key;
        typed[i + 1] = '\0';
        char want[SAMPLES + 16];
        snprintf(want, sizeof want, "› %s_", typed);
        double t0 = bench_now_ms();
        if (write(master, &key, 1) != 1)
            goto out;
        if (wait_for(master, want, 5000) != 0) {
            fprintf(stderr, "key_echo: key %d not echoed within 5 s\n", i + 1);
            goto out;
        }
        if (!stream_done)
            lat[n++] = bench_now_ms() - t0;
        until = bench_now_ms() + GAP_MS;
        while (bench_now_ms() < until)
            drain(master, 2);
    }
    if (n < SAMPLES / 2) {
        fprintf(stderr, "key_echo: the answer ended after %d samples: too fast to measure\n", n);
        goto out;
    }
    bench_sort(lat, (size_t)n);
    printf("key echo while a 2 MB answer streams (%d keys): median %.2f ms, p90 %.2f ms, "
           "worst %.2f ms (goal < 16 ms)\n",
           n, lat[n / 2], lat[n * 9 / 10], lat[n - 1]);
    rc = 0;
out:
    kill(pid, SIGTERM);
    for (int i = 0; i < 200; i++) {
        drain(master, 5);
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            pid = -1;
            break;
        }
    }
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    close(master);
    fakeprov_stop(&fp);
    nftw(data, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
