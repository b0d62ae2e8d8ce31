/* lib_store — what the public API's store-backed functions (history.c, checkpoints.c)
 * share: opening the task store an hew_options names, with errors written into the
 * caller's (err, errlen) buffer as include/hew.h promises. */
#ifndef HEW_LIB_LIB_STORE_H
#define HEW_LIB_LIB_STORE_H

#include <stddef.h>

#include "hew.h"
#include "store/store.h"

/* Copy msg into err (when err and errlen allow); returns code, so that
 * `return lib_fail(HEW_E_INVALID, err, errlen, "...")` reads naturally. */
void lib_set_err(char *err, size_t errlen, const char *msg);
hew_code lib_fail(hew_code code, char *err, size_t errlen, const char *msg);

/* Open the store of o->data_dir (NULL options or data_dir: the default path) into *out;
 * a code with a message in err. */
hew_code lib_open_store(const hew_options *o, store **out, char *err, size_t errlen);

#endif
