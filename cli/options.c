/* options — the command line's flags for running a task (`hew -p "task" --json …`,
 * `hew "task"`), parsed into cli_options; cli_setup_options merges them with the config
 * files (config.c) into the library's hew_options. Prints usage errors; never exits (main
 * does). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "hew.h"

static int parse_long(const char *flag, const char *s, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v < 0) {
        fprintf(stderr, "hew: %s needs a non-negative number, got '%s'\n", flag, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

/* A budget in US dollars: a positive decimal number ("0.50", "2"). */
static int parse_usd(const char *flag, const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !(v > 0) || v > 1e9) {
        fprintf(stderr, "hew: %s needs an amount in US dollars above 0, e.g. %s 0.50; got '%s'\n",
                flag, flag, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_options(int argc, char **argv, cli_options *co)
{
    memset(co, 0, sizeof *co);
    co->native_tools = -1;
    co->retry_delay_ms = -1;
    co->timeout_s = -1;
    co->thinking = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(field)                                                                        \
    do {                                                                                   \
        if (!next) {                                                                       \
            fprintf(stderr, "hew: %s needs a value\n", a);                                 \
            return 2;                                                                      \
        }                                                                                  \
        co->field = next;                                                                  \
        i++;                                                                               \
    } while (0)
        if (strcmp(a, "-p") == 0 || strcmp(a, "--print") == 0) {
            co->headless = 1;
            if (next && next[0] != '-') {
                co->task = next;
                i++;
            }
        } else if (strcmp(a, "--json") == 0) {
            co->json = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            co->verbose = 1;
        } else if (strcmp(a, "--yolo") == 0) {
            co->yolo = 1;
        } else if (strcmp(a, "--plan") == 0) {
            co->mode = "plan";
        } else if (strcmp(a, "--act") == 0) {
            co->mode = "act";
        } else if (strcmp(a, "--native-tools") == 0) {
            co->native_tools = 1;
        } else if (strcmp(a, "--xml-tools") == 0) {
            co->native_tools = 0;
        } else if (strcmp(a, "--provider") == 0) {
            TAKE(provider);
        } else if (strcmp(a, "--model") == 0) {
            TAKE(model);
        } else if (strcmp(a, "--base-url") == 0) {
            TAKE(base_url);
        } else if (strcmp(a, "--protocol") == 0) {
            TAKE(protocol);
        } else if (strcmp(a, "--cwd") == 0) {
            TAKE(cwd);
        } else if (strcmp(a, "--timeout") == 0) {
            if (parse_long(a, next, &co->timeout_s) != 0)
                return 2;
            i++;
        } else if (strcmp(a, "--max-cost") == 0) {
            if (parse_usd(a, next, &co->max_cost_usd) != 0)
                return 2;
            i++;
        } else if (strcmp(a, "--max-requests") == 0) {
            if (parse_long(a, next, &co->max_requests) != 0 || co->max_requests == 0) {
                if (co->max_requests == 0 && next)
                    fprintf(stderr, "hew: --max-requests needs at least 1\n");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--retry-delay-ms") == 0) {
            if (parse_long(a, next, &co->retry_delay_ms) != 0)
                return 2;
            i++;
        } else if (strcmp(a, "--thinking") == 0) {
            if (parse_long(a, next, &co->thinking) != 0)
                return 2;
            i++;
        } else if (strcmp(a, "--auto-approve") == 0) {
            TAKE(auto_approve);
        } else if (strcmp(a, "--continue") == 0 || strcmp(a, "-c") == 0) {
            co->cont = 1;
        } else if (strcmp(a, "--resume") == 0) {
            TAKE(resume_id);
        } else if (strcmp(a, "--no-config") == 0) {
            co->no_config = 1;
        } else if (strcmp(a, "--trust") == 0) {
            co->trust = 1;
        } else if (strcmp(a, "--record") == 0) {
            TAKE(record_dir);
        } else if (strcmp(a, "--allow-command") == 0 || strcmp(a, "--deny-command") == 0) {
            int deny = a[2] == 'd';
            int *n = deny ? &co->ndeny_commands : &co->nallow_commands;
            if (!next || !*next) {
                fprintf(stderr, "hew: %s needs a pattern, e.g. %s\n", a,
                        deny ? "--deny-command 'rm -rf*'" : "--allow-command 'npm test*'");
                return 2;
            }
            if (*n == CLI_MAX_RULES) {
                fprintf(stderr, "hew: at most %d %s flags — put longer lists in the config "
                                "file (commands.%s)\n",
                        CLI_MAX_RULES, a, deny ? "deny" : "allow");
                return 2;
            }
            (deny ? co->deny_commands : co->allow_commands)[(*n)++] = next;
            i++;
        } else if (strcmp(a, "--ephemeral") == 0) {
            co->ephemeral = 1;
        } else if (strcmp(a, "--no-checkpoints") == 0) {
            co->no_checkpoints = 1;
        } else if (strcmp(a, "--no-mcp") == 0) {
            co->no_mcp = 1;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!next || !*next) {
                fprintf(stderr, "hew: %s needs a file to write the result to\n", a);
                return 2;
            }
            co->output = next;
            i++;
        } else if (strcmp(a, "--api-key-file") == 0) {
            if (!next || !*next) {
                fprintf(stderr, "hew: --api-key-file needs a file holding the key\n");
                return 2;
            }
            co->api_key_file = next;
            i++;
        } else if (strcmp(a, "--sandbox") == 0) {
            static const char *const modes[] = { "auto", "read-only", "workspace-write",
                                                 "danger-full-access" };
            size_t m = 0;
            while (next && m < sizeof modes / sizeof modes[0] && strcmp(next, modes[m]) != 0)
                m++;
            if (!next || m == sizeof modes / sizeof modes[0]) {
                fprintf(stderr, "hew: --sandbox needs a mode: %s (got '%s')\n",
                        CLI_SANDBOX_MODES, next ? next : "");
                return 2;
            }
            co->sandbox = modes[m];
            i++;
        } else if (strcmp(a, "-i") == 0 || strcmp(a, "--image") == 0) {
            if (!next || !*next) {
                fprintf(stderr, "hew: %s needs an image file (PNG, JPEG, GIF or WebP), e.g. "
                                "hew -p \"what is wrong here?\" -i shot.png\n", a);
                return 2;
            }
            if (co->nimages == HEW_TASK_IMAGES_MAX) {
                fprintf(stderr, "hew: at most %d images (-i) per task\n", HEW_TASK_IMAGES_MAX);
                return 2;
            }
            co->images[co->nimages++] = next;
            i++;
        } else if (strcmp(a, "--") == 0 && i + 1 < argc && !co->task) {
            co->task = argv[++i];
        } else if (a[0] != '-' && !co->task) {
            co->task = a;
        } else {
            fprintf(stderr, "hew: unknown option '%s' (see hew --help)\n", a);
            return 2;
        }
#undef TAKE
    }
    return 0;
}

int cli_options_check(const cli_options *co)
{
    if (co->nimages && (co->cont || co->resume_id) && !co->headless) {
        fprintf(stderr, "hew: -i with --continue or --resume goes with -p (hew -p --continue "
                        "\"look at this\" -i shot.png); on the terminal, paste the image's "
                        "path into your message when the task asks how to go on\n");
        return 2;
    }
    if (co->nimages && !co->headless && !co->task) {
        fprintf(stderr, "hew: -i attaches images to the task's text: give one (hew \"what "
                        "is wrong here?\" -i shot.png), or paste the image's path into the "
                        "prompt\n");
        return 2;
    }
    if (co->ephemeral && (co->cont || co->resume_id)) {
        fprintf(stderr, "hew: --ephemeral stores nothing, so there is no stored task to go on "
                        "with: drop --ephemeral to use %s\n",
                co->cont ? "--continue" : "--resume / hew resume");
        return 2;
    }
    if (co->output && !co->headless && !co->json && isatty(0) && isatty(1)) {
        fprintf(stderr, "hew: -o FILE writes the result of a headless run: add -p "
                        "(hew -p \"task\" -o FILE)\n");
        return 2;
    }
    return 0;
}

int cli_setup_options(const cli_options *co, hew_options *o, cli_config *cfg_out)
{
    cli_config cfg;
    char err[1024] = "";
    if (cli_config_load(&cfg, co, err, sizeof err) != 0) {
        fprintf(stderr, "hew: %s\n", err);
        return 2;
    }
    if (cli_config_apply(&cfg, o, err, sizeof err) != 0) {
        fprintf(stderr, "hew: %s\n", err);
        cli_config_release(&cfg);
        return 2;
    }
    if (o->thinking_budget > 0 && !hew_options_thinking_supported(o))
        fprintf(stderr, "hew: note: the thinking budget (%s) is ignored: the model %s does "
                        "not think, by hew's model table\n",
                cfg.source[CFG_THINKING], o->model ? o->model : "(the provider's default)");
    if (co->cwd)
        o->cwd = co->cwd;
    o->max_cost_usd = co->max_cost_usd;
    o->max_requests = co->max_requests;
    o->trust_workspace = co->trust;
    if (co->ephemeral) /* nothing stored: no task rows, no shadow repository */
        o->persist = o->checkpoints = 0;
    if (co->no_checkpoints)
        o->checkpoints = 0;
    if (co->no_mcp)
        o->mcp = 0;
    if (co->output && cli_outfile_check(co->output) != 0) {
        cli_config_release(&cfg);
        return 2;
    }
    if (co->record_dir)
        o->record_dir = co->record_dir;
    if (co->replay) /* hew replay: run as recorded, against the replay's server */
        hew_replay_apply(co->replay, o);
    if (cfg.notes[0])
        fputs(cfg.notes, stderr);
    *cfg_out = cfg; /* o borrows its strings */
    return 0;
}
