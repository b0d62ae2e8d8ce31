/* mcp_list — `hew mcp list [--json] [--cwd DIR] [--timeout S]`: connect to every MCP
 * server the settings name (the user's and this workspace's), wait for them (10 s by
 * default), and show each with its state, how it is reached, what it offers, and why it
 * failed when it did. The servers of an untrusted workspace .hew/mcp.json are shown with
 * what they would run, marked untrusted, and never started. Exit 0 when every enabled
 * (and trusted) server connected, 1 otherwise (also when the settings cannot be used), 2
 * on a usage error. Names, descriptions and errors come from the servers and the
 * settings files: printed sanitised (termsafe); --json prints them JSON-escaped. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hew.h"
#include "termsafe.h"

static int usage(void)
{
    fputs("usage: hew mcp list [--json] [--cwd DIR] [--timeout SECONDS]\n", stderr);
    return 2;
}

/* "echo*, get-sum, …" (* = approved without asking), wrapped under an indent. */
static void print_tools(const json_t *tools)
{
    size_t col = 4, i;
    json_t *t;
    fputs("    ", stdout);
    json_array_foreach(tools, i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        bool approved = json_is_true(json_object_get(t, "auto_approve"));
        size_t len = strlen(name ? name : "?") + (approved ? 1 : 0);
        if (i > 0) {
            bool wrap = col + 2 + len > 96;
            fputs(wrap ? ",\n    " : ", ", stdout);
            col = wrap ? 4 : col + 2;
        }
        printf("%s%s", name ? name : "?", approved ? "*" : "");
        col += len;
    }
    putchar('\n');
}

/* A server of the workspace's untrusted .hew/mcp.json: what it would run, never started. */
static void print_untrusted(const json_t *s)
{
    printf("%-20s %-13s %-15s (%s)\n", json_string_value(json_object_get(s, "name")),
           "untrusted", json_string_value(json_object_get(s, "transport")),
           json_string_value(json_object_get(s, "source")));
    cli_trust_print_server(stdout, "    ", s);
    printf("    %s\n", json_string_value(json_object_get(s, "error")));
}

static bool print_server(const json_t *s)
{
    const char *problem = json_string_value(json_object_get(s, "settings_warning"));
    if (problem) {
        printf("warning: %s\n", problem);
        return true;
    }
    const char *bad = json_string_value(json_object_get(s, "settings_untrusted"));
    if (bad) {
        printf("%s\n    (this workspace's file is not trusted: nothing of it is started)\n",
               bad);
        return true;
    }
    if (json_string_value(json_object_get(s, "status")) &&
        strcmp(json_string_value(json_object_get(s, "status")), "untrusted") == 0) {
        print_untrusted(s);
        return true;
    }
    const char *name = json_string_value(json_object_get(s, "name"));
    const char *status = json_string_value(json_object_get(s, "status"));
    const char *transport = json_string_value(json_object_get(s, "transport"));
    const char *server = json_string_value(json_object_get(s, "server"));
    const char *error = json_string_value(json_object_get(s, "error"));
    const char *source = json_string_value(json_object_get(s, "source"));
    const json_t *tools = json_object_get(s, "tools");
    size_t nres = json_array_size(json_object_get(s, "resources")) +
                  json_array_size(json_object_get(s, "resource_templates"));
    size_t nprompts = json_array_size(json_object_get(s, "prompts"));
    printf("%-20s %-13s %-15s", name ? name : "?", status ? status : "?",
           transport ? transport : "");
    if (status && strcmp(status, "connected") == 0) {
        printf(" %s: %zu tool%s", server ? server : "", json_array_size(tools),
               json_array_size(tools) == 1 ? "" : "s");
        if (nres)
            printf(", %zu resource%s", nres, nres == 1 ? "" : "s");
        if (nprompts)
            printf(", %zu prompt%s", nprompts, nprompts == 1 ? "" : "s");
    }
    if (source)
        printf("  (%s)", source);
    putchar('\n');
    if (error)
        printf("    %s\n", error);
    const char *ignore_note = json_string_value(json_object_get(s, "clineignore_warning"));
    if (ignore_note)
        printf("    warning: %s\n", ignore_note);
    if (json_array_size(tools))
        print_tools(tools);
    const json_t *prompts = json_object_get(s, "prompts");
    if (json_array_size(prompts)) {
        printf("    prompts (type /mcp:%s:NAME [ARG=VALUE]...):", name ? name : "?");
        size_t i;
        json_t *p;
        json_array_foreach(prompts, i, p) {
            const char *pname = json_string_value(json_object_get(p, "name"));
            printf("%s %s", i ? "," : "", pname ? pname : "?");
        }
        putchar('\n');
    }
    return !status || strcmp(status, "connected") == 0 || strcmp(status, "disabled") == 0;
}

bool cli_mcp_print(const char *status_json)
{
    json_t *all = json_loads(status_json, 0, NULL);
    termsafe_json(all);
    bool all_up = true;
    if (json_array_size(all) == 0) {
        puts("No MCP servers are configured. Add one with `hew mcp add NAME -- COMMAND "
             "ARGS...` or `hew mcp add NAME --url URL` (see `man hew`, MCP SERVERS).");
    } else {
        size_t i;
        json_t *s;
        json_array_foreach(all, i, s) {
            const char *problem = json_string_value(json_object_get(s, "settings_error"));
            if (problem) {
                printf("%s\n", problem);
                all_up = false;
                continue;
            }
            all_up = print_server(s) && all_up;
        }
        if (!all_up)
            puts("(servers that are not connected are retried while a session runs; "
                 "* = approved without asking)");
    }
    json_decref(all);
    return all_up;
}

int cmd_mcp_list(int argc, char **argv)
{
    bool as_json = false;
    long timeout_s = 10;
    hew_options o;
    hew_options_init(&o);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            as_json = true;
        } else if (strcmp(argv[i], "--cwd") == 0 && i + 1 < argc) {
            o.cwd = argv[++i];
        } else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            char *end;
            timeout_s = strtol(argv[++i], &end, 10);
            if (*end || timeout_s < 1 || timeout_s > 600)
                return usage();
        } else {
            return usage();
        }
    }
    char err[1024] = "";
    char *text = NULL;
    if (hew_mcp_probe(&o, timeout_s * 1000, &text, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    bool all_up = true;
    if (as_json) {
        puts(text);
        json_t *all = json_loads(text, 0, NULL);
        size_t i;
        json_t *s;
        json_array_foreach(all, i, s) {
            const char *status = json_string_value(json_object_get(s, "status"));
            all_up = all_up && (!status || strcmp(status, "connected") == 0 ||
                                strcmp(status, "disabled") == 0 ||
                                strcmp(status, "untrusted") == 0);
        }
        json_decref(all);
    } else {
        all_up = cli_mcp_print(text);
    }
    hew_free(text);
    return all_up ? 0 : 1;
}
