/* plan — one prepared HTTP response of the fake provider: status, headers, the body
 * bytes, the SSE event boundaries inside the body, where the body is cut into socket
 * writes, and the fault settings the sender applies while writing it.
 *
 * A plan is built once, when the scenario loads (generators, replay and plain error
 * responses all produce one), and is read-only while it is served. This module never
 * does I/O and never knows about HTTP libraries or protocols.
 *
 * Lifecycle: plan_init() / plan_release(). Builders append freely (the body buf keeps a
 * sticky error); plan_finish() checks once and computes the write cuts. */
#ifndef HEW_FAKE_PLAN_H
#define HEW_FAKE_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define PLAN_BODY_MAX ((size_t)256 << 20)

/* Delivery settings and faults, shared by every kind of response (see faults.h). */
typedef struct fp_faults {
    size_t chunk_size;           /* bytes per write; 0 = one write per SSE event */
    long delay_ms;               /* pause before every write but the first */
    long delay_first_byte_ms;    /* pause before the first byte (and headers, unless
                                    headers_first) */
    bool headers_first;
    long long close_after_bytes; /* -1: never; else drop the connection after N bytes */
    long long stall_after_bytes; /* -1: never; else pause stall_ms once after N bytes */
    long stall_ms;
    long malformed_at;           /* -1: none; else inject a bad event before event k */
    size_t *splits;              /* explicit write boundaries (owned), or NULL */
    size_t nsplits;
} fp_faults;

typedef struct fp_plan {
    unsigned status;
    json_t *headers;   /* object name -> string, in order (owned reference) */
    bool chunked;      /* true: streamed with chunked encoding; false: Content-Length */
    buf body;
    size_t *events;    /* end offset of each event, ascending (owned) */
    size_t nevents;
    size_t events_cap;
    size_t *cuts;      /* write boundaries, ascending, unique; last == body.len (owned) */
    size_t ncuts;
    fp_faults faults;
    char label[128];   /* what this response is, for the log: "generated anthropic" */
    bool echo_key;     /* the body holds PLAN_KEY_PLACEHOLDER: each request gets a copy
                          with the key it sent in its place (plain responses only) */
} fp_plan;

#define PLAN_KEY_PLACEHOLDER "{{request_key}}"

void plan_init(fp_plan *p);
void plan_release(fp_plan *p);

/* Set (or replace, case-insensitively) a response header. */
void plan_set_header(fp_plan *p, const char *name, const char *value);

/* Append one event (one logical write unit) to the body. */
void plan_add_event(fp_plan *p, const char *data, size_t len);

/* Insert a whole event before event k (k == nevents appends). */
void plan_insert_event(fp_plan *p, size_t k, const char *data, size_t len);

/* Append bytes and record an event boundary after each blank line ("\n\n", "\r\r" or
 * "\r\n\r\n"), so a raw SSE body gets one write per event. */
void plan_add_raw_sse(fp_plan *p, const char *data, size_t len);

/* Check the sticky errors, then compute the cuts from faults (splits, or chunk_size, or
 * the events), adding the close/stall offsets. what names the response in messages. */
hew_code plan_finish(fp_plan *p, const char *what, hew_err *err);

/* The end of the write that starts at pos (the next cut after pos). */
size_t plan_next_cut(const fp_plan *p, size_t pos);

#endif
