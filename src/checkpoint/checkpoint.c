/* checkpoint — the public checkpoint API (see checkpoint.h): the object and its turn-taking,
 * the worker thread for asynchronous commits, commit, list, diff and restore. It must never
 * delete or overwrite a workspace file whose current content is not saved in a checkpoint,
 * never touch a path through a symlinked folder, never reset, clean or check out the
 * whole work tree, and never run git other than through shadow_git. */
#include "checkpoint/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "sys/clock.h"
#include "base/log.h"
#include "sys/path.h"
#include "checkpoint/pathlist.h"
#include "checkpoint/shadow.h"
#include "checkpoint/stage.h"

struct job {
    struct job *next;
    checkpoint_kind kind;
    checkpoint_done_fn done;
    void *ud;
};

struct checkpoint {
    shadow sh;
    char *task_id;
    size_t max_file_bytes;
    hew_abort *abort;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool busy;                /* an operation has the turn */
    struct job *head, *tail;  /* queued asynchronous commits */
    size_t reporting;         /* jobs run whose callbacks have not returned yet */
    bool worker_started, stop;
    pthread_t worker;
};

static const char *const kind_names[] = {
    [CHECKPOINT_INITIAL] = "initial",   [CHECKPOINT_TURN] = "turn",
    [CHECKPOINT_COMPLETION] = "completion", [CHECKPOINT_MANUAL] = "manual",
    [CHECKPOINT_SAFETY] = "safety",     [CHECKPOINT_RESTORED] = "restored",
    [CHECKPOINT_RESUMED] = "resumed",
};

const char *checkpoint_kind_name(checkpoint_kind k)
{
    if ((size_t)k < sizeof kind_names / sizeof kind_names[0])
        return kind_names[k];
    return "manual";
}

static checkpoint_kind kind_from(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
        if (strlen(kind_names[i]) == n && memcmp(kind_names[i], s, n) == 0)
            return (checkpoint_kind)i;
    return CHECKPOINT_MANUAL;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

void checkpoint_opts_default(checkpoint_opts *o)
{
    *o = (checkpoint_opts){
        .timeout_ms = CHECKPOINT_TIMEOUT_MS,
        .max_file_bytes = CHECKPOINT_MAX_FILE_BYTES,
    };
}

/* A task id fit for one line of a commit message. */
static char *clean_task_id(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n > 200)
        n = 200;
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)id[i];
        s[i] = ch < 0x20 || ch == 0x7f ? '_' : (char)ch;
    }
    s[n] = '\0';
    return s;
}

hew_code checkpoint_open(const checkpoint_opts *o, checkpoint **out, hew_err *err)
{
    *out = NULL;
    checkpoint *c = calloc(1, sizeof *c);
    if (!c)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    c->task_id = clean_task_id(o->task_id);
    if (!c->task_id) {
        free(c);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    c->max_file_bytes = o->max_file_bytes ? o->max_file_bytes : CHECKPOINT_MAX_FILE_BYTES;
    c->abort = o->abort;
    shadow_opts so = {
        .workspace = o->workspace,
        .data_dir = o->data_dir,
        .home = o->home,
        .git = o->git,
        .timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : CHECKPOINT_TIMEOUT_MS,
        .abort = o->abort,
    };
    hew_code rc = shadow_open(&c->sh, &so, err);
    if (rc != HEW_OK) {
        free(c->task_id);
        free(c);
        return rc;
    }
    pthread_mutex_init(&c->mu, NULL);
    clock_cond_init(&c->cv);
    *out = c;
    return HEW_OK;
}

void checkpoint_free(checkpoint *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = true;
    pthread_cond_broadcast(&c->cv);
    bool started = c->worker_started;
    pthread_mutex_unlock(&c->mu);
    if (started)
        pthread_join(c->worker, NULL);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    shadow_release(&c->sh);
    free(c->task_id);
    free(c);
}

const char *checkpoint_workspace(const checkpoint *c)
{
    return c->sh.workspace;
}

const char *checkpoint_shadow_dir(const checkpoint *c)
{
    return c->sh.dir;
}

/* ---- turns ------------------------------------------------------------------------------ */

static void cv_wait_ms(checkpoint *c, long ms)
{
    clock_cond_wait_ms(&c->cv, &c->mu, ms);
}

/* A blocking call's turn: after every queued asynchronous commit, one at a time, then the
 * lock file. */
static hew_code turn_take(checkpoint *c, hew_err *err)
{
    pthread_mutex_lock(&c->mu);
    while (c->busy || c->head) {
        if (abort_is_set(c->abort)) {
            pthread_mutex_unlock(&c->mu);
            return hew_err_set(err, HEW_E_ABORTED, "checkpoint: aborted");
        }
        cv_wait_ms(c, 50);
    }
    c->busy = true;
    pthread_mutex_unlock(&c->mu);
    hew_code rc = shadow_lock(&c->sh, err);
    if (rc != HEW_OK) {
        pthread_mutex_lock(&c->mu);
        c->busy = false;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    return rc;
}

static void turn_give(checkpoint *c)
{
    shadow_unlock(&c->sh);
    pthread_mutex_lock(&c->mu);
    c->busy = false;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* ---- commit ------------------------------------------------------------------------------ */

static void trim_nl(buf *b)
{
    while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == '\r'))
        b->data[--b->len] = '\0';
}

/* Copy a one-line git answer (a hash) into dst. */
static hew_code take_hash(buf *b, char *dst, const char *what, hew_err *err)
{
    trim_nl(b);
    if (!b->data || !shadow_is_hash(b->data) || b->len >= CHECKPOINT_HASH_MAX)
        return hew_err_set(err, HEW_E_PROTOCOL, "checkpoint: git %s gave no hash", what);
    memcpy(dst, b->data, b->len + 1);
    return HEW_OK;
}

/* The commit a checkpoint id names, in full. */
static hew_code resolve(checkpoint *c, const char *id, char *full, hew_err *err)
{
    if (!id || !shadow_is_hash(id))
        return hew_err_set(err, HEW_E_INVALID,
                           "checkpoint: \"%s\" is not a checkpoint id (4 to 64 hex digits)",
                           id ? id : "(null)");
    size_t n = strlen(id);
    char spec[CHECKPOINT_HASH_MAX + 16];
    memcpy(spec, id, n);
    memcpy(spec + n, "^{commit}", 10);
    const char *args[] = { "rev-parse", "-q", "--verify", spec, NULL };
    int code = 0;
    shadow_call sc = { .exit_code = &code };
    buf out = BUF_INIT(4096);
    hew_code rc = shadow_git(&c->sh, &sc, args, &out, err);
    if (rc == HEW_OK && code != 0)
        rc = hew_err_set(err, HEW_E_NOTFOUND,
                         "checkpoint: this workspace has no checkpoint %s (see the list of "
                         "checkpoints)",
                         id);
    if (rc == HEW_OK)
        rc = take_hash(&out, full, "rev-parse", err);
    buf_release(&out);
    return rc;
}

static hew_code commit_locked(checkpoint *c, checkpoint_kind kind, checkpoint_commit_info *info,
                              hew_err *err)
{
    long long t0 = clock_now_ms();
    *info = (checkpoint_commit_info){ 0 };
    stage_report rep = STAGE_REPORT_INIT;
    buf out = BUF_INIT(4096);
    char tree[CHECKPOINT_HASH_MAX] = "", parent_tree[CHECKPOINT_HASH_MAX] = "";
    hew_code rc = stage_worktree(&c->sh, c->max_file_bytes, &rep, err);
    if (rc != HEW_OK)
        goto done;
    if (rep.too_big.n)
        hew_log(HEW_LOG_INFO, "checkpoint", "%zu file(s) over %zu bytes left out, e.g. %s",
                rep.too_big.n, c->max_file_bytes, rep.too_big.v[0]);
    info->files_too_big = rep.too_big.n;
    info->files_unreadable = rep.unreadable.n;
    info->nested_repos = rep.nested_repos;

    {
        const char *args[] = { "write-tree", NULL };
        rc = shadow_git(&c->sh, NULL, args, &out, err);
        if (rc == HEW_OK)
            rc = take_hash(&out, tree, "write-tree", err);
        if (rc != HEW_OK)
            goto done;
    }
    {
        /* the parent and its tree in one call; no HEAD yet: the first checkpoint */
        buf_reset(&out);
        int code = 0;
        shadow_call sc = { .exit_code = &code };
        const char *args[] = { "rev-parse", "HEAD^{commit}", "HEAD^{tree}", NULL };
        rc = shadow_git(&c->sh, &sc, args, &out, err);
        if (rc != HEW_OK)
            goto done;
        if (code == 0) {
            char *nl = out.data ? strchr(out.data, '\n') : NULL;
            if (!nl || nl - out.data >= CHECKPOINT_HASH_MAX) {
                rc = hew_err_set(err, HEW_E_PROTOCOL, "checkpoint: git rev-parse HEAD failed");
                goto done;
            }
            memcpy(info->parent, out.data, (size_t)(nl - out.data));
            info->parent[nl - out.data] = '\0';
            buf tail = BUF_INIT(4096);
            buf_puts(&tail, nl + 1);
            rc = take_hash(&tail, parent_tree, "rev-parse", err);
            buf_release(&tail);
            if (rc != HEW_OK || !shadow_is_hash(info->parent)) {
                rc = hew_err_set(err, HEW_E_PROTOCOL, "checkpoint: git rev-parse HEAD failed");
                goto done;
            }
        }
    }
    info->changed = strcmp(tree, parent_tree) != 0;
    {
        buf msg = BUF_INIT(1024);
        buf_printf(&msg, "hew checkpoint (%s)\n\nHew-Kind: %s\n", checkpoint_kind_name(kind),
                   checkpoint_kind_name(kind));
        if (c->task_id[0])
            buf_printf(&msg, "Hew-Task: %s\n", c->task_id);
        rc = buf_check(&msg, "commit message", err);
        if (rc == HEW_OK) {
            buf_reset(&out);
            const char *with_parent[] = { "commit-tree", tree, "-p", info->parent, "-m",
                                          msg.data, NULL };
            const char *root[] = { "commit-tree", tree, "-m", msg.data, NULL };
            rc = shadow_git(&c->sh, NULL, info->parent[0] ? with_parent : root, &out, err);
            if (rc == HEW_OK)
                rc = take_hash(&out, info->hash, "commit-tree", err);
        }
        buf_release(&msg);
        if (rc != HEW_OK)
            goto done;
    }
    {
        /* compare-and-swap: HEAD must still be the parent (or not exist) */
        const char *args[] = { "update-ref", "-m", "hew checkpoint", "HEAD", info->hash,
                               info->parent, NULL };
        rc = shadow_git(&c->sh, NULL, args, NULL, err);
        if (rc != HEW_OK)
            goto done;
    }
    info->elapsed_ms = clock_now_ms() - t0;
    hew_log(HEW_LOG_INFO, "checkpoint", "%s %s (%s, %zu files listed, %lld ms)",
            checkpoint_kind_name(kind), info->hash, info->changed ? "changed" : "unchanged",
            rep.listed, info->elapsed_ms);

done:
    if (rc != HEW_OK)
        info->hash[0] = '\0';
    stage_report_release(&rep);
    buf_release(&out);
    return rc;
}

hew_code checkpoint_commit(checkpoint *c, checkpoint_kind kind, checkpoint_commit_info *info,
                           hew_err *err)
{
    checkpoint_commit_info tmp;
    if (!info)
        info = &tmp;
    *info = (checkpoint_commit_info){ 0 };
    hew_code rc = turn_take(c, err);
    if (rc != HEW_OK)
        return rc;
    rc = commit_locked(c, kind, info, err);
    turn_give(c);
    return rc;
}

/* ---- the worker -------------------------------------------------------------------------- */

static void *worker_main(void *arg)
{
    checkpoint *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->head && !c->stop)
            pthread_cond_wait(&c->cv, &c->mu);
        if (!c->head)
            break; /* stop, and nothing left */
        while (c->busy)
            pthread_cond_wait(&c->cv, &c->mu);
        struct job *j = c->head;
        c->head = j->next;
        if (!c->head)
            c->tail = NULL;
        c->busy = true;
        c->reporting++;
        pthread_mutex_unlock(&c->mu);

        checkpoint_commit_info info = { 0 };
        hew_err err = HEW_ERR_INIT;
        hew_code rc = shadow_lock(&c->sh, &err);
        if (rc == HEW_OK) {
            rc = commit_locked(c, j->kind, &info, &err);
            shadow_unlock(&c->sh);
        }
        if (rc != HEW_OK)
            hew_log(HEW_LOG_WARN, "checkpoint", "%s checkpoint failed: %s",
                    checkpoint_kind_name(j->kind), err.msg);

        pthread_mutex_lock(&c->mu);
        c->busy = false;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);

        if (j->done)
            j->done(j->ud, rc, rc == HEW_OK ? &info : NULL, rc == HEW_OK ? NULL : &err);
        free(j);

        pthread_mutex_lock(&c->mu);
        c->reporting--;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

hew_code checkpoint_commit_async(checkpoint *c, checkpoint_kind kind, checkpoint_done_fn done,
                                 void *ud, hew_err *err)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    *j = (struct job){ NULL, kind, done, ud };
    pthread_mutex_lock(&c->mu);
    if (c->stop) {
        pthread_mutex_unlock(&c->mu);
        free(j);
        return hew_err_set(err, HEW_E_INVALID, "checkpoint: the object is being freed");
    }
    if (!c->worker_started) {
        int e = pthread_create(&c->worker, NULL, worker_main, c);
        if (e != 0) {
            pthread_mutex_unlock(&c->mu);
            free(j);
            return hew_err_set(err, HEW_E_IO, "checkpoint: cannot start a thread: %s",
                               strerror(e));
        }
        c->worker_started = true;
    }
    if (c->tail)
        c->tail->next = j;
    else
        c->head = j;
    c->tail = j;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return HEW_OK;
}

void checkpoint_drain(checkpoint *c)
{
    pthread_mutex_lock(&c->mu);
    while (c->head || c->reporting)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

/* ---- list -------------------------------------------------------------------------------- */

void checkpoint_entries_release(checkpoint_entries *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].task_id);
    free(l->v);
    *l = (checkpoint_entries){ 0 };
}

/* The value of "Key: value" among the lines of body[0..n), or NULL. */
static const char *trailer(const char *body, size_t n, const char *key, size_t *vlen)
{
    size_t klen = strlen(key);
    const char *p = body, *end = body + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if ((size_t)(le - p) >= klen && memcmp(p, key, klen) == 0) {
            *vlen = (size_t)(le - p - (ptrdiff_t)klen);
            return p + klen;
        }
        p = le + 1;
    }
    return NULL;
}

static hew_code list_locked(checkpoint *c, bool all, checkpoint_entries *outl, hew_err *err)
{
    char head[CHECKPOINT_HASH_MAX];
    hew_code rc = shadow_head(&c->sh, head, sizeof head, err);
    if (rc != HEW_OK || !head[0])
        return rc;
    buf out = BUF_INIT(0);
    const char *args[] = { "log", "-z", "--format=%H%x1f%ct%x1f%B", head, NULL };
    rc = shadow_git(&c->sh, NULL, args, &out, err);
    size_t cap = 0;
    for (size_t i = 0; rc == HEW_OK && i < out.len;) {
        const char *rec = out.data + i;
        size_t n = strlen(rec);
        i += n + 1;
        const char *f1 = memchr(rec, 0x1f, n);
        const char *f2 = f1 ? memchr(f1 + 1, 0x1f, (size_t)(rec + n - f1 - 1)) : NULL;
        if (!f2 || (size_t)(f1 - rec) >= CHECKPOINT_HASH_MAX)
            continue;
        const char *body = f2 + 1;
        size_t blen = (size_t)(rec + n - body);
        size_t tlen = 0, klen = 0;
        const char *task = trailer(body, blen, "Hew-Task: ", &tlen);
        const char *kind = trailer(body, blen, "Hew-Kind: ", &klen);
        if (!task)
            tlen = 0;
        if (!all && (tlen != strlen(c->task_id) || (tlen && memcmp(task, c->task_id, tlen))))
            continue;
        if (outl->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            checkpoint_entry *v = realloc(outl->v, nc * sizeof *v);
            if (!v) {
                rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
                break;
            }
            outl->v = v;
            cap = nc;
        }
        checkpoint_entry *e = &outl->v[outl->n];
        *e = (checkpoint_entry){ 0 };
        memcpy(e->hash, rec, (size_t)(f1 - rec));
        e->hash[f1 - rec] = '\0';
        e->time = strtoll(f1 + 1, NULL, 10);
        e->kind = kind ? kind_from(kind, klen) : CHECKPOINT_MANUAL;
        e->task_id = strndup(task ? task : "", tlen);
        if (!e->task_id) {
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
            break;
        }
        outl->n++;
    }
    buf_release(&out);
    /* git log gives newest first */
    for (size_t a = 0, b = outl->n ? outl->n - 1 : 0; a < b; a++, b--) {
        checkpoint_entry t = outl->v[a];
        outl->v[a] = outl->v[b];
        outl->v[b] = t;
    }
    return rc;
}

hew_code checkpoint_list(checkpoint *c, bool all_tasks, checkpoint_entries *out, hew_err *err)
{
    *out = (checkpoint_entries){ 0 };
    hew_code rc = turn_take(c, err);
    if (rc != HEW_OK)
        return rc;
    rc = list_locked(c, all_tasks, out, err);
    turn_give(c);
    if (rc != HEW_OK)
        checkpoint_entries_release(out);
    return rc;
}

/* ---- diff -------------------------------------------------------------------------------- */

void checkpoint_changes_release(checkpoint_changes *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->files[i].path);
        free(d->files[i].old_path);
    }
    free(d->files);
    free(d->patch);
    *d = (checkpoint_changes){ 0 };
}

/* `--name-status -z` records: "<status>\0<path>\0" or "<R|C>NNN\0<old>\0<new>\0". */
static hew_code parse_name_status(const buf *b, checkpoint_changes *d, hew_err *err)
{
    size_t cap = 0, i = 0;
    while (i < b->len) {
        const char *st = b->data + i;
        i += strlen(st) + 1;
        if (!*st || i >= b->len)
            continue;
        const char *p1 = b->data + i;
        i += strlen(p1) + 1;
        const char *p2 = NULL;
        if ((st[0] == 'R' || st[0] == 'C') && i < b->len) {
            p2 = b->data + i;
            i += strlen(p2) + 1;
        }
        if (d->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            checkpoint_change *v = realloc(d->files, nc * sizeof *v);
            if (!v)
                return hew_err_set(err, HEW_E_NOMEM, "out of memory");
            d->files = v;
            cap = nc;
        }
        checkpoint_change *ch = &d->files[d->n];
        ch->status = st[0];
        ch->path = strdup(p2 ? p2 : p1);
        ch->old_path = p2 ? strdup(p1) : NULL;
        d->n++;
        if (!ch->path || (p2 && !ch->old_path))
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    }
    return HEW_OK;
}

static hew_code diff_locked(checkpoint *c, const char *from, const char *to, size_t patch_max,
                            checkpoint_changes *d, hew_err *err)
{
    char a[CHECKPOINT_HASH_MAX], b[CHECKPOINT_HASH_MAX] = "";
    hew_code rc = resolve(c, from, a, err);
    if (rc == HEW_OK && to)
        rc = resolve(c, to, b, err);
    if (rc != HEW_OK)
        return rc;
    if (!to) {
        stage_report rep = STAGE_REPORT_INIT;
        rc = stage_worktree(&c->sh, c->max_file_bytes, &rep, err);
        stage_report_release(&rep);
        if (rc != HEW_OK)
            return rc;
    }
    buf out = BUF_INIT(0);
    {
        const char *now[] = { "diff", "--no-ext-diff", "--no-textconv", "-M", "-z",
                              "--name-status", "--cached", a, NULL };
        const char *two[] = { "diff", "--no-ext-diff", "--no-textconv", "-M", "-z",
                              "--name-status", a, b, NULL };
        rc = shadow_git(&c->sh, NULL, to ? two : now, &out, err);
        if (rc == HEW_OK)
            rc = parse_name_status(&out, d, err);
    }
    if (rc == HEW_OK) {
        buf patch = BUF_INIT(patch_max ? patch_max : CHECKPOINT_PATCH_MAX);
        shadow_call sc = { .truncated = &d->patch_truncated };
        const char *now[] = { "diff", "--no-ext-diff", "--no-textconv", "--no-color", "-M",
                              "--cached", a, NULL };
        const char *two[] = { "diff", "--no-ext-diff", "--no-textconv", "--no-color", "-M",
                              a, b, NULL };
        rc = shadow_git(&c->sh, &sc, to ? two : now, &patch, err);
        if (rc == HEW_OK) {
            d->patch = buf_detach(&patch, &d->patch_len);
            if (!d->patch)
                rc = hew_err_set(err, HEW_E_NOMEM, "out of memory");
        }
        buf_release(&patch);
    }
    buf_release(&out);
    return rc;
}

hew_code checkpoint_diff(checkpoint *c, const char *from, const char *to, size_t patch_max,
                         checkpoint_changes *out, hew_err *err)
{
    *out = (checkpoint_changes){ 0 };
    hew_code rc = turn_take(c, err);
    if (rc != HEW_OK)
        return rc;
    rc = diff_locked(c, from, to, patch_max, out, err);
    turn_give(c);
    if (rc != HEW_OK)
        checkpoint_changes_release(out);
    return rc;
}

/* ---- restore ----------------------------------------------------------------------------- */

static void paths_release(checkpoint_paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    *p = (checkpoint_paths){ 0 };
}

void checkpoint_restore_result_release(checkpoint_restore_result *r)
{
    if (!r)
        return;
    paths_release(&r->written);
    paths_release(&r->deleted);
    paths_release(&r->kept);
}

/* Hand a pathlist's strings over to a checkpoint_paths. */
static void paths_take(checkpoint_paths *dst, pathlist *src)
{
    dst->v = src->v;
    dst->n = src->n;
    free(src->status);
    *src = (pathlist)PATHLIST_INIT;
}

/* Remove the folders above rel that the deletion left empty (never the workspace). */
static void prune_empty(int wfd, const char *rel)
{
    char tmp[4096];
    size_t n = strlen(rel);
    if (n >= sizeof tmp)
        return;
    memcpy(tmp, rel, n + 1);
    for (char *slash = strrchr(tmp, '/'); slash; slash = strrchr(tmp, '/')) {
        *slash = '\0';
        if (unlinkat(wfd, tmp, AT_REMOVEDIR) != 0)
            break;
    }
}

static hew_code restore_locked(checkpoint *c, const char *target,
                               checkpoint_restore_result *res, hew_err *err)
{
    pathlist changed = PATHLIST_INIT, cand = PATHLIST_INIT, known = PATHLIST_INIT;
    pathlist written = PATHLIST_INIT, deleted = PATHLIST_INIT, kept = PATHLIST_INIT;
    buf out = BUF_INIT(0);
    int wfd = -1;
    hew_code rc = resolve(c, target, res->target, err);
    if (rc != HEW_OK)
        goto done;

    /* 1. save the present */
    checkpoint_commit_info safety;
    rc = commit_locked(c, CHECKPOINT_SAFETY, &safety, err);
    if (rc != HEW_OK) {
        hew_err_wrap(err, "nothing was restored: saving the current state failed");
        goto done;
    }
    memcpy(res->safety, safety.hash, sizeof res->safety);

    /* 2. what differs between now and the target */
    {
        const char *args[] = { "diff-tree", "-r", "-z", "--no-renames", "--name-status",
                               res->safety, res->target, NULL };
        rc = shadow_git(&c->sh, NULL, args, &out, err);
        if (rc != HEW_OK)
            goto done;
        for (size_t i = 0; i < out.len;) {
            const char *st = out.data + i;
            i += strlen(st) + 1;
            if (!*st || i >= out.len)
                continue;
            const char *p = out.data + i;
            i += strlen(p) + 1;
            pathlist_add_str(&changed, p, st[0]);
            if (st[0] == 'D')
                pathlist_add_str(&cand, p, 'D');
        }
        rc = pathlist_check(&changed, err);
        if (rc == HEW_OK)
            rc = pathlist_check(&cand, err);
        if (rc != HEW_OK)
            goto done;
    }

    /* 3. of the files the target lacks, those a checkpoint after the target (not a
     *    safety one) changed or added: the only ones a restore may delete */
    if (cand.n) {
        size_t tl = strlen(res->target), sl = strlen(res->safety);
        char range[2 * CHECKPOINT_HASH_MAX + 4];
        memcpy(range, res->target, tl);
        memcpy(range + tl, "..", 2);
        memcpy(range + tl + 2, res->safety, sl + 1);
        const char *args[] = { "log", "--no-renames", "--name-only", "-z", "--format=",
                               "--invert-grep", "--grep=^Hew-Kind: safety$", range, NULL };
        buf_reset(&out);
        rc = shadow_git_paths(&c->sh, NULL, args, cand.v, cand.n, &out, err);
        if (rc != HEW_OK)
            goto done;
        pathlist_add_z(&known, out.data, out.len);
        pathlist_sort_unique(&known);
        rc = pathlist_check(&known, err);
        if (rc != HEW_OK)
            goto done;
    }

    wfd = open(c->sh.workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (wfd < 0) {
        rc = hew_err_set(err, HEW_E_IO, "checkpoint: cannot open the workspace %s: %s",
                         c->sh.workspace, strerror(errno));
        goto done;
    }

    /* 4. deletions first (a folder may have to make room for a file) */
    for (size_t i = 0; i < cand.n; i++) {
        const char *p = cand.v[i];
        if (!pathlist_has(&known, p)) {
            pathlist_add_str(&kept, p, 0);
            continue;
        }
        stage_where w = stage_look(wfd, p);
        if (w == STAGE_ABSENT)
            continue;
        if (w != STAGE_FILE) {
            pathlist_add_str(&kept, p, 0);
            continue;
        }
        if (unlinkat(wfd, p, 0) != 0) {
            rc = hew_err_set(err, HEW_E_IO, "checkpoint: cannot delete %s: %s", p,
                             strerror(errno));
            goto done;
        }
        pathlist_add_str(&deleted, p, 0);
        prune_empty(wfd, p);
    }

    /* 5. then the files to write from the target */
    for (size_t i = 0; i < changed.n; i++) {
        char st = changed.status[i];
        const char *p = changed.v[i];
        if (st == 'D')
            continue;
        stage_where w = stage_look(wfd, p);
        /* A: the target has it, the saved present does not — whatever is there now is
         * unsaved (ignored, too big, unreadable): leave it. Folders and blocked paths
         * are left too. */
        if (w == STAGE_BLOCKED || w == STAGE_DIR || (st == 'A' && w != STAGE_ABSENT)) {
            pathlist_add_str(&kept, p, 0);
            continue;
        }
        pathlist_add_str(&written, p, 0);
    }
    rc = pathlist_check(&written, err);
    if (rc == HEW_OK)
        rc = pathlist_check(&kept, err);
    if (rc == HEW_OK)
        rc = pathlist_check(&deleted, err);
    if (rc != HEW_OK)
        goto done;
    if (written.n) {
        const char *args[] = { "checkout", "-q", res->target, NULL };
        shadow_call sc = { .work_tree = true };
        rc = shadow_git_paths(&c->sh, &sc, args, written.v, written.n, NULL, err);
        if (rc != HEW_OK)
            goto done;
    }

    /* 6. save the result, so that undoing this restore knows what it brought back */
    {
        checkpoint_commit_info after;
        rc = commit_locked(c, CHECKPOINT_RESTORED, &after, err);
        if (rc != HEW_OK)
            goto done;
        memcpy(res->restored, after.hash, sizeof res->restored);
    }
    hew_log(HEW_LOG_INFO, "checkpoint",
            "restored %s: %zu written, %zu deleted, %zu kept; undo with %s", res->target,
            written.n, deleted.n, kept.n, res->safety);

done:
    if (wfd >= 0)
        close(wfd);
    paths_take(&res->written, &written);
    paths_take(&res->deleted, &deleted);
    paths_take(&res->kept, &kept);
    pathlist_release(&changed);
    pathlist_release(&cand);
    pathlist_release(&known);
    buf_release(&out);
    return rc;
}

hew_code checkpoint_restore(checkpoint *c, const char *target, checkpoint_restore_result *res,
                            hew_err *err)
{
    *res = (checkpoint_restore_result){ 0 };
    hew_code rc = turn_take(c, err);
    if (rc != HEW_OK)
        return rc;
    rc = restore_locked(c, target, res, err);
    turn_give(c);
    return rc;
}
