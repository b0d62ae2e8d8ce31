/* Unit tests of checkpoint/ safety: a workspace that is itself a git repository is
 * unchanged in every git-visible way (every byte under .git, status, HEAD, branches,
 * stash, config; its hooks never run) through checkpoints, diffs and restores, also with
 * GIT_DIR / GIT_INDEX_FILE / GIT_CONFIG_PARAMETERS pointing at it in hew's environment;
 * nested repositories are snapshotted as plain files and their .git folders never
 * touched; home, Desktop, Documents, Downloads and "/" are refused with the reason; a
 * missing git disables checkpoints cleanly; the shadow's location; stale git locks. */
#include <dirent.h>

#include "checkpoint_util.h"

/* Every file under dir (recursively, sorted), with its bytes: a fingerprint of a .git. */
static void fingerprint_into(const char *dir, const char *rel, buf *out)
{
    char *path = rel[0] ? tjoin(dir, rel) : strdup(dir);
    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            char *sub = rel[0] ? tjoin(rel, name) : strdup(name);
            char *full = tjoin(dir, sub);
            struct stat st;
            if (lstat(full, &st) == 0) {
                buf_printf(out, "%s %o %lld\n", sub, (unsigned)st.st_mode,
                           (long long)st.st_size);
                if (S_ISDIR(st.st_mode)) {
                    fingerprint_into(dir, sub, out);
                } else if (S_ISREG(st.st_mode)) {
                    char *data = NULL;
                    size_t len = 0;
                    if (fs_read_file(full, (size_t)16 << 20, &data, &len, NULL) == HEW_OK)
                        buf_append(out, data, len);
                    free(data);
                    buf_putc(out, '\n');
                }
            }
            free(full);
            free(sub);
        }
        free(names[i]);
    }
    free(names);
    free(path);
}

static char *fingerprint(const char *dir)
{
    buf out = BUF_INIT(0);
    fingerprint_into(dir, "", &out);
    char *s = buf_detach(&out, NULL);
    return s ? s : strdup("");
}

/* What git shows about the repository at dir: status (untracked and ignored too), HEAD,
 * refs, stash, local config. */
static char *git_view(const char *dir)
{
    buf out = BUF_INIT(0);
    GIT_OUT(dir, &out, "status", "--porcelain=v1", "-uall", "--ignored");
    buf_puts(&out, "--\n");
    GIT_OUT(dir, &out, "rev-parse", "HEAD");
    GIT_OUT(dir, &out, "for-each-ref");
    buf_puts(&out, "--\n");
    GIT_OUT(dir, &out, "stash", "list");
    buf_puts(&out, "--\n");
    GIT_OUT(dir, &out, "config", "--local", "--list");
    GIT_OUT(dir, &out, "diff", "--cached", "--stat");
    char *s = buf_detach(&out, NULL);
    return s ? s : strdup("");
}

static char *shadow_ls(checkpoint *c, const char *hash)
{
    char *gd = tjoin(checkpoint_shadow_dir(c), "git");
    char arg[4200];
    snprintf(arg, sizeof arg, "--git-dir=%s", gd);
    free(gd);
    buf out = BUF_INIT(0);
    GIT_OUT("/", &out, arg, "ls-tree", "-r", hash);
    char *s = buf_detach(&out, NULL);
    return s ? s : strdup("");
}

#define CHECK_SAME(a, b)                                                                   \
    do {                                                                                   \
        check_count++;                                                                     \
        if (strcmp((a), (b)) != 0)                                                         \
            check_fail(__FILE__, __LINE__, "%s differs from %s:\n--- %s\n+++ %s", #a, #b,  \
                       (a), (b));                                                          \
    } while (0)

static void write_hook(const char *gitdir, const char *name, const char *marker)
{
    char rel[128];
    snprintf(rel, sizeof rel, "hooks/%s", name);
    char script[4400];
    snprintf(script, sizeof script, "#!/bin/sh\necho %s >> '%s'\nexit 1\n", name, marker);
    wtext(gitdir, rel, script);
    char *p = tjoin(gitdir, rel);
    chmod(p, 0755);
    free(p);
}

static void test_user_repo_untouched(void)
{
    tws t;
    tws_make(&t, "ckpt-userrepo");
    const char *ws = t.ws;
    char *gitdir = tjoin(ws, ".git");
    char *marker = tjoin(t.root, "hook-ran");

    REQUIRE(GIT(ws, "init", "-q", "-b", "main") == 0);
    wtext(ws, "a.txt", "a0\n");
    wtext(ws, "src/m.c", "int m;\n");
    wtext(ws, ".gitignore", "*.o\n");
    REQUIRE(GIT(ws, "add", "-A") == 0);
    REQUIRE(GIT(ws, "commit", "-q", "-m", "first") == 0);
    REQUIRE(GIT(ws, "branch", "feature") == 0);
    wtext(ws, "a.txt", "stashed\n");
    REQUIRE(GIT(ws, "stash", "-q") == 0);
    /* a lived-in state: unstaged and staged changes, untracked, ignored, info/exclude */
    wtext(ws, "a.txt", "a1 unstaged\n");
    wtext(ws, "src/m.c", "int m = 1;\n");
    REQUIRE(GIT(ws, "add", "src/m.c") == 0);
    wtext(ws, "u.txt", "untracked\n");
    wtext(ws, "x.o", "object");
    wtext(gitdir, "info/exclude", "private.txt\n");
    wtext(ws, "private.txt", "private\n");
    REQUIRE(GIT(ws, "config", "core.hooksPath", ".git/hooks") == 0);
    static const char *const hooks[] = { "pre-commit", "post-commit", "post-checkout",
                                         "post-index-change", "reference-transaction",
                                         "pre-auto-gc", "commit-msg", "prepare-commit-msg" };
    for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++)
        write_hook(gitdir, hooks[i], marker);

    char *fp0 = fingerprint(gitdir);
    char *view0 = git_view(ws);

    /* hew's own environment points git at the user's repository: it must not matter */
    char *idx = tjoin(gitdir, "index");
    setenv("GIT_DIR", gitdir, 1);
    setenv("GIT_WORK_TREE", ws, 1);
    setenv("GIT_INDEX_FILE", idx, 1);
    setenv("GIT_CONFIG_PARAMETERS", "'core.hookspath'='.git/hooks'", 1);
    setenv("GIT_OBJECT_DIRECTORY", "/nonexistent", 1);

    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = tws_open(&t, "task-r", &c, &err);
    if (rc != HEW_OK)
        printf("open: %s\n", err.msg);
    REQUIRE(rc == HEW_OK);
    checkpoint_commit_info c1, c2;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);
    char *fp = fingerprint(gitdir), *view = git_view(ws);
    CHECK_SAME(fp, fp0);
    CHECK_SAME(view, view0);
    free(fp);
    free(view);
    char *ls = shadow_ls(c, c1.hash);
    CHECK(strstr(ls, "\ta.txt\n") && strstr(ls, "\tsrc/m.c\n") && strstr(ls, "\tu.txt\n"));
    CHECK(!strstr(ls, ".git/"));
    CHECK(!strstr(ls, "private.txt"));
    CHECK(!strstr(ls, "x.o"));
    free(ls);

    /* the task edits a tracked file and creates one */
    wtext(ws, "a.txt", "a2 by the agent\n");
    wtext(ws, "agent.c", "int agent;\n");
    char *view1 = git_view(ws);
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c2, &err) == HEW_OK);

    checkpoint_changes d;
    REQUIRE(checkpoint_diff(c, c1.hash, NULL, 0, &d, &err) == HEW_OK);
    CHECK_INT(d.n, 2);
    checkpoint_changes_release(&d);

    checkpoint_restore_result res;
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "a.txt", "a1 unstaged\n");
    CHECK_GONE(ws, "agent.c");
    fp = fingerprint(gitdir);
    view = git_view(ws);
    CHECK_SAME(fp, fp0);
    CHECK_SAME(view, view0);
    free(fp);
    free(view);
    char safety[CHECKPOINT_HASH_MAX];
    memcpy(safety, res.safety, sizeof safety);
    checkpoint_restore_result_release(&res);

    REQUIRE(checkpoint_restore(c, safety, &res, &err) == HEW_OK);
    checkpoint_restore_result_release(&res);
    fp = fingerprint(gitdir);
    view = git_view(ws);
    CHECK_SAME(fp, fp0);
    CHECK_SAME(view, view1);
    free(fp);
    free(view);
    CHECK(!exists_rel(t.root, "hook-ran"));

    unsetenv("GIT_DIR");
    unsetenv("GIT_WORK_TREE");
    unsetenv("GIT_INDEX_FILE");
    unsetenv("GIT_CONFIG_PARAMETERS");
    unsetenv("GIT_OBJECT_DIRECTORY");
    /* the user's repository still works and still has its history */
    buf out = BUF_INIT(0);
    CHECK(GIT_OUT(ws, &out, "log", "--format=%s") == 0);
    CHECK(out.data && strcmp(out.data, "first\n") == 0);
    buf_release(&out);

    checkpoint_free(c);
    free(idx);
    free(fp0);
    free(view0);
    free(view1);
    free(marker);
    free(gitdir);
    tws_free(&t);
}

static void test_nested_repos(void)
{
    tws t;
    tws_make(&t, "ckpt-nested");
    const char *ws = t.ws;
    char *lib = tjoin(ws, "lib"), *deep = tjoin(ws, "lib/deep");
    char *libgit = tjoin(lib, ".git"), *deepgit = tjoin(deep, ".git");
    wtext(ws, "top.c", "int top;\n");
    wtext(ws, "lib/x.c", "int x = 0;\n");
    wtext(ws, "lib/.gitignore", "*.tmp\n");
    wtext(ws, "lib/a.tmp", "scratch\n");
    wtext(ws, "lib/deep/d.c", "int d;\n");
    REQUIRE(GIT(deep, "init", "-q") == 0);
    REQUIRE(GIT(deep, "add", "-A") == 0);
    REQUIRE(GIT(deep, "commit", "-q", "-m", "deep") == 0);
    REQUIRE(GIT(lib, "init", "-q") == 0);
    REQUIRE(GIT(lib, "add", "x.c", ".gitignore") == 0);
    REQUIRE(GIT(lib, "commit", "-q", "-m", "lib") == 0);
    /* a worktree-style nested checkout: .git is a file */
    wtext(ws, "wt/.git", "gitdir: /nonexistent/worktree\n");
    wtext(ws, "wt/w.c", "int w;\n");

    char *fl0 = fingerprint(libgit), *fd0 = fingerprint(deepgit);
    char *vl0 = git_view(lib);

    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(tws_open(&t, "task-n", &c, &err) == HEW_OK);
    checkpoint_commit_info c1, c2;
    REQUIRE(checkpoint_commit(c, CHECKPOINT_INITIAL, &c1, &err) == HEW_OK);
    CHECK(c1.nested_repos >= 2);
    char *ls = shadow_ls(c, c1.hash);
    CHECK(strstr(ls, "100644 blob") && strstr(ls, "\tlib/x.c\n"));
    CHECK(strstr(ls, "\tlib/.gitignore\n"));
    CHECK(strstr(ls, "\tlib/deep/d.c\n"));
    CHECK(strstr(ls, "\ttop.c\n"));
    CHECK(!strstr(ls, "160000"));  /* no gitlinks */
    CHECK(!strstr(ls, ".git/"));
    CHECK(!strstr(ls, "\twt/.git\n"));
    CHECK(!strstr(ls, "a.tmp"));
    free(ls);

    wtext(ws, "lib/x.c", "int x = 1;\n");
    wtext(ws, "lib/new.c", "int n;\n");
    rm_rel(ws, "lib/deep/d.c");
    wtext(ws, "lib/a.tmp", "scratch 2\n");
    REQUIRE(checkpoint_commit(c, CHECKPOINT_TURN, &c2, &err) == HEW_OK);
    ls = shadow_ls(c, c2.hash);
    CHECK(strstr(ls, "\tlib/new.c\n"));
    CHECK(!strstr(ls, "\tlib/deep/d.c\n"));
    free(ls);

    checkpoint_restore_result res;
    REQUIRE(checkpoint_restore(c, c1.hash, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "lib/x.c", "int x = 0;\n");
    CHECK_GONE(ws, "lib/new.c");
    CHECK_FILE(ws, "lib/deep/d.c", "int d;\n");
    CHECK_FILE(ws, "lib/a.tmp", "scratch 2\n");
    char *fl = fingerprint(libgit), *fd = fingerprint(deepgit), *vl = git_view(lib);
    CHECK_SAME(fl, fl0);
    CHECK_SAME(fd, fd0);
    CHECK_SAME(vl, vl0); /* lib's own view: as before the task */
    free(fl);
    free(fd);
    free(vl);
    char safety[CHECKPOINT_HASH_MAX];
    memcpy(safety, res.safety, sizeof safety);
    checkpoint_restore_result_release(&res);

    REQUIRE(checkpoint_restore(c, safety, &res, &err) == HEW_OK);
    CHECK_FILE(ws, "lib/x.c", "int x = 1;\n");
    CHECK_FILE(ws, "lib/new.c", "int n;\n");
    CHECK_GONE(ws, "lib/deep/d.c");
    checkpoint_restore_result_release(&res);
    fl = fingerprint(libgit);
    fd = fingerprint(deepgit);
    CHECK_SAME(fl, fl0);
    CHECK_SAME(fd, fd0);
    CHECK_FILE(ws, "wt/.git", "gitdir: /nonexistent/worktree\n");
    free(fl);
    free(fd);

    checkpoint_free(c);
    free(fl0);
    free(fd0);
    free(vl0);
    free(lib);
    free(deep);
    free(libgit);
    free(deepgit);
    tws_free(&t);
}

static void expect_refused(const tws *t, const char *ws, const char *words)
{
    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = ws;
    o.data_dir = t->data;
    o.home = t->home;
    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(checkpoint_open(&o, &c, &err), HEW_E_INVALID);
    CHECK(c == NULL);
    if (!strstr(err.msg, words) || !strstr(err.msg, "checkpoints are off"))
        check_fail(__FILE__, __LINE__, "refusal of %s: \"%s\" lacks \"%s\"", ws, err.msg,
                   words);
    checkpoint_free(c);
}

static void test_refusals(void)
{
    tws t;
    tws_make(&t, "ckpt-refuse");
    static const char *const subs[] = { "Desktop", "Documents", "Downloads" };
    expect_refused(&t, t.home, "home folder");
    expect_refused(&t, "/", "root folder");
    for (size_t i = 0; i < 3; i++) {
        char *d = tjoin(t.home, subs[i]);
        mkdir(d, 0755);
        expect_refused(&t, d, subs[i]);
        free(d);
    }
    /* through a symlink, with a trailing slash */
    char *link = tjoin(t.root, "homelink");
    CHECK(symlink(t.home, link) == 0);
    char withslash[4200];
    snprintf(withslash, sizeof withslash, "%s/", link);
    expect_refused(&t, withslash, "home folder");
    free(link);

    /* hew's data directory inside the workspace */
    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = t.root;
    o.data_dir = t.data;
    o.home = t.home;
    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(checkpoint_open(&o, &c, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "inside the workspace") != NULL);

    /* a missing workspace */
    char *gone = tjoin(t.root, "gone");
    o.workspace = gone;
    CHECK_INT(checkpoint_open(&o, &c, &err), HEW_E_NOTFOUND);
    free(gone);

    /* a project below home is fine */
    char *proj = tjoin(t.home, "proj");
    mkdir(proj, 0755);
    o.workspace = proj;
    CHECK_INT(checkpoint_open(&o, &c, &err), HEW_OK);
    checkpoint_free(c);
    free(proj);
    CHECK(!exists_rel(t.home, "proj/.git"));
    tws_free(&t);
}

static void test_git_missing(void)
{
    tws t;
    tws_make(&t, "ckpt-nogit");
    wtext(t.ws, "a.txt", "a\n");
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "/usr/bin:/bin");
    setenv("PATH", "/nonexistent-hew-test-bin", 1);
    checkpoint *c = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(tws_open(&t, "task-g", &c, &err), HEW_E_NOTFOUND);
    CHECK(c == NULL);
    CHECK(strstr(err.msg, "git is not installed") != NULL);
    CHECK(strstr(err.msg, "checkpoints are off") != NULL);
    setenv("PATH", saved, 1);
    free(saved);

    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = t.ws;
    o.data_dir = t.data;
    o.home = t.home;
    o.git = "/nonexistent/bin/git";
    CHECK_INT(checkpoint_open(&o, &c, &err), HEW_E_NOTFOUND);
    /* something that is not git */
    o.git = "/bin/true";
    CHECK(checkpoint_open(&o, &c, &err) != HEW_OK);
    CHECK(c == NULL);
    /* the workspace was left alone */
    CHECK_FILE(t.ws, "a.txt", "a\n");
    CHECK(!exists_rel(t.ws, ".git"));
    tws_free(&t);
}

static void test_location_and_locks(void)
{
    tws t;
    tws_make(&t, "ckpt-loc");
    wtext(t.ws, "a.txt", "a\n");
    setenv("XDG_DATA_HOME", t.data, 1);
    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = t.ws;
    o.home = t.home;
    checkpoint *c = NULL, *c2 = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(checkpoint_open(&o, &c, &err) == HEW_OK);
    const char *dir = checkpoint_shadow_dir(c);
    char *base = tjoin(t.data, "hew/checkpoints/");
    CHECK(strncmp(dir, base, strlen(base)) == 0);
    CHECK(strlen(dir) == strlen(base) + 16);
    CHECK(!path_is_inside(t.ws, dir));
    char wsline[4200];
    snprintf(wsline, sizeof wsline, "%s\n", t.ws);
    CHECK_FILE(dir, "workspace", wsline);
    free(base);

    /* the same workspace through another spelling: the same shadow */
    char spelled[4200];
    snprintf(spelled, sizeof spelled, "%s/./", t.ws);
    o.workspace = spelled;
    REQUIRE(checkpoint_open(&o, &c2, &err) == HEW_OK);
    CHECK_STR(checkpoint_shadow_dir(c2), dir);
    CHECK_STR(checkpoint_workspace(c2), t.ws);
    checkpoint_free(c2);

    /* a lock a killed git left behind does not block checkpoints */
    wtext(dir, "git/index.lock", "");
    checkpoint_commit_info ci;
    CHECK_INT(checkpoint_commit(c, CHECKPOINT_MANUAL, &ci, &err), HEW_OK);
    CHECK(!exists_rel(dir, "git/index.lock"));
    /* the shadow has no hooks and no signing, and its attributes keep bytes exact */
    char *attr = rtext(dir, "git/info/attributes", NULL);
    CHECK(attr && strstr(attr, "* -text"));
    free(attr);
    CHECK(!exists_rel(dir, "git/hooks/pre-commit"));
    checkpoint_free(c);
    unsetenv("XDG_DATA_HOME");
    tws_free(&t);
}

int main(void)
{
    RUN(test_user_repo_untouched);
    RUN(test_nested_repos);
    RUN(test_refusals);
    RUN(test_git_missing);
    RUN(test_location_and_locks);
    return check_report();
}
