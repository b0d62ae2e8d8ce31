/* image — an image file as a conversation block (see image.h). */
#include "api/image.h"

#include <stdio.h>
#include <stdlib.h>

#include "api/message.h"
#include "base/base64.h"
#include "base/image.h"

hew_code api_image_block(const void *data, size_t len, const char *name, json_t **block,
                         api_image_info *info, hew_err *err)
{
    *block = NULL;
    image_out img = IMAGE_OUT_INIT;
    hew_err why = HEW_ERR_INIT;
    hew_code rc = image_prepare(data, len, NULL, &img, &why);
    if (rc != HEW_OK)
        return hew_err_set(err, rc, "%s: %s", name ? name : "image", why.msg);
    char *b64 = base64_encode(img.data, img.len);
    json_t *b = b64 ? api_msg_image(image_media_type(img.format), b64) : NULL;
    free(b64);
    if (!b) {
        image_out_release(&img);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory encoding %s", name ? name : "an image");
    }
    if (info)
        *info = (api_image_info){ .width = img.width, .height = img.height,
                                  .src_width = img.src_width, .src_height = img.src_height,
                                  .media_type = image_media_type(img.format),
                                  .bytes = img.len, .resized = img.resized };
    image_out_release(&img);
    *block = b;
    return HEW_OK;
}

void api_image_describe(const char *name, const api_image_info *info, char *out, size_t cap)
{
    const char *fmt = info->media_type ? info->media_type + 6 : "image"; /* after "image/" */
    int n = snprintf(out, cap, "%s, %ux%u %s", name ? name : "image", info->width,
                     info->height, fmt);
    if (info->resized && n >= 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, ", scaled from %ux%u", info->src_width,
                 info->src_height);
}
