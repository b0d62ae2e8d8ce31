/* walk — sorted directory reads and the ignore-aware depth-first file walk (see walk.h).
 * Never follows symlinks (directories are opened from their parent's descriptor), never
 * reads files other than .gitignore. */
#include "sys/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/fsat.h"

#define WALK_DEPTH_MAX 200                       /* deeper directories are not entered */
#define WALK_GITIGNORE_MAX ((size_t)1 << 20)     /* larger .gitignore files are refused */

static int cmp_ent(const void *a, const void *b)
{
    return strcmp(((const walk_ent *)a)->name, ((const walk_ent *)b)->name);
}

void walk_ents_free(walk_ent *ents, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ents[i].name);
    free(ents);
}

static hew_code list_error(hew_err *err, int e, const char *dir)
{
    return hew_err_set(err, e == ENOENT ? HEW_E_NOTFOUND : e == ENOTDIR ? HEW_E_INVALID : HEW_E_IO,
                       "cannot list %s: %s", dir, strerror(e));
}

hew_code walk_readdir(const char *dir, walk_ent **ents, size_t *count, hew_err *err)
{
    *ents = NULL;
    *count = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return list_error(err, errno, dir);
    hew_code rc = walk_readdir_fd(fd, dir, ents, count, err);
    close(fd);
    return rc;
}

hew_code walk_readdir_fd(int dirfd, const char *dir, walk_ent **ents, size_t *count,
                         hew_err *err)
{
    *ents = NULL;
    *count = 0;
    /* fdopendir takes the descriptor: give it its own, reading from the start. */
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return list_error(err, e, dir);
    }
    walk_ent *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    hew_code rc = HEW_OK;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
            continue;
        walk_kind kind;
        unsigned char t = de->d_type;
        if (t == DT_UNKNOWN) {
            struct stat st;
            if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            t = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG
                : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
        }
        kind = t == DT_DIR ? WALK_DIR : t == DT_REG ? WALK_FILE : t == DT_LNK ? WALK_LINK : WALK_OTHER;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            walk_ent *nv = realloc(v, ncap * sizeof *nv);
            if (!nv) {
                rc = hew_err_set(err, HEW_E_NOMEM, "out of memory listing %s", dir);
                break;
            }
            v = nv;
            cap = ncap;
        }
        v[n].name = strdup(name);
        if (!v[n].name) {
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory listing %s", dir);
            break;
        }
        v[n++].kind = kind;
    }
    closedir(d);
    if (rc != HEW_OK) {
        walk_ents_free(v, n);
        return rc;
    }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_ent);
    *ents = v;
    *count = n;
    return HEW_OK;
}

hew_code walk_open_dir(const char *root, const char *dir_rel, const char *dir, int *fd,
                       hew_err *err)
{
    *fd = -1;
    const char *rel;
    int base = -1;
    hew_code rc;
    if (root && dir_rel) {
        rel = *dir_rel ? dir_rel : ".";
        rc = fsat_base_open(root, &base, err);
    } else {
        if (!dir || dir[0] != '/')
            return hew_err_set(err, HEW_E_INVALID, "cannot list %s: not an absolute path",
                               dir ? dir : "(none)");
        rel = dir[1] ? dir + 1 : ".";
        rc = fsat_base_open("/", &base, err);
    }
    if (rc == HEW_OK)
        rc = fsat_open(base, rel, O_RDONLY | O_DIRECTORY, 0, fd, err);
    if (base >= 0)
        close(base);
    return rc;
}

hew_code walk_gitignore_at(const ignore *parent, int dirfd, const char *base, ignore **out,
                           hew_err *err)
{
    *out = NULL;
    int fd = -1;
    struct stat st;
    if (fsat_open_file(dirfd, ".gitignore", &fd, &st, NULL) != HEW_OK || fd < 0)
        return HEW_OK; /* none (or not a file): nothing to add */
    char *text = NULL;
    size_t len = 0;
    hew_code rc = fs_read_fd(fd, ".gitignore", WALK_GITIGNORE_MAX, &text, &len, err);
    close(fd);
    if (rc != HEW_OK)
        return rc;
    return ignore_new_text(parent, base, text, len, out, err);
}

hew_code walk_gitignore_chain(const char *root, const char *start_rel, ignore **chain,
                              hew_err *err)
{
    *chain = NULL;
    ignore *top = NULL, *next = NULL;
    int rootfd = -1;
    hew_code rc = walk_open_dir(root, "", NULL, &rootfd, err);
    if (rc != HEW_OK)
        return rc == HEW_E_NOMEM ? rc : HEW_OK; /* no root to read: no rules */
    rc = walk_gitignore_at(NULL, rootfd, "", &top, err);
    if (rc == HEW_OK && start_rel && *start_rel && strcmp(start_rel, ".") != 0) {
        char *base = strdup(start_rel);
        if (!base)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        for (char *s = base; rc == HEW_OK; s++) {
            if (*s != '/' && *s != '\0')
                continue;
            char c = *s;
            *s = '\0';
            int dfd = -1;
            if (fsat_open(rootfd, base, O_RDONLY | O_DIRECTORY, 0, &dfd, NULL) == HEW_OK) {
                rc = walk_gitignore_at(top, dfd, base, &next, err);
                close(dfd);
                if (rc == HEW_OK && next)
                    top = next;
            }
            if (c == '\0')
                break;
            *s = c;
        }
        free(base);
    }
    close(rootfd);
    if (rc != HEW_OK) {
        walk_gitignore_chain_free(top);
        return rc;
    }
    *chain = top;
    return HEW_OK;
}

void walk_gitignore_chain_free(ignore *chain)
{
    ignore_free_chain(chain);
}

/* ---- the depth-first walk ---------------------------------------------------------------- */

typedef struct walker {
    const walk_opts *o;
    walk_file_fn fn;
    void *ud;
    buf rel;  /* path relative to o->dir ("" at the top) */
    buf ipath; /* path relative to the ignore base (root, or dir when outside) */
    int depth;
    bool stop;
} walker;

static bool skip_named(const walk_opts *o, const char *name)
{
    if (!o->skip_dirs)
        return false;
    for (const char *const *s = o->skip_dirs; *s; s++)
        if (strcmp(*s, name) == 0)
            return true;
    return false;
}

/* Is the entry excluded? ipath is its path for the ignore rules. */
static bool excluded(const walker *w, const ignore *git, const char *name, const char *ipath,
                     bool is_dir)
{
    const walk_opts *o = w->o;
    if (o->skip_hidden && name[0] == '.')
        return true;
    if (is_dir && skip_named(o, name))
        return true;
    if (git && ignore_decide(git, ipath, is_dir) == 1)
        return true;
    /* .clineignore: decided per entry, so a parent it ignores was never entered. */
    if (o->cline && o->root && ignore_decide(o->cline, ipath, is_dir) == 1)
        return true;
    return false;
}

/* Walk the directory dirfd (w->rel names it). */
static hew_code walk_dir(walker *w, int dirfd, const ignore *git, hew_err *err)
{
    const walk_opts *o = w->o;
    if (o->abort && abort_is_set(o->abort))
        return hew_err_set(err, HEW_E_ABORTED, "the search was stopped");
    ignore *own = NULL;
    if (o->gitignore && w->rel.len) {
        /* This directory's own .gitignore (the start directory's is in the chain). */
        hew_err e2 = HEW_ERR_INIT;
        const char *base = w->ipath.data ? w->ipath.data : "";
        if (walk_gitignore_at(git, dirfd, base, &own, &e2) == HEW_OK && own)
            git = own;
    }
    walk_ent *ents = NULL;
    size_t n = 0;
    hew_err lerr = HEW_ERR_INIT;
    if (walk_readdir_fd(dirfd, w->rel.data ? w->rel.data : ".", &ents, &n, &lerr) != HEW_OK) {
        ignore_free(own);
        return lerr.code == HEW_E_NOMEM ? hew_err_set(err, HEW_E_NOMEM, "%s", lerr.msg) : HEW_OK;
    }
    hew_code rc = HEW_OK;
    size_t rlen = w->rel.len, ilen = w->ipath.len;
    for (size_t i = 0; i < n && rc == HEW_OK && !w->stop; i++) {
        const walk_ent *e = &ents[i];
        if (e->kind != WALK_FILE && e->kind != WALK_DIR)
            continue; /* links, devices, sockets */
        bool is_dir = e->kind == WALK_DIR;
        if (w->rel.len)
            buf_putc(&w->rel, '/');
        buf_puts(&w->rel, e->name);
        if (w->ipath.len)
            buf_putc(&w->ipath, '/');
        buf_puts(&w->ipath, e->name);
        if (w->rel.err || w->ipath.err) {
            rc = hew_err_set(err, HEW_E_NOMEM, "path too long or out of memory in the walk");
            break;
        }
        if (!excluded(w, git, e->name, w->ipath.data, is_dir)) {
            if (!is_dir) {
                if (!w->fn(w->ud, w->rel.data))
                    w->stop = true;
            } else if (w->depth < WALK_DEPTH_MAX) {
                /* From this directory's descriptor, never through a symlink. */
                int sub = openat(dirfd, e->name,
                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0) {
                    w->depth++;
                    rc = walk_dir(w, sub, git, err);
                    w->depth--;
                    close(sub);
                }
            }
        }
        buf_truncate(&w->rel, rlen);
        buf_truncate(&w->ipath, ilen);
    }
    walk_ents_free(ents, n);
    ignore_free(own);
    return rc;
}

hew_code walk_files(const walk_opts *o, walk_file_fn fn, void *ud, hew_err *err)
{
    if (o->dirfd_out)
        *o->dirfd_out = -1;
    walker w = { o, fn, ud, BUF_INIT(1 << 16), BUF_INIT(1 << 16), 0, false };
    ignore *chain = NULL;
    bool inside = o->root && o->dir_rel;
    int dirfd = -1;
    hew_code rc = walk_open_dir(inside ? o->root : NULL, inside ? o->dir_rel : NULL, o->dir,
                                &dirfd, err);
    if (rc != HEW_OK)
        return rc;
    if (o->gitignore)
        rc = inside ? walk_gitignore_chain(o->root, o->dir_rel, &chain, err)
                    : walk_gitignore_at(NULL, dirfd, "", &chain, err);
    if (rc == HEW_OK) {
        if (inside && *o->dir_rel && strcmp(o->dir_rel, ".") != 0)
            buf_puts(&w.ipath, o->dir_rel);
        buf_puts(&w.rel, "");
        buf_puts(&w.ipath, "");
        rc = walk_dir(&w, dirfd, chain, err);
    }
    walk_gitignore_chain_free(chain);
    buf_release(&w.rel);
    buf_release(&w.ipath);
    if (o->dirfd_out && rc == HEW_OK)
        *o->dirfd_out = dirfd;
    else
        close(dirfd);
    return rc;
}
