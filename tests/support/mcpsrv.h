/* mcpsrv — the real MCP "everything" server (from the npm registry, installed by
 * scripts/install-deps into tests/mcp) started over HTTP for a test: Streamable HTTP
 * ("streamableHttp") or the old HTTP+SSE ("sse"), on a free loopback port. Test-only. */
#ifndef HEW_TEST_MCPSRV_H
#define HEW_TEST_MCPSRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "base/buf.h"
#include "sys/proc.h"

typedef struct node_server {
    proc *p;
    pthread_t pump;
    pthread_mutex_t mu;
    buf output;
    atomic_bool finished; /* the pump thread owns the proc; it says when it ended */
    int port;
    char base[64];        /* "http://127.0.0.1:PORT" */
} node_server;

/* Start the server in mode "streamableHttp" or "sse" and wait until it listens; 0 on
 * success, else a check failure is recorded (saying what to do) and nothing runs. */
int server_start(node_server *s, const char *mode);

/* True when the server printed needle within timeout_ms. */
bool server_output_has(node_server *s, const char *needle, long timeout_ms);

/* A loopback TCP port nobody listens on right now, and whether one accepts
 * connections. */
int free_port(void);
bool port_accepts(int port);

/* The monotonic clock in ms, and a sleep. */
long test_now_ms(void);
void test_sleep_ms(long ms);

/* Kill it and free what start made. */
void server_stop(node_server *s);

#endif
