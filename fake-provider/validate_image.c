/* validate_image — an image as the providers check it (see validate_image.h). */
#include "validate_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/image.h"
#include "validate.h"

static bool media_type_ok(const char *t)
{
    static const char *const ok[] = { "image/jpeg", "image/png", "image/gif", "image/webp" };
    for (size_t i = 0; t && i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(t, ok[i]) == 0)
            return true;
    return false;
}

validate_image_verdict validate_image(const char *media_type, const char *b64, size_t b64_len,
                                      size_t max_base64, const char **actual)
{
    *actual = NULL;
    if (!media_type_ok(media_type))
        return VIMG_MEDIA_TYPE;
    if (max_base64 && b64_len > max_base64)
        return VIMG_TOO_BIG;
    size_t n = 0;
    bool bad = false;
    unsigned char *bytes = b64 ? base64_decode(b64, b64_len, &n, &bad) : NULL;
    if (!bytes)
        return VIMG_BASE64;
    image_format f = image_sniff(bytes, n);
    validate_image_verdict verdict = VIMG_OK;
    if (f == IMAGE_UNKNOWN) {
        verdict = VIMG_NOT_IMAGE;
    } else if (strcmp(image_media_type(f), media_type) != 0) {
        *actual = image_media_type(f);
        verdict = VIMG_MISMATCH;
    } else {
        /* decodes whole, whatever its size (no resizing: a long side of any length) */
        image_limits lim = IMAGE_LIMITS_DEFAULT;
        lim.long_side = lim.max_side;
        lim.max_base64 = (size_t)-1;
        lim.max_input = (size_t)-1;
        image_out out = IMAGE_OUT_INIT;
        if (image_prepare(bytes, n, &lim, &out, NULL) != 0)
            verdict = VIMG_NOT_IMAGE;
        image_out_release(&out);
    }
    free(bytes);
    return verdict;
}

bool validate_image_data_url(const char *url, const char **type, size_t *type_len,
                             const char **data)
{
    if (!url || strncmp(url, "data:", 5) != 0)
        return false;
    const char *t = url + 5;
    const char *semi = strstr(t, ";base64,");
    if (!semi)
        return false;
    *type = t;
    *type_len = (size_t)(semi - t);
    *data = semi + 8;
    return true;
}

bool validate_image_openai(const char *url, const char *param, validate_violation *v)
{
    if (url && (strncmp(url, "https://", 8) == 0 || strncmp(url, "http://", 7) == 0))
        return false;
    const char *type, *data;
    size_t type_len;
    if (!validate_image_data_url(url, &type, &type_len, &data))
        return validate_fail(v, param,
                             "Invalid '%s'. Expected a base64-encoded data URL with an image "
                             "MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), "
                             "but got a value without the 'data:' prefix.", param);
    char mt[64];
    snprintf(mt, sizeof mt, "%.*s", type_len < sizeof mt ? (int)type_len : 0, type);
    const char *actual = NULL;
    switch (validate_image(mt, data, strlen(data), 0, &actual)) {
    case VIMG_OK:
        return false;
    case VIMG_BASE64:
        return validate_fail(v, param,
                             "Invalid '%s'. Expected a base64-encoded data URL with an image "
                             "MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), "
                             "but got invalid base64 data.", param);
    default: /* the API's own wording, typo included (openai community forum reports) */
        return validate_fail(v, param, "You uploaded an unsupported image. Please make sure "
                                       "your image has of one the following formats: ['png', "
                                       "'jpeg', 'gif', 'webp'].");
    }
}
