/* Unit tests for sys/path: confinement by real resolution (.., absolute paths, symlinks
 * in and out, dangling links, missing tails, odd roots) and the lexical helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "sys/path.h"
#include "check.h"
#include "tmpdir.h"

static char *tmp;  /* scratch dir (real path) */
static char ws[4096];      /* the workspace: tmp/ws */
static char outside[4096]; /* tmp/out, a sibling */

static const char *p2(const char *a, const char *b)
{
    static char bufs[8][4096];
    static int next;
    char joined[4096];
    int n = snprintf(joined, sizeof joined, "%s/%s", a, b); /* a may be an earlier result */
    if (n < 0 || (size_t)n >= sizeof joined)
        return "/path-too-long";
    char *p = bufs[next++ % 8];
    memcpy(p, joined, (size_t)n + 1);
    return p;
}

/* Resolve and expect success with the given result (relative to ws unless absolute). */
static void ok(const char *root, const char *path, const char *want_rel)
{
    char *got = NULL;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = path_resolve_in(root, path, &got, &err);
    const char *want = want_rel[0] == '/' ? want_rel
                       : strcmp(want_rel, ".") == 0 ? ws
                                                    : p2(ws, want_rel);
    if (rc != HEW_OK)
        check_fail(__FILE__, __LINE__, "resolve \"%s\": %s", path, err.msg);
    else if (strcmp(got, want) != 0)
        check_fail(__FILE__, __LINE__, "resolve \"%s\": got %s, want %s", path, got, want);
    check_count++;
    free(got);
}

static void escapes(const char *root, const char *path)
{
    char *got = (char *)"sentinel";
    hew_err err = HEW_ERR_INIT;
    hew_code rc = path_resolve_in(root, path, &got, &err);
    if (rc != HEW_E_ESCAPE)
        check_fail(__FILE__, __LINE__, "resolve \"%s\": rc %d (%s), want escape", path, rc,
                   err.msg);
    else if (!strstr(err.msg, "is outside the workspace") || !strstr(err.msg, path) ||
             !strstr(err.msg, "use a path inside it"))
        check_fail(__FILE__, __LINE__, "message: %s", err.msg);
    if (got != NULL)
        check_fail(__FILE__, __LINE__, "resolved_out not NULL on failure");
    check_count++;
}

static void setup(void)
{
    snprintf(ws, sizeof ws, "%s/ws", tmp);
    snprintf(outside, sizeof outside, "%s/out", tmp);
    hew_err err = HEW_ERR_INIT;
    fs_mkdirs(p2(ws, "src/sub"), 0700, &err);
    fs_mkdirs(outside, 0700, &err);
    fs_mkdirs(p2(tmp, "wsx"), 0700, &err); /* shares a prefix with ws */
    fs_write_atomic(p2(ws, "src/a.c"), "x", 1, 0600, &err);
    fs_write_atomic(p2(outside, "secret"), "s", 1, 0600, &err);
    CHECK_INT(err.code, HEW_OK);
    /* Links inside the workspace. */
    CHECK(symlink("src", p2(ws, "in_rel")) == 0);             /* -> ws/src */
    CHECK(symlink(p2(ws, "src/a.c"), p2(ws, "in_abs")) == 0); /* -> ws/src/a.c */
    CHECK(symlink("../out", p2(ws, "out_rel")) == 0);          /* -> tmp/out */
    CHECK(symlink(outside, p2(ws, "out_abs")) == 0);
    CHECK(symlink(p2(outside, "secret"), p2(ws, "src/leak")) == 0);
    CHECK(symlink(p2(outside, "not-yet"), p2(ws, "dangling_out")) == 0);
    CHECK(symlink("src/new.c", p2(ws, "dangling_in")) == 0);
    CHECK(symlink("loop_b", p2(ws, "loop_a")) == 0);
    CHECK(symlink("loop_a", p2(ws, "loop_b")) == 0);
    CHECK(symlink("..", p2(ws, "src/up")) == 0);                /* -> ws */
    CHECK(symlink(ws, p2(tmp, "ws_link"))== 0);                 /* the root via a link */
    CHECK(symlink("/", p2(ws, "slash")) == 0);
}

static void test_plain_and_dotdot(void)
{
    ok(ws, ".", ".");
    ok(ws, "src/a.c", "src/a.c");
    ok(ws, "./src//a.c", "src/a.c");
    ok(ws, "src/", "src");
    ok(ws, "src/sub/../a.c", "src/a.c");
    ok(ws, "src/..", ".");
    escapes(ws, "..");
    escapes(ws, "../x");
    escapes(ws, "src/../../out/secret");
    escapes(ws, "../ws/../out");
    ok(ws, "../ws/src", "src"); /* leaves and comes back: fine */
    escapes(ws, "../wsx/f"); /* /tmp/wsx is not inside /tmp/ws */
    escapes(ws, "../ws_x");
}

static void test_absolute(void)
{
    ok(ws, p2(ws, "src/a.c"), "src/a.c");
    ok(ws, ws, ".");
    escapes(ws, "/etc/passwd");
    escapes(ws, "/");
    escapes(ws, p2(outside, "secret"));
    escapes(ws, p2(ws, "../out"));
    /* An absolute path through a symlink to the root is inside. */
    ok(ws, p2(p2(tmp, "ws_link"), "src/a.c"), "src/a.c");
}

static void test_missing_tails(void)
{
    ok(ws, "new.txt", "new.txt");
    ok(ws, "src/newdir/deeper/file.c", "src/newdir/deeper/file.c");
    ok(ws, "newdir/../src/a.c", "src/a.c");
    ok(ws, "newdir/x/../../y", "y");
    escapes(ws, "newdir/../../out");
    escapes(ws, "a/b/../../../x");
    ok(ws, "src/a.c/x", "src/a.c/x"); /* below a file: the tool will fail, still inside */
    /* ".." after a missing part that leads back into an existing symlink still follows it. */
    escapes(ws, "newdir/../out_abs/secret");
    escapes(ws, "newdir/../src/leak");
}

static void test_symlinks(void)
{
    ok(ws, "in_rel/a.c", "src/a.c");
    ok(ws, "in_abs", "src/a.c");
    ok(ws, "in_rel/new/file", "src/new/file");
    ok(ws, "src/up/src/a.c", "src/a.c");
    ok(ws, "in_rel/..", "."); /* .. of the link's target (ws/src), not of the link */
    escapes(ws, "src/up/..");
    escapes(ws, "out_rel");
    escapes(ws, "out_rel/secret");
    escapes(ws, "out_abs/anything/new");
    escapes(ws, "src/leak");
    escapes(ws, "slash/etc");
    /* A dangling link is followed too: writing to it would create the target. */
    escapes(ws, "dangling_out");
    ok(ws, "dangling_in", "src/new.c");
    char *got = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(path_resolve_in(ws, "loop_a", &got, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "symbolic links") != NULL);
    CHECK(got == NULL);
}

static void test_roots(void)
{
    char with_slash[4200];
    snprintf(with_slash, sizeof with_slash, "%s///", ws);
    ok(with_slash, "src/a.c", "src/a.c");
    escapes(with_slash, "../out");
    const char *via_link = p2(tmp, "ws_link");
    ok(via_link, "src/a.c", "src/a.c");
    ok(via_link, p2(ws, "src/a.c"), "src/a.c");
    escapes(via_link, "../out");
    char dotted[4200];
    snprintf(dotted, sizeof dotted, "%s/src/..", ws);
    ok(dotted, "src", "src");

    /* "/" as the root contains everything. */
    char *got = NULL;
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(path_resolve_in("/", "etc/../tmp", &got, &err), HEW_OK);
    CHECK_STR(got, "/tmp");
    free(got);
    CHECK_INT(path_resolve_in("/", "..", &got, &err), HEW_OK);
    CHECK_STR(got, "/");
    free(got);

    CHECK_INT(path_resolve_in(p2(tmp, "no-such-root"), "x", &got, &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "does not exist") != NULL);
    CHECK_INT(path_resolve_in(p2(ws, "src/a.c"), "x", &got, &err), HEW_E_INVALID);
    CHECK_INT(path_resolve_in(ws, "", &got, &err), HEW_E_INVALID);
    CHECK_INT(path_resolve_in("", "x", &got, &err), HEW_E_INVALID);
    CHECK(got == NULL);

    /* The message names the path as given, the workspace and where it really goes. */
    CHECK_INT(path_resolve_in(ws, "../x", &got, &err), HEW_E_ESCAPE);
    char want[8400];
    snprintf(want, sizeof want,
             "\"../x\" is outside the workspace %s (it resolves to %s/x) — use a path inside it",
             ws, tmp);
    CHECK_STR(err.msg, want);
}

static void test_lexical_helpers(void)
{
    char *s;
#define NORM(in, want)                                                                     \
    do {                                                                                   \
        s = path_normalize(in);                                                            \
        CHECK_STR(s, want);                                                                \
        free(s);                                                                           \
    } while (0)
    NORM("", ".");
    NORM(".", ".");
    NORM("/", "/");
    NORM("//", "/");
    NORM("a/b/../c", "a/c");
    NORM("a/./b//c/", "a/b/c");
    NORM("../a", "../a");
    NORM("../../a/..", "../..");
    NORM("a/../..", "..");
    NORM("a/..", ".");
    NORM("/../a", "/a");
    NORM("/a/b/../../..", "/");
    NORM("/a/b/c/../d", "/a/b/d");
    NORM("..a/b", "..a/b");
    NORM(".hidden/./x", ".hidden/x");
#undef NORM

#define JOIN(a, b, want)                                                                   \
    do {                                                                                   \
        s = path_join(a, b);                                                               \
        CHECK_STR(s, want);                                                                \
        free(s);                                                                           \
    } while (0)
    JOIN("/w", "a.c", "/w/a.c");
    JOIN("/w/", "a.c", "/w/a.c");
    JOIN("/w//", "src/a.c", "/w/src/a.c");
    JOIN("/", "a", "/a");
    JOIN("", "a", "a");
    JOIN("rel", "b", "rel/b");
    JOIN("/w", "/abs", "/abs");
    JOIN("/w/", "", "/w");
#undef JOIN

    CHECK(path_is_inside("/a/b", "/a/b"));
    CHECK(path_is_inside("/a/b", "/a/b/c"));
    CHECK(path_is_inside("/a/b/", "/a/b/c"));
    CHECK(path_is_inside("/a/b", "/a/b/"));
    CHECK(!path_is_inside("/a/b", "/a/bc"));
    CHECK(!path_is_inside("/a/b", "/a"));
    CHECK(!path_is_inside("/a/b", "/x/a/b"));
    CHECK(path_is_inside("/", "/anything"));
    CHECK(path_is_inside("//", "/anything"));
    CHECK(!path_is_inside("", "/a"));
    CHECK(!path_is_inside(NULL, "/a"));

#define REL(root, p, want)                                                                 \
    do {                                                                                   \
        s = path_relative_to(root, p);                                                     \
        CHECK_STR(s, want);                                                                \
        free(s);                                                                           \
    } while (0)
    REL("/w", "/w/src/a.c", "src/a.c");
    REL("/w/", "/w/src/a.c", "src/a.c");
    REL("/w", "/w", ".");
    REL("/w", "/w/", ".");
    REL("/w", "/w/src/", "src");
    REL("/w", "/wx/a", "/wx/a");
    REL("/w", "/etc/passwd", "/etc/passwd");
    REL("/", "/etc/passwd", "etc/passwd");
#undef REL
}

int main(void)
{
    tmp = tmpdir_make("path");
    if (!tmp) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    RUN(setup);
    RUN(test_plain_and_dotdot);
    RUN(test_absolute);
    RUN(test_missing_tails);
    RUN(test_symlinks);
    RUN(test_roots);
    RUN(test_lexical_helpers);
    tmpdir_remove(tmp);
    free(tmp);
    return check_report();
}
