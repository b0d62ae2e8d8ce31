/* lookup_api — small lookups a front end's completion needs from the library: the names
 * of the models hew's table knows (api/model.c), and whether the workspace's .clineignore
 * hides a path (sys/ignore.c), so that a terminal offers and attaches only what the model
 * may see. See the "Lookups for front ends" part of include/hew.h. Reads only the
 * .clineignore files it is asked about; never starts anything. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/model.h"
#include "base/err.h"
#include "hew.h"
#include "lib/lib_store.h"
#include "prompt/slash.h"
#include "sys/ignore.h"

size_t hew_model_names(const char **out, size_t cap)
{
    size_t n = 0, k = 0;
    const api_model *t = api_model_table(&n);
    for (size_t i = 0; i < n; i++)
        if (t[i].id && *t[i].id) {
            if (k < cap)
                out[k] = t[i].id;
            k++;
        }
    return k;
}

/* The clean relative form of path ("./a//b/" → "a/b"), or NULL when it leaves the
 * workspace ("..", an absolute path). *is_dir: it ended in '/'. */
static char *clean_rel(const char *path, bool *is_dir)
{
    size_t n = strlen(path);
    *is_dir = n && path[n - 1] == '/';
    if (path[0] == '/')
        return NULL;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            free(out);
            return NULL;
        }
        if (len && !(len == 1 && p[0] == '.')) {
            if (o)
                out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
        while (*p == '/')
            p++;
    }
    out[o] = '\0';
    return out;
}

hew_code hew_path_ignored(const char *workspace, const char *path, int *ignored, char *err,
                          size_t errlen)
{
    if (!path || !*path || !ignored)
        return lib_fail(HEW_E_INVALID, err, errlen, "no path given, or no place for the answer");
    *ignored = 0;
    char here[4096];
    if (!workspace)
        workspace = getcwd(here, sizeof here);
    if (!workspace)
        return lib_fail(HEW_E_IO, err, errlen, "the current directory cannot be read");
    bool is_dir = false;
    char *rel = clean_rel(path, &is_dir);
    if (!rel) /* outside the workspace: .clineignore never covers it (as in Cline) */
        return HEW_OK;
    ignore *ig = NULL;
    hew_err e = HEW_ERR_INIT;
    hew_code rc = ignore_load_cline(workspace, &ig, &e);
    if (rc != HEW_OK) {
        free(rel);
        lib_set_err(err, errlen, e.msg);
        return rc;
    }
    *ignored = *rel && ignore_match(ig, rel, is_dir) ? 1 : 0;
    ignore_free_chain(ig);
    free(rel);
    return HEW_OK;
}

int hew_slash_known(const char *workspace, const char *name)
{
    char here[4096];
    if (!workspace)
        workspace = getcwd(here, sizeof here);
    slash_opts o = slash_defaults(workspace);
    return slash_known(&o, name) ? 1 : 0;
}
