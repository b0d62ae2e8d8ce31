/* transport_http — the MCP HTTP transports behind mcp_http_open (transport.h): Streamable
 * HTTP (MCP 2025-06-18), the older HTTP+SSE (2024-11-05), and auto (the first, falling back
 * to the second when the first POST is refused with 400, 404 or 405).
 *
 * Threads. send() never touches the network: each message gets a worker thread that POSTs
 * it and reads the answer (202, one JSON message or a batch, or an SSE stream of messages).
 * One more worker holds the long-lived GET: the server's own messages in Streamable HTTP
 * (opened once the session is established), everything (the endpoint included) in
 * HTTP+SSE. Every worker has its own abort token; close() triggers them all, sends DELETE
 * with the session id, joins every thread and frees. Finished workers are joined by the
 * next send().
 *
 * Order. A message waits before its POST until every earlier "barrier" has its response
 * headers: the first message (its answer carries the session id and, in auto mode, decides
 * the transport), every notification and response (answered 202 at once), and in HTTP+SSE
 * every message (each POST is answered at once there). Requests are not barriers in
 * Streamable HTTP: a tool call streaming for minutes holds nothing up. A barrier that gets
 * no headers within the connect timeout stops holding the others.
 *
 * Callbacks run under cb_mu, one at a time, and only while cb_off is false; on_closed and
 * close() set it. That is how "on_closed once, no callback after it, none after close()"
 * holds. Lock order: cb_mu before mu (a callback may call send(), which takes mu); mu is
 * never held while a callback runs.
 *
 * Failures become answers: a request whose POST fails (no connection, an HTTP error
 * status, a stream that ended and cannot be resumed) gets a synthesized JSON-RPC error
 * response (http_rpc.h), so that its caller never waits forever. A 404 on a request that
 * carried the session id means the server ended the session: on_closed.
 *
 * Never prints (diagnostics go to hew_log), never sends the user's headers to an endpoint
 * on another origin, never trusts a size the server controls (every body has a cap). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/abort.h"
#include "base/buf.h"
#include "base/log.h"
#include "mcp/http_rpc.h"
#include "mcp/transport.h"
#include "net/http.h"
#include "net/sse.h"
#include "net/url.h"

#define MCP_HTTP_MAX_MESSAGE ((size_t)64 << 20) /* one message may carry a base64 image */
#define MCP_HTTP_ERROR_KEEP ((size_t)1024)      /* bytes of an error body kept */
#define MCP_HTTP_MAX_IN_FLIGHT 256              /* workers alive at once */
#define MCP_HTTP_CONNECT_MS 10000L
#define MCP_HTTP_POST_IDLE_MS (60L * 60 * 1000)          /* a tool may think for long */
#define MCP_HTTP_POST_DEADLINE_MS (24L * 60 * 60 * 1000)
#define MCP_HTTP_STREAM_IDLE_MS (24L * 60 * 60 * 1000)   /* a quiet GET stream is fine */
#define MCP_HTTP_STREAM_DEADLINE_MS (7L * 24 * 60 * 60 * 1000)
#define MCP_HTTP_RECONNECT_MS 1000L     /* before a resume, when the server set no retry */
#define MCP_HTTP_RECONNECT_MAX_MS 30000L
#define MCP_HTTP_RESUME_TRIES 5         /* fruitless reconnections in a row */
#define MCP_HTTP_STREAM_LIVED_MS 30000L /* a stream that lived this long was not fruitless */
#define MCP_HTTP_DELETE_MS 2000L        /* the DELETE of close() */
#define WHY_MAX 1024                    /* a message for the user */

typedef enum http_mode {
    MODE_STREAMABLE,
    MODE_LEGACY,   /* HTTP+SSE */
    MODE_UNDECIDED /* auto, before the first POST got an HTTP status */
} http_mode;

typedef enum worker_kind {
    WORK_POST,          /* one message: POST, answer, resumption */
    WORK_EVENTS,        /* Streamable HTTP: the GET stream of server-initiated messages */
    WORK_LEGACY_EVENTS  /* HTTP+SSE: the GET stream that carries everything */
} worker_kind;

typedef struct http_transport http_transport;

typedef struct worker {
    struct worker *next;
    http_transport *t;
    worker_kind kind;
    pthread_t thread;
    hew_abort *abort; /* triggered by close() and when the connection is gone */
    bool done;        /* under t->mu: the thread has finished and only has to be joined */
    /* WORK_POST */
    char *body;
    size_t body_len;
    mcp_rpc_outgoing msg; /* msg.request_ids: the requests still waiting for an answer */
    uint64_t seq;         /* place in send() order, from 1 */
    uint64_t wait_for;    /* the barrier this message waits for (0: none) */
    bool barrier;
    bool released;        /* the barrier was lifted */
    bool probe;           /* auto mode: this POST decides the transport */
    /* every stream this worker reads */
    char *last_event_id;  /* for Last-Event-ID; NULL while the server gave none */
    long retry_ms;        /* the server's retry: field, -1 when none */
} worker;

struct http_transport {
    mcp_transport base; /* first, so that the interface pointer is the transport */
    mcp_sink sink;
    char *url;
    char shown[256];    /* url without user info and query, for messages */
    char **headers;     /* the user's "Name: value" strings, NULL-terminated */
    long connect_timeout_ms;

    pthread_mutex_t cb_mu;
    bool cb_off; /* under cb_mu: no callback may run any more */

    pthread_mutex_t mu;
    pthread_cond_t cond; /* a barrier lifted, the endpoint known, closing, gone */
    http_mode mode;
    char *session_id;
    char *protocol_version;
    char *endpoint;          /* HTTP+SSE: where to POST */
    char fallback_note[192]; /* auto mode: why HTTP+SSE is used */
    bool closing;            /* close() was called */
    bool gone;               /* the connection is gone for good (on_closed) */
    bool events_started;     /* the one GET stream was opened */
    uint64_t next_seq;
    uint64_t last_barrier;
    uint64_t released_upto;
    worker *workers;
    size_t n_workers;
};

/* ---- small helpers ------------------------------------------------------------------ */

static char *dup_str(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* A header value the server chose (session id, event id) must be visible ASCII, so that it
 * cannot smuggle a line break into our request headers. */
static bool is_token_text(const char *s)
{
    if (!s || !*s || strlen(s) > 1024)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p > 0x7e)
            return false;
    return true;
}

static bool media_type_is(const char *content_type, const char *type)
{
    if (!content_type)
        return false;
    while (*content_type == ' ')
        content_type++;
    size_t n = strlen(type);
    if (strncasecmp(content_type, type, n) != 0)
        return false;
    char next = content_type[n];
    return next == '\0' || next == ';' || next == ' ';
}

static bool is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static struct timespec deadline_after(long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static bool stopping(const worker *w)
{
    return abort_is_set(w->abort);
}

/* ---- callbacks (serialised, never after on_closed or close) ---------------------------- */

static void emit_message(http_transport *t, const char *json, size_t len)
{
    pthread_mutex_lock(&t->cb_mu);
    if (!t->cb_off)
        t->sink.on_message(t->sink.ud, json, len);
    pthread_mutex_unlock(&t->cb_mu);
}

static void emit_noise(http_transport *t, const char *text, size_t len)
{
    pthread_mutex_lock(&t->cb_mu);
    if (!t->cb_off && t->sink.on_noise)
        t->sink.on_noise(t->sink.ud, 1, text, len);
    pthread_mutex_unlock(&t->cb_mu);
}

/* The connection is gone for good: stop every worker, then tell the owner (once). */
static void report_closed(http_transport *t, const char *why)
{
    pthread_mutex_lock(&t->mu);
    bool owner_closing = t->closing;
    t->gone = true;
    for (worker *w = t->workers; w; w = w->next)
        abort_trigger(w->abort, "the MCP connection is closed");
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->mu);
    if (owner_closing)
        return;
    pthread_mutex_lock(&t->cb_mu);
    bool first = !t->cb_off;
    t->cb_off = true;
    if (first) {
        hew_log(HEW_LOG_WARN, "mcp", "%s: %s", t->shown, why);
        if (t->sink.on_closed)
            t->sink.on_closed(t->sink.ud, why);
    }
    pthread_mutex_unlock(&t->cb_mu);
}

static void session_expired(http_transport *t)
{
    char why[512];
    snprintf(why, sizeof why,
             "the MCP server at %s ended the session (HTTP 404 for our session id) — "
             "reconnect to start a new one",
             t->shown);
    report_closed(t, why);
}

/* Answer every request of w that is still waiting with a synthesized error. */
static void fail_requests(http_transport *t, worker *w, const char *why, long http_status)
{
    size_t n = json_array_size(w->msg.request_ids);
    if (n == 0) {
        hew_log(HEW_LOG_WARN, "mcp", "a message to %s was not delivered: %s", t->shown, why);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        char *answer = mcp_rpc_error_response(json_array_get(w->msg.request_ids, i), why,
                                              http_status, &len);
        if (answer)
            emit_message(t, answer, len);
        free(answer);
    }
    json_array_clear(w->msg.request_ids);
}

/* ---- what comes back -------------------------------------------------------------------- */

/* A message answered one of w's requests: it no longer waits. */
static void note_answer(worker *w, const json_t *msg)
{
    if (w && w->kind == WORK_POST)
        mcp_rpc_ids_remove(w->msg.request_ids, mcp_rpc_response_id(msg));
}

static bool awaits_answers(const worker *w)
{
    return w && w->kind == WORK_POST && json_array_size(w->msg.request_ids) > 0;
}

/* A batch: each message handed over on its own. */
static void deliver_batch(http_transport *t, worker *w, const char *text, size_t len)
{
    json_t *doc = json_loadb(text, len, 0, NULL);
    if (!json_is_array(doc)) {
        emit_noise(t, text, len);
        json_decref(doc);
        return;
    }
    size_t i;
    json_t *m;
    json_array_foreach(doc, i, m)
    {
        char *one = json_dumps(m, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!one)
            continue;
        if (json_is_object(m)) {
            note_answer(w, m);
            emit_message(t, one, strlen(one));
        } else {
            emit_noise(t, one, strlen(one));
        }
        free(one);
    }
    json_decref(doc);
}

/* Hand one piece of text that should be a JSON-RPC message (or a batch of them) to the
 * owner; text[len] is NUL. As on stdio (framing.h), what does not start with '{' or '['
 * is noise; the client parses each message, so a message is parsed here only while it may
 * be the answer this worker waits for. */
static void deliver_text(http_transport *t, worker *w, const char *text, size_t len)
{
    size_t lead = 0;
    while (lead < len && is_blank(text + lead, 1))
        lead++;
    if (lead == len)
        return;
    if (text[lead] == '[') {
        deliver_batch(t, w, text, len);
        return;
    }
    if (text[lead] != '{') {
        emit_noise(t, text, len);
        return;
    }
    if (awaits_answers(w)) {
        json_t *msg = json_loadb(text, len, 0, NULL);
        note_answer(w, msg);
        json_decref(msg);
    }
    emit_message(t, text, len);
}

/* The session id from any Streamable HTTP response that carries one. */
static void note_session_id(http_transport *t, const char *value)
{
    if (!value)
        return;
    if (!is_token_text(value)) {
        hew_log(HEW_LOG_WARN, "mcp", "%s sent an unusable Mcp-Session-Id; ignored", t->shown);
        return;
    }
    pthread_mutex_lock(&t->mu);
    if (!t->session_id || strcmp(t->session_id, value) != 0) {
        char *copy = strdup(value);
        if (copy) {
            free(t->session_id);
            t->session_id = copy;
        }
    }
    pthread_mutex_unlock(&t->mu);
}

/* Every change of transport goes through here (t->mu held), so that the log shows it. */
static void set_mode_locked(http_transport *t, http_mode mode)
{
    static const char *const names[] = { "Streamable HTTP", "HTTP+SSE", "auto (undecided)" };
    if (t->mode == mode)
        return;
    hew_log(HEW_LOG_INFO, "mcp", "%s: %s -> %s", t->shown, names[t->mode], names[mode]);
    t->mode = mode;
}

/* Lift w's barrier: later messages may go. */
static void release_turn(http_transport *t, worker *w)
{
    if (!w->barrier || w->released)
        return;
    w->released = true;
    pthread_mutex_lock(&t->mu);
    if (t->released_upto < w->seq)
        t->released_upto = w->seq;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->mu);
}

static bool is_fallback_status(long status)
{
    return status == 400 || status == 404 || status == 405;
}

/* The POST of w's message has its status: in auto mode it decides the transport, and the
 * next messages may go (unless this one is about to be re-sent over HTTP+SSE). */
static void post_status_known(http_transport *t, worker *w, long status)
{
    if (w->probe && is_fallback_status(status))
        return;
    if (w->probe) {
        pthread_mutex_lock(&t->mu);
        if (t->mode == MODE_UNDECIDED)
            set_mode_locked(t, MODE_STREAMABLE);
        pthread_mutex_unlock(&t->mu);
        w->probe = false;
    }
    release_turn(t, w);
}

static void set_endpoint(http_transport *t, const char *data);

typedef enum body_kind {
    BODY_NONE,   /* not known yet */
    BODY_JSON,   /* application/json: collected, delivered at the end */
    BODY_EVENTS, /* text/event-stream: delivered event by event */
    BODY_OTHER   /* an error or anything else: the first bytes kept for messages */
} body_kind;

/* The reading of one HTTP response. */
typedef struct reader {
    http_transport *t;
    worker *w;
    bool post_of_message;  /* the POST of w's message (barrier, auto decision) */
    bool streamable;       /* a Streamable HTTP exchange: note the session id */
    bool stop_when_answered;
    bool sent_session;     /* the request carried Mcp-Session-Id */
    long status;
    body_kind kind;
    sse_decoder *sse;
    buf body;
    size_t messages;       /* SSE events delivered */
    bool enough;           /* we stopped the transfer on purpose */
    hew_code stream_rc;    /* a body we could not take (too big) */
    hew_err stream_err;
} reader;

static void reader_init(reader *r, http_transport *t, worker *w)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    r->w = w;
    buf_init(&r->body, MCP_HTTP_MAX_MESSAGE);
    r->stream_err = (hew_err)HEW_ERR_INIT;
}

static void reader_release(reader *r)
{
    sse_decoder_free(r->sse);
    r->sse = NULL;
    buf_release(&r->body);
}

static int reader_on_response(void *ud, const http_response *resp)
{
    reader *r = ud;
    r->status = resp->status;
    if (r->streamable)
        note_session_id(r->t, http_response_header(resp, "mcp-session-id"));
    const char *type = http_response_header(resp, "content-type");
    bool ok = resp->status / 100 == 2;
    if (ok && media_type_is(type, "text/event-stream")) {
        sse_limits limits = { MCP_HTTP_MAX_MESSAGE, MCP_HTTP_MAX_MESSAGE };
        r->kind = BODY_EVENTS;
        r->sse = sse_decoder_new(&limits);
        if (!r->sse) {
            r->stream_rc = hew_err_set(&r->stream_err, HEW_E_NOMEM,
                                       "out of memory reading the answer of %s", r->t->shown);
            return 1;
        }
    } else if (ok && media_type_is(type, "application/json")) {
        r->kind = BODY_JSON;
    } else {
        r->kind = BODY_OTHER;
    }
    if (r->post_of_message)
        post_status_known(r->t, r->w, resp->status);
    return 0;
}

static void take_event_id(worker *w, const sse_event *ev)
{
    if (!ev->id_len || !is_token_text(ev->id))
        return;
    if (w->last_event_id && strcmp(w->last_event_id, ev->id) == 0)
        return;
    char *copy = strdup(ev->id);
    if (copy) {
        free(w->last_event_id);
        w->last_event_id = copy;
    }
}

static bool event_is(const sse_event *ev, const char *type)
{
    return ev->event_len == strlen(type) && memcmp(ev->event, type, ev->event_len) == 0;
}

static void handle_event(reader *r, const sse_event *ev)
{
    worker *w = r->w;
    take_event_id(w, ev);
    long retry = sse_retry_ms(r->sse);
    if (retry >= 0)
        w->retry_ms = retry;
    r->messages++;
    if (w->kind == WORK_LEGACY_EVENTS && event_is(ev, "endpoint")) {
        set_endpoint(r->t, ev->data);
    } else if (ev->event_len == 0 || event_is(ev, "message")) {
        deliver_text(r->t, w, ev->data, ev->data_len);
    } else {
        hew_log(HEW_LOG_DEBUG, "mcp", "%s: ignored an SSE event of type %.*s", r->t->shown,
                (int)(ev->event_len > 64 ? 64 : ev->event_len), ev->event);
    }
}

static int feed_events(reader *r, const char *bytes, size_t n)
{
    if (sse_feed(r->sse, bytes, n, &r->stream_err) != HEW_OK) {
        r->stream_rc = r->stream_err.code;
        return 1;
    }
    sse_event ev;
    int got;
    while ((got = sse_next(r->sse, &ev, &r->stream_err)) == 1) {
        handle_event(r, &ev);
        if (r->stop_when_answered && json_array_size(r->w->msg.request_ids) == 0) {
            r->enough = true;
            return 1;
        }
        if (stopping(r->w))
            return 1;
    }
    if (got < 0) {
        r->stream_rc = r->stream_err.code;
        return 1;
    }
    return 0;
}

static int reader_on_body(void *ud, const char *bytes, size_t n)
{
    reader *r = ud;
    switch (r->kind) {
    case BODY_EVENTS:
        return feed_events(r, bytes, n);
    case BODY_JSON:
        buf_append(&r->body, bytes, n);
        if (r->body.err != HEW_OK) {
            r->stream_rc = hew_err_set(&r->stream_err, HEW_E_TOOBIG,
                                       "a message from %s is larger than %zu MiB — hew refuses it",
                                       r->t->shown, MCP_HTTP_MAX_MESSAGE >> 20);
            return 1;
        }
        return 0;
    default: {
        size_t room = MCP_HTTP_ERROR_KEEP - r->body.len;
        buf_append(&r->body, bytes, n < room ? n : room);
        if (r->body.len >= MCP_HTTP_ERROR_KEEP) {
            r->enough = true;
            return 1;
        }
        return 0;
    }
    }
}

/* ---- requests ---------------------------------------------------------------------------- */

typedef struct header_list {
    char **items; /* NULL-terminated once anything was added */
    size_t n, cap;
    bool oom;
} header_list;

static void header_add_line(header_list *h, const char *line)
{
    if (h->oom)
        return;
    if (h->n + 2 > h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 8;
        char **grown = realloc(h->items, cap * sizeof *grown);
        if (!grown) {
            h->oom = true;
            return;
        }
        h->items = grown;
        h->cap = cap;
    }
    char *copy = strdup(line);
    if (!copy) {
        h->oom = true;
        return;
    }
    h->items[h->n++] = copy;
    h->items[h->n] = NULL;
}

static void header_add(header_list *h, const char *name, const char *value)
{
    buf line = BUF_INIT(0);
    buf_printf(&line, "%s: %s", name, value);
    if (line.err != HEW_OK)
        h->oom = true;
    else
        header_add_line(h, line.data);
    buf_release(&line);
}

static void header_list_release(header_list *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->items[i]);
    free(h->items);
    memset(h, 0, sizeof *h);
}

typedef enum request_kind {
    REQ_POST,        /* Streamable HTTP: a message */
    REQ_EVENTS,      /* Streamable HTTP: a GET stream (Last-Event-ID when resuming) */
    REQ_DELETE,      /* Streamable HTTP: the end of the session */
    REQ_LEGACY_POST, /* HTTP+SSE: a message to the endpoint */
    REQ_LEGACY_EVENTS
} request_kind;

/* The headers of one request; *sent_session (may be NULL) tells whether the session id
 * went with it. */
static void build_headers(http_transport *t, request_kind kind, const char *last_event_id,
                          header_list *h, bool *sent_session)
{
    if (kind == REQ_POST || kind == REQ_LEGACY_POST) {
        header_add_line(h, "Content-Type: application/json");
        header_add_line(h, "Accept: application/json, text/event-stream");
    } else if (kind != REQ_DELETE) {
        header_add_line(h, "Accept: text/event-stream");
        header_add_line(h, "Cache-Control: no-cache");
    }
    for (char **u = t->headers; u && *u; u++)
        header_add_line(h, *u);
    bool streamable = kind == REQ_POST || kind == REQ_EVENTS || kind == REQ_DELETE;
    bool with_session = false;
    if (streamable) {
        pthread_mutex_lock(&t->mu);
        if (t->session_id) {
            header_add(h, "Mcp-Session-Id", t->session_id);
            with_session = true;
        }
        if (t->protocol_version)
            header_add(h, "MCP-Protocol-Version", t->protocol_version);
        pthread_mutex_unlock(&t->mu);
    }
    if (last_event_id)
        header_add(h, "Last-Event-ID", last_event_id);
    if (sent_session)
        *sent_session = with_session;
}

/* One request through net/http with r reading the answer. A transfer we stopped on purpose
 * (enough of an error body, the awaited answer arrived) is HEW_OK; a body we refused is
 * its own error. */
static hew_code perform(http_transport *t, worker *w, const char *method, const char *url,
                        const header_list *h, long idle_ms, long deadline_ms, reader *r,
                        hew_err *err)
{
    if (h->oom)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory preparing a request to %s",
                           t->shown);
    http_request req = http_request_defaults();
    req.method = method;
    req.url = url;
    req.headers = (const char *const *)h->items;
    if (w->kind == WORK_POST && strcmp(method, "POST") == 0) {
        req.body = w->body;
        req.body_len = w->body_len;
    }
    req.connect_timeout_ms = t->connect_timeout_ms;
    req.idle_timeout_ms = idle_ms;
    req.deadline_ms = deadline_ms;
    req.abort = w->abort;
    http_sink sink = { reader_on_response, reader_on_body, r };
    http_response resp = HTTP_RESPONSE_INIT;
    hew_code rc = http_perform(&req, &sink, &resp, err);
    http_response_release(&resp);
    if (rc == HEW_E_ABORTED && r->stream_rc != HEW_OK && !stopping(w)) {
        if (err)
            *err = r->stream_err;
        return r->stream_rc;
    }
    if (rc == HEW_E_ABORTED && r->enough && !stopping(w)) {
        hew_err_clear(err);
        return HEW_OK;
    }
    return rc;
}

/* The message for a response with an error status. */
static void http_error_text(const http_transport *t, const reader *r, char *out, size_t cap)
{
    mcp_rpc_http_error_text(r->status, t->shown, r->body.data, r->body.len, out, cap);
}

/* ---- workers ----------------------------------------------------------------------------- */

static void worker_free(worker *w)
{
    if (!w)
        return;
    abort_free(w->abort);
    free(w->body);
    mcp_rpc_outgoing_release(&w->msg);
    free(w->last_event_id);
    free(w);
}

static worker *worker_new(http_transport *t, worker_kind kind)
{
    worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->t = t;
    w->kind = kind;
    w->retry_ms = -1;
    w->abort = abort_new();
    if (!w->abort) {
        free(w);
        return NULL;
    }
    return w;
}

static void worker_finish(http_transport *t, worker *w)
{
    pthread_mutex_lock(&t->mu);
    w->done = true;
    pthread_mutex_unlock(&t->mu);
}

static void *post_main(void *arg);
static void *events_main(void *arg);
static void *legacy_events_main(void *arg);
static void legacy_post(http_transport *t, worker *w);

/* Start w's thread and link it (t->mu held). */
static hew_code spawn_locked(http_transport *t, worker *w, hew_err *err)
{
    void *(*main_fn)(void *) = w->kind == WORK_POST     ? post_main
                               : w->kind == WORK_EVENTS ? events_main
                                                        : legacy_events_main;
    int e = pthread_create(&w->thread, NULL, main_fn, w);
    if (e != 0)
        return hew_err_set(err, HEW_E_NOMEM, "cannot start a thread for the MCP server at %s: %s",
                           t->shown, strerror(e));
    w->next = t->workers;
    t->workers = w;
    t->n_workers++;
    return HEW_OK;
}

/* Start a stream worker unless closing or gone (t->mu held). */
static void start_stream_locked(http_transport *t, worker_kind kind)
{
    if (t->closing || t->gone)
        return;
    hew_err err = HEW_ERR_INIT;
    worker *w = worker_new(t, kind);
    if (!w || spawn_locked(t, w, &err) != HEW_OK) {
        hew_log(HEW_LOG_ERROR, "mcp", "%s: cannot open the event stream: %s", t->shown,
                w ? err.msg : "out of memory");
        worker_free(w);
    }
}

/* Unlink the finished workers (t->mu held); the caller joins them outside the lock. */
static worker *take_finished_locked(http_transport *t)
{
    worker *finished = NULL;
    for (worker **p = &t->workers; *p;) {
        worker *w = *p;
        if (w->done) {
            *p = w->next;
            t->n_workers--;
            w->next = finished;
            finished = w;
        } else {
            p = &w->next;
        }
    }
    return finished;
}

static void join_all(worker *list)
{
    while (list) {
        worker *next = list->next;
        pthread_join(list->thread, NULL);
        worker_free(list);
        list = next;
    }
}

/* ---- Streamable HTTP ------------------------------------------------------------------------ */

/* Wait until the barrier w waits for is lifted (bounded by the connect timeout). False
 * when the transport is closing or gone. */
static bool wait_turn(http_transport *t, worker *w)
{
    struct timespec until = deadline_after(t->connect_timeout_ms);
    pthread_mutex_lock(&t->mu);
    while (!t->closing && !t->gone && t->released_upto < w->wait_for) {
        if (pthread_cond_timedwait(&t->cond, &t->mu, &until) == ETIMEDOUT) {
            hew_log(HEW_LOG_WARN, "mcp", "%s: an earlier message got no answer in %ld s; "
                    "sending the next one anyway", t->shown, t->connect_timeout_ms / 1000);
            break;
        }
    }
    bool go = !t->closing && !t->gone;
    pthread_mutex_unlock(&t->mu);
    return go;
}

/* The transport this message goes over; in auto mode before any decision, w decides. */
static http_mode take_mode(http_transport *t, worker *w)
{
    pthread_mutex_lock(&t->mu);
    http_mode mode = t->mode;
    pthread_mutex_unlock(&t->mu);
    if (mode == MODE_UNDECIDED) {
        w->probe = true;
        return MODE_STREAMABLE;
    }
    return mode;
}

static void start_event_stream(http_transport *t)
{
    pthread_mutex_lock(&t->mu);
    if (!t->events_started && t->mode == MODE_STREAMABLE) {
        t->events_started = true;
        start_stream_locked(t, WORK_EVENTS);
    }
    pthread_mutex_unlock(&t->mu);
}

static void fall_back_to_legacy(http_transport *t, worker *w, long status)
{
    w->probe = false;
    pthread_mutex_lock(&t->mu);
    set_mode_locked(t, MODE_LEGACY);
    snprintf(t->fallback_note, sizeof t->fallback_note,
             " (it refused Streamable HTTP with HTTP %ld, so hew tried the older HTTP+SSE "
             "transport)",
             status);
    start_stream_locked(t, WORK_LEGACY_EVENTS);
    pthread_mutex_unlock(&t->mu);
}

static long reconnect_delay(const worker *w)
{
    long ms = w->retry_ms >= 0 ? w->retry_ms : MCP_HTTP_RECONNECT_MS;
    return ms > MCP_HTTP_RECONNECT_MAX_MS ? MCP_HTTP_RECONNECT_MAX_MS : ms;
}

/* One GET of the Streamable HTTP stream (resuming after w->last_event_id when set);
 * resuming the answer of a request, it stops once every request of w is answered. */
static hew_code get_events(http_transport *t, worker *w, bool resuming, reader *r,
                           hew_err *err)
{
    header_list h = { 0 };
    reader_init(r, t, w);
    r->streamable = true;
    r->stop_when_answered = resuming;
    build_headers(t, REQ_EVENTS, w->last_event_id, &h, &r->sent_session);
    hew_code rc = perform(t, w, "GET", t->url, &h, MCP_HTTP_STREAM_IDLE_MS,
                          MCP_HTTP_STREAM_DEADLINE_MS, r, err);
    header_list_release(&h);
    return rc;
}

/* The SSE answer of a request broke off before the response: resume it with GETs carrying
 * Last-Event-ID ("Resumability and Redelivery") until the response arrives, the server
 * refuses, or the tries run out; whatever still waits then gets an error. */
static void resume_until_answered(http_transport *t, worker *w)
{
    int fruitless = 0;
    char why[WHY_MAX];
    while (json_array_size(w->msg.request_ids) > 0 && !stopping(w)) {
        if (!w->last_event_id) {
            snprintf(why, sizeof why,
                     "the MCP server at %s ended its answer before the response, and gave no "
                     "event id to resume from",
                     t->shown);
            fail_requests(t, w, why, 0);
            return;
        }
        if (fruitless >= MCP_HTTP_RESUME_TRIES) {
            snprintf(why, sizeof why,
                     "the answer of the MCP server at %s broke off and could not be resumed "
                     "(%d tries)",
                     t->shown, fruitless);
            fail_requests(t, w, why, 0);
            return;
        }
        if (abort_sleep(w->abort, reconnect_delay(w)))
            return;
        reader r;
        hew_err err = HEW_ERR_INIT;
        hew_code rc = get_events(t, w, true, &r, &err);
        if (stopping(w)) {
            reader_release(&r);
            return;
        }
        if (r.status == 404 && r.sent_session) {
            reader_release(&r);
            session_expired(t);
            return;
        }
        if (rc == HEW_E_TOOBIG || rc == HEW_E_NOMEM) {
            reader_release(&r);
            fail_requests(t, w, err.msg, 0);
            return;
        }
        if (r.status != 0 && (r.status / 100 != 2 || r.kind != BODY_EVENTS)) {
            http_error_text(t, &r, why, sizeof why);
            reader_release(&r);
            fail_requests(t, w, why, r.status);
            return;
        }
        fruitless = r.messages ? 0 : fruitless + 1;
        reader_release(&r);
    }
}

/* POST w's message to the Streamable HTTP URL and take the answer. */
static void streamable_post(http_transport *t, worker *w)
{
    reader r;
    header_list h = { 0 };
    hew_err err = HEW_ERR_INIT;
    char why[WHY_MAX];
    reader_init(&r, t, w);
    r.post_of_message = true;
    r.streamable = true;
    build_headers(t, REQ_POST, NULL, &h, &r.sent_session);
    hew_code rc = perform(t, w, "POST", t->url, &h, MCP_HTTP_POST_IDLE_MS,
                          MCP_HTTP_POST_DEADLINE_MS, &r, &err);
    header_list_release(&h);
    if (stopping(w))
        goto out;
    if (w->probe && is_fallback_status(r.status)) {
        fall_back_to_legacy(t, w, r.status);
        legacy_post(t, w);
        goto out;
    }
    if (r.status == 0) {
        fail_requests(t, w, err.msg, 0);
        goto out;
    }
    if (r.status == 404 && r.sent_session) {
        session_expired(t);
        goto out;
    }
    if (r.status / 100 != 2) {
        http_error_text(t, &r, why, sizeof why);
        fail_requests(t, w, why, r.status);
        goto out;
    }
    if (r.kind == BODY_JSON && rc == HEW_OK)
        deliver_text(t, w, r.body.data ? r.body.data : "", r.body.len);
    if (w->msg.is_initialized)
        start_event_stream(t);
    if (json_array_size(w->msg.request_ids) == 0)
        goto out;
    if (rc == HEW_E_TOOBIG || rc == HEW_E_NOMEM || (rc != HEW_OK && r.kind != BODY_EVENTS)) {
        fail_requests(t, w, err.msg, 0);
    } else if (r.kind == BODY_EVENTS) {
        resume_until_answered(t, w);
    } else {
        snprintf(why, sizeof why, "the MCP server at %s accepted the request (HTTP %ld) but "
                 "sent no response", t->shown, r.status);
        fail_requests(t, w, why, r.status);
    }
out:
    reader_release(&r);
}

/* The GET stream of server-initiated messages: reopened (with Last-Event-ID) when it ends,
 * until the server says it offers none (405), refuses, or keeps failing. */
static void *events_main(void *arg)
{
    worker *w = arg;
    http_transport *t = w->t;
    int fruitless = 0;
    char why[WHY_MAX];
    while (!stopping(w)) {
        reader r;
        hew_err err = HEW_ERR_INIT;
        long started = now_ms();
        get_events(t, w, false, &r, &err);
        long lived = now_ms() - started;
        long status = r.status;
        bool sent_session = r.sent_session;
        bool streamed = status / 100 == 2 && r.kind == BODY_EVENTS;
        bool useful = r.messages > 0 || lived >= MCP_HTTP_STREAM_LIVED_MS;
        if (!stopping(w) && status != 0 && !streamed)
            http_error_text(t, &r, why, sizeof why);
        reader_release(&r);
        if (stopping(w))
            break;
        if (status == 405) {
            hew_log(HEW_LOG_INFO, "mcp", "%s offers no stream of its own messages (HTTP 405)",
                    t->shown);
            break;
        }
        if (status == 404 && sent_session) {
            session_expired(t);
            break;
        }
        if (status != 0 && !streamed) {
            hew_log(HEW_LOG_WARN, "mcp", "the server's message stream was refused: %s", why);
            break;
        }
        fruitless = useful ? 0 : fruitless + 1;
        if (fruitless >= MCP_HTTP_RESUME_TRIES) {
            hew_log(HEW_LOG_WARN, "mcp", "%s: the server's message stream keeps failing (%s); "
                    "given up", t->shown, status ? "it ends at once" : err.msg);
            break;
        }
        if (abort_sleep(w->abort, reconnect_delay(w)))
            break;
    }
    worker_finish(t, w);
    return NULL;
}

/* ---- HTTP+SSE -------------------------------------------------------------------------------- */

/* The endpoint event: where to POST from now on, resolved against the stream's URL and
 * refused when it leaves the stream's origin. */
static void set_endpoint(http_transport *t, const char *data)
{
    char *url = NULL;
    hew_err err = HEW_ERR_INIT;
    char why[WHY_MAX];
    if (url_resolve(t->url, data, &url, &err) != HEW_OK) {
        snprintf(why, sizeof why, "the MCP server at %s sent an endpoint hew cannot use: %s",
                 t->shown, err.msg);
        report_closed(t, why);
        return;
    }
    if (!url_same_origin(url, t->url)) {
        char shown[256];
        url_redact(url, shown, sizeof shown);
        snprintf(why, sizeof why,
                 "the MCP server at %s asked hew to send its messages to another site (%s); "
                 "refused",
                 t->shown, shown);
        free(url);
        report_closed(t, why);
        return;
    }
    pthread_mutex_lock(&t->mu);
    free(t->endpoint);
    t->endpoint = url;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->mu);
}

/* A copy of the endpoint, waiting for the endpoint event up to the connect timeout; NULL
 * when it did not come (or the transport is closing or gone). */
static char *wait_for_endpoint(http_transport *t)
{
    struct timespec until = deadline_after(t->connect_timeout_ms);
    pthread_mutex_lock(&t->mu);
    while (!t->endpoint && !t->closing && !t->gone)
        if (pthread_cond_timedwait(&t->cond, &t->mu, &until) == ETIMEDOUT)
            break;
    char *url = t->closing || t->gone ? NULL : dup_str(t->endpoint);
    pthread_mutex_unlock(&t->mu);
    return url;
}

static void legacy_post(http_transport *t, worker *w)
{
    char why[WHY_MAX];
    char *endpoint = wait_for_endpoint(t);
    if (!endpoint) {
        if (!stopping(w)) {
            snprintf(why, sizeof why,
                     "the MCP server at %s did not name its message endpoint within %ld s — "
                     "is it an HTTP+SSE server?",
                     t->shown, t->connect_timeout_ms / 1000);
            fail_requests(t, w, why, 0);
        }
        return;
    }
    reader r;
    header_list h = { 0 };
    hew_err err = HEW_ERR_INIT;
    reader_init(&r, t, w);
    r.post_of_message = true;
    build_headers(t, REQ_LEGACY_POST, NULL, &h, NULL);
    perform(t, w, "POST", endpoint, &h, MCP_HTTP_POST_IDLE_MS, MCP_HTTP_POST_DEADLINE_MS, &r,
            &err);
    header_list_release(&h);
    if (!stopping(w)) {
        if (r.status == 0) {
            fail_requests(t, w, err.msg, 0);
        } else if (r.status / 100 != 2) {
            http_error_text(t, &r, why, sizeof why);
            fail_requests(t, w, why, r.status);
        }
    }
    reader_release(&r);
    free(endpoint);
}

/* The HTTP+SSE stream: the endpoint, then every message; its end is the connection's. */
static void *legacy_events_main(void *arg)
{
    worker *w = arg;
    http_transport *t = w->t;
    reader r;
    header_list h = { 0 };
    hew_err err = HEW_ERR_INIT;
    reader_init(&r, t, w);
    build_headers(t, REQ_LEGACY_EVENTS, NULL, &h, NULL);
    hew_code rc = perform(t, w, "GET", t->url, &h, MCP_HTTP_STREAM_IDLE_MS,
                          MCP_HTTP_STREAM_DEADLINE_MS, &r, &err);
    header_list_release(&h);
    if (!stopping(w)) {
        char why[2 * WHY_MAX], detail[WHY_MAX];
        pthread_mutex_lock(&t->mu);
        char note[sizeof t->fallback_note];
        memcpy(note, t->fallback_note, sizeof note);
        pthread_mutex_unlock(&t->mu);
        if (r.status == 0) {
            snprintf(why, sizeof why, "%s%s", err.msg, note);
        } else if (r.status / 100 != 2) {
            http_error_text(t, &r, detail, sizeof detail);
            snprintf(why, sizeof why, "the MCP server refused its event stream: %s%s", detail,
                     note);
        } else if (r.kind != BODY_EVENTS) {
            snprintf(why, sizeof why, "the MCP server at %s did not answer with an event "
                     "stream%s", t->shown, note);
        } else if (rc != HEW_OK) {
            snprintf(why, sizeof why, "the event stream of the MCP server broke: %s", err.msg);
        } else {
            snprintf(why, sizeof why, "the MCP server at %s closed its event stream", t->shown);
        }
        report_closed(t, why);
    }
    reader_release(&r);
    worker_finish(t, w);
    return NULL;
}

/* ---- the worker of one message ----------------------------------------------------------- */

static void *post_main(void *arg)
{
    worker *w = arg;
    http_transport *t = w->t;
    if (wait_turn(t, w)) {
        if (take_mode(t, w) == MODE_LEGACY)
            legacy_post(t, w);
        else
            streamable_post(t, w);
    }
    release_turn(t, w);
    worker_finish(t, w);
    return NULL;
}

/* ---- the interface ------------------------------------------------------------------------- */

static hew_code http_send(mcp_transport *base, const char *json, size_t len, hew_err *err)
{
    http_transport *t = (http_transport *)base;
    worker *w = worker_new(t, WORK_POST);
    if (!w)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory sending to %s", t->shown);
    hew_code rc = mcp_rpc_outgoing_read(json, len, &w->msg, err);
    if (rc == HEW_OK && !(w->body = malloc(len + 1)))
        rc = hew_err_set(err, HEW_E_NOMEM, "out of memory sending to %s", t->shown);
    if (rc != HEW_OK) {
        worker_free(w);
        return rc;
    }
    memcpy(w->body, json, len);
    w->body[len] = '\0';
    w->body_len = len;

    pthread_mutex_lock(&t->mu);
    worker *finished = take_finished_locked(t);
    if (t->closing || t->gone) {
        rc = hew_err_set(err, HEW_E_NET, "the connection to the MCP server at %s is closed",
                         t->shown);
    } else if (t->n_workers >= MCP_HTTP_MAX_IN_FLIGHT) {
        rc = hew_err_set(err, HEW_E_TOOBIG,
                         "%d messages to the MCP server at %s are still in flight — it is not "
                         "answering",
                         MCP_HTTP_MAX_IN_FLIGHT, t->shown);
    } else {
        w->seq = t->next_seq + 1;
        w->wait_for = t->last_barrier;
        w->barrier = t->mode != MODE_STREAMABLE || w->seq == 1 || w->msg.is_batch ||
                     json_array_size(w->msg.request_ids) == 0;
        rc = spawn_locked(t, w, err);
        if (rc == HEW_OK) {
            t->next_seq = w->seq;
            if (w->barrier)
                t->last_barrier = w->seq;
        }
    }
    pthread_mutex_unlock(&t->mu);
    join_all(finished);
    if (rc != HEW_OK)
        worker_free(w);
    return rc;
}

static void http_set_protocol_version(mcp_transport *base, const char *version)
{
    http_transport *t = (http_transport *)base;
    if (version && !is_token_text(version)) {
        hew_log(HEW_LOG_WARN, "mcp", "%s: protocol version \"%.32s\" cannot go into a "
                "header; not sent", t->shown, version);
        return;
    }
    char *copy = dup_str(version);
    pthread_mutex_lock(&t->mu);
    free(t->protocol_version);
    t->protocol_version = copy;
    pthread_mutex_unlock(&t->mu);
}

/* End the session on the server (best effort, short). */
static void send_delete(http_transport *t)
{
    header_list h = { 0 };
    build_headers(t, REQ_DELETE, NULL, &h, NULL);
    if (h.oom) {
        header_list_release(&h);
        return;
    }
    http_request req = http_request_defaults();
    req.method = "DELETE";
    req.url = t->url;
    req.headers = (const char *const *)h.items;
    req.connect_timeout_ms =
        t->connect_timeout_ms < MCP_HTTP_DELETE_MS ? t->connect_timeout_ms : MCP_HTTP_DELETE_MS;
    req.idle_timeout_ms = MCP_HTTP_DELETE_MS;
    req.deadline_ms = MCP_HTTP_DELETE_MS;
    hew_err err = HEW_ERR_INIT;
    http_response resp = HTTP_RESPONSE_INIT;
    if (http_perform(&req, NULL, &resp, &err) != HEW_OK)
        hew_log(HEW_LOG_DEBUG, "mcp", "ending the session: %s", err.msg);
    http_response_release(&resp);
    header_list_release(&h);
}

static void transport_free(http_transport *t)
{
    for (char **h = t->headers; h && *h; h++)
        free(*h);
    free(t->headers);
    free(t->url);
    free(t->session_id);
    free(t->protocol_version);
    free(t->endpoint);
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->mu);
    pthread_mutex_destroy(&t->cb_mu);
    free(t);
}

static void http_close(mcp_transport *base)
{
    http_transport *t = (http_transport *)base;
    if (!t)
        return;
    pthread_mutex_lock(&t->cb_mu);
    t->cb_off = true;
    pthread_mutex_unlock(&t->cb_mu);

    pthread_mutex_lock(&t->mu);
    t->closing = true;
    for (worker *w = t->workers; w; w = w->next)
        abort_trigger(w->abort, "the MCP connection is being closed");
    pthread_cond_broadcast(&t->cond);
    bool end_session = t->session_id && t->mode == MODE_STREAMABLE && !t->gone;
    pthread_mutex_unlock(&t->mu);

    if (end_session)
        send_delete(t);
    /* No worker starts once closing is set, so the list only shrinks. */
    pthread_mutex_lock(&t->mu);
    worker *all = t->workers;
    t->workers = NULL;
    t->n_workers = 0;
    pthread_mutex_unlock(&t->mu);
    join_all(all);
    transport_free(t);
}

/* ---- opening ------------------------------------------------------------------------------ */

static hew_code check_options(const mcp_http_opts *o, hew_err *err)
{
    if (!o || !o->url || !*o->url)
        return hew_err_set(err, HEW_E_INVALID, "an MCP server over HTTP needs a url");
    hew_err why = HEW_ERR_INIT;
    hew_code rc = url_check_http(o->url, &why);
    if (rc != HEW_OK)
        return hew_err_set(err, rc, "the MCP server url: %s", why.msg);
    if (o->legacy_sse < 0 || o->legacy_sse > 2)
        return hew_err_set(err, HEW_E_INVALID, "legacy_sse must be 0, 1 or 2, not %d",
                           o->legacy_sse);
    for (const char *const *h = o->headers; h && *h; h++) {
        const char *colon = strchr(*h, ':');
        if (!colon || colon == *h || strpbrk(*h, "\r\n"))
            return hew_err_set(err, HEW_E_INVALID,
                               "MCP server header \"%.64s\" must be one line \"Name: value\"",
                               *h);
    }
    return HEW_OK;
}

static char **copy_headers(const char *const *headers)
{
    size_t n = 0;
    while (headers && headers[n])
        n++;
    char **copy = calloc(n + 1, sizeof *copy);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(copy[i] = strdup(headers[i]))) {
            for (size_t j = 0; j < i; j++)
                free(copy[j]);
            free(copy);
            return NULL;
        }
    }
    return copy;
}

static void init_locks(http_transport *t)
{
    pthread_mutex_init(&t->cb_mu, NULL);
    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cond, &attr);
    pthread_condattr_destroy(&attr);
}

hew_code mcp_http_open(const mcp_http_opts *o, const mcp_sink *sink, mcp_transport **out,
                       hew_err *err)
{
    *out = NULL;
    hew_code rc = check_options(o, err);
    if (rc != HEW_OK)
        return rc;
    if (!sink || !sink->on_message)
        return hew_err_set(err, HEW_E_INVALID, "an MCP transport needs an on_message sink");
    http_transport *t = calloc(1, sizeof *t);
    if (!t)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory opening an MCP connection");
    init_locks(t);
    t->base.send = http_send;
    t->base.close = http_close;
    t->base.set_protocol_version = http_set_protocol_version;
    t->sink = *sink;
    t->url = strdup(o->url);
    t->headers = copy_headers(o->headers);
    t->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : MCP_HTTP_CONNECT_MS;
    t->mode = o->legacy_sse == 1 ? MODE_LEGACY
              : o->legacy_sse == 2 ? MODE_UNDECIDED
                                   : MODE_STREAMABLE;
    if (!t->url || !t->headers) {
        transport_free(t);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory opening an MCP connection");
    }
    url_redact(t->url, t->shown, sizeof t->shown);
    if (t->mode == MODE_LEGACY) {
        worker *w = worker_new(t, WORK_LEGACY_EVENTS);
        pthread_mutex_lock(&t->mu);
        rc = w ? spawn_locked(t, w, err)
               : hew_err_set(err, HEW_E_NOMEM, "out of memory opening an MCP connection");
        pthread_mutex_unlock(&t->mu);
        if (rc != HEW_OK) {
            worker_free(w);
            transport_free(t);
            return rc;
        }
    }
    *out = &t->base;
    return HEW_OK;
}
