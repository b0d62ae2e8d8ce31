/* err — error values. A function that can fail returns a hew_code (HEW_OK is 0) and, when
 * given a hew_err, fills it with a message a user can act on ("cannot read config
 * ~/.config/hew/x.json: permission denied — check the file's mode"). Nothing below cli/
 * exits or prints: errors travel up as values.
 *
 * Usage:   hew_err err = HEW_ERR_INIT;
 *          if (fs_read_file(path, cap, &out, &err) != HEW_OK) show(err.msg);
 *          return hew_err_set(err, HEW_E_IO, "cannot open %s: %s", path, strerror(errno));
 *
 * A NULL hew_err * is allowed everywhere: the code is still returned. */
#ifndef HEW_BASE_ERR_H
#define HEW_BASE_ERR_H

#include <stddef.h>

/* The codes themselves are public: include/hew_code.h (one enum for the API and inside). */
#include "hew_code.h"

#define HEW_ERR_MSG_MAX 512

typedef struct hew_err {
    hew_code code;
    char msg[HEW_ERR_MSG_MAX];
} hew_err;

#define HEW_ERR_INIT { HEW_OK, { 0 } }

/* Fill err (if not NULL) with code and a printf-formatted message; returns code, so that
 * `return hew_err_set(err, ...)` reads naturally. A message longer than the buffer is cut
 * at a UTF-8 character boundary. */
hew_code hew_err_set(hew_err *err, hew_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix an existing message with context: "loading scenario: <old message>". */
hew_code hew_err_wrap(hew_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clear err back to HEW_OK and an empty message. */
void hew_err_clear(hew_err *err);


#endif
