/* trust_cmd — `hew trust`: the user's decision about a workspace's project files that can
 * start programs or send credentials (.hew/mcp.json), through the "Workspace trust" part
 * of include/hew.h:
 *   hew trust [DIR]            show what the files would run and trust them as they are
 *   hew trust --show [DIR]     only show (exit 0 trusted or nothing to trust, 1 untrusted)
 *   hew trust --revoke [DIR]   forget the trust of DIR's workspace
 *   hew trust --list           the trusted workspaces
 * (--json: the library's JSON instead). Also prints the report the interactive terminal
 * shows before asking. Never trusts anything but what it printed; usage errors exit 2. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "hew.h"

static const char TRUST_USAGE[] =
    "usage: hew trust [DIR]            trust the workspace's project files as they are now\n"
    "                                  (prints what they would run and their SHA-256)\n"
    "       hew trust --show [DIR]     show what they would run and whether it is trusted\n"
    "       hew trust --revoke [DIR]   forget the trust of the workspace\n"
    "       hew trust --list           the trusted workspaces\n"
    "       (--json: print JSON; DIR: the current directory when left out)\n"
    "\n"
    "A workspace's .hew/mcp.json names programs hew would start and URLs it would send\n"
    "headers to, so hew ignores it until you trust it. Trust is kept in hew's data folder\n"
    "(trust.json) for the workspace root (the git repository's top, else the folder) and\n"
    "the file's exact content: once the file is edited, hew asks again. `hew --trust`\n"
    "trusts the workspace for one run without storing anything.\n";

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* A list of names from s[key] on one line after label, or nothing when empty. */
static void print_names(FILE *out, const char *indent, const json_t *s, const char *key,
                        const char *label, const char *after)
{
    json_t *names = json_object_get(s, key);
    if (!json_array_size(names))
        return;
    fprintf(out, "%s%s:", indent, label);
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n)
        fprintf(out, "%s %s", i ? "," : "", json_string_value(n));
    fprintf(out, "%s\n", after);
}

void cli_trust_print_server(FILE *out, const char *indent, const json_t *s)
{
    if (json_object_get(s, "command")) {
        fprintf(out, "%sruns: %s\n", indent, jstr(s, "command"));
        print_names(out, indent, s, "env", "environment", "");
    } else {
        fprintf(out, "%sconnects to: %s\n", indent,
                jstr(s, "url_shown")[0] ? jstr(s, "url_shown") : jstr(s, "url"));
        print_names(out, indent, s, "headers", "sends headers", " (values not shown)");
    }
    if (json_is_true(json_object_get(s, "disabled")))
        fprintf(out, "%s(disabled in the file: not started either way)\n", indent);
}

void cli_trust_print(FILE *out, const char *report_json)
{
    json_t *rep = json_loads(report_json, 0, NULL);
    fprintf(out, "workspace %s\n", jstr(rep, "root"));
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(rep, "files"), i, f) {
        const char *state = jstr(f, "state");
        fprintf(out, "  %s — %s\n", jstr(f, "path"),
                strcmp(state, "trusted") == 0   ? "trusted"
                : strcmp(state, "changed") == 0 ? "changed since you trusted it"
                                                : "not trusted");
        fprintf(out, "  sha256 %s\n", jstr(f, "sha256"));
        if (*jstr(f, "error"))
            fprintf(out, "  the file has an error (hew will say it once trusted): %s\n",
                    jstr(f, "error"));
        size_t k;
        json_t *s;
        json_array_foreach(json_object_get(f, "servers"), k, s) {
            fprintf(out, "    %s\n", jstr(s, "name"));
            cli_trust_print_server(out, "      ", s);
        }
        if (!json_array_size(json_object_get(f, "servers")) && !*jstr(f, "error"))
            fputs("    (no servers)\n", out);
    }
    if (!json_array_size(json_object_get(rep, "files")))
        fprintf(out, "  nothing to trust: no .hew/mcp.json and no hooks there\n");
    if (*jstr(rep, "problem"))
        fprintf(out, "  the trust store cannot be read: %s\n", jstr(rep, "problem"));
    json_decref(rep);
}

static int show(const char *dir, int as_json, int grant)
{
    char err[1024] = "";
    char *rep = NULL;
    if (hew_trust_check(NULL, dir, &rep, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    json_t *r = json_loads(rep, 0, NULL);
    const char *state = jstr(r, "state");
    int untrusted = strcmp(state, "untrusted") == 0;
    int rc = 0;
    if (grant && untrusted && hew_trust_grant(NULL, rep, err, sizeof err) != 0) {
        fprintf(stderr, "hew: %s\n", err);
        rc = 1;
    }
    if (as_json && grant && untrusted && rc == 0) {
        char *now = NULL;
        (void)hew_trust_check(NULL, dir, &now, err, sizeof err); /* the state after it */
        puts(now ? now : rep);
        hew_free(now);
    } else if (as_json) {
        puts(rep);
    } else {
        cli_trust_print(stdout, rep);
        if (grant && rc == 0 && untrusted)
            printf("trusted: hew will use these files in %s until they change (hew trust "
                   "--revoke to undo)\n", jstr(r, "root"));
        else if (grant && rc == 0 && strcmp(state, "trusted") == 0)
            printf("already trusted\n");
        else if (!grant && untrusted)
            printf("not trusted: run `hew trust%s%s` to allow it\n", dir ? " " : "",
                   dir ? dir : "");
    }
    if (!grant && untrusted)
        rc = 1;
    json_decref(r);
    hew_free(rep);
    return rc;
}

static int revoke(const char *dir)
{
    char err[1024] = "";
    int was = 0;
    if (hew_trust_revoke(NULL, dir, &was, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    char *root = NULL;
    (void)hew_workspace_root(dir, &root, NULL, 0);
    if (was)
        printf("no longer trusted: %s\n", root ? root : dir ? dir : ".");
    else
        printf("%s was not trusted\n", root ? root : dir ? dir : ".");
    hew_free(root);
    return 0;
}

static int list(int as_json)
{
    char err[1024] = "";
    char *text = NULL;
    if (hew_trust_list(NULL, &text, err, sizeof err) != HEW_OK) {
        fprintf(stderr, "hew: %s\n", err);
        return 1;
    }
    if (as_json) {
        puts(text);
    } else {
        json_t *all = json_loads(text, 0, NULL);
        size_t i;
        json_t *w;
        if (!json_array_size(all))
            puts("No workspace is trusted.");
        json_array_foreach(all, i, w) {
            time_t t = (time_t)(json_integer_value(json_object_get(w, "trusted_ms")) / 1000);
            char when[32] = "";
            struct tm tm;
            if (localtime_r(&t, &tm))
                strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
            printf("%s  (since %s)\n", jstr(w, "root"), when);
            size_t k;
            json_t *f;
            json_array_foreach(json_object_get(w, "files"), k, f)
                printf("  %s  sha256 %.16s…\n", jstr(f, "path"), jstr(f, "sha256"));
        }
        json_decref(all);
    }
    hew_free(text);
    return 0;
}

int cli_trust(int argc, char **argv)
{
    int as_json = 0;
    const char *mode = "grant", *dir = NULL;
    static const char *const modes[] = { "--show", "--revoke", "--list" };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int is_mode = 0;
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
            if (strcmp(a, modes[k]) == 0) {
                mode = modes[k] + 2;
                is_mode = 1;
            }
        if (is_mode)
            continue;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(TRUST_USAGE, stdout);
            return 0;
        }
        if (strcmp(a, "--json") == 0) {
            as_json = 1;
        } else if (a[0] == '-' || dir) {
            fprintf(stderr, "hew trust: unexpected '%s'\n%s", a, TRUST_USAGE);
            return 2;
        } else {
            dir = a;
        }
    }
    if (strcmp(mode, "list") == 0)
        return dir ? (fprintf(stderr, "hew trust: --list takes no folder\n"), 2) : list(as_json);
    if (strcmp(mode, "revoke") == 0)
        return revoke(dir);
    return show(dir, as_json, strcmp(mode, "grant") == 0);
}
