/* origin — a tiny TCP server on 127.0.0.1 for the egress proxy's tests: the "origin" a
 * client reaches through the proxy. One thread serves one connection at a time, in one
 * of three modes: http (reads a request head, keeps it, answers 200 "hello from
 * origin\n" and closes), echo (sends back what it reads until EOF), silent (reads until
 * EOF). It counts the connections it accepted, so a test can prove that a refused request
 * never reached it. Test-only; it never binds anything but 127.0.0.1. */
#ifndef HEW_TEST_ORIGIN_H
#define HEW_TEST_ORIGIN_H

#include <pthread.h>

enum { ORIGIN_HTTP, ORIGIN_ECHO, ORIGIN_SILENT };

#define ORIGIN_BODY "hello from origin\n"

typedef struct origin {
    int fd, port, mode;
    int stop[2];
    pthread_t th;
    pthread_mutex_t mu;
    int accepts;
    char head[16384]; /* the last request head (http mode), under mu */
} origin;

/* Listen (a kernel-chosen port) and serve; exits the test program when it cannot. */
void origin_start(origin *o, int mode);
/* Connections accepted so far. */
int origin_accepts(origin *o);
/* Stop, join, close. */
void origin_stop(origin *o);

#endif
