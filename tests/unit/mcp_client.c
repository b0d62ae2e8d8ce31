/* Tests of the MCP client side: the stdio framing (messages split across reads, several in
 * one read, garbage, CRLF, overlong lines), the stdio transport and the JSON-RPC client
 * against the REAL "everything" and "filesystem" servers from the npm registry (installed
 * by scripts/install-deps into tests/mcp), a server that misbehaves (a shell script), and
 * the hub: parallel connection, status, snapshots with native names, calls, reload. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/abort.h"
#include "base/buf.h"
#include "check.h"
#include "hew.h"
#include "mcpsrv.h"
#include "mcp/client.h"
#include "mcp/framing.h"
#include "mcp/hub.h"
#include "mcp/transport.h"
#include "tools/mcp_common.h"
#include "tmpdir.h"
#include "sys/proc.h"

/* ---- framing ----------------------------------------------------------------------------- */

typedef struct collected {
    buf messages; /* each message followed by '|' */
    buf noise;    /* each noise line followed by '|' */
} collected;

static void got_message(void *ud, const char *json, size_t len)
{
    collected *c = ud;
    CHECK(json[len] == '\0');
    buf_append(&c->messages, json, len);
    buf_putc(&c->messages, '|');
}

static void got_noise(void *ud, const char *text, size_t len)
{
    collected *c = ud;
    buf_append(&c->noise, text, len);
    buf_putc(&c->noise, '|');
}

static void feed_in_pieces(const char *input, size_t piece, collected *c, size_t cap)
{
    mcp_lines l;
    mcp_lines_init(&l, cap, got_message, got_noise, c);
    size_t n = strlen(input);
    for (size_t i = 0; i < n; i += piece)
        mcp_lines_feed(&l, input + i, n - i < piece ? n - i : piece);
    mcp_lines_finish(&l);
    mcp_lines_release(&l);
}

static void test_framing(void)
{
    const char *input = "{\"a\":1}\n{\"b\":2}\r\nnot json at all\n\n  \n  {\"c\":[3]}\n[{\"d\":4}]\n"
                        "{\"tail\":true}";
    for (size_t piece = 1; piece <= strlen(input); piece++) {
        collected c = { BUF_INIT(4096), BUF_INIT(4096) };
        feed_in_pieces(input, piece, &c, 0);
        CHECK_STR(c.messages.data, "{\"a\":1}|{\"b\":2}|{\"c\":[3]}|[{\"d\":4}]|{\"tail\":true}|");
        CHECK_STR(c.noise.data, "not json at all|");
        buf_release(&c.messages);
        buf_release(&c.noise);
    }
}

static void test_framing_overlong(void)
{
    buf in = BUF_INIT(1 << 20);
    buf_puts(&in, "{\"x\":\"");
    for (int i = 0; i < 300; i++)
        buf_puts(&in, "0123456789");
    buf_puts(&in, "\"}\n{\"ok\":1}\n");
    collected c = { BUF_INIT(4096), BUF_INIT(4096) };
    feed_in_pieces(in.data, 7, &c, 1000);
    CHECK_STR(c.messages.data, "{\"ok\":1}|");
    CHECK(c.noise.data && strstr(c.noise.data, "longer than the limit"));
    buf_release(&c.messages);
    buf_release(&c.noise);
    buf_release(&in);
}

/* ---- the real servers ------------------------------------------------------------------- */

static char everything_js[1024], filesystem_js[1024];

static bool servers_installed(void)
{
    snprintf(everything_js, sizeof everything_js,
             "%s/../@modelcontextprotocol/server-everything/dist/index.js", HEW_MCP_SERVERS);
    snprintf(filesystem_js, sizeof filesystem_js,
             "%s/../@modelcontextprotocol/server-filesystem/dist/index.js", HEW_MCP_SERVERS);
    struct stat st;
    if (stat(everything_js, &st) != 0 || stat(filesystem_js, &st) != 0) {
        check_fail(__FILE__, __LINE__,
                   "the MCP test servers are not installed in %s: run scripts/install-deps",
                   HEW_MCP_SERVERS);
        return false;
    }
    return true;
}

typedef struct events {
    pthread_mutex_t mu;
    buf notes;
    int closed;
    char why[512];
} events;

static void ev_notification(void *ud, const char *method, const json_t *params)
{
    (void)params;
    events *e = ud;
    pthread_mutex_lock(&e->mu);
    buf_printf(&e->notes, "%s\n", method);
    pthread_mutex_unlock(&e->mu);
}

static void ev_noise(void *ud, int stream, const char *text, size_t len)
{
    events *e = ud;
    pthread_mutex_lock(&e->mu);
    buf_printf(&e->notes, "noise%d:%.*s\n", stream, (int)len, text);
    pthread_mutex_unlock(&e->mu);
}

static void ev_closed(void *ud, const char *why)
{
    events *e = ud;
    pthread_mutex_lock(&e->mu);
    e->closed++;
    snprintf(e->why, sizeof e->why, "%s", why);
    pthread_mutex_unlock(&e->mu);
}

static mcp_client *open_stdio(const char *name, const char *const *argv, const char *root,
                              events *ev)
{
    mcp_client_handlers h = { ev_notification, ev_noise, ev_closed, ev };
    mcp_client *c = NULL;
    hew_err err = HEW_ERR_INIT;
    if (mcp_client_new(name, root, &h, &c, &err) != HEW_OK)
        return NULL;
    mcp_sink sink = mcp_client_sink(c);
    mcp_stdio_opts o = { argv, NULL, NULL, NULL };
    mcp_transport *t = NULL;
    if (mcp_stdio_open(&o, &sink, &t, &err) != HEW_OK) {
        fprintf(stderr, "stdio open: %s\n", err.msg);
        mcp_client_free(c);
        return NULL;
    }
    mcp_client_attach(c, t);
    return c;
}

static char *text_of(const json_t *result)
{
    buf b = BUF_INIT(1 << 20);
    size_t i;
    json_t *part;
    json_array_foreach(json_object_get(result, "content"), i, part) {
        const char *t = json_string_value(json_object_get(part, "text"));
        if (t)
            buf_puts(&b, t);
    }
    return buf_detach(&b, NULL);
}

static json_t *call(mcp_client *c, const char *tool, const char *args_json, hew_code *rc,
                    hew_err *err)
{
    json_t *params = json_object();
    json_object_set_new(params, "name", json_string(tool));
    json_object_set_new(params, "arguments", json_loads(args_json, 0, NULL));
    json_t *r = NULL;
    *rc = mcp_client_request(c, "tools/call", params, 20000, NULL, NULL, NULL, &r, err);
    return r;
}

typedef struct progress_seen {
    int count;
    double last, total;
    pthread_t thread;
    bool same_thread;
} progress_seen;

static void on_progress(void *ud, double progress, double total, const char *message)
{
    (void)message;
    progress_seen *p = ud;
    p->count++;
    p->last = progress;
    p->total = total;
    if (!pthread_equal(p->thread, pthread_self()))
        p->same_thread = false;
}

typedef struct concurrent_call {
    mcp_client *c;
    int n;
    bool ok;
} concurrent_call;

static void *call_echo_thread(void *arg)
{
    concurrent_call *cc = arg;
    char args[64], want[64];
    snprintf(args, sizeof args, "{\"message\":\"m%d\"}", cc->n);
    snprintf(want, sizeof want, "m%d", cc->n);
    hew_code rc;
    hew_err err = HEW_ERR_INIT;
    json_t *r = call(cc->c, "echo", args, &rc, &err);
    char *text = r ? text_of(r) : NULL;
    cc->ok = rc == HEW_OK && text && strstr(text, want);
    free(text);
    json_decref(r);
    return NULL;
}

static void test_everything_stdio(void)
{
    if (!servers_installed())
        return;
    events ev = { PTHREAD_MUTEX_INITIALIZER, BUF_INIT(1 << 20), 0, "" };
    const char *argv[] = { "node", everything_js, "stdio", NULL };
    char *root = tmpdir_make("mcp-root");
    mcp_client *c = open_stdio("everything", argv, root, &ev);
    REQUIRE(c);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = mcp_client_initialize(c, 30000, NULL, &err);
    if (rc != HEW_OK)
        fprintf(stderr, "initialize: %s\n", err.msg);
    REQUIRE(rc == HEW_OK);
    CHECK(mcp_client_protocol(c) != NULL);
    CHECK(strstr(mcp_client_server_version(c), "everything") != NULL);
    CHECK(json_object_get(mcp_client_capabilities(c), "tools") != NULL);

    json_t *tools = NULL;
    CHECK_INT(mcp_client_list(c, "tools/list", "tools", 10000, NULL, &tools, &err), HEW_OK);
    CHECK(json_array_size(tools) >= 5);
    bool has_echo = false;
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
        has_echo |= strcmp(json_string_value(json_object_get(t, "name")), "echo") == 0;
    CHECK(has_echo);
    json_decref(tools);

    /* Resources come in pages (the everything server pages them). */
    json_t *resources = NULL;
    CHECK_INT(mcp_client_list(c, "resources/list", "resources", 10000, NULL, &resources, &err),
              HEW_OK);
    CHECK(json_array_size(resources) >= 1);
    if (json_array_size(resources) >= 1) {
        const char *uri = json_string_value(json_object_get(json_array_get(resources, 0), "uri"));
        json_t *params = json_object();
        json_object_set_new(params, "uri", json_string(uri));
        json_t *r = NULL;
        CHECK_INT(mcp_client_request(c, "resources/read", params, 10000, NULL, NULL, NULL, &r,
                                     &err),
                  HEW_OK);
        CHECK(json_array_size(json_object_get(r, "contents")) >= 1);
        json_decref(r);
    }
    json_decref(resources);

    json_t *r = call(c, "echo", "{\"message\":\"hello from hew\"}", &rc, &err);
    CHECK_INT(rc, HEW_OK);
    char *text = r ? text_of(r) : NULL;
    CHECK(text && strstr(text, "hello from hew"));
    free(text);
    json_decref(r);

    r = call(c, "get-sum", "{\"a\":2,\"b\":40}", &rc, &err);
    text = r ? text_of(r) : NULL;
    CHECK(text && strstr(text, "42"));
    free(text);
    json_decref(r);

    /* The server asks us for our roots: we offer the workspace. */
    r = call(c, "get-roots-list", "{}", &rc, &err);
    text = r ? text_of(r) : NULL;
    CHECK(text && strstr(text, root));
    free(text);
    json_decref(r);

    /* Progress reaches the calling thread before the answer. */
    progress_seen seen = { 0, 0, 0, pthread_self(), true };
    json_t *params = json_object();
    json_object_set_new(params, "name", json_string("trigger-long-running-operation"));
    json_object_set_new(params, "arguments", json_pack("{s:f,s:i}", "duration", 1.0, "steps", 4));
    r = NULL;
    rc = mcp_client_request(c, "tools/call", params, 20000, NULL, on_progress, &seen, &r, &err);
    CHECK_INT(rc, HEW_OK);
    /* Each notification wakes the caller; under load two may come before it runs, and
     * then only the latest is shown (by design), so at least one, at most four. */
    CHECK(seen.count >= 1 && seen.count <= 4);
    CHECK(seen.last == 4 && seen.total == 4);
    CHECK(seen.same_thread);
    json_decref(r);

    /* An unknown tool: an error, either as a JSON-RPC error or an isError result. */
    r = call(c, "no-such-tool", "{}", &rc, &err);
    CHECK(rc == HEW_E_PROTOCOL || (rc == HEW_OK && json_is_true(json_object_get(r, "isError"))));
    json_decref(r);

    /* Arguments the tool refuses: an error result (isError), which the model sees as
     * "Error:" followed by the server's words. */
    r = call(c, "get-sum", "{\"a\":\"not a number\",\"b\":1}", &rc, &err);
    CHECK_INT(rc, HEW_OK);
    CHECK(json_is_true(json_object_get(r, "isError")));
    buf shown = BUF_INIT(1 << 20);
    json_t *images = NULL;
    mcp_format_tool_result(r, &shown, &images);
    CHECK(shown.data && strncmp(shown.data, "Error:\n", 7) == 0 && strlen(shown.data) > 10);
    CHECK(images == NULL);
    buf_release(&shown);
    json_decref(r);

    /* An image comes out as an image block for the model, not as text. */
    r = call(c, "get-tiny-image", "{}", &rc, &err);
    shown = (buf)BUF_INIT(1 << 20);
    mcp_format_tool_result(r, &shown, &images);
    CHECK_INT(json_array_size(images), 1);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(images, 0),
                                                                "source"),
                                                "media_type")),
              "image/png");
    CHECK(shown.data && !strstr(shown.data, "iVBOR")); /* no base64 in the text */
    buf_release(&shown);
    json_decref(images);
    json_decref(r);

    /* Several requests in flight at once, each gets its own answer. */
    pthread_t th[6];
    concurrent_call cc[6];
    for (int k = 0; k < 6; k++) {
        cc[k] = (concurrent_call){ c, k, false };
        pthread_create(&th[k], NULL, call_echo_thread, &cc[k]);
    }
    for (int k = 0; k < 6; k++) {
        pthread_join(th[k], NULL);
        CHECK(cc[k].ok);
    }

    /* Abort a long call: back within a moment, the server told, and still usable. */
    hew_abort *ab = abort_new();
    params = json_object();
    json_object_set_new(params, "name", json_string("trigger-long-running-operation"));
    json_object_set_new(params, "arguments", json_pack("{s:f,s:i}", "duration", 30.0, "steps", 2));
    abort_trigger(ab, "test");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r = NULL;
    rc = mcp_client_request(c, "tools/call", params, 60000, ab, NULL, NULL, &r, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_INT(rc, HEW_E_ABORTED);
    CHECK(t1.tv_sec - t0.tv_sec < 10); /* not the call's 30 s */
    abort_free(ab);
    r = call(c, "echo", "{\"message\":\"after abort\"}", &rc, &err);
    CHECK_INT(rc, HEW_OK);
    json_decref(r);

    /* A timeout is an error that says which server and how to give it longer. */
    params = json_object();
    json_object_set_new(params, "name", json_string("trigger-long-running-operation"));
    json_object_set_new(params, "arguments", json_pack("{s:f,s:i}", "duration", 30.0, "steps", 2));
    rc = mcp_client_request(c, "tools/call", params, 300, NULL, NULL, NULL, &r, &err);
    CHECK_INT(rc, HEW_E_TIMEOUT);
    CHECK(strstr(err.msg, "everything") && strstr(err.msg, "timeout"));

    mcp_client_free(c);
    CHECK_INT(ev.closed, 0); /* closing on purpose is not a "closed" event */
    buf_release(&ev.notes);
    tmpdir_remove(root);
    free(root);
}

/* A server that prints a banner, answers initialize, writes to stderr and dies. */
static void test_misbehaving_server(void)
{
    events ev = { PTHREAD_MUTEX_INITIALIZER, BUF_INIT(1 << 20), 0, "" };
    const char *script =
        "echo 'Server starting, hello!'; read line; "
        "printf '%s\\r\\n' '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
        "\"params\":{\"level\":\"info\",\"data\":\"hi\"}}{garbage'; "
        "printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}"
        "' '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\","
        "\"capabilities\":{},\"serverInfo\":{\"name\":\"sh\",\"version\":\"1\"}}}'; "
        "read line; echo 'fatal: the database is gone' >&2; exit 3";
    const char *argv[] = { "sh", "-c", script, NULL };
    mcp_client *c = open_stdio("shell", argv, NULL, &ev);
    REQUIRE(c);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(mcp_client_initialize(c, 10000, NULL, &err), HEW_OK);
    /* The next request dies with the server: an error naming it and its last words. */
    json_t *r = NULL;
    hew_code rc = mcp_client_request(c, "tools/list", NULL, 10000, NULL, NULL, NULL, &r, &err);
    CHECK_INT(rc, HEW_E_NET);
    CHECK(strstr(err.msg, "status 3") && strstr(err.msg, "the database is gone"));
    int closed = 0;
    for (int i = 0; i < 500 && !closed; i++) {
        pthread_mutex_lock(&ev.mu);
        closed = ev.closed;
        pthread_mutex_unlock(&ev.mu);
        if (!closed)
            usleep(10000);
    }
    CHECK_INT(closed, 1);
    pthread_mutex_lock(&ev.mu);
    CHECK(strstr(ev.notes.data, "noise1:Server starting, hello!") != NULL);
    CHECK(strstr(ev.notes.data, "noise1:{") != NULL); /* the unparsable line */
    CHECK(strstr(ev.notes.data, "notifications/message") != NULL);
    CHECK(strstr(ev.notes.data, "noise2:fatal: the database is gone") != NULL);
    pthread_mutex_unlock(&ev.mu);
    CHECK(!mcp_client_alive(c));
    mcp_client_free(c);
    buf_release(&ev.notes);
}

static void test_missing_program(void)
{
    events ev = { PTHREAD_MUTEX_INITIALIZER, BUF_INIT(4096), 0, "" };
    mcp_client_handlers h = { ev_notification, ev_noise, ev_closed, &ev };
    mcp_client *c = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(mcp_client_new("nope", NULL, &h, &c, &err) == HEW_OK);
    mcp_sink sink = mcp_client_sink(c);
    const char *argv[] = { "hew-no-such-mcp-server", NULL };
    mcp_stdio_opts o = { argv, NULL, NULL, NULL };
    mcp_transport *t = NULL;
    CHECK_INT(mcp_stdio_open(&o, &sink, &t, &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "hew-no-such-mcp-server") != NULL);
    mcp_client_free(c);
    buf_release(&ev.notes);
}

/* ---- the hub ----------------------------------------------------------------------------- */

static char **strv(const char *const *items)
{
    size_t n = 0;
    while (items[n])
        n++;
    char **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = strdup(items[i]);
    return v;
}

static void add_stdio(mcp_config *cfg, const char *name, const char *const *argv,
                      const char *const *auto_approve, bool disabled)
{
    cfg->servers = realloc(cfg->servers, (cfg->n + 1) * sizeof *cfg->servers);
    mcp_server_config *s = &cfg->servers[cfg->n++];
    memset(s, 0, sizeof *s);
    s->name = strdup(name);
    s->kind = MCP_STDIO;
    s->argv = strv(argv);
    s->timeout_s = 60;
    s->disabled = disabled;
    s->auto_approve = auto_approve ? strv(auto_approve) : NULL;
    s->source = strdup("test");
}

typedef struct notices {
    pthread_mutex_t mu;
    buf text;
} notices;

static void on_notice(void *ud, const char *server, const char *text)
{
    notices *n = ud;
    pthread_mutex_lock(&n->mu);
    buf_printf(&n->text, "[%s] %s\n", server, text);
    pthread_mutex_unlock(&n->mu);
}

static const json_t *server_status(const json_t *all, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(all, i, s)
        if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0)
            return s;
    return NULL;
}

static void build_hub_config(mcp_config *cfg, const char *root)
{
    const char *everything[] = { "node", everything_js, "stdio", NULL };
    const char *filesystem[] = { "node", filesystem_js, root, NULL };
    const char *broken[] = { "sh", "-c", "echo 'cannot start: no config' >&2; exit 1", NULL };
    const char *approve[] = { "echo", NULL };
    add_stdio(cfg, "everything", everything, approve, false);
    add_stdio(cfg, "fs.local", filesystem, NULL, false);
    add_stdio(cfg, "broken", broken, NULL, false);
    add_stdio(cfg, "off", everything, NULL, true);
    add_stdio(cfg, "9lives", everything, NULL, false);
    add_stdio(cfg, "a-server-with-a-very-long-name-that-leaves-no-room-for-tools", everything,
              NULL, false);
}

static void test_hub(void)
{
    if (!servers_installed())
        return;
    char *root = tmpdir_make("mcp-hub");
    char path[1024];
    snprintf(path, sizeof path, "%s/notes.txt", root);
    FILE *f = fopen(path, "w");
    fputs("the secret word is marmalade\n", f);
    fclose(f);

    mcp_config cfg;
    mcp_config_init(&cfg);
    build_hub_config(&cfg, root);
    mcp_hub *h = NULL;
    hew_err err = HEW_ERR_INIT;
    notices nt = { PTHREAD_MUTEX_INITIALIZER, BUF_INIT(1 << 20) };
    REQUIRE(mcp_hub_start(&cfg, root, &h, &err) == HEW_OK);
    mcp_hub_set_listener(h, on_notice, &nt);
    CHECK_INT(cfg.n, 0); /* taken */
    CHECK_INT(mcp_hub_count(h), 6);
    CHECK(mcp_hub_wait_ready(h, 30000, NULL));

    json_t *st = mcp_hub_status_json(h);
    CHECK_STR(json_string_value(json_object_get(server_status(st, "everything"), "status")),
              "connected");
    CHECK_STR(json_string_value(json_object_get(server_status(st, "fs.local"), "status")),
              "connected");
    CHECK_STR(json_string_value(json_object_get(server_status(st, "broken"), "status")),
              "disconnected");
    const char *why = json_string_value(json_object_get(server_status(st, "broken"), "error"));
    CHECK(why && strstr(why, "no config"));
    if (!why || !strstr(why, "no config"))
        fprintf(stderr, "broken: %s\n", why ? why : "(none)");
    CHECK_STR(json_string_value(json_object_get(server_status(st, "off"), "status")), "disabled");
    json_decref(st);

    CHECK(mcp_hub_tool_auto_approved(h, "everything", "echo"));
    CHECK(!mcp_hub_tool_auto_approved(h, "everything", "get-sum"));
    CHECK(!mcp_hub_tool_auto_approved(h, "nobody", "echo"));

    /* The snapshot: connected servers only, tools with provider-safe native names. */
    mcp_snapshot *snap = mcp_hub_snapshot(h);
    REQUIRE(snap);
    CHECK_INT(snap->nservers, 4);
    /* Names over 64 bytes are cut and end in a hash: still unique, still found. */
    size_t long_tools = 0;
    for (size_t i = 0; i < snap->nnative; i++)
        if (strncmp(snap->native[i].server, "a-server-with", 13) == 0) {
            long_tools++;
            CHECK(strlen(snap->native[i].native_name) == 64);
            CHECK(mcp_snapshot_native_find(snap, snap->native[i].native_name) ==
                  &snap->native[i]);
            for (size_t j = 0; j < i; j++)
                CHECK(strcmp(snap->native[j].native_name, snap->native[i].native_name) != 0);
        }
    CHECK(long_tools >= 5);
    /* A name that does not start with a letter gets "mcp_" first (Gemini's rule). */
    const mcp_native_tool *nt_nine = mcp_snapshot_native_find(snap, "mcp_9lives__echo");
    CHECK(nt_nine && strcmp(nt_nine->server, "9lives") == 0);
    const mcp_native_tool *nt_echo = mcp_snapshot_native_find(snap, "everything__echo");
    CHECK(nt_echo && strcmp(nt_echo->tool, "echo") == 0 &&
          strcmp(nt_echo->server, "everything") == 0);
    const mcp_native_tool *nt_read = mcp_snapshot_native_find(snap, "fs_local__read_text_file");
    CHECK(nt_read && strcmp(nt_read->server, "fs.local") == 0);
    for (size_t i = 0; i < snap->nnative; i++) {
        char c0 = snap->native[i].native_name[0];
        CHECK((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_');
        CHECK(strlen(snap->native[i].native_name) <= 64);
        CHECK(strspn(snap->native[i].native_name,
                     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
              strlen(snap->native[i].native_name));
    }

    /* Calls through the hub. */
    json_t *args = json_pack("{s:s}", "path", path);
    json_t *r = NULL;
    CHECK_INT(mcp_hub_call_tool(h, "fs.local", "read_text_file", args, NULL, NULL, NULL, &r,
                                &err),
              HEW_OK);
    char *text = r ? text_of(r) : NULL;
    CHECK(text && strstr(text, "marmalade"));
    free(text);
    json_decref(r);
    json_decref(args);
    CHECK_INT(mcp_hub_call_tool(h, "broken", "x", NULL, NULL, NULL, NULL, &r, &err), HEW_E_NET);
    CHECK(strstr(err.msg, "broken") && strstr(err.msg, "disconnected"));
    CHECK_INT(mcp_hub_call_tool(h, "ghost", "x", NULL, NULL, NULL, NULL, &r, &err),
              HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "everything") != NULL); /* lists the servers there are */

    /* Reload: "broken" removed, "everything" unchanged (keeps its connection), a new one. */
    mcp_config next;
    mcp_config_init(&next);
    const char *everything[] = { "node", everything_js, "stdio", NULL };
    const char *approve2[] = { "echo", "get-sum", NULL };
    add_stdio(&next, "everything", everything, approve2, false);
    add_stdio(&next, "second", everything, NULL, false);
    pthread_mutex_lock(&nt.mu);
    buf_reset(&nt.text);
    pthread_mutex_unlock(&nt.mu);
    mcp_hub_reload(h, &next);
    CHECK(mcp_hub_wait_ready(h, 30000, NULL));
    CHECK_INT(mcp_hub_count(h), 2);
    CHECK(mcp_hub_tool_auto_approved(h, "everything", "get-sum")); /* new list applied */
    st = mcp_hub_status_json(h);
    CHECK_STR(json_string_value(json_object_get(server_status(st, "second"), "status")),
              "connected");
    CHECK(server_status(st, "broken") == NULL);
    json_decref(st);
    /* The notice follows the state change: give it a moment. */
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&nt.mu);
        bool seen = nt.text.data && strstr(nt.text.data, "[second] connected");
        pthread_mutex_unlock(&nt.mu);
        if (seen)
            break;
        usleep(10000);
    }
    pthread_mutex_lock(&nt.mu);
    CHECK(nt.text.data && strstr(nt.text.data, "[second] connected") != NULL);
    CHECK(nt.text.data && strstr(nt.text.data, "[everything] connected") == NULL);
    pthread_mutex_unlock(&nt.mu);
    /* The old snapshot stays valid after the reload. */
    CHECK(mcp_snapshot_native_find(snap, "everything__echo") == nt_echo);
    mcp_snapshot_free(snap);

    mcp_hub_set_listener(h, NULL, NULL);
    mcp_hub_free(h);
    buf_release(&nt.text);
    tmpdir_remove(root);
    free(root);
}

/* The hub with the everything server over Streamable HTTP (and the same server's old
 * HTTP+SSE endpoint, reached in auto mode): connected, tools listed, a call answered. */
static void test_hub_http(void)
{
    node_server http, sse;
    if (server_start(&http, "streamableHttp") != 0)
        return;
    if (server_start(&sse, "sse") != 0) {
        server_stop(&http);
        return;
    }
    mcp_config cfg;
    mcp_config_init(&cfg);
    const char *names[] = { "remote", "legacy" };
    const mcp_kind kinds[] = { MCP_HTTP, MCP_HTTP_AUTO };
    char urls[2][128];
    snprintf(urls[0], sizeof urls[0], "%s/mcp", http.base);
    snprintf(urls[1], sizeof urls[1], "%s/sse", sse.base);
    for (int i = 0; i < 2; i++) {
        cfg.servers = realloc(cfg.servers, (cfg.n + 1) * sizeof *cfg.servers);
        mcp_server_config *sc = &cfg.servers[cfg.n++];
        memset(sc, 0, sizeof *sc);
        sc->name = strdup(names[i]);
        sc->kind = kinds[i];
        sc->url = strdup(urls[i]);
        sc->timeout_s = 60;
    }
    mcp_hub *h = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(mcp_hub_start(&cfg, NULL, &h, &err) == HEW_OK);
    CHECK(mcp_hub_wait_ready(h, 20000, NULL));
    json_t *st = mcp_hub_status_json(h);
    for (int i = 0; i < 2; i++) {
        const json_t *one = server_status(st, names[i]);
        CHECK_STR(json_string_value(json_object_get(one, "status")), "connected");
        CHECK(json_array_size(json_object_get(one, "tools")) >= 5);
        if (!one || strcmp(json_string_value(json_object_get(one, "status")), "connected") != 0)
            fprintf(stderr, "%s: %s\n", names[i],
                    json_string_value(json_object_get(one, "error")));
    }
    json_decref(st);
    for (int i = 0; i < 2; i++) {
        json_t *args = json_pack("{s:s}", "message", "over http");
        json_t *r = NULL;
        CHECK_INT(mcp_hub_call_tool(h, names[i], "echo", args, NULL, NULL, NULL, &r, &err),
                  HEW_OK);
        char *text = r ? text_of(r) : NULL;
        CHECK(text && strstr(text, "over http"));
        free(text);
        json_decref(r);
        json_decref(args);
    }
    mcp_hub_free(h);
    mcp_config_free(&cfg);
    server_stop(&http);
    server_stop(&sse);
}

static const char *status_or_none(const char *s)
{
    return s ? s : "none";
}

static const char *status_of(mcp_hub *h, const char *name, char *out, size_t n)
{
    json_t *st = mcp_hub_status_json(h);
    snprintf(out, n, "%s",
             status_or_none(json_string_value(json_object_get(server_status(st, name), "status"))));
    json_decref(st);
    return out;
}

/* A server that dies is reported and connected again (backoff starts at 1 s). */
static void test_hub_reconnects(void)
{
    if (!servers_installed())
        return;
    char tag[64];
    snprintf(tag, sizeof tag, "hew-reconnect-test-%d", (int)getpid());
    mcp_config cfg;
    mcp_config_init(&cfg);
    const char *argv[] = { "node", everything_js, "stdio", tag, NULL };
    add_stdio(&cfg, "phoenix", argv, NULL, false);
    mcp_hub *h = NULL;
    hew_err err = HEW_ERR_INIT;
    notices nt = { PTHREAD_MUTEX_INITIALIZER, BUF_INIT(1 << 20) };
    REQUIRE(mcp_hub_start(&cfg, NULL, &h, &err) == HEW_OK);
    mcp_hub_set_listener(h, on_notice, &nt);
    CHECK(mcp_hub_wait_ready(h, 30000, NULL));
    char st[32];
    CHECK_STR(status_of(h, "phoenix", st, sizeof st), "connected");
    /* Kill the server behind hew's back. */
    const char *pk[] = { "pkill", "-KILL", "-f", tag, NULL };
    proc_opts po = { 0 };
    po.argv = pk;
    buf ignored = BUF_INIT(4096);
    proc_run(&po, &ignored, NULL, NULL, &err);
    buf_release(&ignored);
    bool saw_down = false, back = false;
    for (int i = 0; i < 800 && !back; i++) {
        status_of(h, "phoenix", st, sizeof st);
        saw_down |= strcmp(st, "connected") != 0;
        back = saw_down && strcmp(st, "connected") == 0;
        usleep(50000);
    }
    CHECK(saw_down);
    CHECK(back);
    pthread_mutex_lock(&nt.mu);
    CHECK(nt.text.data && strstr(nt.text.data, "[phoenix] disconnected: "));
    pthread_mutex_unlock(&nt.mu);
    json_t *args = json_pack("{s:s}", "message", "risen");
    json_t *r = NULL;
    CHECK_INT(mcp_hub_call_tool(h, "phoenix", "echo", args, NULL, NULL, NULL, &r, &err), HEW_OK);
    json_decref(r);
    json_decref(args);
    mcp_hub_set_listener(h, NULL, NULL);
    mcp_hub_free(h);
    buf_release(&nt.text);
}

/* Through the public API: a session connects the servers of its settings; a second
 * session of the same workspace and settings shares them, so freeing the first keeps
 * them connected; reload applies an edited file. */
static void test_sessions_share_servers(void)
{
    if (!servers_installed())
        return;
    char *dir = tmpdir_make("mcp-session");
    char settings[1024];
    snprintf(settings, sizeof settings, "%s/mcp.json", dir);
    FILE *f = fopen(settings, "w");
    fprintf(f, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": [\"%s\", "
               "\"stdio\"]}}}\n",
            everything_js);
    fclose(f);
    hew_options o;
    hew_options_init(&o);
    o.provider = "anthropic";
    o.api_key = "sk-test-0123456789";
    o.cwd = dir;
    o.mcp_settings = settings;
    o.persist = 0;
    o.checkpoints = 0;
    char err[512] = "";
    hew_session *a = NULL;
    (void)hew_session_new(&o, &a, err, sizeof err);
    REQUIRE(a);
    CHECK_INT(hew_mcp_wait(a, 30000), HEW_OK);
    char *st = NULL;
    (void)hew_mcp_status_json(a, &st);
    CHECK(st && strstr(st, "\"connected\""));
    hew_free(st);
    hew_session *b = NULL;
    (void)hew_session_new(&o, &b, err, sizeof err);
    REQUIRE(b);
    hew_session_free(a);
    (void)hew_mcp_status_json(b, &st); /* at once: no reconnect */
    CHECK(st && strstr(st, "\"connected\""));
    hew_free(st);
    /* An edit of the file is noticed by itself: the server is now disabled. */
    f = fopen(settings, "w");
    fprintf(f, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": [\"%s\", "
               "\"stdio\"], \"disabled\": true}}}\n",
            everything_js);
    fclose(f);
    bool disabled = false;
    for (int i = 0; i < 400 && !disabled; i++) {
        (void)hew_mcp_status_json(b, &st);
        disabled = st && strstr(st, "\"disabled\"");
        hew_free(st);
        if (!disabled)
            usleep(50000);
    }
    CHECK(disabled);
    /* A broken edit is not applied: the servers stay as they were. */
    f = fopen(settings, "w");
    fputs("{\"mcpServers\": {\"everything\": {\"command\": 42}}}\n", f);
    fclose(f);
    usleep(600000);
    (void)hew_mcp_status_json(b, &st);
    CHECK(st && strstr(st, "\"disabled\""));
    hew_free(st);
    CHECK_INT(hew_mcp_reload(b, err, sizeof err), HEW_E_INVALID); /* reload says why */
    CHECK(strstr(err, "command") != NULL);
    /* And reload applies a good file at once. */
    f = fopen(settings, "w");
    fprintf(f, "{\"mcpServers\": {\"again\": {\"command\": \"node\", \"args\": [\"%s\", "
               "\"stdio\"]}}}\n",
            everything_js);
    fclose(f);
    CHECK_INT(hew_mcp_reload(b, err, sizeof err), HEW_OK);
    CHECK_INT(hew_mcp_wait(b, 30000), HEW_OK);
    (void)hew_mcp_status_json(b, &st);
    CHECK(st && strstr(st, "\"again\"") && strstr(st, "\"connected\""));
    hew_free(st);
    /* No settings file yet: a server added to it while the session runs is picked up. */
    char later[1100];
    snprintf(later, sizeof later, "%s/later.json", dir);
    hew_options lo = o;
    lo.mcp_settings = later;
    hew_session *d = NULL;
    (void)hew_session_new(&lo, &d, err, sizeof err);
    REQUIRE(d);
    (void)hew_mcp_status_json(d, &st);
    CHECK_STR(st, "[]");
    hew_free(st);
    f = fopen(later, "w");
    fprintf(f, "{\"mcpServers\": {\"added\": {\"command\": \"node\", \"args\": [\"%s\", "
               "\"stdio\"]}}}\n",
            everything_js);
    fclose(f);
    bool added = false;
    for (int i = 0; i < 800 && !added; i++) {
        (void)hew_mcp_status_json(d, &st);
        added = st && strstr(st, "\"added\"") && strstr(st, "\"connected\"");
        hew_free(st);
        if (!added)
            usleep(50000);
    }
    CHECK(added);
    hew_session_free(d);
    /* Turned off: no servers at all. */
    o.mcp = 0;
    hew_session *c = NULL;
    (void)hew_session_new(&o, &c, err, sizeof err);
    REQUIRE(c);
    (void)hew_mcp_status_json(c, &st);
    CHECK_STR(st, "[]");
    hew_free(st);
    CHECK_INT(hew_mcp_reload(c, err, sizeof err), HEW_E_STATE); /* MCP is off for c */
    hew_session_free(c);
    hew_session_free(b);
    tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    RUN(test_framing);
    RUN(test_framing_overlong);
    RUN(test_misbehaving_server);
    RUN(test_missing_program);
    RUN(test_everything_stdio);
    RUN(test_hub);
    RUN(test_hub_http);
    RUN(test_hub_reconnects);
    RUN(test_sessions_share_servers);
    return check_report();
}
