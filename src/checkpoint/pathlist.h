/* pathlist — a growable list of workspace-relative paths for the checkpoint module: filled
 * from git's NUL-separated output (-z), sorted, searched, handed to git in argv batches.
 * Paths are raw bytes (any name a file system allows except NUL); nothing here quotes,
 * unquotes or re-encodes them, and nothing here touches the file system.
 *
 * Lifecycle: `pathlist l = PATHLIST_INIT;` ... pathlist_release(&l). Appends that run out
 * of memory set the sticky oom flag and change nothing; check it once at the end
 * (pathlist_check). Internal to src/checkpoint/. */
#ifndef HEW_CHECKPOINT_PATHLIST_H
#define HEW_CHECKPOINT_PATHLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef struct pathlist {
    char **v;     /* v[0..n): owned NUL-terminated copies */
    char *status; /* status[i]: a one-letter tag per path (0 when none was given) */
    size_t n, cap;
    bool oom;
} pathlist;

#define PATHLIST_INIT { NULL, NULL, 0, 0, false }

void pathlist_release(pathlist *l);

void pathlist_add_str(pathlist *l, const char *p, char status);

/* Split the NUL-terminated records of data[0..len) (git -z output) and append each
 * non-empty one (status 0). */
void pathlist_add_z(pathlist *l, const char *data, size_t len);
/* `git ls-files -t -z`: "<tag> <path>\0" records. */
void pathlist_add_tagged_z(pathlist *l, const char *data, size_t len);

/* Sort by bytes (memcmp order, like git's index) and drop exact duplicates (keeping the
 * first status seen). */
void pathlist_sort_unique(pathlist *l);

/* True when p is in a list sorted by pathlist_sort_unique. */
bool pathlist_has(const pathlist *l, const char *p);

/* HEW_E_NOMEM when an append failed, else HEW_OK. */
hew_code pathlist_check(const pathlist *l, hew_err *err);

#endif
