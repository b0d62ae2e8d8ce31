/* workspace — path resolution, confined opening, ignore and hard-link checks, control
 * files, approval and the read cache shared by the file tools (see workspace.h). Never
 * decides containment itself (path_resolve_in does) and never opens a path by name. */
#include "tools/workspace.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsat.h"
#include "base/json.h"
#include "sys/path.h"
#include "base/utf8.h"
#include "sys/walk.h"

hew_code ws_resolve(const char *root, const char *path, ws_path *out, hew_err *err)
{
    out->abs = out->rel = NULL;
    out->outside = false;
    char *resolved = NULL;
    hew_err local = HEW_ERR_INIT;
    hew_code rc = path_resolve_in(root, path, &resolved, &local);
    if (rc == HEW_E_ESCAPE) {
        /* Outside: resolve against "/" so that the approval step sees the real target. */
        char *root_real = realpath(root, NULL);
        char *joined = root_real ? path_join(root_real, path) : NULL;
        free(root_real);
        if (!joined)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory resolving %s", path);
        rc = path_resolve_in("/", joined, &resolved, &local);
        free(joined);
        out->outside = true;
    }
    if (rc != HEW_OK) {
        if (err)
            *err = local;
        return rc;
    }
    out->abs = resolved;
    if (out->outside) {
        out->rel = strdup(resolved);
    } else {
        char *root_real = realpath(root, NULL);
        out->rel = path_relative_to(root_real ? root_real : root, resolved);
        free(root_real);
    }
    if (!out->rel) {
        ws_path_release(out);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory resolving %s", path);
    }
    return HEW_OK;
}

void ws_path_release(ws_path *p)
{
    free(p->abs);
    free(p->rel);
    p->abs = p->rel = NULL;
    p->control = NULL;
}

bool ws_ignored(const ignore *ig, const ws_path *p, bool is_dir)
{
    return !p->outside && ignore_match(ig, p->rel, is_dir);
}

/* ---- opening what ws_resolve checked ------------------------------------------------- */

/* Messages of fsat name the path below its base: for a path outside (below "/") show the
 * absolute path instead ("tmp/x" → "/tmp/x"). */
static hew_code outside_msg(hew_code rc, const ws_path *wp, const char *rel, hew_err *err)
{
    if (rc == HEW_OK || !err || !wp->outside || strcmp(rel, ".") == 0)
        return rc;
    char *at = strstr(err->msg, rel);
    if (at && (at == err->msg || at[-1] != '/')) {
        char copy[HEW_ERR_MSG_MAX];
        snprintf(copy, sizeof copy, "%s", err->msg);
        size_t off = (size_t)(at - err->msg);
        hew_err_set(err, rc, "%.*s/%s", (int)off, copy, copy + off);
    }
    return rc;
}

/* The base to open wp beneath and wp's path below it. */
static hew_code base_of(const char *root, const ws_path *wp, int *base, const char **rel,
                        hew_err *err)
{
    if (wp->outside) {
        *rel = wp->abs[0] == '/' && wp->abs[1] ? wp->abs + 1 : ".";
        return fsat_base_open("/", base, err);
    }
    *rel = wp->rel;
    return fsat_base_open(root, base, err);
}

hew_code ws_stat(const char *root, const ws_path *wp, struct stat *st, hew_err *err)
{
    int base = -1;
    const char *rel = NULL;
    hew_code rc = base_of(root, wp, &base, &rel, err);
    if (rc == HEW_OK) {
        rc = outside_msg(fsat_stat(base, rel, st, err), wp, rel, err);
        close(base);
    }
    return rc;
}

hew_code ws_open_file(const char *root, const ws_path *wp, int *fd, struct stat *st,
                      hew_err *err)
{
    *fd = -1;
    int base = -1;
    const char *rel = NULL;
    hew_code rc = base_of(root, wp, &base, &rel, err);
    if (rc == HEW_OK) {
        rc = outside_msg(fsat_open_file(base, rel, fd, st, err), wp, rel, err);
        close(base);
    }
    return rc;
}

/* The folder of wp made beneath the root (missing components created, no symlink
 * followed): *dirfd (O_PATH), *dir_abs (its path; free it) and *name (in wp). */
static hew_code open_folder(const char *root, const ws_path *wp, int *dirfd, char **dir_abs,
                            const char **name, hew_err *err)
{
    *dirfd = -1;
    *dir_abs = NULL;
    int base = -1;
    const char *rel = NULL;
    hew_code rc = base_of(root, wp, &base, &rel, err);
    if (rc != HEW_OK)
        return rc;
    /* rel = "dir/name": the folder (created when missing) and the name in it. */
    const char *slash = strrchr(rel, '/');
    char *dir_rel = slash ? strndup(rel, (size_t)(slash - rel)) : strdup(".");
    char *dabs = strdup(wp->abs);
    char *abs_slash = dabs ? strrchr(dabs, '/') : NULL;
    *name = slash ? slash + 1 : rel;
    if (!dir_rel || !abs_slash) {
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory writing %s", wp->rel);
    } else {
        if (abs_slash == dabs)
            abs_slash[1] = '\0'; /* "/name": the folder is "/" */
        else
            *abs_slash = '\0';
        rc = outside_msg(fsat_mkdirs(base, dir_rel, 0777, dirfd, err), wp, dir_rel, err);
    }
    free(dir_rel);
    close(base);
    if (rc == HEW_OK)
        *dir_abs = dabs;
    else
        free(dabs);
    return rc;
}

hew_code ws_write(const char *root, const ws_path *wp, const void *data, size_t len,
                  mode_t mode, hew_err *err)
{
    int dirfd = -1;
    char *dir_abs = NULL;
    const char *name = NULL;
    hew_code rc = open_folder(root, wp, &dirfd, &dir_abs, &name, err);
    if (rc == HEW_OK) {
        rc = fsat_write_atomic(dirfd, dir_abs, name, data, len, mode, err);
        close(dirfd);
    }
    free(dir_abs);
    return rc;
}

hew_code ws_write_via(tool_env *env, const ws_path *wp, const void *data, size_t len,
                      hew_err *err)
{
    int dirfd = -1;
    char *dir_abs = NULL;
    const char *name = NULL;
    hew_code rc = open_folder(env->cwd, wp, &dirfd, &dir_abs, &name, err);
    if (rc != HEW_OK)
        return rc;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
        rc = hew_err_set(err, HEW_E_INVALID, "%s is not a regular file (%s)", wp->rel,
                         S_ISLNK(st.st_mode) ? "a symbolic link appeared there"
                         : S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    close(dirfd);
    free(dir_abs);
    if (rc == HEW_OK)
        rc = env->file_write(env, wp->abs, data, len, err);
    return rc;
}

/* ws_stat for an absolute canonical path: beneath root when inside it, else beneath "/". */
static hew_code ws_stat_abs(const char *root, const char *abs, struct stat *st, hew_err *err)
{
    ws_path wp = WS_PATH_INIT;
    wp.outside = !path_is_inside(root, abs);
    wp.abs = (char *)abs;
    char *rel = wp.outside ? NULL : path_relative_to(root, abs);
    if (!wp.outside && !rel)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    wp.rel = rel;
    hew_code rc = ws_stat(root, &wp, st, err);
    free(rel);
    return rc;
}

/* ---- hard links of ignored files ----------------------------------------------------- */

typedef struct link_id {
    dev_t dev;
    ino_t ino;
} link_id;

struct ws_links {
    pthread_mutex_t mu;
    char *root;
    const ignore *ig;
    bool built, capped;
    link_id *v;
    size_t n, cap;
    size_t seen; /* entries looked at by the walk */
};

ws_links *ws_links_new(const char *root, const ignore *ig)
{
    ws_links *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->root = strdup(root);
    if (!l->root) {
        free(l);
        return NULL;
    }
    l->ig = ig;
    pthread_mutex_init(&l->mu, NULL);
    return l;
}

void ws_links_free(ws_links *l)
{
    if (!l)
        return;
    pthread_mutex_destroy(&l->mu);
    free(l->root);
    free(l->v);
    free(l);
}

static void links_add(ws_links *l, const struct stat *st)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        link_id *nv = realloc(l->v, ncap * sizeof *nv);
        if (!nv) {
            l->capped = true; /* cannot remember it: cannot tell */
            return;
        }
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = (link_id){ st->st_dev, st->st_ino };
}

#define WS_LINKS_DEPTH_MAX 200

/* Note the ignored files with several links below the directory dirfd (rel names it,
 * "" at the root); below an ignored directory everything is ignored. */
static void links_walk(ws_links *l, int dirfd, buf *rel, bool ignored_dir, int depth)
{
    walk_ent *ents = NULL;
    size_t n = 0;
    if (depth > WS_LINKS_DEPTH_MAX) {
        l->capped = true;
        return;
    }
    if (walk_readdir_fd(dirfd, rel->len ? rel->data : ".", &ents, &n, NULL) != HEW_OK)
        return;
    size_t keep = rel->len;
    for (size_t i = 0; i < n && !l->capped; i++) {
        const walk_ent *e = &ents[i];
        if (++l->seen > WS_LINKS_SCAN_MAX) {
            l->capped = true;
            break;
        }
        if (e->kind != WALK_FILE && e->kind != WALK_DIR)
            continue; /* a symlink is not a hard link; devices, sockets */
        bool is_dir = e->kind == WALK_DIR;
        if (rel->len)
            buf_putc(rel, '/');
        buf_puts(rel, e->name);
        if (rel->err) {
            l->capped = true;
            break;
        }
        bool ignored = ignored_dir || ignore_decide(l->ig, rel->data, is_dir) == 1;
        if (is_dir) {
            int sub = openat(dirfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                links_walk(l, sub, rel, ignored, depth + 1);
                close(sub);
            }
        } else if (ignored) {
            struct stat st;
            if (fstatat(dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                st.st_nlink > 1)
                links_add(l, &st);
        }
        buf_truncate(rel, keep);
    }
    walk_ents_free(ents, n);
}

static void links_build(ws_links *l)
{
    l->built = true;
    int rootfd = -1;
    if (walk_open_dir(l->root, "", NULL, &rootfd, NULL) != HEW_OK) {
        l->capped = true;
        return;
    }
    if (ignore_rule_count(l->ig) <= 1) {
        /* No rules of the user's: only .clineignore itself is ignored. */
        struct stat st;
        if (fstatat(rootfd, ".clineignore", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_nlink > 1)
            links_add(l, &st);
    } else {
        buf rel = BUF_INIT((size_t)1 << 16);
        links_walk(l, rootfd, &rel, false, 0);
        buf_release(&rel);
    }
    close(rootfd);
}

int ws_links_check(ws_links *l, const struct stat *st)
{
    if (!S_ISREG(st->st_mode) || st->st_nlink <= 1)
        return WS_LINK_OK;
    if (!l)
        return WS_LINK_UNKNOWN;
    pthread_mutex_lock(&l->mu);
    if (!l->built)
        links_build(l);
    int verdict = l->capped ? WS_LINK_UNKNOWN : WS_LINK_OK;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].dev == st->st_dev && l->v[i].ino == st->st_ino) {
            verdict = WS_LINK_IGNORED;
            break;
        }
    pthread_mutex_unlock(&l->mu);
    return verdict;
}

int ws_link_check(const char *root, const ignore *ig, const struct stat *st)
{
    if (!S_ISREG(st->st_mode) || st->st_nlink <= 1)
        return WS_LINK_OK;
    ws_links *l = ws_links_new(root, ig);
    int verdict = ws_links_check(l, st);
    ws_links_free(l);
    return verdict;
}

void ws_link_blocked_result(tool_env *env, const char *display, int why, tool_result *out)
{
    env->say(env, "clineignore_error", display, NULL, 0);
    buf_reset(&out->text);
    if (why == WS_LINK_IGNORED)
        tool_result_error(out,
                          "The tool execution failed with the following error:\n<error>\n"
                          "Access to %s is blocked by the .clineignore file settings: it is "
                          "a hard link to a file that .clineignore blocks (the same file "
                          "under another name). Continue the task without this file, or ask "
                          "the user to update the .clineignore file.\n</error>",
                          display);
    else
        tool_result_error(out,
                          "The tool execution failed with the following error:\n<error>\n"
                          "Access to %s is blocked: it has other hard links (names), and the "
                          "workspace has too many files for hew to check that none of them "
                          "is a file .clineignore blocks. Continue the task without this "
                          "file, or ask the user to copy it instead of linking it.\n</error>",
                          display);
}

/* ---- hew's control files --------------------------------------------------------------- */

typedef struct control_name {
    const char *name;
    bool root_only; /* only as the first component inside the workspace */
    const char *what;
} control_name;

static const control_name control_names[] = {
    { ".git", false, "the git repository: its hooks and config run code" },
    { ".hew", false, "hew's project settings: MCP servers and config" },
    { ".husky", false, "git hooks (husky sets core.hooksPath here): they run code" },
    { ".clinerules", true, "the project's rules for the model" },
    { ".clineignore", true, "the files hew keeps from the model" },
};

static const char control_hew_dirs[] = "hew's own settings and data";

/* What the components of p say ('/'-separated; at_root: p is relative to the workspace
 * root, so root-only names count for its first component). */
static const char *control_in(const char *p, bool at_root)
{
    bool first = true;
    while (*p) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        for (size_t i = 0; n && i < sizeof control_names / sizeof control_names[0]; i++) {
            const control_name *c = &control_names[i];
            if (c->root_only && !(at_root && first))
                continue;
            if (strlen(c->name) == n && strncasecmp(p, c->name, n) == 0)
                return c->what;
        }
        if (n)
            first = false;
        p += n;
    }
    return NULL;
}

/* hew's config, data and state folders, lexical and real (cached; recomputed when the
 * environment they come from changes). */
static pthread_mutex_t dirs_mu = PTHREAD_MUTEX_INITIALIZER;
static char *dirs_key;
static char *dirs_v[8];

static void dirs_refresh(void)
{
    static const struct {
        const char *env, *fallback;
    } spec[] = {
        { "XDG_CONFIG_HOME", ".config" },
        { "XDG_DATA_HOME", ".local/share" },
        { "XDG_STATE_HOME", ".local/state" },
        { "HEW_DATA_DIR", NULL }, /* the folder itself: sys/datadir.h */
    };
    const char *home = getenv("HOME");
    buf key = BUF_INIT(0);
    buf_printf(&key, "%s", home ? home : "");
    for (size_t i = 0; i < 4; i++) {
        const char *v = getenv(spec[i].env);
        buf_printf(&key, "\n%s", v ? v : "");
    }
    if (key.data && dirs_key && strcmp(key.data, dirs_key) == 0) {
        buf_release(&key);
        return;
    }
    free(dirs_key);
    dirs_key = buf_detach(&key, NULL);
    for (size_t i = 0; i < 8; i++) {
        free(dirs_v[i]);
        dirs_v[i] = NULL;
    }
    for (size_t i = 0; i < 4; i++) {
        const char *v = getenv(spec[i].env);
        buf d = BUF_INIT(0);
        if (!spec[i].fallback) {
            if (v && v[0] == '/')
                buf_printf(&d, "%s", v);
        } else if (v && v[0] == '/')
            buf_printf(&d, "%s/hew", v);
        else if (home && home[0] == '/')
            buf_printf(&d, "%s/%s/hew", home, spec[i].fallback);
        if (!d.data) {
            buf_release(&d);
            continue;
        }
        dirs_v[2 * i] = path_normalize(d.data);
        dirs_v[2 * i + 1] = realpath(d.data, NULL);
        buf_release(&d);
    }
}

static bool in_hew_dirs(const char *abs)
{
    pthread_mutex_lock(&dirs_mu);
    dirs_refresh();
    bool in = false;
    for (size_t i = 0; i < 8 && !in; i++)
        in = dirs_v[i] && path_is_inside(dirs_v[i], abs);
    pthread_mutex_unlock(&dirs_mu);
    return in;
}

/* True when the symlink at (an absolute path) leads to p or above it. */
static bool link_leads_to(const char *at, const char *p)
{
    char *target = realpath(at, NULL);
    bool yes = target && path_is_inside(target, p);
    free(target);
    return yes;
}

/* What p controls through a symlink among the control names at the root (`.hew` →
 * `conf/`, `.clineignore` → `lists/ignore`) or directly in the `.hew` and `.clinerules`
 * folders (`.hew/mcp.json` → `conf/mcp.json`): editing the target edits the control file.
 * (.git's own links are not followed: a repository's hooks path is git's business.) */
static const char *control_linked(const char *root, const char *p)
{
    const char *what = NULL;
    for (size_t i = 0; !what && i < sizeof control_names / sizeof control_names[0]; i++) {
        const control_name *c = &control_names[i];
        char *at = path_join(root, c->name);
        struct stat st;
        if (at && lstat(at, &st) == 0) {
            if (S_ISLNK(st.st_mode) && link_leads_to(at, p))
                what = c->what;
            bool scan = S_ISDIR(st.st_mode) && strcmp(c->name, ".git") != 0;
            walk_ent *ents = NULL;
            size_t n = 0;
            if (scan && walk_readdir(at, &ents, &n, NULL) == HEW_OK) {
                for (size_t k = 0; !what && k < n && k < 256; k++) {
                    if (ents[k].kind != WALK_LINK)
                        continue;
                    char *inner = path_join(at, ents[k].name);
                    if (inner && link_leads_to(inner, p))
                        what = c->what;
                    free(inner);
                }
                walk_ents_free(ents, n);
            }
        }
        free(at);
    }
    return what;
}

/* What the absolute, normalised path p controls. */
static const char *control_of(const char *root, const char *p)
{
    if (in_hew_dirs(p))
        return control_hew_dirs;
    const char *linked = control_linked(root, p);
    if (linked)
        return linked;
    if (path_is_inside(root, p)) {
        char *rel = path_relative_to(root, p);
        const char *what = rel ? control_in(rel, true) : NULL;
        free(rel);
        return what;
    }
    return control_in(p, false);
}

const char *ws_control(const char *root, const char *given, const ws_path *wp)
{
    char *root_real = realpath(root, NULL);
    const char *r = root_real ? root_real : root;
    const char *what = wp->abs ? control_of(r, wp->abs) : NULL;
    if (!what && given && *given) {
        char *joined = path_join(r, given);
        char *lexical = joined ? path_normalize(joined) : NULL;
        if (lexical)
            what = control_of(r, lexical);
        free(lexical);
        free(joined);
    }
    free(root_real);
    return what;
}

void ws_blocked_result(tool_env *env, const char *display, tool_result *out)
{
    env->say(env, "clineignore_error", display, NULL, 0);
    buf_reset(&out->text);
    tool_result_error(out,
                      "The tool execution failed with the following error:\n<error>\n"
                      "Access to %s is blocked by the .clineignore file settings. Continue "
                      "the task without this file, or ask the user to update the "
                      ".clineignore file.\n</error>",
                      display);
}

ws_target_result ws_target(tool_env *env, const char *path, bool dir, const char *verb,
                           ws_path *wp, ignore **ig, tool_result *out)
{
    hew_err err = HEW_ERR_INIT;
    if (ws_resolve(env->cwd, path, wp, &err) != HEW_OK) {
        ws_error_result(env, out, "%s %s: %s", verb, path, err.msg);
        return WS_TARGET_FAILED;
    }
    if (ignore_load_cline(env->cwd, ig, &err) != HEW_OK) {
        ws_error_result(env, out, "%s", err.msg);
        return WS_TARGET_FAILED;
    }
    if (ws_ignored(*ig, wp, dir)) {
        ws_blocked_result(env, wp->rel, out);
        return WS_TARGET_BLOCKED;
    }
    return WS_TARGET_OK;
}

void ws_error_result(tool_env *env, tool_result *out, const char *fmt, ...)
{
    buf_reset(&out->text);
    out->is_error = true;
    buf_puts(&out->text, "The tool execution failed with the following error:\n<error>\n");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&out->text, fmt, ap);
    va_end(ap);
    buf_puts(&out->text, "\n</error>");
    env->mistake(env, true);
}

void ws_data_put(json_t *data, const char *key, const char *value)
{
    if (!data || !value)
        return;
    json_t *s = json_string_lossy(value, strlen(value));
    if (s)
        json_object_set_new(data, key, s);
}

json_t *ws_tool_data(const char *tool, const char *path)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "tool", json_string(tool));
    ws_data_put(o, "path", path);
    return o;
}

static void put_feedback(buf *b, const char *text)
{
    buf_printf(b, "The user gave this feedback:\n<feedback>\n%s\n</feedback>", text);
}

hew_code ws_approve(tool_env *env, const char *group, bool outside, json_t *data,
                    const char *denied_extra, tool_result *out, bool *approved)
{
    tool_answer answer = { .kind = TOOL_ANSWER_NO };
    *approved = false;
    hew_code rc = env->approve(env, group, outside, "tool", data, approved, &answer);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        *approved = false;
        return rc;
    }
    bool feedback = answer.text && *answer.text;
    if (*approved) {
        if (feedback) {
            put_feedback(&out->text, answer.text);
            buf_puts(&out->text, "\n\n");
        }
    } else {
        buf_reset(&out->text);
        out->is_error = true;
        buf_printf(&out->text, "The user denied this operation.%s", denied_extra ? denied_extra : "");
        if (feedback) {
            buf_puts(&out->text, "\n");
            put_feedback(&out->text, answer.text);
        }
    }
    tool_answer_release(&answer);
    return HEW_OK;
}

void ws_show_partial(tool_env *env, json_t *data)
{
    if (env->yolo)
        env->say(env, "tool", NULL, data, 1);
    else
        env->ask(env, "tool", NULL, data, 1, NULL);
}

/* ---- the read cache ------------------------------------------------------------------- */

typedef struct cache_entry {
    const tool_env *env;
    char *abs;
    int64_t mtime_ns, size;
    int count;
} cache_entry;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_entry *cache;
static size_t cache_len, cache_cap;

#define CACHE_MAX 4096 /* entries over all tasks; the oldest go first */

static void cache_remove_at(size_t i)
{
    free(cache[i].abs);
    memmove(&cache[i], &cache[i + 1], (cache_len - i - 1) * sizeof *cache);
    cache_len--;
}

int ws_read_cache_note(const tool_env *env, const char *abs, int64_t mtime_ns, int64_t size)
{
    pthread_mutex_lock(&cache_mu);
    int count = 1;
    size_t i;
    for (i = 0; i < cache_len; i++)
        if (cache[i].env == env && strcmp(cache[i].abs, abs) == 0)
            break;
    if (i < cache_len) {
        cache_entry *e = &cache[i];
        if (e->mtime_ns == mtime_ns && e->size == size)
            count = ++e->count;
        else {
            e->mtime_ns = mtime_ns;
            e->size = size;
            e->count = 1;
        }
    } else {
        if (cache_len == CACHE_MAX)
            cache_remove_at(0);
        if (cache_len == cache_cap) {
            size_t ncap = cache_cap ? cache_cap * 2 : 64;
            cache_entry *n = realloc(cache, ncap * sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&cache_mu);
                return 1;
            }
            cache = n;
            cache_cap = ncap;
        }
        char *copy = strdup(abs);
        if (copy)
            cache[cache_len++] = (cache_entry){ env, copy, mtime_ns, size, 1 };
    }
    pthread_mutex_unlock(&cache_mu);
    return count;
}

void ws_read_cache_forget(const tool_env *env, const char *abs)
{
    pthread_mutex_lock(&cache_mu);
    size_t n = abs ? strlen(abs) : 0;
    for (size_t i = cache_len; i-- > 0;)
        if (cache[i].env == env &&
            (!abs || (strncmp(cache[i].abs, abs, n) == 0 &&
                      (cache[i].abs[n] == '\0' || cache[i].abs[n] == '\n'))))
            cache_remove_at(i);
    if (cache_len == 0) {
        free(cache);
        cache = NULL;
        cache_cap = 0;
    }
    pthread_mutex_unlock(&cache_mu);
}

size_t ws_read_cache_changed(const tool_env *env, const char *root, char **out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < cache_len && n < cap; i++) {
        cache_entry *e = &cache[i];
        if (e->env != env)
            continue;
        size_t plen = strcspn(e->abs, "\n");
        char *path = strndup(e->abs, plen);
        if (!path)
            continue;
        struct stat st;
        bool there = ws_stat_abs(root, path, &st, NULL) == HEW_OK;
        bool changed = !there ||
                       (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec != e->mtime_ns ||
                       (int64_t)st.st_size != e->size;
        if (changed) {
            /* Report it once: the next read (or this note) starts from the new stamp. */
            e->mtime_ns = there
                              ? (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec
                              : -1;
            e->size = e->mtime_ns < 0 ? -1 : (int64_t)st.st_size;
            e->count = 0;
            char *rel = path_relative_to(root, path);
            bool dup = false;
            for (size_t k = 0; k < n && rel; k++)
                dup = dup || strcmp(out[k], rel) == 0;
            if (rel && !dup)
                out[n++] = rel;
            else
                free(rel);
        }
        free(path);
    }
    pthread_mutex_unlock(&cache_mu);
    return n;
}
