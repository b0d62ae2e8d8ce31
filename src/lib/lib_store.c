/* lib_store — opening the task store for the public API (see lib_store.h). */
#include "lib/lib_store.h"

#include <stdio.h>
#include <stdlib.h>

void lib_set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

hew_code lib_fail(hew_code code, char *err, size_t errlen, const char *msg)
{
    lib_set_err(err, errlen, msg);
    return code;
}

hew_code lib_open_store(const hew_options *o, store **out, char *err, size_t errlen)
{
    *out = NULL;
    hew_err e = HEW_ERR_INIT;
    char *path = store_path_in(o ? o->data_dir : NULL, &e);
    if (!path)
        return lib_fail(e.code != HEW_OK ? e.code : HEW_E_NOTFOUND, err, errlen,
                        e.msg[0] ? e.msg : "cannot tell where hew keeps its tasks");
    store_options so = STORE_OPTIONS_INIT;
    so.path = path;
    store *s = NULL;
    hew_code rc = store_open(&so, &s, &e);
    if (rc != HEW_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot open the task store %s: %s", path, e.msg);
        s = NULL;
    }
    free(path);
    *out = s;
    return rc;
}
