/* image — an image file as a block of the conversation (api/message.h): prepared by
 * base/image.h (checked, downscaled, re-encoded within the providers' limits), base64'd,
 * and described in one line for the user and the model ("shot.png, 1568x882 PNG, scaled
 * from 3136x1764"). The caller reads the file (its own confinement and size cap). */
#ifndef HEW_API_IMAGE_H
#define HEW_API_IMAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct api_image_info {
    uint32_t width, height;         /* as sent */
    uint32_t src_width, src_height; /* of the file */
    const char *media_type;         /* static string */
    size_t bytes;                   /* of the image as sent, before base64 */
    bool resized;
} api_image_info;

/* The image block for data[0..len) in *block (a new reference); info may be NULL. name
 * (the file's name, for messages) may be NULL. HEW_E_INVALID / HEW_E_TOOBIG /
 * HEW_E_UNSUPPORTED with a message naming the file and what to do; HEW_E_NOMEM. */
hew_code api_image_block(const void *data, size_t len, const char *name, json_t **block,
                         api_image_info *info, hew_err *err);

/* "NAME, WxH FORMAT" and ", scaled from WxH" when it was: appended to out (a NUL-terminated
 * string of at most cap bytes). */
void api_image_describe(const char *name, const api_image_info *info, char *out, size_t cap);

#endif
