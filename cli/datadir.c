/* datadir — `--data-dir DIR` and HEW_DATA_DIR, for every hew command: the folder that
 * then holds everything hew writes outside a workspace (the task store, checkpoints,
 * the trust file, the log, the terminal's line history). It is taken off the command line
 * before the commands parse their own options, created 0700 when missing, made absolute
 * and put in HEW_DATA_DIR, where the library's one rule for the data folder reads it
 * (man hew: FILES). It must never create anything but that folder (and its missing
 * parents), and never print or exit: main does. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char *data_dir_from; /* "flag --data-dir", "environment HEW_DATA_DIR" */

const char *cli_data_dir_source(void)
{
    return data_dir_from;
}

/* mkdir -p dir, new folders 0700. 0, or -1 with errno. */
static int mkdirs(const char *dir)
{
    char p[PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof p) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(p, dir, n + 1);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return -1;
        *s = c;
        if (!c)
            return 0;
    }
}

/* Remove argv[i] .. argv[i + k - 1], keeping the NULL at the end. */
static void drop_args(int *argc, char **argv, int i, int k)
{
    memmove(argv + i, argv + i + k, (size_t)(*argc - i - k + 1) * sizeof *argv);
    *argc -= k;
}

int cli_data_dir_setup(int *argc, char **argv, int *ephemeral, char *err, size_t errlen)
{
    const char *dir = NULL, *from = "HEW_DATA_DIR";
    *ephemeral = 0;
    for (int i = 1; i < *argc;) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break; /* what follows is not hew's (a task, an MCP server's command) */
        if (strcmp(a, "--ephemeral") == 0) {
            *ephemeral = 1;
            i++;
        } else if (strcmp(a, "--data-dir") == 0) {
            if (i + 1 >= *argc || !*argv[i + 1]) {
                snprintf(err, errlen, "--data-dir needs a folder, e.g. --data-dir /tmp/hew-run");
                return -1;
            }
            dir = argv[i + 1];
            from = "--data-dir";
            drop_args(argc, argv, i, 2);
        } else if (strncmp(a, "--data-dir=", 11) == 0) {
            dir = a + 11;
            from = "--data-dir";
            if (!*dir) {
                snprintf(err, errlen, "--data-dir needs a folder, e.g. --data-dir /tmp/hew-run");
                return -1;
            }
            drop_args(argc, argv, i, 1);
        } else {
            i++;
        }
    }
    if (!dir) {
        dir = getenv("HEW_DATA_DIR");
        if (!dir || !*dir)
            return 0;
    }
    struct stat st;
    char *real = NULL;
    if (mkdirs(dir) != 0 || stat(dir, &st) != 0) {
        snprintf(err, errlen, "cannot create the data folder %s (%s): %s — give a folder you "
                 "can write", dir, from, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the data folder %s (%s) is not a folder — give a folder you "
                 "can write", dir, from);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot write in the data folder %s (%s): %s — give a folder "
                 "you can write", dir, from, strerror(errno));
        return -1;
    }
    if (!(real = realpath(dir, NULL)) || setenv("HEW_DATA_DIR", real, 1) != 0) {
        snprintf(err, errlen, "cannot use the data folder %s (%s): %s", dir, from,
                 strerror(errno));
        free(real);
        return -1;
    }
    free(real);
    data_dir_from =
        strcmp(from, "--data-dir") == 0 ? "flag --data-dir" : "environment HEW_DATA_DIR";
    return 0;
}
