/* cli_slashcmd — the interactive terminal's slash-command table: every row has a name,
 * help and a handler, no name or alias is taken twice, lookups find rows by exact name or
 * alias only (a prefix is the completer's business), Tab's completer offers the names
 * that start with what was typed after "/", and /help is written from the table. The
 * handlers are stubs here that record which one ran. Never starts a terminal. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "slashcmd.h"

static const char *ran; /* the stub that ran last */

#define STUB(fn)                                                                           \
    void fn(struct ui *u, const char *name, const char *arg)                               \
    {                                                                                      \
        (void)u;                                                                           \
        (void)name;                                                                        \
        (void)arg;                                                                         \
        ran = #fn;                                                                         \
    }
SLASHCMD_HANDLERS(STUB)

static bool word_ok(const char *w)
{
    if (!w || !*w)
        return false;
    for (; *w; w++)
        if (!islower((unsigned char)*w) && *w != '?')
            return false;
    return true;
}

static void test_rows_complete_and_unique(void)
{
    size_t n;
    const slashcmd *t = slashcmd_table(&n);
    REQUIRE(n > 0);
    for (size_t i = 0; i < n; i++) {
        CHECK(word_ok(t[i].name));
        CHECK(t[i].alias == NULL || word_ok(t[i].alias));
        CHECK(t[i].help && *t[i].help && t[i].help[strlen(t[i].help) - 1] != '.');
        CHECK(strchr(t[i].help, '\n') == NULL);
        CHECK(t[i].args == NULL || *t[i].args);
        CHECK(t[i].run != NULL);
        const char *mine[] = { t[i].name, t[i].alias };
        for (size_t j = 0; j < n; j++) {
            const char *theirs[] = { t[j].name, t[j].alias };
            for (size_t a = 0; a < 2; a++)
                for (size_t b = 0; b < 2; b++) {
                    if (!mine[a] || !theirs[b] || (i == j && a == b))
                        continue;
                    if (strcmp(mine[a], theirs[b]) == 0)
                        check_fail(__FILE__, __LINE__, "/%s is taken twice", mine[a]);
                }
        }
        CHECK(slashcmd_find(t[i].name) == &t[i]);
        if (t[i].alias)
            CHECK(slashcmd_find(t[i].alias) == &t[i]);
    }
}

static void test_find_exact_only(void)
{
    const slashcmd *c = slashcmd_find("help");
    REQUIRE(c != NULL);
    CHECK(slashcmd_find("?") == c);
    CHECK(slashcmd_find("he") == NULL);   /* a prefix is not a command */
    CHECK(slashcmd_find("helpx") == NULL);
    CHECK(slashcmd_find("HELP") == NULL);
    CHECK(slashcmd_find("") == NULL);
    CHECK(slashcmd_find("newtask") == NULL); /* the prompt layer's */
    CHECK(slashcmd_find("smol") == NULL);
    /* dispatch goes to the row's handler */
    ran = NULL;
    slashcmd_find("quit")->run(NULL, "quit", "");
    CHECK_STR(ran, "interactive_cmd_exit");
    slashcmd_find("diff")->run(NULL, "diff", "1 2");
    CHECK_STR(ran, "interactive_cmd_checkpoint");
    slashcmd_find("act")->run(NULL, "act", "");
    CHECK_STR(ran, "interactive_cmd_mode");
}

static void test_complete_by_prefix(void)
{
    const char *out[64];
    CHECK_INT((int)slashcmd_complete("he", 2, out, 64), 1);
    CHECK_STR(out[0], "help");
    size_t n = slashcmd_complete("re", 2, out, 64);
    CHECK_INT((int)n, 2);
    CHECK_STR(out[0], "resume");
    CHECK_STR(out[1], "restore");
    CHECK_INT((int)slashcmd_complete("zz", 2, out, 64), 0);
    CHECK_INT((int)slashcmd_complete("qu", 2, out, 64), 0); /* aliases are not offered */
    CHECK_INT((int)slashcmd_complete("help", 4, out, 64), 1);
    CHECK_INT((int)slashcmd_complete("helpme", 6, out, 64), 0);
    size_t all;
    slashcmd_table(&all);
    CHECK_INT((int)slashcmd_complete("", 0, out, 64), (int)all);
    /* more than cap: the count, only cap written */
    const char *two[2] = { NULL, NULL };
    CHECK_INT((int)slashcmd_complete("", 0, two, 1), (int)all);
    CHECK(two[1] == NULL);
}

static void test_complete_line(void)
{
    const char *out[64];
    size_t start = 99;
    CHECK_INT((int)slashcmd_complete_line(NULL, "/he", 3, &start, out, 64), 1);
    CHECK_INT((int)start, 1);
    CHECK_STR(out[0], "help");
    /* only the text before the cursor counts */
    CHECK_INT((int)slashcmd_complete_line(NULL, "/heXYZ", 3, &start, out, 64), 1);
    CHECK_INT((int)slashcmd_complete_line(NULL, "/", 1, &start, out, 64) > 1, 1);
    CHECK_INT((int)slashcmd_complete_line(NULL, "he", 2, &start, out, 64), 0);
    CHECK_INT((int)slashcmd_complete_line(NULL, "/model x", 8, &start, out, 64), 0);
    CHECK_INT((int)slashcmd_complete_line(NULL, "", 0, &start, out, 64), 0);
    CHECK_INT((int)slashcmd_complete_line(NULL, "say /he", 7, &start, out, 64), 0);
}

static void test_help_from_table(void)
{
    sbuf h = SBUF_INIT;
    slashcmd_help(&h);
    REQUIRE(h.data != NULL);
    size_t n, lines = 0;
    const slashcmd *t = slashcmd_table(&n);
    for (const char *p = h.data; *p; p++)
        lines += *p == '\n';
    CHECK_INT((int)lines, (int)n); /* one line per row */
    const char *line = h.data;
    for (size_t i = 0; i < n; i++) {
        const char *end = strchr(line, '\n');
        REQUIRE(end != NULL);
        char want[128];
        snprintf(want, sizeof want, "  /%s", t[i].name);
        CHECK(strncmp(line, want, strlen(want)) == 0);
        if (t[i].alias) {
            snprintf(want, sizeof want, "/%s", t[i].alias);
            CHECK(strstr(line, want) != NULL && strstr(line, want) < end);
        }
        if (t[i].args)
            CHECK(strstr(line, t[i].args) != NULL && strstr(line, t[i].args) < end);
        size_t hl = strlen(t[i].help);
        CHECK((size_t)(end - line) > hl && memcmp(end - hl, t[i].help, hl) == 0);
        line = end + 1;
    }
    sbuf_release(&h);
}

int main(void)
{
    test_rows_complete_and_unique();
    test_find_exact_only();
    test_complete_by_prefix();
    test_complete_line();
    test_help_from_table();
    return check_report();
}
