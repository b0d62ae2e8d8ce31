/* wsroot — the workspace root of a start folder (see wsroot.h). Walks up with lstat and
 * stat only; never follows a `.git` symlink, never crosses into another file system,
 * never returns a folder above the start unless a repository the user owns is there. */
#include "sys/wsroot.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What dir/.git says: 1 a repository of uid's, 0 none, -1 one that is not uid's (or not
 * a plain directory or file: a symlink, a socket). */
static int repo_at(const char *dir, uid_t uid)
{
    char probe[PATH_MAX + 8];
    struct stat st, dst;
    if ((size_t)snprintf(probe, sizeof probe, "%s/.git", strcmp(dir, "/") ? dir : "") >=
        sizeof probe)
        return -1;
    if (lstat(probe, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        return -1;
    if (st.st_uid != uid || stat(dir, &dst) != 0 || dst.st_uid != uid)
        return -1;
    return 1;
}

char *wsroot_find(const char *start, uid_t uid, hew_err *err)
{
    if (!start || !*start) {
        hew_err_set(err, HEW_E_INVALID, "no workspace folder given");
        return NULL;
    }
    char *real = realpath(start, NULL);
    if (!real) {
        hew_err_set(err, errno == ENOENT ? HEW_E_NOTFOUND : HEW_E_IO,
                    "the workspace folder %s cannot be used: %s", start, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        hew_err_set(err, HEW_E_INVALID, "the workspace %s is not a folder — give a folder",
                    start);
        free(real);
        return NULL;
    }
    dev_t dev = st.st_dev;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", real);
    for (;;) {
        int r = repo_at(dir, uid);
        if (r < 0)
            break; /* not the user's repository: the start folder is the root */
        if (r > 0) {
            char *root = strdup(dir);
            if (!root)
                hew_err_set(err, HEW_E_NOMEM, "out of memory");
            free(real);
            return root;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || strcmp(dir, "/") == 0)
            break;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (stat(dir, &st) != 0 || st.st_dev != dev)
            break; /* another file system: git's discovery stops here too */
    }
    return real;
}
