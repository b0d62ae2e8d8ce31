/* lib_pending — the pending-writes journal of a session's process (see lib_pending.h).
 * Never removes what the journal does not list; never fails a session. */
#include "lib/lib_pending.h"

#include <stdlib.h>
#include <string.h>

#include "base/fsat.h"
#include "base/log.h"
#include "sys/path.h"
#include "store/store.h"

void lib_pending_start(const char *data_dir)
{
    hew_err err = HEW_ERR_INIT;
    /* The store's rule for the data folder: hew.db's folder. */
    char *db = store_path_in(data_dir && *data_dir ? data_dir : NULL, &err);
    char *slash = db ? strrchr(db, '/') : NULL;
    if (!slash) {
        hew_log(HEW_LOG_WARN, "pending", "no journal of pending writes: %s",
                err.msg[0] ? err.msg : "no data folder");
        free(db);
        return;
    }
    *slash = '\0';
    char *dir = path_join(db, "pending-writes");
    free(db);
    if (!dir)
        return;
    size_t removed = 0;
    if (fsat_journal_clean(dir, &removed, &err) != HEW_OK)
        hew_log(HEW_LOG_WARN, "pending", "cleaning up after killed writes: %s", err.msg);
    else if (removed)
        hew_log(HEW_LOG_INFO, "pending", "removed %zu temporary file%s left by a killed write",
                removed, removed == 1 ? "" : "s");
    hew_err_clear(&err);
    if (fsat_journal_set(dir, &err) != HEW_OK)
        hew_log(HEW_LOG_WARN, "pending", "no journal of pending writes: %s", err.msg);
    free(dir);
}
