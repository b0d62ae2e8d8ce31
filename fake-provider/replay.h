/* replay — serve a recorded body file byte for byte ({"replay": "x.sse"}), and the
 * plain (non-stream) responses ({"status": 429, "body": ...}) that tests use for HTTP
 * errors. Both read their files when the scenario loads, take status and headers from a
 * sibling X.meta.json when the entry gives none, and produce a plan. Paths are relative
 * to the scenario's base directory unless absolute. Never touches the network. */
#ifndef HEW_FAKE_REPLAY_H
#define HEW_FAKE_REPLAY_H

#include <jansson.h>

#include "base/err.h"
#include "plan.h"

extern const char *const replay_keys[];
extern const char *const plain_keys[];

/* {"replay": PATH, "status"?, "headers"?} plus faults: the raw body, one write per SSE
 * event unless chunk_size/splits say otherwise; chunked encoding. */
hew_code replay_load(const json_t *resp, const char *path, const char *base_dir, fp_plan *p,
                     hew_err *err);

/* {"status", "headers"?, "body"? | "body_file"?} plus faults: one plain response with a
 * Content-Length. */
hew_code plain_load(const json_t *resp, const char *path, const char *base_dir, fp_plan *p,
                    hew_err *err);

/* base_dir + "/" + file unless file is absolute; a new string the caller frees. */
char *replay_resolve(const char *base_dir, const char *file);

#endif
