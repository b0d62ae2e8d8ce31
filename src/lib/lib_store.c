/* lib_store — opening the task store for the public API (see lib_store.h). */
#include "lib/lib_store.h"

#include <stdio.h>
#include <stdlib.h>

void lib_set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

store *lib_open_store(const hew_options *o, char *err, size_t errlen)
{
    hew_err e = HEW_ERR_INIT;
    char *path = store_path_in(o ? o->data_dir : NULL, &e);
    if (!path) {
        lib_set_err(err, errlen, e.msg[0] ? e.msg : "cannot tell where hew keeps its tasks");
        return NULL;
    }
    store_options so = STORE_OPTIONS_INIT;
    so.path = path;
    store *s = NULL;
    if (store_open(&so, &s, &e) != HEW_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot open the task store %s: %s", path, e.msg);
        s = NULL;
    }
    free(path);
    return s;
}
