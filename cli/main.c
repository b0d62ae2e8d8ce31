/* main — the `hew` command's entry point: parses the first words of the command line and
 * dispatches to the file that implements each command. The only place that exits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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
};

static void usage(FILE *out)
{
    fputs("usage: hew [options] -p \"task\"     run a task headless and print its result\n"
          "       hew debug <what> ...         look inside hew's machinery\n"
          "\n"
          "options:\n"
          "  -p, --print [TASK]    run TASK (or standard input) to the end, no terminal needed\n"
          "  --json                print every event as one JSON line (docs/events.md)\n"
          "  -v, --verbose         show the conversation as it happens (on standard error)\n"
          "  --provider NAME       anthropic, openai, openai-compatible, openrouter, deepseek,\n"
          "                        gemini, xai, groq (default anthropic; or HEW_PROVIDER)\n"
          "  --model NAME          the model (default: the provider's)\n"
          "  --base-url URL        the provider's base URL (local servers, proxies, tests)\n"
          "  --cwd DIR             the workspace (default: the current directory)\n"
          "  --plan, --act         start in plan or act mode (default act)\n"
          "  --yolo                approve every action, never ask\n"
          "  --native-tools, --xml-tools   how tools are offered (default: by model)\n"
          "  --timeout SECONDS     give up after this long (exit 1)\n"
          "  --retry-delay-ms N    base delay of automatic retries (default 2000)\n"
          "  --version, --help\n"
          "\n"
          "exit status: 0 completed, 1 failed, 2 usage error, 130 interrupted\n"
          "\n"
          "debug commands:\n",
          out);
    for (size_t i = 0; i < sizeof debug_commands / sizeof debug_commands[0]; i++)
        fprintf(out, "  debug %s\n", debug_commands[i].summary);
}

char *cli_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "hew: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *data = malloc(cap);
    size_t n;
    while (data && (n = fread(data + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *grown = realloc(data, cap * 2);
            if (!grown) {
                free(data);
                data = NULL;
                break;
            }
            data = grown;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!data || failed) {
        fprintf(stderr, "hew: cannot read %s\n", path);
        free(data);
        return NULL;
    }
    data[len] = '\0';
    return data;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("hew %s\n", hew_version());
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "debug") == 0 && argc >= 3) {
        for (size_t i = 0; i < sizeof debug_commands / sizeof debug_commands[0]; i++)
            if (strcmp(argv[2], debug_commands[i].name) == 0)
                return debug_commands[i].run(argc - 3, argv + 3);
        fprintf(stderr, "hew: unknown debug command '%s'\n", argv[2]);
        usage(stderr);
        return 2;
    }
    cli_options co;
    if (cli_parse_options(argc - 1, argv + 1, &co) != 0)
        return 2;
    if (co.headless)
        return cli_headless(&co);
    fprintf(stderr, "hew: the interactive terminal is not built yet — run a task with "
                    "hew -p \"task\" (see hew --help)\n");
    return 2;
}
