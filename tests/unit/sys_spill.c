/* Unit tests of sys/spill: bytes appended come back from any offset, in any range (one
 * reaching past the end gives what is there); the file has no name (the folder stays
 * empty while it is open and after); a folder that cannot hold it is a clear error. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sys/spill.h"
#include "tmpdir.h"

static size_t entries(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_append_and_read_back(void)
{
    char *dir = tmpdir_make("spill");
    REQUIRE(dir);
    spill *s = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(spill_open(dir, &s, &err) == HEW_OK);
    CHECK_INT(entries(dir), 0);
    char block[4096];
    for (int i = 0; i < 700; i++) { /* 2.8 MB in blocks that each say where they are */
        memset(block, 'a' + i % 26, sizeof block);
        CHECK_INT(spill_append(s, block, sizeof block, &err), HEW_OK);
    }
    CHECK_INT(spill_size(s), 700 * 4096);
    buf out = BUF_INIT(0);
    buf_puts(&out, ">");
    CHECK_INT(spill_read(s, 4096 * 27 - 2, 5, &out, &err), HEW_OK);
    CHECK_STR(out.data, ">aabbb"); /* the end of block 26 ('a'), the start of 27 ('b') */
    buf_reset(&out);
    CHECK_INT(spill_read(s, 700 * 4096 - 3, 100, &out, &err), HEW_OK);
    CHECK_INT(out.len, 3);
    buf_reset(&out);
    CHECK_INT(spill_read(s, 700 * 4096 + 5, 10, &out, &err), HEW_OK);
    CHECK_INT(out.len, 0);
    buf_release(&out);
    CHECK_INT(entries(dir), 0);
    spill_close(s);
    CHECK_INT(entries(dir), 0);
    CHECK_INT(spill_open("/nonexistent/hew-spill", &s, &err), HEW_E_IO);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "/nonexistent/hew-spill") != NULL);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    RUN(test_append_and_read_back);
    return check_report();
}
