/* lib_pending — the journal of pending file writes of a process (base/fsat.h) in hew's
 * data folder: where it lives, and its clean-up when a session starts. It must never
 * remove anything the journal does not list, and never make a session fail (a journal
 * that cannot be kept only means a killed write could leave a temporary file behind). */
#ifndef HEW_LIB_LIB_PENDING_H
#define HEW_LIB_LIB_PENDING_H

/* The journal folder: <data_dir>/pending-writes (data_dir NULL: $XDG_DATA_HOME/hew, or
 * ~/.local/share/hew). Remove what killed processes left (fsat_journal_clean), then record
 * this process's writes there (fsat_journal_set). Problems are logged, never returned. */
void lib_pending_start(const char *data_dir);

#endif
