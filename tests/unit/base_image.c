/* base_image — images made fit for a model (base/image.c) and base64 (base/base64.c): a
 * generated PNG and JPEG larger than the providers take come back downscaled to a 1568 px
 * long side in their own format and decode again; small ones come back byte for byte;
 * transparency survives; a JPEG stored sideways (EXIF orientation) comes back upright; the size cap shrinks an image further until its base64 fits;
 * GIF and WebP pass through by their header's size; and crafted files — a header claiming
 * 100000x100000 pixels, one under the side cap but over the pixel cap, a truncated PNG
 * and JPEG, text, a BMP, a header that lies about its size — are refused with a clear
 * message, never a crash. api_image_block wraps it into the conversation's image block. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

#include "api/image.h"
#include "base/base64.h"
#include "base/image.h"
#include "check.h"

/* ---- generated images --------------------------------------------------------------- */

static unsigned char *pixels_of(uint32_t w, uint32_t h, int ch, bool noise)
{
    unsigned char *px = malloc((size_t)w * h * (size_t)ch);
    uint32_t seed = 12345;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                seed = seed * 1103515245u + 12345u;
                unsigned char v = noise ? (unsigned char)(seed >> 16)
                                        : (unsigned char)(c == 0 ? x * 255 / (w ? w : 1)
                                                                 : c == 1 ? y * 255 / (h ? h : 1)
                                                                          : 128);
                if (ch == 4 && c == 3)
                    v = x < w / 2 ? 0 : 255; /* left half transparent */
                px[((size_t)y * w + x) * (size_t)ch + (size_t)c] = v;
            }
    return px;
}

static unsigned char *make_png(uint32_t w, uint32_t h, int ch, bool noise, size_t *len)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = ch == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    unsigned char *px = pixels_of(w, h, ch, noise);
    png_alloc_size_t size = 0;
    png_image_write_to_memory(&img, NULL, &size, 0, px, 0, NULL);
    unsigned char *mem = malloc(size);
    png_image_write_to_memory(&img, mem, &size, 0, px, 0, NULL);
    free(px);
    *len = size;
    return mem;
}

static unsigned char *make_jpeg_oriented(uint32_t w, uint32_t h, int orientation, size_t *len);

static unsigned char *make_jpeg(uint32_t w, uint32_t h, size_t *len)
{
    return make_jpeg_oriented(w, h, 0, len);
}

/* orientation 1..8: an EXIF APP1 marker (little-endian TIFF, one IFD entry) says it. */
static unsigned char *make_jpeg_oriented(uint32_t w, uint32_t h, int orientation, size_t *len)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    unsigned char *mem = NULL;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &mem, &size);
    c.image_width = w;
    c.image_height = h;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_start_compress(&c, TRUE);
    if (orientation) {
        const unsigned char exif[] = { 'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0,
                                       1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
                                       (unsigned char)orientation, 0, 0, 0, 0, 0, 0, 0 };
        jpeg_write_marker(&c, JPEG_APP0 + 1, exif, sizeof exif);
    }
    unsigned char *px = pixels_of(w, h, 3, false);
    while (c.next_scanline < h) {
        JSAMPROW row = px + (size_t)c.next_scanline * w * 3;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(px);
    *len = size;
    return mem;
}

/* The PNG's format flags as libpng reads them back. */
static png_uint_32 png_format_of(const unsigned char *data, size_t len, uint32_t *w, uint32_t *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, data, len))
        return 0xffffffffu;
    *w = img.width;
    *h = img.height;
    png_uint_32 f = img.format;
    png_image_free(&img);
    return f;
}

/* ---- tests -------------------------------------------------------------------------- */

static void test_base64(void)
{
    static const struct {
        const char *plain, *coded;
    } cases[] = { { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
                  { "foobar", "Zm9vYmFy" }, { "\xff\xfe\x00", "//4A" } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = i == 5 ? 3 : strlen(cases[i].plain);
        char *e = base64_encode(cases[i].plain, n);
        CHECK_STR(e, cases[i].coded);
        CHECK_INT(base64_encoded_len(n), strlen(cases[i].coded));
        size_t dn = 0;
        bool bad = true;
        unsigned char *d = base64_decode(e, strlen(e), &dn, &bad);
        REQUIRE(d);
        CHECK(!bad);
        CHECK_MEM(d, dn, cases[i].plain, n);
        free(d);
        free(e);
    }
    static const char *const invalid[] = { "Zg=", "Zg=a", "Z===", "Zm9v Zm9v", "Zm-v", "=Zm9" };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        size_t dn = 0;
        bool bad = false;
        CHECK(base64_decode(invalid[i], strlen(invalid[i]), &dn, &bad) == NULL);
        CHECK(bad);
    }
}

static void test_png_downscaled(void)
{
    size_t len;
    unsigned char *src = make_png(3000, 1000, 3, false, &len);
    image_out o = IMAGE_OUT_INIT;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(image_prepare(src, len, NULL, &o, &err) == HEW_OK);
    CHECK_INT(o.format, IMAGE_PNG);
    CHECK(o.resized);
    CHECK_INT(o.width, 1568);
    CHECK_INT(o.height, 523);
    CHECK_INT(o.src_width, 3000);
    CHECK_INT(o.src_height, 1000);
    uint32_t w = 0, h = 0;
    png_uint_32 f = png_format_of(o.data, o.len, &w, &h);
    CHECK(f != 0xffffffffu);
    CHECK_INT(w, 1568);
    CHECK_INT(h, 523);
    CHECK(f & PNG_FORMAT_FLAG_COLOR);
    CHECK(!(f & PNG_FORMAT_FLAG_ALPHA));
    image_out_release(&o);
    free(src);
}

static void test_png_alpha_kept(void)
{
    size_t len;
    unsigned char *src = make_png(2000, 2000, 4, false, &len);
    image_out o = IMAGE_OUT_INIT;
    REQUIRE(image_prepare(src, len, NULL, &o, NULL) == HEW_OK);
    uint32_t w = 0, h = 0;
    png_uint_32 f = png_format_of(o.data, o.len, &w, &h);
    CHECK(f & PNG_FORMAT_FLAG_ALPHA);
    CHECK_INT(w, 1568);
    CHECK_INT(h, 1568);
    image_out_release(&o);
    free(src);
}

static void test_small_unchanged(void)
{
    size_t len;
    unsigned char *png = make_png(40, 30, 3, false, &len);
    image_out o = IMAGE_OUT_INIT;
    REQUIRE(image_prepare(png, len, NULL, &o, NULL) == HEW_OK);
    CHECK(!o.resized);
    CHECK_MEM(o.data, o.len, png, len);
    image_out_release(&o);
    free(png);
    unsigned char *jpg = make_jpeg(100, 80, &len);
    REQUIRE(image_prepare(jpg, len, NULL, &o, NULL) == HEW_OK);
    CHECK_INT(o.format, IMAGE_JPEG);
    CHECK(!o.resized);
    CHECK_MEM(o.data, o.len, jpg, len);
    image_out_release(&o);
    free(jpg);
}

static void test_jpeg_downscaled(void)
{
    size_t len;
    unsigned char *src = make_jpeg(4000, 3000, &len);
    image_out o = IMAGE_OUT_INIT;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(image_prepare(src, len, NULL, &o, &err) == HEW_OK);
    CHECK_INT(o.format, IMAGE_JPEG);
    CHECK(o.resized);
    CHECK_INT(o.width, 1568);
    CHECK_INT(o.height, 1176);
    image_format f;
    uint32_t w, h;
    CHECK(image_probe(o.data, o.len, &f, &w, &h, NULL) == HEW_OK);
    CHECK_INT(w, 1568);
    CHECK_INT(h, 1176);
    /* and it decodes whole again */
    image_out again = IMAGE_OUT_INIT;
    CHECK(image_prepare(o.data, o.len, NULL, &again, NULL) == HEW_OK);
    CHECK(!again.resized);
    image_out_release(&again);
    image_out_release(&o);
    free(src);
}

/* The first pixel of rows 0 and the last of a JPEG (RGB), decoded. */
static void jpeg_corners(const unsigned char *data, size_t len, unsigned char tl[3],
                         unsigned char bl[3])
{
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr e;
    d.err = jpeg_std_error(&e);
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, data, (unsigned long)len);
    jpeg_read_header(&d, TRUE);
    d.out_color_space = JCS_RGB;
    jpeg_start_decompress(&d);
    unsigned char *row = malloc((size_t)d.output_width * 3);
    while (d.output_scanline < d.output_height) {
        jpeg_read_scanlines(&d, &row, 1);
        if (d.output_scanline == 1)
            memcpy(tl, row, 3);
    }
    memcpy(bl, row, 3);
    free(row);
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
}

/* A phone photo stored sideways (EXIF orientation 6: turn 90 degrees clockwise) comes
 * back upright when it is encoded again (the EXIF does not travel with it). Source: red
 * grows to the right, green downwards; upright, the top-left pixel is the source's
 * bottom-left (green), the bottom-left the source's bottom-right (red and green). */
static void test_jpeg_orientation(void)
{
    size_t len;
    unsigned char *src = make_jpeg_oriented(2000, 1000, 6, &len);
    image_out o = IMAGE_OUT_INIT;
    REQUIRE(image_prepare(src, len, NULL, &o, NULL) == HEW_OK);
    CHECK(o.resized);
    CHECK_INT(o.width, 784);
    CHECK_INT(o.height, 1568);
    CHECK_INT(o.src_width, 1000);
    CHECK_INT(o.src_height, 2000);
    unsigned char tl[3], bl[3];
    jpeg_corners(o.data, o.len, tl, bl);
    CHECK(tl[0] < 60 && tl[1] > 190);
    CHECK(bl[0] > 190 && bl[1] > 190);
    image_out_release(&o);
    free(src);
    /* small enough to go as it is: unchanged, its EXIF with it */
    src = make_jpeg_oriented(300, 200, 6, &len);
    REQUIRE(image_prepare(src, len, NULL, &o, NULL) == HEW_OK);
    CHECK(!o.resized);
    CHECK_MEM(o.data, o.len, src, len);
    image_out_release(&o);
    free(src);
}

static void test_size_cap_shrinks(void)
{
    size_t len;
    unsigned char *src = make_png(600, 600, 3, true, &len); /* noise: ~1 MB */
    image_limits lim = IMAGE_LIMITS_DEFAULT;
    lim.max_base64 = 200 * 1024;
    image_out o = IMAGE_OUT_INIT;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(image_prepare(src, len, &lim, &o, &err) == HEW_OK);
    CHECK(o.resized);
    CHECK(base64_encoded_len(o.len) <= lim.max_base64);
    CHECK(o.width < 600 && o.width == o.height);
    image_out_release(&o);
    lim.max_base64 = 100; /* nothing fits */
    CHECK_INT(image_prepare(src, len, &lim, &o, &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "convert it to JPEG") != NULL);
    free(src);
}

/* PNG's CRC-32 (ISO 3309), bit by bit. */
static uint32_t png_crc(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

/* A PNG whose IHDR says w x h (with a correct CRC), over the pixels of a 1x1 image. */
static unsigned char *lying_png(uint32_t w, uint32_t h, size_t *len)
{
    unsigned char *p = make_png(1, 1, 3, false, len);
    unsigned char *ihdr = p + 8;
    unsigned char dims[8] = { (unsigned char)(w >> 24), (unsigned char)(w >> 16),
                              (unsigned char)(w >> 8), (unsigned char)w,
                              (unsigned char)(h >> 24), (unsigned char)(h >> 16),
                              (unsigned char)(h >> 8), (unsigned char)h };
    memcpy(ihdr + 8, dims, 8);
    uint32_t crc = png_crc(ihdr + 4, 17);
    ihdr[21] = (unsigned char)(crc >> 24);
    ihdr[22] = (unsigned char)(crc >> 16);
    ihdr[23] = (unsigned char)(crc >> 8);
    ihdr[24] = (unsigned char)crc;
    return p;
}

static void test_crafted(void)
{
    hew_err err = HEW_ERR_INIT;
    image_out o = IMAGE_OUT_INIT;
    size_t len;

    unsigned char *bomb = lying_png(100000, 100000, &len);
    CHECK_INT(image_prepare(bomb, len, NULL, &o, &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "100000x100000") != NULL);
    free(bomb);

    bomb = lying_png(9000, 9000, &len); /* each side allowed, 81 megapixels not */
    CHECK_INT(image_prepare(bomb, len, NULL, &o, &err), HEW_E_TOOBIG);
    CHECK(strstr(err.msg, "more than the 50000000") != NULL);
    free(bomb);

    unsigned char *liar = lying_png(300, 200, &len); /* pixel data of 1x1 */
    CHECK_INT(image_prepare(liar, len, NULL, &o, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "PNG image is damaged") != NULL);
    free(liar);

    unsigned char *png = make_png(300, 300, 3, true, &len);
    CHECK_INT(image_prepare(png, len / 2, NULL, &o, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "damaged") != NULL);
    CHECK_INT(image_prepare(png, 20, NULL, &o, &err), HEW_E_INVALID); /* inside IHDR */
    free(png);

    unsigned char *jpg = make_jpeg(300, 300, &len);
    CHECK_INT(image_prepare(jpg, len / 2, NULL, &o, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "cut short") != NULL);
    CHECK_INT(image_prepare(jpg, 4, NULL, &o, &err), HEW_E_INVALID);
    free(jpg);

    const char text[] = "int main(void) { return 0; }\n";
    CHECK_INT(image_prepare(text, sizeof text - 1, NULL, &o, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "not an image") != NULL);
    const char bmp[] = "BM\x36\0\0\0\0\0\0\0\x36\0\0\0";
    CHECK_INT(image_prepare(bmp, sizeof bmp - 1, NULL, &o, &err), HEW_E_INVALID);
    CHECK(strstr(err.msg, "BMP") != NULL);
    CHECK_INT(image_prepare("", 0, NULL, &o, &err), HEW_E_INVALID);
    CHECK(o.data == NULL);
}

static void test_passthrough(void)
{
    /* GIF: 10x7 logical screen, then nothing hew reads */
    const unsigned char gif[] = { 'G', 'I', 'F', '8', '9', 'a', 10, 0, 7, 0, 0, 0, 0, ';' };
    image_out o = IMAGE_OUT_INIT;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(image_prepare(gif, sizeof gif, NULL, &o, &err) == HEW_OK);
    CHECK_INT(o.format, IMAGE_GIF);
    CHECK_INT(o.width, 10);
    CHECK_INT(o.height, 7);
    CHECK_MEM(o.data, o.len, gif, sizeof gif);
    image_out_release(&o);
    const unsigned char wide[] = { 'G', 'I', 'F', '8', '9', 'a', 0x28, 0x23, 7, 0, 0, 0, 0, ';' };
    CHECK_INT(image_prepare(wide, sizeof wide, NULL, &o, &err), HEW_E_TOOBIG); /* 9000 px */
    CHECK(strstr(err.msg, "convert it to PNG") != NULL);
    /* WebP, extended header: canvas 640x480 */
    unsigned char webp[30] = { 'R', 'I', 'F', 'F', 22, 0, 0, 0, 'W', 'E', 'B', 'P',
                               'V', 'P', '8', 'X', 10, 0, 0, 0, 0, 0, 0, 0 };
    webp[24] = (640 - 1) & 0xff;
    webp[25] = (640 - 1) >> 8;
    webp[27] = (480 - 1) & 0xff;
    webp[28] = (480 - 1) >> 8;
    REQUIRE(image_prepare(webp, sizeof webp, NULL, &o, &err) == HEW_OK);
    CHECK_INT(o.format, IMAGE_WEBP);
    CHECK_INT(o.width, 640);
    CHECK_INT(o.height, 480);
    CHECK_STR(image_media_type(o.format), "image/webp");
    image_out_release(&o);
}

static void test_api_block(void)
{
    size_t len;
    unsigned char *src = make_png(2000, 100, 3, false, &len);
    json_t *block = NULL;
    api_image_info info;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(api_image_block(src, len, "wide.png", &block, &info, &err) == HEW_OK);
    CHECK_STR(json_string_value(json_object_get(block, "type")), "image");
    json_t *source = json_object_get(block, "source");
    CHECK_STR(json_string_value(json_object_get(source, "type")), "base64");
    CHECK_STR(json_string_value(json_object_get(source, "media_type")), "image/png");
    const char *data = json_string_value(json_object_get(source, "data"));
    REQUIRE(data);
    size_t n = 0;
    bool bad = false;
    unsigned char *bytes = base64_decode(data, strlen(data), &n, &bad);
    REQUIRE(bytes);
    CHECK_INT(n, info.bytes);
    CHECK_INT(image_sniff(bytes, n), IMAGE_PNG);
    free(bytes);
    char desc[200];
    api_image_describe("wide.png", &info, desc, sizeof desc);
    CHECK_STR(desc, "wide.png, 1568x78 png, scaled from 2000x100");
    json_decref(block);
    CHECK_INT(api_image_block("hello", 5, "notes.png", &block, NULL, &err), HEW_E_INVALID);
    CHECK(block == NULL);
    CHECK(strncmp(err.msg, "notes.png: not an image", 23) == 0);
    free(src);
}

int main(void)
{
    RUN(test_base64);
    RUN(test_png_downscaled);
    RUN(test_png_alpha_kept);
    RUN(test_small_unchanged);
    RUN(test_jpeg_downscaled);
    RUN(test_jpeg_orientation);
    RUN(test_size_cap_shrinks);
    RUN(test_crafted);
    RUN(test_passthrough);
    RUN(test_api_block);
    return check_report();
}
