/* imgpaste — image files named in a line the user typed, pasted or dropped into the
 * prompt. Terminals paste a dropped file as its path: bare, 'quoted', "quoted", with
 * backslash escapes ("Screen\ Shot.png") or as a file:// URL (percent-encoded). A word of
 * the line whose decoded path ends in .png, .jpg, .jpeg, .gif or .webp and names an image
 * hew can attach (hew_image_probe) is taken out of the text, replaced by "[image: NAME]",
 * and attached; any other word stays as typed. Relative paths are taken from the current
 * directory. */
#ifndef HEW_CLI_IMGPASTE_H
#define HEW_CLI_IMGPASTE_H

#include "hew.h"

typedef struct imgpaste {
    char *text;                             /* the line, image words replaced */
    char *paths[HEW_TASK_IMAGES_MAX];       /* the files, decoded */
    hew_image images[HEW_TASK_IMAGES_MAX];  /* the same, as the library takes them */
    char *labels[HEW_TASK_IMAGES_MAX];      /* "[image: NAME WxH]" to show */
    int n;
    int dropped;                            /* images past HEW_TASK_IMAGES_MAX, left as text */
} imgpaste;

/* Scan line into *p (release it with imgpaste_release). 0, or -1 when out of memory. */
int imgpaste_scan(const char *line, imgpaste *p);
void imgpaste_release(imgpaste *p);

#endif
