/* image_api — image files the user attaches (see image_api.h and hew.h). */
#include "lib/image_api.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/image.h"
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

hew_code lib_image_load(const char *path, json_t *blocks, json_t *captions, hew_err *err)
{
    hew_err local = HEW_ERR_INIT;
    if (!err)
        err = &local;
    if (!path || !*path)
        return hew_err_set(err, HEW_E_INVALID, "an empty image path was given");
    char *data = NULL;
    size_t len = 0;
    hew_code rc = read_image_file(path, &data, &len, err);
    if (rc != HEW_OK)
        return rc;
    json_t *block = NULL;
    api_image_info info;
    rc = api_image_block(data, len, path, &block, &info, err);
    free(data);
    if (rc == HEW_E_NOMEM)
        return rc;
    if (rc != HEW_OK) { /* damaged, too large, unsupported: all "not an image we take" */
        err->code = HEW_E_INVALID;
        return HEW_E_INVALID;
    }
    char caption[600];
    api_image_describe(base_name(path), &info, caption, sizeof caption);
    if (json_array_append_new(blocks, block) != 0 ||
        json_array_append_new(captions, json_string(caption)) != 0)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory");
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
