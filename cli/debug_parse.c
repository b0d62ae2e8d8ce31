/* debug_parse — `hew debug parse [--tools NAME,...] [--chunk N] FILE`: feed a file of
 * assistant text to libhew's streaming parser (whole, or in N-byte chunks) and print the
 * final blocks as JSON on one line. Exit 0 when the file could be read and parsed; a
 * message on stderr and a non-zero status otherwise. It must never change the file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hew_debug.h"

#define MAX_FILE ((size_t)1 << 30)

static void usage(FILE *out)
{
    fputs("usage: hew debug parse [--tools NAME,...] [--chunk N] FILE\n"
          "  feeds FILE (assistant text) to the streaming parser, whole or in chunks of N\n"
          "  bytes, and prints the final blocks as JSON; --tools replaces Cline's tool\n"
          "  names (an empty list means no tools).\n",
          out);
}


/* Split "a,b,c" into a new NULL-terminated array of new strings (empty names skipped). */
static char **split_tools(const char *list)
{
    size_t count = 1;
    for (const char *c = list; *c; c++)
        count += *c == ',';
    char **v = calloc(count + 1, sizeof *v);
    if (!v)
        return NULL;
    size_t n = 0;
    const char *start = list;
    for (const char *c = list;; c++) {
        if (*c == ',' || *c == '\0') {
            if (c > start && !(v[n++] = strndup(start, (size_t)(c - start))))
                return v;
            if (*c == '\0')
                break;
            start = c + 1;
        }
    }
    return v;
}

static void free_tools(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

int cli_debug_parse(int argc, char **argv)
{
    const char *tools_arg = NULL, *path = NULL;
    size_t chunk = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--tools") == 0 && i + 1 < argc) {
            tools_arg = argv[++i];
        } else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || v == 0 || argv[i][0] == '-') {
                fprintf(stderr, "hew: --chunk wants a positive number of bytes, not '%s'\n",
                        argv[i]);
                return 2;
            }
            chunk = (size_t)v;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "hew: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "hew: debug parse takes one FILE\n");
            usage(stderr);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    char **tools = NULL;
    if (tools_arg && !(tools = split_tools(tools_arg))) {
        fprintf(stderr, "hew: out of memory\n");
        return 1;
    }
    size_t len = 0;
    char *text = cli_read_file_n(path, MAX_FILE, &len);
    if (!text) {
        free_tools(tools);
        return 1;
    }
    char errbuf[512];
    char *json = NULL;
    (void)hew_debug_parse(text, len, (const char *const *)tools, chunk, &json, errbuf,
                          sizeof errbuf);
    free(text);
    free_tools(tools);
    if (!json) {
        fprintf(stderr, "hew: %s\n", errbuf);
        return 1;
    }
    puts(json);
    hew_free(json);
    return fflush(stdout) == 0 ? 0 : 1;
}
