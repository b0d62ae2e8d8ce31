/* Unit tests of the MCP server settings (mcp/config): every transport type and how a
 * missing one is inferred (Cline's legacy transportType too), ${env:VAR} expansion in
 * every string that takes it (and the warning for an unset variable), timeouts, server
 * names, wrong types named by file and JSON path, disabled servers, autoApprove from a
 * trusted and an untrusted file, merging the user's and the workspace's files, missing and
 * broken files, Cline's and Claude Desktop's files as they are, in-place edits that keep
 * everything else byte for byte, and mcp_server_config_same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "sys/path.h"
#include "check.h"
#include "mcp/config.h"
#include "tmpdir.h"

static char *tmp;

/* ---- helpers ------------------------------------------------------------------------ */

static hew_code parse_as(mcp_config *c, const char *text, const char *source, mcp_trust trust,
                         hew_err *err)
{
    return mcp_config_parse(c, text, strlen(text), source, trust, err);
}

/* Parse text (trusted) into a fresh c, expecting success. */
static bool parse_ok(mcp_config *c, const char *text)
{
    hew_err err = HEW_ERR_INIT;
    mcp_config_init(c);
    hew_code rc = parse_as(c, text, "mcp.json", MCP_TRUST_USER, &err);
    if (rc != HEW_OK)
        fprintf(stderr, "  unexpected error for %s:\n  %s\n", text, err.msg);
    return rc == HEW_OK;
}

/* Parse text (trusted) expecting HEW_E_INVALID with a message holding each of want
 * (NULL-terminated). */
static void parse_bad(const char *text, const char *const *want)
{
    mcp_config c;
    mcp_config_init(&c);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = parse_as(&c, text, "mcp.json", MCP_TRUST_USER, &err);
    CHECK_INT(rc, HEW_E_INVALID);
    CHECK_INT(c.n, 0);
    for (const char *const *w = want; *w; w++) {
        if (!strstr(err.msg, *w)) {
            check_fail(__FILE__, __LINE__, "message of %s lacks \"%s\": %s", text, *w, err.msg);
        }
    }
    mcp_config_free(&c);
}

#define BAD(text, ...)                                                                     \
    do {                                                                                   \
        const char *const want_[] = { __VA_ARGS__, NULL };                                 \
        parse_bad(text, want_);                                                            \
    } while (0)

static size_t count(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

static void put_file(const char *path, const char *text)
{
    char *dir = strdup(path);
    *strrchr(dir, '/') = '\0';
    CHECK(fs_mkdirs(dir, 0755, NULL) == HEW_OK);
    CHECK(fs_write_atomic(path, text, strlen(text), 0644, NULL) == HEW_OK);
    free(dir);
}

static char *slurp(const char *path)
{
    char *text = NULL;
    if (fs_read_file(path, 1 << 20, &text, NULL, NULL) != HEW_OK)
        return NULL;
    return text;
}

static const char *warnings(const mcp_config *c)
{
    return c->warnings.len ? c->warnings.data : "";
}

/* ---- types and inference ------------------------------------------------------------ */

static void test_stdio_fields(void)
{
    mcp_config c;
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", "
                         "\"pkg\"], \"cwd\": \"/w\", \"env\": {\"A\": \"1\", \"B\": \"two\"}}}}"));
    REQUIRE(c.n == 1);
    const mcp_server_config *s = &c.servers[0];
    CHECK_STR(s->name, "fs");
    CHECK_INT(s->kind, MCP_STDIO);
    CHECK_INT(count(s->argv), 3);
    CHECK_STR(s->argv[0], "npx");
    CHECK_STR(s->argv[1], "-y");
    CHECK_STR(s->argv[2], "pkg");
    CHECK_STR(s->cwd, "/w");
    CHECK_INT(count(s->env), 2);
    CHECK_STR(s->env[0], "A=1");
    CHECK_STR(s->env[1], "B=two");
    CHECK(s->url == NULL && s->headers == NULL);
    CHECK(!s->disabled);
    CHECK_INT(s->timeout_s, 60);
    CHECK(s->auto_approve == NULL);
    CHECK_STR(s->source, "mcp.json");
    CHECK_INT(c.warnings.len, 0);
    CHECK(mcp_config_find(&c, "fs") == s);
    CHECK(mcp_config_find(&c, "nope") == NULL);
    mcp_config_free(&c);

    /* command alone: argv is just the command; env stays NULL */
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"x\": {\"command\": \"/bin/srv\"}}}"));
    CHECK_INT(count(c.servers[0].argv), 1);
    CHECK(c.servers[0].env == NULL && c.servers[0].cwd == NULL);
    mcp_config_free(&c);
}

static void check_kind(const char *server_json, mcp_kind want)
{
    char text[512];
    snprintf(text, sizeof text, "{\"mcpServers\": {\"s\": %s}}", server_json);
    mcp_config c;
    if (!parse_ok(&c, text)) {
        check_fail(__FILE__, __LINE__, "did not parse: %s", server_json);
        return;
    }
    CHECK_INT(c.n, 1);
    if (c.servers[0].kind != want)
        check_fail(__FILE__, __LINE__, "%s: kind %d, want %d", server_json,
                   (int)c.servers[0].kind, (int)want);
    mcp_config_free(&c);
}

static void test_kinds(void)
{
    check_kind("{\"type\": \"stdio\", \"command\": \"a\"}", MCP_STDIO);
    check_kind("{\"type\": \"sse\", \"url\": \"http://h/sse\"}", MCP_SSE);
    check_kind("{\"type\": \"streamableHttp\", \"url\": \"https://h/mcp\"}", MCP_HTTP);
    check_kind("{\"type\": \"http\", \"url\": \"https://h/mcp\"}", MCP_HTTP);
    check_kind("{\"type\": \"streamable-http\", \"url\": \"HTTPS://h/mcp\"}", MCP_HTTP);
    /* inferred */
    check_kind("{\"command\": \"a\"}", MCP_STDIO);
    check_kind("{\"url\": \"https://h/mcp\"}", MCP_HTTP_AUTO);
    check_kind("{\"command\": \"a\", \"url\": \"https://h/mcp\"}", MCP_STDIO);
    /* Cline's legacy transportType */
    check_kind("{\"transportType\": \"http\", \"url\": \"https://h/mcp\"}", MCP_HTTP);
    check_kind("{\"transportType\": \"sse\", \"url\": \"https://h/sse\"}", MCP_SSE);
    check_kind("{\"transportType\": \"other\", \"url\": \"https://h/mcp\"}", MCP_HTTP_AUTO);
    check_kind("{\"transportType\": \"sse\", \"command\": \"a\"}", MCP_STDIO);
    /* an explicit type wins over the keys present */
    check_kind("{\"type\": \"sse\", \"command\": \"a\", \"url\": \"https://h/s\"}", MCP_SSE);

    mcp_config c;
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"r\": {\"url\": \"https://h/mcp\", \"headers\": "
                         "{\"Authorization\": \"Bearer t\", \"X-A\": \"b\"}, \"args\": [1]}}}"));
    const mcp_server_config *s = &c.servers[0];
    CHECK_STR(s->url, "https://h/mcp");
    CHECK_INT(count(s->headers), 2);
    CHECK_STR(s->headers[0], "Authorization: Bearer t");
    CHECK_STR(s->headers[1], "X-A: b");
    CHECK(s->argv == NULL); /* stdio keys of a remote server are not read */
    mcp_config_free(&c);
}

/* ---- ${env:VAR} ----------------------------------------------------------------------- */

static void test_env_expansion(void)
{
    setenv("HEW_T_A", "alpha", 1);
    setenv("HEW_T_EMPTY", "", 1);
    unsetenv("HEW_T_UNSET");
    mcp_config c;
    REQUIRE(parse_ok(&c,
        "{\"mcpServers\": {"
        "\"s\": {\"command\": \"${env:HEW_T_A}/bin\", \"cwd\": \"/w/${env:HEW_T_A}\","
        "  \"args\": [\"x${env:HEW_T_A}y${env:HEW_T_A}\", \"[${env:HEW_T_UNSET}]\","
        "            \"${env:HEW_T_EMPTY}\", \"${env:}\", \"${env:A-B}\", \"${env:HEW_T_A\","
        "            \"$HEW_T_A\", \"${HEW_T_A}\"],"
        "  \"env\": {\"TOKEN\": \"${env:HEW_T_A}\"}},"
        "\"h\": {\"url\": \"https://h/${env:HEW_T_A}/mcp\","
        "  \"headers\": {\"Authorization\": \"Bearer ${env:HEW_T_A}\"}}}}"));
    const mcp_server_config *s = mcp_config_find(&c, "s");
    REQUIRE(s != NULL);
    CHECK_STR(s->argv[0], "alpha/bin");
    CHECK_STR(s->cwd, "/w/alpha");
    CHECK_STR(s->argv[1], "xalphayalpha");
    CHECK_STR(s->argv[2], "[]");
    CHECK_STR(s->argv[3], "");
    CHECK_STR(s->argv[4], "${env:}");
    CHECK_STR(s->argv[5], "${env:A-B}");
    CHECK_STR(s->argv[6], "${env:HEW_T_A");
    CHECK_STR(s->argv[7], "$HEW_T_A");
    CHECK_STR(s->argv[8], "${HEW_T_A}");
    CHECK_STR(s->env[0], "TOKEN=alpha");
    const mcp_server_config *h = mcp_config_find(&c, "h");
    REQUIRE(h != NULL);
    CHECK_STR(h->url, "https://h/alpha/mcp");
    CHECK_STR(h->headers[0], "Authorization: Bearer alpha");
    /* one warning: the unset variable, with file and path; a set-but-empty one is fine */
    const char *w = warnings(&c);
    CHECK(strstr(w, "mcp.json: mcpServers.s.args[1]: ${env:HEW_T_UNSET} is not set") != NULL);
    CHECK(strstr(w, "HEW_T_EMPTY") == NULL);
    CHECK(strchr(w, '\n') == w + strlen(w) - 1);
    mcp_config_free(&c);

    /* unset variables in env values, url and headers are named too */
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": "
                         "\"${env:HEW_T_UNSET}\"}}, \"b\": {\"url\": \"https://h/${env:HEW_T_UNSET}\","
                         " \"headers\": {\"H\": \"${env:HEW_T_UNSET}\"}}}}"));
    w = warnings(&c);
    CHECK(strstr(w, "mcpServers.a.env.K: ${env:HEW_T_UNSET}") != NULL);
    CHECK(strstr(w, "mcpServers.b.url: ${env:HEW_T_UNSET}") != NULL);
    CHECK(strstr(w, "mcpServers.b.headers.H: ${env:HEW_T_UNSET}") != NULL);
    CHECK_STR(mcp_config_find(&c, "a")->env[0], "K=");
    mcp_config_free(&c);

    /* autoApprove names are not expanded */
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"autoApprove\": "
                         "[\"${env:HEW_T_A}\"]}}}"));
    CHECK_STR(c.servers[0].auto_approve[0], "${env:HEW_T_A}");
    mcp_config_free(&c);

    /* a URL that only becomes bad once expanded says so */
    BAD("{\"mcpServers\": {\"a\": {\"url\": \"${env:HEW_T_UNSET}\"}}}",
        "mcp.json: mcpServers.a.url: not an http:// or https:// URL once ${env:");
    unsetenv("HEW_T_A");
    unsetenv("HEW_T_EMPTY");
}

/* An untrusted workspace file is read only to be shown: no ${env:…} is ever expanded in
 * it (a cloned repository must not learn a secret, not even through a listing), its
 * autoApprove is ignored; a trusted one expands, still without autoApprove. */
static void test_env_untrusted(void)
{
    setenv("HEW_T_SECRET", "sk-secret-value", 1);
    const char *text =
        "{\"mcpServers\": {"
        "\"s\": {\"command\": \"${env:HEW_T_SECRET}\", \"args\": [\"--k=${env:HEW_T_SECRET}\"],"
        "  \"env\": {\"K\": \"${env:HEW_T_SECRET}\"}, \"autoApprove\": [\"t\"]},"
        "\"h\": {\"url\": \"${env:HEW_T_SECRET}\","
        "  \"headers\": {\"Authorization\": \"Bearer ${env:HEW_T_SECRET}\"}}}}";
    mcp_config c;
    mcp_config_init(&c);
    hew_err err = HEW_ERR_INIT;
    REQUIRE(parse_as(&c, text, "/w/.hew/mcp.json", MCP_TRUST_NONE, &err) == HEW_OK);
    const mcp_server_config *s = mcp_config_find(&c, "s");
    const mcp_server_config *h = mcp_config_find(&c, "h");
    REQUIRE(s && h);
    CHECK_STR(s->argv[0], "${env:HEW_T_SECRET}");
    CHECK_STR(s->argv[1], "--k=${env:HEW_T_SECRET}");
    CHECK_STR(s->env[0], "K=${env:HEW_T_SECRET}");
    CHECK_STR(h->url, "${env:HEW_T_SECRET}");
    CHECK_STR(h->headers[0], "Authorization: Bearer ${env:HEW_T_SECRET}");
    CHECK(s->auto_approve == NULL);
    CHECK(strstr(warnings(&c), "sk-secret-value") == NULL);
    mcp_config_free(&c);

    mcp_config_init(&c);
    const char *ok = "{\"mcpServers\": {\"h\": {\"url\": \"https://x/\", \"headers\": "
                     "{\"A\": \"${env:HEW_T_SECRET}\"}, \"autoApprove\": [\"t\"]}}}";
    REQUIRE(parse_as(&c, ok, "/w/.hew/mcp.json", MCP_TRUST_PROJECT, &err) == HEW_OK);
    CHECK_STR(c.servers[0].headers[0], "A: sk-secret-value");
    CHECK(c.servers[0].auto_approve == NULL);
    mcp_config_free(&c);
    unsetenv("HEW_T_SECRET");
}

/* ---- timeout, names, disabled ---------------------------------------------------------- */

static long timeout_of(const char *value)
{
    char text[256];
    snprintf(text, sizeof text, "{\"mcpServers\": {\"t\": {\"command\": \"x\", \"timeout\": %s}}}",
             value);
    mcp_config c;
    if (!parse_ok(&c, text))
        return -1;
    long t = c.servers[0].timeout_s;
    mcp_config_free(&c);
    return t;
}

static void test_timeout(void)
{
    CHECK_INT(timeout_of("null"), 60);
    CHECK_INT(timeout_of("120"), 120);
    CHECK_INT(timeout_of("1"), 1);
    CHECK_INT(timeout_of("0"), 1);
    CHECK_INT(timeout_of("-5"), 1);
    CHECK_INT(timeout_of("0.2"), 1);
    CHECK_INT(timeout_of("1.5"), 2);
    CHECK_INT(timeout_of("1e12"), 86400);
    BAD("{\"mcpServers\": {\"t\": {\"command\": \"x\", \"timeout\": \"60\"}}}",
        "mcp.json: mcpServers.t.timeout: expected a number, got a string",
        "write a number of seconds");
}

static void test_names(void)
{
    char long_ok[80], long_bad[80];
    memset(long_ok, 'a', 64);
    long_ok[64] = '\0';
    memset(long_bad, 'b', 65);
    long_bad[65] = '\0';
    char text[512];
    mcp_config c;
    snprintf(text, sizeof text,
             "{\"mcpServers\": {\"a.b-c_D9\": {\"command\": \"x\"}, \"%s\": {\"command\": \"y\"}}}",
             long_ok);
    REQUIRE(parse_ok(&c, text));
    CHECK_INT(c.n, 2);
    CHECK(mcp_config_find(&c, "a.b-c_D9") != NULL);
    CHECK(mcp_config_find(&c, long_ok) != NULL);
    mcp_config_free(&c);

    BAD("{\"mcpServers\": {\"\": {\"command\": \"x\"}}}",
        "mcp.json: mcpServers: the server name \"\" is not allowed", "letters, digits",
        "\"server\"");
    BAD("{\"mcpServers\": {\"my server\": {\"command\": \"x\"}}}",
        "the server name \"my server\" is not allowed", "e.g. \"my-server\"");
    BAD("{\"mcpServers\": {\"x/y\": {\"command\": \"x\"}}}", "\"x/y\"", "e.g. \"x-y\"");
    BAD("{\"mcpServers\": {\"na\xC3\xAFve\": {\"command\": \"x\"}}}", "e.g. \"na-ve\"");
    BAD("{\"mcpServers\": {\"line\\nbreak\": {\"command\": \"x\"}}}", "\"line\\nbreak\"");
    snprintf(text, sizeof text, "{\"mcpServers\": {\"%s\": {\"command\": \"x\"}}}", long_bad);
    BAD(text, "is not allowed", "1 to 64");
}

static void test_disabled(void)
{
    mcp_config c;
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"disabled\": true},"
                         " \"b\": {\"command\": \"x\", \"disabled\": false}}}"));
    CHECK(mcp_config_find(&c, "a")->disabled);
    CHECK(!mcp_config_find(&c, "b")->disabled);
    mcp_config_free(&c);
    BAD("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"disabled\": \"yes\"}}}",
        "mcpServers.a.disabled: expected a boolean, got a string", "write true or false");
}

/* ---- wrong types and shapes ------------------------------------------------------------ */

static void test_wrong_types(void)
{
    BAD("{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", 3]}}}",
        "mcp.json: mcpServers.fs.args[1]: expected a string, got a number", "in quotes");
    BAD("{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": \"-y pkg\"}}}",
        "mcpServers.fs.args: expected an array, got a string", "[\"a\", \"b\"]");
    BAD("{\"mcpServers\": {\"fs\": {\"command\": [\"npx\"]}}}",
        "mcpServers.fs.command: expected a string, got an array", "in quotes");
    BAD("{\"mcpServers\": {\"fs\": {\"command\": \"\"}}}", "mcpServers.fs.command: empty",
        "\"command\": \"npx\"");
    BAD("{\"mcpServers\": {\"fs\": {\"type\": \"stdio\", \"url\": \"https://h\"}}}",
        "mcpServers.fs.command: missing");
    BAD("{\"mcpServers\": {\"fs\": {\"command\": \"x\", \"cwd\": 1}}}",
        "mcpServers.fs.cwd: expected a string, got a number");
    BAD("{\"mcpServers\": {\"fs\": {\"command\": \"x\", \"env\": {\"K\": 1}}}}",
        "mcpServers.fs.env.K: expected a string, got a number", "in quotes");
    BAD("{\"mcpServers\": {\"fs\": {\"command\": \"x\", \"env\": [\"K=1\"]}}}",
        "mcpServers.fs.env: expected an object, got an array");
    BAD("{\"mcpServers\": {\"fs\": {\"command\": \"x\", \"env\": {\"A=B\": \"1\"}}}}",
        "mcpServers.fs.env: the name \"A=B\" is not allowed");
    BAD("{\"mcpServers\": {\"r\": {\"url\": \"https://h\", \"headers\": [\"A: b\"]}}}",
        "mcpServers.r.headers: expected an object, got an array");
    BAD("{\"mcpServers\": {\"r\": {\"url\": \"https://h\", \"headers\": {\"A b\": \"c\"}}}}",
        "mcpServers.r.headers: the name \"A b\" is not allowed");
    BAD("{\"mcpServers\": {\"r\": {\"url\": \"https://h\", \"headers\": {\"A\": \"b\\r\\nX: y\"}}}}",
        "mcpServers.r.headers.A: a header value cannot hold a line break");
    BAD("{\"mcpServers\": {\"r\": {\"url\": \"ftp://h\"}}}",
        "mcpServers.r.url: not an http:// or https:// URL —", "https://example.com/mcp");
    BAD("{\"mcpServers\": {\"r\": {\"url\": 8080}}}",
        "mcpServers.r.url: expected a string, got a number");
    BAD("{\"mcpServers\": {\"r\": {\"type\": \"sse\"}}}", "mcpServers.r.url: missing");
    BAD("{\"mcpServers\": {\"r\": {\"type\": \"websocket\", \"url\": \"https://h\"}}}",
        "mcpServers.r.type: unknown transport \"websocket\"", "\"streamableHttp\"");
    BAD("{\"mcpServers\": {\"r\": {\"type\": 1, \"url\": \"https://h\"}}}",
        "mcpServers.r.type: expected a string, got a number");
    BAD("{\"mcpServers\": {\"r\": {\"disabled\": false}}}",
        "mcpServers.r: neither \"command\" nor \"url\"");
    BAD("{\"mcpServers\": {\"r\": \"npx pkg\"}}", "mcpServers.r: expected an object",
        "got a string");
    BAD("{\"mcpServers\": {\"r\": {\"command\": \"x\", \"autoApprove\": \"all\"}}}",
        "mcpServers.r.autoApprove: expected an array, got a string");
    BAD("{\"mcpServers\": {\"r\": {\"command\": \"x\", \"autoApprove\": [true]}}}",
        "mcpServers.r.autoApprove[0]: expected a string, got a boolean");
    BAD("{\"mcpServers\": [{\"command\": \"x\"}]}", "mcp.json: mcpServers: expected an object, got an array");
    BAD("[1, 2]", "mcp.json: expected a JSON object at the top level", "got an array");
    BAD("{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}", "mcp.json: invalid JSON at line 1",
        "fix the file");

    /* no mcpServers at all (another tool's file): nothing, no error; null likewise */
    mcp_config c;
    REQUIRE(parse_ok(&c, "{\"theme\": \"dark\"}"));
    CHECK_INT(c.n, 0);
    mcp_config_free(&c);
    REQUIRE(parse_ok(&c, "{\"mcpServers\": null}"));
    CHECK_INT(c.n, 0);
    mcp_config_free(&c);

    /* unknown keys are ignored */
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"alwaysAllow\": 3,"
                         " \"description\": {}}}, \"other\": [1]}"));
    CHECK_INT(c.n, 1);
    mcp_config_free(&c);

    /* an error leaves what was there: all or nothing */
    REQUIRE(parse_ok(&c, "{\"mcpServers\": {\"keep\": {\"command\": \"x\"}}}"));
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(parse_as(&c, "{\"mcpServers\": {\"new\": {\"command\": \"y\"}, \"keep\": "
                           "{\"command\": 1}}}", "p.json", true, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "p.json: mcpServers.keep.command: expected a string") != NULL);
    CHECK_INT(c.n, 1);
    CHECK_STR(c.servers[0].argv[0], "x");
    CHECK(mcp_config_find(&c, "new") == NULL);
    mcp_config_free(&c);
}

/* ---- autoApprove and trust ------------------------------------------------------------- */

static void test_auto_approve(void)
{
    const char *text = "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"autoApprove\": "
                       "[\"read_file\", \"list\"]}, \"b\": {\"command\": \"y\", "
                       "\"autoApprove\": []}}}";
    mcp_config c;
    mcp_config_init(&c);
    hew_err err = HEW_ERR_INIT;
    REQUIRE(parse_as(&c, text, "user.json", MCP_TRUST_USER, &err) == HEW_OK);
    const mcp_server_config *a = mcp_config_find(&c, "a");
    CHECK_INT(count(a->auto_approve), 2);
    CHECK_STR(a->auto_approve[0], "read_file");
    CHECK_STR(a->auto_approve[1], "list");
    CHECK(count(mcp_config_find(&c, "b")->auto_approve) == 0);
    CHECK_INT(c.warnings.len, 0);
    mcp_config_free(&c);

    mcp_config_init(&c);
    REQUIRE(parse_as(&c, text, "/w/.hew/mcp.json", MCP_TRUST_PROJECT, &err) == HEW_OK);
    CHECK(mcp_config_find(&c, "a")->auto_approve == NULL);
    const char *w = warnings(&c);
    CHECK(strstr(w, "/w/.hew/mcp.json: mcpServers.a.autoApprove: ignored") != NULL);
    CHECK(strstr(w, "mcpServers.b") == NULL); /* an empty list approves nothing */
    mcp_config_free(&c);
}

/* ---- files and merging -------------------------------------------------------------- */

/* The user's file, then a trusted workspace's (as the session reads them once trusted). */
static hew_code load_both(mcp_config *c, const char *root, hew_err *err)
{
    char *user = NULL, *project = NULL;
    hew_code rc = mcp_config_default_paths(root, &user, &project, err);
    if (rc == HEW_OK && user)
        rc = mcp_config_load_file(c, user, MCP_TRUST_USER, err);
    if (rc == HEW_OK && project)
        rc = mcp_config_load_file(c, project, MCP_TRUST_PROJECT, err);
    free(user);
    free(project);
    return rc;
}

static void test_merge(void)
{
    char *xdg = path_join(tmp, "xdg");
    char *proj = path_join(tmp, "proj");
    char *user_file = path_join(xdg, "hew/mcp.json");
    char *proj_file = path_join(proj, ".hew/mcp.json");
    setenv("XDG_CONFIG_HOME", xdg, 1);

    char *u = NULL, *p = NULL;
    CHECK_INT(mcp_config_default_paths(proj, &u, &p, NULL), HEW_OK);
    CHECK_STR(u, user_file);
    CHECK_STR(p, proj_file);
    free(u);
    free(p);

    /* neither file exists: no servers, no error */
    mcp_config c;
    mcp_config_init(&c);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(load_both(&c, proj, &err), HEW_OK);
    CHECK_INT(c.n, 0);

    put_file(user_file, "{\"mcpServers\": {\"a\": {\"command\": \"ua\"}, \"b\": {\"command\":"
                        " \"ub\", \"autoApprove\": [\"t\"]}, \"c\": {\"command\": \"uc\"}}}");
    put_file(proj_file, "{\"mcpServers\": {\"d\": {\"command\": \"pd\"}, \"b\": {\"command\":"
                        " \"pb\", \"autoApprove\": [\"t\"]}}}");
    CHECK_INT(load_both(&c, proj, &err), HEW_OK);
    REQUIRE(c.n == 4);
    CHECK_STR(c.servers[0].name, "a");
    CHECK_STR(c.servers[1].name, "b");
    CHECK_STR(c.servers[2].name, "c");
    CHECK_STR(c.servers[3].name, "d");
    CHECK_STR(c.servers[1].argv[0], "pb");           /* the later file wins ... */
    CHECK_STR(c.servers[1].source, proj_file);       /* ... and says so ... */
    CHECK(c.servers[1].auto_approve == NULL);        /* ... without its approvals */
    CHECK_STR(c.servers[0].source, user_file);
    CHECK(strstr(warnings(&c), "mcpServers.b.autoApprove: ignored") != NULL);
    mcp_config_free(&c);

    /* without a workspace only the user's file */
    mcp_config_init(&c);
    CHECK_INT(load_both(&c, NULL, &err), HEW_OK);
    CHECK_INT(c.n, 3);
    mcp_config_free(&c);

    /* a relative XDG_CONFIG_HOME is ignored; without HOME either there is no user file */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("XDG_CONFIG_HOME", "relative", 1);
    setenv("HOME", "/home/someone", 1);
    CHECK_INT(mcp_config_default_paths(NULL, &u, &p, NULL), HEW_OK);
    CHECK_STR(u, "/home/someone/.config/hew/mcp.json");
    CHECK(p == NULL);
    free(u);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("HOME");
    CHECK_INT(mcp_config_default_paths("/w", &u, NULL, NULL), HEW_OK);
    CHECK(u == NULL);
    if (home) {
        setenv("HOME", home, 1);
        free(home);
    }

    /* a broken project file: the error names it, the path and the line */
    setenv("XDG_CONFIG_HOME", xdg, 1);
    put_file(proj_file, "{\"mcpServers\": {\"d\": {\"command\": \"pd\"}\n,,}");
    mcp_config_init(&c);
    CHECK_INT(load_both(&c, proj, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, proj_file) != NULL);
    CHECK(strstr(err.msg, "invalid JSON at line 2") != NULL);
    mcp_config_free(&c);
    unsetenv("XDG_CONFIG_HOME");
    free(xdg);
    free(proj);
    free(user_file);
    free(proj_file);
}

static void test_load_file_errors(void)
{
    mcp_config c;
    mcp_config_init(&c);
    hew_err err = HEW_ERR_INIT;
    char *missing = path_join(tmp, "nowhere/mcp.json");
    CHECK_INT(mcp_config_load_file(&c, missing, MCP_TRUST_USER, &err), HEW_OK);
    CHECK_INT(c.n, 0);

    /* a directory where the file should be */
    char *dir = path_join(tmp, "isdir/mcp.json");
    CHECK(fs_mkdirs(dir, 0755, NULL) == HEW_OK);
    CHECK(mcp_config_load_file(&c, dir, MCP_TRUST_USER, &err) != HEW_OK);
    CHECK(strstr(err.msg, dir) != NULL);

    /* a file that cannot be read (root reads anything: then this part proves nothing) */
    char *locked = path_join(tmp, "locked.json");
    put_file(locked, "{\"mcpServers\": {}}");
    CHECK(chmod(locked, 0) == 0);
    if (geteuid() != 0) {
        CHECK_INT(mcp_config_load_file(&c, locked, MCP_TRUST_USER, &err), HEW_E_IO);
        CHECK(strstr(err.msg, locked) != NULL);
        CHECK(strstr(err.msg, "permission denied") != NULL);
    }
    chmod(locked, 0644);

    /* a file past the cap (4 MiB) is refused, not read in part */
    char *huge = path_join(tmp, "huge.json");
    size_t n = (size_t)5 << 20;
    char *text = malloc(n + 1);
    REQUIRE(text != NULL);
    memset(text, ' ', n);
    text[0] = '{';
    text[n - 1] = '}';
    text[n] = '\0';
    put_file(huge, text);
    free(text);
    CHECK_INT(mcp_config_load_file(&c, huge, MCP_TRUST_USER, &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, huge) != NULL);
    free(huge);

    /* a file with a wrong type names the file and the path */
    char *bad = path_join(tmp, "bad.json");
    put_file(bad, "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"a\", 2]}}}");
    CHECK_INT(mcp_config_load_file(&c, bad, MCP_TRUST_USER, &err), HEW_E_INVALID);
    char want[1024];
    snprintf(want, sizeof want, "%s: mcpServers.fs.args[1]: expected a string, got a number", bad);
    CHECK(strstr(err.msg, want) != NULL);
    CHECK_INT(c.n, 0);
    mcp_config_free(&c);
    free(missing);
    free(dir);
    free(locked);
    free(bad);
}

/* Cline's cline_mcp_settings.json and Claude Desktop's claude_desktop_config.json, as
 * those tools write them. */
static void test_other_tools_files(void)
{
    const char *cline =
        "{\n  \"mcpServers\": {\n"
        "    \"github\": {\n"
        "      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"],\n"
        "      \"env\": {\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"ghp_x\"},\n"
        "      \"disabled\": false,\n      \"autoApprove\": [\"search_repositories\"],\n"
        "      \"timeout\": 60,\n      \"type\": \"stdio\"\n    },\n"
        "    \"remote\": {\"url\": \"https://mcp.example.com/sse\", \"transportType\": \"sse\","
        " \"disabled\": true, \"autoApprove\": []}\n  }\n}\n";
    mcp_config c;
    REQUIRE(parse_ok(&c, cline));
    REQUIRE(c.n == 2);
    const mcp_server_config *gh = &c.servers[0];
    CHECK_STR(gh->name, "github");
    CHECK_INT(gh->kind, MCP_STDIO);
    CHECK_STR(gh->env[0], "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_x");
    CHECK_STR(gh->auto_approve[0], "search_repositories");
    const mcp_server_config *remote = &c.servers[1];
    CHECK_INT(remote->kind, MCP_SSE);
    CHECK(remote->disabled);
    mcp_config_free(&c);

    /* Cline names marketplace servers by their repository: not a name hew allows, so the
     * message offers the one `hew mcp import` would use */
    BAD("{\"mcpServers\": {\"github.com/modelcontextprotocol/servers/tree/main/src/github\":"
        " {\"command\": \"npx\"}}}",
        "e.g. \"github.com-modelcontextprotocol-servers-tree-main-src-github\"");

    const char *claude =
        "{\n  \"globalShortcut\": \"Ctrl+Space\",\n  \"mcpServers\": {\n"
        "    \"filesystem\": {\n      \"command\": \"npx\",\n"
        "      \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/Users/me/Desktop\"]\n"
        "    },\n    \"weather\": {\"command\": \"uv\", \"args\": [\"--directory\", \"/w\", \"run\","
        " \"weather.py\"], \"env\": {\"API_KEY\": \"k\"}}\n  }\n}\n";
    REQUIRE(parse_ok(&c, claude));
    CHECK_INT(c.n, 2);
    CHECK_STR(mcp_config_find(&c, "weather")->argv[4], "weather.py");
    mcp_config_free(&c);
}

static void test_name_fix(void)
{
    char out[MCP_CONFIG_NAME_MAX + 1];
    mcp_config_name_fix("ok.name-1_", out, sizeof out);
    CHECK_STR(out, "ok.name-1_");
    mcp_config_name_fix("github.com/owner/repo", out, sizeof out);
    CHECK_STR(out, "github.com-owner-repo");
    mcp_config_name_fix("a  /  b", out, sizeof out);
    CHECK_STR(out, "a-b");
    mcp_config_name_fix("", out, sizeof out);
    CHECK_STR(out, "server");
    char long_name[200];
    memset(long_name, 'x', 150);
    long_name[150] = '\0';
    mcp_config_name_fix(long_name, out, sizeof out);
    CHECK_INT(strlen(out), MCP_CONFIG_NAME_MAX);
    CHECK(mcp_config_name_ok(out));
    CHECK(!mcp_config_name_ok(long_name));
    CHECK(!mcp_config_name_ok(""));
    CHECK(mcp_config_name_ok("a"));
}

/* ---- editing files ---------------------------------------------------------------------- */

/* A file as jansson writes it (indent 2), with keys of other tools, odd numbers and
 * non-ASCII text that must come back exactly. */
static const char EDIT_BEFORE[] =
    "{\n"
    "  \"globalShortcut\": \"Ctrl+Space\",\n"
    "  \"mcpServers\": {\n"
    "    \"a\": {\n"
    "      \"command\": \"npx\",\n"
    "      \"args\": [\n"
    "        \"-y\",\n"
    "        \"pkg\"\n"
    "      ],\n"
    "      \"env\": {\n"
    "        \"TOKEN\": \"${env:GH}\"\n"
    "      },\n"
    "      \"x-other-tool\": [\n"
    "        1,\n"
    "        0.7,\n"
    "        {}\n"
    "      ]\n"
    "    },\n"
    "    \"b\": {\n"
    "      \"url\": \"https://h/mcp\",\n"
    "      \"alwaysAllow\": [],\n"
    "      \"note\": \"caf\xC3\xA9 \xE2\x80\x94 /path\"\n"
    "    }\n"
    "  },\n"
    "  \"temperature\": 0.1,\n"
    "  \"z\": null\n"
    "}\n";

static const char B_BLOCK[] =
    "    \"b\": {\n"
    "      \"url\": \"https://h/mcp\",\n"
    "      \"alwaysAllow\": [],\n"
    "      \"note\": \"caf\xC3\xA9 \xE2\x80\x94 /path\"\n"
    "    }";

static void expect_file(const char *path, const char *want, int line)
{
    char *got = slurp(path);
    if (!got || strcmp(got, want) != 0)
        check_fail(__FILE__, line, "%s is\n%s\nwanted\n%s", path, got ? got : "(unreadable)",
                   want);
    else
        check_count++;
    free(got);
}

static void test_put_remove(void)
{
    char *path = path_join(tmp, "edit/mcp.json");
    put_file(path, EDIT_BEFORE);
    hew_err err = HEW_ERR_INIT;

    /* a new server comes last; everything else is byte for byte as it was */
    CHECK_INT(mcp_config_file_put(path, "c", "{\"command\": \"srv\", \"env\": {\"K\": "
                                  "\"${env:SECRET}\"}, \"timeout\": 5}", &err), HEW_OK);
    char want[4096];
    snprintf(want, sizeof want, "%.*s,\n"
             "    \"c\": {\n"
             "      \"command\": \"srv\",\n"
             "      \"env\": {\n"
             "        \"K\": \"${env:SECRET}\"\n"
             "      },\n"
             "      \"timeout\": 5\n"
             "    }\n%s",
             (int)(strstr(EDIT_BEFORE, B_BLOCK) + strlen(B_BLOCK) - EDIT_BEFORE), EDIT_BEFORE,
             strstr(EDIT_BEFORE, B_BLOCK) + strlen(B_BLOCK) + 1);
    expect_file(path, want, __LINE__);

    /* the file reads back with the new server; ${env:} was kept as a reference */
    mcp_config c;
    mcp_config_init(&c);
    unsetenv("SECRET");
    CHECK_INT(mcp_config_load_file(&c, path, MCP_TRUST_USER, &err), HEW_OK);
    CHECK_INT(c.n, 3);
    CHECK_INT(mcp_config_find(&c, "c")->timeout_s, 5);
    mcp_config_free(&c);

    /* replacing a server keeps its place */
    CHECK_INT(mcp_config_file_put(path, "a", "{\"url\": \"https://new/mcp\"}", &err), HEW_OK);
    char *got = slurp(path);
    REQUIRE(got != NULL);
    const char *pa = strstr(got, "\"a\": {\n      \"url\": \"https://new/mcp\"\n    },\n    \"b\"");
    CHECK(pa != NULL);
    CHECK(strstr(got, "npx") == NULL);
    CHECK(strstr(got, B_BLOCK) != NULL);
    CHECK(strncmp(got, "{\n  \"globalShortcut\": \"Ctrl+Space\",\n  \"mcpServers\": {\n    \"a\"", 60) == 0);
    CHECK(strstr(got, "  \"temperature\": 0.1,\n  \"z\": null\n}\n") != NULL);
    free(got);

    /* remove: the others stay as they were */
    CHECK_INT(mcp_config_file_remove(path, "a", &err), HEW_OK);
    CHECK_INT(mcp_config_file_remove(path, "c", &err), HEW_OK);
    snprintf(want, sizeof want, "%.*s%s",
             (int)(strstr(EDIT_BEFORE, "    \"a\"") - EDIT_BEFORE), EDIT_BEFORE,
             strstr(EDIT_BEFORE, B_BLOCK));
    expect_file(path, want, __LINE__);

    /* removing an absent server: HEW_E_NOTFOUND, the file untouched */
    CHECK_INT(mcp_config_file_remove(path, "a", &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "no MCP server \"a\" in ") != NULL);
    CHECK(strstr(err.msg, path) != NULL);
    expect_file(path, want, __LINE__);

    /* an invalid definition or name is refused and the file is untouched */
    CHECK_INT(mcp_config_file_put(path, "d", "{\"command\": \"x\", \"args\": [1]}", &err),
              HEW_E_INVALID);
    CHECK(strstr(err.msg, "cannot add MCP server d to ") != NULL);
    CHECK(strstr(err.msg, "mcpServers.d.args[0]: expected a string, got a number") != NULL);
    CHECK_INT(mcp_config_file_put(path, "d", "{\"command\": ", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "invalid JSON") != NULL);
    CHECK_INT(mcp_config_file_put(path, "d", "[\"npx\"]", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "mcpServers.d: expected an object") != NULL);
    CHECK_INT(mcp_config_file_put(path, "d", "{\"args\": []}", &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "neither \"command\" nor \"url\"") != NULL);
    CHECK_INT(mcp_config_file_put(path, "bad name", "{\"command\": \"x\"}", &err),
              HEW_E_INVALID);
    CHECK(strstr(err.msg, "\"bad name\" is not allowed") != NULL);
    expect_file(path, want, __LINE__);
    free(path);
}

static void test_put_new_and_broken_files(void)
{
    hew_err err = HEW_ERR_INIT;
    /* a missing file (and folder) is created, private to its owner */
    char *path = path_join(tmp, "fresh/deeper/mcp.json");
    CHECK_INT(mcp_config_file_put(path, "x", "{\"command\": \"x\"}", &err), HEW_OK);
    expect_file(path, "{\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"x\"\n    }\n  }\n}\n",
                __LINE__);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK_INT(mcp_config_file_remove(path, "x", &err), HEW_OK);
    expect_file(path, "{\n  \"mcpServers\": {}\n}\n", __LINE__);
    free(path);

    /* removing from a file that does not exist */
    path = path_join(tmp, "absent/mcp.json");
    CHECK_INT(mcp_config_file_remove(path, "x", &err), HEW_E_NOTFOUND);
    CHECK(strstr(err.msg, "does not exist") != NULL);
    CHECK(!fs_exists(path));
    free(path);

    /* a file without mcpServers gets one; one with another shape is refused */
    path = path_join(tmp, "other.json");
    put_file(path, "{\"theme\": \"dark\"}");
    CHECK_INT(mcp_config_file_remove(path, "x", &err), HEW_E_NOTFOUND);
    CHECK_INT(mcp_config_file_put(path, "x", "{\"url\": \"http://h\"}", &err), HEW_OK);
    expect_file(path, "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"x\": {\n"
                "      \"url\": \"http://h\"\n    }\n  }\n}\n", __LINE__);
    const char *broken[] = { "{\"mcpServers\": {", "[]", "{\"mcpServers\": [1]}" };
    const char *why[] = { "invalid JSON", "expected a JSON object at the top level",
                          "mcpServers: expected an object, got an array" };
    for (size_t i = 0; i < 3; i++) {
        put_file(path, broken[i]);
        CHECK_INT(mcp_config_file_put(path, "x", "{\"command\": \"x\"}", &err), HEW_E_INVALID);
        CHECK(strstr(err.msg, why[i]) != NULL);
        CHECK(strstr(err.msg, "fix the file by hand first") != NULL);
        CHECK(strstr(err.msg, path) != NULL);
        CHECK_INT(mcp_config_file_remove(path, "x", &err), HEW_E_INVALID);
        expect_file(path, broken[i], __LINE__);
    }
    free(path);

    /* a symlinked settings file (dotfiles) is written through, the link kept */
    char *real = path_join(tmp, "dotfiles-mcp.json");
    char *link = path_join(tmp, "linked.json");
    put_file(real, "{\"mcpServers\": {}}");
    CHECK(symlink(real, link) == 0);
    CHECK_INT(mcp_config_file_put(link, "y", "{\"command\": \"y\"}", &err), HEW_OK);
    struct stat lst;
    CHECK(lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode));
    char *text = slurp(real);
    CHECK(text && strstr(text, "\"y\"") != NULL);
    free(text);
    free(real);
    free(link);
}

/* ---- mcp_server_config_same -------------------------------------------------------------- */

static bool same_of(const char *a_json, bool a_trusted, const char *b_json, bool b_trusted)
{
    mcp_config a, b;
    mcp_config_init(&a);
    mcp_config_init(&b);
    bool ok = parse_as(&a, a_json, "one.json", a_trusted, NULL) == HEW_OK &&
              parse_as(&b, b_json, "two.json", b_trusted, NULL) == HEW_OK && a.n == 1 && b.n == 1;
    CHECK(ok);
    bool same = ok && mcp_server_config_same(&a.servers[0], &b.servers[0]);
    mcp_config_free(&a);
    mcp_config_free(&b);
    return same;
}

#define S(x) "{\"mcpServers\": {\"s\": " x "}}"

static void test_same(void)
{
    const char *base = S("{\"command\": \"x\", \"args\": [\"a\"], \"env\": {\"K\": \"v\"}}");
    CHECK(same_of(base, true, base, true));
    /* source and autoApprove do not count; an empty env is no env */
    CHECK(same_of(base, true, S("{\"command\": \"x\", \"args\": [\"a\"], \"env\": {\"K\": \"v\"},"
                                " \"autoApprove\": [\"t\"]}"), false));
    CHECK(same_of(S("{\"command\": \"x\"}"), true, S("{\"command\": \"x\", \"env\": {},"
                                                     " \"args\": []}"), true));
    CHECK(same_of(S("{\"command\": \"x\", \"type\": \"stdio\"}"), true, S("{\"command\": \"x\"}"), true));
    /* everything else does */
    CHECK(!same_of(base, true, S("{\"command\": \"y\", \"args\": [\"a\"], \"env\": {\"K\": \"v\"}}"), true));
    CHECK(!same_of(base, true, S("{\"command\": \"x\", \"args\": [\"b\"], \"env\": {\"K\": \"v\"}}"), true));
    CHECK(!same_of(base, true, S("{\"command\": \"x\", \"args\": [\"a\", \"b\"], \"env\": {\"K\": \"v\"}}"), true));
    CHECK(!same_of(base, true, S("{\"command\": \"x\", \"args\": [\"a\"], \"env\": {\"K\": \"w\"}}"), true));
    CHECK(!same_of(base, true, S("{\"command\": \"x\", \"args\": [\"a\"]}"), true));
    CHECK(!same_of(base, true, S("{\"command\": \"x\", \"args\": [\"a\"], \"env\": {\"K\": \"v\"}, \"cwd\": \"/\"}"), true));
    CHECK(!same_of(base, true, S("{\"command\": \"x\", \"args\": [\"a\"], \"env\": {\"K\": \"v\"}, \"disabled\": true}"), true));
    CHECK(!same_of(base, true, S("{\"command\": \"x\", \"args\": [\"a\"], \"env\": {\"K\": \"v\"}, \"timeout\": 61}"), true));
    const char *remote = S("{\"url\": \"https://h\", \"headers\": {\"A\": \"b\"}}");
    CHECK(same_of(remote, true, remote, true));
    CHECK(!same_of(remote, true, S("{\"url\": \"https://h2\", \"headers\": {\"A\": \"b\"}}"), true));
    CHECK(!same_of(remote, true, S("{\"url\": \"https://h\", \"headers\": {\"A\": \"c\"}}"), true));
    CHECK(!same_of(remote, true, S("{\"url\": \"https://h\", \"headers\": {\"A\": \"b\"}, \"type\": \"sse\"}"), true));
    /* a server of another name is not the same server */
    CHECK(!same_of(base, true, "{\"mcpServers\": {\"t\": {\"command\": \"x\", \"args\": [\"a\"],"
                               " \"env\": {\"K\": \"v\"}}}}", true));
    CHECK(mcp_server_config_same(NULL, NULL));
}

int main(void)
{
    tmp = tmpdir_make("mcp-config");
    if (!tmp) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    RUN(test_stdio_fields);
    RUN(test_kinds);
    RUN(test_env_expansion);
    RUN(test_env_untrusted);
    RUN(test_timeout);
    RUN(test_names);
    RUN(test_name_fix);
    RUN(test_disabled);
    RUN(test_wrong_types);
    RUN(test_auto_approve);
    RUN(test_merge);
    RUN(test_load_file_errors);
    RUN(test_other_tools_files);
    RUN(test_put_remove);
    RUN(test_put_new_and_broken_files);
    RUN(test_same);
    tmpdir_remove(tmp);
    free(tmp);
    return check_report();
}
