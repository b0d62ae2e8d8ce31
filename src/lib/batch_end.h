/* batch_end — reads a `hew -p --json` child's standard output as it comes (any cut of
 * the bytes) for what `hew batch` reports: the task_end lines' status, result and totals.
 * A push reader with no I/O: batch_end_feed the bytes, batch_end_finish at EOF, then read
 * the fields. Only a line that says "kind":"end" within its first 64 bytes (where the
 * end line puts it) is held, up to BATCH_END_LINE_MAX; every other event passes through
 * without being kept, so a child's output of any size costs only its end line.
 *
 * Totals: the task_end fields of docs/events.md (usage.{input,output,cache_read,
 * cache_write}_tokens, cost_usd, requests) or, from a hew with only the older "totals"
 * object (tokens_in, tokens_out, cache_reads, cache_writes, cost, requests), those. A
 * task that handed over to a new one ends once per task: the totals add up, the last
 * status, result, reason and denied win (docs/events.md: the exit class as a word, the
 * actions refused for want of approval).
 *
 * Ownership: the reader owns status and result; batch_end_release frees everything. */
#ifndef HEW_LIB_BATCH_END_H
#define HEW_LIB_BATCH_END_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"

#define BATCH_END_LINE_MAX ((size_t)64 << 20) /* an end line (it holds the result) */
#define BATCH_END_RESULT_MAX 1000             /* bytes of result kept */

typedef struct batch_end {
    int ends;      /* task_end lines read */
    char *status;  /* the last one's status, or NULL */
    char *result;  /* the last one's result, at most BATCH_END_RESULT_MAX bytes, or NULL */
    char *reason;  /* the last one's "reason" (the exit class as a word), or NULL */
    json_t *denied; /* the last one's "denied" array (a reference the reader holds), or NULL */
    long long input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, requests;
    double cost_usd;
    /* private */
    buf line;
    int state;
} batch_end;

void batch_end_init(batch_end *e);
void batch_end_feed(batch_end *e, const char *data, size_t len);
/* The output has ended: a last line without a newline counts. */
void batch_end_finish(batch_end *e);
void batch_end_release(batch_end *e);

#endif
