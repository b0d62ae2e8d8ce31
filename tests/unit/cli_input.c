/* cli_input — the interactive terminal's input side, alone: the edit distance and "did
 * you mean" of mistyped slash commands and which lines count as commands (slashcmd.c),
 * Tab completion of command arguments and @paths with .clineignore respected
 * (complete.c), the keys typed while a task runs (typeahead.c: editing, Enter, Esc,
 * bracketed paste, sequences dropped) and @mentions attaching files (mention.c). The
 * command handlers are stubs. Never starts a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "check.h"
#include "complete.h"
#include "mention.h"
#include "slashcmd.h"
#include "tmpdir.h"
#include "typeahead.h"

#define STUB(fn)                                                                           \
    void fn(struct ui *u, const char *name, const char *arg)                               \
    {                                                                                      \
        (void)u;                                                                           \
        (void)name;                                                                        \
        (void)arg;                                                                         \
    }
SLASHCMD_HANDLERS(STUB)

static void put(const char *dir, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_distance(void)
{
    CHECK_INT(slashcmd_distance("help", "help"), 0);
    CHECK_INT(slashcmd_distance("hlep", "help"), 1); /* two neighbours swapped */
    CHECK_INT(slashcmd_distance("hel", "help"), 1);
    CHECK_INT(slashcmd_distance("helpp", "help"), 1);
    CHECK_INT(slashcmd_distance("hxlp", "help"), 1);
    CHECK_INT(slashcmd_distance("modle", "model"), 1);
    CHECK_INT(slashcmd_distance("", "cost"), 4);
    CHECK_INT(slashcmd_distance("abc", "cba"), 2);
    char big[100];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK_INT(slashcmd_distance(big, "a"), 64);
}

static void test_suggest(void)
{
    CHECK_STR(slashcmd_suggest("hlep"), "help");
    CHECK_STR(slashcmd_suggest("modle"), "model");
    CHECK_STR(slashcmd_suggest("resum"), "resume");
    CHECK_STR(slashcmd_suggest("chec"), "checkpoints"); /* a prefix, far in distance */
    CHECK_STR(slashcmd_suggest("qiut"), "exit");        /* near the alias: the row's name */
    CHECK(slashcmd_suggest("xyzzyplugh") == NULL);
}

static void test_looks_like(void)
{
    CHECK(slashcmd_looks_like("/hlep"));
    CHECK(slashcmd_looks_like("/modle claude"));
    CHECK(slashcmd_looks_like("/new-task x"));
    CHECK(!slashcmd_looks_like("/usr/bin/foo is broken"));
    CHECK(!slashcmd_looks_like("/ 2"));
    CHECK(!slashcmd_looks_like("/"));
    CHECK(!slashcmd_looks_like("/v2 is out"));
    CHECK(!slashcmd_looks_like("hello /help"));
}

static void test_words_and_args(void)
{
    complete_ctx c = { 0 };
    const char *out[64];
    size_t start = 99;
    size_t n = complete_line(&c, "/mo", 3, &start, out, 64);
    REQUIRE(n == 1);
    CHECK_STR(out[0], "model");
    CHECK_INT(start, 1);
    n = complete_line(&c, "/model claude-so", 16, &start, out, 64);
    CHECK(n >= 2); /* the table's Claude Sonnet families */
    CHECK_INT(start, 7);
    for (size_t i = 0; i < n && i < 64; i++)
        CHECK(strncmp(out[i], "claude-so", 9) == 0);
    n = complete_line(&c, "/restore 3 f", 12, &start, out, 64);
    REQUIRE(n == 1);
    CHECK_STR(out[0], "files");
    CHECK_INT(start, 11);
    n = complete_line(&c, "/mcp r", 6, &start, out, 64);
    REQUIRE(n == 1);
    CHECK_STR(out[0], "reload");
    CHECK_INT(complete_line(&c, "/help x", 7, &start, out, 64), 0);
    CHECK_INT(complete_line(&c, "plain words", 11, &start, out, 64), 0);
    /* no task ended yet: no checkpoint numbers */
    CHECK_INT(complete_line(&c, "/diff ", 6, &start, out, 64), 0);
    static const char *const w[] = { "plan", "act", "apply" };
    CHECK_INT(complete_words(w, 3, "a", 1, out, 64), 2);
    CHECK_STR(out[0], "act");
    CHECK_STR(out[1], "apply");
    complete_release(&c);
}

static void test_paths(void)
{
    char *ws = tmpdir_make("cli-input");
    REQUIRE(ws);
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/src", ws);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/build", ws);
    mkdir(sub, 0700);
    put(ws, "src/main.c", "int main(void) { return 0; }\n");
    put(ws, "src/util.c", "\n");
    put(ws, "second.txt", "two\n");
    put(ws, "secret.env", "TOKEN=hunter2\n");
    put(ws, ".hidden", "h\n");
    put(ws, ".clineignore", "secret.env\nbuild/\n");
    complete_ctx c = { .cwd = ws };
    const char *out[64];
    size_t start = 0;
    size_t n = complete_line(&c, "look at @sr", 11, &start, out, 64);
    REQUIRE(n == 1);
    CHECK_STR(out[0], "src/"); /* a directory: its '/' */
    CHECK_INT(start, 9);
    n = complete_line(&c, "@/src/m", 7, &start, out, 64); /* Cline's @/path */
    REQUIRE(n == 1);
    CHECK_STR(out[0], "src/main.c");
    CHECK_INT(start, 2);
    n = complete_line(&c, "@sec", 4, &start, out, 64);
    REQUIRE(n == 1); /* secret.env is .clineignore'd: never offered */
    CHECK_STR(out[0], "second.txt");
    CHECK_INT(complete_line(&c, "@bu", 3, &start, out, 64), 0); /* an ignored folder */
    n = complete_line(&c, "@", 1, &start, out, 64);
    CHECK_INT(n, 2); /* second.txt src/ — no hidden files, nothing ignored */
    n = complete_line(&c, "@.h", 3, &start, out, 64);
    REQUIRE(n == 1);
    CHECK_STR(out[0], ".hidden");
    CHECK_INT(complete_line(&c, "@../", 4, &start, out, 64), 0);
    {   /* a name with an escape sequence (a hostile repository's) is never offered */
        char evil[1100];
        snprintf(evil, sizeof evil, "%s/second\033]52;c;aGk=\007.txt", ws);
        FILE *ef = fopen(evil, "w");
        REQUIRE(ef);
        fclose(ef);
        n = complete_line(&c, "@sec", 4, &start, out, 64);
        REQUIRE(n == 1);
        CHECK_STR(out[0], "second.txt");
        unlink(evil);
    }
    int ig = -1;
    CHECK_INT(hew_path_ignored(ws, "secret.env", &ig, NULL, 0), HEW_OK);
    CHECK_INT(ig, 1);
    CHECK_INT(hew_path_ignored(ws, "./build/x/y.o", &ig, NULL, 0), HEW_OK);
    CHECK_INT(ig, 1);
    CHECK_INT(hew_path_ignored(ws, "src/main.c", &ig, NULL, 0), HEW_OK);
    CHECK_INT(ig, 0);
    CHECK_INT(hew_path_ignored(ws, "/etc/passwd", &ig, NULL, 0), HEW_OK);
    CHECK_INT(ig, 0);
    CHECK_INT(hew_path_ignored(ws, "", &ig, NULL, 0), HEW_E_INVALID);

    /* mentions: the file attached as Cline does; an ignored one refused with a note */
    sbuf notes = SBUF_INIT;
    int attached = -1;
    char *m = mention_expand(ws, "check @src/main.c, and @secret.env please", &notes,
                             &attached);
    REQUIRE(m);
    CHECK_INT(attached, 1);
    CHECK(strstr(m, "check 'src/main.c' (see below for file content), and @secret.env") == m);
    CHECK(strstr(m, "\n\n<file_content path=\"src/main.c\">\nint main(void) { return 0; }\n"
                    "</file_content>") != NULL);
    CHECK(strstr(m, "hunter2") == NULL);
    CHECK(notes.data && strstr(notes.data, "@secret.env: .clineignore hides it") != NULL);
    free(m);
    sbuf_reset(&notes);
    CHECK(mention_expand(ws, "mail me@example.com or @nobody", &notes, &attached) == NULL);
    CHECK_INT(attached, 0);
    CHECK_INT(notes.len, 0);
    CHECK(mention_expand(ws, "@../etc/passwd", &notes, &attached) == NULL);

    /* a hostile repository's symlinks: one out of the workspace, one onto an ignored
     * file; neither attaches anything. One that stays inside works. */
    char outside[1100], link[1100];
    snprintf(outside, sizeof outside, "%s.outside", ws);
    FILE *f = fopen(outside, "w");
    REQUIRE(f);
    fputs("aws_secret_access_key = OUTSIDE-SECRET\n", f);
    fclose(f);
    snprintf(link, sizeof link, "%s/notes.md", ws);
    REQUIRE(symlink(outside, link) == 0);
    snprintf(link, sizeof link, "%s/env.txt", ws);
    REQUIRE(symlink("secret.env", link) == 0);
    snprintf(link, sizeof link, "%s/main-link.c", ws);
    REQUIRE(symlink("src/main.c", link) == 0);
    sbuf_reset(&notes);
    m = mention_expand(ws, "see @notes.md and @env.txt", &notes, &attached);
    CHECK(m == NULL);
    CHECK_INT(attached, 0);
    CHECK(notes.data && strstr(notes.data, "@notes.md: it leads outside the workspace"));
    CHECK(notes.data && strstr(notes.data, "@env.txt: .clineignore hides it"));
    free(m);
    m = mention_expand(ws, "see @main-link.c", &notes, &attached);
    REQUIRE(m);
    CHECK_INT(attached, 1);
    CHECK(strstr(m, "int main(void)") != NULL);
    CHECK(strstr(m, "OUTSIDE-SECRET") == NULL);
    free(m);
    unlink(outside);
    sbuf_release(&notes);
    complete_release(&c);
    tmpdir_remove(ws);
    free(ws);
}

static int feed(typeahead *t, const char *s, size_t *used)
{
    return typeahead_feed(t, s, strlen(s), used);
}

static void test_typeahead(void)
{
    typeahead t;
    typeahead_init(&t);
    size_t used = 0, len = 0;
    CHECK_INT(feed(&t, "fix the tset", &used), TA_NONE);
    CHECK_INT(used, 12);
    CHECK_INT(feed(&t, "\x7f\x7f\x7f" "est", &used), TA_NONE);
    CHECK_STR(typeahead_text(&t, &len), "fix the test");
    CHECK_INT(feed(&t, "\x17", &used), TA_NONE); /* Ctrl-W */
    CHECK_STR(typeahead_text(&t, &len), "fix the ");
    CHECK_INT(feed(&t, "caf\xc3\xa9\x7f" "e", &used), TA_NONE); /* a character, not a byte */
    CHECK_STR(typeahead_text(&t, &len), "fix the cafe");
    CHECK_INT(feed(&t, "\033[A\033OP\033[1;5C", &used), TA_NONE); /* keys: dropped */
    CHECK_STR(typeahead_text(&t, &len), "fix the cafe");
    CHECK_INT(feed(&t, "!\rnext", &used), TA_SUBMIT);
    CHECK_INT(used, 2);
    char *s = typeahead_take(&t);
    CHECK_STR(s, "fix the cafe!");
    free(s);
    CHECK(typeahead_take(&t) == NULL);
    CHECK_INT(feed(&t, "\r", &used), TA_NONE); /* Enter on nothing: nothing */
    CHECK_INT(feed(&t, "\033[200~line one\r\nline\033two\033[201~", &used), TA_NONE);
    CHECK_STR(typeahead_text(&t, &len), "line one\n\nlinetwo");
    CHECK_INT(feed(&t, "\x15" "x\033\r" "y", &used), TA_NONE); /* Ctrl-U, Alt-Enter */
    CHECK_STR(typeahead_text(&t, &len), "x\ny");
    CHECK_INT(feed(&t, "\033", &used), TA_NONE); /* a lone ESC: decided by time */
    CHECK(typeahead_esc_pending(&t));
    CHECK_INT(typeahead_timeout(&t), TA_STOP);
    CHECK(!typeahead_esc_pending(&t));
    CHECK_INT(feed(&t, "\033\033[B", &used), TA_STOP); /* Esc, then an arrow */
    CHECK_INT(used, 1);
    CHECK_INT(feed(&t, "\033[B\x03", &used), TA_STOP); /* a Ctrl-C byte */
    CHECK_STR(typeahead_text(&t, &len), "x\ny"); /* a stop keeps the text */
    typeahead_release(&t);
}

int main(void)
{
    test_distance();
    test_suggest();
    test_looks_like();
    test_words_and_args();
    test_paths();
    test_typeahead();
    return check_report();
}
