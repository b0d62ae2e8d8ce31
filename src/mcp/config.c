/* config — MCP server settings: reads {"mcpServers": {...}} files (hew's own, Cline's,
 * Claude Desktop's) into mcp_server_config values by the rules of config.h (type
 * inference, ${env:VAR} expansion, timeouts, names, untrusted autoApprove), merges them
 * in file order, and edits such files in place without disturbing what else they hold.
 * Never prints: problems are error values, remarks go to mcp_config.warnings. */
#include "mcp/config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include <jansson.h>

#include "base/fs.h"
#include "base/json.h"
#include "sys/path.h"
#include "base/redact.h"
#include "net/url.h"

#define MCP_TIMEOUT_DEFAULT_S 60L
#define MCP_TIMEOUT_MAX_S 86400L
#define MCP_FILE_MAX_BYTES MCP_CONFIG_FILE_MAX
#define MCP_WARNINGS_MAX ((size_t)64 << 10)
#define MCP_ENV_NAME_MAX 255

static const char NAME_CHARS[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-";
static const char ENV_NAME_CHARS[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";

/* ---- small helpers ------------------------------------------------------------------ */

/* A growing NULL-terminated array of owned strings; v stays NULL while empty. */
typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static bool strv_push(strv *s, char *owned)
{
    if (!owned)
        return false;
    if (s->n + 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        char **v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            free(owned);
            return false;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = owned;
    s->v[s->n] = NULL;
    return true;
}

static void strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

static size_t strv_len(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

/* Append " — hint" to err's message (a NULL err is fine). */
static hew_code add_hint(hew_err *err, hew_code code, const char *hint)
{
    if (!err)
        return code;
    char old[HEW_ERR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    return hew_err_set(err, code, "%s — %s", old, hint);
}

static hew_code no_memory(hew_err *err)
{
    return hew_err_set(err, HEW_E_NOMEM, "out of memory while reading MCP settings");
}

/* name as a quoted JSON string for messages, control characters escaped, at most about
 * 80 bytes of it. */
static void quote_name(const char *name, char *out, size_t cap)
{
    buf b = BUF_INIT(0);
    size_t n = strlen(name);
    json_escape_into(&b, name, n > 80 ? 80 : n);
    if (n > 80)
        buf_puts(&b, "...");
    snprintf(out, cap, "%s", b.err || !b.data ? "\"?\"" : b.data);
    buf_release(&b);
}

bool mcp_config_name_ok(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n <= MCP_CONFIG_NAME_MAX && strspn(name, NAME_CHARS) == n;
}

void mcp_config_name_fix(const char *name, char *out, size_t cap)
{
    size_t o = 0;
    if (cap == 0)
        return;
    for (const char *p = name; *p && o + 1 < cap && o < MCP_CONFIG_NAME_MAX; p++) {
        bool ok = strchr(NAME_CHARS, *p) != NULL;
        if (ok)
            out[o++] = *p;
        else if (o == 0 || out[o - 1] != '-')
            out[o++] = '-';
    }
    out[o] = '\0';
    if (o == 0)
        snprintf(out, cap, "server");
}

static hew_code name_error(hew_err *err, const char *name)
{
    char shown[128], better[MCP_CONFIG_NAME_MAX + 8];
    quote_name(name, shown, sizeof shown);
    mcp_config_name_fix(name, better, sizeof better);
    return hew_err_set(err, HEW_E_INVALID,
                       "mcpServers: the server name %s is not allowed — a name is 1 to %d "
                       "letters, digits, '_', '.' or '-'; rename it, e.g. \"%s\"",
                       shown, MCP_CONFIG_NAME_MAX, better);
}

/* ---- reading one document ----------------------------------------------------------- */

/* What the readers of one document share. */
typedef struct reader {
    const char *source; /* names the document in warnings */
    mcp_trust trust;
    buf *warnings;
    hew_err *err;
} reader;

static void warn(const reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(const reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_printf(r->warnings, "%s: ", r->source);
    buf_vprintf(r->warnings, fmt, ap);
    buf_putc(r->warnings, '\n');
    va_end(ap);
}

/* s with every ${env:NAME} replaced by the variable's value: "" (and a warning naming
 * where, at) when it is not set. Text that only looks like a reference stays as it is.
 * An untrusted source keeps every reference as written: its text never learns a value.
 * A new string in *out. */
static hew_code expand_env(const reader *r, const char *at, const char *s, char **out)
{
    static const char OPEN[] = "${env:";
    if (r->trust == MCP_TRUST_NONE) {
        *out = strdup(s);
        return *out ? HEW_OK : no_memory(r->err);
    }
    buf b = BUF_INIT(0);
    const char *p = s;
    for (;;) {
        const char *open = strstr(p, OPEN);
        if (!open) {
            buf_puts(&b, p);
            break;
        }
        const char *var = open + sizeof OPEN - 1;
        size_t n = strspn(var, ENV_NAME_CHARS);
        buf_append(&b, p, (size_t)(open - p));
        if (n == 0 || n > MCP_ENV_NAME_MAX || var[n] != '}') {
            buf_append(&b, open, (size_t)(var - open));
            p = var;
            continue;
        }
        char name[MCP_ENV_NAME_MAX + 1];
        memcpy(name, var, n);
        name[n] = '\0';
        const char *value = getenv(name);
        if (value)
            buf_puts(&b, value);
        else
            warn(r, "%s: ${env:%s} is not set, so it was replaced by an empty string — "
                 "export %s before starting hew", at, name, name);
        p = var + n + 1;
    }
    hew_code rc = buf_check(&b, "an MCP setting", r->err);
    *out = rc == HEW_OK ? buf_detach(&b, NULL) : NULL;
    buf_release(&b);
    if (rc == HEW_OK && !*out)
        return no_memory(r->err);
    return rc;
}

/* The optional string key of obj, expanded; *out stays NULL when it is missing. */
static hew_code read_string(const reader *r, const json_ref *obj, const char *key, char **out)
{
    const char *s = NULL;
    *out = NULL;
    hew_code rc = json_opt_string(obj, key, NULL, &s, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write it as a JSON string, in quotes");
    if (!s)
        return HEW_OK;
    json_ref at = json_ref_key(obj, key);
    return expand_env(r, at.path, s, out);
}

/* The optional array of strings at key, each expanded when expand is set. */
static hew_code read_string_list(const reader *r, const json_ref *obj, const char *key,
                                 bool expand, strv *out)
{
    json_ref arr;
    hew_code rc = json_opt_array(obj, key, &arr, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write a list of strings, e.g. [\"a\", \"b\"]");
    for (size_t i = 0; arr.v && i < json_array_size(arr.v); i++) {
        json_ref item = json_ref_index(&arr, i);
        const char *s;
        if ((rc = json_get_string(&item, "", &s, r->err)) != HEW_OK)
            return add_hint(r->err, rc, "every item is a string: write it in quotes");
        char *copy = NULL;
        if (expand) {
            if ((rc = expand_env(r, item.path, s, &copy)) != HEW_OK)
                return rc;
        } else {
            copy = strdup(s);
        }
        if (!strv_push(out, copy))
            return no_memory(r->err);
    }
    return HEW_OK;
}

/* How one kind of name/value map (env, headers) is checked and joined. */
typedef struct map_rules {
    const char *sep;       /* between name and value: "=" or ": " */
    const char *bad_chars; /* a name holding one of these is refused */
    const char *name_rule; /* the rule, for the message */
    bool value_one_line;   /* values may not hold CR or LF */
} map_rules;

static const map_rules ENV_RULES = { "=", "=", "non-empty and without '='", false };
static const map_rules HEADER_RULES = {
    ": ", ": \t\r\n", "non-empty, without ':' or spaces", true
};

/* The optional object of strings at key, as "name<sep>value" strings (values expanded). */
/* A header or env value that is a credential is redacted wherever it would show (errors,
 * the log): its whole value, and the token after an authorization scheme word. */
static void mcp_config_note_secret(const char *name, const char *value)
{
    if (!redact_header_is_secret(name) && !redact_env_secret(name, strlen(name)))
        return;
    redact_secret_add(value);
    const char *sp = strchr(value, ' ');
    if (sp)
        redact_secret_add(sp + 1);
}

static hew_code read_string_map(const reader *r, const json_ref *obj, const char *key,
                                const map_rules *rules, strv *out)
{
    json_ref map;
    hew_code rc = json_opt_object(obj, key, &map, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write an object of strings, e.g. {\"NAME\": \"value\"}");
    const char *name;
    json_t *v;
    json_object_foreach(map.v, name, v) {
        json_ref item = json_ref_key(&map, name);
        if (!*name || strpbrk(name, rules->bad_chars)) {
            char shown[128];
            quote_name(name, shown, sizeof shown);
            return hew_err_set(r->err, HEW_E_INVALID, "%s: the name %s is not allowed — "
                               "a name is %s", map.path, shown, rules->name_rule);
        }
        const char *s;
        if ((rc = json_get_string(&item, "", &s, r->err)) != HEW_OK)
            return add_hint(r->err, rc, "every value is a string: write it in quotes");
        char *value = NULL;
        if ((rc = expand_env(r, item.path, s, &value)) != HEW_OK)
            return rc;
        if (rules->value_one_line && strpbrk(value, "\r\n")) {
            free(value);
            return hew_err_set(r->err, HEW_E_INVALID, "%s: a header value cannot hold a line "
                               "break — remove it (check the variables it names)", item.path);
        }
        size_t len = strlen(name) + strlen(rules->sep) + strlen(value) + 1;
        char *joined = malloc(len);
        if (joined)
            snprintf(joined, len, "%s%s%s", name, rules->sep, value);
        mcp_config_note_secret(name, value);
        free(value);
        if (!strv_push(out, joined))
            return no_memory(r->err);
    }
    return HEW_OK;
}

static const struct kind_name {
    const char *name;
    mcp_kind kind;
} KIND_NAMES[] = {
    { "stdio", MCP_STDIO },
    { "sse", MCP_SSE },
    { "streamableHttp", MCP_HTTP },
    { "http", MCP_HTTP },
    { "streamable-http", MCP_HTTP },
};

static bool kind_by_name(const char *name, mcp_kind *kind)
{
    for (size_t i = 0; i < sizeof KIND_NAMES / sizeof KIND_NAMES[0]; i++) {
        if (strcmp(KIND_NAMES[i].name, name) == 0) {
            *kind = KIND_NAMES[i].kind;
            return true;
        }
    }
    return false;
}

static bool has_value(const json_ref *obj, const char *key)
{
    const json_t *v = json_object_get(obj->v, key);
    return v && !json_is_null(v);
}

/* The transport: "type" when given; else "command" means stdio, and "url" means
 * Cline's legacy "transportType" ("sse", "http") or, without it, MCP_HTTP_AUTO. */
static hew_code read_kind(const reader *r, const json_ref *server, mcp_kind *kind)
{
    const char *type = NULL, *legacy = NULL;
    hew_code rc = json_opt_string(server, "type", NULL, &type, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write \"stdio\", \"sse\", \"streamableHttp\" or \"http\"");
    if (type) {
        if (kind_by_name(type, kind))
            return HEW_OK;
        char shown[128];
        quote_name(type, shown, sizeof shown);
        return hew_err_set(r->err, HEW_E_INVALID, "%s.type: unknown transport %s — write "
                           "\"stdio\", \"sse\", \"streamableHttp\" or \"http\" (or leave it out)",
                           server->path, shown);
    }
    if (has_value(server, "command")) {
        *kind = MCP_STDIO;
        return HEW_OK;
    }
    if (!has_value(server, "url"))
        return hew_err_set(r->err, HEW_E_INVALID, "%s: neither \"command\" nor \"url\" — write "
                           "\"command\" (a program hew starts) or \"url\" (a server to "
                           "connect to)", server->path);
    rc = json_opt_string(server, "transportType", NULL, &legacy, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write \"http\" or \"sse\", or leave it out");
    if (legacy && strcmp(legacy, "sse") == 0)
        *kind = MCP_SSE;
    else if (legacy && (strcmp(legacy, "http") == 0 || strcmp(legacy, "streamableHttp") == 0))
        *kind = MCP_HTTP;
    else
        *kind = MCP_HTTP_AUTO;
    return HEW_OK;
}

static hew_code read_stdio(const reader *r, const json_ref *server, mcp_server_config *s)
{
    char *command = NULL;
    hew_code rc = read_string(r, server, "command", &command);
    if (rc != HEW_OK)
        return rc;
    if (!command || !*command) {
        bool missing = !command;
        free(command);
        return hew_err_set(r->err, HEW_E_INVALID, "%s.command: %s — a stdio server needs the "
                           "program to start, e.g. \"command\": \"npx\"", server->path,
                           missing ? "missing" : "empty");
    }
    strv argv = { 0 };
    if (!strv_push(&argv, command))
        return no_memory(r->err);
    rc = read_string_list(r, server, "args", true, &argv);
    s->argv = argv.v;
    if (rc != HEW_OK)
        return rc;
    if ((rc = read_string(r, server, "cwd", &s->cwd)) != HEW_OK)
        return rc;
    strv env = { 0 };
    rc = read_string_map(r, server, "env", &ENV_RULES, &env);
    s->env = env.v;
    return rc;
}

static hew_code read_remote(const reader *r, const json_ref *server, mcp_server_config *s)
{
    hew_code rc = read_string(r, server, "url", &s->url);
    if (rc != HEW_OK)
        return rc;
    if (!s->url)
        return hew_err_set(r->err, HEW_E_INVALID, "%s.url: missing — an HTTP or SSE server "
                           "needs its address, e.g. \"url\": \"https://example.com/mcp\"",
                           server->path);
    bool shown_only = r->trust == MCP_TRUST_NONE && strstr(s->url, "${env:");
    if (!url_has_http_scheme(s->url) && !shown_only) {
        const char *raw = json_string_value(json_object_get(server->v, "url"));
        bool expanded = raw && strstr(raw, "${env:");
        return hew_err_set(r->err, HEW_E_INVALID, "%s.url: not an http:// or https:// URL%s — "
                           "write the server's address, e.g. \"https://example.com/mcp\"",
                           server->path, expanded ? " once ${env:…} is expanded (check the "
                           "variable)" : "");
    }
    strv headers = { 0 };
    rc = read_string_map(r, server, "headers", &HEADER_RULES, &headers);
    s->headers = headers.v;
    return rc;
}

/* "timeout" in seconds: default 60, at least 1, at most a day. */
static hew_code read_timeout(const reader *r, const json_ref *server, long *out)
{
    double t;
    hew_code rc = json_opt_number(server, "timeout", (double)MCP_TIMEOUT_DEFAULT_S, &t, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write a number of seconds, e.g. 60");
    if (!(t >= 1.0))
        *out = 1;
    else if (t >= (double)MCP_TIMEOUT_MAX_S)
        *out = MCP_TIMEOUT_MAX_S;
    else
        *out = (long)ceil(t);
    return HEW_OK;
}

static hew_code read_auto_approve(const reader *r, const json_ref *server,
                                  mcp_server_config *s)
{
    if (r->trust != MCP_TRUST_USER) {
        json_t *list = json_object_get(server->v, "autoApprove");
        if (list && !json_is_null(list) && !(json_is_array(list) && json_array_size(list) == 0))
            warn(r, "%s.autoApprove: ignored — a workspace's settings cannot approve its own "
                 "tools; approve them in your own file (~/.config/hew/mcp.json) instead",
                 server->path);
        return HEW_OK;
    }
    strv list = { 0 };
    hew_code rc = read_string_list(r, server, "autoApprove", false, &list);
    s->auto_approve = list.v;
    return rc;
}

/* "sandbox" and "sandbox_network" (stdio): opt-in confinement. */
static hew_code read_sandbox(const reader *r, const json_ref *server, mcp_server_config *s)
{
    const char *mode = NULL;
    s->sandbox_network = true;
    hew_code rc = json_opt_string(server, "sandbox", NULL, &mode, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write \"workspace-write\" or \"read-only\"");
    if (mode && (!sandbox_mode_parse(mode, &s->sandbox)))
        return hew_err_set(r->err, HEW_E_INVALID,
                           "%s.sandbox: '%s' is not a sandbox mode — write \"workspace-write\" "
                           "or \"read-only\" (or leave it out: unconfined)",
                           server->path, mode);
    if (mode && s->kind != MCP_STDIO)
        return hew_err_set(r->err, HEW_E_INVALID,
                           "%s.sandbox: only a stdio server (\"command\") runs on this "
                           "machine to be confined; remove it for a URL",
                           server->path);
    rc = json_opt_bool(server, "sandbox_network", true, &s->sandbox_network, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write true or false");
    return HEW_OK;
}

static void server_release(mcp_server_config *s)
{
    free(s->name);
    strv_free(s->argv);
    free(s->cwd);
    strv_free(s->env);
    free(s->url);
    strv_free(s->headers);
    strv_free(s->auto_approve);
    free(s->source);
    memset(s, 0, sizeof *s);
}

/* One server's settings; on failure s holds nothing. */
static hew_code read_server(const reader *r, const json_ref *ref, const char *name,
                            mcp_server_config *s)
{
    memset(s, 0, sizeof *s);
    if (!json_is_object(ref->v))
        return hew_err_set(r->err, HEW_E_INVALID, "%s: expected an object like {\"command\": "
                           "\"npx\", \"args\": [...]} or {\"url\": \"https://...\"}, got %s",
                           ref->path, json_type_phrase(ref->v));
    s->name = strdup(name);
    s->source = strdup(r->source);
    if (!s->name || !s->source) {
        server_release(s);
        return no_memory(r->err);
    }
    hew_code rc = read_kind(r, ref, &s->kind);
    if (rc == HEW_OK)
        rc = s->kind == MCP_STDIO ? read_stdio(r, ref, s) : read_remote(r, ref, s);
    if (rc == HEW_OK) {
        rc = json_opt_bool(ref, "disabled", false, &s->disabled, r->err);
        if (rc != HEW_OK)
            add_hint(r->err, rc, "write true or false");
    }
    if (rc == HEW_OK)
        rc = read_timeout(r, ref, &s->timeout_s);
    if (rc == HEW_OK)
        rc = read_auto_approve(r, ref, s);
    if (rc == HEW_OK)
        rc = read_sandbox(r, ref, s);
    if (rc != HEW_OK)
        server_release(s);
    return rc;
}

static ssize_t find_index(const mcp_config *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->servers[i].name, name) == 0)
            return (ssize_t)i;
    return -1;
}

/* Move s into c: over the server of the same name (which keeps its place), else at the
 * end. The caller made room for one more (servers_reserve). */
static void servers_take(mcp_config *c, mcp_server_config *s)
{
    ssize_t i = find_index(c, s->name);
    if (i >= 0) {
        server_release(&c->servers[i]);
        c->servers[i] = *s;
    } else {
        c->servers[c->n++] = *s;
    }
    memset(s, 0, sizeof *s);
}

static bool servers_reserve(mcp_config *c, size_t more)
{
    if (more == 0)
        return true;
    mcp_server_config *v = realloc(c->servers, (c->n + more) * sizeof *v);
    if (!v)
        return false;
    c->servers = v;
    return true;
}

/* Every server of the document root into out (an empty config). */
static hew_code read_document(const reader *r, const json_t *root, mcp_config *out)
{
    if (!json_is_object(root))
        return hew_err_set(r->err, HEW_E_INVALID, "expected a JSON object at the top level, "
                           "like {\"mcpServers\": {}}, got %s", json_type_phrase(root));
    json_ref top = json_ref_root(root, NULL);
    json_ref servers;
    hew_code rc = json_opt_object(&top, "mcpServers", &servers, r->err);
    if (rc != HEW_OK)
        return add_hint(r->err, rc, "write {\"mcpServers\": {\"NAME\": {\"command\": ...}}}");
    if (!servers.v)
        return HEW_OK;
    if (!servers_reserve(out, json_object_size(servers.v)))
        return no_memory(r->err);
    const char *name;
    json_t *v;
    json_object_foreach(servers.v, name, v) {
        if (!mcp_config_name_ok(name))
            return name_error(r->err, name);
        json_ref ref = json_ref_key(&servers, name);
        mcp_server_config s;
        if ((rc = read_server(r, &ref, name, &s)) != HEW_OK)
            return rc;
        servers_take(out, &s);
    }
    return HEW_OK;
}

/* ---- the public reading side ------------------------------------------------------- */

void mcp_config_init(mcp_config *c)
{
    c->servers = NULL;
    c->n = 0;
    c->sandbox = NULL;
    buf_init(&c->warnings, MCP_WARNINGS_MAX);
}

void mcp_config_free(mcp_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        server_release(&c->servers[i]);
    free(c->servers);
    buf_release(&c->warnings);
    mcp_config_init(c);
}

hew_code mcp_config_parse(mcp_config *c, const char *text, size_t len, const char *source,
                          mcp_trust trust, hew_err *err)
{
    if (!c || (!text && len))
        return hew_err_set(err, HEW_E_INTERNAL, "mcp_config_parse: no config or no text");
    if (!source || !*source)
        source = "MCP settings";
    json_t *root;
    hew_code rc = json_parse(text, len, source, &root, err);
    if (rc != HEW_OK)
        return add_hint(err, rc, "fix the file (its shape is {\"mcpServers\": {...}})");
    mcp_config got;
    mcp_config_init(&got);
    reader r = { .source = source, .trust = trust, .warnings = &got.warnings, .err = err };
    rc = read_document(&r, root, &got);
    json_decref(root);
    if (rc == HEW_OK && !servers_reserve(c, got.n))
        rc = no_memory(err);
    if (rc != HEW_OK) {
        mcp_config_free(&got);
        if (err)
            hew_err_wrap(err, "%s", source);
        return rc;
    }
    for (size_t i = 0; i < got.n; i++)
        servers_take(c, &got.servers[i]);
    got.n = 0;
    if (got.warnings.len)
        buf_append(&c->warnings, got.warnings.data, got.warnings.len);
    mcp_config_free(&got);
    return HEW_OK;
}

hew_code mcp_config_load_file(mcp_config *c, const char *path, mcp_trust trust,
                              hew_err *err)
{
    char *text = NULL;
    size_t len = 0;
    hew_err read_err = HEW_ERR_INIT;
    hew_code rc = fs_read_file(path, MCP_FILE_MAX_BYTES, &text, &len, &read_err);
    if (rc == HEW_E_NOTFOUND)
        return HEW_OK;
    if (rc != HEW_OK) {
        if (err)
            *err = read_err;
        return rc;
    }
    rc = mcp_config_parse(c, text, len, path, trust, err);
    free(text);
    return rc;
}

hew_code mcp_config_default_paths(const char *root, char **user, char **project,
                                  hew_err *err)
{
    char *u = NULL, *p = NULL;
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    bool want_user = user && ((xdg && xdg[0] == '/') || (home && *home));
    if (want_user) {
        u = xdg && xdg[0] == '/' ? path_join(xdg, "hew/mcp.json")
                                 : path_join(home, ".config/hew/mcp.json");
    }
    if (project && root)
        p = path_join(root, ".hew/mcp.json");
    if ((want_user && !u) || (project && root && !p)) {
        free(u);
        free(p);
        return no_memory(err);
    }
    if (user)
        *user = u;
    if (project)
        *project = p;
    return HEW_OK;
}

const mcp_server_config *mcp_config_find(const mcp_config *c, const char *name)
{
    ssize_t i = c && name ? find_index(c, name) : -1;
    return i >= 0 ? &c->servers[i] : NULL;
}

static bool str_same(const char *a, const char *b)
{
    return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

/* NULL and an empty list are the same. */
static bool strv_same(char *const *a, char *const *b)
{
    size_t n = strv_len(a);
    if (n != strv_len(b))
        return false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

bool mcp_server_config_same(const mcp_server_config *a, const mcp_server_config *b)
{
    if (!a || !b)
        return a == b;
    return str_same(a->name, b->name) && a->kind == b->kind && strv_same(a->argv, b->argv) &&
           str_same(a->cwd, b->cwd) && strv_same(a->env, b->env) && str_same(a->url, b->url) &&
           strv_same(a->headers, b->headers) && a->disabled == b->disabled &&
           a->timeout_s == b->timeout_s && a->sandbox == b->sandbox &&
           a->sandbox_network == b->sandbox_network;
}

/* ---- editing a file ----------------------------------------------------------------- */

/* The settings document at path; a missing file gives {"mcpServers": {}} and *existed
 * false. A file that is not JSON is refused: hew never rewrites what it cannot read. */
static hew_code doc_load(const char *path, bool *existed, json_t **doc, hew_err *err)
{
    char *text = NULL;
    size_t len = 0;
    *doc = NULL;
    *existed = false;
    hew_code rc = fs_read_file(path, MCP_FILE_MAX_BYTES, &text, &len, err);
    if (rc == HEW_E_NOTFOUND) {
        *doc = json_pack("{s:{}}", "mcpServers");
        return *doc ? HEW_OK : no_memory(err);
    }
    if (rc != HEW_OK)
        return rc;
    *existed = true;
    rc = json_parse(text, len, path, doc, err);
    free(text);
    if (rc != HEW_OK)
        return add_hint(err, rc, "fix the file by hand first (hew does not rewrite a file "
                        "it cannot read)");
    if (!json_is_object(*doc)) {
        rc = hew_err_set(err, HEW_E_INVALID, "%s: expected a JSON object at the top level, "
                         "got %s — fix the file by hand first", path, json_type_phrase(*doc));
        json_decref(*doc);
        *doc = NULL;
    }
    return rc;
}

/* doc's "mcpServers" object (borrowed), created when missing and create is set; *out is
 * NULL when it is missing and create is not set. */
static hew_code doc_servers(json_t *doc, const char *path, bool create, json_t **out,
                            hew_err *err)
{
    json_t *servers = json_object_get(doc, "mcpServers");
    *out = NULL;
    if (!servers || json_is_null(servers)) {
        if (!create)
            return HEW_OK;
        servers = json_object();
        if (!servers || json_object_set_new(doc, "mcpServers", servers) != 0)
            return no_memory(err);
    }
    if (!json_is_object(servers))
        return hew_err_set(err, HEW_E_INVALID, "%s: mcpServers: expected an object, got %s — "
                           "fix the file by hand first", path, json_type_phrase(servers));
    *out = servers;
    return HEW_OK;
}

/* True when every real number below v prints back to itself with prec digits. */
static bool reals_survive(const json_t *v, int prec)
{
    if (json_is_real(v)) {
        char text[64];
        snprintf(text, sizeof text, "%.*g", prec, json_real_value(v));
        return strtod(text, NULL) == json_real_value(v);
    }
    size_t i;
    const char *key;
    json_t *child;
    if (json_is_array(v)) {
        json_array_foreach(v, i, child)
            if (!reals_survive(child, prec))
                return false;
    } else if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, child)
            if (!reals_survive(child, prec))
                return false;
    }
    return true;
}

/* The fewest digits that keep every real number of doc exact, so that 0.7 stays 0.7. */
static int real_precision(const json_t *doc)
{
    for (int prec = 15; prec < 17; prec++)
        if (reals_survive(doc, prec))
            return prec;
    return 17;
}

/* The directory part of path, or NULL when it has none. */
static char *parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* Write doc to path (through a symlink to its target) atomically: indent 2, keys in
 * their order, a final newline. New files are 0600: they may hold tokens. */
static hew_code doc_save(const char *path, const json_t *doc, hew_err *err)
{
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(real_precision(doc));
    char *text = json_dumps(doc, flags);
    if (!text)
        return no_memory(err);
    buf out = BUF_INIT(0);
    buf_puts(&out, text);
    buf_putc(&out, '\n');
    free(text);
    hew_code rc = buf_check(&out, "MCP settings", err);
    char *real = realpath(path, NULL);
    const char *target = real ? real : path;
    char *dir = parent_dir(target);
    if (rc == HEW_OK && dir)
        rc = fs_mkdirs(dir, 0755, err);
    if (rc == HEW_OK)
        rc = fs_write_atomic(target, out.data, out.len, 0600, err);
    free(dir);
    free(real);
    buf_release(&out);
    return rc;
}

/* Check def (a server's object) with the rules of mcp_config_parse. */
static hew_code def_check(const char *name, json_t *def, hew_err *err)
{
    json_t *doc = json_pack("{s:{s:O}}", "mcpServers", name, def);
    if (!doc)
        return no_memory(err);
    mcp_config scratch;
    mcp_config_init(&scratch);
    reader r = { .source = name, .trust = MCP_TRUST_USER, .warnings = &scratch.warnings,
                 .err = err };
    hew_code rc = read_document(&r, doc, &scratch);
    mcp_config_free(&scratch);
    json_decref(doc);
    return rc;
}

hew_code mcp_config_file_put(const char *path, const char *name, const char *def_json,
                             hew_err *err)
{
    if (!path || !*path || !name || !def_json)
        return hew_err_set(err, HEW_E_INTERNAL, "mcp_config_file_put: missing argument");
    if (!mcp_config_name_ok(name)) {
        name_error(err, name);
        return hew_err_wrap(err, "cannot add the MCP server to %s", path);
    }
    json_t *def;
    hew_code rc = json_parse(def_json, strlen(def_json), "the server's settings", &def, err);
    if (rc == HEW_OK && (rc = def_check(name, def, err)) != HEW_OK)
        json_decref(def);
    if (rc != HEW_OK) {
        if (err)
            hew_err_wrap(err, "cannot add MCP server %s to %s", name, path);
        return rc;
    }
    json_t *doc = NULL, *servers = NULL;
    bool existed;
    rc = doc_load(path, &existed, &doc, err);
    if (rc == HEW_OK)
        rc = doc_servers(doc, path, true, &servers, err);
    if (rc == HEW_OK && json_object_set_new(servers, name, def) != 0)
        rc = no_memory(err);
    else if (rc != HEW_OK)
        json_decref(def);
    if (rc == HEW_OK)
        rc = doc_save(path, doc, err);
    json_decref(doc);
    return rc;
}

hew_code mcp_config_file_remove(const char *path, const char *name, hew_err *err)
{
    if (!path || !*path || !name)
        return hew_err_set(err, HEW_E_INTERNAL, "mcp_config_file_remove: missing argument");
    char shown[128];
    quote_name(name, shown, sizeof shown);
    json_t *doc = NULL, *servers = NULL;
    bool existed;
    hew_code rc = doc_load(path, &existed, &doc, err);
    if (rc == HEW_OK && !existed)
        rc = hew_err_set(err, HEW_E_NOTFOUND, "no MCP server %s in %s: the file does not exist",
                         shown, path);
    if (rc == HEW_OK)
        rc = doc_servers(doc, path, false, &servers, err);
    if (rc == HEW_OK && (!servers || !json_object_get(servers, name)))
        rc = hew_err_set(err, HEW_E_NOTFOUND, "no MCP server %s in %s", shown, path);
    if (rc == HEW_OK && json_object_del(servers, name) != 0)
        rc = no_memory(err);
    if (rc == HEW_OK)
        rc = doc_save(path, doc, err);
    json_decref(doc);
    return rc;
}
