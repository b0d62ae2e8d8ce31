/* wsfile — a test workspace's files (see wsfile.h). */
#include "wsfile.h"

#include <stdio.h>
#include <string.h>

#include "base/fs.h"
#include "check.h"

void ws_put(const char *root, const char *rel, const char *content)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    fs_mkdirs(path, 0755, NULL);
    *slash = '/';
    CHECK_INT(fs_write_atomic(path, content, strlen(content), 0644, NULL), HEW_OK);
}

char *ws_get(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *text = NULL;
    if (fs_read_file(path, 64 << 20, &text, NULL, NULL) != HEW_OK)
        return NULL;
    return text;
}
