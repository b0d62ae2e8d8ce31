/* cli — what the files of the `hew` command share. Only include/hew.h is used below this. */
#ifndef HEW_CLI_H
#define HEW_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "hew.h"

/* `hew debug sse ...` (argv starts after "sse"); returns the exit status. */
int cli_debug_sse(int argc, char **argv);

/* `hew debug decode ...` (argv starts after "decode"); returns the exit status. */
int cli_debug_decode(int argc, char **argv);

/* `hew debug parse ...` (argv starts after "parse"); returns the exit status. */
int cli_debug_parse(int argc, char **argv);

struct hew_options;

#define CLI_MAX_RULES 64

/* What the command line says (strings borrowed from argv). */
typedef struct cli_options {
    const char *task;      /* -p TEXT / hew "TEXT", or NULL (headless: read standard input) */
    int headless;          /* -p given */
    int json;
    int verbose;           /* -v: the transcript on standard error */
    int yolo;
    const char *provider, *model, *base_url, *cwd, *mode, *protocol;
    const char *auto_approve; /* --auto-approve LIST, or NULL */
    int native_tools;      /* -1 auto, 0 --xml-tools, 1 --native-tools */
    long timeout_s;        /* -1: not given (0: none) */
    double max_cost_usd;   /* --max-cost: 0 none */
    long max_requests;     /* --max-requests: 0 none */
    long retry_delay_ms;   /* -1: default */
    long thinking;         /* --thinking BUDGET tokens; -1: not given */
    int cont;              /* --continue */
    const char *resume_id; /* --resume ID */
    int no_config;         /* --no-config: ignore the config files */
    int trust;             /* --trust: the workspace's project files for this run only */
    /* --allow-command / --deny-command PATTERN, each repeatable (up to CLI_MAX_RULES) */
    const char *allow_commands[CLI_MAX_RULES + 1];
    const char *deny_commands[CLI_MAX_RULES + 1];
    int nallow_commands, ndeny_commands;
    /* isolation and control (issue #18; --data-dir is taken off the command line before,
     * by cli_data_dir_setup) */
    int ephemeral;            /* --ephemeral: nothing stored (no store, checkpoints, log) */
    int no_checkpoints;       /* --no-checkpoints */
    int no_mcp;               /* --no-mcp: no MCP server started */
    const char *output;       /* -o FILE: the result written there, or NULL */
    const char *api_key_file; /* --api-key-file FILE, or NULL */
    const char *record_dir;          /* --record DIR: save every exchange (docs/replay.md) */
    const struct hew_replay *replay; /* hew replay: the recording's options win (replay.c) */
    const char *sandbox;      /* --sandbox MODE (checked: one of CLI_SANDBOX_MODES), or NULL */
    /* -i / --image FILE, repeatable: images after the task's text (hew_task_start_images) */
    const char *images[HEW_TASK_IMAGES_MAX];
    int nimages;
} cli_options;

/* The words --sandbox and sandbox.mode take. */
#define CLI_SANDBOX_MODES "auto, read-only, workspace-write or danger-full-access"

/* Parse argv (after the program name). Returns 0, or 2 after printing a usage error. */
int cli_parse_options(int argc, char **argv, cli_options *co);
/* Check what the flags mean together, once co is complete (after `hew resume ID` set
 * resume_id): --ephemeral with --continue/--resume, -o on the interactive terminal.
 * Returns 0, or 2 after printing a usage error. */
int cli_options_check(const cli_options *co);

/* ---- isolation and control (issue #18) ----------------------------------------------- */
/* `--data-dir DIR` (or `--data-dir=DIR`) anywhere before a `--` is taken out of argv
 * (*argc shrinks) and, like a set HEW_DATA_DIR, the folder is created 0700 when missing,
 * checked to be a writable folder, made absolute and put in HEW_DATA_DIR, which every part
 * of hew reads (datadir.c). *ephemeral is set when --ephemeral is on the command line (it
 * stays there for cli_parse_options): the log is then not enabled. 0, or -1 with why in
 * err (exit 2). */
int cli_data_dir_setup(int *argc, char **argv, int *ephemeral, char *err, size_t errlen);
/* Where the data folder in HEW_DATA_DIR came from ("flag --data-dir", "environment
 * HEW_DATA_DIR"), or NULL when neither set it (the library's default): `hew config`. */
const char *cli_data_dir_source(void);
/* -o FILE (outfile.c). cli_outfile_check: before the task runs, that FILE can be written
 * (its folder exists and is writable, it is not a folder): 0, or 2 after printing why.
 * cli_outfile_finish: after the run, with the last task (NULL: none started) and the exit
 * code so far: a completed task's result is written to FILE byte for byte, atomically (a
 * temporary file beside it, renamed over it; a FILE that is not a regular file, such as
 * /dev/stdout, is written in place); any other ending removes a regular FILE left from
 * before, so FILE exists after a run only when that run completed. Returns code, or 1
 * after printing why when FILE could not be written. path NULL: nothing, returns code. */
int cli_outfile_check(const char *path);
int cli_outfile_finish(const char *path, const hew_task *task, int code);
/* The task text of a headless run (stdin_task.c): text (-p TEXT or `hew TEXT`, may be
 * NULL), and when standard input is not a terminal, what it holds (read to its end, at
 * most CLI_STDIN_MAX bytes), joined as TEXT, a blank line, the input. A new string, or
 * NULL after printing why (no task at all, input too large or unreadable). */
#define CLI_STDIN_MAX ((size_t)8 << 20)
char *cli_stdin_task(const char *text);
/* Load the configuration for co and fill library options o (hew_options_init first);
 * prints what is wrong and returns 2 on a usage or configuration error. *cfg_out receives
 * the merged configuration, which o borrows strings from: release it (cli_config_release)
 * after hew_session_new. */
struct cli_config;
int cli_setup_options(const cli_options *co, struct hew_options *o, struct cli_config *cfg_out);
/* The interactive terminal: `hew` and `hew "task"` on a TTY; returns the exit status. */
int cli_interactive(const cli_options *co);
/* `hew debug markdown [--width N] [--color] FILE`: render markdown as the terminal does. */
int cli_debug_markdown(int argc, char **argv);
/* `hew -p`: run one task headless; returns the exit status. */
int cli_headless(const cli_options *co);

/* `hew history ...`, `hew export ID DIR`, `hew import DIR` (argv after the command word);
 * return the exit status (history.c). */
int cli_history(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_import(int argc, char **argv);
/* The stored tasks as the table `hew history` prints (newest first; search may be NULL,
 * limit <= 0: all; with a search, the best matches first, each followed by a line
 * "  #N: snippet" of the message that matched, its matched words bold when bold is
 * non-zero, else in [ ]); a new string, or NULL with the reason in err. */
char *cli_history_table(const char *search, int limit, int bold, char *err, size_t errlen);
/* What /history shows: one workspace's tasks (workspace NULL: every workspace's, with a
 * WORKSPACE column), without probe runs (tasks that never got past their first request:
 * no stored message, or failed with no output) unless probes is non-zero, one page of
 * per_page rows (per_page <= 0: all) — page is 1-based; the last line says how to see the
 * next page and what was left out. */
typedef struct cli_history_query {
    const char *search;    /* NULL: every task */
    const char *workspace; /* NULL: every workspace */
    int probes;
    int page, per_page;
    int bold;
} cli_history_query;
/* The page as text (a new string), or NULL with the reason in err; o gives the data_dir
 * (may be NULL). */
char *cli_history_page(const hew_options *o, const cli_history_query *q, char *err,
                       size_t errlen);
/* The task --resume ID (checked to exist) or --continue (the workspace's newest) means: a
 * new string, or NULL after printing why. */
char *cli_resume_target(const cli_options *co);

/* `hew replay DIR [--cwd WS] [--json] [-v] [--pace]` (argv after "replay"); returns the exit
 * status (replay.c). */
int cli_replay(int argc, char **argv);
/* `hew batch [options] TASKS.jsonl [-- FLAGS...]` (argv after "batch"; batch.c): the
 * tasks of a JSON-lines file, each as a child `hew -p`; returns the exit status. */
int cli_batch(int argc, char **argv);

/* `hew acp [options]` (argv after "acp"): hew as an Agent Client Protocol agent on
 * stdin/stdout for an editor (acp.c; docs/acp.md); returns the exit status. */
int cli_acp(int argc, char **argv);

/* `hew doctor [--json] [options]` (argv after "doctor"); returns the exit status. */
int cli_doctor(int argc, char **argv);
/* `hew skills [--json] [options]` (skills_cmd.c): the exit status. cli_skills_text: the
 * list /skills prints for the workspace of o (a new string, or NULL with err). */
int cli_skills(int argc, char **argv);
char *cli_skills_text(const hew_options *o, char *err, size_t errlen);

/* `hew checkpoints|diff|restore ...` (cmd is the command word, argv after it); returns the
 * exit status (checkpoints.c). The _print functions do one of them for a task and print
 * the result (errors on standard error, "hew: ..."); they return 0 or 1. Of o (may be
 * NULL) only data_dir is used. */
int cli_checkpoints(const char *cmd, int argc, char **argv);
int cli_checkpoints_print(const hew_options *o, const char *id, int as_json);
int cli_checkpoint_diff_print(const hew_options *o, const char *id, const char *from,
                              const char *to, int as_json);
int cli_checkpoint_restore_print(const hew_options *o, const char *id, const char *target,
                                 const char *mode, int as_json);

/* `hew mcp add|remove|import|list ...` (argv after "mcp"); returns the exit status
 * (mcp_cmd.c). cmd_mcp_list is `hew mcp list` (argv after "list"; mcp_list.c). */
int cli_mcp(int argc, char **argv);
int cmd_mcp_list(int argc, char **argv);
/* Print the servers of a hew_mcp_status_json / hew_mcp_probe answer as `hew mcp list`
 * does (also /mcp); true when every enabled server is connected. */
bool cli_mcp_print(const char *status_json);

/* `hew trust [--show|--revoke|--list] [DIR]` (argv after "trust"); returns the exit
 * status (trust_cmd.c). cli_trust_print writes a hew_trust_check report for a person:
 * each file, its digest, and what it would run (commands, URLs, header names). */
int cli_trust(int argc, char **argv);
void cli_trust_print(FILE *out, const char *report_json);
/* What one server of such a report (or of hew_mcp_status_json, status "untrusted") would
 * do — the command line and environment names, or the URL and header names — each line
 * after indent. */
void cli_trust_print_server(FILE *out, const char *indent, const json_t *server);

/* A readable transcript of the events on a plain stream (render_plain.c). */
typedef struct render_plain render_plain;
render_plain *render_plain_new(FILE *out, int color);
void render_plain_event(render_plain *r, const hew_event *ev);
void render_plain_free(render_plain *r);

/* Read a whole file into a new NUL-terminated string the caller frees; prints an error and
 * returns NULL on failure. */
char *cli_read_file(const char *path);
/* The same, binary-safe: at most max bytes (a larger file is refused with a message),
 * "-" reads standard input, *len_out (may be NULL) gets the length. */
char *cli_read_file_n(const char *path, size_t max, size_t *len_out);

#endif
