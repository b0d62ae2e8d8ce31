/* acp_image — the image blocks of an ACP prompt ({type "image", mimeType, data: base64,
 * uri?}) as the hew_image list the library takes (hew_task_start_with_images,
 * hew_task_respond_with_images). Nothing is decoded or written here: each hew_image points
 * at its block's base64 string, and the block is referenced while it is used; the
 * library decodes the bytes, checks them, scales them down, and refuses them for a model
 * that does not read images. This file checks only what the block itself says: a type
 * hew attaches (PNG, JPEG, GIF, WebP), data that is a string, at most HEW_TASK_IMAGES_MAX.
 * Images kept past the prompt's request (for a resume ask answered on the task's thread)
 * are copied, so that no JSON is shared between threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp.h"

/* The types hew attaches (the library knows each by its bytes). */
static const char *const image_types[] = { "image/png", "image/jpeg", "image/gif", "image/webp" };

/* The base name of a block's uri (its caption), or NULL: the library's "image N". */
static const char *uri_name(const char *uri)
{
    if (!uri)
        return NULL;
    const char *slash = strrchr(uri, '/');
    const char *name = slash ? slash + 1 : uri;
    return *name ? name : NULL;
}

int acp_images_add(acp_images *im, json_t *block, size_t index, char *err, size_t errlen)
{
    const char *mime = json_string_value(json_object_get(block, "mimeType"));
    json_t *data = json_object_get(block, "data");
    int known = 0;
    for (size_t i = 0; mime && i < sizeof image_types / sizeof image_types[0]; i++)
        known |= strcmp(image_types[i], mime) == 0;
    if (!known) {
        snprintf(err, errlen, "params.prompt[%zu] is an image of type %s: hew takes image/png, "
                              "image/jpeg, image/gif and image/webp", index,
                 mime ? mime : "(no mimeType)");
        return -1;
    }
    if (!json_is_string(data)) {
        snprintf(err, errlen, "params.prompt[%zu].data must be the image's bytes in base64 (hew "
                              "does not fetch an image's uri)", index);
        return -1;
    }
    if (im->n == HEW_TASK_IMAGES_MAX) {
        snprintf(err, errlen, "the prompt has more than %d images", HEW_TASK_IMAGES_MAX);
        return -1;
    }
    im->blocks[im->n] = json_incref(block);
    im->items[im->n] = (hew_image){
        .data = json_string_value(data),
        .len = json_string_length(data),
        .base64 = 1,
        .name = uri_name(json_string_value(json_object_get(block, "uri"))),
    };
    im->n++;
    return 0;
}

int acp_images_keep(acp_images *dst, const acp_images *src)
{
    memset(dst, 0, sizeof *dst);
    for (size_t i = 0; i < src->n; i++) {
        const hew_image *from = &src->items[i];
        size_t name_len = from->name ? strlen(from->name) : 0;
        char *copy = malloc(from->len + 1 + name_len + 1);
        if (!copy) {
            acp_images_release(dst);
            return -1;
        }
        memcpy(copy, from->data, from->len);
        copy[from->len] = '\0';
        char *name = copy + from->len + 1;
        if (from->name)
            memcpy(name, from->name, name_len + 1);
        dst->copies[i] = copy;
        dst->items[i] = *from;
        dst->items[i].data = copy;
        dst->items[i].name = from->name ? name : NULL;
        dst->n = i + 1;
    }
    return 0;
}

void acp_images_release(acp_images *im)
{
    for (size_t i = 0; i < im->n; i++) {
        json_decref(im->blocks[i]);
        free(im->copies[i]);
    }
    memset(im, 0, sizeof *im);
}
