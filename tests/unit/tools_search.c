/* Unit tests of list_files and search_files (and the search engine's globs) through a
 * scripted tool_env in mkdtemp workspaces: order, caps, default and .gitignore ignores,
 * .clineignore locks and filtering, hidden and binary files, symlinks, context lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "check.h"
#include "tmpdir.h"
#include "toolenv.h"
#include "wsfile.h"
#include "tools/search.h"

extern const tool_def tool_list_files;
extern const tool_def tool_search_files;
extern const tool_def tool_list_code_definition_names;

static char *ws;

static void setup(toolenv *te)
{
    ws = tmpdir_make("search");
    toolenv_init(te, ws);
    te->approve_all = true;
}

static void teardown(toolenv *te)
{
    toolenv_release(te);
    tmpdir_remove(ws);
    free(ws);
}

static void test_list_top_level_sorted(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "b.txt", "");
    ws_put(ws, "A.txt", "");
    ws_put(ws, "file10.txt", "");
    ws_put(ws, "file9.txt", "");
    ws_put(ws, ".env", "");
    ws_put(ws, "src/main.c", "");
    ws_put(ws, "node_modules/x/index.js", "");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_list_files, &r, "path", ".", NULL), HEW_OK);
    CHECK_STR(r.text.data, ".env\nA.txt\nb.txt\nfile9.txt\nfile10.txt\nnode_modules/\nsrc/");
    json_t *ev = toolenv_last(&te, "say", "tool");
    CHECK_STR(json_string_value(json_object_get(json_object_get(ev, "data"), "tool")),
              "listFilesTopLevel");
    buf_release(&r.text);
    teardown(&te);
}

static void test_list_recursive_ignores(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, ".gitignore", "*.log\nbuild/\n");
    ws_put(ws, "src/a.c", "");
    ws_put(ws, "src/deep/b.c", "");
    ws_put(ws, "src/x.log", "");
    ws_put(ws, "build/out.o", "");
    ws_put(ws, "node_modules/pkg/index.js", "");
    ws_put(ws, ".git/config", "");
    ws_put(ws, "target/dependency/lib.jar", "");
    ws_put(ws, "target/classes/A.class", "");
    ws_put(ws, "src/sub/.gitignore", "secret.txt\n");
    ws_put(ws, "src/sub/secret.txt", "");
    ws_put(ws, "src/sub/open.txt", "");
    tool_result r;
    toolenv_run(&te, &tool_list_files, &r, "path", ".", "recursive", "true", NULL);
    CHECK_STR(r.text.data,
              ".gitignore\n"
              ".git/\n"
              "node_modules/\n"
              "src/\n"
              "src/a.c\n"
              "src/deep/\n"
              "src/deep/b.c\n"
              "src/sub/\n"
              "src/sub/.gitignore\n"
              "src/sub/open.txt\n"
              "target/\n"
              "target/classes/\n"
              "target/classes/A.class\n"
              "target/dependency/");
    json_t *ev = toolenv_last(&te, "say", "tool");
    CHECK_STR(json_string_value(json_object_get(json_object_get(ev, "data"), "tool")),
              "listFilesRecursive");
    buf_release(&r.text);
    teardown(&te);
}

static void test_list_cap_and_locks(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, ".clineignore", "private/\n");
    ws_put(ws, "private/key.pem", "");
    for (int d = 0; d < 5; d++)
        for (int f = 0; f < 60; f++) {
            char rel[64];
            snprintf(rel, sizeof rel, "d%d/f%02d.txt", d, f);
            ws_put(ws, rel, "");
        }
    tool_result r;
    toolenv_run(&te, &tool_list_files, &r, "path", ".", "recursive", "true", NULL);
    CHECK(strstr(r.text.data, "\xf0\x9f\x94\x92 private/") != NULL);
    CHECK(strstr(r.text.data, "key.pem") == NULL);
    CHECK(strstr(r.text.data, "limit of 200 entries") != NULL);
    size_t lines = 0;
    for (const char *p = r.text.data; (p = strchr(p, '\n')); p++)
        lines++;
    CHECK_INT(lines, 200 - 1 + 2); /* 200 entries, a blank line, the notice */
    buf_release(&r.text);
    /* Listing an ignored directory is refused. */
    toolenv_run(&te, &tool_list_files, &r, "path", "private", NULL);
    CHECK(r.is_error);
    CHECK(strstr(r.text.data, ".clineignore") != NULL);
    buf_release(&r.text);
    teardown(&te);
}

static void test_list_symlinks_and_errors(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "real/a.txt", "");
    char link[4096], target[4096];
    snprintf(link, sizeof link, "%s/loop", ws);
    snprintf(target, sizeof target, "%s", ws);
    CHECK_INT(symlink(target, link), 0);
    tool_result r;
    toolenv_run(&te, &tool_list_files, &r, "path", ".", "recursive", "true", NULL);
    CHECK_STR(r.text.data, "loop/\nreal/\nreal/a.txt");
    buf_release(&r.text);
    toolenv_run(&te, &tool_list_files, &r, "path", "missing", NULL);
    CHECK(r.is_error);
    CHECK_INT(te.mistakes, 1);
    buf_release(&r.text);
    /* An empty directory. */
    ws_put(ws, "empty/.keep", "");
    char p[4096];
    snprintf(p, sizeof p, "%s/empty/.keep", ws);
    unlink(p);
    toolenv_run(&te, &tool_list_files, &r, "path", "empty", NULL);
    CHECK_STR(r.text.data, "No files found.");
    buf_release(&r.text);
    teardown(&te);
}

static void test_search_grouped_with_context(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "src/a.c", "int x;\n// TODO first\nint y;\nint z;\nint w;\n// TODO second\n");
    ws_put(ws, "src/b.c", "// TODO only\n");
    ws_put(ws, "README.md", "nothing here\n");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_search_files, &r, "path", ".", "regex", "TODO", NULL), HEW_OK);
    CHECK(!r.is_error);
    CHECK_STR(r.text.data,
              "Found 3 results.\n\n"
              "src/a.c\n\xe2\x94\x82----\n"
              "\xe2\x94\x82int x;\n\xe2\x94\x82// TODO first\n\xe2\x94\x82int y;\n"
              "\xe2\x94\x82----\n"
              "\xe2\x94\x82int w;\n\xe2\x94\x82// TODO second\n"
              "\xe2\x94\x82----\n\n"
              "src/b.c\n\xe2\x94\x82----\n\xe2\x94\x82// TODO only\n\xe2\x94\x82----");
    json_t *data = json_object_get(toolenv_last(&te, "say", "tool"), "data");
    CHECK_STR(json_string_value(json_object_get(data, "tool")), "searchFiles");
    CHECK_STR(json_string_value(json_object_get(data, "regex")), "TODO");
    buf_release(&r.text);
    /* Adjacent hits share their context; a subdirectory gives paths from the cwd. */
    ws_put(ws, "src/c.c", "a\nTODO 1\nTODO 2\nb\n");
    toolenv_run(&te, &tool_search_files, &r, "path", "src", "regex", "TODO [0-9]",
                "file_pattern", "c.*", NULL);
    CHECK_STR(r.text.data,
              "Found 2 results.\n\n"
              "src/c.c\n\xe2\x94\x82----\n\xe2\x94\x82" "a\n\xe2\x94\x82TODO 1\n"
              "\xe2\x94\x82TODO 2\n\xe2\x94\x82" "b\n\xe2\x94\x82----");
    buf_release(&r.text);
    teardown(&te);
}

static void test_search_skips_and_filters(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, ".gitignore", "gen/\n");
    ws_put(ws, ".clineignore", "secret.txt\n");
    ws_put(ws, "gen/x.c", "needle\n");
    ws_put(ws, ".hidden/x.c", "needle\n");
    ws_put(ws, "secret.txt", "needle\n");
    ws_put(ws, "ok.txt", "needle\n");
    ws_put(ws, "ok.c", "needle\n");
    char path[4096];
    snprintf(path, sizeof path, "%s/bin.dat", ws);
    fs_write_atomic(path, "needle\n\0\0", 9, 0644, NULL);
    tool_result r;
    toolenv_run(&te, &tool_search_files, &r, "path", ".", "regex", "needle", NULL);
    CHECK(strstr(r.text.data, "Found 2 results.") != NULL);
    CHECK(strstr(r.text.data, "ok.txt") && strstr(r.text.data, "ok.c"));
    CHECK(!strstr(r.text.data, "secret") && !strstr(r.text.data, "gen/") &&
          !strstr(r.text.data, "hidden") && !strstr(r.text.data, "bin.dat"));
    buf_release(&r.text);
    toolenv_run(&te, &tool_search_files, &r, "path", ".", "regex", "needle", "file_pattern",
                "*.{c,h}", NULL);
    CHECK(strstr(r.text.data, "Found 1 result.") != NULL);
    buf_release(&r.text);
    toolenv_run(&te, &tool_search_files, &r, "path", ".", "regex", "nomatch", NULL);
    CHECK_STR(r.text.data, "Found 0 results.");
    buf_release(&r.text);
    toolenv_run(&te, &tool_search_files, &r, "path", ".", "regex", "(unclosed", NULL);
    CHECK(r.is_error);
    CHECK(strstr(r.text.data, "not valid") != NULL);
    CHECK_INT(te.mistakes, 1);
    buf_release(&r.text);
    teardown(&te);
}

static void test_search_caps(void)
{
    toolenv te;
    setup(&te);
    buf b = BUF_INIT(0);
    for (int i = 0; i < 400; i++)
        buf_printf(&b, "hit %d\n", i);
    ws_put(ws, "many.txt", b.data);
    buf_release(&b);
    tool_result r;
    toolenv_run(&te, &tool_search_files, &r, "path", ".", "regex", "^hit", NULL);
    CHECK(strncmp(r.text.data, "Showing the first 300 results; there are more.", 46) == 0);
    CHECK(strstr(r.text.data, "hit 299\n") != NULL);
    CHECK(strstr(r.text.data, "hit 300\n") != NULL); /* the context line after the last */
    CHECK(strstr(r.text.data, "hit 301") == NULL);
    buf_release(&r.text);
    /* The output size cap: long lines in many files. */
    b = (buf)BUF_INIT(0);
    for (int i = 0; i < 490; i++)
        buf_putc(&b, 'x');
    buf_puts(&b, " match\n");
    for (int f = 0; f < 290; f++) {
        char rel[64];
        snprintf(rel, sizeof rel, "long/f%03d.txt", f);
        buf c = BUF_INIT(0);
        for (int k = 0; k < 1; k++)
            buf_append(&c, b.data, b.len);
        ws_put(ws, rel, c.data);
        buf_release(&c);
    }
    buf_release(&b);
    toolenv_run(&te, &tool_search_files, &r, "path", "long", "regex", "match", NULL);
    CHECK(r.text.len <= 256 * 1024 + 512);
    buf_release(&r.text);
    teardown(&te);
}

static void test_search_engine_lines(void)
{
    char *dir = tmpdir_make("engine");
    ws = dir;
    /* CRLF lines, a match spanning lines is not a hit, an empty last line. */
    ws_put(ws, "a.txt", "one\r\ntwo words\r\nthree\n");
    ws_put(ws, "b.txt", "alpha\nbeta");
    search_result r = SEARCH_RESULT_INIT;
    search_opts o = { .dir = dir, .root = dir, .dir_rel = "", .regex = "two\\s+words" };
    CHECK_INT(search_run(&o, &r, NULL), HEW_OK);
    CHECK_INT(r.nhits, 1);
    CHECK_STR(r.hits[0].text, "two words");
    CHECK_STR(r.hits[0].before, "one");
    CHECK_STR(r.hits[0].after, "three");
    CHECK_INT(r.hits[0].line, 2);
    search_result_release(&r);
    o.regex = "one\\s+two";
    CHECK_INT(search_run(&o, &r, NULL), HEW_OK);
    CHECK_INT(r.nhits, 0);
    search_result_release(&r);
    o.regex = "^beta$";
    CHECK_INT(search_run(&o, &r, NULL), HEW_OK);
    CHECK_INT(r.nhits, 1);
    CHECK_INT(r.hits[0].line, 2);
    CHECK(r.hits[0].after == NULL);
    search_result_release(&r);
    o.regex = "^";
    CHECK_INT(search_run(&o, &r, NULL), HEW_OK);
    CHECK_INT(r.nhits, 5);
    search_result_release(&r);
    tmpdir_remove(dir);
    free(dir);
}

static void test_globs(void)
{
    CHECK(search_glob_match(NULL, "a/b.c"));
    CHECK(search_glob_match("*.c", "a/b.c"));
    CHECK(!search_glob_match("*.c", "a/b.h"));
    CHECK(search_glob_match("*.{c,h}", "a/b.h"));
    CHECK(search_glob_match("src/**/*.ts", "src/x/y.ts"));
    CHECK(search_glob_match("src/**/*.ts", "src/y.ts"));
    CHECK(!search_glob_match("src/**/*.ts", "lib/y.ts"));
    CHECK(!search_glob_match("!*.min.js", "a.min.js"));
    CHECK(search_glob_match("!*.min.js", "a.js"));
    CHECK(search_glob_match("{src,lib}/*.{c,h}", "lib/x.h"));
}

static void test_definitions(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "src/a.c", "struct point { int x; };\nstatic int helper(int x)\n{\n    return x;\n}\n"
                   "int main(void)\n{\n    return helper(1);\n}\n");
    ws_put(ws, "src/b.py", "class Shape:\n    def area(self):\n        pass\n\ndef make():\n"
                    "    def inner():\n        pass\n    return Shape()\n");
    ws_put(ws, "src/notes.txt", "def nothing(): pass\n");
    ws_put(ws, "src/deeper/c.go", "package x\nfunc Hidden() {}\n");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_list_code_definition_names, &r, "path", "src", NULL), HEW_OK);
    if (r.is_error && strstr(r.text.data, "universal-ctags")) {
        printf("skipped: universal-ctags is not installed\n");
        buf_release(&r.text);
        teardown(&te);
        return;
    }
    CHECK_STR(r.text.data,
              "src/a.c\n|----\n\xe2\x94\x82struct point { int x; };\n|----\n"
              "\xe2\x94\x82static int helper(int x)\n|----\n\xe2\x94\x82int main(void)\n|----\n\n"
              "src/b.py\n|----\n\xe2\x94\x82" "class Shape:\n|----\n\xe2\x94\x82    def area(self):\n"
              "|----\n\xe2\x94\x82" "def make():\n|----");
    json_t *data = json_object_get(toolenv_last(&te, "say", "tool"), "data");
    CHECK_STR(json_string_value(json_object_get(data, "tool")), "listCodeDefinitionNames");
    buf_release(&r.text);
    ws_put(ws, "empty/readme.md", "# hi\n");
    toolenv_run(&te, &tool_list_code_definition_names, &r, "path", "empty", NULL);
    CHECK_STR(r.text.data, "No source code definitions found.");
    buf_release(&r.text);
    teardown(&te);
}

int main(void)
{
    RUN(test_list_top_level_sorted);
    RUN(test_list_recursive_ignores);
    RUN(test_list_cap_and_locks);
    RUN(test_list_symlinks_and_errors);
    RUN(test_search_grouped_with_context);
    RUN(test_search_skips_and_filters);
    RUN(test_search_caps);
    RUN(test_search_engine_lines);
    RUN(test_globs);
    RUN(test_definitions);
    return check_report();
}
