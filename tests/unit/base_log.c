/* Unit tests for base/log: the log file (location, modes, levels, line format, escaping,
 * cutting, concurrent writers, redaction of every line, lazy opening, rotation), and
 * silence before open or after a failed open. The redactor itself: base_redact.c. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/log.h"
#include "check.h"
#include "tmpdir.h"

static char *tmp;

static char *slurp(const char *path)
{
    char *data = NULL;
    fs_read_file(path, 1 << 24, &data, NULL, NULL);
    return data;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

static void test_silent_before_open(void)
{
    log_close();
    CHECK(!log_enabled(HEW_LOG_ERROR));
    errno = 1234;
    hew_log(HEW_LOG_ERROR, "test", "nobody hears this %d", 1);
    CHECK_INT(errno, 1234);
    char p[64];
    CHECK(!log_file_path(p, sizeof p));
    log_close(); /* twice is fine */
}

static void test_file_and_format(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/state/deep/hew", tmp);
    unsetenv("HEW_LOG");
    hew_err err = HEW_ERR_INIT;
    REQUIRE(log_open(dir, &err) == HEW_OK);
    char path[4096];
    REQUIRE(log_file_path(path, sizeof path));
    char want[4200];
    snprintf(want, sizeof want, "%s/hew.log", dir);
    CHECK_STR(path, want);
    struct stat st;
    REQUIRE(stat(dir, &st) == 0);
    CHECK_INT(st.st_mode & 0777, 0700);
    REQUIRE(stat(path, &st) == 0);
    CHECK_INT(st.st_mode & 0777, 0600);

    CHECK(log_enabled(HEW_LOG_INFO));
    CHECK(!log_enabled(HEW_LOG_DEBUG));
    errno = 77;
    hew_log(HEW_LOG_INFO, "net", "GET %s -> %d", "https://h/x?key=SECRET1", 200);
    CHECK_INT(errno, 77);
    hew_log(HEW_LOG_DEBUG, "net", "hidden at info");
    hew_log(HEW_LOG_ERROR, NULL, "two\nlines\r\tand \x1b[31mred\x1b[0m and \xFF");
    hew_log(HEW_LOG_WARN, "task", "header Authorization: Bearer SECRET2");
    log_set_level(HEW_LOG_DEBUG);
    hew_log(HEW_LOG_DEBUG, "parse", "now visible");
    log_set_level(HEW_LOG_ERROR);
    hew_log(HEW_LOG_WARN, "x", "filtered");

    char *s = slurp(path);
    REQUIRE(s != NULL);
    CHECK_INT(count_lines(s), 4);
    CHECK(strstr(s, "SECRET") == NULL);
    CHECK(strstr(s, "hidden") == NULL);
    CHECK(strstr(s, "filtered") == NULL);
    CHECK(strstr(s, " INFO  net: GET https://h/x?key=[REDACTED] -> 200\n") != NULL);
    CHECK(strstr(s, " ERROR hew: two\\nlines\\r\tand \\x1B[31mred\\x1B[0m and \xEF\xBF\xBD\n") !=
          NULL);
    CHECK(strstr(s, " WARN  task: header Authorization: Bearer [REDACTED]\n") != NULL);
    CHECK(strstr(s, " DEBUG parse: now visible\n") != NULL);
    /* The timestamp: 2025-01-31T12:00:00.123Z */
    CHECK(strlen(s) > 25 && s[4] == '-' && s[10] == 'T' && s[19] == '.' && s[23] == 'Z' &&
          s[24] == ' ');
    free(s);

    /* A very long message is cut, and says so. */
    log_set_level(HEW_LOG_INFO);
    size_t big = LOG_LINE_MAX * 2;
    char *longmsg = malloc(big + 1);
    REQUIRE(longmsg);
    memset(longmsg, 'z', big);
    longmsg[big] = '\0';
    hew_log(HEW_LOG_INFO, "big", "%s", longmsg);
    free(longmsg);
    s = slurp(path);
    REQUIRE(s != NULL);
    CHECK_INT(count_lines(s), 5);
    CHECK(strstr(s, "more bytes cut]\n") != NULL);
    free(s);
    log_close();
    CHECK(!log_enabled(HEW_LOG_ERROR));
    hew_log(HEW_LOG_ERROR, "x", "after close");
    s = slurp(path);
    CHECK(s && strstr(s, "after close") == NULL);
    free(s);

    /* Reopening appends; an existing file open to others is made private. */
    chmod(path, 0644);
    setenv("HEW_LOG", "Debug", 1);
    REQUIRE(log_open(dir, &err) == HEW_OK);
    CHECK(log_enabled(HEW_LOG_DEBUG));
    hew_log(HEW_LOG_DEBUG, "x", "appended");
    REQUIRE(stat(path, &st) == 0);
    CHECK_INT(st.st_mode & 0777, 0600);
    s = slurp(path);
    CHECK_INT(count_lines(s), 6);
    free(s);
    setenv("HEW_LOG", "error", 1);
    REQUIRE(log_open(dir, &err) == HEW_OK);
    CHECK(log_enabled(HEW_LOG_ERROR));
    CHECK(!log_enabled(HEW_LOG_WARN));
    setenv("HEW_LOG", "nonsense", 1);
    REQUIRE(log_open(dir, &err) == HEW_OK);
    CHECK(log_enabled(HEW_LOG_INFO));
    CHECK(!log_enabled(HEW_LOG_DEBUG));
    unsetenv("HEW_LOG");
    log_close();
}

static void test_default_dir(void)
{
    char xdg[4096], home[4096], want[4300];
    snprintf(xdg, sizeof xdg, "%s/xdg", tmp);
    snprintf(home, sizeof home, "%s/home", tmp);
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *old_xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
    hew_err err = HEW_ERR_INIT;
    char *d = NULL;

    setenv("XDG_STATE_HOME", xdg, 1);
    CHECK_INT(log_default_dir(&d, &err), HEW_OK);
    snprintf(want, sizeof want, "%s/hew", xdg);
    CHECK_STR(d, want);
    free(d);
    REQUIRE(log_open(NULL, &err) == HEW_OK);
    snprintf(want, sizeof want, "%s/hew/hew.log", xdg);
    CHECK(fs_is_file(want));
    log_close();

    setenv("XDG_STATE_HOME", "relative/ignored", 1);
    setenv("HOME", home, 1);
    CHECK_INT(log_default_dir(&d, &err), HEW_OK);
    snprintf(want, sizeof want, "%s/.local/state/hew", home);
    CHECK_STR(d, want);
    free(d);
    unsetenv("XDG_STATE_HOME");
    REQUIRE(log_open(NULL, &err) == HEW_OK);
    snprintf(want, sizeof want, "%s/.local/state/hew/hew.log", home);
    CHECK(fs_is_file(want));
    log_close();

    unsetenv("HOME");
    CHECK_INT(log_default_dir(&d, &err), HEW_E_NOTFOUND);
    CHECK(d == NULL);
    CHECK_INT(log_open(NULL, &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "XDG_STATE_HOME") != NULL);

    if (old_home)
        setenv("HOME", old_home, 1);
    if (old_xdg)
        setenv("XDG_STATE_HOME", old_xdg, 1);
    free(old_home);
    free(old_xdg);
}

static void test_failed_open_is_silent(void)
{
    char file[4096], dir[4200];
    snprintf(file, sizeof file, "%s/plainfile", tmp);
    hew_err err = HEW_ERR_INIT;
    REQUIRE(fs_write_atomic(file, "x", 1, 0600, &err) == HEW_OK);
    snprintf(dir, sizeof dir, "%s/sub", file); /* below a file: cannot be a folder */
    CHECK(log_open(dir, &err) != HEW_OK);
    CHECK(err.msg[0] != '\0');
    CHECK(!log_enabled(HEW_LOG_ERROR));
    hew_log(HEW_LOG_ERROR, "x", "goes nowhere");
    /* hew.log that is a directory is refused too. */
    snprintf(dir, sizeof dir, "%s/logdir", tmp);
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/hew.log", dir);
    REQUIRE(fs_mkdirs(sub, 0700, &err) == HEW_OK);
    CHECK(log_open(dir, &err) != HEW_OK);
    CHECK(!log_enabled(HEW_LOG_ERROR));
    /* A failed open also closes a log that was open before. */
    char good[4200];
    snprintf(good, sizeof good, "%s/good", tmp);
    REQUIRE(log_open(good, &err) == HEW_OK);
    CHECK(log_open(dir, &err) != HEW_OK);
    CHECK(!log_enabled(HEW_LOG_ERROR));
}

enum { THREADS = 8, PER_THREAD = 300 };

static void *writer(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < PER_THREAD; i++)
        hew_log(HEW_LOG_INFO, "thread", "writer %ld line %d token=x&key=s3cr3t padding-%0200d",
                id, i, 0);
    return NULL;
}

/* log_open_lazy touches nothing until the first line; then the folder (0700) and the file
 * (0600) appear, and the line is there, redacted. */
static void test_lazy_open(void)
{
    char dir[4200], file[4300];
    snprintf(dir, sizeof dir, "%s/lazy/state", tmp);
    snprintf(file, sizeof file, "%s/hew.log", dir);
    hew_err err = HEW_ERR_INIT;
    REQUIRE(log_open_lazy(dir, &err) == HEW_OK);
    struct stat st;
    CHECK(stat(dir, &st) != 0); /* nothing made yet */
    char where[4300];
    CHECK(log_file_path(where, sizeof where));
    CHECK_STR(where, file);
    CHECK(log_enabled(HEW_LOG_INFO));
    hew_log(HEW_LOG_DEBUG, "t", "below the level: opens nothing");
    CHECK(stat(dir, &st) != 0);
    hew_log(HEW_LOG_WARN, "mcp", "[noisy] stderr: token ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    REQUIRE(stat(dir, &st) == 0);
    CHECK_INT(st.st_mode & 0777, 0700);
    REQUIRE(stat(file, &st) == 0);
    CHECK_INT(st.st_mode & 0777, 0600);
    char *s = slurp(file);
    CHECK(s && strstr(s, "WARN  mcp: [noisy] stderr: token ghp_[REDACTED]\n"));
    CHECK(s && !strstr(s, "abcdefghijklmnop"));
    free(s);
    log_close();
    CHECK(!log_file_path(where, sizeof where));
    /* A lazy log whose folder cannot be made turns itself off at the first line. */
    char bad[4300];
    snprintf(bad, sizeof bad, "%s/hew.log/sub", dir); /* below a file */
    REQUIRE(log_open_lazy(bad, &err) == HEW_OK);
    hew_log(HEW_LOG_ERROR, "t", "goes nowhere");
    CHECK(!log_enabled(HEW_LOG_ERROR));
}

/* Past the size cap hew.log becomes hew.log.1 (older ones move up), at most LOG_KEEP. */
static void test_rotation(void)
{
    char dir[4200], path[4400];
    snprintf(dir, sizeof dir, "%s/rotate", tmp);
    hew_err err = HEW_ERR_INIT;
    REQUIRE(log_open(dir, &err) == HEW_OK);
    log_set_rotate_bytes(1000);
    for (int i = 0; i < 100; i++)
        hew_log(HEW_LOG_INFO, "rot", "line %03d %s", i, "................................");
    log_set_rotate_bytes(0);
    log_close();
    struct stat st;
    snprintf(path, sizeof path, "%s/hew.log", dir);
    REQUIRE(stat(path, &st) == 0);
    CHECK(st.st_size <= 1000);
    char *s = slurp(path);
    CHECK(s && strstr(s, "line 099"));
    free(s);
    for (int k = 1; k <= LOG_KEEP; k++) {
        snprintf(path, sizeof path, "%s/hew.log.%d", dir, k);
        CHECK(stat(path, &st) == 0 && st.st_size > 0 && st.st_size <= 1000);
        CHECK_INT(st.st_mode & 0777, 0600);
    }
    snprintf(path, sizeof path, "%s/hew.log.%d", dir, LOG_KEEP + 1);
    CHECK(stat(path, &st) != 0);
    /* hew.log.1 holds the lines just before hew.log's first one. */
    snprintf(path, sizeof path, "%s/hew.log.1", dir);
    s = slurp(path);
    CHECK(s && strstr(s, "line 0"));
    free(s);
}

static void test_concurrent_lines(void)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/threads", tmp);
    hew_err err = HEW_ERR_INIT;
    REQUIRE(log_open(dir, &err) == HEW_OK);
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        REQUIRE(pthread_create(&t[i], NULL, writer, (void *)i) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    char path[4300];
    REQUIRE(log_file_path(path, sizeof path));
    log_close();
    char *s = slurp(path);
    REQUIRE(s != NULL);
    CHECK_INT(count_lines(s), THREADS * PER_THREAD);
    CHECK(strstr(s, "s3cr3t") == NULL);
    /* Every line is whole: starts with a timestamp, ends with the padding. */
    int bad = 0;
    for (char *line = s; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        size_t n = (size_t)(nl - line);
        if (n < 30 || line[23] != 'Z' || strncmp(nl - 4, "0000", 4) != 0 ||
            !memmem(line, n, " INFO  thread: writer ", 22))
            bad++;
        line = nl + 1;
    }
    CHECK_INT(bad, 0);
    free(s);
}

int main(void)
{
    tmp = tmpdir_make("log");
    if (!tmp) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    umask(022);
    RUN(test_silent_before_open);
    RUN(test_file_and_format);
    RUN(test_default_dir);
    RUN(test_failed_open_is_silent);
    RUN(test_concurrent_lines);
    RUN(test_lazy_open);
    RUN(test_rotation);
    tmpdir_remove(tmp);
    free(tmp);
    return check_report();
}
