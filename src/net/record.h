/* record — `hew --record DIR`: every HTTP exchange with the provider saved to a folder, so
 * that `hew replay DIR` can serve it again (docs/replay.md is the format, "format": 1).
 *
 * Exchange k (1, 2, ...; in the order requests go out) is three files, all written
 * atomically once the exchange has ended, the description last:
 *   NNNN.request    the request body exactly as sent
 *   NNNN.response   the response body exactly as received (the SSE stream; after
 *                   libcurl took the transfer encoding off)
 *   NNNN.json       {"format":1, "n", "method", "url", "request": {"headers",
 *                   "body_file", "body_bytes"}, "response": {"status", "http_version",
 *                   "headers", "body_file", "body_bytes"}, "timing": {"headers_ms",
 *                   "total_ms", "chunks": [[offset_ms, bytes], ...]}, "clock": [...],
 *                   "outcome": "ok" | "stopped" | "error", "error"}
 * (NNNN is k with at least four digits.) A killed run leaves whole exchanges only: an
 * NNNN.json is there only when its bodies are complete. The manifest, session.json, is
 * written by whoever knows the task (net_record_manifest).
 *
 * It must never write a secret: secret request headers are masked (redact_header), the
 * URL and every other header value go through redact (the session's key is registered
 * there), and a request body that holds a registered secret is stored redacted. Thread-
 * safe: any number of requests may record at once (each takes its number when it
 * starts). A failure to write is logged and kept (net_record_failed); it never fails the
 * request itself. */
#ifndef HEW_NET_RECORD_H
#define HEW_NET_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "net/http.h"

#define NET_RECORD_FORMAT 1
#define NET_RECORD_BODY_MAX ((size_t)256 << 20) /* bytes of one response kept */

typedef struct net_record net_record;
typedef struct net_record_x net_record_x;

/* Start recording into dir (created, 0700, with its parents). Refused (HEW_E_INVALID)
 * when dir already holds a recording (a session.json or 0001.json): choose a new folder. */
hew_code net_record_open(const char *dir, net_record **out, hew_err *err);
void net_record_free(net_record *r);
const char *net_record_dir(const net_record *r);

/* Write session.json (json[0..len)) atomically; replaces an earlier one. */
hew_code net_record_manifest(net_record *r, const char *json, size_t len, hew_err *err);

/* A value of the clock the task read for what it tells the model (seconds since the
 * epoch): kept with the next exchange to end ("clock"), so a replay reads the same. */
void net_record_note_clock(net_record *r, long long epoch_s);

/* True once a file could not be written (the log says which). */
bool net_record_failed(const net_record *r);

/* The life of one exchange, for net/http: begin when the request goes out (NULL when
 * memory ran out: then nothing is recorded), the response head, each piece of the body,
 * end with the request's outcome (writes the files and frees x): stopped when the reader
 * stopped reading (it had the whole answer, or the task was stopped) — "outcome":
 * "stopped", not "error". */
net_record_x *net_record_begin(net_record *r, const http_request *req);
void net_record_response(net_record_x *x, const http_response *resp);
void net_record_body(net_record_x *x, const char *bytes, size_t n);
void net_record_end(net_record_x *x, hew_code rc, bool stopped, const char *error);

#endif
