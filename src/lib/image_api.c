/* image_api — the images the user attaches (files or bytes) (see image_api.h and hew.h). */
#include "lib/image_api.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/image.h"
#include "base/base64.h"
#include "base/fs.h"
#include "base/image.h"
#include "hew.h"
#include "lib/lib_store.h"

#define IMAGE_FILE_MAX ((size_t)20 << 20) /* base/image.h's IMAGE_LIMITS_DEFAULT max_input */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Read path whole (at most IMAGE_FILE_MAX bytes), with the messages a user acts on. */
static hew_code read_image_file(const char *path, char **data, size_t *len, hew_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return hew_err_set(err, HEW_E_NOTFOUND, "%s: no such file", path);
        return fs_error(err, errno, "read", path);
    }
    if (!S_ISREG(st.st_mode))
        return hew_err_set(err, S_ISDIR(st.st_mode) ? HEW_E_NOTFOUND : HEW_E_INVALID,
                           "%s: not a file (a %s)", path,
                           S_ISDIR(st.st_mode) ? "directory" : "device, socket or pipe");
    if ((size_t)st.st_size > IMAGE_FILE_MAX)
        return hew_err_set(err, HEW_E_INVALID, "%s: the image is %lld bytes, more than the "
                                               "%zu hew reads; make it smaller first",
                           path, (long long)st.st_size, IMAGE_FILE_MAX);
    hew_code rc = fs_read_file(path, IMAGE_FILE_MAX, data, len, err);
    if (rc == HEW_E_TOOBIG) /* grew while read */
        return hew_err_set(err, HEW_E_INVALID, "%s: larger than the %zu bytes hew reads",
                           path, IMAGE_FILE_MAX);
    return rc;
}

/* The bytes of img (its file read, its base64 decoded, or its data as is) in *data (a
 * new buffer the caller frees), and the name its caption uses in name. */
static hew_code image_bytes(const hew_image *img, size_t index, char **data, size_t *len,
                            char *name, size_t namecap, hew_err *err)
{
    if (img->path) {
        if (!*img->path)
            return hew_err_set(err, HEW_E_INVALID, "an empty image path was given");
        snprintf(name, namecap, "%s", base_name(img->path));
        return read_image_file(img->path, data, len, err);
    }
    if (img->name && *img->name)
        snprintf(name, namecap, "%s", img->name);
    else
        snprintf(name, namecap, "image %zu", index + 1);
    if (!img->data || !img->len)
        return hew_err_set(err, HEW_E_INVALID, "%s: no path and no data given", name);
    if (img->base64 && img->len / 4 * 3 > IMAGE_FILE_MAX + 3) /* not decoded to know */
        return hew_err_set(err, HEW_E_INVALID, "%s: the image is about %zu bytes, more than "
                                               "the %zu hew reads; make it smaller first",
                           name, img->len / 4 * 3, IMAGE_FILE_MAX);
    if (img->base64) {
        bool bad = false;
        size_t n = 0;
        unsigned char *raw = base64_decode(img->data, img->len, &n, &bad);
        if (!raw)
            return bad ? hew_err_set(err, HEW_E_INVALID, "%s: the data is not base64 (the "
                                                         "standard alphabet, padded, no white "
                                                         "space)", name)
                       : hew_err_set(err, HEW_E_NOMEM, "out of memory");
        *data = (char *)raw;
        *len = n;
    } else {
        if (!(*data = malloc(img->len)))
            return hew_err_set(err, HEW_E_NOMEM, "out of memory");
        memcpy(*data, img->data, img->len);
        *len = img->len;
    }
    if (*len > IMAGE_FILE_MAX) {
        free(*data);
        *data = NULL;
        return hew_err_set(err, HEW_E_INVALID, "%s: the image is %zu bytes, more than the %zu "
                                               "hew reads; make it smaller first",
                           name, *len, IMAGE_FILE_MAX);
    }
    return HEW_OK;
}

/* Prepare one image and append its block and caption. */
static hew_code image_load(const hew_image *img, size_t index, json_t *blocks,
                           json_t *captions, hew_err *err)
{
    char name[512];
    char *data = NULL;
    size_t len = 0;
    hew_code rc = image_bytes(img, index, &data, &len, name, sizeof name, err);
    if (rc != HEW_OK)
        return rc;
    json_t *block = NULL;
    api_image_info info;
    rc = api_image_block(data, len, img->path ? img->path : name, &block, &info, err);
    free(data);
    if (rc == HEW_E_NOMEM)
        return rc;
    if (rc != HEW_OK) { /* damaged, too large, unsupported: all "not an image we take" */
        err->code = HEW_E_INVALID;
        return HEW_E_INVALID;
    }
    char caption[600];
    api_image_describe(name, &info, caption, sizeof caption);
    if (json_array_append_new(blocks, block) != 0 ||
        json_array_append_new(captions, json_string(caption)) != 0)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
    return HEW_OK;
}

hew_code lib_images_prepare(const hew_image *images, size_t n, bool model_images,
                            const char *model, json_t **blocks, json_t **captions,
                            hew_err *err)
{
    *blocks = *captions = NULL;
    if (n == 0)
        return HEW_OK;
    if (!images)
        return hew_err_set(err, HEW_E_INVALID, "no images given (images is NULL)");
    if (n > HEW_TASK_IMAGES_MAX)
        return hew_err_set(err, HEW_E_INVALID, "%zu images given; a message takes at most %d",
                           n, HEW_TASK_IMAGES_MAX);
    if (!model_images)
        return hew_err_set(err, HEW_E_INVALID, "the model %s does not read images: choose "
                                               "one that does (--model), or leave the images "
                                               "out", model);
    json_t *b = json_array(), *c = json_array();
    hew_code rc = b && c ? HEW_OK : hew_err_set(err, HEW_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == HEW_OK && i < n; i++)
        rc = image_load(&images[i], i, b, c, err);
    if (rc != HEW_OK) {
        json_decref(b);
        json_decref(c);
        if (rc == HEW_E_NOMEM && !err->msg[0])
            hew_err_set(err, HEW_E_NOMEM, "out of memory");
        return rc;
    }
    *blocks = b;
    *captions = c;
    return HEW_OK;
}

hew_code hew_image_probe(const char *path, int *width, int *height, char *err, size_t errlen)
{
    if (width)
        *width = 0;
    if (height)
        *height = 0;
    if (!path || !*path)
        return lib_fail(HEW_E_INVALID, err, errlen, "no path given");
    hew_err e = HEW_ERR_INIT;
    char *data = NULL;
    size_t len = 0;
    hew_code rc = read_image_file(path, &data, &len, &e);
    if (rc != HEW_OK)
        return lib_fail(rc, err, errlen, e.msg);
    image_format f;
    uint32_t w, h;
    hew_err why = HEW_ERR_INIT;
    rc = image_probe(data, len, &f, &w, &h, &why);
    free(data);
    if (rc != HEW_OK) {
        hew_err_set(&e, HEW_E_INVALID, "%s: %s", path, why.msg);
        return lib_fail(HEW_E_INVALID, err, errlen, e.msg);
    }
    if (width)
        *width = w > (uint32_t)INT32_MAX ? INT32_MAX : (int)w;
    if (height)
        *height = h > (uint32_t)INT32_MAX ? INT32_MAX : (int)h;
    return HEW_OK;
}
