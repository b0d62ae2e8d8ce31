/* native — assembles native tool calls (the provider's structured tool-call deltas) into
 * tool_use blocks. It must never guess: arguments are shown as far as a tolerant reader can
 * read them while they stream, and when the call is complete they are parsed strictly; an
 * invalid document becomes an error message on the block (for the model), never a crash
 * and never a made-up parameter.
 *
 * Deltas are matched to calls by index (when given; a call's index is the provider's, and
 * need not start at 0), else by id, else they continue the most recent open call. The id
 * and the name may come once, with argument fragments after; a whole call may arrive in
 * one delta; fragments of several calls may interleave. A block is created when the
 * call's name is first known (so a call's block position is the order in which names
 * arrived).
 *
 * Complete calls: params are the top-level keys of the arguments object in document order,
 * string values as decoded strings, other values as compact JSON text; empty arguments
 * count as {}. Errors on a block: block->args_error (and no params).
 *
 * Ownership: borrows the blocklist; owns its call records. */
#ifndef HEW_PARSE_NATIVE_H
#define HEW_PARSE_NATIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "parse/block.h"
#include "parse/jsonpeek.h"

typedef struct native_call {
    char *id;
    long long index;
    bool has_index;
    bool done;
    char *name;        /* until the block exists */
    buf pre;           /* arguments received before the name */
    buf dkey;          /* key of the non-string value being read */
    bool deferred;     /* a non-string value is being read (shown when whole) */
    block *blk;
    tval *cur;         /* value being streamed */
    jsonpeek peek;
    struct native *owner;
    size_t pos;        /* index in native.calls */
} native_call;

typedef struct native {
    blocklist *out;
    native_call **calls;
    size_t n, cap, last;
    size_t max;
} native;

typedef struct native_delta {
    const char *id;      /* NULL when absent */
    long long index;
    bool has_index;
    const char *name;    /* NULL when absent */
    const char *args;    /* fragment (may be NULL when args_len is 0) */
    size_t args_len;
    bool done;           /* the provider says this call is complete */
} native_delta;

void native_init(native *nv, blocklist *out, size_t max_bytes);
void native_release(native *nv);

/* Apply one delta. before_block(ud) is called just before a new block is appended (the
 * caller closes its open text there). HEW_E_NOMEM, HEW_E_TOOBIG. Matching a delta looks at
 * the most recent call first, then at all calls: cheap for the few calls of a message. */
hew_code native_delta_apply(native *nv, const native_delta *d,
                            void (*before_block)(void *ud), void *ud);

/* Complete every call not yet complete (end of the stream). */
hew_code native_finish(native *nv, void (*before_block)(void *ud), void *ud);

#endif
