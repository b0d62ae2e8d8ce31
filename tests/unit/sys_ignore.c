/* Unit tests of the gitignore matcher (sys/ignore): the wildcard table and the
 * gitignore cases kept as data in tests/fixtures/ignore/, and .clineignore loading with
 * `!include`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "check.h"
#include "tmpdir.h"
#include "sys/ignore.h"

static char *slurp(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/ignore/%s", HEW_TEST_FIXTURES, name);
    char *text = NULL;
    size_t len = 0;
    if (fs_read_file(path, 1 << 20, &text, &len, NULL) != HEW_OK)
        return NULL;
    return text;
}

/* Split text into lines in place; returns the count (at most max). */
static size_t split_lines(char *text, char **lines, size_t max)
{
    size_t n = 0;
    for (char *p = text; p && *p && n < max;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lines[n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    return n;
}

static void test_wildmatch_table(void)
{
    char *text = slurp("wildmatch.txt");
    REQUIRE(text != NULL);
    char *lines[512];
    size_t n = split_lines(text, lines, 512);
    int cases = 0;
    for (size_t i = 0; i < n; i++) {
        char *line = lines[i];
        if (line[0] == '#' || line[0] == '\0')
            continue;
        int flags = 0;
        if (line[0] == 'i') {
            flags = IGNORE_ICASE;
            line++;
        }
        char *sp1 = strchr(line, ' ');
        char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
        REQUIRE(sp1 && sp2);
        *sp1 = *sp2 = '\0';
        bool want = line[0] == '1';
        bool got = ignore_wildmatch(sp2 + 1, sp1 + 1, flags);
        check_count++;
        if (got != want)
            check_fail(__FILE__, __LINE__, "wildmatch('%s', '%s') = %d, want %d", sp2 + 1,
                       sp1 + 1, got, want);
        cases++;
    }
    CHECK(cases > 50);
    free(text);
}

typedef struct nested {
    char base[256];
    ignore *ig;
} nested;

static void run_case(const char *name, char **lines, size_t n)
{
    ignore *root = ignore_new(NULL, "", 0);
    nested sets[8];
    size_t nsets = 0;
    ignore *cur = root;
    size_t i = 0;
    for (; i < n && strcmp(lines[i], "--") != 0; i++) {
        if (lines[i][0] == '@') {
            if (lines[i][1] == ' ') {
                snprintf(sets[nsets].base, sizeof sets[nsets].base, "%s", lines[i] + 2);
                sets[nsets].ig = ignore_new(root, sets[nsets].base, 0);
                cur = sets[nsets++].ig;
            } else {
                cur = root;
            }
            continue;
        }
        CHECK_INT(ignore_add_line(cur, lines[i], NULL), HEW_OK);
    }
    for (i++; i < n; i++) {
        const char *l = lines[i];
        bool want;
        if (strncmp(l, "ignored ", 8) == 0) {
            want = true;
            l += 8;
        } else if (strncmp(l, "kept ", 5) == 0) {
            want = false;
            l += 5;
        } else {
            continue;
        }
        const ignore *chain = root;
        for (size_t k = 0; k < nsets; k++) {
            size_t bl = strlen(sets[k].base);
            if (strncmp(l, sets[k].base, bl) == 0 && l[bl] == '/')
                chain = sets[k].ig;
        }
        size_t len = strlen(l);
        bool is_dir = len > 1 && l[len - 1] == '/';
        bool got = ignore_match(chain, l, is_dir);
        check_count++;
        if (got != want)
            check_fail(__FILE__, __LINE__, "case '%s': '%s' %s, want %s", name, l,
                       got ? "ignored" : "kept", want ? "ignored" : "kept");
    }
    for (size_t k = 0; k < nsets; k++)
        ignore_free(sets[k].ig);
    ignore_free(root);
}

static void test_gitignore_cases(void)
{
    char *text = slurp("gitignore.txt");
    REQUIRE(text != NULL);
    char *all[1024];
    size_t n = split_lines(text, all, 1024);
    int cases = 0;
    for (size_t i = 0; i < n;) {
        if (strncmp(all[i], "== ", 3) != 0) {
            i++;
            continue;
        }
        const char *name = all[i] + 3;
        char *lines[256];
        size_t k = 0;
        for (i++; i < n && strncmp(all[i], "== ", 3) != 0; i++)
            if (all[i][0] && all[i][0] != '#' && k < 256)
                lines[k++] = all[i];
        run_case(name, lines, k);
        cases++;
    }
    CHECK(cases >= 18);
    free(text);
}

static void write_file(const char *dir, const char *name, const char *content)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK_INT(fs_write_atomic(path, content, strlen(content), 0644, NULL), HEW_OK);
}

static void test_clineignore_with_include(void)
{
    char *dir = tmpdir_make("ignore");
    REQUIRE(dir != NULL);
    write_file(dir, ".clineignore", "# secrets\n.env\nsecrets/\n!include more.ignore\n"
                                    "!include ../outside.ignore\n!include missing.ignore\n");
    write_file(dir, "more.ignore", "*.PEM\n");
    ignore *ig = NULL;
    CHECK_INT(ignore_load_cline(dir, &ig, NULL), HEW_OK);
    REQUIRE(ig != NULL);
    CHECK(ignore_match(ig, ".env", false));
    CHECK(ignore_match(ig, "secrets/key", false));
    CHECK(ignore_match(ig, "certs/server.pem", false)); /* included, case-insensitive */
    CHECK(ignore_match(ig, ".clineignore", false));     /* always */
    CHECK(!ignore_match(ig, "src/main.c", false));
    CHECK(!ignore_match(ig, "", true));
    CHECK(!ignore_match(ig, ".", true));
    ignore_free(ig);

    /* No file: only the file itself is ignored. */
    char path[1024];
    snprintf(path, sizeof path, "%s/.clineignore", dir);
    CHECK_INT(unlink(path), 0);
    CHECK_INT(ignore_load_cline(dir, &ig, NULL), HEW_OK);
    CHECK(ignore_match(ig, ".clineignore", false));
    CHECK(!ignore_match(ig, ".env", false));
    ignore_free(ig);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    RUN(test_wildmatch_table);
    RUN(test_gitignore_cases);
    RUN(test_clineignore_with_include);
    return check_report();
}
