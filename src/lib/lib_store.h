/* lib_store — what the public API's store-backed functions (history.c, checkpoints.c)
 * share: opening the task store an hew_options names, with errors written into the
 * caller's (err, errlen) buffer as include/hew.h promises. */
#ifndef HEW_LIB_LIB_STORE_H
#define HEW_LIB_LIB_STORE_H

#include <stddef.h>

#include "hew.h"
#include "store/store.h"

/* Copy msg into err (when err and errlen allow). */
void lib_set_err(char *err, size_t errlen, const char *msg);

/* Open the store of o->data_dir (NULL options or data_dir: the default path); NULL with a
 * message in err. */
store *lib_open_store(const hew_options *o, char *err, size_t errlen);

#endif
