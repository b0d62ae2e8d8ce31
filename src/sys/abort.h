/* abort — a cancellation token shared by everything that blocks on behalf of a task.
 *
 * One side calls abort_trigger() (Ctrl-C in the CLI, hew_task_abort() from an embedding
 * program, a deadline); every blocking wait that holds the token (an HTTP stream, a child
 * process, an approval prompt, an MCP call) notices within 100 ms. Waits that sleep in a
 * poll register a listener that wakes them at once (the HTTP layer calls
 * curl_multi_wakeup from it). The token can be re-armed with abort_reset() so a task can
 * go on after an aborted request.
 *
 * Thread-safe. A listener runs on the triggering thread, under the token's lock: it must
 * be quick and must not call back into the token. After abort_unlisten() returns, the
 * listener will never run again. abort_free(NULL) is a no-op. */
#ifndef HEW_SYS_ABORT_H
#define HEW_SYS_ABORT_H

#include <stdbool.h>

typedef struct hew_abort hew_abort;
typedef void (*abort_listener_fn)(void *ud);

hew_abort *abort_new(void);
void abort_free(hew_abort *a);

/* Set the flag (reason is copied; the first reason wins until reset), run the listeners
 * and wake every abort_sleep(). Triggering twice is harmless. */
void abort_trigger(hew_abort *a, const char *reason);
bool abort_is_set(const hew_abort *a);
/* The reason given to the first abort_trigger(), or "" when not set. The pointer stays
 * valid until abort_reset() or abort_free(). */
const char *abort_reason(const hew_abort *a);
void abort_reset(hew_abort *a);

/* Sleep up to ms milliseconds; returns true early (at once) when the token is triggered.
 * a may be NULL (a plain sleep). */
bool abort_sleep(hew_abort *a, long ms);

/* Register a listener; returns an id > 0 for abort_unlisten(), or 0 if the table is full
 * (the caller must then poll abort_is_set() itself). If the token is already set the
 * listener runs once immediately. */
int abort_listen(hew_abort *a, abort_listener_fn fn, void *ud);
void abort_unlisten(hew_abort *a, int id);

#endif
