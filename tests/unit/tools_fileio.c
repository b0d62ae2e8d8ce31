/* Unit tests of the file tools with the front end's file access (tool_env.file_read /
 * file_write, hew_options.file_io): read_file shows the front end's text (an editor's
 * unsaved buffer), not the disk's; an edit starts from it and goes to the front end,
 * leaving the disk alone; every guard still comes first — a .clineignored path, a
 * control file denied, a symlink out of the workspace, an edit the user denied never reach
 * the hook; images are read from the disk; the front end's failures are tool errors. */
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
#include "tools/workspace.h"

extern const tool_def tool_read_file;
extern const tool_def tool_write_to_file;
extern const tool_def tool_replace_in_file;

static char *ws;

/* The fake front end: one buffer (path -> text) and what it was asked. */
static char buf_path[4096];
static char buf_text[4096];
static int reads, writes;
static char written_path[4096];
static char written[4096];
static hew_code fail_with; /* HEW_OK: work */

static hew_code fe_read(tool_env *env, const char *abs, size_t max, char **text, size_t *len,
                        hew_err *err)
{
    (void)env;
    reads++;
    if (fail_with != HEW_OK)
        return hew_err_set(err, fail_with, "the editor could not read %s: buffer locked", abs);
    if (strcmp(abs, buf_path) != 0)
        return hew_err_set(err, HEW_E_NOTFOUND, "no buffer for %s", abs);
    if (strlen(buf_text) > max)
        return hew_err_set(err, HEW_E_TOOBIG, "too big");
    *text = strdup(buf_text);
    *len = strlen(buf_text);
    return HEW_OK;
}

static hew_code fe_write(tool_env *env, const char *abs, const char *data, size_t len,
                         hew_err *err)
{
    (void)env;
    writes++;
    if (fail_with != HEW_OK)
        return hew_err_set(err, fail_with, "the editor could not write %s: read-only buffer", abs);
    snprintf(written_path, sizeof written_path, "%s", abs);
    snprintf(written, sizeof written, "%.*s", (int)len, data);
    return HEW_OK;
}

static void setup(toolenv *te)
{
    ws = tmpdir_make("fileio");
    toolenv_init(te, ws);
    te->env.file_read = fe_read;
    te->env.file_write = fe_write;
    reads = writes = 0;
    fail_with = HEW_OK;
    buf_path[0] = buf_text[0] = written_path[0] = written[0] = '\0';
}

static void teardown(toolenv *te)
{
    ws_read_cache_forget(&te->env, NULL);
    toolenv_release(te);
    tmpdir_remove(ws);
    free(ws);
    ws = NULL;
}

/* The buffer of rel (in the workspace) holds text. */
static void buffer(const char *rel, const char *text)
{
    char *real = realpath(ws, NULL);
    snprintf(buf_path, sizeof buf_path, "%s/%s", real, rel);
    snprintf(buf_text, sizeof buf_text, "%s", text);
    free(real);
}

#define HAS(r, s) CHECK(r.text.data && strstr(r.text.data, s) != NULL)

static void test_read_gets_the_buffer(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "a.txt", "on disk\n");
    buffer("a.txt", "unsaved one\nunsaved two\n");
    tool_result r;
    CHECK_INT(toolenv_run(&te, &tool_read_file, &r, "path", "a.txt", NULL), HEW_OK);
    CHECK(!r.is_error);
    CHECK_STR(r.text.data, "1 | unsaved one\n2 | unsaved two\n\n(The file has 2 lines.)");
    CHECK_INT(reads, 1);
    buf_release(&r.text);
    /* the buffer changed, the disk did not: not a duplicate read */
    buffer("a.txt", "changed\n");
    toolenv_run(&te, &tool_read_file, &r, "path", "a.txt", NULL);
    CHECK(strstr(r.text.data, "already read") == NULL);
    HAS(r, "1 | changed");
    buf_release(&r.text);
    toolenv_run(&te, &tool_read_file, &r, "path", "a.txt", NULL);
    HAS(r, "already read"); /* the same text again */
    buf_release(&r.text);
    teardown(&te);
}

static void test_guards_come_first(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, ".clineignore", "secret.txt\n");
    ws_put(ws, "secret.txt", "hunter2\n");
    buffer("secret.txt", "hunter2 unsaved\n");
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "secret.txt", NULL);
    CHECK(r.is_error);
    HAS(r, ".clineignore");
    buf_release(&r.text);
    toolenv_run(&te, &tool_write_to_file, &r, "path", "secret.txt", "content", "x", NULL);
    CHECK(r.is_error);
    buf_release(&r.text);
    /* a missing file is not asked for: read_file says it is not found */
    toolenv_run(&te, &tool_read_file, &r, "path", "nope.txt", NULL);
    CHECK(r.is_error);
    HAS(r, "File not found");
    buf_release(&r.text);
    /* a symlink out of the workspace: refused as on the disk, by the disk's checks */
    char *outside = tmpdir_make("fileio-out");
    char target[4096], link[4096];
    snprintf(target, sizeof target, "%s/t.txt", outside);
    CHECK_INT(fs_write_atomic(target, "out\n", 4, 0644, NULL), HEW_OK);
    snprintf(link, sizeof link, "%s/link.txt", ws);
    CHECK(symlink(target, link) == 0);
    toolenv_answer(&te, "no", NULL);
    toolenv_run(&te, &tool_write_to_file, &r, "path", "link.txt", "content", "y", NULL);
    CHECK(r.is_error);
    buf_release(&r.text);
    /* an edit the user denied */
    ws_put(ws, "b.txt", "b\n");
    buffer("b.txt", "b unsaved\n");
    toolenv_answer(&te, "no", NULL);
    toolenv_run(&te, &tool_write_to_file, &r, "path", "b.txt", "content", "new", NULL);
    CHECK(r.is_error);
    HAS(r, "denied");
    buf_release(&r.text);
    CHECK_INT(writes, 0);
    /* b.txt's text and the symlink's target (its resolved path, outside), for the diffs:
     * nothing of secret.txt */
    CHECK_INT(reads, 2);
    tmpdir_remove(outside);
    free(outside);
    teardown(&te);
}

static void test_edit_goes_to_the_front_end(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "c.txt", "alpha\nbeta\n");
    buffer("c.txt", "alpha\nBETA unsaved\n");
    tool_result r;
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "c.txt", "diff",
                "------- SEARCH\nBETA unsaved\n=======\ngamma\n+++++++ REPLACE", NULL);
    CHECK(!r.is_error);
    HAS(r, "gamma");
    CHECK_STR(written, "alpha\ngamma\n");
    CHECK_STR(written_path, buf_path);
    json_t *ev = toolenv_last(&te, "ask", "tool");
    const char *diff = json_string_value(json_object_get(json_object_get(ev, "data"), "diff"));
    CHECK(diff && strstr(diff, "-BETA unsaved") && strstr(diff, "+gamma"));
    char *disk = ws_get(ws, "c.txt");
    CHECK_STR(disk, "alpha\nbeta\n"); /* the editor saves it, not hew */
    free(disk);
    buf_release(&r.text);
    /* a search text only the disk has fails: the buffer is what is edited */
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "c.txt", "diff",
                "------- SEARCH\nbeta\n=======\nx\n+++++++ REPLACE", NULL);
    CHECK(r.is_error);
    buf_release(&r.text);
    /* a new file in a new folder: the folder is made, the text goes to the front end */
    written[0] = '\0';
    toolenv_run(&te, &tool_write_to_file, &r, "path", "new/d.txt", "content", "dee", NULL);
    CHECK(!r.is_error);
    CHECK_STR(written, "dee\n");
    CHECK(strstr(written_path, "/new/d.txt") != NULL);
    struct stat st;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/new", ws);
    CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(ws_get(ws, "new/d.txt") == NULL);
    buf_release(&r.text);
    teardown(&te);
}

static void test_failures_and_images(void)
{
    toolenv te;
    setup(&te);
    ws_put(ws, "e.txt", "e\n");
    buffer("e.txt", "e unsaved\n");
    fail_with = HEW_E_IO;
    tool_result r;
    toolenv_run(&te, &tool_read_file, &r, "path", "e.txt", NULL);
    CHECK(r.is_error);
    HAS(r, "buffer locked");
    buf_release(&r.text);
    toolenv_run(&te, &tool_write_to_file, &r, "path", "e.txt", "content", "new", NULL);
    CHECK(r.is_error);
    HAS(r, "buffer locked");
    buf_release(&r.text);
    fail_with = HEW_OK;
    toolenv_run(&te, &tool_write_to_file, &r, "path", "e.txt", "content", "new", NULL);
    CHECK(!r.is_error);
    buf_release(&r.text);
    fail_with = HEW_E_IO;
    toolenv_run(&te, &tool_replace_in_file, &r, "path", "e.txt", "diff",
                "------- SEARCH\ne unsaved\n=======\nx\n+++++++ REPLACE", NULL);
    CHECK(r.is_error);
    HAS(r, "buffer locked");
    buf_release(&r.text);
    /* a binary file on the disk is read from the disk (and refused as binary) */
    int before = reads;
    char path[4096];
    snprintf(path, sizeof path, "%s/bin.dat", ws);
    CHECK_INT(fs_write_atomic(path, "ab\0cd", 5, 0644, NULL), HEW_OK);
    toolenv_run(&te, &tool_read_file, &r, "path", "bin.dat", NULL);
    CHECK(r.is_error);
    HAS(r, "binary");
    CHECK_INT(reads, before);
    buf_release(&r.text);
    teardown(&te);
}

int main(void)
{
    RUN(test_read_gets_the_buffer);
    RUN(test_guards_come_first);
    RUN(test_edit_goes_to_the_front_end);
    RUN(test_failures_and_images);
    return check_report();
}
