/* fs — capped whole-file reads, atomic writes, mkdir -p (see fs.h). Never runs a shell,
 * never leaves a temporary file or a half-written target behind. */
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsat.h"

hew_code fs_error(hew_err *err, int e, const char *verb, const char *path)
{
    switch (e) {
    case ENOENT:
        return hew_err_set(err, HEW_E_NOTFOUND, "cannot %s %s: no such file or directory",
                           verb, path);
    case ENOTDIR:
        return hew_err_set(err, HEW_E_NOTFOUND,
                           "cannot %s %s: a part of the path is not a directory", verb, path);
    case EACCES:
    case EPERM:
        return hew_err_set(err, HEW_E_IO, "cannot %s %s: permission denied — check its mode "
                           "and the mode of its directory", verb, path);
    case ENOSPC:
    case EDQUOT:
        return hew_err_set(err, HEW_E_IO, "cannot %s %s: no space left — free some disk space",
                           verb, path);
    case EROFS:
        return hew_err_set(err, HEW_E_IO, "cannot %s %s: the file system is read-only", verb,
                           path);
    case ENOMEM:
        return hew_err_set(err, HEW_E_NOMEM, "cannot %s %s: out of memory", verb, path);
    default:
        return hew_err_set(err, HEW_E_IO, "cannot %s %s: %s", verb, path, strerror(e));
    }
}

static hew_code too_big(hew_err *err, const char *path, size_t max_bytes)
{
    return hew_err_set(err, HEW_E_TOOBIG,
                       "%s is larger than the limit of %zu bytes — read a part of it instead",
                       path, max_bytes);
}

hew_code fs_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                      hew_err *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    if (!path || !*path)
        return hew_err_set(err, HEW_E_INVALID, "cannot read a file: the path is empty");
    int fd;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return fs_error(err, errno, "read", path);
    hew_code rc = fs_read_fd(fd, path, max_bytes, out, len, err);
    close(fd);
    return rc;
}

hew_code fs_read_fd(int fd, const char *path, size_t max_bytes, char **out, size_t *len,
                    hew_err *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fs_error(err, errno, "read", path);
    if (S_ISDIR(st.st_mode))
        return hew_err_set(err, HEW_E_INVALID, "cannot read %s: it is a directory", path);
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > (uintmax_t)max_bytes)
        return too_big(err, path, max_bytes);
    /* Room for max_bytes + 1 at most: one byte past the cap proves the file is too big. */
    size_t hard = max_bytes < SIZE_MAX - 1 ? max_bytes + 1 : SIZE_MAX - 1;
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 4096;
    if (cap > hard)
        cap = hard;
    if (cap < 64)
        cap = 64 < hard ? 64 : hard;
    char *data = malloc(cap + 1);
    if (!data)
        return hew_err_set(err, HEW_E_NOMEM, "cannot read %s: out of memory", path);
    size_t used = 0;
    for (;;) {
        if (used == cap) {
            if (cap >= hard)
                break; /* read max_bytes + 1 bytes: too big */
            size_t ncap = cap > hard / 2 ? hard : cap * 2;
            char *p = realloc(data, ncap + 1);
            if (!p) {
                free(data);
                return hew_err_set(err, HEW_E_NOMEM, "cannot read %s: out of memory", path);
            }
            data = p;
            cap = ncap;
        }
        ssize_t n = read(fd, data + used, cap - used);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(data);
            return fs_error(err, e, "read", path);
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    if (used > max_bytes) {
        free(data);
        return too_big(err, path, max_bytes);
    }
    data[used] = '\0';
    *out = data;
    if (len)
        *len = used;
    return HEW_OK;
}

hew_code fs_write_all(int fd, const void *data, size_t len, const char *what, hew_err *err)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return fs_error(err, errno, "write", what);
        }
        if (n == 0)
            return hew_err_set(err, HEW_E_IO, "cannot write %s: the write made no progress",
                               what);
        p += n;
        len -= (size_t)n;
    }
    return HEW_OK;
}

/* Split path into a new directory string ("." when there is no slash). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    while (slash > path && slash[-1] == '/')
        slash--;
    size_t n = slash == path ? 1 : (size_t)(slash - path); /* "/x" -> "/" */
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

hew_code fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
                         hew_err *err)
{
    if (!path || !*path)
        return hew_err_set(err, HEW_E_INVALID, "cannot write a file: the path is empty");
    size_t plen = strlen(path);
    if (path[plen - 1] == '/')
        return hew_err_set(err, HEW_E_INVALID, "cannot write %s: the path names a directory",
                           path);
    char *dir = dir_of(path);
    if (!dir)
        return hew_err_set(err, HEW_E_NOMEM, "cannot write %s: out of memory", path);
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char *dir_abs = dir[0] == '/' ? dir : realpath(dir, NULL);
    int dfd;
    hew_code rc = fsat_base_open(dir, &dfd, err);
    if (rc == HEW_OK) {
        rc = fsat_write_atomic(dfd, dir_abs ? dir_abs : dir, name, data, len, mode, err);
        close(dfd);
    } else if (rc == HEW_E_NOTFOUND) {
        hew_err_set(err, rc, "cannot write %s: its folder does not exist", path);
    }
    if (dir_abs != dir)
        free(dir_abs);
    free(dir);
    return rc;
}

hew_code fs_mkdirs(const char *path, mode_t mode, hew_err *err)
{
    if (!path || !*path)
        return hew_err_set(err, HEW_E_INVALID, "cannot create a directory: the path is empty");
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    if (!p)
        return hew_err_set(err, HEW_E_NOMEM, "cannot create %s: out of memory", path);
    memcpy(p, path, n + 1);
    hew_code rc = HEW_OK;
    /* Walk each prefix that ends before a '/' (and the whole path). */
    for (size_t i = 1; i <= n && rc == HEW_OK; i++) {
        if (i < n && (p[i] != '/' || p[i - 1] == '/'))
            continue;
        char saved = p[i];
        p[i] = '\0';
        if (mkdir(p, mode) != 0) {
            int e = errno;
            struct stat st;
            if (e == EEXIST || e == EISDIR || e == EROFS || e == EACCES) {
                /* Already there (or not ours to create): fine if it is a directory. */
                if (stat(p, &st) == 0) {
                    if (!S_ISDIR(st.st_mode))
                        rc = hew_err_set(err, HEW_E_INVALID,
                                         "cannot create %s: %s exists and is not a directory",
                                         path, p);
                } else {
                    rc = fs_error(err, e, "create", p);
                }
            } else {
                rc = fs_error(err, e, "create", p);
            }
        }
        p[i] = saved;
    }
    free(p);
    return rc;
}

bool fs_exists(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0;
}

bool fs_is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fs_is_file(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
