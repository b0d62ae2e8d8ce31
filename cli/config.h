/* config — hew's settings from every place they can come from, merged in one order:
 * built-in defaults < the user's file ($XDG_CONFIG_HOME/hew/config.json, by default
 * ~/.config/hew/config.json) < the project's file (.hew/config.json at the workspace
 * root: the top of the user's git repository holding the workspace, else the workspace
 * folder; never another ancestor) < environment variables (HEW_PROVIDER,
 * HEW_MODEL, HEW_BASE_URL) < command-line flags. Each value remembers where it came from
 * (`hew config` shows it). A project's file may not redirect the API key or approve
 * actions (base_url, api_key, api_key_env, yolo, auto_approve, providers): a repository
 * you open must not send your key elsewhere or run commands unasked. Lists of command
 * rules merge instead: commands.deny from both files and --deny-command; commands.allow
 * from the user's file and --allow-command only (a project's is ignored, with a note).
 * The sandbox's settings (sandbox.*) come from the user's file and --sandbox only: a
 * project's are ignored with a note (a repository must not widen its own sandbox).
 * Errors name the file and the JSON path of the problem. It never prints a secret
 * unmasked and never exits. */
#ifndef HEW_CLI_CONFIG_H
#define HEW_CLI_CONFIG_H

#include <stddef.h>

#include "hew.h"

struct cli_options;

/* The settings, by key. Strings are owned by the config. */
enum cfg_key {
    CFG_PROVIDER,
    CFG_MODEL,
    CFG_BASE_URL,
    CFG_API_KEY_ENV,
    CFG_API_KEY,
    CFG_MODE,
    CFG_YOLO,
    CFG_AUTO_APPROVE,
    CFG_PARALLEL_TOOL_CALLS,
    CFG_TOOLS,
    CFG_THINKING,
    CFG_MAX_MISTAKES,
    CFG_REQUEST_TIMEOUT_S,
    CFG_IDLE_TIMEOUT_S,
    CFG_RETRY_DELAY_MS,
    CFG_TASK_TIMEOUT_S,
    CFG_STRICT_PLAN,
    CFG_AUTO_CONDENSE,
    CFG_LANGUAGE,
    CFG_RULES_GLOBAL,
    CFG_RULES_CLINERULES,
    CFG_RULES_CURSORRULES,
    CFG_RULES_WINDSURFRULES,
    CFG_RULES_AGENTS,
    CFG_RULES_CLAUDE,
    CFG_RULES_GEMINI,
    CFG_RULES_CLINEIGNORE,
    CFG_SKILLS,
    CFG_ENV_ALLOW, /* commands.env_allow: the user's file only */
    CFG_COMMANDS_ALLOW, /* commands.allow: the user's file and flags only */
    CFG_COMMANDS_DENY,  /* commands.deny: both files and flags, merged */
    CFG_PROTOCOL,
    /* the sandbox of commands (docs/sandbox.md): the user's file and flags only */
    CFG_SANDBOX_MODE,
    CFG_SANDBOX_WRITABLE_ROOTS,
    CFG_SANDBOX_NETWORK,
    CFG_SANDBOX_ALLOW_HOSTS,
    CFG_SANDBOX_BACKEND,
    CFG_SANDBOX_HIDDEN, /* the user's paths, then the --api-key-file's file */
    CFG_NKEYS
};

/* auto_approve bits */
enum {
    AA_READ = 1 << 0,
    AA_READ_OUTSIDE = 1 << 1,
    AA_EDIT = 1 << 2,
    AA_EDIT_OUTSIDE = 1 << 3,
    AA_COMMANDS = 1 << 4,     /* commands hew judges read-only (cmdpolicy) */
    AA_ALL_COMMANDS = 1 << 5, /* every command */
    AA_MCP = 1 << 6,
};

typedef struct cli_config {
    char *str[CFG_NKEYS];    /* string values (provider, model, ...) or NULL */
    long num[CFG_NKEYS];     /* numbers and booleans; -1: not set */
    char source[CFG_NKEYS][256]; /* where the value came from ("" = default) */
    char *user_path;         /* the user's file (may not exist) */
    char *project_path;      /* the project's file found, or NULL */
    char *key_from;          /* where the API key comes from, for `hew config` */
    char *key_hidden;        /* the --api-key-file's file (absolute), hidden from
                                sandboxed commands, or NULL */
    char *model_info;        /* models.<model> of the files for the chosen model (JSON
                                text), or NULL */
    char model_info_from[256]; /* which file it came from */
    char **strs[CFG_NKEYS];  /* lists of strings (commands.allow, .deny, .env_allow):
                                NULL-terminated, or NULL when empty */
    char notes[1024];        /* warnings about the files ("" none), printed by
                                cli_setup_options and `hew config` */
    char *hooks;             /* the user's file's "hooks" (JSON text; the library checks
                                it: docs/hooks.md), or NULL; a project's config.json may
                                not hold hooks (.hew/hooks.json, trusted, does) */
} cli_config;

/* Load and merge everything for the workspace cwd (NULL: the current directory) and the
 * command line co (may be NULL). Returns 0, or -1 with a message in err (the file, the
 * JSON path, what is wrong). */
int cli_config_load(cli_config *c, const struct cli_options *co, char *err, size_t errlen);
void cli_config_release(cli_config *c);

/* Fill library options from the merged settings (strings borrowed from c). Returns 0, or
 * -1 with a message (an API key variable named in the config is not set). */
int cli_config_apply(const cli_config *c, hew_options *o, char *err, size_t errlen);

/* Parse an auto-approve list ("read,edit,commands", "all", "none") into AA_* bits.
 * Returns 0, or -1 with a message naming the unknown word. */
int cli_auto_approve_parse(const char *list, long *bits, char *err, size_t errlen);
/* The bits as a list ("read,edit"); a static buffer. */
const char *cli_auto_approve_str(long bits);

/* The environment variable a provider reads its key from (NULL: unknown provider). */
const char *cli_provider_key_env(const char *provider);

/* The API key c leads to (borrowed from c or the environment), or NULL when there is
 * none; from receives where it comes or would come from ("environment
 * ANTHROPIC_API_KEY", a config file). */
const char *cli_config_key(const cli_config *c, char *from, size_t n);
/* key as it may be shown: its first 3 characters (12 or more) and "***". */
void cli_mask_key(const char *key, char *out, size_t n);

/* `hew config [--json]`: print the effective configuration, secrets masked. */
int cli_config_show(const struct cli_options *co, int json);

/* A message for a session that could not start: err from the library, with what to do
 * added (which variable to set, how to run a local model). Writes to stderr. */
void cli_explain_session_error(const char *err, const char *provider);

/* When hew's model table does not know the model o names (and the config does not
 * describe it): a note on stderr saying what hew assumes and how to describe the model
 * under "models" in the config file. */
void cli_note_unknown_model(const hew_options *o);

#endif
