/* shadow — locating, creating and locking a workspace's shadow repository, and running git
 * against it (see shadow.h). It must never run git without --git-dir naming the shadow,
 * never let git read the user's or the system's configuration, hooks or attributes, never
 * build a shell command, and never create anything inside the workspace. */
#include "checkpoint/shadow.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/log.h"
#include "sys/path.h"
#include "sys/datadir.h"

#define SHADOW_OUT_MAX ((size_t)64 << 20)
#define SHADOW_ERR_MAX ((size_t)8 << 10)
#define SHADOW_ARGV_BYTES ((size_t)96 << 10) /* paths per batch call (well under ARG_MAX) */
#define SHADOW_ARGV_PATHS 2000

static const char *const git_config[] = {
    "core.hooksPath=/dev/null",
    "core.attributesFile=/dev/null",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.splitIndex=false",
    "core.sparseCheckout=false",
    "core.symlinks=true",
    "core.quotePath=false",
    "core.pager=cat",
    "core.askPass=",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "log.showSignature=false",
    "color.ui=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "submodule.recurse=false",
    "protocol.allow=never",
    "advice.detachedHead=false",
    "init.defaultBranch=main",
    "user.useConfigOnly=false",
};

/* ---- small helpers ---------------------------------------------------------------------- */

static char *dup_printf(const char *fmt, const char *a)
{
    size_t n = strlen(fmt) + strlen(a) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a);
    return s;
}

/* The directory name for a workspace path: 16 lowercase hex digits (FNV-1a 64). */
static void shadow_hash(const char *workspace, char out[17])
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)workspace; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

bool shadow_is_hash(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return n >= 4 && n <= 64;
}

static const char *home_dir(const char *given)
{
    if (given && *given)
        return given;
    const char *h = getenv("HOME");
    if (h && *h)
        return h;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

static char *data_dir(const char *given, const char *home, hew_err *err)
{
    if (given && *given) {
        char *d = strdup(given);
        if (!d)
            hew_err_set(err, HEW_E_NOMEM, "out of memory");
        return d;
    }
    const char *xdg = getenv("XDG_DATA_HOME");
    char *d = NULL;
    if (datadir_override())
        d = strdup(datadir_override());
    else if (xdg && xdg[0] == '/')
        d = path_join(xdg, "hew");
    else if (home)
        d = path_join(home, ".local/share/hew");
    else {
        hew_err_set(err, HEW_E_NOTFOUND,
                    "checkpoints are off: cannot find hew's data directory (none of "
                    "HEW_DATA_DIR, XDG_DATA_HOME and HOME is set)");
        return NULL;
    }
    if (!d)
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return d;
}

/* realpath of a/b when it exists, else NULL. */
static char *real_join(const char *a, const char *b)
{
    char *j = b ? path_join(a, b) : strdup(a);
    if (!j)
        return NULL;
    char *r = realpath(j, NULL);
    free(j);
    return r;
}

/* Refuse folders that are not projects. */
static hew_code check_refused(const char *ws, const char *home, hew_err *err)
{
    if (strcmp(ws, "/") == 0)
        return hew_err_set(err, HEW_E_INVALID,
                           "checkpoints are off: the workspace is the root folder \"/\"; "
                           "start hew in a project folder to get checkpoints");
    if (!home)
        return HEW_OK;
    static const struct {
        const char *sub, *what;
    } refused[] = {
        { NULL, "your home folder" },
        { "Desktop", "your Desktop folder" },
        { "Documents", "your Documents folder" },
        { "Downloads", "your Downloads folder" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *r = real_join(home, refused[i].sub);
        bool same = r && strcmp(r, ws) == 0;
        free(r);
        if (same)
            return hew_err_set(err, HEW_E_INVALID,
                               "checkpoints are off: %s is %s, which is not a project; "
                               "snapshotting it would copy personal files and take too "
                               "long — start hew in a project folder to get checkpoints",
                               ws, refused[i].what);
    }
    return HEW_OK;
}

static void env_build(proc_env *e, const shadow *s, const char *index)
{
    const char *path = getenv("PATH");
    proc_env_set(e, "PATH", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    proc_env_set(e, "HOME", s->dir);
    proc_env_set(e, "XDG_CONFIG_HOME", s->dir);
    proc_env_set(e, "LC_ALL", "C");
    proc_env_set(e, "LANG", "C");
    proc_env_set(e, "GIT_CONFIG_NOSYSTEM", "1");
    proc_env_set(e, "GIT_CONFIG_GLOBAL", "/dev/null");
    proc_env_set(e, "GIT_ATTR_NOSYSTEM", "1");
    proc_env_set(e, "GIT_AUTHOR_NAME", "hew");
    proc_env_set(e, "GIT_AUTHOR_EMAIL", "checkpoint@hew.invalid");
    proc_env_set(e, "GIT_COMMITTER_NAME", "hew");
    proc_env_set(e, "GIT_COMMITTER_EMAIL", "checkpoint@hew.invalid");
    proc_env_set(e, "GIT_TERMINAL_PROMPT", "0");
    proc_env_set(e, "GIT_PAGER", "cat");
    proc_env_set(e, "PAGER", "cat");
    proc_env_set(e, "GIT_OPTIONAL_LOCKS", "0");
    proc_env_set(e, "GIT_NO_REPLACE_OBJECTS", "1");
    proc_env_set(e, "GIT_ADVICE", "0");
    proc_env_set(e, "GIT_INDEX_FILE", index);
}

/* ---- running git ---------------------------------------------------------------------- */

struct errcap {
    buf *b;
};

static void on_stderr(void *ud, int stream, const char *data, size_t len)
{
    struct errcap *c = ud;
    if (stream != PROC_STDERR)
        return;
    size_t room = c->b->len < SHADOW_ERR_MAX ? SHADOW_ERR_MAX - c->b->len : 0;
    buf_append(c->b, data, len < room ? len : room);
}

/* The first line of git's complaint, for a message. */
static const char *first_line(buf *e)
{
    if (!e->data)
        return "(no message)";
    char *s = e->data;
    while (*s == '\n' || *s == ' ')
        s++;
    char *nl = strchr(s, '\n');
    if (nl && nl[1] && strncmp(s, "hint:", 5) != 0)
        *nl = '\0';
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
    return *s ? s : "(no message)";
}

hew_code shadow_git(shadow *s, const shadow_call *c, const char *const *args, buf *out,
                    hew_err *err)
{
    static const shadow_call none = { 0 };
    if (!c)
        c = &none;
    size_t nargs = 0;
    while (args[nargs])
        nargs++;
    size_t ncfg = sizeof git_config / sizeof git_config[0];
    size_t max = 6 + 2 * (ncfg + 2) + nargs + 1;
    const char **argv = calloc(max, sizeof *argv);
    char *sub_arg = NULL;
    if (!argv)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    size_t k = 0;
    argv[k++] = s->git;
    argv[k++] = s->arg_git_dir;
    const char *cwd = s->dir;
    if (c->sub_tree) {
        char *sub = path_join(s->workspace, c->sub_tree);
        sub_arg = sub ? dup_printf("--work-tree=%s", sub) : NULL;
        free(sub);
        if (!sub_arg) {
            free(argv);
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        }
        argv[k++] = sub_arg;
        cwd = s->workspace;
    } else if (c->work_tree) {
        argv[k++] = s->arg_work_tree;
        cwd = s->workspace;
    }
    argv[k++] = "--literal-pathspecs";
    argv[k++] = "--no-replace-objects";
    for (size_t i = 0; i < ncfg; i++) {
        argv[k++] = "-c";
        argv[k++] = git_config[i];
    }
    argv[k++] = "-c";
    argv[k++] = s->arg_excludes;
    if (c->pack) {
        argv[k++] = "-c";
        argv[k++] = "core.bigFileThreshold=1";
    }
    for (size_t i = 0; i < nargs; i++)
        argv[k++] = args[i];
    argv[k] = NULL;

    buf errb = BUF_INIT(SHADOW_ERR_MAX + 1);
    struct errcap ec = { &errb };
    buf dropped = BUF_INIT(1);
    buf *o = out ? out : &dropped;
    if (out && !out->max)
        out->max = SHADOW_OUT_MAX;
    proc_opts po = {
        .argv = argv,
        .cwd = cwd,
        .envp = proc_env_list(c->scratch_index ? &s->env_scratch : &s->env),
        .separate_stderr = true,
        .timeout_ms = s->timeout_ms,
        .abort = s->abort,
        .on_output = on_stderr,
        .ud = &ec,
    };
    bool truncated = false;
    proc_status st = { 0 };
    const char *cmd = nargs ? args[0] : "git";
    hew_code rc = proc_run(&po, o, &truncated, &st, err);
    free(argv);
    free(sub_arg);
    if (rc != HEW_OK) {
        if (rc == HEW_E_NOTFOUND)
            hew_err_set(err, HEW_E_NOTFOUND,
                        "checkpoints are off: git is not installed (\"%s\" was not found "
                        "on PATH) — install git to get checkpoints",
                        s->git);
        buf_release(&errb);
        buf_release(&dropped);
        return rc;
    }
    if (!out)
        truncated = false;
    buf_release(&dropped);
    if (st.end == PROC_TIMED_OUT) {
        rc = hew_err_set(err, HEW_E_TIMEOUT,
                         "checkpoint: git %s took longer than %ld s and was stopped (a very "
                         "large workspace makes checkpoints slow)",
                         cmd, s->timeout_ms / 1000);
    } else if (st.end == PROC_ABORTED) {
        rc = hew_err_set(err, HEW_E_ABORTED, "checkpoint: git %s was stopped (aborted)", cmd);
    } else if (st.end != PROC_EXITED) {
        char tmp[32];
        rc = hew_err_set(err, HEW_E_IO, "checkpoint: git %s ended by %s", cmd,
                         proc_signal_name(st.signal, tmp, sizeof tmp));
    } else if (truncated && !c->truncated) {
        rc = hew_err_set(err, HEW_E_TOOBIG,
                         "checkpoint: git %s printed more than %zu MiB (the workspace is "
                         "too large for checkpoints)",
                         cmd, o->max >> 20);
    } else if (st.exit_code != 0 && !c->exit_code) {
        rc = hew_err_set(err, HEW_E_IO, "checkpoint: git %s failed (exit %d): %s", cmd,
                         st.exit_code, first_line(&errb));
    } else if (c->exit_code) {
        *c->exit_code = st.exit_code;
    }
    if (c->truncated)
        *c->truncated = truncated;
    if (rc == HEW_OK && out && out->err != HEW_OK)
        rc = buf_check(out, "git output", err);
    buf_release(&errb);
    return rc;
}

hew_code shadow_git_paths(shadow *s, const shadow_call *c, const char *const *args,
                          char *const *paths, size_t n, buf *out, hew_err *err)
{
    size_t nargs = 0;
    while (args[nargs])
        nargs++;
    const char **argv = calloc(nargs + 2 + SHADOW_ARGV_PATHS + 1, sizeof *argv);
    if (!argv)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    memcpy(argv, args, nargs * sizeof *argv);
    argv[nargs] = "--";
    size_t i = 0;
    hew_code rc = HEW_OK;
    while (i < n && rc == HEW_OK) {
        size_t k = nargs + 1, bytes = 0;
        while (i < n && k < nargs + 1 + SHADOW_ARGV_PATHS &&
               (bytes == 0 || bytes + strlen(paths[i]) + 1 <= SHADOW_ARGV_BYTES)) {
            bytes += strlen(paths[i]) + 1;
            argv[k++] = paths[i++];
        }
        argv[k] = NULL;
        rc = shadow_git(s, c, argv, out, err);
    }
    free(argv);
    return rc;
}

hew_code shadow_head(shadow *s, char *hash, size_t cap, hew_err *err)
{
    buf out = BUF_INIT(4096);
    int code = 0;
    shadow_call c = { .exit_code = &code };
    const char *args[] = { "rev-parse", "-q", "--verify", "HEAD^{commit}", NULL };
    hew_code rc = shadow_git(s, &c, args, &out, err);
    hash[0] = '\0';
    if (rc == HEW_OK && code == 0) {
        size_t n = out.len;
        while (n && (out.data[n - 1] == '\n' || out.data[n - 1] == '\r'))
            n--;
        if (n == 0 || n >= cap) {
            rc = hew_err_set(err, HEW_E_PROTOCOL, "checkpoint: git rev-parse gave no hash");
        } else {
            memcpy(hash, out.data, n);
            hash[n] = '\0';
        }
    }
    buf_release(&out);
    return rc;
}

/* ---- the lock ---------------------------------------------------------------------------- */

static void remove_stale_locks(shadow *s)
{
    static const char *const names[] = { "index.lock", "scratch-index.lock", "HEAD.lock",
                                         "refs/heads/main.lock", "config.lock",
                                         "packed-refs.lock" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = path_join(s->git_dir, names[i]);
        if (p && unlink(p) == 0)
            hew_log(HEW_LOG_WARN, "checkpoint", "removed a stale %s left by a stopped git",
                    names[i]);
        free(p);
    }
}

hew_code shadow_lock(shadow *s, hew_err *err)
{
    long waited = 0;
    for (;;) {
        if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0)
            break;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return hew_err_set(err, HEW_E_IO, "checkpoint: cannot lock %s/lock: %s", s->dir,
                               strerror(errno));
        if (waited >= s->timeout_ms)
            return hew_err_set(err, HEW_E_TIMEOUT,
                               "checkpoint: another hew has been using the checkpoints of "
                               "%s for %ld s; try again when it is done",
                               s->workspace, waited / 1000);
        if (abort_sleep(s->abort, 20))
            return hew_err_set(err, HEW_E_ABORTED, "checkpoint: aborted");
        waited += 20;
    }
    s->locked = true;
    remove_stale_locks(s);
    return HEW_OK;
}

void shadow_unlock(shadow *s)
{
    if (s->locked) {
        flock(s->lock_fd, LOCK_UN);
        s->locked = false;
    }
}

/* ---- opening ----------------------------------------------------------------------------- */

static const char attributes[] =
    "# Written by hew: checkpoints store and restore bytes exactly, whatever the\n"
    "# workspace's .gitattributes say (no eol conversion, filters or ident).\n"
    "* -text !eol -filter -ident !working-tree-encoding !diff\n";

/* Pick <base>/<hash>[-n] whose workspace file names ws (or that is new). */
static hew_code pick_dir(const char *base, const char *ws, char **out, hew_err *err)
{
    char hash[17];
    shadow_hash(ws, hash);
    for (int n = 1; n <= 16; n++) {
        char name[32];
        if (n == 1)
            snprintf(name, sizeof name, "%s", hash);
        else
            snprintf(name, sizeof name, "%s-%d", hash, n);
        char *dir = path_join(base, name);
        char *wsf = dir ? path_join(dir, "workspace") : NULL;
        if (!wsf) {
            free(dir);
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        }
        char *have = NULL;
        size_t len = 0;
        hew_code rc = fs_read_file(wsf, PATH_MAX + 2, &have, &len, NULL);
        free(wsf);
        if (rc == HEW_E_NOTFOUND) {
            *out = dir;
            return HEW_OK;
        }
        bool same = rc == HEW_OK && len == strlen(ws) + 1 && memcmp(have, ws, len - 1) == 0 &&
                    have[len - 1] == '\n';
        free(have);
        if (same) {
            *out = dir;
            return HEW_OK;
        }
        free(dir);
    }
    return hew_err_set(err, HEW_E_INTERNAL, "checkpoint: no free shadow directory under %s",
                       base);
}

static hew_code write_if_changed(const char *path, const char *text, hew_err *err)
{
    char *have = NULL;
    size_t len = 0;
    if (fs_read_file(path, (size_t)1 << 20, &have, &len, NULL) == HEW_OK &&
        len == strlen(text) && memcmp(have, text, len) == 0) {
        free(have);
        return HEW_OK;
    }
    free(have);
    return fs_write_atomic(path, text, strlen(text), 0600, err);
}

static hew_code init_repo(shadow *s, hew_err *err)
{
    char *head = path_join(s->git_dir, "HEAD");
    if (!head)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    bool exists = fs_is_file(head);
    free(head);
    hew_code rc = HEW_OK;
    if (!exists) {
        const char *args[] = { "init", "--bare", "-q", "--template=", NULL };
        rc = shadow_git(s, NULL, args, NULL, err);
        if (rc != HEW_OK)
            return rc;
        const char *cfg[] = { "config", "core.logAllRefUpdates", "true", NULL };
        rc = shadow_git(s, NULL, cfg, NULL, err);
        if (rc != HEW_OK)
            return rc;
        hew_log(HEW_LOG_INFO, "checkpoint", "new shadow repository %s for %s", s->git_dir,
                s->workspace);
    }
    char *info = path_join(s->git_dir, "info");
    char *attr = info ? path_join(info, "attributes") : NULL;
    if (!attr) {
        free(info);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    rc = fs_mkdirs(info, 0700, err);
    if (rc == HEW_OK)
        rc = write_if_changed(attr, attributes, err);
    free(info);
    free(attr);
    return rc;
}

hew_code shadow_open(shadow *s, const shadow_opts *o, hew_err *err)
{
    *s = (shadow){ .lock_fd = -1, .env = PROC_ENV_INIT, .env_scratch = PROC_ENV_INIT };
    s->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 15000;
    s->abort = o->abort;
    s->git = strdup(o->git && *o->git ? o->git : "git");
    if (!s->git)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    hew_code rc = HEW_OK;
    char *data = NULL, *base = NULL, *wsfile = NULL, *user_excl = NULL;
    const char *home = home_dir(o->home);

    if (!o->workspace || !*o->workspace) {
        rc = hew_err_set(err, HEW_E_INVALID, "checkpoints are off: no workspace folder");
        goto out;
    }
    s->workspace = realpath(o->workspace, NULL);
    if (!s->workspace) {
        rc = hew_err_set(err, errno == ENOENT ? HEW_E_NOTFOUND : HEW_E_IO,
                         "checkpoints are off: cannot open the workspace %s: %s",
                         o->workspace, strerror(errno));
        goto out;
    }
    if (!fs_is_dir(s->workspace)) {
        rc = hew_err_set(err, HEW_E_INVALID, "checkpoints are off: %s is not a folder",
                         s->workspace);
        goto out;
    }
    rc = check_refused(s->workspace, home, err);
    if (rc != HEW_OK)
        goto out;

    data = data_dir(o->data_dir, home, err);
    if (!data) {
        rc = err ? err->code : HEW_E_NOMEM;
        goto out;
    }
    base = path_join(data, "checkpoints");
    if (!base) {
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        goto out;
    }
    rc = fs_mkdirs(base, 0700, err);
    if (rc != HEW_OK)
        goto out;
    {
        char *rbase = realpath(base, NULL);
        bool inside = rbase && path_is_inside(s->workspace, rbase);
        free(rbase);
        if (inside) {
            rc = hew_err_set(err, HEW_E_INVALID,
                             "checkpoints are off: hew keeps checkpoints in %s, which is "
                             "inside the workspace %s; start hew in a project folder",
                             base, s->workspace);
            goto out;
        }
    }
    rc = pick_dir(base, s->workspace, &s->dir, err);
    if (rc != HEW_OK)
        goto out;
    rc = fs_mkdirs(s->dir, 0700, err);
    if (rc != HEW_OK)
        goto out;
    s->git_dir = path_join(s->dir, "git");
    s->exclude_path = s->git_dir ? path_join(s->git_dir, "info/exclude") : NULL;
    s->arg_git_dir = s->git_dir ? dup_printf("--git-dir=%s", s->git_dir) : NULL;
    s->arg_work_tree = dup_printf("--work-tree=%s", s->workspace);
    user_excl = path_join(s->workspace, ".git/info/exclude");
    s->arg_excludes = user_excl ? dup_printf("core.excludesFile=%s",
                                             fs_is_file(user_excl) ? user_excl : "/dev/null")
                                : NULL;
    char *index = s->git_dir ? path_join(s->git_dir, "index") : NULL;
    char *scratch = s->git_dir ? path_join(s->git_dir, "scratch-index") : NULL;
    wsfile = path_join(s->dir, "workspace");
    char *lock = path_join(s->dir, "lock");
    if (!s->exclude_path || !s->arg_git_dir || !s->arg_work_tree || !s->arg_excludes ||
        !index || !scratch || !wsfile || !lock) {
        free(index);
        free(scratch);
        free(lock);
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        goto out;
    }
    env_build(&s->env, s, index);
    env_build(&s->env_scratch, s, scratch);
    free(index);
    free(scratch);
    if (s->env.oom || s->env_scratch.oom) {
        free(lock);
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        goto out;
    }
    s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (s->lock_fd < 0) {
        rc = hew_err_set(err, HEW_E_IO, "checkpoints are off: cannot create %s: %s", lock,
                         strerror(errno));
        free(lock);
        goto out;
    }
    free(lock);

    {
        /* git present and working? */
        buf ver = BUF_INIT(4096);
        const char *args[] = { "--version", NULL };
        rc = shadow_git(s, NULL, args, &ver, err);
        if (rc == HEW_OK && (!ver.data || strncmp(ver.data, "git version ", 12) != 0))
            rc = hew_err_set(err, HEW_E_NOTFOUND,
                             "checkpoints are off: \"%s --version\" did not answer like git",
                             s->git);
        buf_release(&ver);
        if (rc != HEW_OK)
            goto out;
    }
    rc = shadow_lock(s, err);
    if (rc != HEW_OK)
        goto out;
    rc = init_repo(s, err);
    if (rc == HEW_OK) {
        size_t n = strlen(s->workspace);
        char *text = malloc(n + 2);
        if (!text) {
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        } else {
            memcpy(text, s->workspace, n);
            text[n] = '\n';
            text[n + 1] = '\0';
            rc = write_if_changed(wsfile, text, err);
            free(text);
        }
    }
    shadow_unlock(s);

out:
    free(data);
    free(base);
    free(wsfile);
    free(user_excl);
    if (rc != HEW_OK)
        shadow_release(s);
    return rc;
}

void shadow_release(shadow *s)
{
    if (!s)
        return;
    shadow_unlock(s);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    free(s->workspace);
    free(s->dir);
    free(s->git_dir);
    free(s->exclude_path);
    free(s->arg_git_dir);
    free(s->arg_work_tree);
    free(s->arg_excludes);
    free(s->git);
    proc_env_release(&s->env);
    proc_env_release(&s->env_scratch);
    *s = (shadow){ .lock_fd = -1 };
}
