/* Unit tests of read_file, write_to_file and replace_in_file through a scripted tool_env in
 * mkdtemp workspaces: results, approvals (group, outside flag, denial), .clineignore
 * blocks, CRLF files, huge and binary files, symlinks out of the workspace, `..` paths,
 * unicode names, duplicate reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/utf8.h"
#include "check.h"
#include "tmpdir.h"
#include "toolenv.h"
#include "wsfile.h"
#include "tools/workspace.h"

extern const tool_def tool_read_file;
extern const tool_def tool_write_to_file;
extern const tool_def tool_replace_in_file;

/* ---- helpers ---------------------------------------------------------------------------- */

static char *ws; /* the workspace of the current test */
static char last_group[16];
static bool last_outside;
static int approvals;
static hew_code (*real_approve)(tool_env *, const char *, bool, const char *, json_t *, bool *,
                                tool_answer *);

static hew_code spy_approve(tool_env *env, const char *group, bool outside, const char *type,
                            json_t *data, bool *approved, tool_answer *answer)
{
    snprintf(last_group, sizeof last_group, "%s", group);
    last_outside = outside;
    approvals++;
    return real_approve(env, group, outside, type, data, approved, answer);
}

static void setup(toolenv *te)
{
    ws = tmpdir_make("files");
    toolenv_init(te, ws);
    real_approve = te->env.approve;
    te->env.approve = spy_approve;
    approvals = 0;
    last_group[0] = '\0';
    last_outside = false;
}

static void teardown(toolenv *te)
{
    ws_read_cache_forget(&te->env, NULL);
    toolenv_release(te);
    tmpdir_remove(ws);
    free(ws);
    ws = NULL;
}

#define HAS(r, s) CHECK(r.text.data && strstr(r.text.data, s) != NULL)

/* ---- read_file ---------------------------------------------------------------------------- */

static void test_read_numbered_lines(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "src/a.c", "one\ntwo\r\nthree\n");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_read_file, &r, "path", "src/a.c", NULL), HEW_OK);
    CHECK(!r.is_error);
    CHECK_STR(r.text.data, "1 | one\n2 | two\n3 | three\n\n(The file has 3 lines.)");
    CHECK_STR(last_group, "read");
    CHECK(!last_outside);
    json_t *ev = toolenv_last(&te, "ask", "tool");
    REQUIRE(ev != NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(ev, "data"), "tool")), "readFile");
    CHECK_STR(json_string_value(json_object_get(json_object_get(ev, "data"), "path")), "src/a.c");
    buf_release(&r.text);
    teardown(&te);
}

static void test_read_window_and_continuation(void)
{
    toolenv te;
    setup(&te);
    buf b = BUF_INIT(0);
    for (int i = 1; i <= 2500; i++)
        buf_printf(&b, "line %d\n", i);
    ws_put(ws, "big.txt", b.data);
    buf_release(&b);
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "big.txt", NULL);
    HAS(r, "1 | line 1\n");
    HAS(r, "1000 | line 1000\n");
    CHECK(strstr(r.text.data, "1001 | ") == NULL);
    HAS(r, "Showing lines 1-1000 of 2500");
    HAS(r, "start_line=1001");
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "big.txt", "start_line", "2400", "end_line",
                "2450", NULL);
    CHECK(strncmp(r.text.data, "2400 | line 2400\n", 17) == 0);
    HAS(r, "Showing lines 2400-2450 of 2500");
    buf_release(&r.text);
    /* Reversed bounds are swapped; past the end is an error. */
    toolenv_run(&te, &tool_read_file, &r, "path", "big.txt", "start_line", "12", "end_line",
                "10", NULL);
    CHECK(strncmp(r.text.data, "10 | line 10\n11 | line 11\n12 | line 12\n", 39) == 0);
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "big.txt", "start_line", "9999", NULL);
    CHECK(r.is_error);
    HAS(r, "past the end");
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "big.txt", "start_line", "abc", NULL);
    CHECK(r.is_error);
    buf_release(&r.text);
    teardown(&te);
}

static void test_read_size_cap_and_utf8(void)
{
    toolenv te;
    setup(&te);
    /* 900 lines of 600 bytes of 'é' (2 bytes each): over the 400 KB cap. */
    buf b = BUF_INIT(0);
    for (int i = 0; i < 900; i++) {
        for (int k = 0; k < 300; k++)
            buf_puts(&b, "\xc3\xa9");
        buf_putc(&b, '\n');
    }
    ws_put(ws, "wide.txt", b.data);
    buf_release(&b);
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "wide.txt", NULL);
    CHECK(!r.is_error);
    HAS(r, "[FILE TRUNCATED");
    CHECK(r.text.len < 420 * 1024);
    CHECK(utf8_validate(r.text.data, r.text.len, NULL));
    buf_release(&r.text);
    /* One enormous line: its head is shown, never half a character. */
    b = (buf)BUF_INIT(0);
    for (int k = 0; k < 300000; k++)
        buf_puts(&b, "\xe2\x82\xac");
    ws_put(ws, "one.txt", b.data);
    buf_release(&b);
    toolenv_run(&te, &tool_read_file, &r, "path", "one.txt", NULL);
    HAS(r, "line cut short");
    CHECK(utf8_validate(r.text.data, r.text.len, NULL));
    buf_release(&r.text);
    teardown(&te);
}

static void test_read_binary_missing_dir(void)
{
    toolenv te;
    setup(&te);
    char path[4096];
    snprintf(path, sizeof path, "%s/blob.bin", ws);
    fs_write_atomic(path, "ab\0cd", 5, 0644, NULL);
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "blob.bin", NULL);
    CHECK(r.is_error);
    HAS(r, "binary");
    CHECK_INT(te.mistakes, 1);
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "nope.txt", NULL);
    CHECK(r.is_error);
    HAS(r, "File not found");
    CHECK_INT(te.mistakes, 2);
    buf_release(&r.text);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/adir", ws);
    mkdir(path, 0755);
    toolenv_run(&te, &tool_read_file, &r, "path", "adir", NULL);
    CHECK(r.is_error);
    HAS(r, "directory");
    buf_release(&r.text);
    teardown(&te);
}

static void test_read_duplicate_flagged(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "a.txt", "hello\n");
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "a.txt", NULL);
    CHECK(strstr(r.text.data, "[File already read]") == NULL);
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "a.txt", NULL);
    HAS(r, "[File already read]");
    HAS(r, "1 | hello");
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "a.txt", NULL);
    HAS(r, "[DUPLICATE READ]");
    HAS(r, "1 | hello");
    buf_release(&r.text);
    /* A change of the file resets the count. */
    sleep(0);
    ws_put(ws, "a.txt", "hello, world\n");
    toolenv_run(&te, &tool_read_file, &r, "path", "a.txt", NULL);
    CHECK(strstr(r.text.data, "already read") == NULL || strstr(r.text.data, "hello, world"));
    CHECK(strstr(r.text.data, "DUPLICATE") == NULL);
    buf_release(&r.text);
    teardown(&te);
}

static void test_read_outside_and_symlinks(void)
{
    toolenv te;
    setup(&te);
    char *other = tmpdir_make("outside");
    char path[4096], link[4096];
    snprintf(path, sizeof path, "%s/secret.txt", other);
    fs_write_atomic(path, "outside\n", 8, 0644, NULL);
    /* A symlink in the workspace pointing out of it. */
    snprintf(link, sizeof link, "%s/link.txt", ws);
    CHECK_INT(symlink(path, link), 0);
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "link.txt", NULL);
    CHECK_STR(last_group, "read");
    CHECK(last_outside);
    HAS(r, "1 | outside");
    buf_release(&r.text);
    /* `..` out of the workspace: asked as outside, denied here. */
    char rel[4096];
    const char *base = strrchr(other, '/') + 1;
    snprintf(rel, sizeof rel, "../%s/secret.txt", base);
    toolenv_answer(&te, "no", NULL);
    toolenv_run(&te, &tool_read_file, &r, "path", rel, NULL);
    CHECK(last_outside);
    CHECK(r.is_error);
    CHECK_STR(r.text.data, "The user denied this operation.");
    buf_release(&r.text);
    /* Denied with feedback. */
    toolenv_answer(&te, "message", "not that one");
    toolenv_run(&te, &tool_read_file, &r, "path", path, NULL);
    HAS(r, "The user denied this operation.");
    HAS(r, "<feedback>\nnot that one\n</feedback>");
    buf_release(&r.text);
    tmpdir_remove(other);
    free(other);
    teardown(&te);
}

static void test_clineignore_blocks(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, ".clineignore", "secrets/\n*.key\n");
    ws_put(ws, "secrets/pw.txt", "hunter2\n");
    ws_put(ws, "id.key", "KEY\n");
    ws_put(ws, "ok.txt", "fine\n");
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "secrets/pw.txt", NULL);
    CHECK(r.is_error);
    HAS(r, ".clineignore");
    CHECK(strstr(r.text.data, "hunter2") == NULL);
    CHECK_INT(approvals, 0);
    CHECK_INT(toolenv_count(&te, "say", "clineignore_error"), 1);
    buf_release(&r.text);
    toolenv_run(&te, &tool_write_to_file, &r, "path", "id.key", "content", "NEW", NULL);
    CHECK(r.is_error);
    HAS(r, ".clineignore");
    buf_release(&r.text);
    char *k = ws_get(ws, "id.key");
    CHECK_STR(k, "KEY\n");
    free(k);
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "secrets/pw.txt", "diff",
                "------- SEARCH\nhunter2\n=======\nx\n+++++++ REPLACE", NULL);
    CHECK(r.is_error);
    HAS(r, ".clineignore");
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", ".clineignore", NULL);
    CHECK(r.is_error);
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "ok.txt", NULL);
    CHECK(!r.is_error);
    buf_release(&r.text);
    teardown(&te);
}

static void test_unicode_names(void)
{
    toolenv te;
    setup(&te);
    tool_result r;
    toolenv_run(&te, &tool_write_to_file, &r, "path", "données/ファイル.txt", "content",
                "héllo", NULL);
    CHECK(!r.is_error);
    HAS(r, "<final_file_content path=\"données/ファイル.txt\">\nhéllo\n</final_file_content>");
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "données/ファイル.txt", NULL);
    HAS(r, "1 | héllo");
    buf_release(&r.text);
    teardown(&te);
}

/* ---- write_to_file ---------------------------------------------------------------------- */

static void test_write_creates_with_dirs_and_strips_fence(void)
{
    toolenv te;
    setup(&te);
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_write_to_file, &r, "path", "a/b/c.py", "content",
                          "```python\nprint('hi')\n```", NULL),
              HEW_OK);
    CHECK(!r.is_error);
    char *c = ws_get(ws, "a/b/c.py");
    CHECK_STR(c, "print('hi')\n");
    free(c);
    HAS(r, "<final_file_content path=\"a/b/c.py\">\nprint('hi')\n</final_file_content>");
    CHECK_STR(last_group, "edit");
    json_t *ev = toolenv_last(&te, "ask", "tool");
    json_t *data = json_object_get(ev, "data");
    CHECK_STR(json_string_value(json_object_get(data, "tool")), "newFileCreated");
    CHECK_STR(json_string_value(json_object_get(data, "content")), "print('hi')\n");
    CHECK_STR(json_string_value(json_object_get(data, "diff")), "@@ -0,0 +1,1 @@\n+print('hi')\n");
    buf_release(&r.text);
    teardown(&te);
}

static void test_write_denied_changes_nothing(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "x.txt", "old\n");
    tool_result r;
    toolenv_answer(&te, "no", NULL);
    toolenv_run(&te, &tool_write_to_file, &r, "path", "x.txt", "content", "new", NULL);
    CHECK(r.is_error);
    HAS(r, "The user denied this operation. The file was not updated");
    char *c = ws_get(ws, "x.txt");
    CHECK_STR(c, "old\n");
    free(c);
    buf_release(&r.text);
    toolenv_answer(&te, "no", NULL);
    toolenv_run(&te, &tool_write_to_file, &r, "path", "y.txt", "content", "new", NULL);
    HAS(r, "The file was not created.");
    CHECK(ws_get(ws, "y.txt") == NULL);
    json_t *ev = toolenv_last(&te, "ask", "tool");
    CHECK_STR(json_string_value(json_object_get(json_object_get(ev, "data"), "tool")),
              "newFileCreated");
    buf_release(&r.text);
    teardown(&te);
}

static void test_write_keeps_crlf_and_mode(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "w.bat", "echo a\r\necho b\r\n");
    char path[4096];
    snprintf(path, sizeof path, "%s/w.bat", ws);
    chmod(path, 0755);
    tool_result r;
    toolenv_run(&te, &tool_write_to_file, &r, "path", "w.bat", "content", "echo c\necho d", NULL);
    CHECK(!r.is_error);
    char *c = ws_get(ws, "w.bat");
    CHECK_STR(c, "echo c\r\necho d\r\n");
    free(c);
    struct stat st;
    CHECK_INT(stat(path, &st), 0);
    CHECK_INT(st.st_mode & 0777, 0755);
    json_t *data = json_object_get(toolenv_last(&te, "ask", "tool"), "data");
    CHECK_STR(json_string_value(json_object_get(data, "tool")), "editedExistingFile");
    buf_release(&r.text);
    teardown(&te);
}

static void test_write_outside_asks_outside(void)
{
    toolenv te;
    setup(&te);
    char *other = tmpdir_make("outw");
    char path[4096];
    snprintf(path, sizeof path, "%s/new.txt", other);
    tool_result r;
    toolenv_run(&te, &tool_write_to_file, &r, "path", path, "content", "x", NULL);
    CHECK_STR(last_group, "edit");
    CHECK(last_outside);
    CHECK(fs_is_file(path));
    buf_release(&r.text);
    tmpdir_remove(other);
    free(other);
    teardown(&te);
}

/* ---- replace_in_file ---------------------------------------------------------------------- */

static void test_replace_applies_and_shows_final(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "m.c", "int a = 1;\nint b = 2;\nint c = 3;\n");
    tool_result r;
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "m.c", "diff",
                "------- SEARCH\nint b = 2;\n=======\nint b = 20;\n+++++++ REPLACE\n"
                "------- SEARCH\nint c = 3;\n=======\nint c = 30;\n+++++++ REPLACE",
                NULL);
    CHECK(!r.is_error);
    char *c = ws_get(ws, "m.c");
    CHECK_STR(c, "int a = 1;\nint b = 20;\nint c = 30;\n");
    free(c);
    HAS(r, "<final_file_content path=\"m.c\">\nint a = 1;\nint b = 20;\nint c = 30;\n"
           "</final_file_content>");
    json_t *data = json_object_get(toolenv_last(&te, "ask", "tool"), "data");
    CHECK_STR(json_string_value(json_object_get(data, "tool")), "editedExistingFile");
    CHECK_STR(json_string_value(json_object_get(data, "diff")),
              "@@ -1,3 +1,3 @@\n int a = 1;\n-int b = 2;\n-int c = 3;\n+int b = 20;\n+int c = 30;\n");
    CHECK_INT(te.mistakes, 0);
    buf_release(&r.text);
    teardown(&te);
}

static void test_replace_failure_leaves_file(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "m.c", "int a = 1;\nint b = 2;\n");
    tool_result r;
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "m.c", "diff",
                "------- SEARCH\nint a = 1;\n=======\nint a = 5;\n+++++++ REPLACE\n"
                "------- SEARCH\nint zzz;\n=======\nx\n+++++++ REPLACE",
                NULL);
    CHECK(r.is_error);
    HAS(r, "block 2");
    HAS(r, "int zzz;");
    HAS(r, "<file_content path=\"m.c\">\nint a = 1;\nint b = 2;\n</file_content>");
    CHECK_INT(te.mistakes, 1);
    CHECK_INT(toolenv_count(&te, "say", "diff_error"), 1);
    CHECK_INT(approvals, 0);
    char *c = ws_get(ws, "m.c");
    CHECK_STR(c, "int a = 1;\nint b = 2;\n");
    free(c);
    buf_release(&r.text);
    /* A missing file. */
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "none.c", "diff",
                "------- SEARCH\na\n=======\nb\n+++++++ REPLACE", NULL);
    CHECK(r.is_error);
    HAS(r, "File not found");
    CHECK_INT(te.mistakes, 2);
    buf_release(&r.text);
    teardown(&te);
}

static void test_replace_crlf_file(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "w.txt", "alpha\r\nbeta\r\ngamma\r\n");
    tool_result r;
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "w.txt", "diff",
                "------- SEARCH\nbeta\n=======\nBETA\nbeta2\n+++++++ REPLACE", NULL);
    CHECK(!r.is_error);
    char *c = ws_get(ws, "w.txt");
    CHECK_STR(c, "alpha\r\nBETA\r\nbeta2\r\ngamma\r\n");
    free(c);
    buf_release(&r.text);
    teardown(&te);
}

static void test_replace_denied_and_binary_and_huge(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "d.txt", "keep\n");
    tool_result r;
    toolenv_answer(&te, "message", "use a better name");
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "d.txt", "diff",
                "------- SEARCH\nkeep\n=======\nchange\n+++++++ REPLACE", NULL);
    CHECK(r.is_error);
    HAS(r, "The user denied this operation. The file was not updated");
    HAS(r, "<feedback>\nuse a better name\n</feedback>");
    char *c = ws_get(ws, "d.txt");
    CHECK_STR(c, "keep\n");
    free(c);
    buf_release(&r.text);

    char path[4096];
    snprintf(path, sizeof path, "%s/b.bin", ws);
    fs_write_atomic(path, "a\0b\n", 4, 0644, NULL);
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "b.bin", "diff",
                "------- SEARCH\na\n=======\nb\n+++++++ REPLACE", NULL);
    CHECK(r.is_error);
    HAS(r, "binary");
    buf_release(&r.text);

    /* A 5 MB file: edited at the end, final content shown only in part. */
    buf b = BUF_INIT(0);
    for (int i = 0; i < 100000; i++)
        buf_printf(&b, "row %06d of the big table\n", i);
    ws_put(ws, "huge.txt", b.data);
    buf_release(&b);
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "huge.txt", "diff",
                "------- SEARCH\nrow 099999 of the big table\n=======\nthe end\n+++++++ REPLACE",
                NULL);
    CHECK(!r.is_error);
    HAS(r, "the file goes on past line");
    CHECK(r.text.len < 600 * 1024);
    c = ws_get(ws, "huge.txt");
    REQUIRE(c != NULL);
    size_t n = strlen(c);
    CHECK(n > 8 && strcmp(c + n - 8, "the end\n") == 0);
    free(c);
    buf_release(&r.text);
    teardown(&te);
}

static void test_edit_evicts_read_cache(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "e.txt", "v1\n");
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "e.txt", NULL);
    buf_release(&r.text);
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "e.txt", "diff",
                "------- SEARCH\nv1\n=======\nv1\n+++++++ REPLACE", NULL);
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "e.txt", NULL);
    CHECK(strstr(r.text.data, "already read") == NULL);
    buf_release(&r.text);
    teardown(&te);
}

int main(void)
{
    RUN(test_read_numbered_lines);
    RUN(test_read_window_and_continuation);
    RUN(test_read_size_cap_and_utf8);
    RUN(test_read_binary_missing_dir);
    RUN(test_read_duplicate_flagged);
    RUN(test_read_outside_and_symlinks);
    RUN(test_clineignore_blocks);
    RUN(test_unicode_names);
    RUN(test_write_creates_with_dirs_and_strips_fence);
    RUN(test_write_denied_changes_nothing);
    RUN(test_write_keeps_crlf_and_mode);
    RUN(test_write_outside_asks_outside);
    RUN(test_replace_applies_and_shows_final);
    RUN(test_replace_failure_leaves_file);
    RUN(test_replace_crlf_file);
    RUN(test_replace_denied_and_binary_and_huge);
    RUN(test_edit_evicts_read_cache);
    return check_report();
}
