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
#include "base/utf8.h"

static const char REDACTED[] = "[REDACTED]";

/* ---- redaction -------------------------------------------------------------------- */

static const char *const secret_headers[] = {
    "proxy-authorization", "authorization", "x-goog-api-key", "x-api-key", "api-key",
};

static const char *const secret_params[] = {
    "api_key", "apikey", "access_token", "token", "key",
};

static const char *const secret_json_keys[] = {
    "api_key",       "apikey",        "api-key",      "x-api-key",     "x-goog-api-key",
    "authorization", "proxy-authorization", "access_token", "refresh_token",
    "client_secret", "password",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* strlen(word) when s[0..n) starts with word (case-insensitive), else 0. */
static size_t starts_ci(const char *s, size_t n, const char *word)
{
    size_t i = 0;
    for (; word[i]; i++)
        if (i >= n || lower(s[i]) != word[i])
            return 0;
    return i;
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_';
}

static bool is_auth_name(const char *name)
{
    return strcmp(name, "authorization") == 0 || strcmp(name, "proxy-authorization") == 0;
}

/* Append the masked form of a secret value v[0..n): for authorization values the scheme
 * word is kept ("Bearer [REDACTED]"). */
static void put_masked(buf *out, const char *v, size_t n, bool auth)
{
    if (auth) {
        size_t s = 0;
        while (s < n && ((v[s] >= 'a' && v[s] <= 'z') || (v[s] >= 'A' && v[s] <= 'Z')))
            s++;
        if (s > 0 && s + 1 < n && v[s] == ' ')
            buf_append(out, v, s + 1);
    }
    buf_append(out, REDACTED, sizeof REDACTED - 1);
}

/* A secret found at in[i]: keep in[i..keep), mask in[keep..end), go on at end. */
typedef struct match {
    size_t keep;
    size_t end;
    bool auth; /* an authorization value: keep its scheme word */
} match;

/* A header "Name: value" at in[i]. */
static bool match_header(const char *in, size_t n, size_t i, match *m)
{
    if (i > 0 && is_name_char(in[i - 1]))
        return false;
    for (size_t h = 0; h < COUNT(secret_headers); h++) {
        size_t L = starts_ci(in + i, n - i, secret_headers[h]);
        if (!L)
            continue;
        size_t j = i + L;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        if (j >= n || in[j] != ':')
            continue;
        j++;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        size_t e = j;
        while (e < n && in[e] != '\r' && in[e] != '\n' && in[e] != '"' && in[e] != '\\')
            e++;
        if (e == j)
            return false;
        *m = (match){ j, e, is_auth_name(secret_headers[h]) };
        return true;
    }
    return false;
}

/* A query parameter "?name=value" / "&name=value" at in[i]. */
static bool match_param(const char *in, size_t n, size_t i, match *m)
{
    for (size_t p = 0; p < COUNT(secret_params); p++) {
        size_t L = starts_ci(in + i + 1, n - i - 1, secret_params[p]);
        if (!L || i + 1 + L >= n || in[i + 1 + L] != '=')
            continue;
        size_t v = i + 2 + L;
        size_t e = v;
        while (e < n && !strchr("&#\"'<>\\ \t\r\n", in[e]))
            e++;
        if (e == v)
            return false;
        *m = (match){ v, e, false };
        return true;
    }
    return false;
}

/* "://user:password@host" at in[i] (i at the ':' of "://"): the password. */
static bool match_userinfo(const char *in, size_t n, size_t i, match *m)
{
    size_t a = i + 3;
    size_t end = a;
    while (end < n && !strchr("/?#\"'<>\\ \t\r\n", in[end]))
        end++;
    size_t at = end;
    while (at > a && in[at - 1] != '@')
        at--;
    if (at == a)
        return false; /* no '@' */
    at--;             /* index of the last '@' */
    const char *colon = memchr(in + a, ':', at - a);
    if (!colon || (size_t)(colon - in) + 1 == at)
        return false; /* no password */
    *m = (match){ (size_t)(colon - in) + 1, at, false };
    return true;
}

/* Is the quote token (" when q is 1, \" when q is 2) at in[j]? */
static bool quote_at(const char *in, size_t n, size_t j, size_t q)
{
    if (q == 1)
        return j < n && in[j] == '"';
    return j + 1 < n && in[j] == '\\' && in[j + 1] == '"';
}

/* A JSON field "name": "value" (or \"name\": \"value\") at in[i]: the string's content. */
static bool match_json(const char *in, size_t n, size_t i, match *m)
{
    size_t q = in[i] == '"' ? 1 : 2;
    size_t k = i + q;
    for (size_t f = 0; f < COUNT(secret_json_keys); f++) {
        size_t L = starts_ci(in + k, n - k, secret_json_keys[f]);
        if (!L || !quote_at(in, n, k + L, q))
            continue;
        size_t j = k + L + q;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        if (j >= n || in[j] != ':')
            continue;
        j++;
        while (j < n && (in[j] == ' ' || in[j] == '\t'))
            j++;
        if (!quote_at(in, n, j, q))
            return false; /* not a string value */
        size_t v = j + q;
        size_t e = v;
        if (q == 1) {
            while (e < n && in[e] != '"')
                e += (in[e] == '\\' && e + 1 < n) ? 2 : 1;
        } else {
            while (e < n && !quote_at(in, n, e, 2))
                e++;
        }
        if (e > n)
            e = n; /* an unterminated value is masked to the end */
        if (e == v)
            return false;
        *m = (match){ v, e, is_auth_name(secret_json_keys[f]) };
        return true;
    }
    return false;
}

void log_redact(const char *in, size_t n, buf *out)
{
    size_t run = 0; /* start of the bytes not yet copied */
    size_t i = 0;
    while (i < n) {
        char c = in[i];
        bool hit = false;
        match m;
        if (c == '?' || c == '&')
            hit = i + 1 < n && match_param(in, n, i, &m);
        else if (c == '"' || (c == '\\' && i + 1 < n && in[i + 1] == '"'))
            hit = match_json(in, n, i, &m);
        else if (c == ':')
            hit = i + 2 < n && in[i + 1] == '/' && in[i + 2] == '/' &&
                  match_userinfo(in, n, i, &m);
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            hit = match_header(in, n, i, &m);
        if (!hit) {
            i++;
            continue;
        }
        buf_append(out, in + run, m.keep - run);
        put_masked(out, in + m.keep, m.end - m.keep, m.auth);
        i = run = m.end;
    }
    buf_append(out, in + run, n - run);
}

bool log_header_is_secret(const char *name)
{
    if (!name)
        return false;
    for (size_t h = 0; h < COUNT(secret_headers); h++)
        if (strcasecmp(name, secret_headers[h]) == 0)
            return true;
    return false;
}

void log_redact_header(const char *name, const char *value, buf *out)
{
    if (!value)
        return;
    if (!log_header_is_secret(name)) {
        buf_puts(out, value);
        return;
    }
    put_masked(out, value, strlen(value),
               strcasecmp(name, "authorization") == 0 ||
                   strcasecmp(name, "proxy-authorization") == 0);
}
/* ---- the log file ----------------------------------------------------------------- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;           /* guarded by log_mu */
static char log_path_buf[PATH_MAX]; /* guarded by log_mu */
static atomic_bool log_is_open;
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
    if (xdg && xdg[0] == '/') {
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

/* Swap in a new descriptor (or -1) and path; the old descriptor is closed. */
static void set_log_fd(int fd, const char *path)
{
    pthread_mutex_lock(&log_mu);
    int old = log_fd;
    log_fd = fd;
    snprintf(log_path_buf, sizeof log_path_buf, "%s", fd >= 0 ? path : "");
    atomic_store(&log_is_open, fd >= 0);
    pthread_mutex_unlock(&log_mu);
    if (old >= 0)
        close(old);
}

hew_code log_open(const char *dir, hew_err *err)
{
    int saved_errno = errno;
    set_log_fd(-1, NULL);
    char *def = NULL;
    hew_code rc = HEW_OK;
    if (!dir) {
        rc = log_default_dir(&def, err);
        dir = def;
    }
    char path[PATH_MAX];
    int fd = -1;
    if (rc == HEW_OK)
        rc = fs_mkdirs(dir, 0700, err);
    if (rc == HEW_OK && (size_t)snprintf(path, sizeof path, "%s/hew.log", dir) >= sizeof path)
        rc = hew_err_set(err, HEW_E_INVALID, "the log folder path %s is too long", dir);
    if (rc == HEW_OK) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
        if (fd < 0)
            rc = hew_err_set(err, HEW_E_IO, "cannot open the log file %s: %s — check the "
                             "folder's permissions or set XDG_STATE_HOME", path,
                             strerror(errno));
    }
    struct stat st;
    if (rc == HEW_OK && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)))
        rc = hew_err_set(err, HEW_E_INVALID, "the log file %s is not a regular file", path);
    if (rc == HEW_OK && (st.st_mode & 077) != 0 && fchmod(fd, 0600) != 0)
        rc = hew_err_set(err, HEW_E_IO, "cannot make the log file %s private: %s", path,
                         strerror(errno));
    if (rc != HEW_OK && fd >= 0) {
        close(fd);
        fd = -1;
    }
    if (rc == HEW_OK) {
        atomic_store(&log_min, (int)level_from_env());
        set_log_fd(fd, path);
    }
    free(def);
    errno = saved_errno;
    return rc;
}

void log_close(void)
{
    int saved_errno = errno;
    set_log_fd(-1, NULL);
    errno = saved_errno;
}

bool log_file_path(char *dst, size_t cap)
{
    pthread_mutex_lock(&log_mu);
    bool open_now = log_fd >= 0;
    if (open_now && cap > 0)
        snprintf(dst, cap, "%s", log_path_buf);
    pthread_mutex_unlock(&log_mu);
    return open_now;
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
    return atomic_load(&log_is_open) && (int)level <= atomic_load(&log_min);
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
    log_redact(msg, len, &red);
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
    if (line.err == HEW_OK) {
        pthread_mutex_lock(&log_mu);
        if (log_fd >= 0)
            (void)fs_write_all(log_fd, line.data, line.len, "log", NULL);
        pthread_mutex_unlock(&log_mu);
    }
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
