/* image_api — the user's image files for a task (hew_task_start_images) and the probe a
 * front end uses on a pasted path (hew_image_probe): read with a size cap, then checked
 * and prepared by api/image.h. */
#ifndef HEW_LIB_IMAGE_API_H
#define HEW_LIB_IMAGE_API_H

#include <jansson.h>

#include "base/err.h"

/* Read path, prepare it, and append its image block to blocks and its caption ("NAME,
 * WxH type[, scaled from WxH]") to captions. HEW_E_NOTFOUND, HEW_E_IO, HEW_E_INVALID,
 * HEW_E_TOOBIG, HEW_E_UNSUPPORTED or HEW_E_NOMEM, with err naming the file. */
hew_code lib_image_load(const char *path, json_t *blocks, json_t *captions, hew_err *err);

#endif
