/* server — the HTTP side of the fake provider, on libmicrohttpd: binds 127.0.0.1 only,
 * one thread per connection, accepts any method and path, and answers requests with the
 * scenario's plans in arrival order (a mutex hands out the next index and records the
 * request before the response starts). When the plans run out it answers 500 with a
 * JSON body saying the scenario is exhausted.
 *
 * Unless lenient, every POST to a provider path is validated first (validate.h): a
 * violation is answered with that API's 400 body, logged (unless quiet), recorded with
 * "violation": "<message>", and does not use up a scenario response — the next valid
 * request still gets the response the violating one would have had.
 *
 * server_stop() wakes every pacing wait (stalls, delays) through a stop pipe before it
 * joins the connection threads, so shutdown is prompt. Never reads files; never exits
 * the process. */
#ifndef HEW_FAKE_SERVER_H
#define HEW_FAKE_SERVER_H

#include <stdbool.h>

#include "base/err.h"
#include "recorder.h"
#include "scenario.h"

typedef struct server_opts {
    const scenario *sc;  /* borrowed; must outlive the server */
    unsigned port;       /* 0: any free port */
    recorder *rec;       /* borrowed, or NULL */
    bool quiet;          /* no per-request log on stderr */
    bool lenient;        /* do not validate requests */
} server_opts;

typedef struct server server;

server *server_start(const server_opts *opts, hew_err *err);
unsigned server_port(const server *s);
void server_stop(server *s); /* NULL is a no-op */

#endif
