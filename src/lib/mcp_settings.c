/* mcp_settings — the "MCP settings" part of include/hew.h: where the settings files are,
 * adding, replacing and removing one server in place, and reading another tool's file
 * for `hew mcp import`. Built on mcp/config (the rules and the atomic in-place edits).
 * Never prints or exits: errors are messages a user can act on. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/wsroot.h"
#include "hew.h"
#include "lib/lib_store.h"
#include "mcp/config.h"

#define SETTINGS_MAX_BYTES ((size_t)4 << 20)

hew_code hew_mcp_settings_path(const char *cwd, int project, char **out, char *err,
                               size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    char here[PATH_MAX];
    if (project && !cwd)
        cwd = getcwd(here, sizeof here);
    if (project && !cwd)
        return lib_fail(HEW_E_IO, err, errlen, "the current directory cannot be read");
    /* The workspace's file is the root's (base/wsroot.h), where the session reads it. */
    hew_err e = HEW_ERR_INIT;
    char *root = project ? wsroot_find(cwd, geteuid(), &e) : NULL;
    if (project && !root) {
        lib_set_err(err, errlen, e.msg[0] ? e.msg : "the workspace folder cannot be found");
        return e.code != HEW_OK ? e.code : HEW_E_NOTFOUND;
    }
    char *user = NULL, *proj = NULL;
    hew_code rc = mcp_config_default_paths(root, project ? NULL : &user, project ? &proj : NULL,
                                           &e);
    free(root);
    if (rc != HEW_OK) {
        lib_set_err(err, errlen, e.msg[0] ? e.msg : "no HOME nor XDG_CONFIG_HOME to find the "
                                                    "settings file: set one");
        return rc;
    }
    *out = project ? proj : user;
    return HEW_OK;
}

/* The settings document at path, or NULL (missing, unreadable, not JSON). */
static json_t *load_doc(const char *path, hew_err *err)
{
    char *text = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    if (fs_read_file(path, SETTINGS_MAX_BYTES, &text, &len, err) == HEW_OK)
        json_parse(text, len, path, &doc, err);
    free(text);
    return doc;
}

/* True when the file at path already names server name (a peek: any problem is "no"). */
static bool has_server(const char *path, const char *name)
{
    json_t *doc = load_doc(path, NULL);
    bool found = json_object_get(json_object_get(doc, "mcpServers"), name) != NULL;
    json_decref(doc);
    return found;
}

hew_code hew_mcp_settings_put(const char *path, const char *name, const char *def_json,
                              int *replaced, char *err, size_t errlen)
{
    if (!path || !name || !def_json)
        return lib_fail(HEW_E_INVALID, err, errlen,
                        "no settings file, server name or definition given");
    bool replacing = has_server(path, name);
    hew_err e = HEW_ERR_INIT;
    hew_code rc = mcp_config_file_put(path, name, def_json, &e);
    if (rc != HEW_OK) {
        lib_set_err(err, errlen, e.msg);
        return rc;
    }
    if (replaced)
        *replaced = replacing;
    return HEW_OK;
}

hew_code hew_mcp_settings_remove(const char *path, const char *name, char *err,
                                 size_t errlen)
{
    if (!path || !name)
        return lib_fail(HEW_E_INVALID, err, errlen, "no settings file or server name given");
    hew_err e = HEW_ERR_INIT;
    hew_code rc = mcp_config_file_remove(path, name, &e);
    if (rc != HEW_OK)
        lib_set_err(err, errlen, e.msg);
    return rc;
}

/* The entry of the import list for one server: {"name", "server", ["renamed_from"]}. */
static json_t *import_entry(const char *name, json_t *def)
{
    char fixed[MCP_CONFIG_NAME_MAX + 1];
    mcp_config_name_fix(name, fixed, sizeof fixed);
    json_t *entry = json_pack("{s:s, s:O}", "name", fixed, "server", def);
    if (entry && strcmp(fixed, name) != 0 &&
        json_object_set_new(entry, "renamed_from", json_string(name)) != 0) {
        json_decref(entry);
        entry = NULL;
    }
    return entry;
}

/* The import list of doc's servers, and a copy of them under their new names (checked()
 * reads that one with the rules). */
static hew_code import_list(const char *path, json_t *doc, json_t *list, json_t *renamed,
                            hew_err *err)
{
    if (!json_is_object(doc))
        return hew_err_set(err, HEW_E_INVALID, "%s: expected a JSON object at the top level, "
                           "like {\"mcpServers\": {...}}, got %s", path, json_type_phrase(doc));
    json_t *servers = json_object_get(doc, "mcpServers");
    if (servers && !json_is_null(servers) && !json_is_object(servers))
        return hew_err_set(err, HEW_E_INVALID, "%s: mcpServers: expected an object, got %s",
                           path, json_type_phrase(servers));
    const char *name;
    json_t *def;
    json_object_foreach(servers, name, def) {
        json_t *entry = import_entry(name, def);
        if (!entry)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory reading %s", path);
        const char *as = json_string_value(json_object_get(entry, "name"));
        if (json_object_get(renamed, as)) {
            hew_err_set(err, HEW_E_INVALID, "%s: two servers would both be called \"%s\" in "
                        "hew (server names are letters, digits, '_', '.' and '-') — rename "
                        "one of them in the file first", path, as);
            json_decref(entry);
            return HEW_E_INVALID;
        }
        if (json_object_set(renamed, as, def) != 0 || json_array_append_new(list, entry) != 0)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory reading %s", path);
    }
    return HEW_OK;
}

/* Check the servers (under the names hew gives them) with the rules of the settings. */
static hew_code check_servers(const char *path, json_t *renamed, hew_err *err)
{
    json_t *doc = json_pack("{s:O}", "mcpServers", renamed);
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (!text)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory reading %s", path);
    mcp_config c;
    mcp_config_init(&c);
    hew_code rc = mcp_config_parse(&c, text, strlen(text), path, MCP_TRUST_USER, err);
    mcp_config_free(&c);
    free(text);
    return rc;
}

hew_code hew_mcp_settings_servers(const char *path, char **res, char *err, size_t errlen)
{
    if (!res)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *res = NULL;
    if (!path)
        return lib_fail(HEW_E_INVALID, err, errlen, "no settings file given");
    hew_err e = HEW_ERR_INIT;
    json_t *doc = load_doc(path, &e);
    json_t *list = json_array(), *renamed = json_object();
    hew_code rc = doc ? HEW_OK : e.code;
    if (rc == HEW_OK && (!list || !renamed))
        rc = hew_err_set(&e, HEW_E_NOMEM, "out of memory reading %s", path);
    if (rc == HEW_OK)
        rc = import_list(path, doc, list, renamed, &e);
    if (rc == HEW_OK)
        rc = check_servers(path, renamed, &e);
    char *out = rc == HEW_OK ? json_dumps(list, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (rc == HEW_OK && !out)
        rc = hew_err_set(&e, HEW_E_NOMEM, "out of memory reading %s", path);
    if (!out)
        lib_set_err(err, errlen, e.msg);
    json_decref(doc);
    json_decref(list);
    json_decref(renamed);
    *res = out;
    return rc;
}
