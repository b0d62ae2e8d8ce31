/* Unit tests for base/fs: capped reads (also of files that lie about their size), atomic
 * writes that replace or fail cleanly, mkdir -p, the small checks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "check.h"
#include "tmpdir.h"

static char *dir;

static char *at(const char *name)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

static void put(const char *path, const char *content)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        check_fail(__FILE__, __LINE__, "cannot create %s", path);
        return;
    }
    fputs(content, f);
    fclose(f);
}

/* Number of entries in d (without . and ..). */
static int count_entries(const char *d)
{
    DIR *h = opendir(d);
    if (!h)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(h)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(h);
    return n;
}

static void test_read_file(void)
{
    put(at("a.txt"), "hello\nworld");
    char *data = NULL;
    size_t len = 0;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(fs_read_file(at("a.txt"), 100, &data, &len, &err), HEW_OK);
    CHECK_INT(len, 11);
    CHECK_STR(data, "hello\nworld");
    free(data);
    /* Exactly the cap is fine, one byte less is too big. */
    CHECK_INT(fs_read_file(at("a.txt"), 11, &data, NULL, &err), HEW_OK);
    CHECK_STR(data, "hello\nworld");
    free(data);
    CHECK_INT(fs_read_file(at("a.txt"), 10, &data, &len, &err), HEW_E_TOOBIG);
    CHECK(data == NULL);
    CHECK(strstr(err.msg, "a.txt") != NULL);
    CHECK(strstr(err.msg, "limit of 10 bytes") != NULL);

    put(at("empty"), "");
    CHECK_INT(fs_read_file(at("empty"), 0, &data, &len, &err), HEW_OK);
    CHECK_INT(len, 0);
    CHECK_STR(data, "");
    free(data);

    /* Binary content with NULs keeps its length. */
    FILE *f = fopen(at("bin"), "wb");
    REQUIRE(f);
    fwrite("a\0b\0c", 1, 5, f);
    fclose(f);
    CHECK_INT(fs_read_file(at("bin"), 5, &data, &len, &err), HEW_OK);
    CHECK_MEM(data, len, "a\0b\0c", 5);
    CHECK_INT(data[5], '\0');
    free(data);

    CHECK_INT(fs_read_file(at("missing"), 100, &data, &len, &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "missing") != NULL);
    CHECK(strstr(err.msg, "no such file") != NULL);
    CHECK_INT(fs_read_file(at("a.txt/x"), 100, &data, &len, &err), HEW_E_NOTFOUND);
    CHECK_INT(fs_read_file(dir, 100, &data, &len, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "is a directory") != NULL);
    CHECK_INT(fs_read_file("", 100, &data, &len, &err), HEW_E_INVALID);
}

/* Files whose size says 0 (procfs) or that have no size (pipes) are capped while read. */
static void test_read_file_without_size(void)
{
    char *data = NULL;
    size_t len = 0;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(fs_read_file("/proc/self/status", 1 << 20, &data, &len, &err), HEW_OK);
    CHECK(len > 20);
    CHECK(data && strstr(data, "Name:") != NULL);
    free(data);
    CHECK_INT(fs_read_file("/proc/self/status", 16, &data, &len, &err), HEW_E_TOOBIG);
    CHECK(data == NULL);

    REQUIRE(mkfifo(at("fifo"), 0600) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        int fd = open(at("fifo"), O_WRONLY);
        char chunk[1000];
        memset(chunk, 'x', sizeof chunk);
        for (int i = 0; i < 100 && fd >= 0; i++)
            if (write(fd, chunk, sizeof chunk) < 0)
                break;
        _exit(0);
    }
    CHECK_INT(fs_read_file(at("fifo"), 5000, &data, &len, &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "limit of 5000 bytes") != NULL);
    int status;
    waitpid(pid, &status, 0);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (st.st_mode & 07777) : (mode_t)-1;
}

static void test_write_atomic(void)
{
    hew_err err = HEW_ERR_INIT;
    char *data = NULL;
    size_t len = 0;
    int before = count_entries(dir);
    CHECK_INT(fs_write_atomic(at("new.txt"), "one", 3, 0640, &err), HEW_OK);
    CHECK_INT(fs_read_file(at("new.txt"), 100, &data, &len, &err), HEW_OK);
    CHECK_STR(data, "one");
    free(data);
    CHECK_INT(mode_of(at("new.txt")), 0640);
    CHECK_INT(count_entries(dir), before + 1); /* no temp file left */

    /* Replacing keeps the existing file's mode (an executable stays executable). */
    REQUIRE(chmod(at("new.txt"), 0755) == 0);
    CHECK_INT(fs_write_atomic(at("new.txt"), "two, longer", 11, 0600, &err), HEW_OK);
    CHECK_INT(fs_read_file(at("new.txt"), 100, &data, &len, &err), HEW_OK);
    CHECK_STR(data, "two, longer");
    free(data);
    CHECK_INT(mode_of(at("new.txt")), 0755);
    CHECK_INT(fs_write_atomic(at("new.txt"), "", 0, 0600, &err), HEW_OK);
    CHECK_INT(fs_read_file(at("new.txt"), 100, &data, &len, &err), HEW_OK);
    CHECK_INT(len, 0);
    free(data);
    CHECK_INT(count_entries(dir), before + 1);

    /* A large write goes through in full. */
    size_t big = 3 << 20;
    char *blob = malloc(big);
    REQUIRE(blob);
    for (size_t i = 0; i < big; i++)
        blob[i] = (char)('a' + i % 26);
    CHECK_INT(fs_write_atomic(at("big"), blob, big, 0600, &err), HEW_OK);
    CHECK_INT(fs_read_file(at("big"), big, &data, &len, &err), HEW_OK);
    CHECK_MEM(data, len, blob, big);
    free(data);
    free(blob);
    unlink(at("big"));

    /* A name as long as the file system allows still gets a temporary file. */
    char longname[256];
    memset(longname, 'n', 250);
    memcpy(longname + 250, ".txt", 5);
    CHECK_INT(fs_write_atomic(at(longname), "L", 1, 0600, &err), HEW_OK);
    CHECK(fs_is_file(at(longname)));
    unlink(at(longname));

    /* A relative path with no directory part works too. */
    char cwd[4096];
    REQUIRE(getcwd(cwd, sizeof cwd));
    REQUIRE(chdir(dir) == 0);
    CHECK_INT(fs_write_atomic("rel.txt", "r", 1, 0600, &err), HEW_OK);
    CHECK(fs_is_file("rel.txt"));
    unlink("rel.txt");
    REQUIRE(chdir(cwd) == 0);
}

static void test_write_atomic_failures(void)
{
    hew_err err = HEW_ERR_INIT;
    char *data = NULL;
    size_t len = 0;
    put(at("keep.txt"), "old content");
    int before = count_entries(dir);

    /* Missing directory. */
    CHECK_INT(fs_write_atomic(at("nodir/x.txt"), "x", 1, 0600, &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "nodir/x.txt") != NULL);
    /* The target is a directory. */
    REQUIRE(mkdir(at("adir"), 0700) == 0);
    before++;
    CHECK_INT(fs_write_atomic(at("adir"), "x", 1, 0600, &err), HEW_E_INVALID);
    CHECK_INT(count_entries(at("adir")), 0);
    CHECK_INT(fs_write_atomic(at("keep.txt/"), "x", 1, 0600, &err), HEW_E_INVALID);
    CHECK_INT(fs_write_atomic("", "x", 1, 0600, &err), HEW_E_INVALID);

    /* A write that fails half-way (file size limit): old file intact, no temp left. */
    struct rlimit old_lim, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old_lim;
    lim.rlim_cur = 4;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    hew_code rc = fs_write_atomic(at("keep.txt"), "this is far too long", 20, 0600, &err);
    setrlimit(RLIMIT_FSIZE, &old_lim);
    signal(SIGXFSZ, old_sig);
    CHECK_INT(rc, HEW_E_IO);
    CHECK(strstr(err.msg, "keep.txt") != NULL);
    CHECK_INT(fs_read_file(at("keep.txt"), 100, &data, &len, &err), HEW_OK);
    CHECK_STR(data, "old content");
    free(data);
    CHECK_INT(count_entries(dir), before);

    /* A directory we may not write to (meaningless as root, who may write anyway). */
    if (geteuid() != 0) {
        REQUIRE(mkdir(at("ro"), 0700) == 0);
        put(at("ro/f.txt"), "ro old");
        REQUIRE(chmod(at("ro"), 0500) == 0);
        CHECK_INT(fs_write_atomic(at("ro/f.txt"), "new", 3, 0600, &err), HEW_E_IO);
        CHECK(strstr(err.msg, "permission denied") != NULL);
        CHECK_INT(fs_read_file(at("ro/f.txt"), 100, &data, &len, &err), HEW_OK);
        CHECK_STR(data, "ro old");
        free(data);
        CHECK_INT(count_entries(at("ro")), 1);
        chmod(at("ro"), 0700);
    }
}

static void test_mkdirs(void)
{
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(fs_mkdirs(at("m/a/b/c"), 0700, &err), HEW_OK);
    CHECK(fs_is_dir(at("m/a/b/c")));
    CHECK_INT(mode_of(at("m/a")), 0700);
    CHECK_INT(fs_mkdirs(at("m/a/b/c"), 0700, &err), HEW_OK); /* exists: fine */
    CHECK_INT(fs_mkdirs(at("m/a//d///e/"), 0755, &err), HEW_OK);
    CHECK(fs_is_dir(at("m/a/d/e")));
    CHECK_INT(fs_mkdirs(dir, 0700, &err), HEW_OK);
    CHECK_INT(fs_mkdirs("/", 0700, &err), HEW_OK);
    put(at("m/file"), "x");
    CHECK_INT(fs_mkdirs(at("m/file/sub"), 0700, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "not a directory") != NULL);
    CHECK_INT(fs_mkdirs(at("m/file"), 0700, &err), HEW_E_INVALID);
    CHECK_INT(fs_mkdirs("", 0700, &err), HEW_E_INVALID);
    /* A quote or space in a name is just a name (no shell anywhere). */
    CHECK_INT(fs_mkdirs(at("m/it's a \"dir\"; rm -rf x"), 0700, &err), HEW_OK);
    CHECK(fs_is_dir(at("m/it's a \"dir\"; rm -rf x")));
    char cwd[4096];
    REQUIRE(getcwd(cwd, sizeof cwd));
    REQUIRE(chdir(dir) == 0);
    CHECK_INT(fs_mkdirs("rel/one", 0700, &err), HEW_OK);
    CHECK(fs_is_dir("rel/one"));
    REQUIRE(chdir(cwd) == 0);
}

static void test_checks_and_write_all(void)
{
    put(at("c.txt"), "x");
    CHECK(fs_exists(at("c.txt")));
    CHECK(fs_is_file(at("c.txt")));
    CHECK(!fs_is_dir(at("c.txt")));
    CHECK(fs_exists(dir));
    CHECK(fs_is_dir(dir));
    CHECK(!fs_is_file(dir));
    CHECK(!fs_exists(at("nothing")));
    CHECK(!fs_exists(NULL));
    REQUIRE(symlink(at("nothing"), at("dangling")) == 0);
    CHECK(!fs_exists(at("dangling")));

    int p[2];
    REQUIRE(pipe(p) == 0);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(fs_write_all(p[1], "abc", 3, "pipe", &err), HEW_OK);
    char got[4] = { 0 };
    CHECK_INT(read(p[0], got, 3), 3);
    CHECK_STR(got, "abc");
    close(p[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    CHECK_INT(fs_write_all(p[1], "abc", 3, "the pipe", &err), HEW_E_IO);
    CHECK(strstr(err.msg, "the pipe") != NULL);
    signal(SIGPIPE, old);
    close(p[1]);
}

int main(void)
{
    umask(022);
    dir = tmpdir_make("fs");
    if (!dir) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    RUN(test_read_file);
    RUN(test_read_file_without_size);
    RUN(test_write_atomic);
    RUN(test_write_atomic_failures);
    RUN(test_mkdirs);
    RUN(test_checks_and_write_all);
    tmpdir_remove(dir);
    free(dir);
    return check_report();
}
