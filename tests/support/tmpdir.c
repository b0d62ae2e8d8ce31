/* tmpdir — scratch directories for unit tests (see tmpdir.h). */
#include "tmpdir.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tmpdir_make(const char *tag)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    char tmpl[PATH_MAX];
    snprintf(tmpl, sizeof tmpl, "%s/hew-test-%s-XXXXXX", base, tag ? tag : "x");
    if (!mkdtemp(tmpl))
        return NULL;
    return realpath(tmpl, NULL);
}

static int unlock_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_D || type == FTW_DNR)
        chmod(path, (st->st_mode & 07777) | S_IRWXU);
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP || type == FTW_D || type == FTW_DNR)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void tmpdir_remove(const char *path)
{
    if (!path || !*path)
        return;
    nftw(path, unlock_one, 16, FTW_PHYS);
    nftw(path, remove_one, 16, FTW_PHYS | FTW_DEPTH);
}
