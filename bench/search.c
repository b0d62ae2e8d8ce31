/* bench/search — search_files' engine (tools/search) against ripgrep on the same generated
 * tree and pattern: 20 000 files, about 200 MB, with a .gitignore'd directory, hidden
 * files and binary files that both must skip. Checks that both find the same (file,
 * line) pairs, prints the times and the ratio, and exits non-zero on a mismatch. Without
 * `rg` on PATH it says so and only times hew.
 *
 * Usage: search [DIR] [REGEX]   (DIR defaults to $TMPDIR/hew-bench-search; the tree is
 * generated there once, deterministically, and reused). Must never delete anything but
 * the tree it generated. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fs.h"
#include "sys/proc.h"
#include "tools/search.h"

#define NFILES 20000
#define NDIRS 100
#define TARGET_BYTES ((size_t)200 * 1000 * 1000)
#define STAMP "tree-v1"

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *const words[] = {
    "static", "int", "return", "const", "char", "void", "struct", "buffer", "size_t",
    "if", "else", "for", "while", "the", "value", "count", "index", "result", "error",
    "handle", "request", "response", "parse", "token", "stream", "config", "file", "path",
    "=", "==", "+=", "(", ")", "{", "}", ";", "->", "0", "1", "42", "NULL", "true", "false",
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_or_die(const char *path, const char *data, size_t len)
{
    hew_err err = HEW_ERR_INIT;
    if (fs_write_atomic(path, data, len, 0644, &err) != HEW_OK) {
        fprintf(stderr, "search: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int generate(const char *dir)
{
    char path[4096 + 64]; /* room for the names appended to dir (up to 4096) */
    snprintf(path, sizeof path, "%s/.stamp", dir);
    char *stamp = NULL;
    if (fs_read_file(path, 64, &stamp, NULL, NULL) == HEW_OK && strcmp(stamp, STAMP) == 0) {
        free(stamp);
        return 0;
    }
    free(stamp);
    fprintf(stderr, "search: generating the tree in %s ...\n", dir);
    if (fs_mkdirs(dir, 0755, NULL) != HEW_OK)
        return -1;
    buf b = BUF_INIT(0);
    size_t per_file = TARGET_BYTES / NFILES;
    size_t nwords = sizeof words / sizeof words[0];
    for (int f = 0; f < NFILES; f++) {
        int d = f % NDIRS;
        snprintf(path, sizeof path, "%s/src/mod%02d/sub%d", dir, d, (f / NDIRS) % 4);
        if (fs_mkdirs(path, 0755, NULL) != HEW_OK)
            return -1;
        buf_reset(&b);
        size_t lines = 0;
        while (b.len < per_file) {
            int nw = 3 + (int)(next_rand() % 12);
            for (int k = 0; k < (int)(next_rand() % 3); k++)
                buf_puts(&b, "    ");
            for (int w = 0; w < nw; w++) {
                buf_puts(&b, words[next_rand() % nwords]);
                buf_putc(&b, ' ');
            }
            uint64_t r = next_rand() % 1000;
            if (r == 7)
                buf_printf(&b, "hew_needle_%u_x", (unsigned)(next_rand() % 100000));
            else if (r == 8)
                buf_printf(&b, "hew_needle_%u_y", (unsigned)(next_rand() % 100000));
            buf_putc(&b, '\n');
            lines++;
        }
        const char *ext = f % 3 == 0 ? "c" : f % 3 == 1 ? "h" : "txt";
        snprintf(path, sizeof path, "%s/src/mod%02d/sub%d/file%05d.%s", dir, d, (f / NDIRS) % 4, f,
                 ext);
        if (write_or_die(path, b.data, b.len))
            return -1;
    }
    /* Things both searchers must skip: an ignored directory, hidden files, binaries. */
    const char *needle = "hew_needle_1_x\n";
    snprintf(path, sizeof path, "%s/ignored", dir);
    fs_mkdirs(path, 0755, NULL);
    snprintf(path, sizeof path, "%s/ignored/a.c", dir);
    write_or_die(path, needle, strlen(needle));
    snprintf(path, sizeof path, "%s/.hidden", dir);
    fs_mkdirs(path, 0755, NULL);
    snprintf(path, sizeof path, "%s/.hidden/a.c", dir);
    write_or_die(path, needle, strlen(needle));
    snprintf(path, sizeof path, "%s/.gitignore", dir);
    write_or_die(path, "ignored/\n*.bin\n", 15);
    for (int i = 0; i < 20; i++) {
        char bin[256];
        memset(bin, 0, sizeof bin);
        memcpy(bin + 10, needle, strlen(needle));
        snprintf(path, sizeof path, "%s/src/blob%02d.dat", dir, i);
        write_or_die(path, bin, sizeof bin);
    }
    buf_release(&b);
    snprintf(path, sizeof path, "%s/.stamp", dir);
    return write_or_die(path, STAMP, strlen(STAMP));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "path:line" keys, sorted; *n gets the count. */
static char **keys_from_hew(const search_result *r, size_t *n)
{
    char **k = calloc(r->nhits + 1, sizeof *k);
    for (size_t i = 0; i < r->nhits; i++) {
        buf b = BUF_INIT(0);
        buf_printf(&b, "%s:%zu", r->files[r->hits[i].file], r->hits[i].line);
        k[i] = buf_detach(&b, NULL);
    }
    qsort(k, r->nhits, sizeof *k, cmp_str);
    *n = r->nhits;
    return k;
}

static char **keys_from_rg(char *out, size_t len, size_t *n)
{
    size_t cap = 1024, cnt = 0;
    char **k = malloc(cap * sizeof *k);
    char *p = out, *end = out + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        *nl = '\0';
        /* path:line:text — paths have no ':' in the generated tree */
        char *c1 = strchr(p, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c1 && c2) {
            *c2 = '\0';
            if (cnt == cap)
                k = realloc(k, (cap *= 2) * sizeof *k);
            const char *path = p[0] == '.' && p[1] == '/' ? p + 2 : p;
            k[cnt++] = strdup(path);
        }
        p = nl + 1;
    }
    qsort(k, cnt, sizeof *k, cmp_str);
    *n = cnt;
    return k;
}

static void free_keys(char **k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i]);
    free(k);
}

static bool have_rg(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char *copy = strdup(path);
    bool found = false;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char p[4096];
        snprintf(p, sizeof p, "%s/rg", d);
        found = access(p, X_OK) == 0;
    }
    free(copy);
    return found;
}

int main(int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    char def[4096];
    snprintf(def, sizeof def, "%s/hew-bench-search", tmp && *tmp ? tmp : "/tmp");
    const char *dir = argc > 1 ? argv[1] : def;
    const char *regex = argc > 2 ? argv[2] : "hew_needle_[0-9]+_x";
    if (argc <= 1 && generate(dir) != 0)
        return 2;

    /* hew: best of 3 */
    search_result r = SEARCH_RESULT_INIT;
    double best = 1e9;
    for (int run = 0; run < 3; run++) {
        search_result_release(&r);
        hew_err err = HEW_ERR_INIT;
        search_opts o = { .dir = dir, .root = dir, .dir_rel = "", .regex = regex };
        double t0 = now();
        if (search_run(&o, &r, &err) != HEW_OK) {
            fprintf(stderr, "search: hew failed: %s\n", err.msg);
            return 2;
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    printf("hew:  %zu hits in %zu files (%zu files searched, %.1f MB) — best of 3: %.3f s\n",
           r.nhits, r.nfiles, r.files_searched, (double)r.bytes_searched / 1e6, best);

    if (!have_rg()) {
        printf("rg:   not found on PATH — skipped (install ripgrep to compare)\n");
        search_result_release(&r);
        return 0;
    }
    const char *argv_rg[] = { "rg", "--no-config", "--no-require-git", "-n", "-H",
                              "--no-heading", "--color", "never", "-e", regex, ".", NULL };
    double rbest = 1e9;
    buf out = BUF_INIT((size_t)256 << 20);
    for (int run = 0; run < 3; run++) {
        buf_reset(&out);
        proc_opts po = { .argv = argv_rg, .cwd = dir, .separate_stderr = true };
        proc_status st;
        hew_err err = HEW_ERR_INIT;
        double t0 = now();
        if (proc_run(&po, &out, NULL, &st, &err) != HEW_OK) {
            fprintf(stderr, "search: rg failed to start: %s\n", err.msg);
            return 2;
        }
        double t = now() - t0;
        if (t < rbest)
            rbest = t;
    }
    size_t nh = 0, nr = 0;
    char **kh = keys_from_hew(&r, &nh);
    char **kr = keys_from_rg(out.data ? out.data : "", out.len, &nr);
    printf("rg:   %zu hits — best of 3: %.3f s\n", nr, rbest);
    printf("ratio hew/rg: %.2f\n", best / rbest);
    int rc = 0;
    if (nh != nr) {
        printf("MISMATCH: hew found %zu hits, rg %zu\n", nh, nr);
        rc = 1;
    }
    for (size_t i = 0, j = 0; i < nh || j < nr;) {
        int c = i == nh ? 1 : j == nr ? -1 : strcmp(kh[i], kr[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        rc = 1;
        printf("MISMATCH: only %s: %s\n", c < 0 ? "hew" : "rg", c < 0 ? kh[i] : kr[j]);
        if (c < 0)
            i++;
        else
            j++;
    }
    if (!rc)
        printf("same matches: yes\n");
    free_keys(kh, nh);
    free_keys(kr, nr);
    buf_release(&out);
    search_result_release(&r);
    return rc;
}
