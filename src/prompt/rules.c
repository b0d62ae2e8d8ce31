/* rules — finds, reads and renders the rule files (see rules.h). It reads files and
 * folders and walks the workspace for AGENTS.md files; it must never write anything,
 * never follow a symbolic link to a folder, never read a workspace's rule file (or its
 * .clineignore) that leads outside the workspace, never read past its caps, and never
 * drop or cut a rule without saying so in the rendered text. */
#include "prompt/rules.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsat.h"
#include "sys/path.h"
#include "base/utf8.h"
#include "prompt/frontmatter.h"
#include "sys/ignore.h"
#include "sys/walk.h"

#define MAX_DEPTH 8
#define MAX_DIR_FILES 1000
#define CLINEIGNORE_MAX (64 * 1024)

rules_opts rules_defaults(void)
{
    return (rules_opts){
        .global = true,
        .clinerules = true,
        .cursorrules = true,
        .windsurfrules = true,
        .agents = true,
        .claude = true,
        .gemini = true,
        .clineignore = true,
        .max_file_bytes = 64 * 1024,
        .max_total_bytes = 256 * 1024,
        .global_dir = NULL,
        .home = NULL,
        .disabled = NULL,
    };
}

char *rules_global_dir(const rules_opts *o)
{
    if (o && o->global_dir && *o->global_dir)
        return strdup(o->global_dir);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/')
        return path_join(xdg, "hew/rules");
    const char *home = getenv("HOME");
    if (home && *home)
        return path_join(home, ".config/hew/rules");
    return NULL;
}

/* ---- reading ----------------------------------------------------------------------- */

typedef struct loader {
    const rules_opts *o;
    rules_set *rs;
    size_t cap;
    buf notes;  /* "[hew: …]" lines about files not read */
    bool oom;
} loader;

/* The user's own files (their home's), read wherever their links lead: */
static bool users_own(rules_source src)
{
    return src == RULES_SRC_GLOBAL || src == RULES_SRC_CLAUDE_USER ||
           src == RULES_SRC_GEMINI_USER;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* When a file applies, from its front matter (see rules.h): Cursor's .mdc types, else
 * `paths:`/`globs:` or always. */
static rules_apply apply_of(rules_source src, const char *name, const frontmatter *fm,
                            bool read)
{
    if (src == RULES_SRC_CURSOR_DIR && ends_with(name, ".mdc") && read && fm->present) {
        if (fm->always_apply == 1)
            return RULES_ALWAYS;
        if (fm->has_paths && fm->npaths)
            return RULES_GLOBS;
        if (fm->description && *fm->description)
            return RULES_ON_REQUEST;
        return RULES_MANUAL;
    }
    return read && fm->has_paths ? RULES_GLOBS : RULES_ALWAYS;
}

/* Open path for reading. root NULL (the user's own rules): symlinks are followed. Else
 * (a workspace's file: the repository may be hostile) the path is resolved and must stay
 * inside root — a rule file that is a link to ~/.ssh/id_rsa would put the key into the
 * prompt — and it is opened beneath root's descriptor (fsat), so a swapped folder cannot
 * redirect it either. HEW_E_ESCAPE when it leads outside; HEW_E_NOTFOUND when it cannot
 * be opened. */
static hew_code open_rule(const char *root, const char *path, int *fd_out)
{
    *fd_out = -1;
    if (!root) {
        *fd_out = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        return *fd_out < 0 ? HEW_E_NOTFOUND : HEW_OK;
    }
    char *real_root = NULL, *resolved = NULL;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = path_resolve_in(root, ".", &real_root, &err);
    if (rc == HEW_OK)
        rc = path_resolve_in(real_root, path, &resolved, &err);
    if (rc == HEW_OK) {
        char *rel = path_relative_to(real_root, resolved);
        int dirfd = -1;
        struct stat st;
        rc = !rel ? HEW_E_NOMEM : fsat_base_open(real_root, &dirfd, &err);
        if (rc == HEW_OK)
            rc = fsat_open_file(dirfd, rel, fd_out, &st, &err);
        if (rc == HEW_OK && *fd_out < 0)
            rc = HEW_E_NOTFOUND; /* not a regular file: a FIFO, a device */
        if (dirfd >= 0)
            close(dirfd);
        free(rel);
    }
    free(real_root);
    free(resolved);
    if (rc != HEW_OK && rc != HEW_E_ESCAPE && rc != HEW_E_NOMEM)
        rc = HEW_E_NOTFOUND;
    return rc;
}

/* The first cap bytes of a regular file, as valid UTF-8 (see open_rule for root). *size
 * gets the full size. HEW_E_NOTFOUND when it is not a readable regular file, HEW_E_ESCAPE
 * when a workspace file leads outside root, HEW_E_INVALID when it holds NUL bytes. */
static hew_code read_head(const char *root, const char *path, size_t cap, char **text,
                          size_t *size, bool *cut)
{
    *text = NULL;
    int fd;
    hew_code orc = open_rule(root, path, &fd);
    if (orc != HEW_OK)
        return orc;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return HEW_E_NOTFOUND;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_NONBLOCK))
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    char *raw = malloc(cap + 1);
    if (!raw) {
        close(fd);
        return HEW_E_NOMEM;
    }
    size_t n = 0;
    bool more = false;
    while (n < cap + 1) {
        ssize_t r = read(fd, raw + n, cap + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > cap) {
        more = true;
        n = utf8_cut(raw, n, cap);
    }
    if (memchr(raw, '\0', n)) {
        free(raw);
        return HEW_E_INVALID;
    }
    buf b = BUF_INIT(0);
    utf8_sanitize(raw, n, &b);
    free(raw);
    if (b.err != HEW_OK) {
        buf_release(&b);
        return HEW_E_NOMEM;
    }
    *text = buf_detach(&b, NULL);
    if (!*text)
        return HEW_E_NOMEM;
    *size = (size_t)st.st_size > n ? (size_t)st.st_size : n + (more ? 1 : 0);
    *cut = more;
    return HEW_OK;
}

static bool disabled(const rules_opts *o, const char *path)
{
    if (!o->disabled)
        return false;
    for (const char *const *d = o->disabled; *d; d++)
        if (strcmp(*d, path) == 0)
            return true;
    return false;
}

/* Read one rule file and add it to the set. Files that cannot be read are skipped.
 * Returns its index in the set, or -1. */
static long add_file(loader *l, rules_source src, const char *path, const char *name,
                     const char *scope)
{
    if (l->oom || disabled(l->o, path))
        return -1;
    char *text = NULL;
    size_t size = 0;
    bool cut = false;
    const char *root = users_own(src) ? NULL : l->rs->cwd;
    hew_code rc = read_head(root, path, l->o->max_file_bytes, &text, &size, &cut);
    if (rc == HEW_E_NOMEM) {
        l->oom = true;
        return -1;
    }
    if (rc == HEW_E_ESCAPE)
        buf_printf(&l->notes, "[hew: the rule file %s leads outside the workspace (a "
                              "symbolic link); it was not read.]\n", name);
    if (rc != HEW_OK)
        return -1;
    rules_set *rs = l->rs;
    if (rs->nfiles == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        rules_file *nv = realloc(rs->files, ncap * sizeof *nv);
        if (!nv) {
            free(text);
            l->oom = true;
            return -1;
        }
        rs->files = nv;
        l->cap = ncap;
    }
    rules_file f = { .source = src, .size = size, .cut = cut, .shown = strlen(text) };
    f.path = strdup(path);
    f.name = strdup(name);
    f.scope = scope ? strdup(scope) : NULL;
    frontmatter fm = FRONTMATTER_INIT;
    size_t len = strlen(text);
    bool read = frontmatter_parse(text, len, &fm, NULL) == HEW_OK;
    f.apply = apply_of(src, name, &fm, read);
    if (read && fm.present) {
        f.text = strdup(text + fm.body);
        f.conditional = f.apply == RULES_GLOBS;
        f.globs = fm.paths;
        f.nglobs = fm.npaths;
        f.description = fm.description;
        fm.description = NULL;
        fm.paths = NULL;
        fm.npaths = 0;
        free(text);
    } else {
        f.text = text; /* no front matter, or one we cannot read: the rule as it is */
    }
    frontmatter_release(&fm);
    rs->files[rs->nfiles++] = f;
    if (!f.path || !f.name || (scope && !f.scope) || !f.text)
        l->oom = true;
    return (long)rs->nfiles - 1;
}

typedef struct found {
    char *abs;
    char *rel;
} found;

typedef struct found_list {
    found *v;
    size_t n, cap;
    bool too_many;
    bool oom;
} found_list;

static void found_add(found_list *fl, const char *abs, const char *rel)
{
    if (fl->n >= MAX_DIR_FILES) {
        fl->too_many = true;
        return;
    }
    if (fl->n == fl->cap) {
        size_t ncap = fl->cap ? fl->cap * 2 : 16;
        found *nv = realloc(fl->v, ncap * sizeof *nv);
        if (!nv) {
            fl->oom = true;
            return;
        }
        fl->v = nv;
        fl->cap = ncap;
    }
    fl->v[fl->n] = (found){ strdup(abs), strdup(rel) };
    if (!fl->v[fl->n].abs || !fl->v[fl->n].rel)
        fl->oom = true;
    fl->n++;
}

static int found_cmp(const void *a, const void *b)
{
    return strcmp(((const found *)a)->rel, ((const found *)b)->rel);
}

static bool excluded_top(const char *name)
{
    return strcmp(name, "workflows") == 0 || strcmp(name, "hooks") == 0 ||
           strcmp(name, "skills") == 0;
}

/* Every file below dir (relative names from rel), recursively. */
static void collect_dir(found_list *fl, const char *dir, const char *rel, int depth,
                        bool clinerules)
{
    walk_ent *ents = NULL;
    size_t n = 0;
    if (depth > MAX_DEPTH || walk_readdir(dir, &ents, &n, NULL) != HEW_OK)
        return;
    for (size_t i = 0; i < n && !fl->oom; i++) {
        const walk_ent *e = &ents[i];
        if (e->name[0] == '.')
            continue;
        char *abs = path_join(dir, e->name);
        char *r = *rel ? path_join(rel, e->name) : strdup(e->name);
        if (!abs || !r) {
            fl->oom = true;
        } else if (e->kind == WALK_DIR) {
            if (!(clinerules && depth == 0 && excluded_top(e->name)))
                collect_dir(fl, abs, r, depth + 1, clinerules);
        } else if (e->kind == WALK_FILE) {
            found_add(fl, abs, r);
        } else if (e->kind == WALK_LINK) {
            struct stat st;
            if (stat(abs, &st) == 0 && S_ISREG(st.st_mode))
                found_add(fl, abs, r);
        }
        free(abs);
        free(r);
    }
    walk_ents_free(ents, n);
}

static void found_release(found_list *fl)
{
    for (size_t i = 0; i < fl->n; i++) {
        free(fl->v[i].abs);
        free(fl->v[i].rel);
    }
    free(fl->v);
}

static void load_dir(loader *l, rules_source src, const char *dir, bool clinerules)
{
    found_list fl = { 0 };
    collect_dir(&fl, dir, "", 0, clinerules);
    if (fl.n > 1)
        qsort(fl.v, fl.n, sizeof *fl.v, found_cmp);
    for (size_t i = 0; i < fl.n && !fl.oom; i++)
        add_file(l, src, fl.v[i].abs, fl.v[i].rel, NULL);
    if (fl.too_many)
        buf_printf(&l->notes, "[hew: the folder %s holds more than %d files; only the first "
                              "%d were read as rules.]\n", dir, MAX_DIR_FILES, MAX_DIR_FILES);
    if (fl.oom)
        l->oom = true;
    found_release(&fl);
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Load <cwd>/<name> as a single file, or as a folder when dir_src is not -1. */
static void load_entry(loader *l, const char *name, rules_source file_src, int dir_src,
                       bool clinerules)
{
    char *p = path_join(l->rs->cwd, name);
    if (!p) {
        l->oom = true;
        return;
    }
    if (dir_src >= 0 && is_dir(p))
        load_dir(l, (rules_source)dir_src, p, clinerules);
    else if (is_file(p)) {
        if (clinerules)
            l->rs->clinerules_file = true;
        add_file(l, file_src, p, name, NULL);
    }
    free(p);
}

/* ---- @path imports (CLAUDE.md, GEMINI.md) ---------------------------------------------- */

#define IMPORT_DEPTH 5

/* The next `@path` in t from *pos that is outside code (``` blocks, `spans`): the path
 * into out. false when there is none. */
static bool next_import(const char *t, size_t *pos, bool *fence, char *out, size_t cap)
{
    size_t i = *pos;
    while (t[i]) {
        bool line_start = i == 0 || t[i - 1] == '\n';
        if (line_start) {
            size_t k = i;
            while (t[k] == ' ' || t[k] == '\t')
                k++;
            if (strncmp(t + k, "```", 3) == 0) {
                *fence = !*fence;
                i = k + 3;
                continue;
            }
        }
        if (*fence || t[i] != '@' || (i > 0 && !isspace((unsigned char)t[i - 1]) &&
                                      t[i - 1] != '(')) {
            if (!*fence && t[i] == '`') { /* a code span on this line */
                const char *e = strchr(t + i + 1, '`'), *nl = strchr(t + i + 1, '\n');
                if (e && (!nl || e < nl)) {
                    i = (size_t)(e - t) + 1;
                    continue;
                }
            }
            i++;
            continue;
        }
        size_t j = i + 1;
        while (t[j] && !isspace((unsigned char)t[j]) && t[j] != '`' && t[j] != ')' &&
               t[j] != '@')
            j++;
        size_t n = j - i - 1;
        while (n && strchr(".,;:!?\"'", t[i + n]))
            n--;
        *pos = j;
        if (n && n < cap) {
            memcpy(out, t + i + 1, n);
            out[n] = '\0';
            return true;
        }
        i = j;
    }
    *pos = i;
    return false;
}

/* An import's path: `~/` from home, absolute as it is, else beside the importing file. */
static char *import_path(const loader *l, const char *from, const char *p)
{
    if (p[0] == '~' && p[1] == '/') {
        const char *home = l->o->home ? l->o->home : getenv("HOME");
        return home && *home ? path_join(home, p + 2) : NULL;
    }
    if (p[0] == '/')
        return path_normalize(p);
    const char *slash = strrchr(from, '/');
    char *dir = slash ? strndup(from, (size_t)(slash - from)) : strdup(".");
    char *joined = dir ? path_join(dir, p) : NULL;
    char *norm = joined ? path_normalize(joined) : NULL;
    free(dir);
    free(joined);
    return norm;
}

static bool in_set(const rules_set *rs, const char *path)
{
    for (size_t i = 0; i < rs->nfiles; i++)
        if (strcmp(rs->files[i].path, path) == 0)
            return true;
    return false;
}

/* The files that file `at` imports, each added after it (with its own imports) — for
 * a workspace's file only inside the workspace (add_file refuses the rest, with a note);
 * each file once, IMPORT_DEPTH levels at most. */
static void load_imports(loader *l, long at, int depth)
{
    if (at < 0 || depth >= IMPORT_DEPTH || l->oom)
        return;
    const rules_file *f = &l->rs->files[at];
    rules_source src = f->source;
    char *text = strdup(f->text), *from = strdup(f->path), *name = strdup(f->name);
    char *scope = f->scope ? strdup(f->scope) : NULL;
    if (!text || !from || !name || (f->scope && !scope)) {
        l->oom = true;
    } else {
        size_t pos = 0;
        bool fence = false;
        char p[1024];
        while (!l->oom && next_import(text, &pos, &fence, p, sizeof p)) {
            char *abs = import_path(l, from, p);
            if (abs && !users_own(src) && !path_is_inside(l->rs->cwd, abs) && is_file(abs)) {
                /* a repository's file cannot pull the user's files into the prompt */
                buf_printf(&l->notes, "[hew: %s imports %s, which is outside the workspace; "
                                      "it was not read.]\n",
                           name, p);
            } else if (abs && is_file(abs) && !in_set(l->rs, abs)) {
                char *rel = path_is_inside(l->rs->cwd, abs) ? path_relative_to(l->rs->cwd, abs)
                                                           : strdup(abs);
                long k = rel ? add_file(l, src, abs, rel, scope) : -1;
                if (k >= 0 && !(l->rs->files[k].imported_by = strdup(name)))
                    l->oom = true;
                free(rel);
                load_imports(l, k, depth + 1);
            }
            free(abs);
        }
    }
    free(text);
    free(from);
    free(name);
    free(scope);
}

/* A file of a source that imports (CLAUDE.md, GEMINI.md): added, then its imports. */
static void add_with_imports(loader *l, rules_source src, const char *path, const char *name,
                             const char *scope)
{
    long at = add_file(l, src, path, name, scope);
    if (src >= RULES_SRC_CLAUDE_USER)
        load_imports(l, at, 0);
}

/* ---- AGENTS.md, CLAUDE.md, GEMINI.md ---------------------------------------------------- */

/* The files read at the top of the workspace and found nested below it, one walk for
 * all of them. */
static const struct scoped_name {
    const char *name;
    rules_source src;
} scoped_names[] = {
    { "AGENTS.md", RULES_SRC_AGENTS },
    { "CLAUDE.md", RULES_SRC_CLAUDE },
    { "GEMINI.md", RULES_SRC_GEMINI },
};
#define NSCOPED (sizeof scoped_names / sizeof scoped_names[0])

static bool scoped_on(const rules_opts *o, rules_source src)
{
    return src == RULES_SRC_AGENTS ? o->agents : src == RULES_SRC_CLAUDE ? o->claude : o->gemini;
}

typedef struct scoped_walk {
    const rules_opts *o;
    size_t visited;
    char *rel[NSCOPED][RULES_MAX_AGENTS];
    size_t n[NSCOPED];
    bool more[NSCOPED]; /* more such files than RULES_MAX_AGENTS */
    bool stopped;       /* the walk hit RULES_WALK_MAX */
} scoped_walk;

static bool scoped_cb(void *ud, const char *rel)
{
    scoped_walk *a = ud;
    if (++a->visited >= RULES_WALK_MAX) {
        a->stopped = true;
        return false;
    }
    const char *slash = strrchr(rel, '/');
    if (!slash)
        return true; /* the top-level ones are read on their own */
    for (size_t k = 0; k < NSCOPED; k++) {
        if (strcmp(slash + 1, scoped_names[k].name) != 0 || !scoped_on(a->o, scoped_names[k].src))
            continue;
        if (a->n[k] == RULES_MAX_AGENTS) {
            a->more[k] = true;
            continue;
        }
        if ((a->rel[k][a->n[k]] = strdup(rel)))
            a->n[k]++;
    }
    return true;
}

static const char *const agents_skip_dirs[] = {
    "node_modules", "__pycache__", "env", "venv", "dist", "out", "bundle", "vendor", "tmp",
    "temp", "deps", "pkg", "Pods", "target", "build", NULL,
};

/* A user's own file (~/.claude/CLAUDE.md, ~/.gemini/GEMINI.md), when there is one. */
static void load_user_file(loader *l, rules_source src, const char *rel)
{
    const char *home = l->o->home ? l->o->home : getenv("HOME");
    char *p = home && *home ? path_join(home, rel) : NULL;
    if (p && is_file(p)) {
        char shown[64];
        snprintf(shown, sizeof shown, "~/%s", rel);
        add_with_imports(l, src, p, shown, "");
    }
    free(p);
}

/* The top-level files of one source: each of names that is a file. */
static void load_top(loader *l, rules_source src, const char *const *names)
{
    for (; *names && !l->oom; names++) {
        char *p = path_join(l->rs->cwd, *names);
        if (!p) {
            l->oom = true;
            return;
        }
        if (is_file(p) && !in_set(l->rs, p))
            add_with_imports(l, src, p, *names, "");
        free(p);
    }
}

static void load_scoped(loader *l)
{
    const char *cwd = l->rs->cwd;
    static const char *const agents_top[] = { "AGENTS.md", NULL };
    static const char *const claude_top[] = { "CLAUDE.md", ".claude/CLAUDE.md",
                                              "CLAUDE.local.md", NULL };
    static const char *const gemini_top[] = { "GEMINI.md", NULL };
    scoped_walk a = { .o = l->o };
    if (l->o->agents || l->o->claude || l->o->gemini) {
        ignore *cline = NULL;
        if (ignore_load_cline(cwd, &cline, NULL) != HEW_OK)
            cline = NULL;
        walk_opts wo = {
            .dir = cwd,
            .root = cwd,
            .dir_rel = "",
            .gitignore = true,
            .skip_hidden = true,
            .cline = cline,
            .skip_dirs = agents_skip_dirs,
            .abort = NULL,
        };
        (void)walk_files(&wo, scoped_cb, &a, NULL);
        ignore_free(cline);
    }
    for (size_t k = 0; k < NSCOPED; k++) {
        rules_source src = scoped_names[k].src;
        if (scoped_on(l->o, src)) {
            if (src == RULES_SRC_CLAUDE)
                load_user_file(l, RULES_SRC_CLAUDE_USER, ".claude/CLAUDE.md");
            if (src == RULES_SRC_GEMINI)
                load_user_file(l, RULES_SRC_GEMINI_USER, ".gemini/GEMINI.md");
            load_top(l, src, src == RULES_SRC_AGENTS   ? agents_top
                             : src == RULES_SRC_CLAUDE ? claude_top
                                                       : gemini_top);
        }
        size_t nl = strlen(scoped_names[k].name);
        for (size_t i = 0; i < a.n[k]; i++) {
            char *abs = path_join(cwd, a.rel[k][i]);
            char *scope = strdup(a.rel[k][i]);
            if (abs && scope) {
                scope[strlen(scope) - nl - 1] = '\0';
                if (!in_set(l->rs, abs))
                    add_with_imports(l, src, abs, a.rel[k][i], scope);
            } else {
                l->oom = true;
            }
            free(abs);
            free(scope);
            free(a.rel[k][i]);
        }
        if (a.more[k])
            buf_printf(&l->notes, "[hew: the workspace holds more than %d %s files; only the "
                                  "first %d are shown.]\n",
                       RULES_MAX_AGENTS, scoped_names[k].name, RULES_MAX_AGENTS);
    }
    if (a.stopped)
        buf_printf(&l->notes, "[hew: the workspace is too large to search it all for AGENTS.md, "
                              "CLAUDE.md and GEMINI.md files; nested ones beyond the first %d "
                              "files looked at are not shown.]\n", RULES_WALK_MAX);
}

static void load_clineignore(loader *l)
{
    char *p = path_join(l->rs->cwd, ".clineignore");
    if (!p) {
        l->oom = true;
        return;
    }
    char *text = NULL;
    size_t size = 0;
    bool cut = false;
    hew_code rc = read_head(l->rs->cwd, p, CLINEIGNORE_MAX, &text, &size, &cut);
    free(p);
    if (rc == HEW_E_NOMEM)
        l->oom = true;
    if (rc != HEW_OK)
        return;
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
        text[--n] = '\0';
    if (!n) {
        free(text);
        return;
    }
    if (cut) {
        buf b = BUF_INIT(0);
        buf_printf(&b, "%s\n# [hew: .clineignore is %zu bytes; only its first %d bytes are "
                       "shown.]", text, size, CLINEIGNORE_MAX);
        free(text);
        text = buf_detach(&b, NULL);
        if (!text) {
            l->oom = true;
            return;
        }
    }
    l->rs->clineignore = text;
}

hew_code rules_load(const char *cwd, const rules_opts *o, rules_set *out, hew_err *err)
{
    rules_opts defaults = rules_defaults();
    if (!o)
        o = &defaults;
    rules_opts eff = *o;
    if (!eff.max_file_bytes)
        eff.max_file_bytes = defaults.max_file_bytes;
    if (!eff.max_total_bytes)
        eff.max_total_bytes = defaults.max_total_bytes;
    *out = (rules_set)RULES_SET_INIT;
    out->cwd = strdup(cwd);
    out->max_total = eff.max_total_bytes;
    loader l = { &eff, out, 0, BUF_INIT(0), !out->cwd };
    if (!l.oom && eff.global) {
        out->global_dir = rules_global_dir(&eff);
        if (out->global_dir && is_dir(out->global_dir))
            load_dir(&l, RULES_SRC_GLOBAL, out->global_dir, false);
    }
    if (!l.oom && eff.clinerules)
        load_entry(&l, ".clinerules", RULES_SRC_CLINERULES, RULES_SRC_CLINERULES, true);
    if (!l.oom && eff.cursorrules) {
        load_entry(&l, ".cursorrules", RULES_SRC_CURSORRULES, -1, false);
        char *p = path_join(cwd, ".cursor/rules");
        if (p && is_dir(p))
            load_dir(&l, RULES_SRC_CURSOR_DIR, p, false);
        free(p);
    }
    if (!l.oom && eff.windsurfrules)
        load_entry(&l, ".windsurfrules", RULES_SRC_WINDSURF, -1, false);
    if (!l.oom)
        load_scoped(&l);
    if (!l.oom && eff.clineignore)
        load_clineignore(&l);
    if (l.notes.len) {
        buf_truncate(&l.notes, l.notes.len - 1);
        out->notes = buf_detach(&l.notes, NULL);
        if (!out->notes)
            l.oom = true;
    }
    buf_release(&l.notes);
    if (l.oom) {
        rules_set_release(out);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory reading the rule files");
    }
    return HEW_OK;
}

void rules_set_release(rules_set *rs)
{
    for (size_t i = 0; i < rs->nfiles; i++) {
        rules_file *f = &rs->files[i];
        free(f->path);
        free(f->name);
        free(f->scope);
        free(f->text);
        free(f->description);
        free(f->imported_by);
        for (size_t g = 0; g < f->nglobs; g++)
            free(f->globs[g]);
        free(f->globs);
    }
    free(rs->files);
    free(rs->cwd);
    free(rs->global_dir);
    free(rs->clineignore);
    free(rs->notes);
    *rs = (rules_set)RULES_SET_INIT;
}

/* ---- choosing ------------------------------------------------------------------------- */

/* A candidate path as a clean path relative to cwd (a new string), or NULL. */
static char *candidate(const char *cwd, const char *p)
{
    while (*p == '@')
        p++;
    size_t cl = cwd ? strlen(cwd) : 0;
    if (cl && strncmp(p, cwd, cl) == 0 && p[cl] == '/')
        p += cl + 1;
    char *s = strdup(p);
    if (!s)
        return NULL;
    for (char *c = s; *c; c++)
        if (*c == '\\')
            *c = '/';
    char *n = path_normalize(s);
    free(s);
    return n;
}

static bool glob_match(const char *glob, const char *path)
{
    while (glob[0] == '.' && glob[1] == '/')
        glob += 2;
    size_t gl = strlen(glob);
    if (gl && glob[gl - 1] == '/') {
        buf b = BUF_INIT(0);
        buf_printf(&b, "%s**", glob);
        bool m = b.data && ignore_wildmatch(b.data, path, 0);
        buf_release(&b);
        return m;
    }
    return ignore_wildmatch(glob, path, 0);
}

/* True when the file applies to the paths in play: it is not conditional, or one of its
 * globs matches one of paths (relative to cwd; absolute paths inside cwd, "./x" and
 * "@x" are taken too). `paths: []` matches nothing. */
static bool rules_file_applies(const rules_set *rs, const rules_file *f, const char *const *paths,
                               size_t npaths)
{
    if (f->apply == RULES_MANUAL)
        return false; /* Cursor's "manual" rule: only when the user names it */
    if (!f->conditional)
        return true;
    for (size_t i = 0; i < npaths; i++) {
        if (!paths[i] || !*paths[i])
            continue;
        char *p = candidate(rs->cwd, paths[i]);
        if (!p)
            continue;
        bool hit = false;
        for (size_t g = 0; g < f->nglobs && !hit; g++)
            hit = glob_match(f->globs[g], p);
        free(p);
        if (hit)
            return true;
    }
    return false;
}

static void header(const rules_set *rs, rules_source src, buf *out)
{
    switch (src) {
    case RULES_SRC_GLOBAL:
        buf_printf(out, "# Global rules\n\nThese rules come from the user's global rules "
                        "folder (%s) and apply to every project:\n\n",
                   rs->global_dir ? rs->global_dir : "");
        break;
    case RULES_SRC_CLINERULES:
        if (rs->clinerules_file)
            buf_puts(out, "# .clinerules\n\nThese rules come from the .clinerules file at "
                          "the top of the workspace:\n\n");
        else
            buf_puts(out, "# .clinerules/\n\nThese rules come from the .clinerules/ folder "
                          "at the top of the workspace:\n\n");
        break;
    case RULES_SRC_CURSORRULES:
        buf_puts(out, "# .cursorrules\n\nThese rules come from the workspace's .cursorrules "
                      "file:\n\n");
        break;
    case RULES_SRC_CURSOR_DIR:
        buf_puts(out, "# .cursor/rules/\n\nThese rules come from the workspace's "
                      ".cursor/rules/ folder:\n\n");
        break;
    case RULES_SRC_WINDSURF:
        buf_puts(out, "# .windsurfrules\n\nThese rules come from the workspace's "
                      ".windsurfrules file:\n\n");
        break;
    case RULES_SRC_AGENTS:
    case RULES_SRC_CLAUDE:
    case RULES_SRC_GEMINI: {
        const char *n = src == RULES_SRC_AGENTS   ? "AGENTS.md"
                        : src == RULES_SRC_CLAUDE ? "CLAUDE.md"
                                                  : "GEMINI.md";
        buf_printf(out, "# %s\n\nThese instructions come from %s files in the workspace. "
                        "Each file applies to the folder that holds it and to everything "
                        "below that folder. For a file in a nested folder, follow every %s "
                        "on the way down to it; where they disagree, the one in the deeper "
                        "folder wins.\n\n",
                   n, n, n);
        break;
    }
    case RULES_SRC_CLAUDE_USER:
    case RULES_SRC_GEMINI_USER:
        buf_printf(out, "# %s\n\nThese instructions come from the user's own %s and apply "
                        "to every project:\n\n",
                   src == RULES_SRC_CLAUDE_USER ? "~/.claude/CLAUDE.md" : "~/.gemini/GEMINI.md",
                   src == RULES_SRC_CLAUDE_USER ? "CLAUDE.md" : "GEMINI.md");
        break;
    }
}

static void trimmed(const char *s, buf *out)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    size_t i = 0;
    while (i < n && (s[i] == '\n' || s[i] == '\r'))
        i++;
    buf_append(out, s + i, n - i);
}

static void file_block(const rules_set *rs, const rules_file *f, buf *out)
{
    if (f->apply == RULES_ON_REQUEST) { /* told of, not shown: the model reads it */
        char *rel = path_relative_to(rs->cwd, f->path);
        buf_printf(out, "%s — not shown here; read it (read_file %s) when this applies: ",
                   f->name, rel ? rel : f->path);
        free(rel);
        trimmed(f->description ? f->description : "", out);
        return;
    }
    if (f->imported_by) {
        buf_printf(out, "## %s (imported by %s)\n\n", f->name, f->imported_by);
    } else if (f->source == RULES_SRC_CLAUDE_USER || f->source == RULES_SRC_GEMINI_USER) {
        ; /* the header names it */
    } else if (f->source == RULES_SRC_AGENTS || f->source == RULES_SRC_CLAUDE ||
               f->source == RULES_SRC_GEMINI) {
        if (!f->scope[0])
            buf_printf(out, "## %s (applies to the whole workspace)\n\n", f->name);
        else
            buf_printf(out, "## %s (applies to %s/ and everything below it)\n\n", f->name,
                       f->scope);
    } else if (!(f->source == RULES_SRC_CLINERULES && rs->clinerules_file) &&
               f->source != RULES_SRC_CURSORRULES && f->source != RULES_SRC_WINDSURF) {
        buf_printf(out, "%s\n", f->name);
    }
    trimmed(f->text, out);
    if (f->cut)
        buf_printf(out, "\n\n[hew: %s is %zu bytes long; only its first %zu bytes are shown "
                        "here.]",
                   f->name, f->size, f->shown);
}

void rules_render(const rules_set *rs, const char *const *paths, size_t npaths, buf *out)
{
    size_t start = out->len;
    bool any = false;
    int cur = -1;
    buf block = BUF_INIT(0);
    buf left = BUF_INIT(0);
    size_t nleft = 0;
    for (size_t i = 0; i < rs->nfiles; i++) {
        const rules_file *f = &rs->files[i];
        if (!rules_file_applies(rs, f, paths, npaths))
            continue;
        buf_reset(&block);
        if ((int)f->source != cur) {
            if (any)
                buf_puts(&block, "\n\n");
            header(rs, f->source, &block);
        } else {
            buf_puts(&block, "\n\n");
        }
        file_block(rs, f, &block);
        if (block.err != HEW_OK || (out->len - start) + block.len > rs->max_total) {
            buf_printf(&left, "%s%s", nleft ? ", " : "", f->path);
            nleft++;
            continue;
        }
        buf_append(out, block.data, block.len);
        cur = (int)f->source;
        any = true;
    }
    if (rs->notes) {
        buf_puts(out, any ? "\n\n" : "");
        buf_puts(out, rs->notes);
        any = true;
    }
    if (nleft)
        buf_printf(out, "%s[hew: the rules reached their limit of %zu bytes; %zu more rule "
                        "file%s left out: %s.]",
                   any ? "\n\n" : "", rs->max_total, nleft, nleft == 1 ? " was" : "s were",
                   left.data ? left.data : "");
    buf_release(&block);
    buf_release(&left);
}

/* ---- paths in a message ---------------------------------------------------------------- */

static bool delim(char c)
{
    return isspace((unsigned char)c) || c == '"' || c == '\'' || c == '`' || c == '(' ||
           c == ')' || c == '<' || c == '>' || c == '[' || c == ']' || c == '{' || c == '}' ||
           c == ',' || c == ';' || c == '|';
}

static bool looks_like_path(const char *s, size_t n)
{
    if (n < 2 || n > 4096)
        return false;
    for (size_t i = 0; i + 2 < n; i++)
        if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/')
            return false; /* a URL */
    bool has_alpha = false;
    for (size_t i = 0; i < n; i++)
        if (isalnum((unsigned char)s[i]) || s[i] == '_')
            has_alpha = true;
    if (!has_alpha)
        return false;
    if (memchr(s, '/', n))
        return true;
    /* name.ext: a dot with something before it and 1..10 alphanumerics after it, one of
     * them a letter */
    const char *dot = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.')
            dot = s + i;
    if (!dot || dot == s)
        return false;
    size_t ext = n - (size_t)(dot + 1 - s), stem = (size_t)(dot - s);
    if (ext < 1 || ext > 10 || (stem < 2 && ext < 2))
        return false; /* "e.g" is not a file name */
    bool letter = false;
    for (const char *c = dot + 1; c < s + n; c++) {
        if (!isalnum((unsigned char)*c))
            return false;
        letter = letter || isalpha((unsigned char)*c);
    }
    return letter; /* "3.5" is not either */
}

size_t rules_paths_in_text(const char *text, char **out, size_t cap)
{
    size_t count = 0;
    const char *p = text;
    while (p && *p && count < cap) {
        while (*p && delim(*p))
            p++;
        const char *s = p;
        while (*p && !delim(*p))
            p++;
        size_t n = (size_t)(p - s);
        while (n && *s == '@') {
            s++;
            n--;
        }
        while (n && strchr(".,:;!?", s[n - 1]))
            n--;
        /* a trailing :line or :line:col */
        for (int k = 0; k < 2; k++) {
            size_t j = n;
            while (j && isdigit((unsigned char)s[j - 1]))
                j--;
            if (j < n && j && s[j - 1] == ':')
                n = j - 1;
        }
        if (!looks_like_path(s, n))
            continue;
        bool dup = false;
        for (size_t i = 0; i < count && !dup; i++)
            dup = strlen(out[i]) == n && memcmp(out[i], s, n) == 0;
        if (dup)
            continue;
        char *c = strndup(s, n);
        if (!c)
            break;
        out[count++] = c;
    }
    return count;
}
