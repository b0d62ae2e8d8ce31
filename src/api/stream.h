/* stream — one model request, start to finish: api_stream builds the HTTP request for the
 * provider (request.h), sends it through net/http, decodes the 2xx body through
 * net/sse + the protocol's decoder (decoder.h) and hands every chunk to the caller as it
 * arrives; an error status is classified (error.h). BLOCKING: it runs on the caller's
 * thread (the agent runs it on the request's stream thread) until the stream ends, fails,
 * or the abort token fires (within 100 ms). It never retries (the agent loop decides,
 * from the api_error), never prints, and never lets a cut stream look complete.
 *
 * The callback sees the chunk sequence of chunk.h, always closed by exactly one END or
 * ERROR — also for failures that are not in the stream (an HTTP error status, a refused
 * connection, a timeout, an abort), so a consumer can rely on the chunks alone.
 *
 * Returns HEW_OK when the turn completed (END delivered). Otherwise err_out (may be
 * NULL) is filled, after_first_chunk says whether text/reasoning/tool chunks had already
 * been delivered (the loop retries cleanly only before the first chunk), and the code is:
 *   HEW_E_HTTP      the server answered with an error status (err_out classifies it)
 *   HEW_E_PROTOCOL  the stream carried an error event, broke off before its terminal
 *                   event, or was malformed
 *   HEW_E_NET, HEW_E_TIMEOUT  transport failures (category network / timeout)
 *   HEW_E_ABORTED   the abort token fired, or the callback returned non-zero
 *                   (category aborted)
 *   HEW_E_INVALID   the request could not be built (category bad_request: a history that
 *                   does not validate), HEW_E_NOMEM. */
#ifndef HEW_API_STREAM_H
#define HEW_API_STREAM_H

#include "api/chunk.h"
#include "api/error.h"
#include "api/provider.h"
#include "api/request.h"
#include "sys/abort.h"

hew_code api_stream(const api_provider *p, const api_request *r, api_chunk_fn fn, void *ud,
                    hew_abort *abort, api_error *err_out);

#endif
