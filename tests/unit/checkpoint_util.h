/* checkpoint_util — helpers shared by the checkpoint_*.c unit tests: scratch workspaces
 * with a private data dir and home, small file helpers, and running git in a test (through
 * sys/proc, with an argv) to inspect a user repository. Test-only. */
#ifndef HEW_TEST_CHECKPOINT_UTIL_H
#define HEW_TEST_CHECKPOINT_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fs.h"
#include "sys/path.h"
#include "check.h"
#include "checkpoint/checkpoint.h"
#include "tmpdir.h"
#include "sys/proc.h"

typedef struct tws {
    char *root;  /* the scratch directory */
    char *ws;    /* root/ws: the workspace */
    char *data;  /* root/data: hew's data directory */
    char *home;  /* root/home */
} tws;

static inline char *tjoin(const char *a, const char *b)
{
    char *p = path_join(a, b);
    if (!p)
        abort();
    return p;
}

static inline void tws_make(tws *t, const char *tag)
{
    t->root = tmpdir_make(tag);
    if (!t->root)
        abort();
    t->ws = tjoin(t->root, "ws");
    t->data = tjoin(t->root, "data");
    t->home = tjoin(t->root, "home");
    mkdir(t->ws, 0755);
    mkdir(t->home, 0755);
}

static inline void tws_free(tws *t)
{
    tmpdir_remove(t->root);
    free(t->root);
    free(t->ws);
    free(t->data);
    free(t->home);
}

static inline hew_code tws_open(const tws *t, const char *task, checkpoint **c, hew_err *err)
{
    checkpoint_opts o;
    checkpoint_opts_default(&o);
    o.workspace = t->ws;
    o.task_id = task;
    o.data_dir = t->data;
    o.home = t->home;
    return checkpoint_open(&o, c, err);
}

/* Write rel (folders created) with data[0..len). */
static inline void wfile(const char *ws, const char *rel, const void *data, size_t len)
{
    char *p = tjoin(ws, rel);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    fs_mkdirs(p, 0755, NULL);
    *slash = '/';
    FILE *f = fopen(p, "wb");
    if (!f)
        abort();
    fwrite(data, 1, len, f);
    fclose(f);
    free(p);
}

static inline void wtext(const char *ws, const char *rel, const char *text)
{
    wfile(ws, rel, text, strlen(text));
}

/* The content of rel as a new string, or NULL when it does not exist. */
static inline char *rtext(const char *ws, const char *rel, size_t *len)
{
    char *p = tjoin(ws, rel);
    char *out = NULL;
    size_t n = 0;
    if (fs_read_file(p, (size_t)64 << 20, &out, &n, NULL) != HEW_OK)
        out = NULL;
    free(p);
    if (len)
        *len = n;
    return out;
}

static inline bool exists_rel(const char *ws, const char *rel)
{
    char *p = tjoin(ws, rel);
    struct stat st;
    bool e = lstat(p, &st) == 0;
    free(p);
    return e;
}

static inline void rm_rel(const char *ws, const char *rel)
{
    char *p = tjoin(ws, rel);
    unlink(p);
    free(p);
}

#define CHECK_FILE(ws, rel, text)                                                          \
    do {                                                                                   \
        char *got_ = rtext((ws), (rel), NULL);                                             \
        check_count++;                                                                     \
        if (!got_ || strcmp(got_, (text)) != 0)                                            \
            check_fail(__FILE__, __LINE__, "%s: \"%s\" != \"%s\"", (rel),                  \
                       got_ ? got_ : "(missing)", (text));                                 \
        free(got_);                                                                        \
    } while (0)

#define CHECK_GONE(ws, rel)                                                                \
    do {                                                                                   \
        check_count++;                                                                     \
        if (exists_rel((ws), (rel)))                                                       \
            check_fail(__FILE__, __LINE__, "%s should not exist", (rel));                  \
    } while (0)

/* Run git (argv after "git") in dir with a test environment; stdout into out (may be
 * NULL). Returns the exit code, -1 when it could not run. */
static inline int tgit(const char *dir, buf *out, const char *const *args)
{
    const char *argv[64];
    size_t k = 0;
    argv[k++] = "git";
    argv[k++] = "-c";
    argv[k++] = "user.name=Test User";
    argv[k++] = "-c";
    argv[k++] = "user.email=test@example.invalid";
    argv[k++] = "-c";
    argv[k++] = "commit.gpgSign=false";
    argv[k++] = "-c";
    argv[k++] = "core.quotePath=false";
    for (size_t i = 0; args[i] && k < 63; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    proc_env env = PROC_ENV_INIT;
    proc_env_from_parent(&env, NULL);
    proc_env_set(&env, "GIT_CONFIG_NOSYSTEM", "1");
    proc_env_set(&env, "GIT_CONFIG_GLOBAL", "/dev/null");
    proc_env_set(&env, "LC_ALL", "C");
    proc_env_set(&env, "GIT_OPTIONAL_LOCKS", "0");
    proc_env_unset(&env, "GIT_DIR");
    proc_env_unset(&env, "GIT_WORK_TREE");
    proc_env_unset(&env, "GIT_INDEX_FILE");
    proc_env_unset(&env, "GIT_CONFIG_PARAMETERS");
    proc_env_unset(&env, "GIT_OBJECT_DIRECTORY");
    proc_opts o = { .argv = argv, .cwd = dir, .envp = proc_env_list(&env),
                    .separate_stderr = true, .timeout_ms = 30000 };
    buf tmp = BUF_INIT(0);
    proc_status st;
    hew_code rc = proc_run(&o, out ? out : &tmp, NULL, &st, NULL);
    buf_release(&tmp);
    proc_env_release(&env);
    if (rc != HEW_OK || st.end != PROC_EXITED)
        return -1;
    return st.exit_code;
}

#define GIT(dir, ...) tgit((dir), NULL, (const char *const[]){ __VA_ARGS__, NULL })
#define GIT_OUT(dir, out, ...) tgit((dir), (out), (const char *const[]){ __VA_ARGS__, NULL })

/* Index of the change for path in d, or -1. */
static inline long find_change(const checkpoint_changes *d, const char *path)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->files[i].path, path) == 0)
            return (long)i;
    return -1;
}

static inline bool paths_has(const checkpoint_paths *p, const char *path)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i], path) == 0)
            return true;
    return false;
}

#endif
