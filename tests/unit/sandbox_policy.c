/* Unit tests of sys/sandbox's policy side: the mode and backend names, sandbox_prepare's
 * refusals (a relative path, the backend "none", a port out of range) with messages that
 * name what is wrong, danger-full-access preparing nothing, the backend auto picks, and
 * the gaps it lists (a read-only path that does not exist yet). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "sys/sandbox.h"
#include "tmpdir.h"

static void test_names(void)
{
    static const sandbox_mode modes[] = { SANDBOX_FULL_ACCESS, SANDBOX_READ_ONLY,
                                          SANDBOX_WORKSPACE_WRITE };
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        sandbox_mode m;
        CHECK(sandbox_mode_parse(sandbox_mode_name(modes[i]), &m));
        CHECK_INT(m, modes[i]);
    }
    CHECK_STR(sandbox_mode_name(SANDBOX_WORKSPACE_WRITE), "workspace-write");
    CHECK_STR(sandbox_mode_name(SANDBOX_FULL_ACCESS), "danger-full-access");
    sandbox_mode m;
    CHECK(!sandbox_mode_parse("workspace", &m));
    CHECK(!sandbox_mode_parse("", &m));
    CHECK(!sandbox_mode_parse(NULL, &m));
    static const sandbox_backend bs[] = { SANDBOX_BACKEND_NONE, SANDBOX_BACKEND_AUTO,
                                          SANDBOX_BACKEND_LANDLOCK, SANDBOX_BACKEND_BWRAP };
    for (size_t i = 0; i < sizeof bs / sizeof *bs; i++) {
        sandbox_backend b;
        CHECK(sandbox_backend_parse(sandbox_backend_name(bs[i]), &b));
        CHECK_INT(b, bs[i]);
    }
    sandbox_backend b;
    CHECK(!sandbox_backend_parse("bubblewrap", &b));
}

static void test_full_access_prepares_nothing(void)
{
    sandbox_policy pol = { .mode = SANDBOX_FULL_ACCESS };
    sandbox *sb = (sandbox *)&pol; /* must be overwritten */
    hew_err e = { 0 };
    CHECK_INT(sandbox_prepare(&pol, &sb, &e), HEW_OK);
    CHECK(sb == NULL);
    CHECK_INT(sandbox_backend_of(NULL), SANDBOX_BACKEND_NONE);
    CHECK_INT(sandbox_mode_of(NULL), SANDBOX_FULL_ACCESS);
    CHECK_STR(sandbox_gaps(NULL), "");
    sandbox_free(NULL);
}

static void test_refusals(void)
{
    sandbox *sb;
    hew_err e = { 0 };
    const char *rel[] = { "src", NULL };
    sandbox_policy pol = { .mode = SANDBOX_WORKSPACE_WRITE, .writable_roots = rel };
    CHECK_INT(sandbox_prepare(&pol, &sb, &e), HEW_E_INVALID);
    CHECK(sb == NULL);
    CHECK(strstr(e.msg, "\"src\"") != NULL && strstr(e.msg, "absolute") != NULL);

    const char *hid[] = { "relative/hew", NULL };
    sandbox_policy pol2 = { .mode = SANDBOX_READ_ONLY, .hidden_paths = hid };
    CHECK_INT(sandbox_prepare(&pol2, &sb, &e), HEW_E_INVALID);
    CHECK(strstr(e.msg, "hidden path") != NULL);

    sandbox_policy pol3 = { .mode = SANDBOX_READ_ONLY, .backend = (sandbox_backend)9 };
    CHECK_INT(sandbox_prepare(&pol3, &sb, &e), HEW_E_INVALID);
    CHECK(strstr(e.msg, "backend") != NULL);

    sandbox_policy pol4 = { .mode = SANDBOX_READ_ONLY, .proxy_port = 70000 };
    CHECK_INT(sandbox_prepare(&pol4, &sb, &e), HEW_E_INVALID);
    CHECK(strstr(e.msg, "70000") != NULL);

    sandbox_policy pol5 = { .mode = (sandbox_mode)42 };
    CHECK_INT(sandbox_prepare(&pol5, &sb, &e), HEW_E_INVALID);
    CHECK_INT(sandbox_prepare(NULL, &sb, &e), HEW_E_INVALID);
}

static void test_auto_and_gaps(void)
{
    sandbox_caps caps;
    sandbox_probe(&caps);
    if (caps.landlock_abi == 0 && !caps.bwrap[0]) {
        /* nothing to enforce with: refused, never an unconfined "sandbox" */
        sandbox_policy pol = { .mode = SANDBOX_READ_ONLY };
        sandbox *sb;
        hew_err e = { 0 };
        CHECK_INT(sandbox_prepare(&pol, &sb, &e), HEW_E_UNSUPPORTED);
        CHECK(strstr(e.msg, "bubblewrap") != NULL);
        printf("SKIP: no sandbox backend here: only the refusal was tested\n");
        return;
    }
    char *ws = tmpdir_make("sbpol");
    if (!ws) {
        check_fail(__FILE__, __LINE__, "no temp dir");
        return;
    }
    char git[1024], rules[1024];
    snprintf(git, sizeof git, "%s/.git", ws);
    snprintf(rules, sizeof rules, "%s/.clinerules", ws);
    mkdir(git, 0755);
    const char *writable[] = { ws, NULL };
    const char *ro[] = { git, rules, NULL };
    sandbox_policy pol = { .mode = SANDBOX_WORKSPACE_WRITE, .writable_roots = writable,
                           .readonly_paths = ro };
    sandbox *sb;
    hew_err e = { 0 };
    hew_code rc = sandbox_prepare(&pol, &sb, &e); /* backend NONE (zeroed): auto */
    CHECK_INT(rc, HEW_OK);
    if (rc != HEW_OK) {
        tmpdir_remove(ws);
        free(ws);
        return;
    }
    sandbox_backend b = sandbox_backend_of(sb);
    CHECK(b == SANDBOX_BACKEND_LANDLOCK || b == SANDBOX_BACKEND_BWRAP);
    if (caps.landlock_abi > 0 && caps.userns)
        CHECK_INT(b, SANDBOX_BACKEND_LANDLOCK);
    CHECK_INT(sandbox_mode_of(sb), SANDBOX_WORKSPACE_WRITE);
    const char *gaps = sandbox_gaps(sb);
    CHECK(strstr(gaps, rules) != NULL);     /* missing: can be created */
    CHECK(strstr(gaps, "can be created") != NULL);
    CHECK(strstr(gaps, ".git ") == NULL);   /* exists: protected */
    printf("gaps: %s\n", gaps);
    sandbox_free(sb);
    tmpdir_remove(ws);
    free(ws);
}

int main(void)
{
    RUN(test_names);
    RUN(test_full_access_prepares_nothing);
    RUN(test_refusals);
    RUN(test_auto_and_gaps);
    return check_report();
}
