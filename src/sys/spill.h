/* spill — bytes that need not stay in memory while they wait, kept in an unnamed file on
 * disk instead: the text of a long answer as it streams (api/turn.c), read back in pieces
 * when the history takes it. The file has no name (O_TMPFILE, or a name removed at once),
 * so nothing is left behind after a crash, and it is private to the process (0600). It is
 * append-only; a read never moves anything. It must never be put on a tmpfs on purpose
 * (that would only move the memory, not save it): callers give the directory of hew's
 * store, which is on disk.
 *
 * Threads: one writer; reads (pread) may come from any thread once the bytes were
 * appended. */
#ifndef HEW_SYS_SPILL_H
#define HEW_SYS_SPILL_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct spill spill;

/* A new empty spill file in dir. HEW_E_IO (with dir and why) when it cannot be made. */
hew_code spill_open(const char *dir, spill **out, hew_err *err);

/* Append p[0..n) at the end. HEW_E_IO (a full disk): nothing is counted as written. */
hew_code spill_append(spill *s, const void *p, size_t n, hew_err *err);

/* Append bytes [off, off + n) of the file to out (n may reach past the end: what is
 * there). HEW_E_IO on a read error; out's sticky error is kept. */
hew_code spill_read(const spill *s, size_t off, size_t n, buf *out, hew_err *err);

/* The bytes appended so far. */
size_t spill_size(const spill *s);

/* Close (the file goes with its descriptor). NULL is a no-op. */
void spill_close(spill *s);

#endif
