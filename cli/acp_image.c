/* acp_image — the image blocks of an ACP prompt ({type "image", mimeType, data: base64})
 * as the files hew_task_start_images takes: each decoded into a private folder (mode
 * 0700, in $TMPDIR) that is removed with the files once the task has loaded them. Only
 * the types hew attaches (PNG, JPEG, GIF, WebP); the library checks the bytes, scales
 * them down, and refuses them for a model that does not read images. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acp.h"

static const struct {
    const char *mime;
    const char *ext;
} image_types[] = {
    { "image/png", "png" },
    { "image/jpeg", "jpg" },
    { "image/gif", "gif" },
    { "image/webp", "webp" },
};

/* The value of a base64 digit (standard alphabet), or -1. */
static int b64_digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Decode base64 s[0..n) (white space skipped, '=' padding optional) into a new buffer;
 * NULL when it is not base64 (or out of memory). */
static unsigned char *b64_decode(const char *s, size_t n, size_t *out_len)
{
    unsigned char *out = malloc(n / 4 * 3 + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        int d = b64_digit(c);
        if (d < 0 || pad) { /* a stray byte, or data after the padding */
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    *out_len = o;
    return out;
}

int acp_images_add(acp_images *im, const json_t *block, size_t index, char *err, size_t errlen)
{
    const char *mime = json_string_value(json_object_get(block, "mimeType"));
    json_t *data = json_object_get(block, "data");
    const char *ext = NULL;
    for (size_t i = 0; mime && i < sizeof image_types / sizeof image_types[0]; i++)
        if (strcmp(image_types[i].mime, mime) == 0)
            ext = image_types[i].ext;
    if (!ext) {
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
    size_t len = 0;
    unsigned char *bytes = b64_decode(json_string_value(data), json_string_length(data), &len);
    if (!bytes || !len) {
        free(bytes);
        snprintf(err, errlen, "params.prompt[%zu].data is not base64", index);
        return -1;
    }
    if (!im->dir) {
        const char *tmp = getenv("TMPDIR");
        char templ[4096];
        snprintf(templ, sizeof templ, "%s/hew-acp-images.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(templ) || !(im->dir = strdup(templ))) {
            free(bytes);
            snprintf(err, errlen, "cannot make a folder for the prompt's images in %s: %s",
                     tmp && *tmp ? tmp : "/tmp", strerror(errno));
            return -1;
        }
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/image-%zu.%s", im->dir, im->n + 1, ext);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t w = write(fd, bytes + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    free(bytes);
    if (fd < 0 || done < len || close(fd) != 0 || !(im->paths[im->n] = strdup(path))) {
        if (fd >= 0 && done < len)
            close(fd);
        (void)unlink(path);
        snprintf(err, errlen, "cannot write the prompt's image %s: %s", path, strerror(errno));
        return -1;
    }
    im->n++;
    return 0;
}

void acp_images_release(acp_images *im)
{
    for (size_t i = 0; i < im->n; i++) {
        (void)unlink(im->paths[i]);
        free(im->paths[i]);
    }
    if (im->dir)
        (void)rmdir(im->dir);
    free(im->dir);
    memset(im, 0, sizeof *im);
}
