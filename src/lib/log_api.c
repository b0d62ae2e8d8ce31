/* log_api — the public face of hew's diagnostic log (include/hew.h: The log): turning it on
 * and saying where it is. It must never open the file itself (base/log opens it at the
 * first line) and never print. */
#include <stdio.h>

#include "base/log.h"
#include "hew.h"
#include "lib/lib_store.h"

hew_code hew_log_enable(const char *dir, char *err, size_t errlen)
{
    hew_err e = HEW_ERR_INIT;
    hew_code rc = log_open_lazy(dir, &e);
    if (rc != HEW_OK)
        lib_set_err(err, errlen, e.msg);
    return rc;
}

hew_code hew_log_path(char *path, size_t n)
{
    return log_file_path(path, n) ? HEW_OK : HEW_E_STATE;
}
