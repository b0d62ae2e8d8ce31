/* stdin_task — the task of a headless run from the command line and standard input:
 * `git diff | hew -p "review this"` gives the model "review this", a blank line, then the
 * diff (the instruction first, then the material, as `claude -p` and `llm` take piped
 * input). Standard input is read only when it is not a terminal, to its end, with a cap
 * (CLI_STDIN_MAX) and a clear error past it. It never reads a terminal (that would wait
 * for a person), never cuts the input silently, and never exits. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Read fd 0 to its end into a new string (*len its length); NULL after printing why. A
 * note goes to stderr once when nothing has come for a while, so a run whose input was
 * left open by mistake says what it waits for instead of hanging silently. */
static char *read_all(size_t *len)
{
    size_t cap = 1 << 14, n = 0;
    char *s = malloc(cap);
    int noted = 0;
    for (;;) {
        if (!s) {
            fprintf(stderr, "hew: cannot read standard input: out of memory\n");
            return NULL;
        }
        if (!noted) {
            struct pollfd p = { .fd = 0, .events = POLLIN };
            int r = poll(&p, 1, 10000);
            if (r == 0) {
                fprintf(stderr, "hew: waiting for standard input to end (the task is read "
                                "from it; run with </dev/null to give none)\n");
                noted = 1;
            }
            if (r <= 0 && !noted)
                continue; /* EINTR: poll again */
        }
        if (n > CLI_STDIN_MAX) {
            fprintf(stderr, "hew: standard input is larger than %zu MiB — put it in a file "
                            "in the workspace and name the file in the task\n",
                    CLI_STDIN_MAX >> 20);
            free(s);
            return NULL;
        }
        if (n + 1 == cap) {
            char *grown = realloc(s, cap * 2);
            if (!grown)
                free(s);
            s = grown;
            cap *= 2;
            continue;
        }
        ssize_t got = read(0, s + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "hew: cannot read standard input: %s\n", strerror(errno));
            free(s);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    s[n] = '\0';
    *len = n;
    return s;
}

char *cli_stdin_task(const char *text)
{
    char *in = NULL;
    size_t in_len = 0;
    if (!isatty(0) && !(in = read_all(&in_len)))
        return NULL;
    size_t text_len = text ? strlen(text) : 0;
    if (memchr(in ? in : "", '\0', in_len)) {
        fprintf(stderr, "hew: standard input holds a NUL byte: give text, not a binary file\n");
        free(in);
        return NULL;
    }
    size_t blank = 0; /* input of only blank lines is no input (`echo | hew -p TEXT`) */
    while (blank < in_len && strchr(" \t\r\n", in[blank]))
        blank++;
    if (blank == in_len)
        in_len = 0;
    if (!text_len && !in_len) {
        fprintf(stderr, "hew: no task given — pass it after -p or on standard input\n");
        free(in);
        return NULL;
    }
    if (!in_len) {
        free(in);
        return strdup(text);
    }
    if (!text_len)
        return in;
    char *both = malloc(text_len + 2 + in_len + 1);
    if (!both) {
        fprintf(stderr, "hew: out of memory\n");
        free(in);
        return NULL;
    }
    memcpy(both, text, text_len);
    memcpy(both + text_len, "\n\n", 2);
    memcpy(both + text_len + 2, in, in_len + 1);
    free(in);
    return both;
}
