/* validate_image — the checks the real APIs make of an image they are sent, shared by the
 * protocols' validators: the media type is one of the four every provider takes, the data
 * is strict base64 within the size cap, and its bytes are an image of that type that
 * decodes (hew's own decoder, base/image.h, stands in for the provider's). Each protocol
 * turns the verdict into its own 400 message. */
#ifndef HEW_FAKE_VALIDATE_IMAGE_H
#define HEW_FAKE_VALIDATE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum validate_image_verdict {
    VIMG_OK,
    VIMG_MEDIA_TYPE, /* not image/jpeg, image/png, image/gif or image/webp */
    VIMG_BASE64,     /* not strict base64 */
    VIMG_TOO_BIG,    /* more base64 than the cap */
    VIMG_NOT_IMAGE,  /* the bytes are no image, or one that does not decode */
    VIMG_MISMATCH,   /* an image of another type than the media type says */
} validate_image_verdict;

/* Check one image. max_base64: the cap on the base64 length (0: none). *actual receives
 * the media type the bytes really have (VIMG_MISMATCH), else NULL. */
validate_image_verdict validate_image(const char *media_type, const char *b64, size_t b64_len,
                                      size_t max_base64, const char **actual);

/* Split a data URL "data:<type>;base64,<data>": true with the parts (type not
 * NUL-terminated: type_len), false when url is not one. */
bool validate_image_data_url(const char *url, const char **type, size_t *type_len,
                             const char **data);

/* OpenAI's check of an image URL (Chat's image_url.url, Responses' input_image
 * image_url), with its messages; param names the field ("messages.[1].content.[0]
 * .image_url.url"). An http(s) URL is let through unread. true: a violation in *v. No
 * cap on the size: OpenAI's per-image limit and its message were not found. */
struct validate_violation;
bool validate_image_openai(const char *url, const char *param, struct validate_violation *v);

#endif
