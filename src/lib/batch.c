/* batch — `hew batch` in the library: the tasks of a JSON-lines text run as child
 * processes of hew (`hew -p --json --cwd CWD FLAGS…`, the prompt on the child's standard
 * input), up to `jobs` at once, one worker thread per slot; each child's task_end line is
 * read for its status and totals, and one result line per task goes to the caller as the
 * task ends. A child is only ever started through sys/proc.h (its own process group,
 * killed whole on a timeout or a stop). It must never let one task's failure, hang or
 * crash stop another or the batch, never block without a way out (a child that does not
 * read its input is written to from a thread of its own), and never print: results go to
 * the callbacks. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hew.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/json.h"
#include "lib/batch_end.h"
#include "lib/batch_line.h"
#include "sys/clock.h"
#include "sys/proc.h"

#define BATCH_MAX_JOBS 1024
#define BATCH_NAME_MAX 100                 /* bytes of an id in a file name */
#define BATCH_STDERR_TAIL 4096             /* what is kept of a child's stderr */
#define BATCH_ERROR_MAX 1000               /* bytes of a result's "error" */
#define BATCH_PROMPT_INLINE 4096           /* up to this, the prompt is written at once */
#define BATCH_TIMEOUT_MAX_S (100L * 365 * 24 * 3600)

typedef struct batch_item {
    batch_task task;
    bool in_shard;
    char *name; /* the file-safe id, with events_dir */
} batch_item;

struct hew_batch {
    batch_item *items;
    size_t nitems;
    size_t *queue; /* indices of the shard's tasks (not blank lines) */
    size_t nqueue;
    char *events_dir;
    long timeout_s;
    char *program;
    char **child_args;
    size_t nchild_args;
    int jobs;
    proc_env env;
    void (*on_result)(void *ud, const hew_batch_result *r);
    void (*on_progress)(void *ud, const hew_batch_progress *p);
    void *ud;

    pthread_mutex_t mu; /* everything below; taken after cb_mu when both are */
    pthread_cond_t cv;
    pthread_mutex_t cb_mu; /* one callback at a time */
    size_t next;
    proc **slots; /* the proc each worker runs now, or NULL */
    int nslots;   /* workers: min(jobs, tasks), at least 1 */
    int workers_alive;
    bool started, stopped;
    hew_batch_progress prog;
    long long start_ms;
};

void hew_batch_options_init(hew_batch_options *o)
{
    memset(o, 0, sizeof *o);
}

/* ---- reading the tasks ------------------------------------------------------------- */

/* A file-safe form of id: [A-Za-z0-9._-] kept, anything else '_', no leading '.', at
 * most BATCH_NAME_MAX bytes; unique among names (a suffix -LINE, then -LINE-K). */
static char *file_name(const char *id, long line, json_t *names)
{
    char base[BATCH_NAME_MAX + 1];
    size_t n = 0;
    for (const char *p = id; *p && n < BATCH_NAME_MAX; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || (c == '.' && n > 0);
        base[n++] = ok ? c : '_';
    }
    base[n] = '\0';
    char cand[BATCH_NAME_MAX + 64];
    snprintf(cand, sizeof cand, "%s", n ? base : "task");
    for (int k = 0; json_object_get(names, cand); k++) {
        if (k == 0)
            snprintf(cand, sizeof cand, "%s-%ld", n ? base : "task", line);
        else
            snprintf(cand, sizeof cand, "%s-%ld-%d", n ? base : "task", line, k);
    }
    if (json_object_set_new(names, cand, json_true()) != 0)
        return NULL;
    return strdup(cand);
}

static hew_code read_tasks(hew_batch *b, const hew_batch_options *o, hew_err *err)
{
    const char *s = o->tasks ? o->tasks : "";
    size_t len = o->tasks ? o->tasks_len : 0;
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) { /* a byte-order mark */
        s += 3;
        len -= 3;
    }
    size_t cap = 0;
    json_t *seen = json_object(), *names = json_object();
    hew_code rc = seen && names ? HEW_OK : HEW_E_NOMEM;
    for (size_t pos = 0, index = 0; rc == HEW_OK && pos < len; index++) {
        const char *nl = memchr(s + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - s) : len;
        const char *line = s + pos;
        size_t n = end - pos;
        pos = end + 1;
        if (n && line[n - 1] == '\r')
            n--;
        if (batch_line_blank(line, n))
            continue;
        if (b->nitems == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            batch_item *grown = realloc(b->items, ncap * sizeof *grown);
            if (!grown) {
                rc = HEW_E_NOMEM;
                break;
            }
            b->items = grown;
            cap = ncap;
        }
        batch_item *it = &b->items[b->nitems++];
        memset(it, 0, sizeof *it);
        it->in_shard = o->shard_count <= 0 || index % (size_t)o->shard_count ==
                                                   (size_t)o->shard_index;
        if (!batch_line_parse(line, n, (long)index + 1, &it->task)) {
            rc = HEW_E_NOMEM;
            break;
        }
        /* An id used twice: the later line fails, in whichever shard it is. */
        json_t *first = json_object_get(seen, it->task.id);
        if (first && !it->task.error) {
            char msg[128];
            snprintf(msg, sizeof msg, "duplicate id (first on line %lld)",
                     (long long)json_integer_value(first));
            free(it->task.prompt);
            it->task.prompt = NULL;
            if (!(it->task.error = strdup(msg)))
                rc = HEW_E_NOMEM;
        } else if (!first &&
                   json_object_set_new(seen, it->task.id, json_integer(it->task.line)) != 0) {
            rc = HEW_E_NOMEM;
        }
        if (rc == HEW_OK && it->in_shard && o->events_dir &&
            !(it->name = file_name(it->task.id, it->task.line, names)))
            rc = HEW_E_NOMEM;
    }
    json_decref(seen);
    json_decref(names);
    if (rc != HEW_OK)
        return hew_err_set(err, rc, "cannot read the tasks: out of memory");
    b->queue = malloc((b->nitems ? b->nitems : 1) * sizeof *b->queue);
    if (!b->queue)
        return hew_err_set(err, HEW_E_NOMEM, "cannot read the tasks: out of memory");
    for (size_t i = 0; i < b->nitems; i++)
        if (b->items[i].in_shard)
            b->queue[b->nqueue++] = i;
    return HEW_OK;
}

static char *own_executable(void)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0 || (size_t)n >= sizeof path - 1)
        return NULL;
    path[n] = '\0';
    return strdup(path);
}

hew_code hew_batch_new(const hew_batch_options *o, hew_batch **out, char *errbuf,
                       size_t errlen)
{
    hew_err err = HEW_ERR_INIT;
    hew_code rc = HEW_OK;
    if (out)
        *out = NULL;
    if (!o || !out) {
        rc = hew_err_set(&err, HEW_E_INVALID, "hew_batch_new: no options or no out");
        goto done;
    }
    if (o->jobs < 0 || o->timeout_s < 0 || o->shard_count < 0 || o->shard_index < 0) {
        rc = hew_err_set(&err, HEW_E_INVALID, "jobs, timeout and the shard must not be negative");
        goto done;
    }
    if (o->shard_count > 0 && o->shard_index >= o->shard_count) {
        rc = hew_err_set(&err, HEW_E_INVALID,
                         "shard %d/%d: the index must be below the count (0 to %d)",
                         o->shard_index, o->shard_count, o->shard_count - 1);
        goto done;
    }
    if (o->program && strchr(o->program, '/') && access(o->program, X_OK) != 0) {
        rc = hew_err_set(&err, HEW_E_NOTFOUND, "cannot run %s: %s", o->program,
                         strerror(errno));
        goto done;
    }
    hew_batch *b = calloc(1, sizeof *b);
    if (!b) {
        rc = hew_err_set(&err, HEW_E_NOMEM, "out of memory");
        goto done;
    }
    pthread_mutex_init(&b->mu, NULL);
    pthread_mutex_init(&b->cb_mu, NULL);
    clock_cond_init(&b->cv);
    proc_env e = PROC_ENV_INIT;
    b->env = e;
    b->timeout_s = o->timeout_s;
    b->on_result = o->on_result;
    b->on_progress = o->on_progress;
    b->ud = o->ud;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    b->jobs = o->jobs > 0 ? o->jobs : cpus > 0 ? (int)cpus : 1;
    if (b->jobs > BATCH_MAX_JOBS)
        b->jobs = BATCH_MAX_JOBS;
    b->program = o->program ? strdup(o->program) : own_executable();
    if (!b->program) {
        rc = hew_err_set(&err, o->program ? HEW_E_NOMEM : HEW_E_NOTFOUND,
                         o->program ? "out of memory"
                                    : "cannot find hew's own executable (/proc/self/exe): "
                                      "name the program to run");
        hew_batch_free(b);
        goto done;
    }
    if (o->events_dir && !(b->events_dir = strdup(o->events_dir)))
        rc = hew_err_set(&err, HEW_E_NOMEM, "out of memory");
    for (const char *const *a = o->child_args; rc == HEW_OK && a && *a; a++) {
        char **grown = realloc(b->child_args, (b->nchild_args + 2) * sizeof *grown);
        if (!grown || !(grown[b->nchild_args] = strdup(*a))) {
            if (grown)
                b->child_args = grown;
            rc = hew_err_set(&err, HEW_E_NOMEM, "out of memory");
            break;
        }
        b->child_args = grown;
        b->child_args[++b->nchild_args] = NULL;
    }
    /* The child is hew itself: it needs what the caller has, its API key included. */
    static const char *const everything[] = { "*", NULL };
    if (rc == HEW_OK) {
        proc_env_from_parent(&b->env, everything);
        proc_env_set(&b->env, "HEW_BATCH_CHILD", "1"); /* it dies with us (cli/main.c) */
        if (b->env.oom)
            rc = hew_err_set(&err, HEW_E_NOMEM, "out of memory");
    }
    if (rc == HEW_OK)
        rc = read_tasks(b, o, &err);
    if (rc != HEW_OK) {
        hew_batch_free(b);
        goto done;
    }
    b->prog.total = (long)b->nqueue;
    b->nslots = b->nqueue < (size_t)b->jobs ? (int)b->nqueue : b->jobs;
    if (b->nslots < 1)
        b->nslots = 1;
    if (!(b->slots = calloc((size_t)b->nslots, sizeof *b->slots))) {
        rc = hew_err_set(&err, HEW_E_NOMEM, "out of memory");
        hew_batch_free(b);
        goto done;
    }
    *out = b;
done:
    if (rc != HEW_OK && errbuf && errlen)
        snprintf(errbuf, errlen, "%s", err.msg);
    return rc;
}

void hew_batch_free(hew_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nitems; i++) {
        batch_task_release(&b->items[i].task);
        free(b->items[i].name);
    }
    free(b->items);
    free(b->queue);
    free(b->events_dir);
    free(b->program);
    for (size_t i = 0; i < b->nchild_args; i++)
        free(b->child_args[i]);
    free(b->child_args);
    proc_env_release(&b->env);
    free(b->slots);
    pthread_mutex_destroy(&b->mu);
    pthread_mutex_destroy(&b->cb_mu);
    pthread_cond_destroy(&b->cv);
    free(b);
}

/* ---- one child ---------------------------------------------------------------------- */

/* What a child's output told, as it came. */
typedef struct child {
    hew_batch *b;
    const batch_item *it;
    int ev_fd, err_fd;
    bool ev_failed;       /* writing the events file failed: said in the result */
    char ev_why[HEW_ERR_MSG_MAX + 64];
    batch_end end;        /* its task_end lines */
    buf tail;             /* the end of stderr */
} child;

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...)
{
    buf b = BUF_INIT(1 << 20);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    char *s = buf_detach(&b, NULL);
    buf_release(&b);
    return s;
}

/* DIR/<name>.<ext> for a task (a new string, NULL for want of memory). */
static char *out_path(const hew_batch *b, const batch_item *it, const char *ext)
{
    return str_printf("%s/%s.%s", b->events_dir, it->name, ext);
}

static int open_out(const hew_batch *b, const batch_item *it, const char *ext, char *why,
                    size_t whylen)
{
    char *path = out_path(b, it, ext);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
    if (fd < 0 && why)
        snprintf(why, whylen, "cannot write %.300s: %s", path ? path : "the events file",
                 path ? strerror(errno) : "out of memory");
    free(path);
    return fd;
}

static void on_output(void *ud, int stream, const char *data, size_t len)
{
    child *c = ud;
    if (stream == PROC_STDOUT) {
        if (c->ev_fd >= 0) {
            hew_err e = HEW_ERR_INIT;
            if (fs_write_all(c->ev_fd, data, len, "the events file", &e) != HEW_OK) {
                c->ev_failed = true;
                snprintf(c->ev_why, sizeof c->ev_why, "%s", e.msg);
                close(c->ev_fd);
                c->ev_fd = -1;
            }
        }
        batch_end_feed(&c->end, data, len);
        return;
    }
    if (c->b->events_dir && c->err_fd == -1) { /* made only when there is something */
        c->err_fd = open_out(c->b, c->it, "stderr", NULL, 0);
        if (c->err_fd < 0)
            c->err_fd = -2; /* tried: not again */
    }
    if (c->err_fd >= 0 && fs_write_all(c->err_fd, data, len, "stderr", NULL) != HEW_OK) {
        close(c->err_fd);
        c->err_fd = -2;
    }
    buf_append(&c->tail, data, len);
    if (c->tail.len > 2 * BATCH_STDERR_TAIL)
        buf_consume(&c->tail, c->tail.len - BATCH_STDERR_TAIL);
}

/* The last non-empty line of the stderr tail (a new string), or NULL. */
static char *last_stderr_line(const child *c)
{
    if (!c->tail.len)
        return NULL;
    size_t end = c->tail.len;
    while (end && (c->tail.data[end - 1] == '\n' || c->tail.data[end - 1] == '\r' ||
                   c->tail.data[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start && c->tail.data[start - 1] != '\n')
        start--;
    return end > start ? strndup(c->tail.data + start, end - start) : NULL;
}

typedef struct feed {
    proc *p;
    const char *text;
    size_t len;
} feed;

static void *feed_thread(void *arg)
{
    feed *f = arg;
    (void)proc_write(f->p, f->text, f->len, NULL); /* a child that exits first: EPIPE */
    proc_close_stdin(f->p);
    return NULL;
}

/* What a task's end says, for its result line. */
typedef struct outcome {
    const char *status;
    int exit_code;
    char *error; /* owned, or NULL */
    long long duration_ms;
    long max_rss_kb;
    bool ran;
} outcome;


/* Start the child, feed it its prompt, wait for it; fills oc (and c). */
static void run_child(hew_batch *b, int slot, const batch_item *it, child *c, outcome *oc)
{
    const batch_task *t = &it->task;
    long timeout_s = t->timeout_s >= 0 ? t->timeout_s : b->timeout_s;
    size_t max = 8 + b->nchild_args + t->nargs;
    const char **argv = calloc(max, sizeof *argv);
    if (!argv) {
        oc->status = "failed";
        oc->exit_code = 1;
        oc->error = strdup("out of memory");
        return;
    }
    size_t n = 0;
    char tbuf[32];
    argv[n++] = b->program;
    argv[n++] = "-p";
    argv[n++] = "--json";
    for (size_t i = 0; i < b->nchild_args; i++)
        argv[n++] = b->child_args[i];
    for (size_t i = 0; i < t->nargs; i++)
        argv[n++] = t->args[i];
    if (t->timeout_s < 0 && timeout_s > 0) { /* the line's own is among its args */
        snprintf(tbuf, sizeof tbuf, "%ld", timeout_s);
        argv[n++] = "--timeout";
        argv[n++] = tbuf;
    }
    if (t->cwd) {
        argv[n++] = "--cwd";
        argv[n++] = t->cwd;
    }
    argv[n] = NULL;

    proc_opts po = { 0 };
    po.argv = argv;
    po.envp = proc_env_list(&b->env);
    po.separate_stderr = true;
    po.stdin_pipe = true;
    /* A timeout beyond a century is none (and its milliseconds could not be counted). */
    po.timeout_ms = timeout_s > 0 && timeout_s <= BATCH_TIMEOUT_MAX_S
                        ? (timeout_s + HEW_BATCH_TIMEOUT_GRACE_S) * 1000L
                        : 0;
    po.on_output = on_output;
    po.ud = c;
    proc *p = NULL;
    hew_err err = HEW_ERR_INIT;
    if (proc_start(&po, &p, &err) != HEW_OK) {
        free(argv);
        oc->status = "failed";
        oc->exit_code = 1;
        oc->error = str_printf("cannot start %s: %s", b->program, err.msg);
        return;
    }
    oc->ran = true;
    pthread_mutex_lock(&b->mu);
    b->slots[slot] = p;
    b->prog.running++;
    if (b->stopped) /* stopped while it started */
        proc_kill(p);
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);

    feed f = { p, t->prompt, strlen(t->prompt) };
    pthread_t feeder;
    bool threaded = false;
    if (f.len <= BATCH_PROMPT_INLINE) { /* fits an empty pipe: never blocks */
        (void)proc_write(p, f.text, f.len, NULL);
        proc_close_stdin(p);
    } else if (pthread_create(&feeder, NULL, feed_thread, &f) == 0) {
        threaded = true;
    } else {
        proc_kill(p);
    }
    proc_status st;
    proc_wait(p, &st);
    if (threaded)
        pthread_join(feeder, NULL);
    batch_end_finish(&c->end); /* a last line without a newline */

    pthread_mutex_lock(&b->mu);
    b->slots[slot] = NULL;
    b->prog.running--;
    pthread_mutex_unlock(&b->mu);
    proc_free(p);
    free(argv);

    oc->duration_ms = st.elapsed_ms;
    oc->max_rss_kb = st.max_rss_kb;
    char sig[32];
    switch (st.end) {
    case PROC_TIMED_OUT:
        oc->status = "timeout";
        oc->exit_code = 5;
        oc->error = str_printf("still running %d s after its --timeout of %ld s: killed",
                               HEW_BATCH_TIMEOUT_GRACE_S, timeout_s);
        return;
    case PROC_SIGNALED:
        oc->status = "crashed";
        oc->exit_code = 128 + st.signal;
        oc->error = str_printf("killed by %s", proc_signal_name(st.signal, sig, sizeof sig));
        return;
    case PROC_ABORTED:
    case PROC_KILLED: /* hew_batch_stop */
        oc->exit_code = st.exit_code >= 0 ? st.exit_code : 130;
        oc->status = c->end.status              ? c->end.status
                     : oc->exit_code == 0 ? "completed"
                                          : "interrupted";
        break;
    default:
        oc->exit_code = st.exit_code;
        oc->status = c->end.status            ? c->end.status
                     : st.exit_code == 0      ? "completed"
                     : st.exit_code == 130    ? "interrupted"
                                              : "failed";
        break;
    }
    bool finished = c->end.status && strcmp(c->end.status, "completed") == 0;
    if (oc->exit_code != 0 && c->end.ends && finished)
        ; /* completed, yet not 0 (actions denied): reason and denied say why */
    else if (oc->exit_code != 0 && c->end.ends && c->end.result && *c->end.result)
        oc->error = strdup(c->end.result); /* why it failed or stopped */
    else if (oc->exit_code != 0)
        oc->error = last_stderr_line(c);
}

/* The result line of a task. NULL only for want of memory. */
static char *result_json(const hew_batch *b, const batch_item *it, const child *c,
                         const outcome *oc)
{
    hew_code st = HEW_OK;
    json_t *o = json_object(), *usage = json_object();
    json_obj_put(o, "id", json_string_lossy(it->task.id, strlen(it->task.id)), &st);
    json_obj_put(o, "status", json_string(oc->status), &st);
    json_obj_put(o, "exit_code", json_integer(oc->exit_code), &st);
    json_obj_put(usage, "input_tokens", json_integer(c->end.input_tokens), &st);
    json_obj_put(usage, "output_tokens", json_integer(c->end.output_tokens), &st);
    json_obj_put(usage, "cache_read_tokens", json_integer(c->end.cache_read_tokens), &st);
    json_obj_put(usage, "cache_write_tokens", json_integer(c->end.cache_write_tokens), &st);
    json_obj_put(o, "usage", usage, &st);
    json_obj_put(o, "cost_usd", json_real(c->end.cost_usd), &st);
    json_obj_put(o, "duration_ms", json_integer(oc->duration_ms), &st);
    if (b->events_dir && it->name && oc->ran) {
        char *path = out_path(b, it, "jsonl");
        json_obj_put(o, "events", path ? json_string_lossy(path, strlen(path)) : NULL, &st);
        free(path);
    }
    const char *error = oc->error ? oc->error : c->ev_failed ? c->ev_why : NULL;
    if (error) {
        size_t n = strlen(error);
        json_obj_put(o, "error", json_string_lossy(error, n > BATCH_ERROR_MAX ? BATCH_ERROR_MAX : n),
                     &st);
    }
    if (c->end.reason)
        json_obj_put(o, "reason", json_string_lossy(c->end.reason, strlen(c->end.reason)), &st);
    if (c->end.denied && json_array_size(c->end.denied))
        json_obj_put(o, "denied", json_incref(c->end.denied), &st);
    json_obj_put(o, "line", json_integer(it->task.line), &st);
    json_obj_put(o, "requests", json_integer(c->end.requests), &st);
    if (oc->ran)
        json_obj_put(o, "max_rss_kb", json_integer(oc->max_rss_kb), &st);
    char *s = st == HEW_OK ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return s;
}

static void snapshot(hew_batch *b, hew_batch_progress *p)
{
    *p = b->prog;
    p->elapsed_ms = clock_now_ms() - b->start_ms;
    p->stopped = b->stopped;
}

static void run_item(hew_batch *b, int slot, const batch_item *it)
{
    child c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.it = it;
    c.ev_fd = c.err_fd = -1;
    batch_end_init(&c.end);
    buf_init(&c.tail, 4 * BATCH_STDERR_TAIL);
    outcome oc = { 0 };
    if (it->task.error) {
        oc.status = "invalid";
        oc.exit_code = 2;
        oc.error = strdup(it->task.error);
    } else if (it->task.cwd && !fs_is_dir(it->task.cwd)) {
        oc.status = "invalid";
        oc.exit_code = 2;
        oc.error = str_printf("cwd %s: %s", it->task.cwd,
                              fs_exists(it->task.cwd) ? "not a directory"
                                                      : "no such directory");
    } else {
        if (b->events_dir) {
            c.ev_fd = open_out(b, it, "jsonl", c.ev_why, sizeof c.ev_why);
            c.ev_failed = c.ev_fd < 0;
        }
        run_child(b, slot, it, &c, &oc);
    }
    if (c.ev_fd >= 0)
        close(c.ev_fd);
    if (c.err_fd >= 0)
        close(c.err_fd);
    char *line = result_json(b, it, &c, &oc);

    pthread_mutex_lock(&b->cb_mu);
    pthread_mutex_lock(&b->mu);
    b->prog.done++;
    if (oc.exit_code == 0)
        b->prog.completed++;
    else
        b->prog.failed++;
    hew_batch_progress p;
    snapshot(b, &p);
    pthread_mutex_unlock(&b->mu);
    hew_batch_result r = { it->task.id, it->task.line, oc.status, oc.exit_code,
                           line ? line
                                : "{\"error\":\"out of memory making the result line\"}" };
    if (b->on_result)
        b->on_result(b->ud, &r);
    if (b->on_progress)
        b->on_progress(b->ud, &p);
    pthread_mutex_unlock(&b->cb_mu);

    free(line);
    free(oc.error);
    batch_end_release(&c.end);
    buf_release(&c.tail);
}

typedef struct worker {
    hew_batch *b;
    int slot;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    hew_batch *b = w->b;
    for (;;) {
        pthread_mutex_lock(&b->mu);
        if (b->stopped || b->next >= b->nqueue) {
            b->workers_alive--;
            pthread_cond_broadcast(&b->cv);
            pthread_mutex_unlock(&b->mu);
            return NULL;
        }
        const batch_item *it = &b->items[b->queue[b->next++]];
        pthread_mutex_unlock(&b->mu);
        run_item(b, w->slot, it);
    }
}

hew_code hew_batch_run(hew_batch *b, hew_batch_progress *summary, char *errbuf, size_t errlen)
{
    hew_err err = HEW_ERR_INIT;
    hew_code rc = HEW_OK;
    if (summary)
        memset(summary, 0, sizeof *summary);
    if (!b)
        return HEW_E_INVALID;
    pthread_mutex_lock(&b->mu);
    bool again = b->started;
    b->started = true;
    pthread_mutex_unlock(&b->mu);
    if (again) {
        rc = hew_err_set(&err, HEW_E_STATE, "this batch has run already");
        goto done;
    }
    if (b->events_dir && b->nqueue && fs_mkdirs(b->events_dir, 0700, &err) != HEW_OK) {
        rc = hew_err_wrap(&err, "the events folder");
        goto done;
    }
    int nworkers = b->nqueue ? b->nslots : 0;
    worker *ws = calloc((size_t)b->nslots, sizeof *ws);
    pthread_t *tids = calloc((size_t)b->nslots, sizeof *tids);
    if (!ws || !tids) {
        free(ws);
        free(tids);
        rc = hew_err_set(&err, HEW_E_NOMEM, "out of memory");
        goto done;
    }
    b->start_ms = clock_now_ms();
    int made = 0;
    pthread_mutex_lock(&b->mu);
    for (; made < nworkers; made++) {
        ws[made].b = b;
        ws[made].slot = made;
        if (pthread_create(&tids[made], NULL, worker_main, &ws[made]) != 0)
            break;
        b->workers_alive++;
    }
    if (made == 0 && nworkers > 0) {
        pthread_mutex_unlock(&b->mu);
        free(ws);
        free(tids);
        rc = hew_err_set(&err, HEW_E_IO, "cannot start a thread: %s", strerror(errno));
        goto done;
    }
    /* Wait for the workers, telling the progress about once a second. */
    while (b->workers_alive > 0) {
        long long next_tick = clock_now_ms() + 1000;
        while (b->workers_alive > 0 && clock_cond_wait_until(&b->cv, &b->mu, next_tick))
            ;
        if (b->workers_alive == 0)
            break;
        pthread_mutex_unlock(&b->mu);
        pthread_mutex_lock(&b->cb_mu);
        pthread_mutex_lock(&b->mu);
        hew_batch_progress p;
        snapshot(b, &p);
        pthread_mutex_unlock(&b->mu);
        if (b->on_progress)
            b->on_progress(b->ud, &p);
        pthread_mutex_unlock(&b->cb_mu);
        pthread_mutex_lock(&b->mu);
    }
    pthread_mutex_unlock(&b->mu);
    for (int i = 0; i < made; i++)
        pthread_join(tids[i], NULL);
    free(ws);
    free(tids);
    if (summary) {
        pthread_mutex_lock(&b->mu);
        snapshot(b, summary);
        pthread_mutex_unlock(&b->mu);
    }
done:
    if (rc != HEW_OK && errbuf && errlen)
        snprintf(errbuf, errlen, "%s", err.msg);
    return rc;
}

void hew_batch_stop(hew_batch *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    b->stopped = true;
    for (int i = 0; i < b->nslots; i++)
        if (b->slots[i])
            proc_kill(b->slots[i]);
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}
