/* image — decoding, checking, downscaling and encoding images for a model (see image.h).
 * PNG through libpng's simplified API (png_image: its errors come back as a message, its
 * longjmp stays inside libpng), JPEG through libjpeg with an error manager that jumps back
 * here. Pixels are 8-bit, 1 to 4 channels (gray, gray+alpha, RGB, RGBA). */
#include "base/image.h"

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

#include "base/base64.h"

#define JPEG_QUALITY 85
#define JPEG_MAX_SCANS 500 /* a progressive JPEG of more scans is refused (a CPU bomb) */
#define MIN_SIDE 64 /* shrinking to meet the size cap stops here */

/* ---- recognising ------------------------------------------------------------------------ */

image_format image_sniff(const void *data, size_t len)
{
    const unsigned char *p = data;
    if (len >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return IMAGE_PNG;
    if (len >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
        return IMAGE_JPEG;
    if (len >= 6 && (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0))
        return IMAGE_GIF;
    if (len >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        return IMAGE_WEBP;
    return IMAGE_UNKNOWN;
}

static const struct {
    const char *media_type, *name;
} FORMATS[] = {
    [IMAGE_UNKNOWN] = { NULL, "unknown" },
    [IMAGE_PNG] = { "image/png", "PNG" },
    [IMAGE_JPEG] = { "image/jpeg", "JPEG" },
    [IMAGE_GIF] = { "image/gif", "GIF" },
    [IMAGE_WEBP] = { "image/webp", "WebP" },
};

const char *image_media_type(image_format f)
{
    return f <= IMAGE_WEBP ? FORMATS[f].media_type : NULL;
}

const char *image_format_name(image_format f)
{
    return f <= IMAGE_WEBP ? FORMATS[f].name : "unknown";
}

/* What bytes that are no image we take look like, for the message. */
static const char *what_else(const unsigned char *p, size_t len)
{
    static const struct {
        const char *magic;
        size_t n;
        const char *what;
    } others[] = {
        { "BM", 2, "a BMP image (convert it to PNG)" },
        { "II*\0", 4, "a TIFF image (convert it to PNG)" },
        { "MM\0*", 4, "a TIFF image (convert it to PNG)" },
        { "%PDF", 4, "a PDF document" },
        { "<svg", 4, "an SVG drawing (text; read it with read_file, or render it to PNG)" },
        { "<?xml", 5, "an XML file" },
        { "\0\0\1\0", 4, "an ICO icon (convert it to PNG)" },
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (len >= others[i].n && memcmp(p, others[i].magic, others[i].n) == 0)
            return others[i].what;
    if (len >= 12 && memcmp(p + 4, "ftyp", 4) == 0 &&
        (memcmp(p + 8, "heic", 4) == 0 || memcmp(p + 8, "heix", 4) == 0 ||
         memcmp(p + 8, "mif1", 4) == 0 || memcmp(p + 8, "avif", 4) == 0))
        return "a HEIC/AVIF image (convert it to PNG or JPEG)";
    return NULL;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le24(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

/* WebP's canvas size from its first chunk (VP8, VP8L or VP8X). */
static bool webp_size(const unsigned char *p, size_t len, uint32_t *w, uint32_t *h)
{
    if (len >= 30 && memcmp(p + 12, "VP8 ", 4) == 0 && p[23] == 0x9d && p[24] == 0x01 &&
        p[25] == 0x2a) {
        *w = le16(p + 26) & 0x3fff;
        *h = le16(p + 28) & 0x3fff;
        return true;
    }
    if (len >= 25 && memcmp(p + 12, "VP8L", 4) == 0 && p[20] == 0x2f) {
        uint32_t bits = (uint32_t)p[21] | (uint32_t)p[22] << 8 | (uint32_t)p[23] << 16 |
                        (uint32_t)p[24] << 24;
        *w = (bits & 0x3fff) + 1;
        *h = ((bits >> 14) & 0x3fff) + 1;
        return true;
    }
    if (len >= 30 && memcmp(p + 12, "VP8X", 4) == 0) {
        *w = le24(p + 24) + 1;
        *h = le24(p + 27) + 1;
        return true;
    }
    return false;
}

/* ---- libjpeg's error manager: errors jump back, warnings of a cut file are noted ------- */

typedef struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    bool truncated;
    char msg[JMSG_LENGTH_MAX];
} jpeg_fail;

static void jpeg_fail_exit(j_common_ptr c)
{
    jpeg_fail *f = (jpeg_fail *)c->err;
    f->mgr.format_message(c, f->msg);
    longjmp(f->jump, 1);
}

static void jpeg_fail_note(j_common_ptr c, int level)
{
    jpeg_fail *f = (jpeg_fail *)c->err;
    if (level < 0 && f->mgr.msg_code == JWRN_JPEG_EOF)
        f->truncated = true; /* libjpeg would fill the rest with gray */
}

/* Progressive JPEGs may hold thousands of scans, each a pass over the whole image. */
static void jpeg_scan_limit(j_common_ptr c)
{
    struct jpeg_decompress_struct *d = (struct jpeg_decompress_struct *)c;
    if (d->is_decompressor && d->input_scan_number > JPEG_MAX_SCANS) {
        jpeg_fail *f = (jpeg_fail *)c->err;
        snprintf(f->msg, sizeof f->msg, "it has more than %d progressive scans",
                 JPEG_MAX_SCANS);
        longjmp(f->jump, 1);
    }
}

static void jpeg_fail_init(jpeg_fail *f)
{
    memset(f, 0, sizeof *f);
    jpeg_std_error(&f->mgr);
    f->mgr.error_exit = jpeg_fail_exit;
    f->mgr.emit_message = jpeg_fail_note;
}

/* ---- probing ---------------------------------------------------------------------------- */

static hew_code jpeg_probe(const unsigned char *p, size_t len, uint32_t *w, uint32_t *h,
                           hew_err *err)
{
    struct jpeg_decompress_struct d;
    jpeg_fail f;
    jpeg_fail_init(&f);
    d.err = &f.mgr;
    if (setjmp(f.jump)) {
        jpeg_destroy_decompress(&d);
        return hew_err_set(err, HEW_E_INVALID, "the JPEG image is damaged: %s", f.msg);
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, p, (unsigned long)len);
    jpeg_read_header(&d, TRUE);
    *w = d.image_width;
    *h = d.image_height;
    jpeg_destroy_decompress(&d);
    return HEW_OK;
}

hew_code image_probe(const void *data, size_t len, image_format *format, uint32_t *width,
                     uint32_t *height, hew_err *err)
{
    const unsigned char *p = data;
    image_format f = image_sniff(data, len);
    *format = f;
    *width = *height = 0;
    switch (f) {
    case IMAGE_PNG:
        if (len < 24 || memcmp(p + 12, "IHDR", 4) != 0)
            return hew_err_set(err, HEW_E_INVALID, "the PNG image is damaged: it has no header "
                                                   "(IHDR) where one must be");
        *width = be32(p + 16);
        *height = be32(p + 20);
        break;
    case IMAGE_JPEG: {
        hew_code rc = jpeg_probe(p, len, width, height, err);
        if (rc != HEW_OK)
            return rc;
        break;
    }
    case IMAGE_GIF:
        if (len < 10)
            return hew_err_set(err, HEW_E_INVALID, "the GIF image is damaged: it ends inside "
                                                   "its header");
        *width = le16(p + 6);
        *height = le16(p + 8);
        break;
    case IMAGE_WEBP:
        if (!webp_size(p, len, width, height))
            return hew_err_set(err, HEW_E_INVALID, "the WebP image is damaged: its first "
                                                   "chunk is none of VP8, VP8L or VP8X");
        break;
    case IMAGE_UNKNOWN: {
        const char *other = what_else(p, len);
        return hew_err_set(err, HEW_E_INVALID,
                           "not an image hew can send: %s; models take PNG, JPEG, GIF and "
                           "WebP", other ? other : "its bytes are none of PNG, JPEG, GIF or WebP");
    }
    }
    if (*width == 0 || *height == 0)
        return hew_err_set(err, HEW_E_INVALID, "the %s image is damaged: its header says "
                                               "%ux%u pixels", image_format_name(f), *width,
                           *height);
    return HEW_OK;
}

/* ---- pixels ---------------------------------------------------------------------------- */

typedef struct pixels {
    unsigned char *px;
    uint32_t w, h;
    int ch; /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
} pixels;

/* Box filter: every output pixel is the average of the source pixels it covers (the
 * boxes partition the source, so the cost is one pass over it). Colour is weighted by
 * alpha, so transparent pixels do not darken the edges. */
static bool downscale(const pixels *s, uint32_t nw, uint32_t nh, pixels *d)
{
    int ch = s->ch;
    bool alpha = ch == 2 || ch == 4;
    d->w = nw;
    d->h = nh;
    d->ch = ch;
    d->px = malloc((size_t)nw * nh * (size_t)ch);
    if (!d->px)
        return false;
    for (uint32_t y = 0; y < nh; y++) {
        uint32_t y0 = (uint32_t)((uint64_t)y * s->h / nh);
        uint32_t y1 = (uint32_t)((uint64_t)(y + 1) * s->h / nh);
        for (uint32_t x = 0; x < nw; x++) {
            uint32_t x0 = (uint32_t)((uint64_t)x * s->w / nw);
            uint32_t x1 = (uint32_t)((uint64_t)(x + 1) * s->w / nw);
            uint64_t sum[4] = { 0, 0, 0, 0 }, n = 0;
            for (uint32_t sy = y0; sy < y1; sy++) {
                const unsigned char *row = s->px + ((size_t)sy * s->w + x0) * (size_t)ch;
                for (uint32_t sx = x0; sx < x1; sx++, row += ch) {
                    unsigned a = alpha ? row[ch - 1] : 255;
                    for (int c = 0; c < ch - (alpha ? 1 : 0); c++)
                        sum[c] += (uint64_t)row[c] * a;
                    if (alpha)
                        sum[ch - 1] += a;
                    n++;
                }
            }
            unsigned char *o = d->px + ((size_t)y * nw + x) * (size_t)ch;
            uint64_t weight = alpha ? sum[ch - 1] : n * 255;
            for (int c = 0; c < ch - (alpha ? 1 : 0); c++)
                o[c] = weight ? (unsigned char)((sum[c] + weight / 2) / weight) : 0;
            if (alpha)
                o[ch - 1] = (unsigned char)((sum[ch - 1] + n / 2) / n);
        }
    }
    return true;
}

/* ---- PNG ------------------------------------------------------------------------------- */

static const png_uint_32 PNG_FORMAT_OF_CH[] = { 0, PNG_FORMAT_GRAY, PNG_FORMAT_GA,
                                                PNG_FORMAT_RGB, PNG_FORMAT_RGBA };

static hew_code png_decode(const unsigned char *p, size_t len, const image_limits *lim,
                           pixels *out, hew_err *err)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, p, len))
        return hew_err_set(err, HEW_E_INVALID, "the PNG image is damaged: %s", img.message);
    if ((uint64_t)img.width * img.height > lim->max_pixels) {
        png_image_free(&img);
        return hew_err_set(err, HEW_E_TOOBIG, "the PNG image is %ux%u pixels, more than the "
                                              "%llu hew decodes; scale it down first",
                           img.width, img.height, (unsigned long long)lim->max_pixels);
    }
    bool color = img.format & PNG_FORMAT_FLAG_COLOR;
    bool alpha = img.format & PNG_FORMAT_FLAG_ALPHA;
    int ch = (color ? 3 : 1) + (alpha ? 1 : 0);
    img.format = PNG_FORMAT_OF_CH[ch];
    out->w = img.width;
    out->h = img.height;
    out->ch = ch;
    out->px = malloc(PNG_IMAGE_SIZE(img));
    if (!out->px) {
        png_image_free(&img);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory decoding a %ux%u PNG image",
                           img.width, img.height);
    }
    if (!png_image_finish_read(&img, NULL, out->px, 0, NULL)) {
        free(out->px);
        out->px = NULL;
        return hew_err_set(err, HEW_E_INVALID, "the PNG image is damaged: %s", img.message);
    }
    return HEW_OK;
}

/* Encoding goes through libpng's full API, not png_image: the simplified writer
 * compresses at zlib's level 6 with the "filtered" strategy, ~1.5 s for a 1568x1045
 * photo-like image here; level 3 with the default strategy takes a quarter of that for a
 * file as small (bench/image_prepare). libpng reports errors by longjmp: they come back
 * here through png_fail. */
typedef struct png_sink {
    unsigned char *data;
    size_t len, cap;
    char msg[200];
} png_sink;

static void png_sink_write(png_structp p, png_bytep d, size_t n)
{
    png_sink *k = png_get_io_ptr(p);
    if (n > k->cap - k->len) {
        size_t cap = k->cap ? k->cap : 64 << 10;
        while (cap - k->len < n)
            cap *= 2;
        unsigned char *grown = realloc(k->data, cap);
        if (!grown)
            png_error(p, "out of memory");
        k->data = grown;
        k->cap = cap;
    }
    memcpy(k->data + k->len, d, n);
    k->len += n;
}

static void png_sink_flush(png_structp p)
{
    (void)p;
}

static void png_fail(png_structp p, png_const_charp msg)
{
    png_sink *k = png_get_error_ptr(p);
    snprintf(k->msg, sizeof k->msg, "%s", msg);
    png_longjmp(p, 1);
}

static void png_quiet(png_structp p, png_const_charp msg)
{
    (void)p;
    (void)msg; /* warnings change nothing in what is written */
}

static hew_code png_encode(const pixels *s, unsigned char **data, size_t *len, hew_err *err)
{
    static const int COLOR_OF_CH[] = { 0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA };
    png_sink *k = calloc(1, sizeof *k);
    png_structp p = k ? png_create_write_struct(PNG_LIBPNG_VER_STRING, k, png_fail, png_quiet)
                      : NULL;
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!info) {
        png_destroy_write_struct(&p, NULL);
        free(k);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory encoding a PNG image");
    }
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        hew_code rc = hew_err_set(err, strcmp(k->msg, "out of memory") == 0 ? HEW_E_NOMEM
                                                                             : HEW_E_INTERNAL,
                                  "cannot encode the PNG image: %s", k->msg);
        free(k->data);
        free(k);
        return rc;
    }
    png_set_write_fn(p, k, png_sink_write, png_sink_flush);
    png_set_IHDR(p, info, s->w, s->h, 8, COLOR_OF_CH[s->ch], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(p, 3);
    png_set_compression_strategy(p, 0); /* Z_DEFAULT_STRATEGY */
    png_write_info(p, info);
    size_t stride = (size_t)s->w * (size_t)s->ch;
    for (uint32_t y = 0; y < s->h; y++)
        png_write_row(p, s->px + stride * y);
    png_write_end(p, info);
    png_destroy_write_struct(&p, &info);
    *data = k->data;
    *len = k->len;
    free(k);
    return HEW_OK;
}

/* ---- orientation ----------------------------------------------------------------------- */

/* The EXIF orientation (1..8; 1 when none) of a JPEG whose APP1 markers were saved. */
static int exif_orientation(const struct jpeg_decompress_struct *d)
{
    for (jpeg_saved_marker_ptr m = d->marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < 14 ||
            memcmp(m->data, "Exif\0\0", 6) != 0)
            continue;
        const unsigned char *t = m->data + 6;
        size_t n = m->data_length - 6;
        bool le = t[0] == 'I' && t[1] == 'I';
        if (!le && !(t[0] == 'M' && t[1] == 'M'))
            return 1;
#define RD16(p) (le ? (unsigned)(p)[0] | (unsigned)(p)[1] << 8 : (unsigned)(p)[0] << 8 | (p)[1])
        size_t ifd = le ? le16(t + 4) | (size_t)le16(t + 6) << 16 : be32(t + 4);
        if (ifd > n || n - ifd < 2)
            return 1;
        unsigned count = RD16(t + ifd);
        for (unsigned i = 0; i < count; i++) {
            size_t e = ifd + 2 + (size_t)i * 12;
            if (e > n || n - e < 12)
                break;
            if (RD16(t + e) == 0x0112) {
                unsigned v = RD16(t + e + 8);
                return v >= 1 && v <= 8 ? (int)v : 1;
            }
        }
#undef RD16
        return 1;
    }
    return 1;
}

/* Turn p upright as EXIF orientation o says (2..8: mirrored and/or rotated; 5..8 swap
 * the sides). false when out of memory (p unchanged). */
static bool orient(pixels *p, int o)
{
    if (o <= 1 || o > 8)
        return true;
    uint32_t w = p->w, h = p->h, nw = o >= 5 ? h : w, nh = o >= 5 ? w : h;
    size_t ch = (size_t)p->ch;
    unsigned char *out = malloc((size_t)nw * nh * ch);
    if (!out)
        return false;
    for (uint32_t y = 0; y < nh; y++)
        for (uint32_t x = 0; x < nw; x++) {
            uint32_t sx, sy;
            switch (o) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            default: sx = w - 1 - y; sy = x; break; /* 8 */
            }
            memcpy(out + ((size_t)y * nw + x) * ch, p->px + ((size_t)sy * w + sx) * ch, ch);
        }
    free(p->px);
    p->px = out;
    p->w = nw;
    p->h = nh;
    return true;
}

/* ---- JPEG ------------------------------------------------------------------------------ */

/* Decode, letting libjpeg scale by 1/2, 1/4 or 1/8 while it decodes when the result stays
 * at least `want` on its long side (a 48-megapixel photo never exists whole in memory).
 * CMYK JPEGs are not converted: *cmyk is set and nothing decoded. *orientation: the EXIF
 * orientation (1 when none), for the caller to apply. */
static hew_code jpeg_decode(const unsigned char *p, size_t len, const image_limits *lim,
                            uint32_t want, pixels *out, bool *cmyk, int *orientation,
                            hew_err *err)
{
    struct jpeg_decompress_struct d;
    jpeg_fail f;
    jpeg_fail_init(&f);
    d.err = &f.mgr;
    unsigned char *volatile px = NULL;
    *cmyk = false;
    if (setjmp(f.jump)) {
        jpeg_destroy_decompress(&d);
        free(px);
        return hew_err_set(err, HEW_E_INVALID, "the JPEG image is damaged: %s", f.msg);
    }
    jpeg_create_decompress(&d);
    struct jpeg_progress_mgr progress = { .progress_monitor = jpeg_scan_limit };
    d.progress = &progress;
    jpeg_mem_src(&d, p, (unsigned long)len);
    jpeg_save_markers(&d, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&d, TRUE);
    *orientation = exif_orientation(&d);
    if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) {
        *cmyk = true;
        jpeg_destroy_decompress(&d);
        return HEW_OK;
    }
    uint32_t longer = d.image_width > d.image_height ? d.image_width : d.image_height;
    unsigned denom = 1;
    while (denom < 8 && longer / (denom * 2) >= want)
        denom *= 2;
    d.scale_num = 1;
    d.scale_denom = denom;
    d.out_color_space = d.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_calc_output_dimensions(&d);
    if ((uint64_t)d.output_width * d.output_height > lim->max_pixels) {
        uint32_t w = d.image_width, h = d.image_height;
        jpeg_destroy_decompress(&d);
        return hew_err_set(err, HEW_E_TOOBIG, "the JPEG image is %ux%u pixels, more than "
                                              "hew decodes; scale it down first", w, h);
    }
    jpeg_start_decompress(&d);
    size_t stride = (size_t)d.output_width * (size_t)d.output_components;
    px = malloc(stride * d.output_height);
    if (!px) {
        jpeg_destroy_decompress(&d);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory decoding a JPEG image");
    }
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = px + stride * d.output_scanline;
        if (jpeg_read_scanlines(&d, &row, 1) != 1)
            break; /* a suspending source never happens with jpeg_mem_src */
    }
    bool cut = f.truncated || d.output_scanline < d.output_height;
    if (!cut)
        jpeg_finish_decompress(&d);
    cut = cut || f.truncated;
    out->w = d.output_width;
    out->h = d.output_height;
    out->ch = d.output_components;
    jpeg_destroy_decompress(&d);
    if (cut) {
        free(px);
        return hew_err_set(err, HEW_E_INVALID, "the JPEG image is cut short (the file ends "
                                               "before its last pixels)");
    }
    out->px = px;
    return HEW_OK;
}

static hew_code jpeg_encode(const pixels *s, unsigned char **data, size_t *len, hew_err *err)
{
    struct jpeg_compress_struct c;
    jpeg_fail f;
    jpeg_fail_init(&f);
    c.err = &f.mgr;
    unsigned char *mem = NULL;
    unsigned long size = 0;
    if (setjmp(f.jump)) {
        jpeg_destroy_compress(&c);
        free(mem);
        return hew_err_set(err, HEW_E_INTERNAL, "cannot encode the JPEG image: %s", f.msg);
    }
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &mem, &size);
    c.image_width = s->w;
    c.image_height = s->h;
    c.input_components = s->ch;
    c.in_color_space = s->ch == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, JPEG_QUALITY, TRUE);
    jpeg_start_compress(&c, TRUE);
    size_t stride = (size_t)s->w * (size_t)s->ch;
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = s->px + stride * c.next_scanline;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *data = mem;
    *len = size;
    return HEW_OK;
}

/* ---- preparing ------------------------------------------------------------------------- */

static void fit(uint32_t w, uint32_t h, uint32_t side, uint32_t *nw, uint32_t *nh)
{
    if (w <= side && h <= side) {
        *nw = w;
        *nh = h;
        return;
    }
    if (w >= h) {
        *nw = side;
        *nh = (uint32_t)(((uint64_t)h * side + w / 2) / w);
    } else {
        *nh = side;
        *nw = (uint32_t)(((uint64_t)w * side + h / 2) / h);
    }
    if (*nw == 0)
        *nw = 1;
    if (*nh == 0)
        *nh = 1;
}

/* Keep what passes unchanged: the source's bytes. */
static hew_code keep_source(const void *data, size_t len, image_format f, uint32_t w,
                            uint32_t h, image_out *out, hew_err *err)
{
    out->data = malloc(len);
    if (!out->data)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory copying an image");
    memcpy(out->data, data, len);
    out->len = len;
    out->format = f;
    out->width = out->src_width = w;
    out->height = out->src_height = h;
    out->resized = false;
    return HEW_OK;
}

hew_code image_prepare(const void *data, size_t len, const image_limits *lim, image_out *out,
                       hew_err *err)
{
    static const image_limits defaults = IMAGE_LIMITS_DEFAULT;
    if (!lim)
        lim = &defaults;
    *out = (image_out)IMAGE_OUT_INIT;
    if (len > lim->max_input)
        return hew_err_set(err, HEW_E_TOOBIG, "the image is %zu bytes, more than the %zu hew "
                                              "reads; make it smaller first", len, lim->max_input);
    image_format f;
    uint32_t w, h;
    hew_code rc = image_probe(data, len, &f, &w, &h, err);
    if (rc != HEW_OK)
        return rc;
    if (w > lim->max_side || h > lim->max_side)
        return hew_err_set(err, HEW_E_TOOBIG, "the %s image says it is %ux%u pixels, more "
                                              "than the %u a side hew takes; scale it down first",
                           image_format_name(f), w, h, lim->max_side);
    bool fits_size = base64_encoded_len(len) <= lim->max_base64;

    if (f == IMAGE_GIF || f == IMAGE_WEBP) {
        if ((uint64_t)w * h > lim->max_pixels || w > IMAGE_PASSTHROUGH_SIDE ||
            h > IMAGE_PASSTHROUGH_SIDE || !fits_size)
            return hew_err_set(err, HEW_E_TOOBIG,
                               "the %s image (%ux%u, %zu bytes) is larger than models take "
                               "(%u px a side, %zu bytes of base64) and hew cannot resize %s; "
                               "convert it to PNG or JPEG", image_format_name(f), w, h, len,
                               IMAGE_PASSTHROUGH_SIDE, lim->max_base64, image_format_name(f));
        return keep_source(data, len, f, w, h, out, err);
    }

    pixels src = { NULL, 0, 0, 0 };
    bool cmyk = false;
    int orientation = 1;
    if (f == IMAGE_PNG)
        rc = png_decode(data, len, lim, &src, err);
    else
        rc = jpeg_decode(data, len, lim, lim->long_side, &src, &cmyk, &orientation, err);
    if (rc != HEW_OK)
        return rc;
    if (cmyk) {
        if (w <= lim->long_side && h <= lim->long_side && fits_size)
            return keep_source(data, len, f, w, h, out, err);
        return hew_err_set(err, HEW_E_UNSUPPORTED, "the JPEG image is CMYK and %ux%u pixels: "
                                                   "hew resizes only RGB and gray JPEGs; "
                                                   "convert it to RGB or make it at most %u "
                                                   "px a side", w, h, lim->long_side);
    }
    if (w <= lim->long_side && h <= lim->long_side && fits_size) {
        free(src.px); /* sent as it is: its EXIF orientation travels with it */
        return keep_source(data, len, f, w, h, out, err);
    }
    /* encoded again without its EXIF: turned upright first */
    if (!orient(&src, orientation)) {
        free(src.px);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory turning the image upright");
    }
    if (orientation >= 5) {
        uint32_t t = w;
        w = h;
        h = t;
    }

    uint32_t side = lim->long_side;
    for (;;) {
        uint32_t nw, nh;
        fit(src.w, src.h, side, &nw, &nh);
        pixels small = { NULL, 0, 0, 0 };
        const pixels *use = &src;
        if (nw != src.w || nh != src.h) {
            if (!downscale(&src, nw, nh, &small)) {
                free(src.px);
                return hew_err_set(err, HEW_E_NOMEM, "out of memory resizing the image");
            }
            use = &small;
        }
        unsigned char *enc = NULL;
        size_t enc_len = 0;
        rc = f == IMAGE_PNG ? png_encode(use, &enc, &enc_len, err)
                            : jpeg_encode(use, &enc, &enc_len, err);
        uint32_t uw = use->w, uh = use->h;
        free(small.px);
        if (rc != HEW_OK) {
            free(src.px);
            return rc;
        }
        if (base64_encoded_len(enc_len) <= lim->max_base64) {
            free(src.px);
            out->format = f;
            out->data = enc;
            out->len = enc_len;
            out->width = uw;
            out->height = uh;
            out->src_width = w;
            out->src_height = h;
            out->resized = true;
            return HEW_OK;
        }
        free(enc);
        uint32_t longer = uw > uh ? uw : uh;
        if (longer <= MIN_SIDE) {
            free(src.px);
            return hew_err_set(err, HEW_E_TOOBIG, "the %s image stays larger than %zu bytes "
                                                  "of base64 even at %ux%u; convert it to JPEG",
                               image_format_name(f), lim->max_base64, uw, uh);
        }
        side = longer * 3 / 4 < MIN_SIDE ? MIN_SIDE : longer * 3 / 4;
    }
}

void image_out_release(image_out *o)
{
    if (!o)
        return;
    free(o->data);
    *o = (image_out)IMAGE_OUT_INIT;
}
