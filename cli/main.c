/* main — the `hew` command's entry point: parses the first words of the command line and
 * dispatches to the file that implements each command (the interactive terminal on a TTY,
 * headless runs, `hew config`, `hew debug`). The only place that exits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#ifdef __linux__
#include <signal.h>
#include <sys/prctl.h>
#endif

#include "cli.h"
#include "config.h"
#include "hew.h"

/* The `hew debug <what>` commands: one row each. argv given to run starts after <what>. */
static const struct debug_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} debug_commands[] = {
    { "parse", cli_debug_parse, "parse [--tools NAME,...] [--chunk N] FILE   print the blocks the stream parser makes of FILE" },
    { "sse", cli_debug_sse, "sse [--text] [--header H]... [--body JSON] URL   stream the SSE events of a POST" },
    { "decode", cli_debug_decode, "decode --protocol P [--status N] [--header H]... FILE   decode a raw response body" },
    { "markdown", cli_debug_markdown, "markdown [--width N] [--color] FILE   render markdown as the terminal shows it" },
};

static void usage(FILE *out)
{
    fputs("usage: hew [options] [\"task\"]      the interactive terminal (a TTY), starting with task\n"
          "       hew [options] -p \"task\"     run a task headless and print its result\n"
          "       hew config [--json]          show the effective configuration (secrets masked)\n"
          "       hew doctor [--json]          check the config, key, provider, store and tools\n"
          "       hew history [--json] [SEARCH]   the stored tasks, newest first\n"
          "       hew history show|delete ID   one stored task / forget it\n"
          "       hew resume ID [-p \"more\"]   go on with a stored task\n"
          "       hew export ID DIR, hew import DIR   a task as Cline's task directory\n"
          "       hew mcp add|remove|import|list ...   the MCP servers (hew mcp --help)\n"
          "       hew trust [--show|--revoke|--list] [DIR]   trust a workspace's .hew/mcp.json\n"
          "       hew checkpoints ID           a task's checkpoints of the workspace\n"
          "       hew diff ID N [M]            changes from checkpoint N to M (or now)\n"
          "       hew restore ID N [files|task|both]   back to checkpoint N (default files)\n"
          "       hew debug <what> ...         look inside hew's machinery\n"
          "       hew replay DIR [--cwd WS] [--json]   run a --record'ed task again, offline\n"
          "       hew batch [--jobs N] TASKS.jsonl   many tasks, one JSON line each (hew batch --help)\n"
          "       hew acp [options]            be an editor's agent: the Agent Client Protocol on stdio\n"
          "\n"
          "options:\n"
          "  -p, --print [TASK]    run TASK to the end, no terminal needed (piped standard\n"
          "                        input is added after it, or is the task)\n"
          "  --json                print every event as one JSON line (docs/events.md)\n"
          "  -v, --verbose         show the conversation as it happens (on standard error)\n"
          "  --provider NAME       anthropic, openai, openai-compatible, openrouter, deepseek,\n"
          "                        gemini, xai, groq (default anthropic; or HEW_PROVIDER)\n"
          "  --model NAME          the model (default: the provider's; or HEW_MODEL)\n"
          "  --base-url URL        the provider's base URL (local servers, proxies; HEW_BASE_URL)\n"
          "  --protocol NAME       anthropic, openai-chat, openai-responses or gemini\n"
          "  --cwd DIR             the workspace (default: the current directory)\n"
          "  --plan, --act         start in plan or act mode (default act)\n"
          "  --yolo                approve every action, never ask\n"
          "  --auto-approve LIST   what runs without asking: read, read-outside, edit,\n"
          "                        edit-outside, commands (those hew judges read-only),\n"
          "                        all-commands, mcp, all, none (default read)\n"
          "  --allow-command PATTERN   a command that may run like a read-only one\n"
          "                        (\"npm test*\"; repeatable; man hew: COMMAND POLICY)\n"
          "  --deny-command PATTERN    a command never to run, even with --yolo (\"rm -rf*\")\n"
          "  --sandbox MODE        confine every command: read-only, workspace-write,\n"
          "                        danger-full-access (none); default auto: the commands\n"
          "                        you did not approve by hand run under workspace-write\n"
          "  -i, --image FILE      attach an image (PNG, JPEG, GIF, WebP) to the task, or\n"
          "                        with -p --continue/--resume to the message that goes\n"
          "                        on with it; repeatable (man hew: IMAGES)\n"
          "  --thinking BUDGET     reasoning budget in tokens (0: off; models that think)\n"
          "  --native-tools, --xml-tools   how tools are offered (default: by model)\n"
          "  --timeout SECONDS     give up after this long (exit 5)\n"
          "  --max-cost USD        stop before a request once the task cost this much (exit 6)\n"
          "  --max-requests N      send at most N requests to the provider (exit 6)\n"
          "  --retry-delay-ms N    base delay of automatic retries (default 2000)\n"
          "  --continue, --resume ID   go on with the workspace's latest / a stored task\n"
          "  --no-config           ignore the config files\n"
          "  --trust               use the workspace's .hew/mcp.json for this run only,\n"
          "                        even though it is not trusted (see hew trust)\n"
          "  --data-dir DIR        keep everything hew writes (tasks, checkpoints, log) in DIR\n"
          "                        (or HEW_DATA_DIR; any command)\n"
          "  --ephemeral           store nothing: no task history, checkpoints or log\n"
          "  --no-checkpoints      no shadow repository of the workspace\n"
          "  --no-mcp              start no MCP server (neither yours nor the project's)\n"
          "  -o, --output FILE     also write the result to FILE (removed when the task fails)\n"
          "  --api-key-file FILE   read the API key from FILE (or HEW_API_KEY_FILE)\n"
          "  --record DIR          save every exchange with the provider in DIR, for hew replay\n"
          "  --version, --help\n"
          "\n"
          "config files: $XDG_CONFIG_HOME/hew/config.json (~/.config/hew/config.json), then\n"
          ".hew/config.json in the project; the environment and flags win (man hew)\n"
          "\n"
          "exit status: 0 completed, 1 failed, 2 usage or configuration error, 3 key or\n"
          "account refused, 4 provider unavailable, 5 --timeout, 6 budget, 7 actions\n"
          "denied for want of approval, 130 interrupted (man hew: EXIT STATUS)\n"
          "\n"
          "debug commands:\n",
          out);
    for (size_t i = 0; i < sizeof debug_commands / sizeof debug_commands[0]; i++)
        fprintf(out, "  debug %s\n", debug_commands[i].summary);
}

char *cli_read_file_n(const char *path, size_t max, size_t *len_out)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "hew: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *data = malloc(cap);
    while (data) {
        if (len + 1 >= cap) { /* room for the NUL */
            if (cap > max) {
                fprintf(stderr, "hew: %s is larger than %zu bytes\n", path, max);
                free(data);
                data = NULL;
                break;
            }
            char *grown = realloc(data, cap * 2);
            if (!grown) {
                free(data);
                data = NULL;
                break;
            }
            data = grown;
            cap *= 2;
        }
        size_t n = fread(data + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
    }
    int failed = ferror(f);
    if (!is_stdin)
        fclose(f);
    if (data && failed) {
        fprintf(stderr, "hew: cannot read %s\n", path);
        free(data);
        data = NULL;
    } else if (!data) {
        fprintf(stderr, "hew: cannot read %s: out of memory\n", path);
    }
    if (!data)
        return NULL;
    data[len] = '\0';
    if (len_out)
        *len_out = len;
    return data;
}

char *cli_read_file(const char *path)
{
    return cli_read_file_n(path, (size_t)1 << 30, NULL);
}

/* A task `hew batch` started (HEW_BATCH_CHILD in its environment) ends with the batch:
 * were the batch killed or crashed, its tasks would run on unseen, spending tokens.
 * Returns an exit status when the batch is gone already, else -1. */
static int die_with_batch(void)
{
    const char *v = getenv("HEW_BATCH_CHILD");
    if (!v || !*v)
        return -1;
    unsetenv("HEW_BATCH_CHILD"); /* not for the commands the task runs */
#ifdef __linux__
    (void)prctl(PR_SET_PDEATHSIG, SIGTERM); /* when the batch's thread that started us ends */
    if (getppid() == 1) /* it ended before that */
        return 130;
#endif
    return -1;
}

int main(int argc, char **argv)
{
    int orphan = die_with_batch();
    if (orphan >= 0)
        return orphan;
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("hew %s\n", hew_version());
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    /* The log is opened at its first line only: commands that log nothing never touch it.
     * Without HOME there is no log, and hew works on. */
    char log_err[256];
    int ephemeral = 0; /* --ephemeral: no log file either */
    if (cli_data_dir_setup(&argc, argv, &ephemeral, log_err, sizeof log_err) != 0) {
        fprintf(stderr, "hew: %s\n", log_err);
        return 2;
    }
    cmd = argc > 1 ? argv[1] : "";
    if (!ephemeral)
        (void)hew_log_enable(NULL, log_err, sizeof log_err);
    if (strcmp(cmd, "debug") == 0 && argc >= 3) {
        for (size_t i = 0; i < sizeof debug_commands / sizeof debug_commands[0]; i++)
            if (strcmp(argv[2], debug_commands[i].name) == 0)
                return debug_commands[i].run(argc - 3, argv + 3);
        fprintf(stderr, "hew: unknown debug command '%s'\n", argv[2]);
        usage(stderr);
        return 2;
    }
    if (strcmp(cmd, "config") == 0) {
        int as_json = 0;
        int first = 2;
        if (argc > 2 && strcmp(argv[2], "--json") == 0) {
            as_json = 1;
            first = 3;
        } else if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
            fputs("usage: hew config [--json] [options]   the effective configuration and where\n"
                  "each value comes from; API keys are masked. Options as for a task (--provider,\n"
                  "--model, --cwd, ...) show their effect. The settings are described in man hew.\n",
                  stdout);
            return 0;
        }
        cli_options co;
        if (cli_parse_options(argc - first, argv + first, &co) != 0)
            return 2;
        return cli_config_show(&co, as_json);
    }
    if (strcmp(cmd, "acp") == 0)
        return cli_acp(argc - 2, argv + 2);
    if (strcmp(cmd, "doctor") == 0)
        return cli_doctor(argc - 2, argv + 2);
    if (strcmp(cmd, "batch") == 0)
        return cli_batch(argc - 2, argv + 2);
    if (strcmp(cmd, "history") == 0)
        return cli_history(argc - 2, argv + 2);
    if (strcmp(cmd, "skills") == 0)
        return cli_skills(argc - 2, argv + 2);
    if (strcmp(cmd, "checkpoints") == 0 || strcmp(cmd, "diff") == 0 ||
        strcmp(cmd, "restore") == 0)
        return cli_checkpoints(cmd, argc - 2, argv + 2);
    if (strcmp(cmd, "mcp") == 0)
        return cli_mcp(argc - 2, argv + 2);
    if (strcmp(cmd, "trust") == 0)
        return cli_trust(argc - 2, argv + 2);
    if (strcmp(cmd, "export") == 0)
        return cli_export(argc - 2, argv + 2);
    if (strcmp(cmd, "import") == 0)
        return cli_import(argc - 2, argv + 2);
    if (strcmp(cmd, "replay") == 0)
        return cli_replay(argc - 2, argv + 2);
    int skip = 1; /* hew resume ID [options]: ID then the options of a task */
    const char *resume_word = NULL;
    if (strcmp(cmd, "resume") == 0) {
        if (argc < 3 || argv[2][0] == '-') {
            fprintf(stderr, "hew: usage: hew resume ID [options] (or hew --resume ID)\n");
            return 2;
        }
        resume_word = argv[2];
        skip = 3;
    }
    cli_options co;
    if (cli_parse_options(argc - skip, argv + skip, &co) != 0)
        return 2;
    if (resume_word)
        co.resume_id = resume_word;
    if (cli_options_check(&co) != 0)
        return 2;
    char *resume = NULL;
    if (co.cont || co.resume_id) {
        resume = cli_resume_target(&co);
        if (!resume) /* no such task, or none to continue here: a usage error (said) */
            return 2;
        co.resume_id = resume;
        co.cont = 0;
    }
    int rc;
    if (co.headless)
        rc = cli_headless(&co);
    else if (isatty(0) && isatty(1) && !co.json)
        rc = cli_interactive(&co);
    else { /* no terminal: run the task as -p would */
        co.headless = 1;
        rc = cli_headless(&co);
    }
    free(resume);
    return rc;
}
