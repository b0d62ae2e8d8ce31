/* datadir — the one rule for hew's data folder (see datadir.h). Reads the environment and
 * the passwd entry; never creates, writes or removes anything. */
#include "sys/datadir.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/path.h"

const char *datadir_override(void)
{
    const char *d = getenv(DATADIR_ENV);
    return d && *d ? d : NULL;
}

char *datadir_default(hew_err *err)
{
    const char *over = datadir_override();
    const char *xdg = getenv("XDG_DATA_HOME");
    char *dir = NULL;
    if (over) {
        dir = strdup(over);
    } else if (xdg && xdg[0] == '/') {
        dir = path_join(xdg, "hew");
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home) {
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home || !*home) {
            hew_err_set(err, HEW_E_NOTFOUND,
                        "cannot find hew's data directory: none of HEW_DATA_DIR, "
                        "XDG_DATA_HOME and HOME is set — set HEW_DATA_DIR (or pass "
                        "--data-dir DIR)");
            return NULL;
        }
        dir = path_join(home, ".local/share/hew");
    }
    if (!dir)
        hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return dir;
}
