/* restore_view — what /restore N [files|task|both] will change, said before it asks
 * "Restore? [y/n]": the files that differ from the checkpoint (hew_checkpoint_diff from N
 * to now) and what restoring does to each (written back, deleted), and for the task mode
 * that the conversation is cut back to the checkpoint. Paths are sanitised (termsafe). */
#ifndef HEW_CLI_RESTORE_VIEW_H
#define HEW_CLI_RESTORE_VIEW_H

#include "hew.h"

/* The preview as text lines (a new string), or NULL with why in err (no such task or
 * checkpoint: the restore itself would fail the same way). mode is "files", "task" or
 * "both"; *changes gets 1 when restoring would change anything, else 0. */
char *restore_preview(const hew_options *o, const char *id, const char *target,
                      const char *mode, int *changes, char *err, size_t errlen);

#endif
