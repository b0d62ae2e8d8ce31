/* doctor — `hew doctor [--json] [options]`: is everything hew needs in place? One line
 * per check, `ok|warn|FAIL  <what>  <detail>`, and under a check that is not ok a hint on
 * what to do: the configuration files parse, the API key is there (masked), the provider
 * answers, the data directory and the task store, git (checkpoints), universal-ctags
 * (list_code_definition_names), node/npx (MCP servers), the sandbox of commands (which
 * backend, what the machine offers, the gaps; "sandbox" in --json) and the terminal.
 * --json prints one object with the checks instead. Exit status 0 when nothing FAILed, 1 otherwise, 2
 * for a usage error. The options of a task (--provider, --base-url, --cwd, ...) say
 * which configuration to check. Uses only include/hew.h. */
#include <jansson.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "hew.h"
#include "termsafe.h"

typedef enum check_status { CHECK_OK, CHECK_WARN, CHECK_FAIL } check_status;

typedef struct check {
    const char *what;
    check_status status;
    char detail[1024];
    char hint[512];
} check;

#define DOCTOR_MAX_CHECKS 64

typedef struct doctor {
    check items[DOCTOR_MAX_CHECKS];
    size_t n;
    size_t dropped;   /* checks past the cap: counted and said, never silently lost */
    int dropped_fail; /* one of them failed: doctor still fails */
    json_t *sandbox;  /* hew_sandbox_report's object (--json: "sandbox"), or NULL */
} doctor;

static const char *const status_words[] = { "ok", "warn", "FAIL" };

/* Record a check: its detail from fmt, its hint (NULL: none). NULL when the list is full
 * (the check is counted in dropped). */
static check *add_check(doctor *d, const char *what, check_status st, const char *hint,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static check *add_check(doctor *d, const char *what, check_status st, const char *hint,
                        const char *fmt, ...)
{
    if (d->n == DOCTOR_MAX_CHECKS) {
        d->dropped++;
        d->dropped_fail |= st == CHECK_FAIL;
        return NULL;
    }
    check *c = &d->items[d->n++];
    c->what = what;
    c->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
    snprintf(c->hint, sizeof c->hint, "%s", hint ? hint : "");
    return c;
}

/* ---- the configuration, the key, the provider ---------------------------------------- */

/* Load the configuration co names into cfg and o. 0, or -1 when the files do not parse
 * (the check says why). *apply_err receives a complaint of cli_config_apply (a key
 * variable named in the config but not set), which is the key check's business. */
static int check_config(doctor *d, const cli_options *co, cli_config *cfg, hew_options *o,
                        char *apply_err, size_t n)
{
    char err[1024] = "";
    if (cli_config_load(cfg, co, err, sizeof err) != 0) {
        add_check(d, "config", CHECK_FAIL,
                  "fix the file named above (man hew: CONFIGURATION); hew config shows the "
                  "merged settings",
                  "%s", err);
        return -1;
    }
    hew_options_init(o);
    if (cli_config_apply(cfg, o, apply_err, n) != 0)
        o->api_key = NULL;
    if (co->cwd)
        o->cwd = co->cwd;
    add_check(d, "config", CHECK_OK, NULL, "user %s%s, project %s; provider %s, model %s",
              cfg->user_path ? cfg->user_path : "(no $HOME)",
              cfg->user_path && access(cfg->user_path, F_OK) != 0 ? " (not there)" : "",
              cfg->project_path ? cfg->project_path : "(none)", o->provider,
              o->model ? o->model : "(the provider's default)");
    return 0;
}

/* Is there a key? 1 yes, 0 no. */
static int check_key(doctor *d, const cli_config *cfg, const char *apply_err)
{
    char from[300], masked[16], hint[400];
    const char *key = cli_config_key(cfg, from, sizeof from);
    if (key && !*apply_err) {
        cli_mask_key(key, masked, sizeof masked);
        add_check(d, "api key", CHECK_OK, NULL, "%s from %s", masked, from);
        return 1;
    }
    const char *provider = cfg->str[CFG_PROVIDER] ? cfg->str[CFG_PROVIDER] : "";
    if (strcmp(provider, "openai-compatible") == 0) {
        add_check(d, "api key", CHECK_OK, NULL, "none (%s): a local server needs none", from);
        return 0;
    }
    const char *var = strncmp(from, "environment ", 12) == 0 ? from + 12 : "the key variable";
    snprintf(hint, sizeof hint,
             "export %s=YOUR_KEY, or name another variable with \"api_key_env\" in "
             "~/.config/hew/config.json",
             var);
    if (*apply_err)
        add_check(d, "api key", CHECK_FAIL, hint, "%s", apply_err);
    else
        add_check(d, "api key", CHECK_FAIL, hint, "no API key for %s: %s is not set",
                  provider, var);
    return 0;
}

static void check_provider(doctor *d, const hew_options *o, int have_key)
{
    char detail[1024] = "";
    long status = 0;
    hew_code rc = hew_probe_provider(o, &status, detail, sizeof detail);
    if (rc == HEW_E_INVALID)
        add_check(d, "provider", CHECK_FAIL,
                  "check provider and base_url (hew config shows them and where they come "
                  "from)",
                  "%s", detail);
    else if (rc != HEW_OK)
        add_check(d, "provider", CHECK_FAIL,
                  "is the base URL right (hew config)? a proxy needed (https_proxy)? the "
                  "server running?",
                  "not reachable: %s", detail);
    else if ((status == 401 || status == 403) && have_key)
        add_check(d, "provider", CHECK_FAIL,
                  "the key is wrong or revoked: set a current key for this provider",
                  "the key was refused: %s", detail);
    else
        add_check(d, "provider", CHECK_OK, NULL, "reachable: %s", detail);
}

/* ---- the data directory and the store ------------------------------------------------ */

static void check_store(doctor *d, const hew_options *o)
{
    char detail[1024] = "";
    hew_code rc = hew_check_store(o, detail, sizeof detail);
    if (rc == HEW_OK)
        add_check(d, "store", CHECK_OK, NULL, "%s", detail);
    else if (rc == HEW_E_IO)
        add_check(d, "data dir", CHECK_FAIL,
                  "make it writable, or pass --data-dir DIR (HEW_DATA_DIR) with a folder you "
                  "own",
                  "%s", detail);
    else
        add_check(d, "store", CHECK_FAIL,
                  "another hew may hold it busy; a damaged hew.db can be moved aside (its "
                  "tasks are then gone from hew history)",
                  "%s", detail);
}

/* ---- programs ------------------------------------------------------------------------ */

static void check_git(doctor *d)
{
    char v[256];
    if (hew_program_version("git", v, sizeof v) == 0)
        add_check(d, "git", CHECK_OK, NULL, "%s (checkpoints)", v);
    else
        add_check(d, "git", CHECK_WARN,
                  "install git (apt-get install git) for checkpoints, or set checkpoints off",
                  "no git, so no checkpoints: %s", v);
}

static void check_ctags(doctor *d)
{
    char v[256];
    const char *hint = "apt-get install universal-ctags";
    if (hew_program_version("ctags", v, sizeof v) != 0)
        add_check(d, "ctags", CHECK_WARN, hint,
                  "no ctags, so no list_code_definition_names: %s", v);
    else if (!strstr(v, "Universal Ctags"))
        add_check(d, "ctags", CHECK_WARN, hint,
                  "%s is not universal-ctags (list_code_definition_names needs it)", v);
    else
        add_check(d, "ctags", CHECK_OK, NULL, "%.*s (list_code_definition_names)",
                  (int)strcspn(v, ","), v); /* "Universal Ctags 5.9.0", no copyright */
}

static void check_node(doctor *d)
{
    char node[256], npx[256];
    int has_node = hew_program_version("node", node, sizeof node) == 0;
    int has_npx = has_node && hew_program_version("npx", npx, sizeof npx) == 0;
    if (has_npx)
        add_check(d, "node", CHECK_OK, NULL, "node %s, npx %s (MCP servers)", node, npx);
    else
        add_check(d, "node", CHECK_WARN,
                  "MCP servers started with npx need Node.js: apt-get install nodejs npm",
                  "%s", has_node ? "node but no npx" : "no node");
}

/* The MCP servers of the settings: each connected (5 s at most), or why not. */
static void check_mcp(doctor *d, const hew_options *o)
{
    char err[1024] = "";
    char *text = NULL;
    if (hew_mcp_probe(o, 5000, &text, err, sizeof err) != HEW_OK) {
        add_check(d, "mcp", CHECK_FAIL, "fix the file named (see man hew, MCP SERVERS)", "%s",
                  err);
        return;
    }
    json_t *all = json_loads(text, 0, NULL);
    hew_free(text);
    size_t i, total = 0, up = 0, untrusted = 0;
    char names[512] = "";
    json_t *srv;
    json_array_foreach(all, i, srv) {
        const char *name = json_string_value(json_object_get(srv, "name"));
        const char *status = json_string_value(json_object_get(srv, "status"));
        const char *untrusted_bad = json_string_value(json_object_get(srv, "settings_untrusted"));
        untrusted += untrusted_bad != NULL;
        if (untrusted_bad)
            add_check(d, "mcp", CHECK_WARN, "fix the file, then trust it (hew trust)",
                      "the workspace's untrusted MCP settings (nothing of them is started): %s",
                      untrusted_bad);
        if (!name || !status || strcmp(status, "disabled") == 0)
            continue;
        if (strcmp(status, "untrusted") == 0) { /* one check for them all, below */
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", untrusted++ ? ", " : "", name);
            continue;
        }
        total++;
        if (strcmp(status, "connected") == 0) {
            up++;
            continue;
        }
        const char *why = json_string_value(json_object_get(srv, "error"));
        add_check(d, "mcp", CHECK_WARN, "check the server's command or URL (hew mcp list)",
                  "%s: %s%s%s", name, status, why ? ": " : "", why ? why : "");
    }
    json_decref(all);
    if (names[0])
        add_check(d, "mcp", CHECK_WARN,
                  "read what they would run (hew trust --show), then hew trust to allow them",
                  "%s: untrusted: not started (hew trust to allow) — the workspace's "
                  ".hew/mcp.json", names);
    if (total == 0 && !untrusted)
        add_check(d, "mcp", CHECK_OK, NULL, "no MCP servers configured");
    else if (up)
        add_check(d, "mcp", CHECK_OK, NULL, "%zu of %zu MCP server%s connected", up, total,
                  total == 1 ? "" : "s");
}

/* ---- the sandbox ----------------------------------------------------------------------- */

/* Which backend confines the commands hew runs without asking, what the machine offers
 * and what it cannot enforce. Never ok when nothing confines them under a confining
 * mode: hew then asks before each such command (or, headless, refuses it). */
static void check_sandbox(doctor *d, const hew_options *o)
{
    char err[1024] = "";
    char *text = NULL;
    if (hew_sandbox_report(o, &text, err, sizeof err) != HEW_OK) {
        add_check(d, "sandbox", CHECK_FAIL,
                  "fix sandbox.* in your config file or the --sandbox flag (man hew: SANDBOX)",
                  "%s", err);
        return;
    }
    json_t *r = json_loads(text, 0, NULL);
    hew_free(text);
    if (!r)
        return;
    const char *applies = json_string_value(json_object_get(r, "applies"));
    const char *backend = json_string_value(json_object_get(r, "backend"));
    const char *gaps = json_string_value(json_object_get(r, "gaps"));
    const char *error = json_string_value(json_object_get(r, "error"));
    const char *bwrap = json_string_value(json_object_get(r, "bwrap"));
    char machine[512];
    snprintf(machine, sizeof machine, "Landlock ABI %lld, seccomp %s, user namespaces %s, "
             "bwrap %s",
             (long long)json_integer_value(json_object_get(r, "landlock_abi")),
             json_is_true(json_object_get(r, "seccomp")) ? "yes" : "no",
             json_is_true(json_object_get(r, "userns")) ? "yes" : "no",
             bwrap && *bwrap ? bwrap : "none");
    char joined[600] = ""; /* the gaps on one line: "a; b; c" */
    for (size_t i = 0, j = 0; gaps && gaps[i] && j + 3 < sizeof joined; i++) {
        if (gaps[i] == '\n') {
            if (gaps[i + 1])
                j += (size_t)snprintf(joined + j, sizeof joined - j, "; ");
        } else {
            joined[j++] = gaps[i];
            joined[j] = '\0';
        }
    }
    if (applies && strcmp(applies, "danger-full-access") == 0)
        add_check(d, "sandbox", CHECK_WARN,
                  "drop --sandbox danger-full-access / sandbox.mode to confine the commands "
                  "the model runs unasked",
                  "off: every command runs unconfined (mode danger-full-access); machine: %s",
                  machine);
    else if (error)
        add_check(d, "sandbox", CHECK_WARN,
                  "install bubblewrap (apt-get install bubblewrap) or use a kernel with "
                  "Landlock; until then hew asks before each command it would confine",
                  "none: %s; machine: %s", error, machine);
    else if (joined[0])
        add_check(d, "sandbox", CHECK_WARN,
                  "these are what the sandbox cannot enforce here; a control file that does "
                  "not exist yet can be created by a command — create it to protect it",
                  "%s (%s) with gaps: %s; machine: %s", backend ? backend : "?",
                  applies ? applies : "?", joined, machine);
    else
        add_check(d, "sandbox", CHECK_OK, NULL, "%s: %s for commands you did not approve; "
                  "machine: %s", backend ? backend : "?", applies ? applies : "?", machine);
    json_decref(d->sandbox);
    d->sandbox = r;
}

/* ---- the terminal ---------------------------------------------------------------------- */

static void check_terminal(doctor *d)
{
    const char *term = getenv("TERM");
    const char *no_color = getenv("NO_COLOR");
    int plain = !term || !*term || strcmp(term, "dumb") == 0;
    int colour = !plain && !(no_color && *no_color);
    const char *codeset = setlocale(LC_CTYPE, "") ? nl_langinfo(CODESET) : "C";
    int utf8 = strcmp(codeset, "UTF-8") == 0;
    char detail[512];
    snprintf(detail, sizeof detail, "TERM=%s, colours %s, locale %s%s",
             term && *term ? term : "(not set)",
             colour ? "on" : no_color && *no_color ? "off (NO_COLOR)" : "off", codeset,
             isatty(1) ? "" : ", standard output is not a terminal");
    if (plain)
        add_check(d, "terminal", CHECK_WARN,
                  "export TERM=xterm-256color (or your terminal's name) for the interactive "
                  "screen",
                  "%s", detail);
    else if (!utf8)
        add_check(d, "terminal", CHECK_WARN,
                  "export LANG=C.UTF-8 (hew's own screen falls back to it; commands it runs "
                  "do not)",
                  "%s", detail);
    else
        add_check(d, "terminal", CHECK_OK, NULL, "%s", detail);
}

/* ---- the log --------------------------------------------------------------------------- */

static void check_log(doctor *d)
{
    char path[4096];
    const char *level = getenv("HEW_LOG");
    if (hew_log_path(path, sizeof path) != HEW_OK) {
        add_check(d, "log", CHECK_WARN, "set HOME (or XDG_STATE_HOME) to an absolute path",
                  "no log: its folder cannot be found");
        return;
    }
    add_check(d, "log", CHECK_OK, NULL, "%s (level %s; HEW_LOG=debug for more)", path,
              level && *level ? level : "info");
}

/* ---- output ---------------------------------------------------------------------------- */

/* A detail may quote a configuration file or an MCP server: printed sanitised. */
static void print_text(const doctor *d)
{
    for (size_t i = 0; i < d->n; i++) {
        const check *c = &d->items[i];
        printf("%-4s  %-9s ", status_words[c->status], c->what);
        termsafe_fputs(c->detail, stdout);
        putchar('\n');
        if (c->status != CHECK_OK && c->hint[0]) {
            printf("%-4s  %-9s -> ", "", "");
            termsafe_fputs(c->hint, stdout);
            putchar('\n');
        }
    }
    if (d->dropped)
        printf("%-4s  %-9s %zu more checks not shown%s\n", d->dropped_fail ? "FAIL" : "", "",
               d->dropped, d->dropped_fail ? " (at least one failed)" : "");
}

static int print_json(const doctor *d, int failed)
{
    json_t *checks = json_array();
    for (size_t i = 0; i < d->n; i++) {
        const check *c = &d->items[i];
        json_t *o = json_pack("{s:s, s:s, s:s}", "name", c->what, "status",
                              c->status == CHECK_OK     ? "ok"
                              : c->status == CHECK_WARN ? "warn"
                                                        : "fail",
                              "detail", c->detail);
        if (o && c->status != CHECK_OK && c->hint[0])
            json_object_set_new(o, "hint", json_string(c->hint));
        json_array_append_new(checks, o);
    }
    json_t *all = json_pack("{s:b, s:o}", "ok", !failed, "checks", checks);
    if (all && d->sandbox)
        json_object_set(all, "sandbox", d->sandbox);
    if (all && d->dropped)
        json_object_set_new(all, "checks_not_shown", json_integer((json_int_t)d->dropped));
    char *s = all ? json_dumps(all, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(all);
    if (!s) {
        fprintf(stderr, "hew: out of memory\n");
        return -1;
    }
    puts(s);
    free(s);
    return 0;
}

static void run_checks(doctor *d, const cli_options *co)
{
    cli_config cfg;
    hew_options o;
    char apply_err[1024] = "";
    if (check_config(d, co, &cfg, &o, apply_err, sizeof apply_err) == 0) {
        int have_key = check_key(d, &cfg, apply_err);
        check_provider(d, &o, have_key);
        check_store(d, &o);
        check_mcp(d, &o);
        check_sandbox(d, &o);
        cli_config_release(&cfg);
    } else {
        hew_options_init(&o);
        check_store(d, &o);
    }
    check_git(d);
    check_ctags(d);
    check_node(d);
    check_terminal(d);
    check_log(d);
}

int cli_doctor(int argc, char **argv)
{
    if (argc > 0 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        fputs("usage: hew doctor [--json] [options]   check that everything hew needs is in\n"
              "place: config files, API key, provider, data directory and store, MCP servers,\n"
              "the sandbox of commands, git, ctags, node/npx, terminal. Options as for a task (--provider, --base-url, --cwd, ...)\n"
              "choose what is checked. Exit 0 when nothing failed, 1 otherwise.\n",
              stdout);
        return 0;
    }
    cli_options co;
    if (cli_parse_options(argc, argv, &co) != 0)
        return 2;
    if (co.task) {
        fprintf(stderr, "hew: hew doctor takes no task ('%s'; see hew doctor --help)\n", co.task);
        return 2;
    }
    doctor *d = calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "hew: out of memory\n");
        return 1;
    }
    run_checks(d, &co);
    int failed = d->dropped_fail;
    for (size_t i = 0; i < d->n; i++)
        failed |= d->items[i].status == CHECK_FAIL;
    if (co.json) {
        if (print_json(d, failed) != 0)
            failed = 1;
    } else {
        print_text(d);
    }
    json_decref(d->sandbox);
    free(d);
    return failed ? 1 : 0;
}
