/* recording — reads a folder `hew --record DIR` wrote (net/record.h; docs/replay.md):
 * the manifest (session.json) and exchanges 1..N with their bodies, checked whole before
 * anything is served. A damaged folder is refused with the file and what is wrong with it
 * (a missing or cut body, a gap in the numbers, a description that is not the format, a
 * timing that is not [offset_ms, bytes] pairs),
 * never read halfway. Reads only; never writes. */
#ifndef HEW_NET_RECORDING_H
#define HEW_NET_RECORDING_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define RECORDING_MAX_EXCHANGES 100000

typedef struct rec_exchange {
    size_t n;                 /* 1-based */
    const char *method;       /* borrowed from desc */
    const char *url;          /* as recorded (redacted) */
    char *request;            /* the body as sent */
    size_t request_len;
    long status;              /* 0: no answer came (the connection failed) */
    json_t *headers;          /* [["name", "value"], ...] of the response, borrowed from desc */
    char *response;           /* the body as received */
    size_t response_len;
    bool ok;                  /* outcome "ok" or "stopped": not cut off by an error */
    json_t *clock;            /* the clock values read before it (array), borrowed */
    long long headers_ms;     /* timing: the head's arrival (0 when none was recorded) */
    long long (*chunks)[2];   /* timing: [offset_ms, bytes] of each piece of the body */
    size_t nchunks;
    json_t *desc;             /* the whole NNNN.json */
} rec_exchange;

typedef struct recording {
    json_t *manifest;         /* session.json */
    rec_exchange *x;
    size_t n;
} recording;

/* Load dir into *out (zeroed first). HEW_E_NOTFOUND when dir or its session.json is not
 * there, HEW_E_CORRUPT when a file is damaged or missing, HEW_E_INVALID for another
 * format version; each with the file and what to do in err. */
hew_code recording_load(const char *dir, recording *out, hew_err *err);
void recording_release(recording *r);

#endif
