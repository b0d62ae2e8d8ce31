/* bench/image_prepare — what making an image fit for a model costs (base/image.c): the
 * median wall time of image_prepare on a 12-megapixel photo-like JPEG (4000x3000, scaled
 * to 1568x1176 while libjpeg decodes at 1/2), a 6-megapixel PNG (3000x2000 RGB, decoded
 * whole and box-filtered to 1568x1045), and a 1000x800 PNG that goes as it is (decoded
 * only to check it), with the process's peak RSS at the end. Goal: under 300 ms for the
 * photo and under 1 s for the PNG on one core, peak RSS under 100 MB. Prints the figures;
 * exits non-zero only when a preparation fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jpeglib.h>
#include <png.h>

#include "benchclock.h"
#include "base/image.h"

#define RUNS 5

/* A photo-like RGB picture: gradients with a little noise (compresses as photos do). */
static unsigned char *picture(uint32_t w, uint32_t h)
{
    unsigned char *px = malloc((size_t)w * h * 3);
    uint32_t seed = 1;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t x = (uint32_t)(i % w), y = (uint32_t)(i / w), n = (seed >> 16) & 15;
        px[i * 3] = (unsigned char)(x * 255 / w + n);
        px[i * 3 + 1] = (unsigned char)(y * 255 / h + n);
        px[i * 3 + 2] = (unsigned char)((x + y) * 127 / (w + h) + n);
    }
    return px;
}

static unsigned char *jpeg_of(uint32_t w, uint32_t h, size_t *len)
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
    jpeg_set_quality(&c, 90, TRUE);
    jpeg_start_compress(&c, TRUE);
    unsigned char *px = picture(w, h);
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

static unsigned char *png_of(uint32_t w, uint32_t h, size_t *len)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = picture(w, h);
    png_alloc_size_t size = 0;
    png_image_write_to_memory(&img, NULL, &size, 0, px, 0, NULL);
    unsigned char *mem = malloc(size);
    png_image_write_to_memory(&img, mem, &size, 0, px, 0, NULL);
    free(px);
    *len = size;
    return mem;
}

static int measure(const char *what, const unsigned char *data, size_t len)
{
    double t[RUNS];
    image_out o = IMAGE_OUT_INIT;
    for (int r = 0; r < RUNS; r++) {
        hew_err err = HEW_ERR_INIT;
        double t0 = bench_now_ms();
        if (image_prepare(data, len, NULL, &o, &err) != HEW_OK) {
            fprintf(stderr, "image_prepare: %s: %s\n", what, err.msg);
            return 1;
        }
        t[r] = bench_now_ms() - t0;
        if (r < RUNS - 1)
            image_out_release(&o);
    }
    bench_sort(t, RUNS);
    printf("%-34s %8.1f ms  %7zu -> %7zu bytes, %ux%u -> %ux%u%s\n", what, t[RUNS / 2], len,
           o.len, o.src_width, o.src_height, o.width, o.height, o.resized ? "" : " (as is)");
    image_out_release(&o);
    return 0;
}

int main(void)
{
    size_t jl, pl, sl;
    unsigned char *jpg = jpeg_of(4000, 3000, &jl);
    unsigned char *png = png_of(3000, 2000, &pl);
    unsigned char *small = png_of(1000, 800, &sl);
    int rc = measure("JPEG 4000x3000 (12 MP photo)", jpg, jl) ||
             measure("PNG 3000x2000 (6 MP)", png, pl) ||
             measure("PNG 1000x800 (sent as it is)", small, sl);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB (goals: the photo < 300 ms, the PNG < 1 s, peak RSS < 100 MB)\n",
           (double)ru.ru_maxrss / 1024.0);
    free(jpg);
    free(png);
    free(small);
    return rc;
}
