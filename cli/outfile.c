/* outfile — `-o FILE`: the result of a headless run written to a file, byte for byte, for
 * the program or CI step that reads it. The write is atomic (a temporary file in FILE's
 * folder, synced, renamed over FILE), so a reader never sees half a result; a run that
 * does not complete removes a FILE left from before, so FILE exists after a run exactly
 * when that run completed (man hew: -o). It must never write anything but FILE and its
 * temporary, never leave the temporary behind, and never follow FILE through a symlink to
 * replace the link's target (the rename replaces the link itself). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* FILE's folder into dir ("." when FILE has no '/'). */
static void folder_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

int cli_outfile_check(const char *path)
{
    char dir[PATH_MAX];
    struct stat st;
    if (strlen(path) >= sizeof dir) {
        fprintf(stderr, "hew: -o %s: the path is too long\n", path);
        return 2;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "hew: -o %s: that is a folder — name the file to write the result "
                        "to\n", path);
        return 2;
    }
    folder_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "hew: -o %s: the folder %s does not exist — create it first\n", path,
                dir);
        return 2;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "hew: -o %s: cannot write in %s: %s\n", path, dir, strerror(errno));
        return 2;
    }
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Write text to path atomically; 0, or -1 with errno (the temporary removed). */
static int write_atomic(const char *path, const char *text)
{
    size_t len = strlen(text);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* /dev/stdout, a FIFO: no rename can replace it; write into it as it is */
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            return -1;
        int rc = write_all(fd, text, len);
        int saved = errno;
        close(fd);
        errno = saved;
        return rc;
    }
    char dir[PATH_MAX], tmp[PATH_MAX + 64];
    folder_of(path, dir, sizeof dir);
    int fd = -1;
    /* a new name beside FILE, created the way a plain new file is (0666 less the umask) */
    for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
        if ((size_t)snprintf(tmp, sizeof tmp, "%s/.hew-output-%ld-%u", dir, (long)getpid(),
                             attempt) >= sizeof tmp) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    if (fd < 0)
        return -1;
    int rc = write_all(fd, text, len) != 0 || fsync(fd) != 0 ? -1 : 0;
    int saved = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        unlink(tmp);
    errno = saved;
    return rc;
}

int cli_outfile_finish(const char *path, const hew_task *task, int code)
{
    if (!path)
        return code;
    if (task && hew_task_status_now(task) == HEW_TASK_COMPLETED) {
        if (write_atomic(path, hew_task_result(task)) != 0) {
            fprintf(stderr, "hew: cannot write the result to %s (-o): %s\n", path,
                    strerror(errno));
            return code ? code : 1;
        }
        return code;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) != 0)
        fprintf(stderr, "hew: cannot remove the earlier result %s (-o): %s\n", path,
                strerror(errno));
    return code;
}
