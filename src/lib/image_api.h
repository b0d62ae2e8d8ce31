/* image_api — the user's images for a task's message (hew_task_start_images,
 * hew_task_respond_with_images: files or bytes) and the probe a front end uses on a
 * pasted path (hew_image_probe): read or decoded with a size cap, then checked and
 * prepared by api/image.h. */
#ifndef HEW_LIB_IMAGE_API_H
#define HEW_LIB_IMAGE_API_H

#include <jansson.h>
#include <stdbool.h>

#include "base/err.h"
#include "hew.h"

/* Read or decode each image, check and prepare it: *blocks (image blocks for the model,
 * api/message.h) and *captions ("NAME, WxH type[, scaled from WxH]", one per image), both
 * new arrays (NULL when n is 0). Refused (HEW_E_INVALID) beyond HEW_TASK_IMAGES_MAX or
 * for a model that does not read images (model names it); HEW_E_NOTFOUND, HEW_E_IO,
 * HEW_E_INVALID or HEW_E_NOMEM with err naming the image otherwise. */
hew_code lib_images_prepare(const hew_image *images, size_t n, bool model_images,
                            const char *model, json_t **blocks, json_t **captions,
                            hew_err *err);

#endif
