/* Unit tests of the environment details (prompt/env_details): the whole block for a first
 * turn and a later one, running and finished commands, changed files, the usage line,
 * plan mode's instructions, the cut of long output, and the workspace listing through
 * the list_files tool. Runs with TZ=UTC so that times are fixed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fs.h"
#include "sys/path.h"
#include "check.h"
#include "prompt/env_details.h"
#include "tmpdir.h"

static char *build(const env_details *e)
{
    buf b = BUF_INIT(0);
    env_details_build(e, &b);
    return buf_detach(&b, NULL);
}

/* 2025-06-01 14:03:09 UTC, a Sunday */
#define WHEN 1748786589LL

static void test_later_turn(void)
{
    env_details e = { .cwd = "/w", .mode = MODE_ACT, .now_epoch_s = WHEN, .tz_name = "UTC" };
    char *t = build(&e);
    CHECK_STR(t, "<environment_details>\n"
                 "# Current Time\nSunday 2025-06-01 14:03:09 (UTC, UTC+00:00)\n"
                 "\n# Current Mode\nACT MODE\n"
                 "</environment_details>");
    free(t);
}

static void test_first_turn_full(void)
{
    env_details_command cmds[] = {
        { "npm run dev", "ready on :3000\n", true, 0 },
        { "tail -f log", NULL, true, 0 },         /* running, nothing new: listed */
        { "make test", "ok 12 tests\n", false, 0 },
        { "sleep 99", "", false, -1 },
    };
    const char *changed[] = { "src/a.c", "README.md" };
    env_details e = {
        .cwd = "/w",
        .mode = MODE_ACT,
        .now_epoch_s = WHEN,
        .tz_name = "Europe/Paris",
        .first_turn = true,
        .listing = "a.c\nsrc/\nsrc/b.c\n",
        .commands = cmds,
        .ncommands = 4,
        .changed_files = changed,
        .nchanged = 2,
        .tokens_used = 12345,
        .context_window = 200000,
    };
    char *t = build(&e);
    CHECK_STR(t, "<environment_details>\n"
                 "# Running Commands\n## `npm run dev`\n### New Output\nready on :3000\n"
                 "## `tail -f log`\n"
                 "\n# Finished Commands\n## `make test`\nExit code: 0\n### New Output\n"
                 "ok 12 tests\n"
                 "## `sleep 99`\nExit code: unknown (it may have been stopped by a signal)\n"
                 "\n# Recently Modified Files\nThese files were changed outside hew since you "
                 "last read them; read them again before you edit them:\nsrc/a.c\nREADME.md\n"
                 "\n# Current Time\nSunday 2025-06-01 14:03:09 (Europe/Paris, UTC+00:00)\n"
                 "\n# Current Working Directory (/w) Files\na.c\nsrc/\nsrc/b.c\n"
                 "\n# Context Window Usage\n12,345 / 200,000 tokens used (6%)\n"
                 "\n# Current Mode\nACT MODE\n"
                 "</environment_details>");
    free(t);

    /* the listing only on the first turn */
    e.first_turn = false;
    t = build(&e);
    CHECK(t && strstr(t, "Directory (/w) Files") == NULL && strstr(t, "src/b.c") == NULL);
    free(t);
}

static void test_usage_line(void)
{
    env_details e = { .mode = MODE_ACT, .now_epoch_s = WHEN, .tz_name = "UTC" };
    struct {
        long long used, window;
        const char *want;
    } cases[] = {
        { 0, 128000, "0 / 128,000 tokens used (0%)" },
        { 1234567, 2000000, "1,234,567 / 2,000,000 tokens used (62%)" },
        { 999, 1000, "999 / 1,000 tokens used (100%)" },
        { 150000, 100000, "150,000 / 100,000 tokens used (150%)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        e.tokens_used = cases[i].used;
        e.context_window = cases[i].window;
        char *t = build(&e);
        CHECK(t && strstr(t, cases[i].want) != NULL);
        free(t);
    }
    e.context_window = 0; /* unknown window: no line */
    char *t = build(&e);
    CHECK(t && strstr(t, "Context Window") == NULL);
    free(t);
}

static void test_plan_mode(void)
{
    env_details e = { .mode = MODE_PLAN, .now_epoch_s = WHEN, .tz_name = "UTC", .ask_tool = true };
    char *t = build(&e);
    REQUIRE(t != NULL);
    CHECK(strstr(t, "# Current Mode\nPLAN MODE\n") != NULL);
    CHECK(strstr(t, "plan_mode_respond") != NULL);
    CHECK(strstr(t, "ask_followup_question") != NULL);
    CHECK(strstr(t, "\"switch to ACT MODE\"") != NULL);
    CHECK(strstr(t, "Do not change files") != NULL);
    free(t);

    e.yolo = true;
    e.ask_tool = false;
    e.strict_plan = true;
    t = build(&e);
    REQUIRE(t != NULL);
    CHECK(strstr(t, "ask_followup_question") == NULL);
    CHECK(strstr(t, "hew switches to ACT MODE") != NULL);
    CHECK(strstr(t, "File changes are refused in this mode.") != NULL);
    free(t);
}

static void test_long_output(void)
{
    size_t n = ENV_DETAILS_OUTPUT_MAX * 2;
    char *out = malloc(n + 1);
    REQUIRE(out != NULL);
    for (size_t i = 0; i < n; i++)
        out[i] = i % 100 == 99 ? '\n' : 'a' + (char)(i / 10000);
    memcpy(out + n - 4, "END\n", 4);
    out[n] = '\0';
    env_details_command c = { "build", out, true, 0 };
    env_details e = { .mode = MODE_ACT, .now_epoch_s = WHEN, .tz_name = "UTC", .commands = &c,
                      .ncommands = 1 };
    char *t = build(&e);
    REQUIRE(t != NULL);
    CHECK(strstr(t, "earlier bytes of output not shown]") != NULL);
    CHECK(strstr(t, "END\n") != NULL);
    CHECK(strlen(t) < ENV_DETAILS_OUTPUT_MAX + 1000);
    free(t);
    free(out);
}

static void test_listing(void)
{
    char *root = tmpdir_make("envlist");
    REQUIRE(root != NULL);
    char *p = path_join(root, "src/main.c");
    char *d = path_join(root, "src");
    CHECK(fs_mkdirs(d, 0755, NULL) == HEW_OK);
    CHECK(fs_write_atomic(p, "int main(void){return 0;}\n", 26, 0644, NULL) == HEW_OK);
    char *r = path_join(root, "README.md");
    CHECK(fs_write_atomic(r, "# x\n", 4, 0644, NULL) == HEW_OK);
    buf b = BUF_INIT(0);
    CHECK(env_details_listing(root, &b, NULL) == HEW_OK);
    CHECK_STR(b.data, "README.md\nsrc/\nsrc/main.c");
    buf_release(&b);

    /* the home directory is not listed */
    char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", root, 1);
    CHECK(env_details_listing(root, &b, NULL) == HEW_OK);
    CHECK(b.data && strstr(b.data, "not listed here") != NULL);
    buf_release(&b);
    if (old)
        setenv("HOME", old, 1);
    else
        unsetenv("HOME");
    free(old);

    tmpdir_remove(root);
    free(root);
    free(p);
    free(d);
    free(r);
}

static void test_tz_name_and_count(void)
{
    const char *z = env_details_tz_name();
    CHECK(z != NULL && *z != '\0');
    CHECK_STR(z, env_details_tz_name()); /* stable */
    buf b = BUF_INIT(0);
    env_details_count(0, &b);
    buf_putc(&b, ' ');
    env_details_count(999, &b);
    buf_putc(&b, ' ');
    env_details_count(1000, &b);
    buf_putc(&b, ' ');
    env_details_count(-1234567, &b);
    CHECK_STR(b.data, "0 999 1,000 -1,234,567");
    buf_release(&b);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    RUN(test_later_turn);
    RUN(test_first_turn_full);
    RUN(test_usage_line);
    RUN(test_plan_mode);
    RUN(test_long_output);
    RUN(test_listing);
    RUN(test_tz_name_and_count);
    return check_report();
}
