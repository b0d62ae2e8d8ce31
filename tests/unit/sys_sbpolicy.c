/* Unit tests for sys/sbpolicy: which mode a command gets (auto: by hand → unconfined,
 * otherwise workspace-write; a mode the user set → that mode for every command), the
 * words it takes and refuses, and the writable, read-only and hidden lists it builds
 * (the workspace's git root, the temp dir, the user's roots, hew's control files, hew's
 * data and config folders, the key file). No sandbox is prepared here: that is
 * sys/sandbox's (and the e2e tests'). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sbpolicy.h"
#include "check.h"
#include "tmpdir.h"

static char *tmp;

static const char *at(const char *rel)
{
    static char bufs[8][PATH_MAX];
    static int next;
    char *p = bufs[next++ % 8];
    snprintf(p, PATH_MAX, "%s/%s", tmp, rel);
    return p;
}

static bool listed(const char *const *list, const char *path)
{
    for (; list && *list; list++)
        if (strcmp(*list, path) == 0)
            return true;
    return false;
}

static sbpolicy *make(const char *mode, const char *cwd)
{
    sbpolicy_opts o = { .mode = mode, .cwd = cwd };
    sbpolicy *p = NULL;
    hew_err err = HEW_ERR_INIT;
    if (sbpolicy_new(&o, &p, &err) != HEW_OK)
        check_fail(__FILE__, __LINE__, "sbpolicy_new(%s): %s", mode ? mode : "NULL", err.msg);
    return p;
}

/* auto: only a person's approval runs a command unconfined. */
static void test_auto(void)
{
    const char *modes[] = { NULL, "auto" };
    for (size_t i = 0; i < 2; i++) {
        sbpolicy *p = make(modes[i], at("ws"));
        REQUIRE(p);
        CHECK(sbpolicy_is_auto(p));
        CHECK_INT(sbpolicy_pick(p, false), SANDBOX_WORKSPACE_WRITE);
        CHECK_INT(sbpolicy_pick(p, true), SANDBOX_FULL_ACCESS);
        sbpolicy_free(p);
    }
}

/* A mode the user set applies whether a person approved or not. */
static void test_explicit(void)
{
    static const struct {
        const char *word;
        sandbox_mode mode;
    } cases[] = {
        { "read-only", SANDBOX_READ_ONLY },
        { "workspace-write", SANDBOX_WORKSPACE_WRITE },
        { "danger-full-access", SANDBOX_FULL_ACCESS },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbpolicy *p = make(cases[i].word, at("ws"));
        REQUIRE(p);
        CHECK(!sbpolicy_is_auto(p));
        CHECK_INT(sbpolicy_pick(p, false), cases[i].mode);
        CHECK_INT(sbpolicy_pick(p, true), cases[i].mode);
        sbpolicy_free(p);
    }
    /* no policy (a tool environment without one): unconfined, as before */
    CHECK_INT(sbpolicy_pick(NULL, false), SANDBOX_FULL_ACCESS);
    CHECK(!sbpolicy_is_auto(NULL));
    /* full access prepares nothing */
    sbpolicy *p = make("danger-full-access", at("ws"));
    const sandbox *sb = (const sandbox *)p;
    CHECK_INT(sbpolicy_sandbox(p, SANDBOX_FULL_ACCESS, -1, &sb, NULL), HEW_OK);
    CHECK(sb == NULL);
    sbpolicy_free(p);
}

/* Words it refuses, with the choices named. */
static void test_bad_words(void)
{
    sbpolicy *p = NULL;
    hew_err err = HEW_ERR_INIT;
    sbpolicy_opts o = { .mode = "workspace", .cwd = at("ws") };
    CHECK_INT(sbpolicy_new(&o, &p, &err), HEW_E_INVALID);
    CHECK(p == NULL);
    CHECK(strstr(err.msg, "workspace-write") != NULL);
    o = (sbpolicy_opts){ .backend = "docker", .cwd = at("ws") };
    CHECK_INT(sbpolicy_new(&o, &p, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "bwrap") != NULL);
    const char *rel[] = { "cache", NULL };
    o = (sbpolicy_opts){ .cwd = at("ws"), .writable_roots = rel };
    CHECK_INT(sbpolicy_new(&o, &p, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "cache") != NULL);
    o = (sbpolicy_opts){ .cwd = at("ws"), .hidden = rel };
    CHECK_INT(sbpolicy_new(&o, &p, &err), HEW_E_INVALID);
    CHECK(sbpolicy_mode_word_ok("auto"));
    CHECK(sbpolicy_mode_word_ok("read-only"));
    CHECK(!sbpolicy_mode_word_ok("full"));
    CHECK(!sbpolicy_mode_word_ok(NULL));
}

/* The lists: the git root of the workspace (not just the subfolder), the temp dir, the
 * user's roots; control files read-only in each; hew's folders and the key file hidden;
 * a mode's policy carries them, and the network setting. */
static void test_lists(void)
{
    mkdir(at("repo"), 0700);
    mkdir(at("repo/.git"), 0700);
    mkdir(at("repo/sub"), 0700);
    mkdir(at("extra"), 0700);
    mkdir(at("tmp"), 0700);
    mkdir(at("data"), 0700);
    mkdir(at("config"), 0700);
    setenv("TMPDIR", at("tmp"), 1);
    setenv("XDG_CONFIG_HOME", at("config"), 1);
    unsetenv("HEW_DATA_DIR");
    const char *roots[] = { at("extra"), at("missing"), NULL };
    const char *hidden[] = { at("key.txt"), NULL };
    sbpolicy_opts o = { .cwd = at("repo/sub"), .writable_roots = roots, .hidden = hidden,
                        .data_dir = at("data"), .network = true };
    sbpolicy *p = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(sbpolicy_new(&o, &p, &err) == HEW_OK);
    sandbox_policy pol;
    sbpolicy_fill(p, SANDBOX_WORKSPACE_WRITE, -1, &pol);
    CHECK_INT(pol.mode, SANDBOX_WORKSPACE_WRITE);
    CHECK(pol.network);
    CHECK(listed(pol.writable_roots, at("repo")));      /* the git root */
    CHECK(!listed(pol.writable_roots, at("repo/sub"))); /* inside it already */
    CHECK(listed(pol.writable_roots, at("tmp")));
    CHECK(listed(pol.writable_roots, at("extra")));
    CHECK(!listed(pol.writable_roots, at("missing")));
    CHECK(listed(pol.readonly_paths, at("repo/.git")));
    CHECK(listed(pol.readonly_paths, at("repo/.hew")));
    CHECK(listed(pol.readonly_paths, at("repo/.clinerules")));
    CHECK(listed(pol.readonly_paths, at("repo/.clineignore")));
    CHECK(listed(pol.readonly_paths, at("repo/sub/.clinerules")));
    CHECK(listed(pol.readonly_paths, at("extra/.git")));
    CHECK(listed(pol.hidden_paths, at("data")));
    CHECK(listed(pol.hidden_paths, at("config/hew")));
    CHECK(listed(pol.hidden_paths, at("key.txt")));
    /* a caller may turn the network off for one use (MCP servers: on) */
    sbpolicy_fill(p, SANDBOX_READ_ONLY, 0, &pol);
    CHECK(!pol.network);
    CHECK_INT(pol.mode, SANDBOX_READ_ONLY);
    sbpolicy_free(p);
    sbpolicy_free(NULL);
}

int main(void)
{
    tmp = tmpdir_make("sbpolicy");
    if (!tmp)
        return 1;
    mkdir(at("ws"), 0700);
    RUN(test_auto);
    RUN(test_explicit);
    RUN(test_bad_words);
    RUN(test_lists);
    tmpdir_remove(tmp);
    free(tmp);
    return check_report();
}
