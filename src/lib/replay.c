/* replay — hew replay's engine (hew.h, "Replay"): the recording read and checked
 * (net/recording.h), the loopback server (net/loopback.h) answering request k with
 * recorded response k once the body hew sent matches recorded body k (base/jdiff.h), the
 * options that make hew send what it sent then, and the verdict. It never contacts the
 * recorded URL, never answers a request that differs with recorded bytes, and never
 * special-cases a field in the compare: what varies between runs (the clock, the task id)
 * comes in through hew_options. */
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/jdiff.h"
#include "base/json.h"
#include "lib/lib_store.h"
#include "net/loopback.h"
#include "net/recording.h"
#include "hew.h"

#define REPORT_MAX 2048

struct hew_replay {
    recording rec;
    loopback *server;
    pthread_mutex_t mu;
    size_t next;             /* requests received */
    size_t matched;
    char report[REPORT_MAX]; /* the first difference; "" while none */
    char base_url[1024];
    long long *clock;        /* every recorded clock value, in order */
    size_t nclock, clock_at;
    long long clock_last;
    char *model_info;        /* the recorded model_info as text, or NULL */
    buf refusal;             /* the body of the answer to a request that differs */
    int paced;               /* stream at the recorded pace (hew_replay_set_paced) */
    buf map_from, map_to;    /* the recorded workspace path and this run's, JSON-escaped
                                (empty: the same, nothing mapped; hew_replay_set_cwd) */
    buf mapped;              /* a recorded body with the path mapped */
};

/* The path and query of url ("/v1/messages?x"), "/" when it has none. */
static const char *target_of(const char *url)
{
    const char *s = strstr(url, "://");
    s = s ? s + 3 : url;
    const char *slash = strchr(s, '/');
    return slash ? slash : "/";
}

static void diverged(hew_replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diverged(hew_replay *r, const char *fmt, ...)
{
    if (r->report[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->report, sizeof r->report, fmt, ap);
    va_end(ap);
}

/* The answer to a request that is not the recorded one: an error every protocol's
 * classifier reads as a request the server refuses (not retried). */
static void refuse(hew_replay *r, loopback_answer *ans)
{
    buf *body = &r->refusal; /* kept until the answer is written (one server thread) */
    buf_release(body);
    buf_init(body, REPORT_MAX * 8);
    char msg[REPORT_MAX + 32];
    snprintf(msg, sizeof msg, "hew replay: %s", r->report); /* who refused, in hew's message */
    json_t *e = json_pack("{ss s{ss ss}}", "type", "error", "error", "type",
                          "invalid_request_error", "message", msg);
    char *text = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    buf_puts(body, text ? text : "{\"error\":{\"message\":\"hew replay: diverged\"}}");
    free(text);
    ans->status = 400;
    buf_puts(&ans->headers, "Content-Type: application/json\r\n");
    ans->body = body->data;
    ans->body_len = body->len;
}

/* Headers the server writes itself, or that no longer describe the bytes served; and,
 * unless paced, the waits a provider asked for before a retry (they change no request:
 * a replay need not sit them out). */
static bool own_header(const char *name, bool paced)
{
    static const char *const own[] = { "content-length", "transfer-encoding", "connection",
                                       "keep-alive", "content-encoding", NULL };
    static const char *const waits[] = { "retry-after", "retry-after-ms", NULL };
    for (const char *const *o = own; *o; o++)
        if (strcasecmp(name, *o) == 0)
            return true;
    for (const char *const *w = waits; !paced && *w; w++)
        if (strcasecmp(name, *w) == 0)
            return true;
    return false;
}

/* Recorded body x->request with every occurrence of the recorded workspace path made this
 * run's, in r->mapped; false (compare it as it is) when out of memory. */
static bool map_body(hew_replay *r, const rec_exchange *x)
{
    buf *out = &r->mapped;
    buf_reset(out);
    const char *p = x->request, *end = x->request + x->request_len, *hit;
    while ((hit = memmem(p, (size_t)(end - p), r->map_from.data, r->map_from.len))) {
        buf_append(out, p, (size_t)(hit - p));
        buf_append(out, r->map_to.data, r->map_to.len);
        p = hit + r->map_from.len;
    }
    buf_append(out, p, (size_t)(end - p));
    return !out->err;
}

static void serve(void *ud, const loopback_request *rq, loopback_answer *ans)
{
    hew_replay *r = ud;
    pthread_mutex_lock(&r->mu);
    size_t k = r->next++;
    if (!r->report[0] && k >= r->rec.n)
        diverged(r,
                 "request %zu goes beyond the recording, which has %zu: the task took another "
                 "course than when it was recorded",
                 k + 1, r->rec.n);
    const rec_exchange *x = k < r->rec.n ? &r->rec.x[k] : NULL;
    jdiff d;
    if (!r->report[0] && x &&
        (strcmp(rq->method, x->method) != 0 || strcmp(rq->target, target_of(x->url)) != 0))
        diverged(r,
                 "request %zu differs from the recording: hew sent %s %s, the recording has %s %s",
                 k + 1, rq->method, rq->target, x->method, target_of(x->url));
    const char *want = x ? x->request : NULL;
    size_t want_len = x ? x->request_len : 0;
    if (!r->report[0] && x && r->map_from.len && map_body(r, x)) {
        want = r->mapped.data;
        want_len = r->mapped.len;
    }
    if (!r->report[0] && x && !jdiff_text(want, want_len, rq->body, rq->body_len, &d))
        diverged(r, "request %zu differs from the recording at %s: recorded %s, sent %s", k + 1,
                 d.path, d.want, d.got);
    if (r->report[0]) {
        refuse(r, ans);
        pthread_mutex_unlock(&r->mu);
        return;
    }
    r->matched++;
    bool paced = __atomic_load_n(&r->paced, __ATOMIC_RELAXED);
    ans->status = x->status;
    size_t i;
    json_t *h;
    json_array_foreach(x->headers, i, h) {
        const char *name = json_string_value(json_array_get(h, 0));
        const char *value = json_string_value(json_array_get(h, 1));
        if (name && value && !own_header(name, paced) && !strpbrk(name, "\r\n") &&
            !strpbrk(value, "\r\n"))
            buf_printf(&ans->headers, "%s: %s\r\n", name, value);
    }
    ans->body = x->response;
    ans->body_len = x->response_len;
    ans->cut = !x->ok; /* it broke off then: it breaks off now */
    if (paced) {
        ans->head_ms = x->headers_ms;
        ans->pieces = (const long long(*)[2])x->chunks;
        ans->npieces = x->nchunks;
    }
    pthread_mutex_unlock(&r->mu);
}

static long long replay_clock(void *ud)
{
    hew_replay *r = ud;
    pthread_mutex_lock(&r->mu);
    long long v = r->clock_at < r->nclock ? r->clock[r->clock_at++] : r->clock_last;
    pthread_mutex_unlock(&r->mu);
    return v;
}

static hew_code collect_clock(hew_replay *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->rec.n; i++)
        n += json_array_size(r->rec.x[i].clock);
    r->clock = calloc(n ? n : 1, sizeof *r->clock);
    if (!r->clock)
        return HEW_E_NOMEM;
    for (size_t i = 0; i < r->rec.n; i++) {
        size_t j;
        json_t *v;
        json_array_foreach(r->rec.x[i].clock, j, v)
            r->clock[r->nclock++] = (long long)json_integer_value(v);
    }
    json_int_t started = json_integer_value(json_object_get(r->rec.manifest, "started_ms"));
    r->clock_last = r->nclock ? r->clock[r->nclock - 1] : (long long)(started / 1000);
    return HEW_OK;
}

static const char *mstr(const hew_replay *r, const char *key)
{
    return json_string_value(json_object_get(r->rec.manifest, key));
}

hew_code hew_replay_open(const char *dir, hew_replay **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the replay (out is NULL)");
    *out = NULL;
    if (!dir || !*dir)
        return lib_fail(HEW_E_INVALID, err, errlen, "no recording folder given");
    hew_replay *r = calloc(1, sizeof *r);
    if (!r)
        return lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
    pthread_mutex_init(&r->mu, NULL);
    hew_err e = HEW_ERR_INIT;
    hew_code rc = recording_load(dir, &r->rec, &e);
    if (rc == HEW_OK && (!mstr(r, "provider") || !mstr(r, "task") || !mstr(r, "base_url"))) {
        rc = hew_err_set(&e, HEW_E_CORRUPT,
                         "%s/session.json: provider, task or base_url missing — the recording "
                         "is damaged",
                         dir);
    } else if (rc == HEW_OK && json_is_true(json_object_get(r->rec.manifest, "resumed"))) {
        rc = hew_err_set(&e, HEW_E_INVALID,
                         "%s records a resumed task: hew replay runs tasks recorded from their "
                         "start only",
                         dir);
    }
    json_t *info = rc == HEW_OK ? json_object_get(r->rec.manifest, "model_info") : NULL;
    if (info && !(r->model_info = json_dumps(info, JSON_COMPACT)))
        rc = hew_err_set(&e, HEW_E_NOMEM, "out of memory");
    if (rc == HEW_OK && collect_clock(r) != HEW_OK)
        rc = hew_err_set(&e, HEW_E_NOMEM, "out of memory");
    if (rc == HEW_OK)
        rc = loopback_start(serve, r, &r->server, &e);
    if (rc != HEW_OK) {
        hew_replay_free(r);
        return lib_fail(rc, err, errlen, e.msg);
    }
    const char *base = mstr(r, "base_url");
    const char *path = target_of(base);
    snprintf(r->base_url, sizeof r->base_url, "http://127.0.0.1:%d%s", loopback_port(r->server),
             strcmp(path, "/") == 0 ? "" : path);
    *out = r;
    return HEW_OK;
}

static int opt_bool(const json_t *o, const char *key, int def)
{
    json_t *v = json_object_get(o, key);
    return json_is_boolean(v) ? json_is_true(v) : def;
}

static long long opt_int(const json_t *o, const char *key, long long def)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

/* The recorded options that are an int of hew_options (session.json's "options", written
 * by lib/record.c), with the default of a recording that lacks one. */
static const struct {
    const char *key;
    size_t offset;
    int def;
    bool is_bool;
} recorded_opts[] = {
#define OPT(name, def, is_bool) { #name, offsetof(hew_options, name), def, is_bool }
    OPT(yolo, 0, true),
    OPT(auto_approve_read, 1, true),
    OPT(auto_approve_read_outside, 0, true),
    OPT(auto_approve_edit, 0, true),
    OPT(auto_approve_edit_outside, 0, true),
    OPT(auto_approve_safe_commands, 0, true),
    OPT(auto_approve_all_commands, 0, true),
    OPT(auto_approve_mcp, 0, true),
    OPT(parallel_tool_calls, 1, true),
    OPT(strict_plan, 0, true),
    OPT(rules_global, 1, true),
    OPT(rules_clinerules, 1, true),
    OPT(rules_cursorrules, 1, true),
    OPT(rules_windsurfrules, 1, true),
    OPT(rules_agents, 1, true),
    OPT(rules_claude, 0, true), /* missing: a recording from before hew read them */
    OPT(rules_gemini, 0, true),
    OPT(rules_clineignore, 1, true),
    OPT(skills, 0, true), /* missing: a recording from before hew offered skills */
    OPT(max_consecutive_mistakes, 3, false),
    OPT(auto_condense, -1, false),
#undef OPT
};

void hew_replay_apply(const hew_replay *r, hew_options *o)
{
    const json_t *m = r->rec.manifest, *op = json_object_get(m, "options");
    o->provider = mstr(r, "provider");
    o->model = mstr(r, "model");
    o->model_info = r->model_info;
    o->protocol = mstr(r, "protocol");
    o->mode = mstr(r, "mode");
    const char *tools = mstr(r, "tool_format");
    o->native_tools = tools && strcmp(tools, "native") == 0 ? 1 : tools ? 0 : -1;
    o->base_url = r->base_url;
    o->api_key = "hew-replay-no-key";
    for (size_t i = 0; i < sizeof recorded_opts / sizeof recorded_opts[0]; i++) {
        int *field = (int *)((char *)o + recorded_opts[i].offset);
        *field = recorded_opts[i].is_bool
                     ? opt_bool(op, recorded_opts[i].key, recorded_opts[i].def)
                     : (int)opt_int(op, recorded_opts[i].key, recorded_opts[i].def);
    }
    o->thinking_budget = (long)opt_int(op, "thinking_budget", 0);
    o->language = json_string_value(json_object_get(op, "language"));
    o->retry_base_delay_ms = 10; /* a recorded retry need not wait: no request changes */
    o->persist = 0;
    o->checkpoints = 0;
    o->mcp = 0;
    o->record_dir = NULL;
    o->clock_s = replay_clock;
    o->clock_ud = (void *)r;
    o->task_id = mstr(r, "task_id");
    const json_t *machine = json_object_get(r->rec.manifest, "machine");
    o->machine_os = json_string_value(json_object_get(machine, "os"));
    o->machine_shell = json_string_value(json_object_get(machine, "shell"));
    o->machine_home = json_string_value(json_object_get(machine, "home"));
}

hew_code hew_replay_set_cwd(hew_replay *r, const char *cwd, char *err, size_t errlen)
{
    char here[PATH_MAX];
    const char *dir = cwd ? cwd : getcwd(here, sizeof here);
    char *real = dir ? realpath(dir, NULL) : NULL;
    if (!real) {
        snprintf(err ? err : here, err ? errlen : sizeof here,
                 "the workspace %s does not exist or cannot be read", dir ? dir : ".");
        return HEW_E_NOTFOUND;
    }
    const char *was = mstr(r, "cwd");
    pthread_mutex_lock(&r->mu);
    buf_reset(&r->map_from);
    buf_reset(&r->map_to);
    if (was && *was && strcmp(was, real) != 0) {
        json_escape_into(&r->map_from, was, strlen(was));
        json_escape_into(&r->map_to, real, strlen(real));
        /* without the quotes: the path stands inside longer strings */
        buf_truncate(&r->map_from, r->map_from.len - 1);
        buf_truncate(&r->map_to, r->map_to.len - 1);
        memmove(r->map_from.data, r->map_from.data + 1, --r->map_from.len);
        memmove(r->map_to.data, r->map_to.data + 1, --r->map_to.len);
    }
    hew_code rc = r->map_from.err || r->map_to.err ? HEW_E_NOMEM : HEW_OK;
    pthread_mutex_unlock(&r->mu);
    free(real);
    if (rc != HEW_OK && err)
        snprintf(err, errlen, "out of memory");
    return rc;
}

void hew_replay_set_paced(hew_replay *r, int paced)
{
    __atomic_store_n(&r->paced, paced != 0, __ATOMIC_RELAXED);
}

const char *hew_replay_task_text(const hew_replay *r)
{
    return mstr(r, "task");
}

const char *hew_replay_tz(const hew_replay *r)
{
    const char *tz = mstr(r, "tz");
    return tz ? tz : "";
}

hew_code hew_replay_finish(hew_replay *r, long *matched, char *err, size_t errlen)
{
    loopback_stop(r->server);
    r->server = NULL;
    if (matched)
        *matched = (long)r->matched;
    if (!r->report[0] && r->next < r->rec.n)
        diverged(r,
                 "the task ended after %zu of the %zu recorded requests: request %zu was never "
                 "sent",
                 r->next, r->rec.n, r->next + 1);
    if (r->report[0])
        return lib_fail(HEW_E_STALE, err, errlen, r->report);
    return HEW_OK;
}

void hew_replay_free(hew_replay *r)
{
    if (!r)
        return;
    loopback_stop(r->server);
    recording_release(&r->rec);
    free(r->clock);
    free(r->model_info);
    buf_release(&r->refusal);
    buf_release(&r->map_from);
    buf_release(&r->map_to);
    buf_release(&r->mapped);
    pthread_mutex_destroy(&r->mu);
    free(r);
}
