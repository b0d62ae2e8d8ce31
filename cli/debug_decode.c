/* debug_decode — `hew debug decode`: read a raw provider response body from a file and
 * print what hew's decoder makes of it (one JSON object: text, reasoning, tool_calls,
 * usage, stop_reason, stream_complete, error). The work is in libhew; this file only
 * parses arguments and reads the file. It never talks to the network. Exit 0 whenever
 * the file could be read (a failed stream is a result, not a failure), 1 when it could
 * not, 2 on a usage error. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hew_debug.h"

#define MAX_HEADERS 64
#define MAX_FILE ((size_t)256 << 20)

static void usage(FILE *out)
{
    fputs("usage: hew debug decode --protocol anthropic|openai-chat|openai-responses|gemini\n"
          "                        [--status N] [--header 'Name: value']... FILE|-\n"
          "  Decodes the raw response body in FILE (an SSE stream, or with --status N >= 300\n"
          "  an error body) as live traffic would be, and prints one JSON object.\n",
          out);
}


int cli_debug_decode(int argc, char **argv)
{
    const char *protocol = NULL, *file = NULL;
    long status = 200;
    const char *headers[MAX_HEADERS + 1];
    size_t nheaders = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "--protocol") == 0 || strcmp(a, "-p") == 0) && i + 1 < argc) {
            protocol = argv[++i];
        } else if (strncmp(a, "--protocol=", 11) == 0) {
            protocol = a + 11;
        } else if (strcmp(a, "--status") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            status = strtol(argv[++i], &end, 10);
            if (errno || *end || status < 100 || status > 999) {
                fprintf(stderr, "hew: --status wants an HTTP status code, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--header") == 0 && i + 1 < argc) {
            if (nheaders == MAX_HEADERS) {
                fprintf(stderr, "hew: too many --header options (at most %d)\n", MAX_HEADERS);
                return 2;
            }
            if (!strchr(argv[i + 1], ':')) {
                fprintf(stderr, "hew: --header wants 'Name: value', got '%s'\n", argv[i + 1]);
                return 2;
            }
            headers[nheaders++] = argv[++i];
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "hew: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "hew: more than one FILE given\n");
            return 2;
        }
    }
    headers[nheaders] = NULL;
    if (!protocol || !file) {
        usage(stderr);
        return 2;
    }
    size_t len = 0;
    char *body = cli_read_file_n(file, MAX_FILE, &len);
    if (!body)
        return 1;
    char err[512] = "";
    char *out = NULL;
    (void)hew_debug_decode(protocol, status, headers, body, len, &out, err, sizeof err);
    free(body);
    if (!out) {
        fprintf(stderr, "hew: %s\n", err);
        return 2;
    }
    puts(out);
    hew_free(out);
    return 0;
}
