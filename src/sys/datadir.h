/* datadir — where hew keeps what it writes outside a workspace: the one rule for the data
 * folder (the task store, checkpoints' shadow repositories, the trust file, the journal
 * of pending writes), so that every part agrees and `--data-dir` / HEW_DATA_DIR moves all
 * of it at once. Reads the environment only; never creates or writes anything.
 *
 * The rule, first that applies:
 *   $HEW_DATA_DIR          when set and not empty (the hew command makes it absolute and
 *                          creates it 0700 before any part of hew reads it);
 *   $XDG_DATA_HOME/hew     when XDG_DATA_HOME is an absolute path (the XDG rules ignore a
 *                          relative one);
 *   $HOME/.local/share/hew (HOME, else the passwd entry's home).
 * A caller's explicit folder (hew_options.data_dir) is used before all of these, by the
 * caller. hew's log follows HEW_DATA_DIR too (base/log.h: $HEW_DATA_DIR/log). */
#ifndef HEW_SYS_DATADIR_H
#define HEW_SYS_DATADIR_H

#include "base/err.h"

/* The variable that moves all of hew's data: "HEW_DATA_DIR". */
#define DATADIR_ENV "HEW_DATA_DIR"

/* $HEW_DATA_DIR when it is set and not empty, else NULL (borrowed from the environment). */
const char *datadir_override(void);

/* hew's data folder by the rule above: a new string the caller frees, or NULL with err
 * set (HEW_E_NOTFOUND: none of the variables is set and there is no passwd home;
 * HEW_E_NOMEM). */
char *datadir_default(hew_err *err);

#endif
