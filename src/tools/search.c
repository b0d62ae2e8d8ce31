/* search — walk, then search files in parallel with one JIT-compiled PCRE2 pattern over
 * whole file buffers (see search.h). Never follows symlinks, never searches binary files,
 * never keeps more hits than asked. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tools/search.h"

#include <fcntl.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fsat.h"
#include "sys/walk.h"

#define SEARCH_THREADS_MAX 16
#define SEARCH_FILE_MAX ((size_t)1 << 30) /* larger files are skipped */
#define GLOB_ALTERNATIVES_MAX 64

static const uint32_t compile_options =
    PCRE2_MULTILINE | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;

static pcre2_code *compile(const char *regex, hew_err *err)
{
    int ecode = 0;
    PCRE2_SIZE eoff = 0;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, compile_options,
                                     &ecode, &eoff, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ecode, msg, sizeof msg);
        hew_err_set(err, HEW_E_INVALID, "invalid regular expression at offset %zu: %s",
                    (size_t)eoff, (const char *)msg);
        return NULL;
    }
    /* Without JIT (a platform without it) the interpreter still works, slower. */
    (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    return code;
}

hew_code search_check_regex(const char *regex, hew_err *err)
{
    pcre2_code *code = compile(regex, err);
    if (!code)
        return HEW_E_INVALID;
    pcre2_code_free(code);
    return HEW_OK;
}

/* ---- globs ------------------------------------------------------------------------------- */

/* Expand the first {a,b,...} group (recursively), calling fn for each alternative. */
static bool expand_braces(const char *g, bool (*fn)(void *, const char *), void *ud, int *budget)
{
    const char *open = NULL;
    for (const char *p = g; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == '{') {
            open = p;
            break;
        }
    }
    const char *close = NULL;
    if (open) {
        int depth = 0;
        for (const char *p = open; *p; p++) {
            if (*p == '\\' && p[1]) {
                p++;
                continue;
            }
            if (*p == '{')
                depth++;
            else if (*p == '}' && --depth == 0) {
                close = p;
                break;
            }
        }
    }
    if (!open || !close) {
        if (--*budget < 0)
            return false;
        return fn(ud, g);
    }
    size_t plen = (size_t)(open - g), slen = strlen(close + 1);
    const char *alt = open + 1;
    int depth = 0;
    for (const char *p = open + 1; p <= close; p++) {
        if (*p == '\\' && p < close) {
            p++;
            continue;
        }
        if (*p == '{')
            depth++;
        else if (*p == '}' && depth > 0 && p != close)
            depth--;
        else if ((*p == ',' && depth == 0) || p == close) {
            size_t alen = (size_t)(p - alt);
            char *s = malloc(plen + alen + slen + 1);
            if (!s)
                return false;
            memcpy(s, g, plen);
            memcpy(s + plen, alt, alen);
            memcpy(s + plen + alen, close + 1, slen + 1);
            bool r = expand_braces(s, fn, ud, budget);
            free(s);
            if (r)
                return true; /* matched: stop */
            if (*budget < 0)
                return false;
            alt = p + 1;
        }
    }
    return false;
}

typedef struct glob_probe {
    const char *rel;
    const char *base;
} glob_probe;

static bool probe_one(void *ud, const char *pat)
{
    const glob_probe *g = ud;
    while (pat[0] == '.' && pat[1] == '/')
        pat += 2;
    if (pat[0] == '/')
        pat++;
    return strchr(pat, '/') ? ignore_wildmatch(pat, g->rel, 0)
                            : ignore_wildmatch(pat, g->base, 0);
}

bool search_glob_match(const char *glob, const char *rel)
{
    if (!glob || !*glob || strcmp(glob, "*") == 0)
        return true;
    bool negate = glob[0] == '!';
    if (negate)
        glob++;
    const char *base = strrchr(rel, '/');
    glob_probe g = { rel, base ? base + 1 : rel };
    int budget = GLOB_ALTERNATIVES_MAX;
    bool m = expand_braces(glob, probe_one, &g, &budget);
    return negate ? !m : m;
}

/* ---- the search ---------------------------------------------------------------------------- */

typedef struct file_hits {
    search_hit *h;
    size_t n, cap;
} file_hits;

typedef struct file_list {
    char **v;
    size_t n, cap;
    const char *glob;
    bool oom;
} file_list;

static bool collect(void *ud, const char *rel)
{
    file_list *l = ud;
    if (!search_glob_match(l->glob, rel))
        return true;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 1024;
        char **nv = realloc(l->v, ncap * sizeof *nv);
        if (!nv) {
            l->oom = true;
            return false;
        }
        l->v = nv;
        l->cap = ncap;
    }
    if (!(l->v[l->n] = strdup(rel))) {
        l->oom = true;
        return false;
    }
    l->n++;
    return true;
}

typedef struct shared {
    const search_opts *o;
    const pcre2_code *code;
    int dirfd;
    file_list *files;
    file_hits *slots;
    atomic_size_t next;
    atomic_size_t found;
    atomic_ullong bytes;
    atomic_size_t searched;
    atomic_bool oom;
} shared;

static char *dup_line(const char *s, const char *e)
{
    if (e > s && e[-1] == '\r')
        e--;
    return strndup(s, (size_t)(e - s));
}

static bool add_hit(file_hits *fh, size_t file, size_t line, const char *data, size_t len,
                    size_t ls, size_t le)
{
    if (fh->n == fh->cap) {
        size_t ncap = fh->cap ? fh->cap * 2 : 8;
        search_hit *nh = realloc(fh->h, ncap * sizeof *nh);
        if (!nh)
            return false;
        fh->h = nh;
        fh->cap = ncap;
    }
    search_hit *h = &fh->h[fh->n];
    memset(h, 0, sizeof *h);
    h->file = file;
    h->line = line;
    h->text = dup_line(data + ls, data + le);
    if (ls > 0) {
        const char *pe = data + ls - 1; /* the '\n' ending the previous line */
        const char *ps = memrchr(data, '\n', (size_t)(pe - data));
        h->before = dup_line(ps ? ps + 1 : data, pe);
    }
    if (le < len) {
        const char *ns = data + le + 1;
        if ((size_t)(ns - data) < len) {
            const char *ne = memchr(ns, '\n', len - (size_t)(ns - data));
            h->after = dup_line(ns, ne ? ne : data + len);
        }
    }
    fh->n++;
    return h->text != NULL;
}

/* Search one buffer; every line with a match becomes a hit (at most cap). */
static bool search_buffer(const pcre2_code *code, pcre2_match_data *md, pcre2_match_context *mc,
                          const char *data, size_t len, size_t file, size_t cap, file_hits *fh)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    size_t pos = 0, counted_to = 0, line_no = 1;
    while (pos <= len && fh->n < cap) {
        int rc = pcre2_jit_match(code, (PCRE2_SPTR)data, len, pos, 0, md, mc);
        if (rc == PCRE2_ERROR_JIT_BADOPTION)
            rc = pcre2_match(code, (PCRE2_SPTR)data, len, pos, 0, md, mc);
        if (rc < 0)
            break;
        size_t ms = ov[0], me = ov[1];
        if (ms >= len && len > 0 && data[len - 1] == '\n')
            break; /* an empty match after the last line */
        /* pos is always the start of a line, so the line of the match starts after the
         * last newline between them. */
        const char *lsp = ms > pos ? memrchr(data + pos, '\n', ms - pos) : NULL;
        size_t ls = lsp ? (size_t)(lsp - data) + 1 : pos;
        const char *lep = memchr(data + ms, '\n', len - ms);
        size_t le = lep ? (size_t)(lep - data) : len;
        if (me > le) {
            /* The match runs past the end of its line: keep the line only if the regex
             * matches within it, as a line-oriented search would. */
            int r2 = pcre2_jit_match(code, (PCRE2_SPTR)(data + ls), le - ls, 0, 0, md, mc);
            if (r2 == PCRE2_ERROR_JIT_BADOPTION)
                r2 = pcre2_match(code, (PCRE2_SPTR)(data + ls), le - ls, 0, 0, md, mc);
            if (r2 < 0) {
                pos = le + 1;
                continue;
            }
        }
        /* Count the newlines up to this line. */
        for (const char *p = data + counted_to; (p = memchr(p, '\n', ls - (size_t)(p - data)));
             p++)
            line_no++;
        counted_to = ls;
        if (!add_hit(fh, file, line_no, data, len, ls, le))
            return false;
        if (le >= len)
            break;
        pos = le + 1;
    }
    return true;
}

static void *worker(void *arg)
{
    shared *sh = arg;
    const search_opts *o = sh->o;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(sh->code, NULL);
    pcre2_jit_stack *js = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    if (!md || !js || !mc) {
        atomic_store(&sh->oom, true);
        goto out;
    }
    pcre2_jit_stack_assign(mc, NULL, js);
    size_t cap = o->max_hits ? o->max_hits + 1 : SIZE_MAX;
    char *data = NULL;
    size_t bufcap = 0;
    for (;;) {
        if (o->abort && abort_is_set(o->abort))
            break;
        if (o->max_hits && atomic_load(&sh->found) > o->max_hits)
            break;
        size_t i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->files->n)
            break;
        /* Beneath the searched directory, through no symlink (a folder swapped for one
         * since the walk is refused); O_NONBLOCK: a FIFO put there is not waited for. */
        int fd = -1;
        if (fsat_open(sh->dirfd, sh->files->v[i], O_RDONLY | O_NONBLOCK | O_NOCTTY, 0, &fd,
                      NULL) != HEW_OK)
            continue;
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > SEARCH_FILE_MAX ||
            (o->file_ok && !o->file_ok(o->file_ok_ud, &st))) {
            close(fd);
            continue;
        }
        size_t want = (size_t)st.st_size + 4096, len = 0;
        if (want > bufcap) {
            char *nb = realloc(data, want);
            if (!nb) {
                close(fd);
                atomic_store(&sh->oom, true);
                break;
            }
            data = nb;
            bufcap = want;
        }
        for (;;) {
            if (len == bufcap) {
                if (bufcap >= SEARCH_FILE_MAX)
                    break;
                char *nb = realloc(data, bufcap * 2);
                if (!nb)
                    break;
                data = nb;
                bufcap *= 2;
            }
            ssize_t r = read(fd, data + len, bufcap - len);
            if (r <= 0)
                break;
            len += (size_t)r;
        }
        close(fd);
        atomic_fetch_add(&sh->searched, 1);
        atomic_fetch_add(&sh->bytes, len);
        if (len == 0 || memchr(data, '\0', len))
            continue; /* empty, or binary */
        if (!search_buffer(sh->code, md, mc, data, len, i, cap, &sh->slots[i])) {
            atomic_store(&sh->oom, true);
            break;
        }
        if (sh->slots[i].n)
            atomic_fetch_add(&sh->found, sh->slots[i].n);
    }
    free(data);
out:
    pcre2_match_context_free(mc);
    pcre2_jit_stack_free(js);
    pcre2_match_data_free(md);
    return NULL;
}

static void free_hit(search_hit *h)
{
    free(h->text);
    free(h->before);
    free(h->after);
}

hew_code search_run(const search_opts *o, search_result *r, hew_err *err)
{
    memset(r, 0, sizeof *r);
    pcre2_code *code = compile(o->regex, err);
    if (!code)
        return HEW_E_INVALID;
    file_list files = { .glob = o->glob };
    walk_opts wo = {
        .dir = o->dir,
        .root = o->root,
        .dir_rel = o->root ? (o->dir_rel ? o->dir_rel : "") : NULL,
        .gitignore = true,
        .skip_hidden = true,
        .cline = o->root ? o->cline : NULL,
        .abort = o->abort,
    };
    shared sh = { .o = o, .code = code, .files = &files, .dirfd = -1 };
    wo.dirfd_out = &sh.dirfd; /* the files are opened beneath what was walked */
    hew_code rc = walk_files(&wo, collect, &files, err);
    if (rc == HEW_OK && files.oom)
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory listing files to search");
    if (rc == HEW_OK) {
        sh.slots = calloc(files.n ? files.n : 1, sizeof *sh.slots);
        if (!sh.slots)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    if (rc == HEW_OK) {
        int nt = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
        if (nt < 1)
            nt = 1;
        if (nt > SEARCH_THREADS_MAX)
            nt = SEARCH_THREADS_MAX;
        if ((size_t)nt > files.n)
            nt = files.n ? (int)files.n : 1;
        pthread_t tids[SEARCH_THREADS_MAX];
        int started = 0;
        for (int t = 1; t < nt; t++)
            if (pthread_create(&tids[started], NULL, worker, &sh) == 0)
                started++;
        worker(&sh);
        for (int t = 0; t < started; t++)
            pthread_join(tids[t], NULL);
        if (atomic_load(&sh.oom))
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory while searching");
        else if (o->abort && abort_is_set(o->abort))
            rc = hew_err_set(err, HEW_E_ABORTED, "the search was stopped");
    }
    if (rc == HEW_OK) {
        /* Collate in file order up to max_hits. */
        size_t total = 0;
        for (size_t i = 0; i < files.n; i++)
            total += sh.slots[i].n;
        size_t keep = o->max_hits && total > o->max_hits ? o->max_hits : total;
        r->more = keep < total;
        r->hits = calloc(keep ? keep : 1, sizeof *r->hits);
        r->files = calloc(files.n ? files.n : 1, sizeof *r->files);
        if (!r->hits || !r->files)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        for (size_t i = 0; rc == HEW_OK && i < files.n && r->nhits < keep; i++) {
            file_hits *fh = &sh.slots[i];
            if (!fh->n)
                continue;
            size_t fi = r->nfiles++;
            r->files[fi] = files.v[i];
            files.v[i] = NULL;
            for (size_t k = 0; k < fh->n; k++) {
                if (r->nhits < keep) {
                    r->hits[r->nhits] = fh->h[k];
                    r->hits[r->nhits++].file = fi;
                } else {
                    free_hit(&fh->h[k]);
                }
            }
            fh->n = 0;
        }
        r->files_searched = atomic_load(&sh.searched);
        r->bytes_searched = atomic_load(&sh.bytes);
    }
    if (sh.slots) {
        for (size_t i = 0; i < files.n; i++) {
            for (size_t k = 0; k < sh.slots[i].n; k++)
                free_hit(&sh.slots[i].h[k]);
            free(sh.slots[i].h);
        }
        free(sh.slots);
    }
    if (sh.dirfd >= 0)
        close(sh.dirfd);
    for (size_t i = 0; i < files.n; i++)
        free(files.v[i]);
    free(files.v);
    pcre2_code_free(code);
    if (rc != HEW_OK)
        search_result_release(r);
    return rc;
}

void search_result_release(search_result *r)
{
    for (size_t i = 0; i < r->nhits; i++)
        free_hit(&r->hits[i]);
    free(r->hits);
    for (size_t i = 0; i < r->nfiles; i++)
        free(r->files[i]);
    free(r->files);
    memset(r, 0, sizeof *r);
}
