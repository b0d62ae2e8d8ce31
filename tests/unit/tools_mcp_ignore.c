/* Unit tests of .clineignore for MCP (tools/mcp_common: mcp_args_blocked) and of what
 * counts as a server that reads files (mcp/hub: mcp_schema_names_files): ignored paths
 * found at any depth of the arguments — relative, absolute inside the workspace, file://
 * URIs (percent-encoded too), through a symlink or a hard link — refused with clineignore_error; allowed
 * files, paths outside the workspace, other URLs and ordinary text let through; path-like
 * property names recognised, others (profile, name, query) not. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "check.h"
#include "mcp/hub.h"
#include "tmpdir.h"
#include "toolenv.h"
#include "tools/mcp_common.h"

static char *ws;

static void put(const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ws, rel);
    hew_err err = HEW_ERR_INIT;
    REQUIRE(fs_write_atomic(path, text, strlen(text), 0600, &err) == HEW_OK);
}

/* Is the call with these arguments (JSON text) refused? Checks the refusal's shape. */
static bool blocked(const char *args_json, int line)
{
    toolenv te;
    toolenv_init(&te, ws);
    json_t *args = json_loads(args_json, JSON_DECODE_ANY, NULL);
    check_count++;
    if (!args) {
        check_fail(__FILE__, line, "bad JSON in the test: %s", args_json);
        toolenv_release(&te);
        return false;
    }
    tool_result out = { BUF_INIT(1 << 20), false, false, NULL };
    bool b = mcp_args_blocked(&te.env, args, &out);
    if (b && (!out.is_error || !out.text.data ||
              !strstr(out.text.data, "blocked by the .clineignore") ||
              toolenv_count(&te, "say", "clineignore_error") != 1))
        check_fail(__FILE__, line, "refused without the clineignore error: %s",
                   out.text.data ? out.text.data : "(none)");
    if (!b && (out.text.len || toolenv_count(&te, NULL, NULL) != 0))
        check_fail(__FILE__, line, "let through but said something: %s", args_json);
    buf_release(&out.text);
    json_decref(args);
    toolenv_release(&te);
    return b;
}
#define BLOCKED(j) CHECK(blocked(j, __LINE__))
#define ALLOWED(j) CHECK(!blocked(j, __LINE__))

static void test_args(void)
{
    char j[8192];
    BLOCKED("{\"path\": \"secret.txt\"}");
    BLOCKED("{\"path\": \"./sub/../secret.txt\"}");
    snprintf(j, sizeof j, "{\"path\": \"%s/secret.txt\"}", ws);
    BLOCKED(j);
    BLOCKED("{\"paths\": [\"open.txt\", \"private/key.pem\"]}");
    BLOCKED("{\"a\": {\"b\": [1, {\"c\": [\"x\", \".env\"]}]}}");
    snprintf(j, sizeof j, "{\"uri\": \"file://%s/secret.txt\"}", ws);
    BLOCKED(j);
    snprintf(j, sizeof j, "{\"uri\": \"file://localhost%s/secre%%74.txt\"}", ws);
    BLOCKED(j);
    BLOCKED("{\"dir\": \"private\"}");
    BLOCKED("{\"path\": \"link-to-secret\"}"); /* a symlink to an ignored file */
    BLOCKED("\".env\"");                       /* a bare string (a resource URI) */
    BLOCKED("{\"path\": \"notes.txt\"}");      /* a hard link of secret.txt */
    ALLOWED("{\"path\": \"open-too.txt\"}");   /* a hard link of an open file */

    ALLOWED("{\"path\": \"open.txt\"}");
    ALLOWED("{\"paths\": [\"open.txt\", \"sub/other.txt\"], \"n\": 3, \"ok\": true}");
    ALLOWED("{\"path\": \"/etc/hostname\"}");              /* outside: not ignored */
    ALLOWED("{\"url\": \"https://example.com/secret.txt\"}"); /* another scheme */
    ALLOWED("{\"text\": \"the secret.txt file is ignored\"}"); /* a sentence */
    ALLOWED("{\"content\": \"line 1\\nsecret.txt\"}");      /* a line break: no path */
    ALLOWED("{}");
    ALLOWED("[]");
}

static void test_schema(void)
{
    static const char *const yes[] = {
        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}",
        "{\"properties\":{\"paths\":{\"type\":\"array\"}}}",
        "{\"properties\":{\"filePath\":{}}}",
        "{\"properties\":{\"source_dir\":{}}}",
        "{\"properties\":{\"URI\":{}}}",
        "{\"properties\":{\"edits\":{\"type\":\"array\",\"items\":{\"properties\":"
        "{\"file\":{}}}}}}",
        "{\"properties\":{\"opts\":{\"properties\":{\"directory\":{}}}}}",
        NULL,
    };
    static const char *const no[] = {
        "{\"properties\":{\"a\":{},\"b\":{}}}",
        "{\"properties\":{\"profile\":{},\"name\":{},\"query\":{}}}",
        "{\"type\":\"object\"}",
        "\"path\"",
        NULL,
    };
    for (size_t i = 0; yes[i]; i++) {
        json_t *s = json_loads(yes[i], JSON_DECODE_ANY, NULL);
        check_count++;
        if (!mcp_schema_names_files(s))
            check_fail(__FILE__, __LINE__, "should name files: %s", yes[i]);
        json_decref(s);
    }
    for (size_t i = 0; no[i]; i++) {
        json_t *s = json_loads(no[i], JSON_DECODE_ANY, NULL);
        check_count++;
        if (mcp_schema_names_files(s))
            check_fail(__FILE__, __LINE__, "should not name files: %s", no[i]);
        json_decref(s);
    }
    CHECK(!mcp_schema_names_files(NULL));
}

int main(void)
{
    ws = tmpdir_make("mcpignore");
    if (!ws) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    hew_err err = HEW_ERR_INIT;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/private", ws);
    if (fs_mkdirs(dir, 0700, &err) != HEW_OK)
        return 1;
    snprintf(dir, sizeof dir, "%s/sub", ws);
    if (fs_mkdirs(dir, 0700, &err) != HEW_OK)
        return 1;
    put(".clineignore", "secret.txt\nprivate/\n.env\n");
    put("secret.txt", "s");
    put("private/key.pem", "k");
    put(".env", "E=1");
    put("open.txt", "o");
    put("sub/other.txt", "x");
    char target[4200], lnk[4200];
    snprintf(target, sizeof target, "%s/secret.txt", ws);
    snprintf(lnk, sizeof lnk, "%s/link-to-secret", ws);
    if (symlink(target, lnk) != 0)
        return 1;
    /* hard links: another name of an ignored file, and another name of an open one */
    snprintf(lnk, sizeof lnk, "%s/notes.txt", ws);
    if (link(target, lnk) != 0)
        return 1;
    snprintf(target, sizeof target, "%s/open.txt", ws);
    snprintf(lnk, sizeof lnk, "%s/open-too.txt", ws);
    if (link(target, lnk) != 0)
        return 1;
    RUN(test_args);
    RUN(test_schema);
    tmpdir_remove(ws);
    free(ws);
    return check_report();
}
