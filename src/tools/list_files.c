/* list_files — the files and directories of a directory, one level or recursively
 * (breadth-first, so a capped list still shows the upper levels), sorted so that each
 * directory's content follows it, directories marked with '/'. At most 200 entries, with
 * a notice when the cap is hit. It must never enter what .gitignore excludes, the usual
 * dependency and build folders, hidden directories or symlinked directories (each
 * directory is opened beneath the listed one with no symlink followed: base/fsat.h), and
 * never show more than the name of a path .clineignore blocks (marked with a lock). */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsat.h"
#include "base/path.h"
#include "tools/walk.h"
#include "tools/workspace.h"

#define LIST_MAX 200
#define LOCK "\xf0\x9f\x94\x92" /* 🔒 */

static const tool_param params[] = {
    { "path", true,
      "The directory to list, relative to the current working directory.",
      "Directory path here", NULL },
    { "recursive", false,
      "'true' to list the subdirectories' content too; otherwise only the top level.",
      "true or false (optional)", NULL },
};

/* Directories listed but not entered by a recursive listing (Cline's list). */
static const char *const skip_dirs[] = {
    "node_modules", "__pycache__", "env", "venv", "dist", "out", "bundle", "vendor", "tmp",
    "temp", "deps", "pkg", "Pods", NULL,
};

static bool skipped_dir(const char *parent_name, const char *name)
{
    for (const char *const *s = skip_dirs; *s; s++)
        if (strcmp(*s, name) == 0)
            return true;
    if (name[0] == '.')
        return true;
    return (strcmp(name, "dependency") == 0 && parent_name && strcmp(parent_name, "target") == 0) ||
           (strcmp(name, "dependencies") == 0 && parent_name && strcmp(parent_name, "build") == 0);
}

typedef struct entry {
    char *rel;    /* relative to the listed directory; directories end with '/' */
    bool locked;  /* .clineignore blocks it */
} entry;

typedef struct pending {
    char *rel;     /* directory relative to the listed one, with a trailing '/' */
    ignore *git;   /* .gitignore rules in force inside it (owned by the lister) */
} pending;

typedef struct lister {
    const char *abs;       /* the listed directory */
    int dirfd;             /* it, opened beneath the root (or "/") with no symlink */
    const char *ipath;     /* it, relative to the root ("" for the root); NULL outside */
    const char *root;
    const ignore *cline;
    entry *v;
    size_t n, cap;
    ignore **owned;        /* every .gitignore set loaded, freed at the end */
    size_t nowned, capowned;
    bool oom;
} lister;

/* Natural, case-insensitive compare of two path segments (JavaScript's localeCompare
 * with numeric and base sensitivity, for ASCII). */
static int seg_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0, j = 0;
    while (i < an && j < bn) {
        if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[j])) {
            size_t i0 = i, j0 = j;
            while (i0 < an && a[i0] == '0')
                i0++;
            while (j0 < bn && b[j0] == '0')
                j0++;
            size_t ie = i0, je = j0;
            while (ie < an && isdigit((unsigned char)a[ie]))
                ie++;
            while (je < bn && isdigit((unsigned char)b[je]))
                je++;
            if (ie - i0 != je - j0)
                return ie - i0 < je - j0 ? -1 : 1;
            int c = memcmp(a + i0, b + j0, ie - i0);
            if (c)
                return c;
            i = ie;
            j = je;
            continue;
        }
        int ca = tolower((unsigned char)a[i]), cb = tolower((unsigned char)b[j]);
        if (ca != cb)
            return ca < cb ? -1 : 1;
        i++;
        j++;
    }
    if (i < an || j < bn)
        return i < an ? 1 : -1;
    return 0;
}

/* Cline's order: segment by segment; where the paths differ, the one that ends at that
 * segment (a file or an empty "dir/" tail) comes first, otherwise natural order. */
static int entry_cmp(const void *pa, const void *pb)
{
    const char *a = ((const entry *)pa)->rel, *b = ((const entry *)pb)->rel;
    const char *x = a, *y = b;
    for (;;) {
        const char *xe = strchr(x, '/'), *ye = strchr(y, '/');
        size_t xn = xe ? (size_t)(xe - x) : strlen(x), yn = ye ? (size_t)(ye - y) : strlen(y);
        if (xn != yn || memcmp(x, y, xn) != 0) {
            bool x_last = !xe, y_last = !ye;
            if (x_last && !y_last)
                return -1;
            if (y_last && !x_last)
                return 1;
            int c = seg_cmp(x, xn, y, yn);
            return c ? c : strcmp(a, b);
        }
        if (!xe || !ye)
            return xe ? 1 : ye ? -1 : 0;
        x = xe + 1;
        y = ye + 1;
    }
}

static void add_entry(lister *l, const char *rel, bool locked)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 64;
        entry *nv = realloc(l->v, ncap * sizeof *nv);
        if (!nv) {
            l->oom = true;
            return;
        }
        l->v = nv;
        l->cap = ncap;
    }
    char *s = strdup(rel);
    if (!s) {
        l->oom = true;
        return;
    }
    l->v[l->n++] = (entry){ s, locked };
}

static void own(lister *l, ignore *ig)
{
    if (!ig)
        return;
    if (l->nowned == l->capowned) {
        size_t ncap = l->capowned ? l->capowned * 2 : 16;
        ignore **nv = realloc(l->owned, ncap * sizeof *nv);
        if (!nv) {
            ignore_free(ig);
            l->oom = true;
            return;
        }
        l->owned = nv;
        l->capowned = ncap;
    }
    l->owned[l->nowned++] = ig;
}

/* Path of rel for the ignore rules: relative to the root when inside. */
static char *ignore_path(const lister *l, const char *rel)
{
    size_t n = strlen(rel);
    while (n && rel[n - 1] == '/')
        n--;
    buf b = BUF_INIT(0);
    if (l->ipath && *l->ipath && strcmp(l->ipath, ".") != 0) {
        buf_puts(&b, l->ipath);
        if (n)
            buf_putc(&b, '/');
    }
    buf_append(&b, rel, n);
    return buf_detach(&b, NULL);
}

static void list(lister *l, bool recursive, ignore *git_top)
{
    pending *queue = malloc(sizeof *queue);
    size_t qh = 0, qn = 0, qcap = 1;
    if (!queue) {
        l->oom = true;
        return;
    }
    queue[qn++] = (pending){ strdup(""), git_top };
    while (qh < qn && l->n < LIST_MAX && !l->oom) {
        pending cur = queue[qh++];
        /* Each directory is opened beneath the listed one without following a symlink:
         * one swapped for a link since it was seen is not listed. */
        int dfd = -1;
        if (fsat_open(l->dirfd, cur.rel[0] ? cur.rel : ".", O_RDONLY | O_DIRECTORY, 0, &dfd,
                      NULL) != HEW_OK)
            dfd = -1;
        ignore *git = cur.git;
        if (recursive && cur.rel[0] && dfd >= 0) {
            /* This directory's own .gitignore. */
            ignore *mine = NULL;
            char *ip = ignore_path(l, cur.rel);
            if (ip && walk_gitignore_at(git, dfd, ip, &mine, NULL) == HEW_OK && mine) {
                own(l, mine);
                git = mine;
            }
            free(ip);
        }
        walk_ent *ents = NULL;
        size_t n = 0;
        if (dfd >= 0 && walk_readdir_fd(dfd, cur.rel, &ents, &n, NULL) == HEW_OK) {
            const char *pname = NULL;
            if (cur.rel[0]) {
                size_t rl = strlen(cur.rel) - 1;
                const char *s = cur.rel;
                for (size_t k = 0; k < rl; k++)
                    if (cur.rel[k] == '/')
                        s = cur.rel + k + 1;
                pname = s; /* "target/" → compared up to its '/' below */
            }
            char pbuf[256] = "";
            if (pname) {
                size_t pl = strcspn(pname, "/");
                if (pl < sizeof pbuf) {
                    memcpy(pbuf, pname, pl);
                    pbuf[pl] = '\0';
                }
            }
            for (size_t i = 0; i < n && l->n < LIST_MAX && !l->oom; i++) {
                const walk_ent *e = &ents[i];
                bool is_dir = e->kind == WALK_DIR;
                if (e->kind == WALK_LINK) {
                    struct stat lst; /* shown as a directory, never entered */
                    is_dir = fstatat(dfd, e->name, &lst, 0) == 0 && S_ISDIR(lst.st_mode);
                }
                buf rel = BUF_INIT(0);
                buf_printf(&rel, "%s%s%s", cur.rel, e->name, is_dir ? "/" : "");
                char *ip = rel.data ? ignore_path(l, rel.data) : NULL;
                if (!ip) {
                    l->oom = true;
                    buf_release(&rel);
                    break;
                }
                bool git_ignored = recursive && git && ignore_decide(git, ip, is_dir) == 1;
                bool locked = l->ipath && l->cline && ignore_match(l->cline, ip, is_dir);
                free(ip);
                if (!git_ignored) {
                    add_entry(l, rel.data, locked);
                    bool enter = recursive && e->kind == WALK_DIR && !locked &&
                                 !skipped_dir(pbuf[0] ? pbuf : NULL, e->name);
                    if (enter) {
                        if (qn == qcap) {
                            pending *nq = realloc(queue, qcap * 2 * sizeof *nq);
                            if (!nq) {
                                l->oom = true;
                                buf_release(&rel);
                                break;
                            }
                            queue = nq;
                            qcap *= 2;
                        }
                        queue[qn++] = (pending){ buf_detach(&rel, NULL), git };
                    }
                }
                buf_release(&rel);
            }
            walk_ents_free(ents, n);
        }
        if (dfd >= 0)
            close(dfd);
        free(cur.rel);
    }
    for (size_t i = qh; i < qn; i++)
        free(queue[i].rel);
    free(queue);
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *path = tool_call_param(call, "path");
    const char *rec = tool_call_param(call, "recursive");
    bool recursive = rec && strcasecmp(rec, "true") == 0;
    ws_path wp = WS_PATH_INIT;
    ignore *ig = NULL, *git = NULL;
    json_t *data = NULL;
    buf text = BUF_INIT((size_t)1 << 20);
    lister l = { .dirfd = -1 };
    hew_err err = HEW_ERR_INIT;
    hew_code rc = HEW_OK;
    char *root_real = NULL;

    if (!path || !*path)
        path = ".";
    ws_target_result tr = ws_target(env, path, true, "Cannot list", &wp, &ig, out);
    if (tr != WS_TARGET_OK) {
        if (tr == WS_TARGET_BLOCKED)
            env->mistake(env, true);
        goto done;
    }
    struct stat st;
    hew_code src = ws_stat(env->cwd, &wp, &st, &err);
    if (src == HEW_OK && !S_ISDIR(st.st_mode)) {
        ws_error_result(env, out, "%s is a file, not a directory.", wp.rel);
        goto done;
    }
    if (src != HEW_OK) {
        if (src == HEW_E_NOTFOUND)
            ws_error_result(env, out, "Directory not found: %s", wp.abs);
        else
            ws_error_result(env, out, "Cannot list %s: %s", wp.rel, err.msg);
        goto done;
    }
    const char *home = getenv("HOME");
    char *home_real = home && *home ? realpath(home, NULL) : NULL;
    bool refused = strcmp(wp.abs, "/") == 0 || (home_real && strcmp(wp.abs, home_real) == 0);
    free(home_real);
    if (refused) {
        buf_printf(&text, "%s is the file system root or the home directory: hew does not "
                          "list it. List a more specific directory.", wp.abs);
    } else {
        root_real = realpath(env->cwd, NULL);
        l.abs = wp.abs;
        l.ipath = wp.outside ? NULL : wp.rel;
        l.root = root_real;
        l.cline = ig;
        if (walk_open_dir(wp.outside ? NULL : env->cwd, wp.outside ? NULL : wp.rel, wp.abs,
                          &l.dirfd, &err) != HEW_OK) {
            ws_error_result(env, out, "Cannot list %s: %s", wp.rel, err.msg);
            goto done;
        }
        if (recursive) {
            if (wp.outside)
                (void)walk_gitignore_at(NULL, l.dirfd, "", &git, NULL);
            else
                (void)walk_gitignore_chain(root_real, wp.rel, &git, NULL);
        }
        list(&l, recursive, git);
        if (l.oom) {
            ws_error_result(env, out, "out of memory listing %s", wp.rel);
            goto done;
        }
        if (l.n > 1)
            qsort(l.v, l.n, sizeof *l.v, entry_cmp);
        for (size_t i = 0; i < l.n; i++)
            buf_printf(&text, "%s%s\n", l.v[i].locked ? LOCK " " : "", l.v[i].rel);
        if (text.len)
            buf_truncate(&text, text.len - 1);
        if (l.n >= LIST_MAX)
            buf_puts(&text, "\n\n(The list stops here: it has reached its limit of 200 entries. "
                            "Use list_files on subdirectories to see more.)");
        else if (l.n == 0)
            buf_puts(&text, "No files found.");
    }

    data = ws_tool_data(recursive ? "listFilesRecursive" : "listFilesTopLevel", wp.rel);
    ws_data_put(data, "content", text.data ? text.data : "");
    bool approved = false;
    rc = ws_approve(env, "read", wp.outside, data, NULL, out, &approved);
    if (rc != HEW_OK || !approved)
        goto done;
    buf_append(&out->text, text.data ? text.data : "", text.len);
    env->mistake(env, false);

done:
    if (l.dirfd >= 0)
        close(l.dirfd);
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i].rel);
    free(l.v);
    for (size_t i = 0; i < l.nowned; i++)
        ignore_free(l.owned[i]);
    free(l.owned);
    walk_gitignore_chain_free(git);
    free(root_real);
    buf_release(&text);
    json_decref(data);
    ignore_free(ig);
    ws_path_release(&wp);
    return rc;
}

const tool_def tool_list_files = {
    .name = "list_files",
    .description =
        "List the files and directories in a directory; with recursive 'true', also those "
        "of its subdirectories (up to 200 entries). Do not use it to check a file you "
        "just created: the result of that tool already tells you.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY,
    .run = run,
};
