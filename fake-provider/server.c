/* server — libmicrohttpd front of the fake provider (see server.h). Never binds
 * anything but 127.0.0.1; never blocks without watching the stop pipe. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "faults.h"
#include "validate.h"

#define REQUEST_BODY_MAX ((size_t)64 << 20)

struct server {
    struct MHD_Daemon *d;
    const scenario *sc;
    recorder *rec;
    bool quiet;
    bool lenient;
    unsigned port;
    pthread_mutex_t lock;
    size_t next; /* index of the next request */
    int stop[2]; /* stop[0] becomes readable (forever) when the server stops */
};

/* One request being received. */
typedef struct fp_req {
    char *uri;     /* raw request target, query included */
    buf body;
    bool started;
} fp_req;

/* One response being sent. */
typedef struct fp_out {
    fp_sender sender;
    fp_plan *owned; /* a plan made for this request only (exhausted), or NULL */
} fp_out;

static fp_req *req_new(const char *uri)
{
    fp_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->uri = strdup(uri ? uri : "/");
    buf_init(&r->body, REQUEST_BODY_MAX);
    if (!r->uri) {
        free(r);
        return NULL;
    }
    return r;
}

static void req_free(fp_req *r)
{
    if (!r)
        return;
    free(r->uri);
    buf_release(&r->body);
    free(r);
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
    (void)cls;
    (void)con;
    return req_new(uri);
}

static void on_completed(void *cls, struct MHD_Connection *con, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)con;
    (void)toe;
    req_free(*con_cls);
    *con_cls = NULL;
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void)kind;
    json_t *h = cls;
    char name[256];
    size_t n = strlen(key);
    if (n >= sizeof name)
        n = sizeof name - 1;
    for (size_t i = 0; i < n; i++)
        name[i] = (char)((key[i] >= 'A' && key[i] <= 'Z') ? key[i] + 32 : key[i]);
    name[n] = '\0';
    value = value ? value : "";
    json_t *old = json_object_get(h, name);
    if (json_is_string(old)) {
        buf b = BUF_INIT(1 << 20);
        buf_printf(&b, "%s, %s", json_string_value(old), value);
        if (!b.err)
            json_object_set_new(h, name, json_string(b.data));
        buf_release(&b);
    } else {
        json_object_set_new(h, name, json_string(value));
    }
    return MHD_YES;
}

static ssize_t on_read(void *cls, uint64_t pos, char *out, size_t max)
{
    fp_out *o = cls;
    long n = faults_send(&o->sender, (size_t)pos, out, max);
    if (n == FAULTS_SEND_END)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n == FAULTS_SEND_ABORT)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return (ssize_t)n;
}

static void out_free(void *cls)
{
    fp_out *o = cls;
    if (o->owned) {
        plan_release(o->owned);
        free(o->owned);
    }
    free(o);
}

static fp_plan *exhausted_plan(size_t index, size_t have)
{
    fp_plan *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    plan_init(p);
    p->status = 500;
    p->chunked = false;
    plan_set_header(p, "content-type", "application/json");
    buf msg = BUF_INIT(4096);
    buf_printf(&msg,
               "hew-fake-provider: scenario exhausted: request #%zu arrived but the scenario "
               "has only %zu response%s",
               index, have, have == 1 ? "" : "s");
    json_t *body = json_pack("{s:{s:s,s:s}}", "error", "type", "fake_provider_exhausted",
                             "message", msg.data ? msg.data : "scenario exhausted");
    char *s = body ? json_dumps(body, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    plan_add_event(p, s ? s : "{}", s ? strlen(s) : 2);
    snprintf(p->label, sizeof p->label, "exhausted");
    free(s);
    json_decref(body);
    buf_release(&msg);
    if (plan_finish(p, "exhausted", NULL) != HEW_OK) {
        plan_release(p);
        free(p);
        return NULL;
    }
    return p;
}

/* The 400 a real API sends for a request that breaks its rules (sent whole, no faults). */
static fp_plan *violation_plan(validate_proto proto, const validate_violation *v,
                               size_t index)
{
    fp_plan *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    plan_init(p);
    p->status = 400;
    p->chunked = false;
    plan_set_header(p, "content-type", validate_content_type(proto));
    const char *rid = validate_request_id_header(proto);
    if (rid) {
        char id[64];
        snprintf(id, sizeof id, "req_fake_strict_%zu", index);
        plan_set_header(p, rid, id);
    }
    char *body = validate_error_body(proto, v, index);
    plan_add_event(p, body ? body : "{}", body ? strlen(body) : 2);
    free(body);
    snprintf(p->label, sizeof p->label, "strict %s violation", validate_proto_name(proto));
    if (plan_finish(p, "violation", NULL) != HEW_OK) {
        plan_release(p);
        free(p);
        return NULL;
    }
    return p;
}

/* The key a request carried: Authorization's token, x-api-key, x-goog-api-key, api-key, or
 * the key= query parameter (copied into out; "" when none). */
static void request_key(const json_t *headers, const char *uri, char *out, size_t cap)
{
    static const char *const names[] = { "x-api-key", "x-goog-api-key", "api-key", NULL };
    out[0] = '\0';
    const char *auth = json_string_value(json_object_get(headers, "authorization"));
    if (auth) {
        const char *sp = strchr(auth, ' ');
        snprintf(out, cap, "%s", sp ? sp + 1 : auth);
        return;
    }
    for (size_t i = 0; names[i]; i++) {
        const char *v = json_string_value(json_object_get(headers, names[i]));
        if (v) {
            snprintf(out, cap, "%s", v);
            return;
        }
    }
    const char *q = strstr(uri, "?key=");
    if (!q)
        q = strstr(uri, "&key=");
    if (q)
        snprintf(out, cap, "%.*s", (int)strcspn(q + 5, "&#"), q + 5);
}

/* A copy of a plain plan with PLAN_KEY_PLACEHOLDER replaced by key (faults are not copied:
 * the copy is sent whole). NULL when out of memory. */
static fp_plan *echo_plan(const fp_plan *src, const char *key)
{
    fp_plan *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    plan_init(p);
    p->status = src->status;
    p->chunked = false;
    const char *name;
    json_t *v;
    json_object_foreach(src->headers, name, v)
        plan_set_header(p, name, json_string_value(v));
    buf body = BUF_INIT(PLAN_BODY_MAX);
    const char *s = src->body.data ? src->body.data : "";
    const char *end = s + src->body.len;
    size_t pl = strlen(PLAN_KEY_PLACEHOLDER);
    for (;;) {
        const char *at = memmem(s, (size_t)(end - s), PLAN_KEY_PLACEHOLDER, pl);
        if (!at) {
            buf_append(&body, s, (size_t)(end - s));
            break;
        }
        buf_append(&body, s, (size_t)(at - s));
        buf_puts(&body, key);
        s = at + pl;
    }
    plan_add_event(p, body.data ? body.data : "", body.len);
    buf_release(&body);
    snprintf(p->label, sizeof p->label, "%.100s (key echoed)", src->label);
    if (plan_finish(p, "echo", NULL) != HEW_OK) {
        plan_release(p);
        free(p);
        return NULL;
    }
    return p;
}

/* Headers that libmicrohttpd writes itself (or refuses). */
static bool managed_header(const char *name)
{
    static const char *const managed[] = {"content-length", "transfer-encoding", "connection",
                                          "date", NULL};
    for (size_t i = 0; managed[i]; i++)
        if (strcasecmp(name, managed[i]) == 0)
            return true;
    return false;
}

static enum MHD_Result respond(server *s, struct MHD_Connection *con, fp_req *r,
                               const char *method)
{
    json_t *headers = json_object();
    MHD_get_connection_values(con, MHD_HEADER_KIND, collect_header, headers);
    json_t *entry = recorder_entry(0, method, r->uri, headers, r->body.data, r->body.len);
    char key[1024];
    request_key(headers, r->uri, key, sizeof key);
    json_decref(headers);

    /* Validate before taking an index: a violation uses up no response. */
    validate_violation viol;
    validate_proto proto = VALIDATE_NONE;
    bool bad = false;
    if (!s->lenient && strcmp(method, "POST") == 0) {
        char path[512];
        snprintf(path, sizeof path, "%.*s", (int)strcspn(r->uri, "?"), r->uri);
        proto = validate_proto_of(path);
        bad = validate_request(proto, entry ? json_object_get(entry, "body") : NULL, &viol);
    }

    pthread_mutex_lock(&s->lock);
    size_t index = bad ? s->next : s->next++;
    fp_plan *plan = !bad && index < s->sc->n ? &s->sc->plans[index] : NULL;
    if (entry && bad)
        json_object_set_new(entry, "violation", json_string(viol.message));
    if (entry && s->rec) {
        json_object_set_new(entry, "index", json_integer((json_int_t)index));
        hew_err err = HEW_ERR_INIT;
        if (recorder_write(s->rec, entry, &err) != HEW_OK)
            fprintf(stderr, "hew-fake-provider: %s\n", err.msg);
    }
    pthread_mutex_unlock(&s->lock);
    json_decref(entry);

    fp_out *o = calloc(1, sizeof *o);
    if (!o)
        return MHD_NO;
    if (plan && plan->echo_key) {
        plan = o->owned = echo_plan(plan, key);
        if (!plan) {
            free(o);
            return MHD_NO;
        }
    }
    if (bad) {
        plan = o->owned = violation_plan(proto, &viol, index);
        if (!plan) {
            free(o);
            return MHD_NO;
        }
        if (!s->quiet)
            fprintf(stderr,
                    "hew-fake-provider: #%zu %s %s -> 400 %s (response #%zu not used): %s\n",
                    index, method, r->uri, plan->label, index, viol.message);
    }
    if (!plan) {
        plan = o->owned = exhausted_plan(index, s->sc->n);
        if (!plan) {
            free(o);
            return MHD_NO;
        }
    }
    if (!s->quiet && !bad)
        fprintf(stderr, "hew-fake-provider: #%zu %s %s -> %s (%u)\n", index, method, r->uri,
                plan->label, plan->status);

    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(con, MHD_CONNECTION_INFO_CONNECTION_FD);
    o->sender.plan = plan;
    o->sender.client_fd = ci ? ci->connect_fd : -1;
    o->sender.stop_fd = s->stop[0];

    const fp_faults *f = &plan->faults;
    if (!f->headers_first && f->delay_first_byte_ms > 0 &&
        faults_wait(o->sender.client_fd, s->stop[0], f->delay_first_byte_ms) !=
            FAULTS_WAIT_DONE) {
        out_free(o);
        return MHD_NO;
    }
    struct MHD_Response *resp = MHD_create_response_from_callback(
        plan->chunked ? MHD_SIZE_UNKNOWN : (uint64_t)plan->body.len, 64 * 1024, on_read, o,
        out_free);
    if (!resp) {
        out_free(o);
        return MHD_NO;
    }
    const char *name;
    json_t *v;
    json_object_foreach(plan->headers, name, v)
    {
        if (!managed_header(name))
            MHD_add_response_header(resp, name, json_string_value(v));
    }
    enum MHD_Result ret = MHD_queue_response(con, plan->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    server *s = cls;
    fp_req *r = *con_cls;
    if (!r) {
        r = *con_cls = req_new(url);
        if (!r)
            return MHD_NO;
    }
    if (!r->started) {
        r->started = true;
        return MHD_YES;
    }
    if (*upload_size) {
        buf_append(&r->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (r->body.err) {
        static const char msg[] = "{\"error\":{\"type\":\"fake_provider_request_too_large\","
                                  "\"message\":\"hew-fake-provider: request body over 64 MiB\"}}";
        struct MHD_Response *resp = MHD_create_response_from_buffer(
            sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        enum MHD_Result ret = MHD_queue_response(con, 413, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    return respond(s, con, r, method);
}

server *server_start(const server_opts *opts, hew_err *err)
{
    server *s = calloc(1, sizeof *s);
    if (!s) {
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
        return NULL;
    }
    s->sc = opts->sc;
    s->rec = opts->rec;
    s->quiet = opts->quiet;
    s->lenient = opts->lenient;
    s->stop[0] = s->stop[1] = -1;
    pthread_mutex_init(&s->lock, NULL);
    if (pipe2(s->stop, O_CLOEXEC) != 0) {
        hew_err_set(err, HEW_E_IO, "cannot create a pipe: %s", strerror(errno));
        server_stop(s);
        return NULL;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)opts->port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD,
                            (uint16_t)opts->port, NULL, NULL, on_request, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                            MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    if (!s->d) {
        hew_err_set(err, HEW_E_NET, "cannot listen on 127.0.0.1:%u (port in use?)",
                    opts->port);
        server_stop(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : opts->port;
    return s;
}

unsigned server_port(const server *s)
{
    return s->port;
}

void server_stop(server *s)
{
    if (!s)
        return;
    if (s->stop[1] >= 0) {
        ssize_t w;
        do
            w = write(s->stop[1], "x", 1);
        while (w < 0 && errno == EINTR);
    }
    if (s->d)
        MHD_stop_daemon(s->d);
    if (s->stop[0] >= 0)
        close(s->stop[0]);
    if (s->stop[1] >= 0)
        close(s->stop[1]);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
