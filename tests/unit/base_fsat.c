/* Unit tests of base/fsat: opens beneath a directory that refuse every symlink (with
 * openat2 and with the per-component walk), `..` and absolute paths; FIFOs never opened;
 * mkdir -p that never creates through a link; atomic writes that leave no temporary file
 * (O_TMPFILE and named), keep modes and replace a symlink instead of following it; a
 * racing thread swapping a folder for a symlink to an outside folder while thousands of
 * opens and writes run (zero escapes); and processes killed mid-write (a fault point):
 * what they leave is listed in the journal and removed by fsat_journal_clean, and nothing
 * that is not hew's is ever removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/fsat.h"
#include "check.h"
#include "tmpdir.h"

static char *dir; /* the scratch directory of the current test */

static char *at(const char *rel)
{
    static char paths[4][4096];
    static int k;
    char *p = paths[k++ % 4];
    snprintf(p, 4096, "%s/%s", dir, rel);
    return p;
}

static void put(const char *rel, const char *text)
{
    CHECK_INT(fs_write_atomic(at(rel), text, strlen(text), 0644, NULL), HEW_OK);
}

static char *get(const char *rel)
{
    char *text = NULL;
    if (fs_read_file(at(rel), 1 << 20, &text, NULL, NULL) != HEW_OK)
        return NULL;
    return text;
}

/* Names in a directory other than "." and "..". */
static int count_entries(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static int count_temps(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (fsat_is_temp_name(de->d_name))
            n++;
    closedir(d);
    return n;
}

static int base(void)
{
    int fd = -1;
    CHECK_INT(fsat_base_open(dir, &fd, NULL), HEW_OK);
    return fd;
}

static void begin(const char *name)
{
    dir = tmpdir_make(name);
}

static void end(void)
{
    tmpdir_remove(dir);
    free(dir);
    dir = NULL;
}

/* ---- opening ---------------------------------------------------------------------------- */

static void opens(bool walk)
{
    fsat_test_no_openat2(walk);
    begin("fsat-open");
    mkdir(at("a"), 0755);
    mkdir(at("a/b"), 0755);
    mkdir(at("out"), 0755);
    put("a/b/f.txt", "inside\n");
    put("out/secret", "outside\n");
    CHECK_INT(symlink("b", at("a/inlink")), 0);        /* points inside: still refused */
    CHECK_INT(symlink(at("out"), at("a/outlink")), 0); /* points outside */
    CHECK_INT(symlink("b/f.txt", at("a/filelink")), 0);
    int b = base();
    int fd = -1;
    hew_err err = HEW_ERR_INIT;

    CHECK_INT(fsat_open(b, "a/b/f.txt", O_RDONLY, 0, &fd, &err), HEW_OK);
    char buf[64] = "";
    CHECK_INT(read(fd, buf, sizeof buf - 1), 7);
    CHECK_STR(buf, "inside\n");
    close(fd);
    CHECK_INT(fsat_open(b, "./a//b/./f.txt", O_RDONLY, 0, &fd, NULL), HEW_OK);
    close(fd);
    CHECK_INT(fsat_open(b, ".", O_RDONLY | O_DIRECTORY, 0, &fd, NULL), HEW_OK);
    close(fd);
    CHECK_INT(fsat_open(b, "", O_PATH, 0, &fd, NULL), HEW_OK);
    close(fd);

    /* Every symlink is refused, wherever it is and wherever it points. */
    CHECK_INT(fsat_open(b, "a/inlink/f.txt", O_RDONLY, 0, &fd, &err), HEW_E_ESCAPE);
    CHECK(strstr(err.msg, "symbolic link") != NULL);
    CHECK_INT(fd, -1);
    CHECK_INT(fsat_open(b, "a/outlink/secret", O_RDONLY, 0, &fd, NULL), HEW_E_ESCAPE);
    CHECK_INT(fsat_open(b, "a/filelink", O_RDONLY, 0, &fd, NULL), HEW_E_ESCAPE);
    CHECK_INT(fsat_open(b, "a/filelink", O_PATH, 0, &fd, NULL), HEW_E_ESCAPE);
    CHECK_INT(fsat_open(b, "a/outlink", O_PATH | O_DIRECTORY, 0, &fd, NULL), HEW_E_ESCAPE);
    /* Not below: "..", absolute. */
    CHECK_INT(fsat_open(b, "a/../out/secret", O_RDONLY, 0, &fd, NULL), HEW_E_ESCAPE);
    CHECK_INT(fsat_open(b, "..", O_PATH, 0, &fd, NULL), HEW_E_ESCAPE);
    CHECK_INT(fsat_open(b, at("out/secret"), O_RDONLY, 0, &fd, NULL), HEW_E_ESCAPE);
    /* Missing things and files on the way. */
    CHECK_INT(fsat_open(b, "a/nope", O_RDONLY, 0, &fd, NULL), HEW_E_NOTFOUND);
    CHECK_INT(fsat_open(b, "a/b/f.txt/x", O_RDONLY, 0, &fd, NULL), HEW_E_NOTFOUND);
    /* Creating: through a dangling symlink is refused, and nothing appears outside. */
    CHECK_INT(symlink(at("out/new"), at("a/dangling")), 0);
    CHECK_INT(fsat_open(b, "a/dangling", O_WRONLY | O_CREAT, 0644, &fd, NULL), HEW_E_ESCAPE);
    CHECK(access(at("out/new"), F_OK) != 0);
    CHECK_INT(fsat_open(b, "a/b/new", O_WRONLY | O_CREAT | O_EXCL, 0644, &fd, NULL), HEW_OK);
    close(fd);
    CHECK(access(at("a/b/new"), F_OK) == 0);

    struct stat st;
    CHECK_INT(fsat_stat(b, "a/b", &st, NULL), HEW_OK);
    CHECK(S_ISDIR(st.st_mode));
    CHECK_INT(fsat_stat(b, "a/inlink", &st, NULL), HEW_E_ESCAPE);
    close(b);
    end();
    fsat_test_no_openat2(false);
}

static void test_open_openat2(void)
{
    opens(false);
}

static void test_open_walk(void)
{
    opens(true);
}

static void test_open_file_kinds(void)
{
    begin("fsat-kinds");
    put("f", "data");
    CHECK_INT(mkfifo(at("fifo"), 0644), 0);
    mkdir(at("d"), 0755);
    int b = base(), fd = -2;
    struct stat st;
    CHECK_INT(fsat_open_file(b, "f", &fd, &st, NULL), HEW_OK);
    CHECK(fd >= 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK_INT(st.st_size, 4);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT(fs_read_fd(fd, "f", 100, &text, &len, NULL), HEW_OK);
    CHECK_STR(text, "data");
    free(text);
    CHECK(fcntl(fd, F_GETFL) >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
    close(fd);
    /* A FIFO is looked at, never opened (opening it would block). */
    CHECK_INT(fsat_open_file(b, "fifo", &fd, &st, NULL), HEW_OK);
    CHECK_INT(fd, -1);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK_INT(fsat_open_file(b, "d", &fd, &st, NULL), HEW_OK);
    CHECK_INT(fd, -1);
    CHECK(S_ISDIR(st.st_mode));
    close(b);
    end();
}

static void test_mkdirs(void)
{
    begin("fsat-mkdirs");
    mkdir(at("out"), 0755);
    CHECK_INT(symlink(at("out"), at("link")), 0);
    put("file", "x");
    int b = base(), fd = -1;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(fsat_mkdirs(b, "x/y/z", 0755, &fd, &err), HEW_OK);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && S_ISDIR(st.st_mode));
    close(fd);
    CHECK(stat(at("x/y/z"), &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_INT(fsat_mkdirs(b, "x/y/z", 0755, &fd, NULL), HEW_OK); /* already there */
    close(fd);
    /* Never through a symlink: nothing is created outside. */
    CHECK_INT(fsat_mkdirs(b, "link/new/deeper", 0755, &fd, &err), HEW_E_ESCAPE);
    CHECK_INT(count_entries(at("out")), 0);
    fsat_test_no_openat2(true);
    CHECK_INT(fsat_mkdirs(b, "link/new", 0755, &fd, NULL), HEW_E_ESCAPE);
    fsat_test_no_openat2(false);
    CHECK_INT(count_entries(at("out")), 0);
    CHECK_INT(fsat_mkdirs(b, "file/sub", 0755, &fd, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "not a directory") != NULL);
    CHECK_INT(fsat_mkdirs(b, "../escape", 0755, &fd, NULL), HEW_E_ESCAPE);
    close(b);
    end();
}

/* ---- writing ------------------------------------------------------------------------------ */

static void writes(bool named)
{
    fsat_test_no_tmpfile(named);
    begin("fsat-write");
    mkdir(at("out"), 0755);
    put("out/target", "outside\n");
    int b = base();
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(fsat_write_atomic(b, dir, "new.txt", "one\n", 4, 0640, &err), HEW_OK);
    char *t = get("new.txt");
    CHECK_STR(t, "one\n");
    free(t);
    struct stat st;
    CHECK(stat(at("new.txt"), &st) == 0);
    mode_t um = umask(0);
    umask(um);
    CHECK_INT(st.st_mode & 0777, 0640 & ~um);
    /* An existing file keeps its mode (an executable script stays executable). */
    CHECK_INT(chmod(at("new.txt"), 0751), 0);
    CHECK_INT(fsat_write_atomic(b, dir, "new.txt", "two\n", 4, 0600, NULL), HEW_OK);
    CHECK(stat(at("new.txt"), &st) == 0);
    CHECK_INT(st.st_mode & 07777, 0751);
    t = get("new.txt");
    CHECK_STR(t, "two\n");
    free(t);
    /* A symlink is replaced by the file, never written through. */
    CHECK_INT(symlink(at("out/target"), at("link")), 0);
    CHECK_INT(fsat_write_atomic(b, dir, "link", "replaced\n", 9, 0644, NULL), HEW_OK);
    CHECK(lstat(at("link"), &st) == 0 && S_ISREG(st.st_mode));
    t = get("out/target");
    CHECK_STR(t, "outside\n");
    free(t);
    /* A directory is not overwritten; bad names are refused. */
    CHECK_INT(fsat_write_atomic(b, dir, "out", "x", 1, 0644, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "directory") != NULL);
    CHECK_INT(fsat_write_atomic(b, dir, "a/b", "x", 1, 0644, NULL), HEW_E_INVALID);
    CHECK_INT(fsat_write_atomic(b, dir, "..", "x", 1, 0644, NULL), HEW_E_INVALID);
    /* An empty file. */
    CHECK_INT(fsat_write_atomic(b, dir, "empty", "", 0, 0644, NULL), HEW_OK);
    CHECK(stat(at("empty"), &st) == 0 && st.st_size == 0);
    /* Nothing else is left: new.txt, link, empty, out. */
    CHECK_INT(count_entries(dir), 4);
    CHECK_INT(count_temps(dir), 0);
    close(b);
    end();
    fsat_test_no_tmpfile(false);
}

static void test_write_tmpfile(void)
{
    writes(false);
}

static void test_write_named(void)
{
    writes(true);
}

static void test_temp_names(void)
{
    CHECK(fsat_is_temp_name(".a.c.hew.123.abcd.tmp"));
    CHECK(!fsat_is_temp_name("a.c.hew.123.abcd.tmp"));
    CHECK(!fsat_is_temp_name(".a.c.123.abcd.tmp"));
    CHECK(!fsat_is_temp_name(".notes.txt"));
    CHECK(!fsat_is_temp_name(".hew.tmp"));
}

/* ---- the swap racer ---------------------------------------------------------------------------- */

typedef struct racer {
    int dirfd;
    atomic_bool stop;
    atomic_long flips;
} racer;

/* Swap "sub" (a real folder) and "subl" (a symlink to the outside folder) as fast as the
 * kernel allows: at any moment "sub" is one or the other. */
static void *race(void *arg)
{
    racer *r = arg;
    while (!atomic_load(&r->stop))
        if (renameat2(r->dirfd, "sub", r->dirfd, "subl", RENAME_EXCHANGE) == 0)
            atomic_fetch_add(&r->flips, 1);
    return NULL;
}

static void racing(bool walk)
{
    fsat_test_no_openat2(walk);
    begin("fsat-race");
    char *outside = tmpdir_make("fsat-race-out");
    char decoy[4096];
    snprintf(decoy, sizeof decoy, "%s/f.txt", outside);
    CHECK_INT(fs_write_atomic(decoy, "DECOY\n", 6, 0644, NULL), HEW_OK);
    struct stat before;
    CHECK_INT(stat(decoy, &before), 0);
    mkdir(at("ws"), 0755);
    mkdir(at("ws/sub"), 0755);
    put("ws/sub/f.txt", "inside\n");
    CHECK_INT(symlink(outside, at("ws/subl")), 0);
    int root = -1;
    CHECK_INT(fsat_base_open(at("ws"), &root, NULL), HEW_OK);
    racer r = { .dirfd = root };
    pthread_t tid;
    REQUIRE(pthread_create(&tid, NULL, race, &r) == 0);
    int escapes = 0, refused = 0, ok = 0;
    /* At least 3000 rounds, and on until the race was real both ways: the racer flipped
     * often and some opens got through (on a loaded machine either can take longer; the
     * cap only stops a broken build from spinning for ever). */
    for (long i = 0; i < 3000 || ((ok == 0 || atomic_load(&r.flips) <= 100) && i < 50000000);
         i++) {
        int fd = -1, sfd = -1;
        struct stat st;
        if (fsat_open_file(root, "sub/f.txt", &fd, &st, NULL) == HEW_OK && fd >= 0) {
            char buf[16] = "";
            ssize_t n = read(fd, buf, sizeof buf - 1);
            if (n > 0 && strncmp(buf, "DECOY", 5) == 0)
                escapes++;
            close(fd);
            ok++;
        } else {
            refused++;
        }
        if (fsat_mkdirs(root, "sub", 0755, &sfd, NULL) == HEW_OK) {
            if (fsat_write_atomic(sfd, "sub", "f.txt", "inside\n", 7, 0644, NULL) != HEW_OK)
                refused++;
            close(sfd);
        }
    }
    atomic_store(&r.stop, true);
    pthread_join(tid, NULL);
    CHECK_INT(escapes, 0);
    CHECK(atomic_load(&r.flips) > 100); /* the racer really ran */
    CHECK(ok > 0);        /* and not everything was refused */
    char *t = NULL;
    CHECK_INT(fs_read_file(decoy, 100, &t, NULL, NULL), HEW_OK);
    CHECK_STR(t, "DECOY\n");
    free(t);
    struct stat after;
    CHECK_INT(stat(decoy, &after), 0);
    CHECK(after.st_ino == before.st_ino);
    CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
          after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    CHECK_INT(count_entries(outside), 1);
    close(root);
    tmpdir_remove(outside);
    free(outside);
    end();
    fsat_test_no_openat2(false);
}

static void test_race_openat2(void)
{
    racing(false);
}

static void test_race_walk(void)
{
    racing(true);
}

/* ---- killed mid-write, and the journal --------------------------------------------------------- */

/* Fork a writer of "target" that dies (SIGKILL) at the fault point. */
static void killed_writer(const char *journal, const char *point, bool named)
{
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        fsat_test_no_tmpfile(named);
        if (fsat_journal_set(journal, NULL) != HEW_OK)
            _exit(3);
        fsat_test_fault(point);
        int b = -1;
        if (fsat_base_open(dir, &b, NULL) != HEW_OK)
            _exit(4);
        fsat_write_atomic(b, dir, "target", "NEW CONTENT\n", 12, 0644, NULL);
        _exit(5); /* the fault point was not reached */
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void killed(const char *point, bool named, int left)
{
    begin("fsat-kill");
    char *state = tmpdir_make("fsat-journal");
    char journal[4096];
    snprintf(journal, sizeof journal, "%s/pending", state);
    put("target", "old\n");
    killed_writer(journal, point, named);
    /* What the killed write left in the folder, and in the journal. */
    CHECK_INT(count_temps(dir), left);
    CHECK_INT(count_entries(journal), left);
    char *t = get("target");
    CHECK_STR(t, "old\n");
    free(t);
    size_t removed = 99;
    CHECK_INT(fsat_journal_clean(journal, &removed, NULL), HEW_OK);
    CHECK_INT(removed, left);
    CHECK_INT(count_temps(dir), 0);
    CHECK_INT(count_entries(dir), 1);
    CHECK_INT(count_entries(journal), 0);
    t = get("target");
    CHECK_STR(t, "old\n");
    free(t);
    tmpdir_remove(state);
    free(state);
    end();
}

static void test_killed_before_link(void)
{
    killed("written", false, 0); /* the O_TMPFILE dies with the process */
}

static void test_killed_after_link(void)
{
    killed("linked", false, 1);
}

static void test_killed_named(void)
{
    killed("named", true, 1);
}

/* A pid that is not running: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return pid;
}

static void entry(const char *journal, long pid, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%ld-7", journal, pid);
    CHECK_INT(fs_write_atomic(path, text, strlen(text), 0600, NULL), HEW_OK);
}

static void test_clean_leaves_what_is_not_hews(void)
{
    begin("fsat-clean");
    char journal[4096];
    snprintf(journal, sizeof journal, "%s/journal", dir);
    mkdir(journal, 0700);
    put("notes.txt", "mine\n");
    put(".x.hew.1.2.tmp", "temp of a live process\n");
    put(".y.hew.1.2.tmp", "other inode\n");
    put(".z.hew.1.2.tmp", "dead, no inode recorded\n");
    char line[8192];
    pid_t dead = dead_pid();
    /* A dead process's entry naming a file that does not look like hew's. */
    snprintf(line, sizeof line, "0 0 %s/notes.txt\n", dir);
    entry(journal, (long)dead, line);
    CHECK_INT(fsat_journal_clean(journal, NULL, NULL), HEW_OK);
    char *t = get("notes.txt");
    CHECK_STR(t, "mine\n");
    free(t);
    CHECK_INT(count_entries(journal), 0);
    /* A live process's entry (this one): left alone. */
    snprintf(line, sizeof line, "0 0 %s/.x.hew.1.2.tmp\n", dir);
    entry(journal, (long)getpid(), line);
    /* A dead process's entry whose inode no longer matches: the file stays. */
    snprintf(line, sizeof line, "1 1 %s/.y.hew.1.2.tmp\n", dir);
    entry(journal, (long)dead_pid(), line);
    size_t removed = 9;
    CHECK_INT(fsat_journal_clean(journal, &removed, NULL), HEW_OK);
    CHECK_INT(removed, 0);
    CHECK(access(at(".x.hew.1.2.tmp"), F_OK) == 0);
    CHECK(access(at(".y.hew.1.2.tmp"), F_OK) == 0);
    CHECK_INT(count_entries(journal), 1); /* the live one */
    /* A dead process's named temporary file (no inode recorded): removed. */
    snprintf(line, sizeof line, "0 0 %s/.z.hew.1.2.tmp\n", dir);
    entry(journal, (long)dead_pid(), line);
    CHECK_INT(fsat_journal_clean(journal, &removed, NULL), HEW_OK);
    CHECK_INT(removed, 1);
    CHECK(access(at(".z.hew.1.2.tmp"), F_OK) != 0);
    /* A missing journal is fine. */
    CHECK_INT(fsat_journal_clean(at("nope"), &removed, NULL), HEW_OK);
    CHECK_INT(removed, 0);
    end();
}

int main(void)
{
    RUN(test_open_openat2);
    RUN(test_open_walk);
    RUN(test_open_file_kinds);
    RUN(test_mkdirs);
    RUN(test_write_tmpfile);
    RUN(test_write_named);
    RUN(test_temp_names);
    RUN(test_race_openat2);
    RUN(test_race_walk);
    RUN(test_killed_before_link);
    RUN(test_killed_after_link);
    RUN(test_killed_named);
    RUN(test_clean_leaves_what_is_not_hews);
    return check_report();
}
