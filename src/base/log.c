/* log — the diagnostic log file and secret redaction (see log.h). Never prints, never
 * fails its caller, never changes errno, never writes a secret it recognises. */
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/redact.h"
#include "base/utf8.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the log file ----------------------------------------------------------------- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;             /* guarded by log_mu */
static char log_path_buf[PATH_MAX]; /* guarded by log_mu: the file, open or to open */
static long long log_size;          /* guarded by log_mu: bytes in the open file */
static long long log_rotate_at = LOG_ROTATE_BYTES; /* guarded by log_mu */
static bool log_lazy;               /* guarded by log_mu: open at the first line */
static atomic_bool log_is_on;       /* open, or to be opened at the first line */
static atomic_int log_min = HEW_LOG_INFO;

static const char *const level_names[] = {
    [HEW_LOG_ERROR] = "ERROR", [HEW_LOG_WARN] = "WARN", [HEW_LOG_INFO] = "INFO",
    [HEW_LOG_DEBUG] = "DEBUG",
};

static log_level level_from_env(void)
{
    const char *v = getenv("HEW_LOG");
    if (!v)
        return HEW_LOG_INFO;
    if (strcasecmp(v, "error") == 0)
        return HEW_LOG_ERROR;
    if (strcasecmp(v, "warn") == 0 || strcasecmp(v, "warning") == 0)
        return HEW_LOG_WARN;
    if (strcasecmp(v, "debug") == 0)
        return HEW_LOG_DEBUG;
    return HEW_LOG_INFO;
}

hew_code log_default_dir(char **out, hew_err *err)
{
    *out = NULL;
    buf b = BUF_INIT(PATH_MAX);
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    const char *data = getenv("HEW_DATA_DIR"); /* sys/datadir.h's rule, from below sys */
    if (data && *data) {
        buf_printf(&b, "%s/log", data);
    } else if (xdg && xdg[0] == '/') {
        buf_printf(&b, "%s/hew", xdg);
    } else if (home && home[0] == '/') {
        buf_printf(&b, "%s/.local/state/hew", home);
    } else {
        return hew_err_set(err, HEW_E_NOTFOUND, "cannot find a folder for hew's log: set HOME "
                           "or XDG_STATE_HOME to an absolute path");
    }
    if (buf_check(&b, "log folder path", err) != HEW_OK) {
        buf_release(&b);
        return err ? err->code : HEW_E_TOOBIG;
    }
    *out = buf_detach(&b, NULL);
    return *out ? HEW_OK : hew_err_set(err, HEW_E_NOMEM, "out of memory");
}

/* The file's path for dir (NULL: the default folder) into path[PATH_MAX]. */
static hew_code log_path_for(const char *dir, char *path, hew_err *err)
{
    char *def = NULL;
    hew_code rc = HEW_OK;
    if (!dir) {
        rc = log_default_dir(&def, err);
        dir = def;
    }
    if (rc == HEW_OK && (size_t)snprintf(path, PATH_MAX, "%s/hew.log", dir) >= PATH_MAX)
        rc = hew_err_set(err, HEW_E_INVALID, "the log folder path %s is too long", dir);
    free(def);
    return rc;
}

/* Open path (its folder created 0700, the file 0600) and return the descriptor, or -1
 * with err set. Called with log_mu held. */
static int open_file(const char *path, long long *size, hew_err *err)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    if (fs_mkdirs(dir, 0700, err) != HEW_OK)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    if (fd < 0) {
        hew_err_set(err, HEW_E_IO, "cannot open the log file %s: %s — check the folder's "
                    "permissions or set XDG_STATE_HOME", path, strerror(errno));
        return -1;
    }
    struct stat st;
    hew_code rc = HEW_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        rc = hew_err_set(err, HEW_E_INVALID, "the log file %s is not a regular file", path);
    if (rc == HEW_OK && (st.st_mode & 077) != 0 && fchmod(fd, 0600) != 0)
        rc = hew_err_set(err, HEW_E_IO, "cannot make the log file %s private: %s", path,
                         strerror(errno));
    if (rc != HEW_OK) {
        close(fd);
        return -1;
    }
    *size = (long long)st.st_size;
    return fd;
}

/* Swap in a new state; the old descriptor is closed. */
static void set_state(int fd, const char *path, long long size, bool lazy)
{
    pthread_mutex_lock(&log_mu);
    int old = log_fd;
    log_fd = fd;
    log_size = size;
    log_lazy = lazy;
    snprintf(log_path_buf, sizeof log_path_buf, "%s", path ? path : "");
    atomic_store(&log_is_on, fd >= 0 || lazy);
    pthread_mutex_unlock(&log_mu);
    if (old >= 0)
        close(old);
}

hew_code log_open(const char *dir, hew_err *err)
{
    int saved_errno = errno;
    set_state(-1, NULL, 0, false);
    char path[PATH_MAX];
    long long size = 0;
    int fd = -1;
    hew_code rc = log_path_for(dir, path, err);
    if (rc == HEW_OK) {
        pthread_mutex_lock(&log_mu);
        fd = open_file(path, &size, err);
        pthread_mutex_unlock(&log_mu);
        if (fd < 0)
            rc = err && err->code != HEW_OK ? err->code : HEW_E_IO;
    }
    if (rc == HEW_OK) {
        atomic_store(&log_min, (int)level_from_env());
        set_state(fd, path, size, false);
    }
    errno = saved_errno;
    return rc;
}

hew_code log_open_lazy(const char *dir, hew_err *err)
{
    int saved_errno = errno;
    char path[PATH_MAX];
    hew_code rc = log_path_for(dir, path, err);
    if (rc == HEW_OK) {
        atomic_store(&log_min, (int)level_from_env());
        set_state(-1, path, 0, true);
    } else {
        set_state(-1, NULL, 0, false);
    }
    errno = saved_errno;
    return rc;
}

void log_close(void)
{
    int saved_errno = errno;
    set_state(-1, NULL, 0, false);
    errno = saved_errno;
}

bool log_file_path(char *dst, size_t cap)
{
    pthread_mutex_lock(&log_mu);
    bool on = log_fd >= 0 || log_lazy;
    if (on && cap > 0)
        snprintf(dst, cap, "%s", log_path_buf);
    pthread_mutex_unlock(&log_mu);
    return on;
}

void log_set_rotate_bytes(long long bytes)
{
    pthread_mutex_lock(&log_mu);
    log_rotate_at = bytes > 0 ? bytes : LOG_ROTATE_BYTES;
    pthread_mutex_unlock(&log_mu);
}

void log_set_level(log_level level)
{
    if (level < HEW_LOG_ERROR)
        level = HEW_LOG_ERROR;
    if (level > HEW_LOG_DEBUG)
        level = HEW_LOG_DEBUG;
    atomic_store(&log_min, (int)level);
}

bool log_enabled(log_level level)
{
    return atomic_load(&log_is_on) && (int)level <= atomic_load(&log_min);
}

/* hew.log → hew.log.1 → … → hew.log.LOG_KEEP (the oldest is dropped), then a fresh
 * hew.log. Called with log_mu held and the file open. Another hew may have rotated
 * already: a rename that finds nothing is fine. */
static void rotate_locked(void)
{
    char from[PATH_MAX + 24], to[PATH_MAX + 24];
    for (int k = LOG_KEEP - 1; k >= 1; k--) {
        snprintf(from, sizeof from, "%s.%d", log_path_buf, k);
        snprintf(to, sizeof to, "%s.%d", log_path_buf, k + 1);
        (void)rename(from, to);
    }
    snprintf(to, sizeof to, "%s.1", log_path_buf);
    (void)rename(log_path_buf, to);
    close(log_fd);
    log_fd = open_file(log_path_buf, &log_size, NULL);
    if (log_fd < 0)
        atomic_store(&log_is_on, false);
}

/* Write one line: open the file first when it is opened lazily, rotate when the line
 * would take it past the cap. Errors are dropped: logging never fails its caller. */
static void write_line(const char *line, size_t len)
{
    pthread_mutex_lock(&log_mu);
    if (log_fd < 0 && log_lazy) {
        log_lazy = false;
        log_fd = open_file(log_path_buf, &log_size, NULL);
        if (log_fd < 0)
            atomic_store(&log_is_on, false);
    }
    if (log_fd >= 0 && log_size > 0 && log_size + (long long)len > log_rotate_at)
        rotate_locked();
    if (log_fd >= 0 && fs_write_all(log_fd, line, len, "log", NULL) == HEW_OK)
        log_size += (long long)len;
    pthread_mutex_unlock(&log_mu);
}

/* Append s[0..n) with control characters escaped (tab kept). s is valid UTF-8. */
static void put_escaped(buf *out, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7F)
            continue;
        if (c == '\t')
            continue;
        buf_append(out, s + run, i - run);
        if (c == '\n')
            buf_puts(out, "\\n");
        else if (c == '\r')
            buf_puts(out, "\\r");
        else
            buf_printf(out, "\\x%02X", c);
        run = i + 1;
    }
    buf_append(out, s + run, n - run);
}

void hew_logv(log_level level, const char *part, const char *fmt, va_list ap)
{
    if (!log_enabled(level) || !fmt)
        return;
    int saved_errno = errno;

    /* 1. Format, cutting (visibly) at LOG_LINE_MAX. */
    char *msg = malloc(LOG_LINE_MAX + 1);
    if (!msg) {
        errno = saved_errno;
        return;
    }
    int full = vsnprintf(msg, LOG_LINE_MAX + 1, fmt, ap);
    size_t len = full < 0 ? 0 : (size_t)full;
    size_t cut = 0;
    if (len > LOG_LINE_MAX) {
        size_t keep = utf8_complete_prefix(msg, LOG_LINE_MAX); /* no half character */
        cut = len - keep;
        len = keep;
    }

    /* 2. Redact, 3. repair UTF-8, 4. escape controls into one line. */
    buf red = BUF_INIT(0), clean = BUF_INIT(0), line = BUF_INIT(0);
    redact_text(msg, len, &red);
    free(msg);
    utf8_sanitize(red.data ? red.data : "", red.len, &clean);
    buf_release(&red);

    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[40];
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    unsigned lv = (unsigned)level < COUNT(level_names) ? (unsigned)level : HEW_LOG_DEBUG;
    buf_printf(&line, "%s.%03ldZ %-5s %s: ", stamp, ts.tv_nsec / 1000000L, level_names[lv],
               part && *part ? part : "hew");
    put_escaped(&line, clean.data ? clean.data : "", clean.len);
    buf_release(&clean);
    if (cut)
        buf_printf(&line, " [... %zu more bytes cut]", cut);
    buf_putc(&line, '\n');

    /* 5. One write, under the lock. Errors are dropped: logging never fails its caller. */
    if (line.err == HEW_OK)
        write_line(line.data, line.len);
    buf_release(&line);
    errno = saved_errno;
}

void hew_log(log_level level, const char *part, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hew_logv(level, part, fmt, ap);
    va_end(ap);
}
