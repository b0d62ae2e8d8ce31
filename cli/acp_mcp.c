/* acp_mcp — the MCP servers an ACP client hands to session/new and session/load, connected
 * the way hew connects its own: they are written, beside the servers of the user's own
 * settings file, into a private settings file (0600, in the temp folder) that the
 * session reads instead (hew_options.mcp_settings), so hew starts, reconnects and
 * approves them like any other (man hew, MCP SERVERS). The workspace's .hew/mcp.json is
 * read as always, when trusted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acp.h"
#include "sbuf.h"

/* An ACP [{name, value}] list as a JSON object (a new reference); NULL when it is not
 * such a list. */
static json_t *pairs_object(json_t *list)
{
    json_t *o = json_object();
    size_t i;
    json_t *e;
    if (list && !json_is_array(list)) {
        json_decref(o);
        return NULL;
    }
    json_array_foreach(list, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *value = json_object_get(e, "value");
        if (!name || !json_is_string(value)) {
            json_decref(o);
            return NULL;
        }
        json_object_set(o, name, value);
    }
    return o;
}

/* The hew settings entry of one ACP McpServer (a new object), or NULL with why in err. */
static json_t *server_def(json_t *srv, char *err, size_t errlen)
{
    const char *type = json_string_value(json_object_get(srv, "type"));
    if (type && (strcmp(type, "http") == 0 || strcmp(type, "sse") == 0)) {
        const char *url = json_string_value(json_object_get(srv, "url"));
        json_t *headers = pairs_object(json_object_get(srv, "headers"));
        if (!url || !headers) {
            json_decref(headers);
            snprintf(err, errlen, "an %s server needs \"url\" and \"headers\": [{name, value}]",
                     type);
            return NULL;
        }
        return json_pack("{s:s, s:s, s:o}", "type", type, "url", url, "headers", headers);
    }
    if (type && strcmp(type, "stdio") != 0) {
        snprintf(err, errlen, "hew cannot connect an MCP server of type \"%s\": it takes "
                              "stdio, http and sse servers", type);
        return NULL;
    }
    const char *command = json_string_value(json_object_get(srv, "command"));
    json_t *args = json_object_get(srv, "args");
    json_t *env = pairs_object(json_object_get(srv, "env"));
    if (!command || (args && !json_is_array(args)) || !env) {
        json_decref(env);
        snprintf(err, errlen, "a stdio server needs \"command\", \"args\": [strings] and "
                              "\"env\": [{name, value}]");
        return NULL;
    }
    return json_pack("{s:s, s:o, s:o}", "command", command, "args",
                     args ? json_incref(args) : json_array(), "env", env);
}

int acp_mcp_settings(json_t *servers, const char *user_file, char **out, char *err,
                     size_t errlen)
{
    *out = NULL;
    if (!json_array_size(servers))
        return 0;
    const char *tmp = getenv("TMPDIR");
    sbuf path = SBUF_INIT;
    sbuf_printf(&path, "%s/hew-acp-mcp-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (path.err) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int fd = mkstemp(path.data); /* 0600 */
    if (fd < 0) {
        snprintf(err, errlen, "cannot make a settings file for the client's MCP servers in %s: %s",
                 tmp && *tmp ? tmp : "/tmp", strerror(errno));
        sbuf_release(&path);
        return -1;
    }
    /* the user's own servers first, as written */
    char *text = user_file && access(user_file, R_OK) == 0 ? cli_read_file(user_file) : NULL;
    const char *body = text ? text : "{\"mcpServers\": {}}\n";
    size_t len = strlen(body);
    int ok = write(fd, body, len) == (ssize_t)len;
    ok = close(fd) == 0 && ok;
    free(text);
    size_t i;
    json_t *srv;
    json_array_foreach(servers, i, srv) {
        if (!ok)
            break;
        const char *name = json_string_value(json_object_get(srv, "name"));
        char why[512] = "";
        json_t *def = name ? server_def(srv, why, sizeof why) : NULL;
        char *def_json = def ? json_dumps(def, JSON_COMPACT) : NULL;
        json_decref(def);
        if (!name)
            snprintf(why, sizeof why, "every server needs a \"name\"");
        if (!def_json || hew_mcp_settings_put(path.data, name, def_json, NULL, why, sizeof why) != HEW_OK) {
            snprintf(err, errlen, "mcpServers[%zu]%s%s%s: %s", i, name ? " (" : "",
                     name ? name : "", name ? ")" : "", *why ? why : "out of memory");
            free(def_json);
            (void)unlink(path.data);
            sbuf_release(&path);
            return -1;
        }
        free(def_json);
    }
    if (!ok) {
        snprintf(err, errlen, "cannot write the settings file %s: %s", path.data, strerror(errno));
        (void)unlink(path.data);
        sbuf_release(&path);
        return -1;
    }
    *out = sbuf_detach(&path);
    return 0;
}
