/* spill — an unnamed, append-only file for bytes waiting on disk (see spill.h). Plain
 * POSIX I/O: no library does less. Never keeps a copy of what it writes. */
#include "sys/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct spill {
    int fd;
    size_t size;
};

/* A file with no name in dir: O_TMPFILE where the file system has it, else a name made
 * and removed at once. */
static int unnamed_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return -1;
#endif
    char path[4096];
    if (snprintf(path, sizeof path, "%s/.hew-spill-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd2 = mkostemp(path, O_CLOEXEC);
    if (fd2 >= 0)
        unlink(path);
    return fd2;
}

hew_code spill_open(const char *dir, spill **out, hew_err *err)
{
    *out = NULL;
    spill *s = calloc(1, sizeof *s);
    if (!s)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    s->fd = unnamed_file(dir && *dir ? dir : ".");
    if (s->fd < 0) {
        int e = errno;
        free(s);
        return hew_err_set(err, HEW_E_IO, "cannot make a spill file in %s: %s", dir,
                           strerror(e));
    }
    *out = s;
    return HEW_OK;
}

hew_code spill_append(spill *s, const void *p, size_t n, hew_err *err)
{
    const char *c = p;
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(s->fd, c + done, n - done, (off_t)(s->size + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return hew_err_set(err, HEW_E_IO, "cannot write the spill file: %s",
                               w < 0 ? strerror(errno) : "no space");
        done += (size_t)w;
    }
    s->size += n;
    return HEW_OK;
}

hew_code spill_read(const spill *s, size_t off, size_t n, buf *out, hew_err *err)
{
    if (off >= s->size)
        return HEW_OK;
    if (n > s->size - off)
        n = s->size - off;
    char *room = buf_reserve(out, n);
    if (!room)
        return hew_err_set(err, out->err, "out of memory reading the spill file");
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(s->fd, room + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return hew_err_set(err, HEW_E_IO, "cannot read the spill file: %s",
                               r < 0 ? strerror(errno) : "it is shorter than written");
        done += (size_t)r;
    }
    buf_commit(out, n);
    return HEW_OK;
}

size_t spill_size(const spill *s)
{
    return s->size;
}

void spill_close(spill *s)
{
    if (!s)
        return;
    close(s->fd);
    free(s);
}
