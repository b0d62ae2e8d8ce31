/* image — an image file made fit for a model: recognised by its bytes (never its name),
 * checked, decoded with the system's libpng and libjpeg(-turbo), downscaled so that its
 * long side and its encoded size stay within what the providers take, and encoded again in
 * its own format (PNG stays PNG, JPEG stays JPEG). GIF and WebP, which hew does not decode,
 * pass through unchanged when their header's dimensions and their size are within limits.
 *
 * Defence: the dimensions are read from the header and checked (each side, and the pixel
 * count against decompression bombs) before a pixel buffer is allocated; a truncated or
 * corrupt file, a header that lies, an unknown format and an image too large are all
 * HEW_E_INVALID (HEW_E_TOOBIG for size caps) with a message saying what to do, never a
 * crash. The library's own error paths (libpng's and libjpeg's longjmp) stay inside this
 * file. Nothing here does I/O: the caller reads the bytes (with its own size cap). */
#ifndef HEW_BASE_IMAGE_H
#define HEW_BASE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef enum image_format { IMAGE_UNKNOWN, IMAGE_PNG, IMAGE_JPEG, IMAGE_GIF, IMAGE_WEBP } image_format;

typedef struct image_limits {
    size_t max_input;    /* bytes of the source file at most */
    uint32_t max_side;   /* either side of the source at most */
    uint64_t max_pixels; /* pixels decoded at most (after JPEG's own 1/2..1/8 scaling) */
    uint32_t long_side;  /* the prepared image's longer side at most */
    size_t max_base64;   /* the prepared image's base64 length at most */
} image_limits;

/* What every provider takes: Anthropic's recommended 1568 px long side (its hard limit is
 * 8000, 2000 with many images) and 5 MB of base64 per image; OpenAI scales anything
 * larger down itself; Gemini takes 20 MB per request inline. Sources up to 20 MB, 30000
 * px a side and 50 megapixels decoded. */
#define IMAGE_LIMITS_DEFAULT                                                               \
    { (size_t)20 << 20, 30000, 50000000u, 1568, (size_t)5 << 20 }

/* GIF and WebP are passed through only up to this side (Anthropic's hard limit). */
#define IMAGE_PASSTHROUGH_SIDE 8000

typedef struct image_out {
    image_format format;
    unsigned char *data; /* the prepared file's bytes, owned (image_out_release) */
    size_t len;
    uint32_t width, height;         /* of the prepared image */
    uint32_t src_width, src_height; /* of the source */
    bool resized;                   /* re-encoded smaller than the source */
} image_out;

#define IMAGE_OUT_INIT { IMAGE_UNKNOWN, NULL, 0, 0, 0, 0, 0, false }

/* The format of data by its magic bytes; IMAGE_UNKNOWN when none of the four. */
image_format image_sniff(const void *data, size_t len);

/* "image/png", "image/jpeg", "image/gif", "image/webp"; NULL for IMAGE_UNKNOWN. */
const char *image_media_type(image_format f);
/* "PNG", "JPEG", "GIF", "WebP", "unknown". */
const char *image_format_name(image_format f);

/* The format and dimensions from the header alone (cheap: nothing is decoded). What the
 * bytes are (a BMP, a PDF, text) is named in the HEW_E_INVALID message. */
hew_code image_probe(const void *data, size_t len, image_format *format, uint32_t *width,
                     uint32_t *height, hew_err *err);

/* Prepare data[0..len) as above (lim NULL: IMAGE_LIMITS_DEFAULT). On HEW_OK *out holds the
 * bytes to send; on failure *out is left empty. The whole image is decoded even when it
 * goes unchanged, so a broken file is refused here rather than by the provider. */
hew_code image_prepare(const void *data, size_t len, const image_limits *lim, image_out *out,
                       hew_err *err);

void image_out_release(image_out *o);

#endif
