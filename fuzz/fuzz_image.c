/* fuzz_image — libFuzzer target for base/image (and the base64 it feeds). Any input is
 * prepared as an image under small limits (256 px long side, 4 megapixels, 64 KiB of
 * base64, so a run stays fast); whatever it is — truncated, lying about its size, a
 * decompression bomb, not an image — the answer is an image or an error with a message,
 * never a crash, a leak or a read outside the input. On success: the bytes are of the
 * format said, within the caps, their header gives the size said, and they survive a
 * base64 round trip. Any broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    image_limits lim = { (size_t)1 << 20, 8192, 4000000u, 256, (size_t)64 << 10 };
    image_out o = IMAGE_OUT_INIT;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = image_prepare(data, size, &lim, &o, &err);
    if (rc != HEW_OK) {
        if (!err.msg[0] || o.data)
            abort(); /* an error says why and leaves nothing behind */
        return 0;
    }
    if (!o.data || !o.len || image_sniff(o.data, o.len) != o.format)
        abort();
    if (base64_encoded_len(o.len) > lim.max_base64)
        abort();
    if (o.resized && (o.width > lim.long_side || o.height > lim.long_side))
        abort();
    image_format f;
    uint32_t w, h;
    if (image_probe(o.data, o.len, &f, &w, &h, NULL) != HEW_OK || f != o.format ||
        w != o.width || h != o.height)
        abort();
    char *b64 = base64_encode(o.data, o.len);
    size_t n = 0;
    bool bad = false;
    unsigned char *back = b64 ? base64_decode(b64, strlen(b64), &n, &bad) : NULL;
    if (!back || n != o.len || memcmp(back, o.data, n) != 0)
        abort();
    free(back);
    free(b64);
    image_out_release(&o);
    return 0;
}
