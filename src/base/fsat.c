/* fsat — opens beneath a directory descriptor with no symlink on the way, and atomic
 * writes through O_TMPFILE with a journal of pending names (see fsat.h). Never follows a
 * symlink, never opens above its directory, never leaves a half-written target. */
#include "base/fsat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/utf8.h"

#define FSAT_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
#define FSAT_COMPONENT_MAX 4096  /* longer rel paths are refused (PATH_MAX) */
#define FSAT_JOURNAL_LINE_MAX 8192
#define FSAT_TEMP_SUFFIX ".tmp"
#define FSAT_TEMP_MARK ".hew."

static atomic_int no_openat2;  /* 1: the walk (ENOSYS seen, or a test asked) */
static atomic_bool no_tmpfile; /* a test asked for named temporary files */

/* ---- errors ---------------------------------------------------------------------------- */

static hew_code escape_error(hew_err *err, const char *rel)
{
    return hew_err_set(err, HEW_E_ESCAPE,
                       "%s changed while hew was opening it: a symbolic link is now on its "
                       "path (a folder swapped for a link?), so nothing was opened — try "
                       "again, and check what changes that folder", rel);
}

static hew_code open_error(hew_err *err, int e, const char *rel)
{
    if (e == ELOOP || e == EXDEV)
        return escape_error(err, rel);
    return fs_error(err, e, "open", rel);
}

/* ---- path checks --------------------------------------------------------------------------- */

/* rel is relative, has no ".." component, and is not too long. */
static bool rel_ok(const char *rel)
{
    if (rel[0] == '/' || strlen(rel) >= FSAT_COMPONENT_MAX)
        return false;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += n;
        while (*p == '/')
            p++;
    }
    return true;
}

/* True when rel names the directory itself ("", ".", "./", ".//."). */
static bool rel_is_self(const char *rel)
{
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if (!(n == 1 && p[0] == '.'))
            return false;
        p += n;
        while (*p == '/')
            p++;
    }
    return true;
}

/* ---- opening ------------------------------------------------------------------------------- */

hew_code fsat_base_open(const char *dir, int *fd_out, hew_err *err)
{
    *fd_out = -1;
    int fd;
    do
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return fs_error(err, errno, "open", dir);
    *fd_out = fd;
    return HEW_OK;
}

static int sys_openat2(int dirfd, const char *rel, int flags, mode_t mode)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned)flags;
    how.mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? mode : 0;
    how.resolve = FSAT_RESOLVE;
    return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
}

/* One component: O_NOFOLLOW. A symlink opened as itself (O_PATH) is refused (ELOOP). */
static int open_last(int dirfd, const char *name, int flags, mode_t mode)
{
    int fd;
    do
        fd = openat(dirfd, name, flags | O_NOFOLLOW, mode);
    while (fd < 0 && errno == EINTR);
    if (fd < 0 && errno == ENOTDIR) { /* O_DIRECTORY on a symlink: say it is one */
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            errno = ELOOP;
        else
            errno = ENOTDIR;
    }
    if (fd >= 0 && (flags & O_PATH)) {
        struct stat st;
        if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
            int e = S_ISLNK(st.st_mode) ? ELOOP : errno;
            close(fd);
            errno = e;
            return -1;
        }
    }
    return fd;
}

/* The walk: every directory on the way opened O_PATH|O_DIRECTORY|O_NOFOLLOW from the one
 * before it; a symlink there fails (ENOTDIR is told apart from a file by a look at it). */
static int walk_open(int dirfd, const char *rel, int flags, mode_t mode)
{
    char comp[FSAT_COMPONENT_MAX];
    int cur = dirfd;
    const char *p = rel;
    for (;;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        const char *next = p + n;
        while (*next == '/')
            next++;
        if (n == 1 && p[0] == '.' && *next) {
            p = next;
            continue;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        if (!*next) { /* the last component */
            int fd = n == 0 ? openat(cur, ".", flags, mode) : open_last(cur, comp, flags, mode);
            int e = errno;
            if (cur != dirfd)
                close(cur);
            errno = e;
            return fd;
        }
        int fd;
        do
            fd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        int e = errno;
        if (fd < 0 && e == ENOTDIR) {
            struct stat st;
            if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                e = ELOOP;
        }
        if (cur != dirfd)
            close(cur);
        if (fd < 0) {
            errno = e;
            return -1;
        }
        cur = fd;
        p = next;
    }
}

hew_code fsat_open(int dirfd, const char *rel, int flags, mode_t mode, int *fd_out,
                   hew_err *err)
{
    *fd_out = -1;
    if (!rel_ok(rel))
        return hew_err_set(err, HEW_E_ESCAPE, "%s is not a path below its folder (it is "
                           "absolute, too long or has \"..\") — nothing was opened", rel);
    flags |= O_CLOEXEC;
    if (rel_is_self(rel)) {
        int fd;
        do
            fd = openat(dirfd, ".", flags, mode);
        while (fd < 0 && errno == EINTR);
        if (fd < 0)
            return open_error(err, errno, ".");
        *fd_out = fd;
        return HEW_OK;
    }
    int fd = -1;
    if (!atomic_load(&no_openat2)) {
        for (int tries = 0; tries < 8; tries++) {
            fd = sys_openat2(dirfd, rel, flags, mode);
            if (fd >= 0 || (errno != EINTR && errno != EAGAIN))
                break;
        }
        if (fd < 0 && errno == ENOSYS)
            atomic_store(&no_openat2, 1);
    }
    if (atomic_load(&no_openat2))
        fd = walk_open(dirfd, rel, flags, mode);
    if (fd < 0)
        return open_error(err, errno, rel);
    *fd_out = fd;
    return HEW_OK;
}

hew_code fsat_stat(int dirfd, const char *rel, struct stat *st, hew_err *err)
{
    int fd;
    hew_code rc = fsat_open(dirfd, rel, O_PATH, 0, &fd, err);
    if (rc != HEW_OK)
        return rc;
    if (fstat(fd, st) != 0)
        rc = fs_error(err, errno, "look at", rel);
    close(fd);
    return rc;
}

hew_code fsat_open_file(int dirfd, const char *rel, int *fd_out, struct stat *st,
                        hew_err *err)
{
    *fd_out = -1;
    hew_code rc = fsat_stat(dirfd, rel, st, err);
    if (rc != HEW_OK || !S_ISREG(st->st_mode))
        return rc;
    int fd;
    rc = fsat_open(dirfd, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd, err);
    if (rc != HEW_OK)
        return rc;
    struct stat again;
    if (fstat(fd, &again) != 0) {
        int e = errno;
        close(fd);
        return fs_error(err, e, "read", rel);
    }
    if (again.st_dev != st->st_dev || again.st_ino != st->st_ino) {
        close(fd);
        return hew_err_set(err, HEW_E_ESCAPE, "%s was replaced while hew was opening it — "
                           "nothing was read; try again", rel);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    *st = again;
    *fd_out = fd;
    return HEW_OK;
}

hew_code fsat_mkdirs(int dirfd, const char *rel, mode_t mode, int *fd_out, hew_err *err)
{
    *fd_out = -1;
    if (!rel_ok(rel))
        return hew_err_set(err, HEW_E_ESCAPE, "%s is not a path below its folder — nothing "
                           "was created", rel);
    /* Usually the directory is there: one open. */
    int fd;
    hew_code rc = fsat_open(dirfd, rel, O_PATH | O_DIRECTORY, 0, &fd, NULL);
    if (rc == HEW_OK) {
        *fd_out = fd;
        return HEW_OK;
    }
    char comp[FSAT_COMPONENT_MAX];
    int cur = -1;
    do
        cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    while (cur < 0 && errno == EINTR);
    if (cur < 0)
        return fs_error(err, errno, "open", ".");
    const char *p = rel;
    while (*p) {
        size_t n = strcspn(p, "/");
        const char *next = p + n;
        while (*next == '/')
            next++;
        if (n == 0 || (n == 1 && p[0] == '.')) {
            p = next;
            continue;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        int nfd = -1;
        for (int tries = 0; tries < 2 && nfd < 0; tries++) {
            do
                nfd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            while (nfd < 0 && errno == EINTR);
            if (nfd >= 0 || errno != ENOENT || tries > 0)
                break;
            if (mkdirat(cur, comp, mode) != 0 && errno != EEXIST)
                break;
        }
        if (nfd < 0) {
            int e = errno;
            struct stat st;
            bool link = fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
            bool other = !link && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                         !S_ISDIR(st.st_mode);
            close(cur);
            if (link)
                return escape_error(err, rel);
            if (other)
                return hew_err_set(err, HEW_E_INVALID, "cannot create %s: %.*s exists and is "
                                   "not a directory", rel, (int)(next - rel), rel);
            return fs_error(err, e, "create", rel);
        }
        close(cur);
        cur = nfd;
        p = next;
    }
    *fd_out = cur;
    return HEW_OK;
}

/* ---- the journal ----------------------------------------------------------------------------- */

static pthread_mutex_t journal_mu = PTHREAD_MUTEX_INITIALIZER;
static char *journal_dir;
static atomic_uint journal_seq;

hew_code fsat_journal_set(const char *dir, hew_err *err)
{
    char *copy = NULL;
    if (dir) {
        hew_code rc = fs_mkdirs(dir, 0700, err);
        if (rc != HEW_OK)
            return rc;
        copy = strdup(dir);
        if (!copy)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    pthread_mutex_lock(&journal_mu);
    free(journal_dir);
    journal_dir = copy;
    pthread_mutex_unlock(&journal_mu);
    return HEW_OK;
}

/* Note a pending temporary file: dir_path/name, with its inode when known (0: named
 * temporary file, not created yet). *entry gets the journal entry's path (free it), or
 * NULL when there is no journal (or it cannot be written: the write goes on without). */
static void journal_add(const char *dir_path, const char *name, const struct stat *st,
                        char **entry)
{
    *entry = NULL;
    pthread_mutex_lock(&journal_mu);
    char *dir = journal_dir ? strdup(journal_dir) : NULL;
    pthread_mutex_unlock(&journal_mu);
    if (!dir)
        return;
    size_t cap = strlen(dir) + 64;
    char *path = malloc(cap);
    char *line = malloc(FSAT_JOURNAL_LINE_MAX);
    if (path && line) {
        snprintf(path, cap, "%s/%ld-%u", dir, (long)getpid(), atomic_fetch_add(&journal_seq, 1));
        int n = snprintf(line, FSAT_JOURNAL_LINE_MAX, "%llu %llu %s/%s\n",
                         st ? (unsigned long long)st->st_dev : 0ULL,
                         st ? (unsigned long long)st->st_ino : 0ULL, dir_path, name);
        int fd = n > 0 && n < FSAT_JOURNAL_LINE_MAX
                     ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)
                     : -1;
        if (fd >= 0) {
            if (fs_write_all(fd, line, (size_t)n, path, NULL) == HEW_OK)
                *entry = path;
            else
                unlink(path);
            close(fd);
        }
    }
    if (!*entry)
        free(path);
    free(line);
    free(dir);
}

static void journal_remove(char *entry)
{
    if (entry)
        unlink(entry);
    free(entry);
}

bool fsat_is_temp_name(const char *name)
{
    size_t n = strlen(name), sl = strlen(FSAT_TEMP_SUFFIX), ml = strlen(FSAT_TEMP_MARK);
    if (n < 2 + ml + sl || name[0] != '.' || strcmp(name + n - sl, FSAT_TEMP_SUFFIX) != 0)
        return false;
    const char *mark = strstr(name + 1, FSAT_TEMP_MARK); /* ".NAME" comes first */
    return mark && (size_t)(mark - name) + ml < n - sl;
}

/* Remove the temporary file one journal entry lists, if it is still hew's. */
static bool clean_entry(const char *text)
{
    unsigned long long dev = 0, ino = 0;
    int off = 0;
    if (sscanf(text, "%llu %llu %n", &dev, &ino, &off) != 2 || off <= 0)
        return false;
    const char *path = text + off;
    size_t n = strcspn(path, "\n");
    char *p = strndup(path, n);
    if (!p)
        return false;
    char *slash = strrchr(p, '/');
    bool removed = false;
    if (p[0] == '/' && slash && fsat_is_temp_name(slash + 1)) {
        *slash = '\0';
        int dfd = open(p[0] ? p : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        if (dfd >= 0 && fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) &&
            (ino == 0 || ((unsigned long long)st.st_dev == dev &&
                          (unsigned long long)st.st_ino == ino)))
            removed = unlinkat(dfd, slash + 1, 0) == 0;
        if (dfd >= 0)
            close(dfd);
    }
    free(p);
    return removed;
}

hew_code fsat_journal_clean(const char *dir, size_t *removed, hew_err *err)
{
    if (removed)
        *removed = 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno == ENOENT ? HEW_OK : fs_error(err, errno, "open", dir);
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return fs_error(err, e, "list", dir);
    }
    char *line = malloc(FSAT_JOURNAL_LINE_MAX);
    if (!line) {
        closedir(d);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char *end = NULL;
        long pid = strtol(de->d_name, &end, 10);
        if (pid <= 0 || !end || *end != '-')
            continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno == EPERM)
            continue; /* a running process: its write may be going on */
        int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, line, FSAT_JOURNAL_LINE_MAX - 1);
        close(fd);
        if (n > 0) {
            line[n] = '\0';
            if (clean_entry(line) && removed)
                (*removed)++;
        }
        unlinkat(dirfd(d), de->d_name, 0);
    }
    free(line);
    closedir(d);
    return HEW_OK;
}

/* ---- test hooks ------------------------------------------------------------------------------- */

static pthread_mutex_t fault_mu = PTHREAD_MUTEX_INITIALIZER;
static char fault_point[256]; /* "POINT" or "POINT:NAME" */
static bool fault_read;

void fsat_test_no_openat2(bool off)
{
    atomic_store(&no_openat2, off ? 1 : 0);
}

void fsat_test_no_tmpfile(bool off)
{
    atomic_store(&no_tmpfile, off);
}

void fsat_test_fault(const char *point)
{
    pthread_mutex_lock(&fault_mu);
    snprintf(fault_point, sizeof fault_point, "%s", point ? point : "");
    fault_read = true;
    pthread_mutex_unlock(&fault_mu);
}

/* Die here when the fault point is point (and, with ":NAME", the file is name). */
static void fault(const char *point, const char *name)
{
    pthread_mutex_lock(&fault_mu);
    if (!fault_read) {
        const char *env = getenv("HEW_TEST_FAULT");
        snprintf(fault_point, sizeof fault_point, "%s", env ? env : "");
        fault_read = true;
    }
    size_t pl = strlen(point);
    bool hit = fault_point[0] && strncmp(fault_point, point, pl) == 0 &&
               (fault_point[pl] == '\0' ||
                (fault_point[pl] == ':' && strcmp(fault_point + pl + 1, name) == 0));
    pthread_mutex_unlock(&fault_mu);
    if (hit)
        raise(SIGKILL);
}

/* ---- atomic writes ------------------------------------------------------------------------------- */

/* ".NAME.hew.PID.RANDOM.tmp" into out (cap bytes), NAME cut to 64 bytes (whole UTF-8). */
static void temp_name(const char *name, char *out, size_t cap)
{
    static atomic_uint counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned k = atomic_fetch_add(&counter, 1);
    unsigned long salt = ((unsigned long)ts.tv_nsec ^ ((unsigned long)k * 2654435761u)) &
                         0xFFFFFFFFul;
    size_t n = utf8_cut(name, strlen(name), 64);
    snprintf(out, cap, ".%.*s" FSAT_TEMP_MARK "%ld.%lx" FSAT_TEMP_SUFFIX, (int)n, name,
             (long)getpid(), salt);
}

static hew_code sync_fd(int fd, const char *what, hew_err *err)
{
    int r;
    while ((r = fsync(fd)) != 0 && errno == EINTR)
        ;
    if (r != 0 && errno != EINVAL) /* EINVAL: no fsync here (special file system) */
        return fs_error(err, errno, "write", what);
    return HEW_OK;
}

/* Best effort: make the rename durable (some file systems refuse fsync on a directory). */
static void sync_dir(int dirfd)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    while (fsync(fd) != 0 && errno == EINTR)
        ;
    close(fd);
}

/* Fill fd with the data and the old file's mode, and fsync it. */
static hew_code fill(int fd, const struct stat *old, const void *data, size_t len,
                     const char *what, hew_err *err)
{
    if (old && fchmod(fd, old->st_mode & 07777) != 0)
        return fs_error(err, errno, "write", what);
    hew_code rc = fs_write_all(fd, data, len, what, err);
    return rc == HEW_OK ? sync_fd(fd, what, err) : rc;
}

/* The O_TMPFILE way. HEW_E_INVALID with *unsupported when this file system cannot (the
 * caller falls back to a named temporary file); otherwise the final result. */
static hew_code write_tmpfile(int dirfd, const char *dir_path, const char *name,
                              const struct stat *old, const void *data, size_t len,
                              mode_t mode, const char *what, bool *unsupported, hew_err *err)
{
    *unsupported = false;
    int fd;
    do
        fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT) {
            *unsupported = true;
            return HEW_E_INVALID;
        }
        return fs_error(err, errno, "write", what);
    }
    hew_code rc = fill(fd, old, data, len, what, err);
    struct stat tst;
    if (rc == HEW_OK && fstat(fd, &tst) != 0)
        rc = fs_error(err, errno, "write", what);
    if (rc != HEW_OK) {
        close(fd);
        return rc;
    }
    fault("written", name);
    /* Give it a name: the only moment a temporary name exists. */
    char tmp[128], proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    char *entry = NULL;
    bool linked = false;
    for (int attempt = 0; attempt < 100 && !linked; attempt++) {
        temp_name(name, tmp, sizeof tmp);
        journal_add(dir_path, tmp, &tst, &entry);
        int r = linkat(fd, "", dirfd, tmp, AT_EMPTY_PATH);
        if (r != 0 && (errno == ENOENT || errno == EPERM || errno == EINVAL))
            r = linkat(AT_FDCWD, proc, dirfd, tmp, AT_SYMLINK_FOLLOW);
        if (r == 0) {
            linked = true;
            break;
        }
        int e = errno;
        journal_remove(entry);
        entry = NULL;
        if (e == EEXIST)
            continue;
        close(fd);
        if (e == ENOENT || e == EPERM || e == EACCES || e == EOPNOTSUPP) {
            *unsupported = true; /* no /proc, or linking refused: the named way */
            return HEW_E_INVALID;
        }
        return fs_error(err, e, "write", what);
    }
    close(fd);
    if (!linked)
        return hew_err_set(err, HEW_E_IO, "cannot write %s: no free temporary name in its "
                           "folder", what);
    fault("linked", name);
    if (renameat(dirfd, tmp, dirfd, name) != 0) {
        rc = fs_error(err, errno, "write", what);
        unlinkat(dirfd, tmp, 0);
    }
    journal_remove(entry);
    return rc;
}

/* The named way: a new ".NAME.hew.PID.RANDOM.tmp" (O_EXCL), journaled before it exists. */
static hew_code write_named(int dirfd, const char *dir_path, const char *name,
                            const struct stat *old, const void *data, size_t len, mode_t mode,
                            const char *what, hew_err *err)
{
    char tmp[128];
    char *entry = NULL;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        temp_name(name, tmp, sizeof tmp);
        journal_add(dir_path, tmp, NULL, &entry);
        do
            fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
                        O_NOCTTY, mode);
        while (fd < 0 && errno == EINTR);
        if (fd >= 0)
            break;
        int e = errno;
        journal_remove(entry);
        entry = NULL;
        if (e != EEXIST)
            return fs_error(err, e, "write", what);
    }
    if (fd < 0)
        return hew_err_set(err, HEW_E_IO, "cannot write %s: no free temporary name in its "
                           "folder", what);
    hew_code rc = fill(fd, old, data, len, what, err);
    if (close(fd) != 0 && rc == HEW_OK && errno != EINTR)
        rc = fs_error(err, errno, "write", what);
    if (rc == HEW_OK) {
        fault("named", name);
        if (renameat(dirfd, tmp, dirfd, name) != 0)
            rc = fs_error(err, errno, "write", what);
    }
    if (rc != HEW_OK)
        unlinkat(dirfd, tmp, 0);
    journal_remove(entry);
    return rc;
}

hew_code fsat_write_atomic(int dirfd, const char *dir_path, const char *name,
                           const void *data, size_t len, mode_t mode, hew_err *err)
{
    if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0)
        return hew_err_set(err, HEW_E_INVALID, "cannot write \"%s\" in %s: not a file name",
                           name ? name : "", dir_path);
    size_t wl = strlen(dir_path) + strlen(name) + 2;
    char *what = malloc(wl);
    if (!what)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    snprintf(what, wl, "%s%s%s", dir_path,
             dir_path[0] && dir_path[strlen(dir_path) - 1] == '/' ? "" : "/", name);
    struct stat old;
    bool exists = fstatat(dirfd, name, &old, AT_SYMLINK_NOFOLLOW) == 0;
    hew_code rc = HEW_OK;
    if (exists && S_ISDIR(old.st_mode))
        rc = hew_err_set(err, HEW_E_INVALID, "cannot write %s: it is a directory", what);
    const struct stat *keep = exists && S_ISREG(old.st_mode) ? &old : NULL;
    if (rc == HEW_OK) {
        bool unsupported = true;
        if (!atomic_load(&no_tmpfile))
            rc = write_tmpfile(dirfd, dir_path, name, keep, data, len, mode, what,
                               &unsupported, err);
        if (unsupported)
            rc = write_named(dirfd, dir_path, name, keep, data, len, mode, what, err);
    }
    if (rc == HEW_OK)
        sync_dir(dirfd);
    free(what);
    return rc;
}
