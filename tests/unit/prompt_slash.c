/* Unit tests of slash commands and workflows (prompt/slash): the built-ins, where a
 * command counts (start of the message, start of a task/feedback/answer/user_message
 * tag) and where it does not, workflow files (local before global, NAME and NAME.md,
 * disabled, cut), and unknown commands left alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "sys/path.h"
#include "check.h"
#include "prompt/slash.h"
#include "tmpdir.h"

static char *root, *cwd, *global;

static void put(const char *dir, const char *rel, const char *text)
{
    char *p = path_join(dir, rel);
    char *d = strdup(p);
    *strrchr(d, '/') = '\0';
    CHECK(fs_mkdirs(d, 0755, NULL) == HEW_OK);
    CHECK(fs_write_atomic(p, text, strlen(text), 0644, NULL) == HEW_OK);
    free(d);
    free(p);
}

static slash_opts opts(void)
{
    slash_opts o = slash_defaults(cwd);
    o.global_dir = global;
    return o;
}

static slash_result rewrite(const char *text, const slash_opts *o)
{
    slash_result r = SLASH_RESULT_INIT;
    CHECK(slash_rewrite(text, o, &r, NULL) == HEW_OK);
    return r;
}

static void test_builtins(void)
{
    slash_opts o = opts();
    struct {
        const char *cmd, *type, *tool;
    } cases[] = {
        { "newtask", "new_task", "new_task tool" },
        { "smol", "condense", "condense tool" },
        { "compact", "condense", "condense tool" },
        { "newrule", "new_rule", "write_to_file" },
        { "reportbug", "report_bug", "steps to reproduce" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128], head[128];
        snprintf(text, sizeof text, "<task>\n/%s keep the tests\n</task>", cases[i].cmd);
        slash_result r = rewrite(text, &o);
        CHECK_INT(r.kind, SLASH_BUILTIN);
        CHECK_STR(r.command, cases[i].cmd);
        REQUIRE(r.text != NULL);
        snprintf(head, sizeof head, "<explicit_instructions type=\"%s\">\n", cases[i].type);
        CHECK(strncmp(r.text, head, strlen(head)) == 0);
        CHECK(strstr(r.text, cases[i].tool) != NULL);
        /* the instructions, then the message without the command */
        CHECK(strstr(r.text, "</explicit_instructions>\n<task> keep the tests\n</task>") != NULL);
        CHECK_INT(r.newrule, strcmp(cases[i].cmd, "newrule") == 0);
        CHECK(strstr(r.text, "<new_task>") == NULL); /* no XML example unless asked */
        slash_result_release(&r);
    }
    /* with XML tools, the built-ins show how to call the tool */
    o.xml_tools = true;
    slash_result r = rewrite("/newtask", &o);
    CHECK(r.text && strstr(r.text, "<new_task>\n<context>") != NULL);
    CHECK(r.text && strstr(r.text, "</explicit_instructions>\n") != NULL);
    slash_result_release(&r);
    r = rewrite("/smol", &o);
    CHECK(r.text && strstr(r.text, "<condense>\n<context>") != NULL);
    slash_result_release(&r);
}

static void test_where_it_counts(void)
{
    slash_opts o = opts();
    /* plain text at the start, blanks before it allowed */
    slash_result r = rewrite("  /smol please", &o);
    CHECK_INT(r.kind, SLASH_BUILTIN);
    CHECK(r.text && strstr(r.text, "</explicit_instructions>\n please") != NULL);
    slash_result_release(&r);
    /* alone */
    r = rewrite("/compact", &o);
    CHECK_INT(r.kind, SLASH_BUILTIN);
    slash_result_release(&r);
    /* in feedback and answer tags */
    r = rewrite("The user gave this feedback:\n<feedback>\n/newtask</feedback>", &o);
    CHECK_INT(r.kind, SLASH_BUILTIN);
    CHECK(r.text && strstr(r.text, "</explicit_instructions>\nThe user gave this feedback:\n"
                                   "<feedback></feedback>") != NULL);
    slash_result_release(&r);
    r = rewrite("<answer>/smol</answer>", &o);
    CHECK_INT(r.kind, SLASH_BUILTIN);
    slash_result_release(&r);
    r = rewrite("<user_message>\n/reportbug it crashed\n</user_message>", &o);
    CHECK_INT(r.kind, SLASH_BUILTIN);
    slash_result_release(&r);

    /* not at the start: left alone */
    const char *const none[] = {
        "please /smol this",
        "<task>\nplease /smol\n</task>",
        "/smol-ish",          /* another word */
        "/smol,",             /* not followed by a blank */
        "/usr/bin is empty",  /* a path */
        "<task>/smol",        /* the tag is never closed */
        "/",
        "",
        "/Smol",              /* names are case-sensitive */
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        r = rewrite(none[i], &o);
        CHECK_INT(r.kind, SLASH_NONE);
        CHECK(r.text == NULL && r.command == NULL);
        slash_result_release(&r);
    }
    /* only the first command counts */
    r = rewrite("/smol /newtask", &o);
    CHECK_STR(r.command, "smol");
    CHECK(r.text && strstr(r.text, " /newtask") != NULL);
    slash_result_release(&r);
}

static void test_workflows(void)
{
    slash_opts o = opts();
    put(cwd, ".clinerules/workflows/release.md", "\n1. Bump the version.\n2. Tag it.\n\n");
    put(global, "release.md", "GLOBAL RELEASE");
    put(global, "deploy.md", "Deploy steps.");
    put(cwd, ".clinerules/workflows/plain", "Plain name.");

    /* local before global; NAME finds NAME.md */
    slash_result r = rewrite("<task>\n/release v2.1\n</task>", &o);
    CHECK_INT(r.kind, SLASH_WORKFLOW);
    CHECK_STR(r.command, "release");
    CHECK_STR(r.text, "<explicit_instructions type=\"release.md\">\n1. Bump the version.\n"
                      "2. Tag it.\n</explicit_instructions>\n<task> v2.1\n</task>");
    CHECK(r.path && strstr(r.path, ".clinerules/workflows/release.md") != NULL);
    slash_result_release(&r);
    /* the exact file name works too (Cline's form) */
    r = rewrite("/release.md", &o);
    CHECK_INT(r.kind, SLASH_WORKFLOW);
    slash_result_release(&r);
    /* the global folder */
    r = rewrite("/deploy now", &o);
    CHECK_INT(r.kind, SLASH_WORKFLOW);
    CHECK(r.text && strncmp(r.text, "<explicit_instructions type=\"deploy.md\">\nDeploy steps.\n"
                                    "</explicit_instructions>\n now", 80) == 0);
    slash_result_release(&r);
    r = rewrite("/plain", &o);
    CHECK_INT(r.kind, SLASH_WORKFLOW);
    CHECK(r.text && strstr(r.text, "type=\"plain\"") != NULL);
    slash_result_release(&r);

    /* a disabled local file lets the global one through */
    char *local = path_join(cwd, ".clinerules/workflows/release.md");
    const char *dis[] = { local, NULL };
    o.disabled = dis;
    r = rewrite("/release", &o);
    CHECK(r.text && strstr(r.text, "GLOBAL RELEASE") != NULL);
    slash_result_release(&r);
    o.disabled = NULL;
    free(local);

    /* workflows off; unknown names; names that could leave the folder */
    o.workflows = false;
    r = rewrite("/release", &o);
    CHECK_INT(r.kind, SLASH_NONE);
    slash_result_release(&r);
    o.workflows = true;
    const char *const unknown[] = { "/nosuch do it", "/..", "/.hidden", "/../workflows" };
    put(cwd, ".clinerules/workflows/.hidden.md", "H");
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        r = rewrite(unknown[i], &o);
        CHECK_INT(r.kind, SLASH_NONE);
        slash_result_release(&r);
    }
    /* a built-in wins over a workflow of the same name */
    put(cwd, ".clinerules/workflows/smol.md", "NOT THIS");
    r = rewrite("/smol", &o);
    CHECK_INT(r.kind, SLASH_BUILTIN);
    CHECK(r.text && strstr(r.text, "NOT THIS") == NULL);
    slash_result_release(&r);

    /* a long workflow is cut, and says so */
    size_t n = SLASH_WORKFLOW_MAX + 100;
    char *big = malloc(n + 1);
    REQUIRE(big != NULL);
    memset(big, 'w', n);
    big[n] = '\0';
    put(cwd, ".clinerules/workflows/big.md", big);
    free(big);
    r = rewrite("/big", &o);
    CHECK_INT(r.kind, SLASH_WORKFLOW);
    CHECK(r.text && strstr(r.text, "only its first 65536 bytes are shown.]\n"
                                   "</explicit_instructions>\n") != NULL);
    slash_result_release(&r);
}

static void test_global_dir(void)
{
    char *old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
    setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
    slash_opts o = slash_defaults("/w");
    char *d = slash_global_dir(&o);
    CHECK_STR(d, "/x/cfg/hew/workflows");
    free(d);
    unsetenv("XDG_CONFIG_HOME");
    char *oldhome = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", "/home/u", 1);
    d = slash_global_dir(&o);
    CHECK_STR(d, "/home/u/.config/hew/workflows");
    free(d);
    if (oldhome)
        setenv("HOME", oldhome, 1);
    free(oldhome);
    if (old)
        setenv("XDG_CONFIG_HOME", old, 1);
    free(old);
}

int main(void)
{
    root = tmpdir_make("slash");
    cwd = path_join(root, "ws");
    global = path_join(root, "cfg/hew/workflows");
    RUN(test_builtins);
    RUN(test_where_it_counts);
    RUN(test_workflows);
    RUN(test_global_dir);
    tmpdir_remove(root);
    free(root);
    free(cwd);
    free(global);
    return check_report();
}
