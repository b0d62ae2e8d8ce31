/* tools/udiff against git: on generated files of 1 to 100,000 lines (unique lines, so that
 * every shortest edit script is the same one) with lines changed, added and removed
 * here and there, hew's hunks are git diff --no-index's, byte for byte once git's short
 * headers ("-5" for "-5,1") and function context are written hew's way; and on every
 * case, also a total rewrite and files of repeated lines (where scripts may differ),
 * applying hew's diff to the old text gives the new one. Skipped (exit 77) without git. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sys/proc.h"
#include "tmpdir.h"
#include "tools/udiff.h"

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* git's hunks as hew writes them: from the first "@@", headers with both counts and
 * nothing after the closing "@@". */
static void normalise_git(const char *g, size_t n, buf *out)
{
    const char *p = strstr(g, "\n@@ ");
    if (!p)
        return;
    p++;
    const char *end = g + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (len > 3 && strncmp(p, "@@ ", 3) == 0) {
            long a, b = 1, c, d = 1;
            const char *q = p + 4; /* after "@@ -" */
            char *e;
            a = strtol(q, &e, 10);
            if (*e == ',')
                b = strtol(e + 1, &e, 10);
            c = strtol(e + 2, &e, 10); /* " +" */
            if (*e == ',')
                d = strtol(e + 1, &e, 10);
            buf_printf(out, "@@ -%ld,%ld +%ld,%ld @@\n", a, b, c, d);
        } else {
            buf_append(out, p, len);
        }
        p += len;
    }
}

/* Apply hunks (hew's format) to a; the result into out. false when they do not fit. */
static bool apply(const char *a, const char *diff, buf *out)
{
    const char *ap = a, *d = diff;
    size_t aline = 0;
    while (*d) {
        long a0, an, b0, bn;
        if (sscanf(d, "@@ -%ld,%ld +%ld,%ld @@", &a0, &an, &b0, &bn) != 4)
            return false;
        long start = an ? a0 - 1 : a0;
        while ((long)aline < start) { /* copy the lines before the hunk */
            const char *nl = strchr(ap, '\n');
            if (!nl)
                return false;
            buf_append(out, ap, (size_t)(nl - ap) + 1);
            ap = nl + 1;
            aline++;
        }
        d = strchr(d, '\n') + 1;
        while (*d && *d != '@') {
            const char *nl = strchr(d, '\n');
            size_t len = (size_t)(nl - d);
            bool cut = strncmp(nl + 1, "\\ No newline", 12) == 0;
            if (*d == ' ' || *d == '-') { /* the old line must be there */
                size_t al = strcspn(ap, "\n");
                if (al != len - 1 || memcmp(ap, d + 1, al) != 0)
                    return false;
                ap += al + (ap[al] == '\n');
                aline++;
            }
            if (*d == ' ' || *d == '+')
                buf_append(out, d + 1, len - 1 + !cut);
            d = nl + 1;
            if (cut)
                d = strchr(d, '\n') + 1;
        }
    }
    buf_puts(out, ap);
    return true;
}

static bool have_git;

static void check_case(const char *dir, const buf *a, const buf *b, bool against_git)
{
    buf mine = BUF_INIT(0);
    udiff_make(a->data, a->len, b->data, b->len, &mine);
    REQUIRE(!mine.err);
    buf back = BUF_INIT(0);
    CHECK(apply(a->data ? a->data : "", mine.data ? mine.data : "", &back));
    CHECK(back.len == b->len && memcmp(back.data ? back.data : "", b->data ? b->data : "",
                                       b->len) == 0);
    if (against_git && have_git) {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/a", dir);
        snprintf(pb, sizeof pb, "%s/b", dir);
        FILE *f = fopen(pa, "wb");
        fwrite(a->data ? a->data : "", 1, a->len, f);
        fclose(f);
        f = fopen(pb, "wb");
        fwrite(b->data ? b->data : "", 1, b->len, f);
        fclose(f);
        const char *argv[] = { "git", "diff", "--no-index", "--no-color", "--no-ext-diff",
                               "-U3", "a", "b", NULL };
        proc_opts po = { .argv = argv, .cwd = dir };
        buf git = BUF_INIT((size_t)256 << 20);
        proc_status st;
        hew_err err = HEW_ERR_INIT;
        bool cut = false;
        REQUIRE(proc_run(&po, &git, &cut, &st, &err) == HEW_OK);
        buf norm = BUF_INIT(0);
        normalise_git(git.data ? git.data : "", git.len, &norm);
        CHECK_INT(norm.len, mine.len);
        CHECK(norm.len == mine.len &&
              memcmp(norm.data ? norm.data : "", mine.data ? mine.data : "", mine.len) == 0);
        buf_release(&norm);
        buf_release(&git);
    }
    buf_release(&back);
    buf_release(&mine);
}

static void test_against_git(void)
{
    char *dir = tmpdir_make("udiff-git");
    REQUIRE(dir);
    static const size_t sizes[] = { 1, 2, 7, 100, 2100, 10000, 100000 };
    unsigned seed = 7;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        buf a = BUF_INIT(0), b = BUF_INIT(0);
        size_t edits = n / 400 + 2, fresh = 0;
        for (size_t i = 0; i < n; i++) {
            size_t at = a.len;
            buf_printf(&a, "line %zu of %zu: %u\n", i, n, rnd(&seed));
            unsigned r = rnd(&seed) % (n / edits + 1);
            const char *line = a.data + at;
            if (r == 0) /* changed */
                buf_printf(&b, "changed %zu\n", fresh++);
            else if (r == 1) /* removed */
                ;
            else if (r == 2) { /* another line added before it */
                buf_printf(&b, "added %zu\n", fresh++);
                buf_append(&b, line, (size_t)(a.data + a.len - line));
            } else
                buf_append(&b, line, (size_t)(a.data + a.len - line));
        }
        /* sometimes the last line loses its newline */
        if (s % 2 && b.len)
            buf_truncate(&b, b.len - 1);
        check_case(dir, &a, &b, true);
        buf_release(&a);
        buf_release(&b);
    }
    /* the 2,100-line file with two one-line changes of the issue: two small hunks */
    buf a = BUF_INIT(0), b = BUF_INIT(0);
    for (int i = 0; i < 2100; i++) {
        buf_printf(&a, "row %d\n", i);
        buf_printf(&b, i == 5 || i == 2095 ? "ROW %d\n" : "row %d\n", i);
    }
    buf mine = BUF_INIT(0);
    udiff_make(a.data, a.len, b.data, b.len, &mine);
    size_t lines = 0;
    for (size_t i = 0; i < mine.len; i++)
        lines += mine.data[i] == '\n';
    CHECK_INT(lines, 2 * (1 + 3 + 2 + 3));
    check_case(dir, &a, &b, true);
    buf_release(&mine);
    buf_release(&a);
    buf_release(&b);
    /* a total rewrite of 30,000 lines and files of repeated lines: the diff applies */
    buf x = BUF_INIT(0), y = BUF_INIT(0);
    for (int i = 0; i < 30000; i++) {
        buf_printf(&x, "old %d\n", i);
        buf_printf(&y, "new %d\n", i);
    }
    check_case(dir, &x, &y, false);
    buf_reset(&x);
    buf_reset(&y);
    for (int i = 0; i < 5000; i++) {
        buf_puts(&x, rnd(&seed) % 3 ? "}\n" : "\n");
        buf_puts(&y, rnd(&seed) % 3 ? "}\n" : "\n");
    }
    check_case(dir, &x, &y, false);
    buf_release(&x);
    buf_release(&y);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    const char *argv[] = { "git", "--version", NULL };
    proc_opts po = { .argv = argv };
    buf out = BUF_INIT(4096);
    proc_status st;
    hew_err err = HEW_ERR_INIT;
    have_git = proc_run(&po, &out, NULL, &st, &err) == HEW_OK && st.exit_code == 0;
    buf_release(&out);
    if (!have_git) {
        fprintf(stderr, "tools_udiff_git: git is not installed: comparing with it skipped\n");
        return 77;
    }
    RUN(test_against_git);
    return check_report();
}
