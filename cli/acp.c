/* acp — `hew acp [options]`: hew as an Agent Client Protocol agent on stdin/stdout
 * (acp.h says how the files share the work; docs/acp.md is the manual). This file reads
 * the client's messages, one JSON-RPC message per line, checks them, and dispatches them
 * through the method table; bad input gets its JSON-RPC error (-32700 not JSON, -32600 not
 * a request, -32601 no such method, -32602 bad params), never a crash. Standard output
 * carries nothing but protocol: it is kept for the rpc, and fd 1 is pointed at standard
 * error, so a stray write anywhere lands there. EOF on stdin ends every session and the
 * process (exit 0). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acp.h"
#include "config.h"
#include "sbuf.h"

typedef struct acp_call {
    acp_server *srv;
    json_t *id;     /* the request's id; NULL for a notification */
    json_t *params; /* an object (empty when none was given) */
} acp_call;

/* A params error for call (when it is a request). Returns -1. */
static int bad_params(const acp_call *c, const char *fmt, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, what);
    if (c->id)
        acp_rpc_error(c->srv->rpc, c->id, ACP_INVALID_PARAMS, msg);
    return -1;
}

/* The string param key, or NULL after answering -32602. */
static const char *need_string(const acp_call *c, const char *key)
{
    const char *v = json_string_value(json_object_get(c->params, key));
    if (!v)
        bad_params(c, "params.%s is missing or not a string", key);
    return v;
}

/* The session params.sessionId names, or NULL after answering. */
static acp_session *need_session(const acp_call *c)
{
    const char *id = need_string(c, "sessionId");
    if (!id)
        return NULL;
    acp_session *s = acp_session_find(c->srv, id);
    if (!s && c->id) {
        char msg[200];
        snprintf(msg, sizeof msg, "no session %.64s in this connection: make one with "
                                  "session/new or session/load", id);
        acp_rpc_error(c->srv->rpc, c->id, ACP_NOT_FOUND, msg);
    }
    return s;
}

/* ---- the methods -------------------------------------------------------------------------- */

/* Whether the model of the options (the config of the current folder) reads images. */
static int model_images(acp_server *srv)
{
    hew_options o;
    hew_options_init(&o);
    cli_config cfg;
    if (cli_setup_options(srv->co, &o, &cfg) != 0)
        return 0;
    int yes = hew_options_images_supported(&o);
    cli_config_release(&cfg);
    return yes;
}

static void m_initialize(acp_call *c)
{
    json_t *v = json_object_get(c->params, "protocolVersion");
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        bad_params(c, "params.%s must be the client's ACP protocol version (an integer)",
                   "protocolVersion");
        return;
    }
    json_t *caps = json_object_get(c->params, "clientCapabilities");
    json_decref(c->srv->client_caps);
    c->srv->client_caps = json_is_object(caps) ? json_incref(caps) : json_object();
    c->srv->initialized = 1;
    /* the newest version both sides speak: ours, unless the client's is older */
    json_int_t want = json_integer_value(v);
    json_int_t version = want < ACP_PROTOCOL_VERSION && want > 0 ? want : ACP_PROTOCOL_VERSION;
    json_t *r = json_pack(
        "{s:I, s:{s:b, s:{s:b, s:b, s:b}, s:{s:b, s:b}}, s:{s:s, s:s, s:s}, s:[]}",
        "protocolVersion", version, "agentCapabilities", "loadSession", 1,
        "promptCapabilities", "image", model_images(c->srv), "audio", 0, "embeddedContext", 1,
        "mcpCapabilities",
        "http", 1, "sse", 1, "agentInfo", "name", "hew", "title", "hew", "version",
        hew_version(), "authMethods");
    acp_rpc_result(c->srv->rpc, c->id, r);
}

static void m_authenticate(acp_call *c)
{
    acp_rpc_result(c->srv->rpc, c->id, NULL); /* no auth methods: nothing to do */
}

/* session/new and session/load. */
static void open_session(acp_call *c, int load)
{
    const char *cwd = need_string(c, "cwd");
    if (!cwd)
        return;
    json_t *mcp = json_object_get(c->params, "mcpServers");
    if (mcp && !json_is_array(mcp) && !json_is_null(mcp)) {
        bad_params(c, "params.%s must be an array of MCP servers", "mcpServers");
        return;
    }
    const char *id = NULL;
    if (load && !(id = need_string(c, "sessionId")))
        return;
    acp_session *s = NULL;
    int code = 0;
    char err[1024] = "";
    if (acp_session_open(c->srv, cwd, mcp, id, &s, &code, err, sizeof err) != 0) {
        acp_rpc_error(c->srv->rpc, c->id, code, err);
        return;
    }
    json_t *r = json_pack("{s:o, s:o}", "modes", acp_session_modes(s), "configOptions",
                          acp_session_config_options(s));
    if (!load) /* a load's conversation was replayed before this answer */
        json_object_set_new(r, "sessionId", json_string(acp_session_id(s)));
    acp_rpc_result(c->srv->rpc, c->id, r);
}

static void m_session_new(acp_call *c) { open_session(c, 0); }
static void m_session_load(acp_call *c) { open_session(c, 1); }

static void m_set_mode(acp_call *c)
{
    acp_session *s = need_session(c);
    const char *mode = s ? need_string(c, "modeId") : NULL;
    if (!mode)
        return;
    char err[512];
    if (acp_session_set_mode(s, mode, err, sizeof err) != 0)
        acp_rpc_error(c->srv->rpc, c->id, ACP_INVALID_PARAMS, err);
    else
        acp_rpc_result(c->srv->rpc, c->id, NULL);
}

/* session/set_config_option: "mode" (as session/set_mode) or "model". */
static void m_set_config(acp_call *c)
{
    acp_session *s = need_session(c);
    const char *id = s ? need_string(c, "configId") : NULL;
    const char *value = id ? need_string(c, "value") : NULL;
    if (!value)
        return;
    char err[512];
    int code = ACP_INVALID_PARAMS;
    int rc = -1;
    if (strcmp(id, "mode") == 0)
        rc = acp_session_set_mode(s, value, err, sizeof err);
    else if (strcmp(id, "model") == 0)
        rc = acp_session_set_model(s, value, &code, err, sizeof err);
    else
        snprintf(err, sizeof err, "unknown config option \"%.100s\": hew's are \"mode\" and "
                                  "\"model\"", id);
    if (rc != 0)
        acp_rpc_error(c->srv->rpc, c->id, code, err);
    else
        acp_rpc_result(c->srv->rpc, c->id,
                       json_pack("{s:o}", "configOptions", acp_session_config_options(s)));
}

/* The path of a file:// URI (else the URI as is). */
static const char *uri_path(const char *uri)
{
    return strncmp(uri, "file://", 7) == 0 ? uri + 7 : uri;
}

/* The prompt's content blocks as the task's text: text as is, an embedded resource as
 * the file's content in <file_content path="..."> (Cline's mention form), a resource link
 * as its path, an image into images. 0, or -1 with why in err. */
static int prompt_text(json_t *blocks, sbuf *out, acp_images *images, char *err, size_t errlen)
{
    size_t i;
    json_t *b;
    json_array_foreach(blocks, i, b) {
        const char *type = json_string_value(json_object_get(b, "type"));
        if (!type) {
            snprintf(err, errlen, "params.prompt[%zu] has no \"type\"", i);
            return -1;
        }
        if (strcmp(type, "text") == 0) {
            const char *t = json_string_value(json_object_get(b, "text"));
            if (!t) {
                snprintf(err, errlen, "params.prompt[%zu].text is missing", i);
                return -1;
            }
            sbuf_puts(out, t);
        } else if (strcmp(type, "image") == 0) {
            if (acp_images_add(images, b, i, err, errlen) != 0)
                return -1;
        } else if (strcmp(type, "resource_link") == 0) {
            const char *uri = json_string_value(json_object_get(b, "uri"));
            if (!uri) {
                snprintf(err, errlen, "params.prompt[%zu].uri is missing", i);
                return -1;
            }
            sbuf_printf(out, "%s'%s'", out->len ? " " : "", uri_path(uri));
        } else if (strcmp(type, "resource") == 0) {
            json_t *r = json_object_get(b, "resource");
            const char *uri = json_string_value(json_object_get(r, "uri"));
            const char *text = json_string_value(json_object_get(r, "text"));
            if (!uri || !text) {
                snprintf(err, errlen, "params.prompt[%zu].resource needs \"uri\" and \"text\" "
                                      "(hew takes text resources only)", i);
                return -1;
            }
            sbuf_printf(out, "\n\n<file_content path=\"%s\">\n%s\n</file_content>\n",
                        uri_path(uri), text);
        } else {
            snprintf(err, errlen, "params.prompt[%zu] is of type \"%s\": hew takes text, "
                                  "image, resource and resource_link blocks (see "
                                  "promptCapabilities)", i, type);
            return -1;
        }
    }
    if (out->err) {
        snprintf(err, errlen, "the prompt is too large");
        return -1;
    }
    return 0;
}

static void m_prompt(acp_call *c)
{
    acp_session *s = need_session(c);
    if (!s)
        return;
    json_t *blocks = json_object_get(c->params, "prompt");
    if (!json_is_array(blocks)) {
        bad_params(c, "params.%s must be an array of content blocks", "prompt");
        return;
    }
    sbuf text = SBUF_INIT;
    acp_images images = { 0 };
    char err[512];
    int code = ACP_INVALID_PARAMS;
    if (prompt_text(blocks, &text, &images, err, sizeof err) != 0 ||
        (!text.len && !images.n && snprintf(err, sizeof err, "the prompt is empty")) ||
        acp_session_prompt(s, c->id, text.len ? text.data : "", &images, &code, err,
                           sizeof err) != 0)
        acp_rpc_error(c->srv->rpc, c->id, code, err);
    acp_images_release(&images); /* taken by the library (or copied, or refused) */
    sbuf_release(&text);
}

static void m_cancel(acp_call *c)
{
    acp_session *s = need_session(c);
    if (s)
        acp_session_cancel(s);
}

static const struct acp_method {
    const char *name;
    void (*run)(acp_call *c);
    int notification; /* a notification: never answered */
} methods[] = {
    { "initialize", m_initialize, 0 },
    { "authenticate", m_authenticate, 0 },
    { "session/new", m_session_new, 0 },
    { "session/load", m_session_load, 0 },
    { "session/set_mode", m_set_mode, 0 },
    { "session/set_config_option", m_set_config, 0 },
    { "session/prompt", m_prompt, 0 },
    { "session/cancel", m_cancel, 1 },
};

/* ---- the loop ------------------------------------------------------------------------------- */

static void handle(acp_server *srv, const char *line, size_t len)
{
    json_error_t je;
    json_t *m = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!m) {
        char msg[300];
        snprintf(msg, sizeof msg, "parse error: not JSON (%s, at column %d): send one JSON-RPC "
                                  "message per line", je.text, je.column);
        acp_rpc_error(srv->rpc, NULL, ACP_PARSE_ERROR, msg);
        return;
    }
    json_t *id = json_object_get(m, "id");
    json_t *method = json_object_get(m, "method");
    const char *version = json_string_value(json_object_get(m, "jsonrpc"));
    if (!json_is_object(m) || !version || strcmp(version, "2.0") != 0 ||
        (id && !json_is_string(id) && !json_is_integer(id) && !json_is_null(id)) ||
        (method && !json_is_string(method))) {
        acp_rpc_error(srv->rpc, id && (json_is_string(id) || json_is_integer(id)) ? id : NULL,
                      ACP_INVALID_REQUEST,
                      "invalid request: a JSON-RPC 2.0 message is an object with \"jsonrpc\": "
                      "\"2.0\", a string \"method\" and a string or integer \"id\"");
        json_decref(m);
        return;
    }
    if (!method) { /* an answer to one of our requests */
        if (acp_rpc_route(srv->rpc, m) != 0 && !json_object_get(m, "result") &&
            !json_object_get(m, "error"))
            acp_rpc_error(srv->rpc, id, ACP_INVALID_REQUEST,
                          "invalid request: no \"method\", and not a response");
        json_decref(m);
        return;
    }
    const char *name = json_string_value(method);
    const struct acp_method *row = NULL;
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(methods[i].name, name) == 0)
            row = &methods[i];
    json_t *params = json_object_get(m, "params");
    if (!row) {
        if (id) {
            char msg[200];
            snprintf(msg, sizeof msg, "method not found: %.100s (hew acp speaks ACP version %d)",
                     name, ACP_PROTOCOL_VERSION);
            acp_rpc_error(srv->rpc, id, ACP_METHOD_NOT_FOUND, msg);
        }
    } else if (!row->notification && !id) {
        ; /* a request sent as a notification: nobody waits for it */
    } else if (params && !json_is_object(params) && !json_is_null(params)) {
        if (id)
            acp_rpc_error(srv->rpc, id, ACP_INVALID_PARAMS, "params must be an object");
    } else if (!srv->initialized && strcmp(name, "initialize") != 0) {
        if (id)
            acp_rpc_error(srv->rpc, id, ACP_INVALID_REQUEST,
                          "call initialize first: the connection is not initialized");
    } else {
        json_t *p = json_is_object(params) ? json_incref(params) : json_object();
        acp_call c = { srv, row->notification ? NULL : id, p };
        row->run(&c);
        json_decref(p);
    }
    json_decref(m);
}

/* The client's input: fd 0, read in blocks. */
typedef struct reader {
    int fd;
    size_t pos, len;
    int eof;
    char buf[1 << 16];
} reader;

/* One line (without its newline) into b, at most ACP_MAX_LINE bytes: 1 a line, 0 the end
 * of the input, -1 a line past the cap (read to its end and dropped). NUL bytes are kept
 * (the line is then not JSON, and says so). */
#define ACP_MAX_LINE ((size_t)64 << 20)
static int read_line(reader *r, sbuf *b)
{
    sbuf_reset(b);
    int any = 0, over = 0;
    for (;;) {
        if (r->pos == r->len) {
            if (r->eof)
                break;
            ssize_t n = read(r->fd, r->buf, sizeof r->buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                r->eof = 1;
                break;
            }
            r->pos = 0;
            r->len = (size_t)n;
        }
        any = 1;
        const char *p = r->buf + r->pos;
        const char *nl = memchr(p, '\n', r->len - r->pos);
        size_t n = nl ? (size_t)(nl - p) : r->len - r->pos;
        if (b->len + n <= ACP_MAX_LINE)
            sbuf_add(b, p, n);
        else
            over = 1;
        r->pos += n + (nl != NULL);
        if (nl)
            break;
    }
    if (!any)
        return 0;
    return over || b->err ? -1 : 1;
}

static void usage(FILE *out)
{
    fputs("usage: hew acp [options]   speak the Agent Client Protocol on stdin/stdout, for\n"
          "an editor (Zed, Neovim, JetBrains, Emacs) to run hew as its agent. The options\n"
          "are those of hew -p (--provider, --model, --auto-approve, --yolo, --plan, ...);\n"
          "each session's workspace is the cwd the editor gives. docs/acp.md, man hew.\n",
          out);
}

int cli_acp(int argc, char **argv)
{
    if (argc > 0 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    cli_options co;
    if (cli_parse_options(argc, argv, &co) != 0)
        return 2;
    if (co.task || co.headless || co.json || co.cont || co.resume_id || co.output ||
        co.nimages) {
        fputs("hew: hew acp takes no task, -p, --json, --continue, --resume, -o or -i: the "
              "editor sends the prompts and their images (session/prompt) and loads tasks "
              "(session/load)\n",
              stderr);
        usage(stderr);
        return 2;
    }
    if (cli_options_check(&co) != 0)
        return 2;
    /* stdout is the protocol's alone: keep it, and send fd 1 to stderr */
    int proto = dup(1);
    FILE *out = proto >= 0 ? fdopen(proto, "w") : NULL;
    if (!out || dup2(2, 1) < 0) {
        perror("hew: acp: cannot set up standard output");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN); /* a client that went away is a failed write, not a death */
    acp_server srv;
    memset(&srv, 0, sizeof srv);
    srv.co = &co;
    srv.rpc = acp_rpc_new(out);
    if (!srv.rpc) {
        fclose(out);
        return 1;
    }
    sbuf line = SBUF_INIT;
    static reader in; /* 64 KiB: not on the stack */
    in.fd = 0;
    int got;
    while ((got = read_line(&in, &line)) != 0) {
        if (got < 0) {
            acp_rpc_error(srv.rpc, NULL, ACP_INVALID_REQUEST,
                          "message too large: hew acp takes messages of up to 64 MiB");
            continue;
        }
        size_t len = line.len;
        while (len && line.data[len - 1] == '\r')
            len--;
        size_t k = 0;
        while (k < len && (line.data[k] == ' ' || line.data[k] == '\t'))
            k++;
        if (k < len)
            handle(&srv, line.data, len);
    }
    sbuf_release(&line);
    acp_rpc_drop_all(srv.rpc); /* nobody will answer the questions still open */
    for (size_t i = 0; i < srv.nsessions; i++)
        acp_session_close(srv.sessions[i]);
    free(srv.sessions);
    json_decref(srv.client_caps);
    acp_rpc_free(srv.rpc);
    fclose(out);
    return 0;
}
