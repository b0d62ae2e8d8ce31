/* config — the config files, the environment and the flags merged into one set of
 * settings (see config.h). Reads files and the environment; never writes a file, never
 * prints a secret unmasked, never exits. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "modelname.h"
#include "sbuf.h"
#include "termsafe.h"

enum cfg_type { T_STR, T_BOOL, T_NUM, T_ENUM, T_LIST, T_STRS, T_NAMES, T_PATHS, T_HOSTS };

static const struct cfg_def {
    const char *path;     /* the JSON path in a config file */
    enum cfg_type type;
    int project_ok;       /* may a project's file set it? */
    const char *choices;  /* T_ENUM: the words, '|' between */
    const char *help;
} defs[CFG_NKEYS] = {
    [CFG_PROVIDER] = { "provider", T_ENUM, 1,
                       "anthropic|openai|openai-compatible|openrouter|deepseek|gemini|xai|groq",
                       "the provider" },
    [CFG_MODEL] = { "model", T_STR, 1, NULL, "the model (default: the provider's)" },
    [CFG_BASE_URL] = { "base_url", T_STR, 0, NULL, "the provider's URL" },
    [CFG_API_KEY_ENV] = { "api_key_env", T_STR, 0, NULL,
                          "the environment variable holding the API key" },
    [CFG_API_KEY] = { "api_key", T_STR, 0, NULL, "the API key itself (prefer api_key_env)" },
    [CFG_MODE] = { "mode", T_ENUM, 1, "act|plan", "start in act or plan mode" },
    [CFG_YOLO] = { "yolo", T_BOOL, 0, NULL, "approve everything" },
    [CFG_AUTO_APPROVE] = { "auto_approve", T_LIST, 0, NULL, "what runs without asking" },
    [CFG_PARALLEL_TOOL_CALLS] = { "parallel_tool_calls", T_BOOL, 1, NULL,
                                  "run every tool of a message" },
    [CFG_TOOLS] = { "tools", T_ENUM, 1, "auto|native|xml", "how tools are offered" },
    [CFG_THINKING] = { "thinking", T_NUM, 1, NULL, "reasoning budget in tokens (0: off)" },
    [CFG_MAX_MISTAKES] = { "limits.max_consecutive_mistakes", T_NUM, 1, NULL,
                           "mistakes in a row before hew asks" },
    [CFG_REQUEST_TIMEOUT_S] = { "limits.request_timeout_s", T_NUM, 1, NULL,
                                "deadline of one request" },
    [CFG_IDLE_TIMEOUT_S] = { "limits.idle_timeout_s", T_NUM, 1, NULL,
                             "silence from the provider before giving up" },
    [CFG_RETRY_DELAY_MS] = { "limits.retry_delay_ms", T_NUM, 1, NULL,
                             "base delay of automatic retries" },
    [CFG_TASK_TIMEOUT_S] = { "limits.task_timeout_s", T_NUM, 1, NULL,
                             "headless: give up after this long (0: never)" },
    [CFG_STRICT_PLAN] = { "strict_plan", T_BOOL, 1, NULL, "PLAN MODE refuses file edits" },
    [CFG_AUTO_CONDENSE] = { "auto_condense", T_ENUM, 1, "auto|on|off",
                            "summarise near the context limit (auto: capable models)" },
    [CFG_LANGUAGE] = { "language", T_STR, 1, NULL, "the language the model answers in" },
    [CFG_RULES_GLOBAL] = { "rules.global", T_BOOL, 1, NULL, "read ~/.config/hew/rules/" },
    [CFG_RULES_CLINERULES] = { "rules.clinerules", T_BOOL, 1, NULL, "read .clinerules" },
    [CFG_RULES_CURSORRULES] = { "rules.cursorrules", T_BOOL, 1, NULL,
                                "read .cursorrules and .cursor/rules/" },
    [CFG_RULES_WINDSURFRULES] = { "rules.windsurfrules", T_BOOL, 1, NULL,
                                  "read .windsurfrules" },
    [CFG_RULES_AGENTS] = { "rules.agents", T_BOOL, 1, NULL, "read AGENTS.md files" },
    [CFG_RULES_CLAUDE] = { "rules.claude", T_BOOL, 1, NULL,
                           "read CLAUDE.md files (and ~/.claude/CLAUDE.md)" },
    [CFG_RULES_GEMINI] = { "rules.gemini", T_BOOL, 1, NULL,
                           "read GEMINI.md files (and ~/.gemini/GEMINI.md)" },
    [CFG_RULES_CLINEIGNORE] = { "rules.clineignore", T_BOOL, 1, NULL,
                                "show the model the .clineignore text" },
    [CFG_SKILLS] = { "skills", T_BOOL, 1, NULL,
                     "offer the Agent Skills (SKILL.md) of .hew/skills, .claude/skills, ..." },
    [CFG_ENV_ALLOW] = { "commands.env_allow", T_NAMES, 0, NULL,
                        "environment variables commands get although they look secret" },
    [CFG_COMMANDS_ALLOW] = { "commands.allow", T_STRS, 1, NULL,
                             "commands that run like read-only ones (your own file only)" },
    [CFG_COMMANDS_DENY] = { "commands.deny", T_STRS, 1, NULL,
                            "commands never to run, even with --yolo" },
    [CFG_PROTOCOL] = { "protocol", T_ENUM, 1, "anthropic|openai-chat|openai-responses|gemini",
                       "the wire protocol (default: the provider's)" },
    [CFG_SANDBOX_MODE] = { "sandbox.mode", T_ENUM, 0,
                           "auto|read-only|workspace-write|danger-full-access",
                           "the sandbox of commands (auto: the ones you did not approve)" },
    [CFG_SANDBOX_WRITABLE_ROOTS] = { "sandbox.writable_roots", T_PATHS, 0, NULL,
                                     "more folders sandboxed commands may write" },
    [CFG_SANDBOX_NETWORK] = { "sandbox.network", T_BOOL, 0, NULL,
                              "sandboxed commands may use the network" },
    [CFG_SANDBOX_ALLOW_HOSTS] = { "sandbox.allow_hosts", T_HOSTS, 0, NULL,
                                  "hosts sandboxed commands may reach with the network off" },
    [CFG_SANDBOX_BACKEND] = { "sandbox.backend", T_ENUM, 0, "auto|landlock|bwrap",
                              "what confines commands (auto: landlock, else bwrap)" },
    [CFG_SANDBOX_HIDDEN] = { "sandbox.hidden", T_PATHS, 0, NULL,
                             "more paths sandboxed commands can neither read nor write" },
};

/* The provider table as the CLI needs it: which variable holds the key. */
static const struct {
    const char *name, *key_env;
} key_envs[] = {
    { "anthropic", "ANTHROPIC_API_KEY" },   { "openai", "OPENAI_API_KEY" },
    { "openai-compatible", "OPENAI_COMPATIBLE_API_KEY" },
    { "openrouter", "OPENROUTER_API_KEY" }, { "deepseek", "DEEPSEEK_API_KEY" },
    { "gemini", "GEMINI_API_KEY" },         { "xai", "XAI_API_KEY" },
    { "groq", "GROQ_API_KEY" },
};

const char *cli_provider_key_env(const char *provider)
{
    for (size_t i = 0; provider && i < sizeof key_envs / sizeof key_envs[0]; i++)
        if (strcmp(key_envs[i].name, provider) == 0)
            return key_envs[i].key_env;
    return NULL;
}

static const struct {
    const char *word;
    long bits;
} aa_words[] = {
    { "read", AA_READ },
    { "read-outside", AA_READ | AA_READ_OUTSIDE },
    { "edit", AA_EDIT },
    { "edit-outside", AA_EDIT | AA_EDIT_OUTSIDE },
    { "commands", AA_COMMANDS },
    { "safe-commands", AA_COMMANDS },
    { "all-commands", AA_COMMANDS | AA_ALL_COMMANDS },
    { "mcp", AA_MCP },
    { "all", AA_READ | AA_EDIT | AA_COMMANDS | AA_ALL_COMMANDS | AA_MCP },
    { "none", 0 },
};

int cli_auto_approve_parse(const char *list, long *bits, char *err, size_t errlen)
{
    long b = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ", ");
        if (n) {
            size_t i;
            for (i = 0; i < sizeof aa_words / sizeof aa_words[0]; i++)
                if (strlen(aa_words[i].word) == n && strncmp(aa_words[i].word, p, n) == 0)
                    break;
            if (i == sizeof aa_words / sizeof aa_words[0]) {
                snprintf(err, errlen,
                         "unknown auto-approve word '%.*s' — use read, read-outside, edit, "
                         "edit-outside, commands, all-commands, mcp, all or none, separated "
                         "by commas",
                         (int)n, p);
                return -1;
            }
            b |= aa_words[i].bits;
        }
        p += n;
        while (*p == ',' || *p == ' ')
            p++;
    }
    *bits = b;
    return 0;
}

const char *cli_auto_approve_str(long bits)
{
    static char out[128];
    static const struct {
        long bit;
        const char *word;
    } names[] = {
        { AA_READ, "read" },         { AA_READ_OUTSIDE, "read-outside" },
        { AA_EDIT, "edit" },         { AA_EDIT_OUTSIDE, "edit-outside" },
        { AA_COMMANDS, "commands" }, { AA_ALL_COMMANDS, "all-commands" },
        { AA_MCP, "mcp" },
    };
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (bits & names[i].bit) {
            if (out[0])
                strncat(out, ",", sizeof out - strlen(out) - 1);
            strncat(out, names[i].word, sizeof out - strlen(out) - 1);
        }
    if (!out[0])
        snprintf(out, sizeof out, "none");
    return out;
}

/* where a value came from (a long path is cut: it is only shown) */
static void set_source(cli_config *c, int k, const char *source)
{
    size_t n = strnlen(source, sizeof c->source[k] - 1);
    memcpy(c->source[k], source, n);
    c->source[k][n] = '\0';
}

static void set_str(cli_config *c, int k, const char *v, const char *source)
{
    free(c->str[k]);
    c->str[k] = v ? strdup(v) : NULL;
    set_source(c, k, source);
}

static void set_num(cli_config *c, int k, long v, const char *source)
{
    c->num[k] = v;
    set_source(c, k, source);
}

static int in_choices(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        size_t len = strcspn(p, "|");
        if (len == n && strncmp(p, v, n) == 0)
            return 1;
        p += len;
        if (*p)
            p++;
    }
    return 0;
}

/* Add v to the list of key k (a NULL-terminated array); source joins the sources. */
static int strs_add(cli_config *c, int k, const char *v, const char *source)
{
    size_t n = 0;
    while (c->strs[k] && c->strs[k][n])
        n++;
    char **grown = realloc(c->strs[k], (n + 2) * sizeof *grown);
    if (!grown)
        return -1;
    c->strs[k] = grown;
    if (!(grown[n] = strdup(v)))
        return -1;
    grown[n + 1] = NULL;
    if (!strstr(c->source[k], source)) {
        sbuf both = SBUF_INIT; /* set_source cuts a long one: it is only shown */
        sbuf_printf(&both, "%s%s%s", c->source[k], c->source[k][0] ? " + " : "", source);
        set_source(c, k, both.data ? both.data : source);
        sbuf_release(&both);
    }
    return 0;
}

static void note(cli_config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(cli_config *c, const char *fmt, ...)
{
    size_t at = strlen(c->notes);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->notes + at, sizeof c->notes - at, fmt, ap);
    va_end(ap);
}

/* commands.env_allow: a list of variable names or globs ("MY_TOKEN", "CI_*"). */
static int take_names(cli_config *c, int k, const json_t *v, const char *file,
                      const char *path, char *err, size_t errlen)
{
    if (!json_is_array(v)) {
        snprintf(err, errlen, "%s: %s: expected a list of variable names, e.g. "
                 "[\"MY_TOKEN\", \"CI_*\"]", file, path);
        return -1;
    }
    size_t n = json_array_size(v), i;
    json_t *e;
    json_array_foreach(v, i, e) {
        const char *s = json_string_value(e);
        if (!s || !*s || strlen(s) > 200 ||
            strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_*?[]!-") !=
                strlen(s)) {
            snprintf(err, errlen, "%s: %s[%zu]: expected a variable name or a glob (letters, "
                     "digits, _ and * ? [ ])", file, path, i);
            return -1;
        }
    }
    /* a later file replaces the list (as for the other settings) */
    for (size_t j = 0; c->strs[k] && c->strs[k][j]; j++)
        free(c->strs[k][j]);
    free(c->strs[k]);
    c->strs[k] = NULL;
    c->source[k][0] = '\0';
    (void)n;
    json_array_foreach(v, i, e) {
        if (strs_add(c, k, json_string_value(e), file) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* "~/x" with $HOME put in (a new string), an absolute path copied, else NULL. */
static char *expand_home(const char *p)
{
    const char *home = getenv("HOME");
    if (p[0] == '/')
        return strdup(p);
    if (p[0] == '~' && (p[1] == '/' || !p[1]) && home && home[0] == '/') {
        sbuf b = SBUF_INIT;
        sbuf_printf(&b, "%s%s", home, p + 1);
        return sbuf_detach(&b);
    }
    return NULL;
}

/* An allow-list entry as far as the file goes: one word of printable characters. The
 * library checks it in full when the session starts (net/egress: hosts, *.domains, ports,
 * addresses) and names what is wrong. */
static int host_ok(const char *h)
{
    size_t n = strlen(h);
    if (n == 0 || n > 300)
        return 0;
    for (; *h; h++)
        if ((unsigned char)*h <= ' ' || *h == 0x7f)
            return 0;
    return 1;
}

/* sandbox.writable_roots and sandbox.hidden (paths: absolute or ~/…) and
 * sandbox.allow_hosts (host names): a list that replaces what an earlier file said. */
static int take_list(cli_config *c, int k, enum cfg_type type, const json_t *v,
                     const char *file, const char *path, char *err, size_t errlen)
{
    bool hidden = k == CFG_SANDBOX_HIDDEN;
    const char *what = hidden ? "a list of paths, e.g. [\"~/.aws\", \"~/.ssh\"]"
                       : type == T_PATHS ? "a list of folders, e.g. [\"~/.cache/pip\"]"
                                         : "a list of host names, e.g. [\"pypi.org\", "
                                           "\"*.github.com\"]";
    if (!json_is_array(v)) {
        snprintf(err, errlen, "%s: %s: expected %s", file, path, what);
        return -1;
    }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        const char *s = json_string_value(e);
        char *full = s && type == T_PATHS ? expand_home(s) : NULL;
        int ok = s && (type == T_PATHS ? full != NULL : host_ok(s));
        free(full);
        if (!ok) {
            snprintf(err, errlen, "%s: %s[%zu]: expected %s", file, path, i,
                     hidden ? "an absolute path or one under ~/ (\"/srv/secrets\", "
                              "\"~/.aws\")"
                     : type == T_PATHS ? "an absolute folder or one under ~/ (\"/srv/cache\", "
                                         "\"~/.cache\")"
                                     : "a host (\"pypi.org\", \"*.github.com\", "
                                       "\"example.com:8443\", \"127.0.0.1\"), one word");
            return -1;
        }
    }
    for (size_t j = 0; c->strs[k] && c->strs[k][j]; j++)
        free(c->strs[k][j]);
    free(c->strs[k]);
    c->strs[k] = NULL;
    c->source[k][0] = '\0';
    json_array_foreach(v, i, e) {
        char *full = type == T_PATHS ? expand_home(json_string_value(e))
                                     : strdup(json_string_value(e));
        int rc = full ? strs_add(c, k, full, file) : -1;
        free(full);
        if (rc != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* Take one value of a config file. */
static int take_value(cli_config *c, int k, const json_t *v, const char *file, const char *path,
                      int project, char *err, size_t errlen)
{
    const struct cfg_def *d = &defs[k];
    const char *src = file;
    if (project && k == CFG_ENV_ALLOW) {
        /* A repository must not pull your secrets into the commands it gets the model to
         * run; not fatal: the project's other settings still apply. */
        note(c, "hew: %s: %s is ignored in a project's config (it would hand your secrets to "
                "commands) — put it in %s\n",
             file, path, c->user_path ? c->user_path : "~/.config/hew/config.json");
        return 0;
    }
    if (project && k >= CFG_SANDBOX_MODE && k <= CFG_SANDBOX_BACKEND) {
        /* A repository must not widen its own sandbox; not fatal: the user's settings and
         * the default still confine its commands. */
        note(c, "hew: note: %s: %s is ignored — a repository must not choose its own "
                "sandbox; set it in your own config file (%s) or with --sandbox\n",
             file, path, c->user_path ? c->user_path : "~/.config/hew/config.json");
        return 0;
    }
    if (project && !d->project_ok) {
        snprintf(err, errlen,
                 "%s: %s: not allowed in a project's config (a repository must not redirect "
                 "your API key or approve actions for you) — put it in your own config file, "
                 "%s",
                 file, path, c->user_path ? c->user_path : "~/.config/hew/config.json");
        return -1;
    }
    switch (d->type) {
    case T_STR:
    case T_ENUM:
        if (!json_is_string(v)) {
            snprintf(err, errlen, "%s: %s: expected a string", file, path);
            return -1;
        }
        if (d->type == T_ENUM && !in_choices(d->choices, json_string_value(v))) {
            snprintf(err, errlen, "%s: %s: '%s' is not one of %s", file, path,
                     json_string_value(v), d->choices);
            return -1;
        }
        set_str(c, k, json_string_value(v), src);
        return 0;
    case T_BOOL:
        if (!json_is_boolean(v)) {
            snprintf(err, errlen, "%s: %s: expected true or false", file, path);
            return -1;
        }
        set_num(c, k, json_is_true(v), src);
        return 0;
    case T_NUM:
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > LONG_MAX / 1000) {
            snprintf(err, errlen, "%s: %s: expected a whole number, 0 or more", file, path);
            return -1;
        }
        set_num(c, k, (long)json_integer_value(v), src);
        return 0;
    case T_NAMES:
        return take_names(c, k, v, file, path, err, errlen);
    case T_PATHS:
    case T_HOSTS:
        return take_list(c, k, d->type, v, file, path, err, errlen);
    case T_LIST: {
        sbuf list = SBUF_INIT;
        if (json_is_string(v)) {
            sbuf_puts(&list, json_string_value(v));
        } else if (json_is_array(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                if (!json_is_string(e)) {
                    snprintf(err, errlen, "%s: %s[%zu]: expected a string", file, path, i);
                    sbuf_release(&list);
                    return -1;
                }
                if (i)
                    sbuf_putc(&list, ',');
                sbuf_puts(&list, json_string_value(e));
            }
        } else {
            snprintf(err, errlen, "%s: %s: expected a list of words, e.g. [\"read\", \"edit\"]",
                     file, path);
            return -1;
        }
        long bits = 0;
        char why[300];
        int rc = cli_auto_approve_parse(list.data ? list.data : "", &bits, why, sizeof why);
        sbuf_release(&list);
        if (rc != 0) {
            snprintf(err, errlen, "%s: %s: %s", file, path, why);
            return -1;
        }
        set_num(c, k, bits, src);
        return 0;
    }
    case T_STRS: {
        if (!json_is_array(v)) {
            snprintf(err, errlen, "%s: %s: expected a list of command patterns, e.g. "
                                  "[\"npm test*\", \"git status\"]",
                     file, path);
            return -1;
        }
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (!json_is_string(e) || !*json_string_value(e)) {
                snprintf(err, errlen, "%s: %s[%zu]: expected a command pattern (a non-empty "
                                      "string)",
                         file, path, i);
                return -1;
            }
        }
        if (project && k == CFG_COMMANDS_ALLOW) {
            if (json_array_size(v))
                note(c, "hew: note: %s: %s is ignored — a repository must not let commands "
                        "run unasked; allow commands in your own config file (%s) or with "
                        "--allow-command\n",
                     file, path, c->user_path ? c->user_path : "~/.config/hew/config.json");
            return 0;
        }
        json_array_foreach(v, i, e) {
            if (strs_add(c, k, json_string_value(e), src) != 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        }
        return 0;
    }
    }
    return -1;
}

/* models: {"NAME": {description}}: each description as the library checks it. */
static int check_models(const json_t *models, const char *path, char *err, size_t errlen)
{
    if (!json_is_object(models)) {
        snprintf(err, errlen,
                 "%s: models: expected an object of model descriptions, e.g. {\"my-model\": "
                 "{\"context_window\": 131072, \"max_output\": 8192}}",
                 path);
        return -1;
    }
    const char *name;
    json_t *desc;
    json_object_foreach((json_t *)models, name, desc) {
        char *text = json_dumps(desc, JSON_COMPACT | JSON_ENCODE_ANY);
        char why[400] = "";
        hew_code rc = text ? hew_model_info_check(text, why, sizeof why) : HEW_E_NOMEM;
        free(text);
        if (rc != HEW_OK) {
            snprintf(err, errlen, "%s: models.%s: %s", path, name, why);
            return -1;
        }
    }
    return 0;
}

/* models.<model> from the project's file, else the user's, as JSON text. */
static void take_model_info(cli_config *c, const json_t *user, const json_t *project)
{
    const char *model = c->str[CFG_MODEL];
    if (!model)
        return;
    const json_t *roots[2] = { project, user };
    const char *paths[2] = { c->project_path, c->user_path };
    for (int i = 0; i < 2; i++) {
        const json_t *desc = json_object_get(json_object_get(roots[i], "models"), model);
        if (desc) {
            c->model_info = json_dumps(desc, JSON_COMPACT);
            snprintf(c->model_info_from, sizeof c->model_info_from, "%s",
                     paths[i] ? paths[i] : "");
            return;
        }
    }
}

/* providers.<name>.{model, base_url, api_key_env}: kept aside until the provider is known. */
struct provider_overrides {
    json_t *providers; /* borrowed from the user's file */
    char file[PATH_MAX];
};

static int load_file(cli_config *c, const char *path, int project, json_t **keep, char *err,
                     size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* no file: nothing to merge */
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "%s:%d:%d: not valid JSON: %s", path, je.line, je.column, je.text);
        return -1;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "%s: the top level must be an object ({ ... })", path);
        json_decref(root);
        return -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "limits") == 0 || strcmp(key, "rules") == 0 ||
            strcmp(key, "commands") == 0 || strcmp(key, "sandbox") == 0) {
            if (!json_is_object(v)) {
                snprintf(err, errlen, "%s: %s: expected an object", path, key);
                json_decref(root);
                return -1;
            }
            const char *lk;
            json_t *lv;
            json_object_foreach(v, lk, lv) {
                char full[200];
                snprintf(full, sizeof full, "%s.%s", key, lk);
                int k;
                for (k = 0; k < CFG_NKEYS; k++)
                    if (strcmp(defs[k].path, full) == 0)
                        break;
                if (k == CFG_NKEYS) {
                    snprintf(err, errlen,
                             strcmp(key, "rules") == 0
                                 ? "%s: %s: unknown setting (rules are global, clinerules, "
                                   "cursorrules, windsurfrules, agents, clineignore)"
                             : strcmp(key, "commands") == 0
                                 ? "%s: %s: unknown setting (see `man hew`, COMMAND POLICY)"
                             : strcmp(key, "sandbox") == 0
                                 ? "%s: %s: unknown setting (the sandbox's are mode, "
                                   "writable_roots, network, allow_hosts, backend, hidden)"
                                 : "%s: %s: unknown setting (limits are max_consecutive_mistakes, "
                                   "request_timeout_s, idle_timeout_s, retry_delay_ms, "
                                   "task_timeout_s)",
                             path, full);
                    json_decref(root);
                    return -1;
                }
                if (take_value(c, k, lv, path, full, project, err, errlen) != 0) {
                    json_decref(root);
                    return -1;
                }
            }
            continue;
        }
        if (strcmp(key, "hooks") == 0) {
            if (project) {
                snprintf(err, errlen, "%s: hooks: not allowed in a project's config — a "
                         "workspace's hooks go in .hew/hooks.json (they run once you trust "
                         "the workspace: `hew trust`), yours in %s", path,
                         c->user_path ? c->user_path : "~/.config/hew/config.json");
                json_decref(root);
                return -1;
            }
            free(c->hooks);
            c->hooks = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            continue;
        }
        if (strcmp(key, "models") == 0) {
            if (check_models(v, path, err, errlen) != 0) {
                json_decref(root);
                return -1;
            }
            continue;
        }
        if (strcmp(key, "providers") == 0) {
            if (project) {
                snprintf(err, errlen,
                         "%s: providers: not allowed in a project's config — put it in %s", path,
                         c->user_path ? c->user_path : "~/.config/hew/config.json");
                json_decref(root);
                return -1;
            }
            if (!json_is_object(v)) {
                snprintf(err, errlen, "%s: providers: expected an object of providers", path);
                json_decref(root);
                return -1;
            }
            const char *pk;
            json_t *pv;
            json_object_foreach(v, pk, pv) {
                if (!cli_provider_key_env(pk)) {
                    snprintf(err, errlen, "%s: providers.%s: unknown provider (%s)", path, pk,
                             defs[CFG_PROVIDER].choices);
                    json_decref(root);
                    return -1;
                }
                if (!json_is_object(pv)) {
                    snprintf(err, errlen, "%s: providers.%s: expected an object", path, pk);
                    json_decref(root);
                    return -1;
                }
                const char *fk;
                json_t *fv;
                json_object_foreach(pv, fk, fv) {
                    if ((strcmp(fk, "model") && strcmp(fk, "base_url") &&
                         strcmp(fk, "api_key_env") && strcmp(fk, "api_key")) ||
                        !json_is_string(fv)) {
                        snprintf(err, errlen,
                                 "%s: providers.%s.%s: unknown setting or not a string (use "
                                 "model, base_url, api_key_env, api_key)",
                                 path, pk, fk);
                        json_decref(root);
                        return -1;
                    }
                }
            }
            continue;
        }
        int k;
        for (k = 0; k < CFG_NKEYS; k++)
            if (strcmp(defs[k].path, key) == 0)
                break;
        if (k == CFG_NKEYS) {
            snprintf(err, errlen, "%s: %s: unknown setting (see `hew config --help`)", path, key);
            json_decref(root);
            return -1;
        }
        if (take_value(c, k, v, path, key, project, err, errlen) != 0) {
            json_decref(root);
            return -1;
        }
    }
    *keep = root;
    return 0;
}

static char *user_config_path(void)
{
    sbuf p = SBUF_INIT;
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg == '/')
        sbuf_printf(&p, "%s/hew/config.json", xdg);
    else if (home && *home)
        sbuf_printf(&p, "%s/.config/hew/config.json", home);
    else
        return NULL;
    return sbuf_detach(&p);
}

/* .hew/config.json at the workspace root of cwd (hew_workspace_root: the user's git
 * repository's top, else cwd itself) — never an arbitrary ancestor's, which anyone who
 * can write to /tmp or a parent folder could plant. */
static char *project_config_path(const char *cwd)
{
    char *root = NULL;
    if (hew_workspace_root(cwd, &root, NULL, 0) != HEW_OK)
        return NULL;
    sbuf p = SBUF_INIT;
    sbuf_printf(&p, "%s/.hew/config.json", root);
    hew_free(root);
    struct stat st; /* a FIFO or device a repository planted would hang the read: none */
    char *path = sbuf_detach(&p);
    if (path && (stat(path, &st) != 0 || !S_ISREG(st.st_mode))) {
        free(path);
        path = NULL;
    }
    return path;
}

void cli_config_release(cli_config *c)
{
    for (int k = 0; k < CFG_NKEYS; k++) {
        free(c->str[k]);
        for (size_t i = 0; c->strs[k] && c->strs[k][i]; i++)
            free(c->strs[k][i]);
        free(c->strs[k]);
    }
    free(c->user_path);
    free(c->project_path);
    free(c->key_from);
    free(c->model_info);
    free(c->key_hidden);
    free(c->hooks);
    memset(c, 0, sizeof *c);
}

/* --api-key-file FILE / HEW_API_KEY_FILE: the key is the file's text without its
 * trailing newline (and spaces); it must be one non-empty line of printable characters, at
 * most 16 KiB. A file other users can read is used with a warning (as Kubernetes mounts
 * secrets 0644 by default; ssh would refuse). The key is never put in a message. */
#define KEY_FILE_MAX 16384
static int take_key_file(cli_config *c, const char *path, const char *how, char *err,
                         size_t errlen)
{
    char src[256];
    snprintf(src, sizeof src, "%s %s", how, path);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read the API key file %s (%s): %s", path, how,
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "the API key file %s (%s) is not a regular file — put the key "
                 "alone in a file", path, how);
        close(fd);
        return -1;
    }
    char buf[KEY_FILE_MAX + 2];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf && (got = read(fd, buf + n, sizeof buf - n)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "cannot read the API key file %s (%s): %s", path, how,
                     strerror(errno));
            close(fd);
            return -1;
        }
        n += (size_t)got;
    }
    close(fd);
    while (n > 0 && strchr(" \t\r\n", buf[n - 1]))
        n--;
    const char *what = n == 0 ? "is empty" : n > KEY_FILE_MAX ? "is larger than 16 KiB" : NULL;
    for (size_t i = 0; !what && i < n; i++)
        if ((unsigned char)buf[i] <= ' ' || buf[i] == 0x7f)
            what = "holds more than the key (a space, a second line or a control character)";
    if (what) {
        snprintf(err, errlen, "the API key file %s (%s) %s — put only the key in it", path,
                 how, what);
        memset(buf, 0, sizeof buf);
        return -1;
    }
    buf[n] = '\0';
    set_str(c, CFG_API_KEY, buf, src);
    free(c->key_hidden); /* the file is hidden from sandboxed commands */
    c->key_hidden = realpath(path, NULL);
    memset(buf, 0, sizeof buf);
    if (!c->str[CFG_API_KEY]) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        note(c, "hew: warning: other users can read the API key file %s (mode %03o) — "
                "chmod 600 %s\n", path, (unsigned)(st.st_mode & 0777), path);
    return 0;
}

/* The SDKs' base URL variables, each for its provider, under the config files and
 * HEW_BASE_URL: OpenAI's and Anthropic's take the URL as hew does; Google's
 * (GOOGLE_GEMINI_BASE_URL, as @google/genai and gemini-cli read it) is the host, to which
 * the API version goes. */
static const struct {
    const char *provider, *var, *version;
} base_url_envs[] = {
    { "anthropic", "ANTHROPIC_BASE_URL", NULL },
    { "openai", "OPENAI_BASE_URL", NULL },
    { "gemini", "GOOGLE_GEMINI_BASE_URL", "/v1beta" },
};

static int take_base_url_env(cli_config *c)
{
    if (c->source[CFG_BASE_URL][0])
        return 0; /* the files, HEW_BASE_URL or --base-url said it */
    for (size_t i = 0; i < sizeof base_url_envs / sizeof base_url_envs[0]; i++) {
        const char *v = getenv(base_url_envs[i].var);
        if (strcmp(base_url_envs[i].provider, c->str[CFG_PROVIDER]) != 0 || !v || !*v)
            continue;
        sbuf url = SBUF_INIT, src = SBUF_INIT;
        size_t n = strlen(v);
        while (n > 0 && v[n - 1] == '/')
            n--;
        const char *ver = base_url_envs[i].version;
        int has_ver = ver && ((n >= 3 && strncmp(v + n - 3, "/v1", 3) == 0) ||
                              (n >= 7 && strncmp(v + n - 7, "/v1beta", 7) == 0) ||
                              (n >= 8 && strncmp(v + n - 8, "/v1alpha", 8) == 0));
        sbuf_printf(&url, "%.*s%s", (int)n, v, ver && !has_ver ? ver : "");
        sbuf_printf(&src, "environment %s", base_url_envs[i].var);
        set_str(c, CFG_BASE_URL, url.data ? url.data : v, src.data ? src.data : "environment");
        sbuf_release(&url);
        sbuf_release(&src);
        return c->str[CFG_BASE_URL] ? 0 : -1;
    }
    return 0;
}

static int load(cli_config *c, const cli_options *co, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    for (int k = 0; k < CFG_NKEYS; k++)
        c->num[k] = -1;
    /* defaults */
    set_str(c, CFG_PROVIDER, "anthropic", "");
    set_str(c, CFG_MODE, "act", "");
    set_str(c, CFG_TOOLS, "auto", "");
    set_num(c, CFG_AUTO_APPROVE, AA_READ, "");
    set_num(c, CFG_YOLO, 0, "");
    hew_options d;
    hew_options_init(&d);
    set_num(c, CFG_PARALLEL_TOOL_CALLS, d.parallel_tool_calls, "");
    set_num(c, CFG_MAX_MISTAKES, d.max_consecutive_mistakes, "");
    set_num(c, CFG_REQUEST_TIMEOUT_S, d.request_timeout_ms / 1000, "");
    set_num(c, CFG_IDLE_TIMEOUT_S, d.idle_timeout_ms / 1000, "");
    set_num(c, CFG_RETRY_DELAY_MS, d.retry_base_delay_ms, "");
    set_num(c, CFG_TASK_TIMEOUT_S, 0, "");
    set_num(c, CFG_THINKING, 0, "");
    set_num(c, CFG_STRICT_PLAN, 0, "");
    set_str(c, CFG_AUTO_CONDENSE, "auto", "");
    set_str(c, CFG_SANDBOX_MODE, "auto", "");
    set_str(c, CFG_SANDBOX_BACKEND, "auto", "");
    set_num(c, CFG_SANDBOX_NETWORK, 0, "");
    for (int k = CFG_RULES_GLOBAL; k <= CFG_RULES_CLINEIGNORE; k++)
        set_num(c, k, 1, "");
    set_num(c, CFG_SKILLS, 1, "");

    json_t *user = NULL, *project = NULL;
    int no_files = co && co->no_config;
    c->user_path = user_config_path();
    if (!no_files && c->user_path && load_file(c, c->user_path, 0, &user, err, errlen) != 0)
        return -1;
    /* the provider the user's file chose: its top-level model/base_url/key belong to it */
    char *file_provider = c->user_path && strcmp(c->source[CFG_PROVIDER], c->user_path) == 0
                              ? strdup(c->str[CFG_PROVIDER])
                              : NULL;
    c->project_path = no_files ? NULL : project_config_path(co ? co->cwd : NULL);
    if (c->project_path && load_file(c, c->project_path, 1, &project, err, errlen) != 0) {
        json_decref(user);
        free(file_provider);
        return -1;
    }

    /* the environment */
    static const struct {
        const char *var;
        int key;
    } envs[] = { { "HEW_PROVIDER", CFG_PROVIDER }, { "HEW_MODEL", CFG_MODEL },
                 { "HEW_BASE_URL", CFG_BASE_URL } };
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        const char *v = getenv(envs[i].var);
        if (v && *v) {
            char src[64];
            snprintf(src, sizeof src, "environment %s", envs[i].var);
            set_str(c, envs[i].key, v, src);
        }
    }
    const char *key_file = getenv("HEW_API_KEY_FILE");
    if (key_file && *key_file && !(co && co->api_key_file) &&
        take_key_file(c, key_file, "environment HEW_API_KEY_FILE", err, errlen) != 0)
        goto fail;

    /* the command line */
    if (co) {
        if (co->provider)
            set_str(c, CFG_PROVIDER, co->provider, "flag --provider");
        if (co->model)
            set_str(c, CFG_MODEL, co->model, "flag --model");
        if (co->base_url)
            set_str(c, CFG_BASE_URL, co->base_url, "flag --base-url");
        if (co->protocol)
            set_str(c, CFG_PROTOCOL, co->protocol, "flag --protocol");
        if (co->mode)
            set_str(c, CFG_MODE, co->mode, co->mode[0] == 'p' ? "flag --plan" : "flag --act");
        if (co->yolo)
            set_num(c, CFG_YOLO, 1, "flag --yolo");
        if (co->native_tools >= 0)
            set_str(c, CFG_TOOLS, co->native_tools ? "native" : "xml",
                    co->native_tools ? "flag --native-tools" : "flag --xml-tools");
        if (co->retry_delay_ms >= 0)
            set_num(c, CFG_RETRY_DELAY_MS, co->retry_delay_ms, "flag --retry-delay-ms");
        if (co->timeout_s >= 0)
            set_num(c, CFG_TASK_TIMEOUT_S, co->timeout_s, "flag --timeout");
        if (co->thinking >= 0)
            set_num(c, CFG_THINKING, co->thinking, "flag --thinking");
        if (co->auto_approve) {
            long bits;
            if (cli_auto_approve_parse(co->auto_approve, &bits, err, errlen) != 0) {
                json_decref(user);
                json_decref(project);
                free(file_provider);
                return -1;
            }
            set_num(c, CFG_AUTO_APPROVE, bits, "flag --auto-approve");
        }
        if (co->api_key_file &&
            take_key_file(c, co->api_key_file, "flag --api-key-file", err, errlen) != 0)
            goto fail;
        for (int i = 0; i < co->nallow_commands; i++)
            if (strs_add(c, CFG_COMMANDS_ALLOW, co->allow_commands[i], "flag --allow-command"))
                goto oom;
        for (int i = 0; i < co->ndeny_commands; i++)
            if (strs_add(c, CFG_COMMANDS_DENY, co->deny_commands[i], "flag --deny-command"))
                goto oom;
        if (co->sandbox)
            set_str(c, CFG_SANDBOX_MODE, co->sandbox, "flag --sandbox");
    }
    if (!cli_provider_key_env(c->str[CFG_PROVIDER])) {
        snprintf(err, errlen, "unknown provider '%s' (from %s) — use %s", c->str[CFG_PROVIDER],
                 c->source[CFG_PROVIDER][0] ? c->source[CFG_PROVIDER] : "the default",
                 defs[CFG_PROVIDER].choices);
        json_decref(user);
        json_decref(project);
        free(file_provider);
        return -1;
    }

    /* A provider chosen later (environment, flag, project) than the user's file takes the
     * file's model, URL and key settings only when they were meant for it. */
    const char *prov = c->str[CFG_PROVIDER];
    if (file_provider && strcmp(file_provider, prov) != 0) {
        static const int tied[] = { CFG_MODEL, CFG_BASE_URL, CFG_API_KEY_ENV, CFG_API_KEY };
        for (size_t i = 0; i < sizeof tied / sizeof tied[0]; i++)
            if (c->source[tied[i]][0] && c->user_path &&
                strcmp(c->source[tied[i]], c->user_path) == 0)
                set_str(c, tied[i], NULL, "");
    }
    /* providers.<name> from the user's file: under anything more specific */
    json_t *po = json_object_get(json_object_get(user, "providers"), prov);
    if (po) {
        static const struct {
            const char *field;
            int key;
        } fields[] = { { "model", CFG_MODEL }, { "base_url", CFG_BASE_URL },
                       { "api_key_env", CFG_API_KEY_ENV }, { "api_key", CFG_API_KEY } };
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
            const char *v = json_string_value(json_object_get(po, fields[i].field));
            const char *cur = c->source[fields[i].key];
            if (!v || (cur[0] && strcmp(cur, c->user_path) != 0))
                continue; /* set by the project, the environment or a flag */
            char src[200];
            snprintf(src, sizeof src, "%s (providers.%s)", c->user_path, prov);
            set_str(c, fields[i].key, v, src);
        }
    }
    free(file_provider);
    file_provider = NULL;
    if (take_base_url_env(c) != 0)
        goto oom;
    take_model_info(c, user, project);
    json_decref(user);
    json_decref(project);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    json_decref(user);
    json_decref(project);
    free(file_provider);
    return -1;
}

int cli_config_load(cli_config *c, const cli_options *co, char *err, size_t errlen)
{
    int rc = load(c, co, err, errlen);
    /* the key file joins the user's hidden paths, after them (set by any file or flag) */
    if (rc == 0 && c->key_hidden &&
        strs_add(c, CFG_SANDBOX_HIDDEN, c->key_hidden, "--api-key-file") != 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc != 0)
        cli_config_release(c);
    return rc;
}

int cli_config_apply(const cli_config *c, hew_options *o, char *err, size_t errlen)
{
    o->provider = c->str[CFG_PROVIDER];
    o->env_allow = (const char *const *)c->strs[CFG_ENV_ALLOW];
    o->model = c->str[CFG_MODEL];
    o->model_info = c->model_info;
    o->hooks = c->hooks;
    o->hooks_source = c->hooks ? c->user_path : NULL;
    o->base_url = c->str[CFG_BASE_URL];
    o->protocol = c->str[CFG_PROTOCOL];
    /* the default (no source) is no choice: a resumed task keeps its own mode */
    o->mode = c->source[CFG_MODE][0] ? c->str[CFG_MODE] : NULL;
    o->yolo = c->num[CFG_YOLO] > 0;
    long aa = c->num[CFG_AUTO_APPROVE];
    o->auto_approve_read = !!(aa & AA_READ);
    o->auto_approve_read_outside = !!(aa & AA_READ_OUTSIDE);
    o->auto_approve_edit = !!(aa & AA_EDIT);
    o->auto_approve_edit_outside = !!(aa & AA_EDIT_OUTSIDE);
    o->auto_approve_safe_commands = !!(aa & AA_COMMANDS);
    o->auto_approve_all_commands = !!(aa & AA_ALL_COMMANDS);
    o->auto_approve_mcp = !!(aa & AA_MCP);
    o->parallel_tool_calls = c->num[CFG_PARALLEL_TOOL_CALLS] != 0;
    const char *tools = c->str[CFG_TOOLS];
    o->native_tools = !tools || strcmp(tools, "auto") == 0 ? -1 : strcmp(tools, "native") == 0;
    o->max_consecutive_mistakes = (int)c->num[CFG_MAX_MISTAKES];
    o->strict_plan = c->num[CFG_STRICT_PLAN] != 0;
    const char *condense = c->str[CFG_AUTO_CONDENSE];
    o->auto_condense = !condense || strcmp(condense, "auto") == 0 ? -1 : strcmp(condense, "on") == 0;
    o->language = c->str[CFG_LANGUAGE];
    o->rules_global = c->num[CFG_RULES_GLOBAL] != 0;
    o->rules_clinerules = c->num[CFG_RULES_CLINERULES] != 0;
    o->rules_cursorrules = c->num[CFG_RULES_CURSORRULES] != 0;
    o->rules_windsurfrules = c->num[CFG_RULES_WINDSURFRULES] != 0;
    o->rules_agents = c->num[CFG_RULES_AGENTS] != 0;
    o->rules_claude = c->num[CFG_RULES_CLAUDE] != 0;
    o->rules_gemini = c->num[CFG_RULES_GEMINI] != 0;
    o->rules_clineignore = c->num[CFG_RULES_CLINEIGNORE] != 0;
    o->skills = c->num[CFG_SKILLS] != 0;
    o->request_timeout_ms = c->num[CFG_REQUEST_TIMEOUT_S] * 1000;
    o->idle_timeout_ms = c->num[CFG_IDLE_TIMEOUT_S] * 1000;
    o->retry_base_delay_ms = c->num[CFG_RETRY_DELAY_MS];
    o->thinking_budget = c->num[CFG_THINKING];
    o->command_allow = (const char *const *)c->strs[CFG_COMMANDS_ALLOW];
    o->command_deny = (const char *const *)c->strs[CFG_COMMANDS_DENY];
    o->sandbox_mode = c->str[CFG_SANDBOX_MODE];
    o->sandbox_backend = c->str[CFG_SANDBOX_BACKEND];
    o->sandbox_network = c->num[CFG_SANDBOX_NETWORK] > 0;
    o->sandbox_writable_roots = (const char *const *)c->strs[CFG_SANDBOX_WRITABLE_ROOTS];
    o->sandbox_allow_hosts = (const char *const *)c->strs[CFG_SANDBOX_ALLOW_HOSTS];
    o->sandbox_hidden = (const char *const *)c->strs[CFG_SANDBOX_HIDDEN];
    o->api_key = NULL;
    if (c->str[CFG_API_KEY] && *c->str[CFG_API_KEY]) {
        o->api_key = c->str[CFG_API_KEY];
    } else if (c->str[CFG_API_KEY_ENV] && *c->str[CFG_API_KEY_ENV]) {
        const char *v = getenv(c->str[CFG_API_KEY_ENV]);
        if (!v || !*v) {
            snprintf(err, errlen,
                     "the config (%s) says the API key is in $%s, but it is not set — "
                     "export %s=YOUR_KEY, or remove api_key_env to use the provider's usual "
                     "variable",
                     c->source[CFG_API_KEY_ENV], c->str[CFG_API_KEY_ENV],
                     c->str[CFG_API_KEY_ENV]);
            return -1;
        }
        o->api_key = v;
    }
    return 0;
}

void cli_mask_key(const char *key, char *out, size_t n)
{
    snprintf(out, n, "%.*s***", strlen(key) >= 12 ? 3 : 0, key);
}

const char *cli_config_key(const cli_config *c, char *from, size_t n)
{
    if (c->str[CFG_API_KEY] && *c->str[CFG_API_KEY]) {
        snprintf(from, n, "%s", c->source[CFG_API_KEY]);
        return c->str[CFG_API_KEY];
    }
    const char *var = c->str[CFG_API_KEY_ENV] && *c->str[CFG_API_KEY_ENV]
                          ? c->str[CFG_API_KEY_ENV]
                          : cli_provider_key_env(c->str[CFG_PROVIDER]);
    const char *key = var ? getenv(var) : NULL;
    if ((!key || !*key) && strcmp(c->str[CFG_PROVIDER], "gemini") == 0 &&
        getenv("GOOGLE_API_KEY") && *getenv("GOOGLE_API_KEY")) {
        var = "GOOGLE_API_KEY";
        key = getenv(var);
    }
    snprintf(from, n, "environment %s", var ? var : "?");
    return key && *key ? key : NULL;
}

int cli_config_show(const cli_options *co, int as_json)
{
    cli_config c;
    char err[1024];
    if (cli_config_load(&c, co, err, sizeof err) != 0) {
        fprintf(stderr, "hew: %s\n", err);
        return 2;
    }
    char from[300], masked[16] = "";
    const char *key = cli_config_key(&c, from, sizeof from);
    if (key)
        cli_mask_key(key, masked, sizeof masked);

    if (c.notes[0])
        fputs(c.notes, stderr);
    if (as_json) {
        json_t *o = json_object();
        for (int k = 0; k < CFG_NKEYS; k++) {
            if (k == CFG_API_KEY)
                continue;
            json_t *v;
            if (defs[k].type == T_STR || defs[k].type == T_ENUM)
                v = c.str[k] ? json_string(c.str[k]) : json_null();
            else if (defs[k].type == T_BOOL)
                v = json_boolean(c.num[k] > 0);
            else if (defs[k].type == T_LIST)
                v = json_string(cli_auto_approve_str(c.num[k]));
            else if (defs[k].type == T_STRS || defs[k].type == T_NAMES ||
                     defs[k].type == T_PATHS || defs[k].type == T_HOSTS) {
                v = json_array();
                for (size_t i = 0; c.strs[k] && c.strs[k][i]; i++)
                    json_array_append_new(v, json_string(c.strs[k][i]));
            } else
                v = json_integer(c.num[k]);
            json_object_set_new(o, defs[k].path, json_pack("{s:o, s:s}", "value", v, "source",
                                                           c.source[k][0] ? c.source[k]
                                                                          : "default"));
        }
        json_object_set_new(o, "api_key",
                            json_pack("{s:o, s:s}", "value",
                                      *masked ? json_string(masked) : json_null(), "source",
                                      from));
        const char *dd = cli_data_dir_source() ? getenv("HEW_DATA_DIR") : NULL;
        json_object_set_new(o, "data_dir",
                            json_pack("{s:o, s:s}", "value", dd ? json_string(dd) : json_null(),
                                      "source", dd ? cli_data_dir_source() : "default"));
        json_object_set_new(o, "files",
                            json_pack("{s:o, s:o}", "user",
                                      c.user_path ? json_string(c.user_path) : json_null(),
                                      "project",
                                      c.project_path ? json_string(c.project_path)
                                                     : json_null()));
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (s)
            puts(s);
        free(s);
        json_decref(o);
    } else {
        struct stat st;
        printf("# user config:    %s%s\n", c.user_path ? c.user_path : "(no $HOME)",
               c.user_path && stat(c.user_path, &st) != 0 ? " (not there)" : "");
        printf("# project config: %s\n", c.project_path ? c.project_path : "(none)");
        for (int k = 0; k < CFG_NKEYS; k++) {
            if (k == CFG_API_KEY)
                continue;
            char val[256];
            if (k == CFG_MODEL && !c.str[k]) { /* the default, resolved: its real name */
                hew_options mo;
                hew_options_init(&mo);
                mo.provider = c.str[CFG_PROVIDER];
                char *label = modelname_label(&mo);
                snprintf(val, sizeof val, "%s", label);
                free(label);
            } else if (defs[k].type == T_STR || defs[k].type == T_ENUM)
                snprintf(val, sizeof val, "%s",
                         c.str[k] ? c.str[k]
                         : k == CFG_BASE_URL   ? "(the provider's URL)"
                                               : "(not set)");
            else if (defs[k].type == T_BOOL)
                snprintf(val, sizeof val, "%s", c.num[k] > 0 ? "true" : "false");
            else if (defs[k].type == T_LIST)
                snprintf(val, sizeof val, "%s", cli_auto_approve_str(c.num[k]));
            else if (defs[k].type == T_STRS || defs[k].type == T_NAMES ||
                     defs[k].type == T_PATHS || defs[k].type == T_HOSTS) {
                sbuf list = SBUF_INIT;
                for (size_t i = 0; c.strs[k] && c.strs[k][i]; i++)
                    sbuf_printf(&list, "%s\"%s\"", i ? ", " : "[", c.strs[k][i]);
                snprintf(val, sizeof val, "%s%s", list.data ? list.data : "[", "]");
                sbuf_release(&list);
            } else
                snprintf(val, sizeof val, "%ld", c.num[k]);
            printf("%-33s %-30s %s\n", defs[k].path, val, c.source[k][0] ? c.source[k] : "default");
        }
        printf("%-33s %-30s %s\n", "api_key", *masked ? masked : "(not set)", from);
        const char *dd = cli_data_dir_source() ? getenv("HEW_DATA_DIR") : NULL;
        printf("%-33s %-30s %s\n", "data_dir", dd ? dd : "(~/.local/share/hew)",
               dd ? cli_data_dir_source() : "default ($XDG_DATA_HOME/hew)");
    }
    cli_config_release(&c);
    return 0;
}

void cli_explain_session_error(const char *err, const char *provider)
{
    fputs("hew: ", stderr);
    termsafe_fputs(err, stderr); /* it may quote a project's file */
    fputc('\n', stderr);
    if (strstr(err, "no API key")) {
        const char *var = cli_provider_key_env(provider);
        fprintf(stderr,
                "  Set the key:        export %s=...   (or name another variable with "
                "\"api_key_env\" in ~/.config/hew/config.json)\n"
                "  Or a local model:   hew --provider openai-compatible --base-url "
                "http://localhost:11434/v1 --model llama3.1   (Ollama; llama.cpp: "
                "http://localhost:8080/v1)\n",
                var ? var : "THE_PROVIDERS_API_KEY");
    }
}

void cli_note_unknown_model(const hew_options *o)
{
    if (!o->model || hew_options_model_known(o))
        return;
    char *model = termsafe_dup(o->model, 1); /* the name may come from a project's file */
    fprintf(stderr,
            "hew: note: hew's model table does not know \"%s\": it assumes a context "
            "window of 128,000 tokens (as Cline does), no images, no thinking and no "
            "prices. Describe the model in ~/.config/hew/config.json:\n"
            "  \"models\": {\"%s\": {\"context_window\": 131072, \"max_output\": 8192, "
            "\"images\": false, \"input_price\": 0.5, \"output_price\": 1.5}}\n",
            model ? model : "?", model ? model : "?");
    free(model);
}
