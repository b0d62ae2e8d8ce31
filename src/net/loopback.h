/* loopback — a small HTTP/1.1 server on 127.0.0.1 for hew replay: it hands each request
 * to a handler and writes the handler's answer back, one request per connection
 * ("Connection: close"). It exists to serve recorded bytes to hew's own HTTP client, and
 * nothing else: it binds 127.0.0.1 only (an ephemeral port), reads only requests with a
 * Content-Length (what libcurl sends for a body it is given whole), caps what it reads
 * (64 KiB of head, 1 GiB of body), and never runs anything a request says.
 *
 * Why hand-written and not libmicrohttpd (which the fake provider uses): linking it into
 * hew would make it a run-time dependency of every hew (issue #22 wants it optional) for
 * a server whose only client is hew itself, on loopback, one request at a time; the
 * subset needed — read a head and a Content-Length body, write a status, headers and
 * bytes — is a few hundred lines that the replay tests exercise end to end.
 *
 * Threads: one accept thread, which also serves (requests are handled in order, one at a
 * time — so the handler needs no lock against itself). loopback_stop wakes it and joins. */
#ifndef HEW_NET_LOOPBACK_H
#define HEW_NET_LOOPBACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct loopback_request {
    const char *method;
    const char *target;   /* the request target as sent ("/v1/messages?x=1") */
    const char *body;     /* NUL-terminated too */
    size_t body_len;
} loopback_request;

typedef struct loopback_answer {
    long status;          /* 0: close the connection without an answer */
    buf headers;          /* "Name: value\r\n" lines (no Content-Length, no Connection) */
    const char *body;     /* borrowed until the answer is written */
    size_t body_len;
    bool cut;             /* announce one byte more than body_len and close after body: the
                             client sees a connection that dropped mid-body */
    /* Paced: the head at head_ms after the request was read, then piece i of the body
     * (pieces[i][1] bytes, in order) at pieces[i][0] ms; what the pieces do not cover
     * goes last. NULL: everything at once. Borrowed like body. A stop cuts the waits. */
    long long head_ms;
    const long long (*pieces)[2];
    size_t npieces;
} loopback_answer;

typedef void (*loopback_fn)(void *ud, const loopback_request *rq, loopback_answer *ans);

typedef struct loopback loopback;

/* Listen on 127.0.0.1 (port 0: any free one) and serve with fn. */
hew_code loopback_start(loopback_fn fn, void *ud, loopback **out, hew_err *err);
/* The port it listens on. */
int loopback_port(const loopback *lb);
/* Stop serving, join the thread, close everything, free. NULL is a no-op. */
void loopback_stop(loopback *lb);

#endif
