/* mcp_cmd — `hew mcp add|remove|import` and the dispatch of `hew mcp ...`: editing the
 * MCP settings files (the user's ~/.config/hew/mcp.json, a workspace's .hew/mcp.json)
 * through the "MCP settings" part of include/hew.h, printing what was written where.
 * Usage errors exit 2, failures 1, each with what to do. `hew mcp list` lives in
 * mcp_list.c. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char MCP_USAGE[] =
    "usage: hew mcp add NAME [--project] [--env K=V]... [--timeout S] [--auto-approve TOOL]...\n"
    "                   -- COMMAND [ARGS...]          a server hew starts (stdio)\n"
    "       hew mcp add NAME [--project] --url URL [--header 'K: V']... [--type http|sse]\n"
    "                   [--timeout S] [--auto-approve TOOL]...   a server to connect to\n"
    "       hew mcp remove NAME [--project]\n"
    "       hew mcp import FILE      copy every server of FILE (Cline's\n"
    "                                cline_mcp_settings.json, Claude Desktop's config) into\n"
    "                                your file, replacing servers of the same name\n"
    "       hew mcp list [--json] [--cwd DIR] [--timeout S]\n                                connect to the servers and show their state and tools\n"
    "\n"
    "Servers are kept in $XDG_CONFIG_HOME/hew/mcp.json (~/.config/hew/mcp.json), or with\n"
    "--project in .hew/mcp.json at the workspace root (its --auto-approve lists are\n"
    "ignored: a repository cannot approve its own tools; hew uses the file only while you\n"
    "trust it: see hew trust). Write secrets as '${env:VAR}' (in single quotes): hew puts\n"
    "the variable's value in when it starts the server.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hew mcp: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(hew mcp --help shows the usage)\n", stderr);
    va_end(ap);
    return 2;
}

static int wants_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/* The file to edit: the user's, or the current directory's .hew/mcp.json. NULL after
 * printing why. */
static char *settings_path(int project)
{
    char *path = NULL;
    if (hew_mcp_settings_path(NULL, project, &path, NULL, 0) != HEW_OK)
        fprintf(stderr, "hew: cannot tell where the MCP settings go: %s\n",
                project ? "the current directory cannot be read" :
                          "set HOME (or XDG_CONFIG_HOME)");
    return path;
}

/* ---- the workspace's trust ------------------------------------------------------------- */

/* Before an edit of the workspace's .hew/mcp.json: 1 when it was trusted as it is (or
 * there was none), so the user's own edit may keep it trusted. */
static int project_trusted_before(void)
{
    char *rep = NULL;
    (void)hew_trust_check(NULL, NULL, &rep, NULL, 0);
    json_t *r = rep ? json_loads(rep, 0, NULL) : NULL;
    const char *state = json_string_value(json_object_get(r, "state"));
    int ok = state && (strcmp(state, "none") == 0 || strcmp(state, "trusted") == 0);
    json_decref(r);
    hew_free(rep);
    return ok;
}

/* After it: the new content is trusted when the old one was (the user wrote it); an
 * untrusted file stays untrusted — `hew mcp add` never vouches for a repository's
 * servers. */
static void project_trust_after(int was_trusted)
{
    if (!was_trusted) {
        printf("note: this workspace's .hew/mcp.json is not trusted, so hew starts none of "
               "its servers — check what it runs (hew trust --show), then run hew trust\n");
        return;
    }
    char err[1024] = "";
    char *rep = NULL;
    (void)hew_trust_check(NULL, NULL, &rep, err, sizeof err);
    if (rep && hew_trust_grant(NULL, rep, err, sizeof err) == 0)
        printf("trusted the workspace's .hew/mcp.json as you wrote it (hew trust --revoke "
               "to undo)\n");
    else
        fprintf(stderr, "hew: the file was written but is not trusted: %s\n", err);
    hew_free(rep);
}

/* ---- showing a server ----------------------------------------------------------------- */

/* Mask the values of obj that are not ${env:...} references: they may be secrets. */
static void mask_values(json_t *obj)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        const char *s = json_string_value(v);
        if (s && *s && !strstr(s, "${env:"))
            json_string_set(v, "***");
    }
}

/* def on one line, env and header values masked; a new string (or NULL). */
static char *shown_def(const json_t *def)
{
    json_t *copy = json_deep_copy(def);
    if (!copy)
        return NULL;
    mask_values(json_object_get(copy, "env"));
    mask_values(json_object_get(copy, "headers"));
    char *s = json_dumps(copy, JSON_PRESERVE_ORDER);
    json_decref(copy);
    return s;
}

static void print_def(const char *indent, const json_t *def)
{
    char *s = shown_def(def);
    printf("%s%s\n", indent, s ? s : "(out of memory)");
    free(s);
}

/* ---- hew mcp add ------------------------------------------------------------------------- */

/* What `hew mcp add` was told. */
typedef struct add_args {
    const char *name;
    int project;
    const char *url, *type;
    long timeout_s;       /* 0: not given */
    json_t *env, *headers, *approve;
    char **command;       /* COMMAND [ARGS...], or NULL */
    int ncommand;
} add_args;

static int take_env(add_args *a, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return usage_error("--env wants NAME=VALUE, got '%s'", kv);
    char *key = strndup(kv, (size_t)(eq - kv));
    int bad = !key || json_object_set_new(a->env, key, json_string(eq + 1)) != 0;
    free(key);
    return bad ? usage_error("--env '%s': not valid UTF-8 text", kv) : 0;
}

static int take_header(add_args *a, const char *kv)
{
    const char *colon = strchr(kv, ':');
    size_t n = colon ? (size_t)(colon - kv) : 0;
    while (n > 0 && (kv[n - 1] == ' ' || kv[n - 1] == '\t'))
        n--;
    if (!colon || n == 0)
        return usage_error("--header wants 'Name: value', got '%s'", kv);
    const char *value = colon + 1;
    value += strspn(value, " \t");
    char *key = strndup(kv, n);
    int bad = !key || json_object_set_new(a->headers, key, json_string(value)) != 0;
    free(key);
    return bad ? usage_error("--header '%s': not valid UTF-8 text", kv) : 0;
}

static int take_timeout(add_args *a, const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1)
        return usage_error("--timeout wants a whole number of seconds (1 or more), got '%s'", s);
    a->timeout_s = v;
    return 0;
}

/* One option of `hew mcp add` at argv[*i] (its value after it); 0 or the exit status. */
static int take_option(add_args *a, int argc, char **argv, int *i)
{
    const char *opt = argv[*i];
    if (strcmp(opt, "--project") == 0) {
        a->project = 1;
        return 0;
    }
    static const char *const with_value[] = { "--env", "--timeout", "--auto-approve", "--url",
                                              "--header", "--type" };
    int known = 0;
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        known |= strcmp(opt, with_value[k]) == 0;
    if (!known)
        return usage_error("unknown option '%s'", opt);
    if (*i + 1 >= argc)
        return usage_error("%s needs a value", opt);
    const char *v = argv[++*i];
    if (strcmp(opt, "--env") == 0)
        return take_env(a, v);
    if (strcmp(opt, "--header") == 0)
        return take_header(a, v);
    if (strcmp(opt, "--timeout") == 0)
        return take_timeout(a, v);
    if (strcmp(opt, "--auto-approve") == 0) {
        if (!*v || json_array_append_new(a->approve, json_string(v)) != 0)
            return usage_error("--auto-approve wants a tool name, got '%s'", v);
        return 0;
    }
    if (strcmp(opt, "--url") == 0)
        a->url = v;
    else
        a->type = v;
    return 0;
}

static int parse_add(add_args *a, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0 || (a->name && arg[0] != '-')) {
            int first = strcmp(arg, "--") == 0 ? i + 1 : i;
            a->command = argv + first;
            a->ncommand = argc - first;
            break;
        }
        if (arg[0] == '-') {
            int rc = take_option(a, argc, argv, &i);
            if (rc)
                return rc;
        } else {
            a->name = arg;
        }
    }
    return 0;
}

/* The combinations `hew mcp add` refuses; 0 when a makes sense. */
static int check_add(const add_args *a)
{
    if (!a->name)
        return usage_error("name the server: hew mcp add NAME ...");
    if (a->url && a->ncommand > 0)
        return usage_error("give either --url URL or -- COMMAND, not both (%s)", a->url);
    if (!a->url && a->ncommand == 0)
        return usage_error("say how to reach %s: -- COMMAND [ARGS...] for a program hew "
                           "starts, or --url URL for a server to connect to", a->name);
    if (a->url && json_object_size(a->env))
        return usage_error("--env is for servers hew starts (-- COMMAND), not for --url %s",
                           a->url);
    if (!a->url && json_object_size(a->headers))
        return usage_error("--header is for --url servers");
    if (a->type && !a->url)
        return usage_error("--type %s is for --url servers (http or sse)", a->type);
    if (a->type && strcmp(a->type, "http") != 0 && strcmp(a->type, "sse") != 0)
        return usage_error("--type wants http (Streamable HTTP) or sse (the older HTTP+SSE), "
                           "got '%s'", a->type);
    if (a->project && json_array_size(a->approve))
        return usage_error("--auto-approve has no effect with --project: hew ignores the "
                           "approvals of a workspace's .hew/mcp.json (a repository cannot "
                           "approve its own tools); add the server without --project");
    return 0;
}

/* The server's JSON object, in the shape Cline writes too. */
static json_t *build_def(const add_args *a)
{
    json_t *def = json_object();
    if (!def)
        return NULL;
    int bad = 0;
    if (a->url) {
        if (a->type)
            bad |= json_object_set_new(def, "type", json_string(strcmp(a->type, "http") == 0 ?
                                                                "streamableHttp" : "sse"));
        bad |= json_object_set_new(def, "url", json_string(a->url));
        if (json_object_size(a->headers))
            bad |= json_object_set(def, "headers", a->headers);
    } else {
        bad |= json_object_set_new(def, "command", json_string(a->command[0]));
        if (a->ncommand > 1) {
            json_t *args = json_array();
            for (int i = 1; i < a->ncommand; i++)
                bad |= json_array_append_new(args, json_string(a->command[i]));
            bad |= json_object_set_new(def, "args", args);
        }
        if (json_object_size(a->env))
            bad |= json_object_set(def, "env", a->env);
    }
    if (a->timeout_s)
        bad |= json_object_set_new(def, "timeout", json_integer(a->timeout_s));
    if (json_array_size(a->approve))
        bad |= json_object_set(def, "autoApprove", a->approve);
    if (bad) {
        json_decref(def);
        return NULL;
    }
    return def;
}

static int write_server(const add_args *a)
{
    json_t *def = build_def(a);
    char *text = def ? json_dumps(def, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (!text) {
        json_decref(def);
        fprintf(stderr, "hew: cannot build the server's settings: a value is not valid UTF-8 "
                        "text (or memory ran out)\n");
        return 1;
    }
    char *path = settings_path(a->project);
    int rc = 1;
    int was_trusted = a->project && project_trusted_before();
    if (path) {
        char err[1024];
        int put = 0;
        if (hew_mcp_settings_put(path, a->name, text, &put, err, sizeof err) != HEW_OK) {
            fprintf(stderr, "hew: %s\n", err);
        } else {
            printf("%s MCP server %s %s %s:\n", put ? "replaced" : "added", a->name,
                   put ? "in" : "to", path);
            print_def("  ", def);
            if (a->project)
                project_trust_after(was_trusted);
            rc = 0;
        }
    }
    hew_free(path);
    free(text);
    json_decref(def);
    return rc;
}

static int mcp_add(int argc, char **argv)
{
    if (argc > 0 && wants_help(argv[0])) {
        fputs(MCP_USAGE, stdout);
        return 0;
    }
    add_args a = { .env = json_object(), .headers = json_object(), .approve = json_array() };
    int rc = !a.env || !a.headers || !a.approve ? 1 : parse_add(&a, argc, argv);
    if (rc == 0)
        rc = check_add(&a);
    if (rc == 0)
        rc = write_server(&a);
    json_decref(a.env);
    json_decref(a.headers);
    json_decref(a.approve);
    return rc;
}

/* ---- hew mcp remove ---------------------------------------------------------------------- */

/* True when the settings file at path names server name (a peek for a hint). */
static int file_has_server(const char *path, const char *name)
{
    json_t *doc = path ? json_load_file(path, 0, NULL) : NULL;
    int found = json_object_get(json_object_get(doc, "mcpServers"), name) != NULL;
    json_decref(doc);
    return found;
}

/* After "no such server": where it is instead, or how to see the servers. */
static void hint_other_file(const char *name, int project)
{
    char *other = NULL;
    (void)hew_mcp_settings_path(NULL, !project, &other, NULL, 0);
    if (file_has_server(other, name))
        fprintf(stderr, "hew: %s is in %s: %s\n", name, other,
                project ? "leave out --project" : "add --project");
    else
        fputs("hew: `hew mcp list` shows the configured servers\n", stderr);
    hew_free(other);
}

static int mcp_remove(int argc, char **argv)
{
    const char *name = NULL;
    int project = 0;
    for (int i = 0; i < argc; i++) {
        if (wants_help(argv[i])) {
            fputs(MCP_USAGE, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--project") == 0)
            project = 1;
        else if (argv[i][0] == '-')
            return usage_error("unknown option '%s'", argv[i]);
        else if (name)
            return usage_error("remove one server at a time ('%s' is one too many)", argv[i]);
        else
            name = argv[i];
    }
    if (!name)
        return usage_error("name the server: hew mcp remove NAME [--project]");
    char *path = settings_path(project);
    if (!path)
        return 1;
    char err[1024];
    int was_trusted = project && project_trusted_before();
    hew_code rc = hew_mcp_settings_remove(path, name, err, sizeof err);
    if (rc == HEW_OK)
        printf("removed MCP server %s from %s\n", name, path);
    else
        fprintf(stderr, "hew: %s\n", err);
    if (rc == HEW_OK && project)
        project_trust_after(was_trusted);
    if (rc == HEW_E_NOTFOUND)
        hint_other_file(name, project);
    hew_free(path);
    return rc == HEW_OK ? 0 : 1;
}

/* ---- hew mcp import ---------------------------------------------------------------------- */

/* Put each server of list (hew_mcp_settings_servers) into path; 0, or 1 after printing
 * why it stopped. */
static int import_servers(const json_t *list, const char *path)
{
    size_t i;
    json_t *entry;
    json_array_foreach(list, i, entry) {
        const char *name = json_string_value(json_object_get(entry, "name"));
        const char *from = json_string_value(json_object_get(entry, "renamed_from"));
        json_t *def = json_object_get(entry, "server");
        char *text = json_dumps(def, JSON_COMPACT | JSON_PRESERVE_ORDER);
        char err[1024] = "out of memory";
        int put = 0;
        hew_code rc = text && name ? hew_mcp_settings_put(path, name, text, &put, err, sizeof err)
                                   : HEW_E_NOMEM;
        free(text);
        if (rc != HEW_OK) {
            fprintf(stderr, "hew: %s\n", err);
            fprintf(stderr, "hew: %zu of %zu servers were imported before this one\n", i,
                    json_array_size(list));
            return 1;
        }
        printf("imported %s%s%s%s\n", from ? from : name, from ? " as " : "", from ? name : "",
               put ? " (replacing the one there)" : "");
        print_def("  ", def);
    }
    return 0;
}

static int mcp_import(int argc, char **argv)
{
    if (argc > 0 && wants_help(argv[0])) {
        fputs(MCP_USAGE, stdout);
        return 0;
    }
    if (argc != 1 || argv[0][0] == '-')
        return usage_error("give one settings file: hew mcp import FILE");
    const char *file = argv[0];
    char err[1024];
    char *text = NULL;
    if (hew_mcp_settings_servers(file, &text, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    json_t *list = json_loads(text, 0, NULL);
    hew_free(text);
    if (!json_array_size(list)) {
        fprintf(stderr, "hew: %s has no MCP servers: nothing imported (hew reads the "
                        "{\"mcpServers\": {\"NAME\": {...}}} of Cline's and Claude Desktop's "
                        "files)\n", file);
        json_decref(list);
        return 1;
    }
    char *path = settings_path(0);
    int rc = path ? import_servers(list, path) : 1;
    if (rc == 0)
        printf("%zu MCP server%s imported from %s into %s\n", json_array_size(list),
               json_array_size(list) == 1 ? "" : "s", file, path);
    hew_free(path);
    json_decref(list);
    return rc;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

static const struct mcp_command {
    const char *name;
    int (*run)(int argc, char **argv);
} mcp_commands[] = {
    { "add", mcp_add },
    { "remove", mcp_remove },
    { "import", mcp_import },
    { "list", cmd_mcp_list },
};

int cli_mcp(int argc, char **argv)
{
    if (argc > 0 && (wants_help(argv[0]) || strcmp(argv[0], "help") == 0)) {
        fputs(MCP_USAGE, stdout);
        return 0;
    }
    for (size_t i = 0; argc > 0 && i < sizeof mcp_commands / sizeof mcp_commands[0]; i++)
        if (strcmp(argv[0], mcp_commands[i].name) == 0)
            return mcp_commands[i].run(argc - 1, argv + 1);
    if (argc > 0)
        fprintf(stderr, "hew mcp: unknown command '%s'\n", argv[0]);
    fputs(MCP_USAGE, stderr);
    return 2;
}
