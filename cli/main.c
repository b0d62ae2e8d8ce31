/* main — the `hew` command's entry point: parses the command line and dispatches. */
#include <stdio.h>
#include <string.h>

#include "hew.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("hew %s\n", hew_version());
        return 0;
    }
    fprintf(stderr, "usage: hew --version\n");
    return 2;
}
