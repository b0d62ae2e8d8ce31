/* debug_markdown — `hew debug markdown [--width N] [--color] [--stream N] FILE`: render a
 * markdown file the way the interactive terminal shows a finished answer (mdrender.c), so
 * the layout can be checked and tested without a terminal. --stream N feeds the text in
 * pieces of N bytes through the same "render only finished blocks" cut the terminal
 * uses, to show that streaming never changes what was already printed. Writes only to
 * standard output; never reads the terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mdrender.h"
#include "sbuf.h"
#include "termsafe.h"

int cli_debug_markdown(int argc, char **argv)
{
    mdr_opts o = { 80, 0, NULL, NULL };
    long stream = 0;
    const char *file = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--width") == 0 && i + 1 < argc) {
            o.width = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--color") == 0) {
            o.color = 1;
        } else if (strcmp(argv[i], "--stream") == 0 && i + 1 < argc) {
            stream = strtol(argv[++i], NULL, 10);
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else {
            fprintf(stderr, "usage: hew debug markdown [--width N] [--color] [--stream N] FILE\n");
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "usage: hew debug markdown [--width N] [--color] [--stream N] FILE\n");
        return 2;
    }
    char *raw = cli_read_file(file);
    if (!raw)
        return 1;
    char *text = termsafe_dup(raw, 1); /* as the terminal sanitises an answer first */
    free(raw);
    if (!text)
        return 1;
    size_t n = strlen(text);
    sbuf out = SBUF_INIT;
    int first = 1;
    if (stream > 0) {
        size_t done = 0;
        int fence = 0;
        for (size_t have = 0; have < n;) {
            have = have + (size_t)stream < n ? have + (size_t)stream : n;
            size_t end = mdr_stable_end(text, have, done, &fence);
            if (end > done) {
                mdr_render(&out, text + done, end - done, &o, &first);
                done = end;
            }
        }
        if (done < n)
            mdr_render(&out, text + done, n - done, &o, &first);
    } else {
        mdr_render(&out, text, n, &o, &first);
    }
    int rc = out.err ? 1 : 0;
    if (out.data)
        fwrite(out.data, 1, out.len, stdout);
    sbuf_release(&out);
    free(text);
    return rc;
}
