/* hew-test-racer — the symlink-swap racer of the confinement tests: exchanges two entries
 * of a directory (a real folder and a symlink to a folder outside) with
 * renameat2(RENAME_EXCHANGE), as fast as the kernel allows, until SIGTERM or SIGINT; then
 * prints how many swaps it made and exits 0. It never outlives its test: it dies with
 * its parent (PR_SET_PDEATHSIG) and stops by itself after RACER_MAX_S seconds (a signal
 * can be held back for good by a sanitizer's runtime while it only makes syscalls). At every moment the first name exists, as
 * one or the other. Test-only; it never touches anything but the two names it is given.
 *
 *   hew-test-racer DIR NAME_A NAME_B */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define RACER_MAX_S 300

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: hew-test-racer DIR NAME_A NAME_B\n");
        return 2;
    }
    int dirfd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        fprintf(stderr, "hew-test-racer: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
        return 1;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long flips = 0, failed = 0;
    while (!stop) {
        if (((flips + failed) & 4095) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec - t0.tv_sec > RACER_MAX_S)
                break;
        }
        if (renameat2(dirfd, argv[2], dirfd, argv[3], RENAME_EXCHANGE) == 0)
            flips++;
        else
            failed++;
    }
    /* Leave it as it began when the count is even: print it for the test. */
    printf("%llu\n", flips);
    return failed && !flips ? 1 : 0;
}
