/* faults — how a response is delivered and broken: write size and pacing, explicit
 * split offsets, a slow first byte, a mid-body stall, an abrupt close after N bytes, and
 * an injected malformed event. Parsing and applying these to a plan happens at load
 * time; faults_send() is the pacing state machine the server runs per response.
 *
 * Waits are interruptible: they end early when the client disconnects or when the stop
 * descriptor becomes readable (shutdown), so no thread hangs in a stall. This module
 * never touches HTTP framing (the server library does) and never blocks without a
 * bounded poll. */
#ifndef HEW_FAKE_FAULTS_H
#define HEW_FAKE_FAULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "plan.h"

/* The keys faults_parse() reads; valid on every kind of response. */
extern const char *const faults_keys[];

/* Read the delivery/fault keys of one response object into f. */
hew_code faults_parse(const json_t *resp, const char *path, fp_faults *f, hew_err *err);

/* Inject the malformed event (if asked), check the offsets against the body and compute
 * the write cuts (plan_finish). */
hew_code faults_apply(fp_plan *p, const char *path, hew_err *err);

typedef enum faults_wait_result {
    FAULTS_WAIT_DONE = 0, /* the full time passed */
    FAULTS_WAIT_GONE,     /* the client closed its connection */
    FAULTS_WAIT_STOP      /* the server is shutting down */
} faults_wait_result;

/* Sleep ms milliseconds unless the client (client_fd, may be -1) goes away or stop_fd
 * (may be -1) becomes readable. */
faults_wait_result faults_wait(int client_fd, int stop_fd, long ms);

/* Per-response sending state. */
typedef struct fp_sender {
    const fp_plan *plan; /* borrowed */
    int client_fd;
    int stop_fd;
    bool started;
    bool stalled;
} fp_sender;

#define FAULTS_SEND_END (-1L)   /* the body is complete */
#define FAULTS_SEND_ABORT (-2L) /* drop the connection now (fault, gone client, shutdown) */

/* Produce the next write of the body starting at pos into out (at most max bytes),
 * after the pauses the plan asks for. Returns the byte count, FAULTS_SEND_END or
 * FAULTS_SEND_ABORT. */
long faults_send(fp_sender *s, size_t pos, char *out, size_t max);

#endif
