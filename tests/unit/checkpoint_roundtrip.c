/* Unit tests of checkpoint/: commit, list, diff and restore round trips over several edits
 * (content, new, deleted and renamed files, binary files, unicode names, spaces, modes,
 * symlinks, empty folders), undoing a restore, user files and ignored files a restore must
 * not touch, the size guard, byte-exact storage whatever .gitattributes say, and the
 * timing of a 5 000-file workspace. Each test runs in its own mkdtemp workspace with its
 * own data directory. */
#include <time.h>

#include "checkpoint_util.h"

#define UNI "\u00fcn\u00efc\u00f8d\u00e9/\u540d\u524d.txt" /* ünïcødé/名前.txt */

static const unsigned char blob1[] = { 0, 1, 2, 0xff, 0xfe, 0, 'x', '\n', 0 };
static const unsigned char blob2[] = { 0, 9, 9, 0xff, 0, 0, 'y' };

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}

/* The file names of a shadow commit, one per line. */
static char *shadow_tree(checkpoint *c, const char *hash)
{
    char *gd = tjoin(checkpoint_shadow_dir(c), "git");
    char *arg = malloc(strlen(gd) + 16);
    snprintf(arg, strlen(gd) + 16, "--git-dir=%s", gd);
    buf out = BUF_INIT(0);
    GIT_OUT("/", &out, arg, "ls-tree", "-r", "--name-only", hash);
    free(arg);
    free(gd);
    char *s = buf_detach(&out, NULL);
    return s ? s : strdup("");
}

static bool tree_has(const char *tree, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = tree; (p = strstr(p, name)); p++)
        if ((p == tree || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

static void test_roundtrip(void)
{
    tws t;
    tws_make(&t, "ckpt-rt");
    const char *ws = t.ws;
    wtext(ws, "a.txt", "one\n");
    wtext(ws, "dir with space/b c.txt", "bee\n");
    wtext(ws, UNI, "uni\n");
    wtext(ws, "-dash.txt", "dash\n");
    wtext(ws, "star*.txt", "star\n");
    wtext(ws, "keep/old.txt", "to be renamed\nline two\nline three\n");
    wfile(ws, "blob.dat", blob1, sizeof blob1);
    wtext(ws, "run.sh", "#!/bin/sh\necho hi\n");
    char *runsh = tjoin(ws, "run.sh");
    chmod(runsh, 0755);

    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-1", &c, &err) == HEW_OK);
    CHECK(strncmp(checkpoint_shadow_dir(c), t.data, strlen(t.data)) == 0);

    checkpoint_commit_info c1, c2, c3;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);
    CHECK(strlen(c1.hash) == 40);
    CHECK_STR(c1.parent, "");
    CHECK(c1.changed);
    char *tree = shadow_tree(c, c1.hash);
    CHECK(tree_has(tree, "a.txt"));
    CHECK(tree_has(tree, "dir with space/b c.txt"));
    CHECK(tree_has(tree, UNI));
    CHECK(tree_has(tree, "-dash.txt"));
    CHECK(tree_has(tree, "star*.txt"));
    CHECK(tree_has(tree, "blob.dat"));
    free(tree);

    /* turn 1: edit, add, delete, rename, binary edit, a new folder */
    wtext(ws, "a.txt", "two\n");
    wtext(ws, "new.txt", "new\n");
    wtext(ws, "newdir/deep/x.txt", "x\n");
    rm_rel(ws, "dir with space/b c.txt");
    char *from = tjoin(ws, "keep/old.txt"), *to = tjoin(ws, "keep/renamed.txt");
    rename(from, to);
    free(from);
    free(to);
    wfile(ws, "blob.dat", blob2, sizeof blob2);
    chmod(runsh, 0644);
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c2, &err) == HEW_OK);
    CHECK_STR(c2.parent, c1.hash);
    CHECK(c2.changed);

    /* nothing changed: still a new checkpoint, cheap, not changed */
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c3, &err) == HEW_OK);
    CHECK(!c3.changed);
    CHECK(strcmp(c3.hash, c2.hash) != 0);
    CHECK_STR(c3.parent, c2.hash);

    checkpoint_entries l;
    REQUIRE(checkpoint_list(c, false, &l, &err) == HEW_OK);
    REQUIRE(l.n == 3);
    CHECK_STR(l.v[0].hash, c1.hash);
    CHECK_STR(l.v[1].hash, c2.hash);
    CHECK_STR(l.v[2].hash, c3.hash);
    CHECK_INT(l.v[0].kind, CHECKPOINT_INITIAL);
    CHECK_INT(l.v[1].kind, CHECKPOINT_TURN);
    CHECK_STR(l.v[0].task_id, "task-1");
    CHECK(l.v[0].time > 1600000000LL);
    checkpoint_entries_release(&l);

    /* diff between two checkpoints */
    checkpoint_changes d;
    REQUIRE(checkpoint_diff(c, c1.hash, c2.hash, 0, &d, &err) == HEW_OK);
    long i;
    CHECK((i = find_change(&d, "a.txt")) >= 0 && d.files[i].status == 'M');
    CHECK((i = find_change(&d, "new.txt")) >= 0 && d.files[i].status == 'A');
    CHECK((i = find_change(&d, "dir with space/b c.txt")) >= 0 && d.files[i].status == 'D');
    CHECK((i = find_change(&d, "keep/renamed.txt")) >= 0 && d.files[i].status == 'R' &&
          d.files[i].old_path && strcmp(d.files[i].old_path, "keep/old.txt") == 0);
    CHECK((i = find_change(&d, "blob.dat")) >= 0 && d.files[i].status == 'M');
    CHECK((i = find_change(&d, "run.sh")) >= 0 && d.files[i].status == 'M');
    REQUIRE(d.patch);
    CHECK(strstr(d.patch, "-one\n+two\n") != NULL);
    CHECK(strstr(d.patch, "Binary files") != NULL);
    CHECK(strstr(d.patch, "old mode 100755") != NULL);
    CHECK(!d.patch_truncated);
    checkpoint_changes_release(&d);

    /* a tiny patch cap cuts the patch, not the file list */
    REQUIRE(checkpoint_diff(c, c1.hash, c2.hash, 16, &d, &err) == HEW_OK);
    CHECK(d.patch_truncated);
    CHECK(d.patch_len <= 16);
    CHECK(d.n >= 6);
    checkpoint_changes_release(&d);

    /* diff with now: commits nothing */
    wtext(ws, "a.txt", "three\n");
    REQUIRE(checkpoint_diff(c, c2.hash, NULL, 0, &d, &err) == HEW_OK);
    CHECK_INT(d.n, 1);
    CHECK((i = find_change(&d, "a.txt")) >= 0 && d.files[i].status == 'M');
    CHECK(d.patch && strstr(d.patch, "-two\n+three\n"));
    checkpoint_changes_release(&d);
    REQUIRE(checkpoint_list(c, false, &l, &err) == HEW_OK);
    CHECK_INT(l.n, 3);
    checkpoint_entries_release(&l);

    /* bad ids */
    CHECK(checkpoint_diff(c, "--output=/tmp/x", NULL, 0, &d, &err) == HEW_E_INVALID);
    CHECK(checkpoint_diff(c, "deadbeefdeadbeef", NULL, 0, &d, &err) == HEW_E_NOTFOUND);
    checkpoint_restore_result res;
    CHECK(checkpoint_restore(c, "HEAD~1", &res, &err) == HEW_E_INVALID);
    checkpoint_restore_result_release(&res);

    /* restore to the first checkpoint */
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    CHECK_STR(res.target, c1.hash);
    CHECK(res.safety[0] && res.restored[0]);
    CHECK_FILE(ws, "a.txt", "one\n");
    CHECK_FILE(ws, "dir with space/b c.txt", "bee\n");
    CHECK_FILE(ws, UNI,
               "uni\n");
    CHECK_FILE(ws, "keep/old.txt", "to be renamed\nline two\nline three\n");
    CHECK_GONE(ws, "keep/renamed.txt");
    CHECK_GONE(ws, "new.txt");
    CHECK_GONE(ws, "newdir/deep/x.txt");
    CHECK_GONE(ws, "newdir"); /* the folders it left empty went too */
    size_t blen = 0;
    char *b = rtext(ws, "blob.dat", &blen);
    CHECK(b && blen == sizeof blob1 && memcmp(b, blob1, blen) == 0);
    free(b);
    struct stat st;
    CHECK(stat(runsh, &st) == 0 && (st.st_mode & 0111));
    CHECK(paths_has(&res.written, "a.txt"));
    CHECK(paths_has(&res.deleted, "new.txt"));
    CHECK(paths_has(&res.deleted, "keep/renamed.txt"));
    CHECK_INT(res.kept.n, 0);
    char safety[CHECKPOINT_HASH_MAX];
    memcpy(safety, res.safety, sizeof safety);
    checkpoint_restore_result_release(&res);

    /* the safety checkpoint holds what was there before, "three" included */
    REQUIRE(checkpoint_diff(c, c1.hash, safety, 0, &d, &err) == HEW_OK);
    CHECK(d.patch && strstr(d.patch, "+three\n"));
    checkpoint_changes_release(&d);

    /* undo the restore */
    REQUIRE(checkpoint_restore(c, safety, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "a.txt", "three\n");
    CHECK_FILE(ws, "new.txt", "new\n");
    CHECK_FILE(ws, "newdir/deep/x.txt", "x\n");
    CHECK_FILE(ws, "keep/renamed.txt", "to be renamed\nline two\nline three\n");
    CHECK_GONE(ws, "keep/old.txt");
    CHECK_GONE(ws, "dir with space/b c.txt");
    CHECK_FILE(ws, UNI, "uni\n");
    b = rtext(ws, "blob.dat", &blen);
    CHECK(b && blen == sizeof blob2 && memcmp(b, blob2, blen) == 0);
    free(b);
    CHECK(stat(runsh, &st) == 0 && !(st.st_mode & 0111));
    checkpoint_restore_result_release(&res);

    /* and nothing is left to differ from the safety checkpoint */
    REQUIRE(checkpoint_diff(c, safety, NULL, 0, &d, &err) == HEW_OK);
    CHECK_INT(d.n, 0);
    checkpoint_changes_release(&d);

    /* the list shows the safety and restored checkpoints too, in order */
    REQUIRE(checkpoint_list(c, false, &l, &err) == HEW_OK);
    CHECK_INT(l.n, 7);
    if (l.n == 7) {
        CHECK_INT(l.v[3].kind, CHECKPOINT_SAFETY);
        CHECK_STR(l.v[3].hash, safety);
        CHECK_INT(l.v[4].kind, CHECKPOINT_RESTORED);
    }
    checkpoint_entries_release(&l);

    checkpoint_free(c);
    free(runsh);
    tws_free(&t);
}

/* Files the user made outside the task, ignored files and secrets: never deleted, never
 * overwritten, never committed. */
static void test_user_and_ignored_files(void)
{
    tws t;
    tws_make(&t, "ckpt-user");
    const char *ws = t.ws;
    wtext(ws, "a.txt", "a1\n");
    wtext(ws, ".gitignore", "secret.txt\n*.generated\n");
    wtext(ws, "secret.txt", "s1\n");
    wtext(ws, ".env", "API_KEY=one\n");
    wtext(ws, ".env.local", "X=1\n");
    wtext(ws, "node_modules/pkg/index.js", "module.exports = 1;\n");
    wtext(ws, "build/out.o", "obj");
    wtext(ws, "app.log", "log1\n");
    wtext(ws, "data.sqlite", "db1");
    wtext(ws, "photo.png", "png1");
    wtext(ws, "sub/.gitignore", "local-only\n");
    wtext(ws, "sub/local-only", "lo1\n");
    wtext(ws, "sub/code.c", "int x;\n");
    wtext(ws, "was-tracked.cfg", "v1\n");

    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-u", &c, &err) == HEW_OK);
    checkpoint_commit_info c1, c2;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);
    char *tree = shadow_tree(c, c1.hash);
    CHECK(tree_has(tree, "a.txt"));
    CHECK(tree_has(tree, ".gitignore"));
    CHECK(tree_has(tree, "sub/code.c"));
    CHECK(tree_has(tree, "was-tracked.cfg"));
    CHECK(!tree_has(tree, "secret.txt"));
    CHECK(!tree_has(tree, ".env"));
    CHECK(!tree_has(tree, ".env.local"));
    CHECK(!tree_has(tree, "node_modules/pkg/index.js"));
    CHECK(!tree_has(tree, "build/out.o"));
    CHECK(!tree_has(tree, "app.log"));
    CHECK(!tree_has(tree, "data.sqlite"));
    CHECK(!tree_has(tree, "photo.png"));
    CHECK(!tree_has(tree, "sub/local-only"));
    free(tree);

    /* the task's turn: it edits a.txt and creates agent.txt; everything else changes too */
    wtext(ws, "a.txt", "a2\n");
    wtext(ws, "agent.txt", "made by the agent\n");
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c2, &err) == HEW_OK);

    /* after it: the user's own new file, and changes to ignored files */
    wtext(ws, "notes.txt", "the user's notes\n");
    wtext(ws, "secret.txt", "s2\n");
    wtext(ws, ".env", "API_KEY=two\n");
    wtext(ws, "node_modules/pkg/index.js", "module.exports = 2;\n");
    wtext(ws, "node_modules/pkg/new.js", "new\n");
    wtext(ws, "app.log", "log2\n");
    wtext(ws, "sub/local-only", "lo2\n");
    wtext(ws, "x.generated", "gen\n");
    /* a tracked file the user now ignores, with new unsaved content */
    wtext(ws, ".gitignore", "secret.txt\n*.generated\nwas-tracked.cfg\n");
    wtext(ws, "was-tracked.cfg", "v2 unsaved\n");

    checkpoint_restore_result res;
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "a.txt", "a1\n");
    CHECK_GONE(ws, "agent.txt");
    CHECK_FILE(ws, "notes.txt", "the user's notes\n");
    CHECK(paths_has(&res.kept, "notes.txt"));
    CHECK_FILE(ws, "secret.txt", "s2\n");
    CHECK_FILE(ws, ".env", "API_KEY=two\n");
    CHECK_FILE(ws, ".env.local", "X=1\n");
    CHECK_FILE(ws, "node_modules/pkg/index.js", "module.exports = 2;\n");
    CHECK_FILE(ws, "node_modules/pkg/new.js", "new\n");
    CHECK_FILE(ws, "build/out.o", "obj");
    CHECK_FILE(ws, "app.log", "log2\n");
    CHECK_FILE(ws, "sub/local-only", "lo2\n");
    CHECK_FILE(ws, "x.generated", "gen\n");
    CHECK_FILE(ws, "was-tracked.cfg", "v2 unsaved\n");
    CHECK(paths_has(&res.kept, "was-tracked.cfg"));
    /* .gitignore itself is a tracked file: restored */
    CHECK_FILE(ws, ".gitignore", "secret.txt\n*.generated\n");
    tree = shadow_tree(c, res.safety);
    CHECK(tree_has(tree, "notes.txt"));
    CHECK(!tree_has(tree, "secret.txt"));
    CHECK(!tree_has(tree, ".env"));
    CHECK(!tree_has(tree, "was-tracked.cfg"));
    free(tree);
    char safety[CHECKPOINT_HASH_MAX];
    memcpy(safety, res.safety, sizeof safety);
    checkpoint_restore_result_release(&res);

    /* notes.txt is in a safety checkpoint only: a second restore keeps it too */
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "notes.txt", "the user's notes\n");
    checkpoint_restore_result_release(&res);

    /* undo the first restore: the agent's file is back, the user's notes still there */
    REQUIRE(checkpoint_restore(c, safety, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "a.txt", "a2\n");
    CHECK_FILE(ws, "agent.txt", "made by the agent\n");
    CHECK_FILE(ws, "notes.txt", "the user's notes\n");
    CHECK_FILE(ws, ".env", "API_KEY=two\n");
    checkpoint_restore_result_release(&res);

    checkpoint_free(c);
    tws_free(&t);
}

static void test_size_guard(void)
{
    tws t;
    tws_make(&t, "ckpt-size");
    const char *ws = t.ws;
    char big[5000];
    memset(big, 'b', sizeof big);
    big[sizeof big - 1] = '\0';
    wtext(ws, "small.txt", "small\n");
    wtext(ws, "big.txt", big);
    wtext(ws, "grows.txt", "tiny\n");

    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = ws;
    o.data_dir = t.data;
    o.home = t.home;
    o.max_file_bytes = 1000;
    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(checkpoint_open(&o, &c, &err) == HEW_OK);
    checkpoint_commit_info c1, c2;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);
    CHECK_INT(c1.files_too_big, 1);
    char *tree = shadow_tree(c, c1.hash);
    CHECK(tree_has(tree, "small.txt"));
    CHECK(tree_has(tree, "grows.txt"));
    CHECK(!tree_has(tree, "big.txt"));
    free(tree);

    wtext(ws, "grows.txt", big);
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c2, &err) == HEW_OK);
    CHECK_INT(c2.files_too_big, 2);
    tree = shadow_tree(c, c2.hash);
    CHECK(!tree_has(tree, "grows.txt"));
    free(tree);

    /* restoring the checkpoint where it was small must not overwrite the unsaved big one */
    checkpoint_restore_result res;
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "grows.txt", big);
    CHECK_FILE(ws, "big.txt", big);
    CHECK(paths_has(&res.kept, "grows.txt"));
    checkpoint_restore_result_release(&res);
    checkpoint_free(c);
    tws_free(&t);
}

/* The workspace's .gitattributes ask for CRLF conversion, a filter and ident expansion:
 * checkpoints still store and restore the exact bytes. */
static void test_bytes_exact(void)
{
    tws t;
    tws_make(&t, "ckpt-bytes");
    const char *ws = t.ws;
    wtext(ws, ".gitattributes", "* text eol=crlf ident\n*.c filter=weird\n");
    wtext(ws, "lf.c", "int a;\n$Id$\n");
    wtext(ws, "crlf.txt", "x\r\ny\r\n");
    wtext(ws, "mixed.txt", "a\r\nb\nc\r");

    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-b", &c, &err) == HEW_OK);
    checkpoint_commit_info c1;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);
    wtext(ws, "lf.c", "changed\n");
    wtext(ws, "crlf.txt", "changed\n");
    wtext(ws, "mixed.txt", "changed\n");
    checkpoint_restore_result res;
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "lf.c", "int a;\n$Id$\n");
    CHECK_FILE(ws, "crlf.txt", "x\r\ny\r\n");
    CHECK_FILE(ws, "mixed.txt", "a\r\nb\nc\r");
    checkpoint_restore_result_release(&res);
    checkpoint_free(c);
    tws_free(&t);
}

/* Symlinks are stored as links; a restore never writes through a symlinked folder. */
static void test_symlinks(void)
{
    tws t;
    tws_make(&t, "ckpt-link");
    const char *ws = t.ws;
    char *outside = tjoin(t.root, "outside");
    mkdir(outside, 0755);
    wtext(outside, "x.txt", "outside\n");
    wtext(ws, "a.txt", "a\n");
    wtext(ws, "dir/x.txt", "inside\n");
    char *link = tjoin(ws, "link");
    CHECK(symlink("a.txt", link) == 0);

    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-l", &c, &err) == HEW_OK);
    checkpoint_commit_info c1;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);

    unlink(link);
    wtext(ws, "link", "now a file\n");
    /* the user swaps dir for a symlink to a folder outside the workspace */
    rm_rel(ws, "dir/x.txt");
    char *dir = tjoin(ws, "dir");
    rmdir(dir);
    CHECK(symlink(outside, dir) == 0);

    checkpoint_restore_result res;
    hew_code rc = checkpoint_restore(c, c1.hash, &res, &err);
    if (rc != HEW_OK)
        printf("restore: %s\n", err.msg);
    REQUIRE(rc == HEW_OK);
    char target[64] = "";
    CHECK(readlink(link, target, sizeof target - 1) > 0 && strcmp(target, "a.txt") == 0);
    CHECK_FILE(outside, "x.txt", "outside\n");
    CHECK(paths_has(&res.kept, "dir/x.txt"));
    struct stat st;
    CHECK(lstat(dir, &st) == 0 && S_ISLNK(st.st_mode));
    checkpoint_restore_result_release(&res);
    checkpoint_free(c);
    free(link);
    free(dir);
    free(outside);
    tws_free(&t);
}

/* 5 000 files in 50 folders: the first commit, an unchanged one, a one-file change, a
 * diff with now and a restore. Times are printed (and loosely bounded). */
static void test_timing_5000(void)
{
    tws t;
    tws_make(&t, "ckpt-5k");
    char rel[64], text[128];
    for (int i = 0; i < 5000; i++) {
        snprintf(rel, sizeof rel, "pkg%02d/mod%04d.c", i % 50, i);
        snprintf(text, sizeof text, "/* file %d */\nint f%d(void) { return %d; }\n", i, i, i);
        wtext(t.ws, rel, text);
    }
    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-5k", &c, &err) == HEW_OK);
    checkpoint_commit_info c1, c2, c3;
    long long t0 = ms_now();
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);
    long long t1 = ms_now();
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c2, &err) == HEW_OK);
    long long t2 = ms_now();
    wtext(t.ws, "pkg07/mod0007.c", "changed\n");
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c3, &err) == HEW_OK);
    long long t3 = ms_now();
    checkpoint_changes d;
    wtext(t.ws, "pkg08/mod0008.c", "changed\n");
    REQUIRE(checkpoint_diff(c, c1.hash, NULL, 0, &d, &err) == HEW_OK);
    CHECK_INT(d.n, 2);
    checkpoint_changes_release(&d);
    long long t4 = ms_now();
    checkpoint_restore_result res;
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    long long t5 = ms_now();
    CHECK_INT(res.written.n, 2);
    checkpoint_restore_result_release(&res);
    CHECK(c1.changed && !c2.changed && c3.changed);
    printf("5000 files: first commit %lld ms, unchanged %lld ms, one change %lld ms, "
           "diff with now %lld ms, restore %lld ms\n",
           t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4);
    CHECK(t1 - t0 < 30000);
    CHECK(t2 - t1 < 15000);
    checkpoint_free(c);
    tws_free(&t);
}

int main(void)
{
    RUN(test_roundtrip);
    RUN(test_user_and_ignored_files);
    RUN(test_size_guard);
    RUN(test_bytes_exact);
    RUN(test_symlinks);
    RUN(test_timing_5000);
    return check_report();
}
