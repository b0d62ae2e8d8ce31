/* batch_line — one line of a `hew batch` TASKS file read into a task: its id, its
 * prompt, its workspace and the `hew -p` flags its options mean (a table: each option key
 * is the flag of the same meaning, docs/batch.md). A line that cannot be a task (not
 * JSON, not an object, no prompt, an unknown key, a value of the wrong kind) becomes a
 * task with an error saying what to fix. It reads only the bytes given: no I/O, no clock;
 * whether the cwd exists and whether an id is used twice are the runner's to check.
 *
 * Ownership: a batch_task owns its strings; batch_task_release frees them (and is safe
 * on a zeroed or released task). */
#ifndef HEW_LIB_BATCH_LINE_H
#define HEW_LIB_BATCH_LINE_H

#include <stdbool.h>
#include <stddef.h>

#define BATCH_ID_MAX 256 /* bytes of an id */

typedef struct batch_task {
    long line;      /* 1-based line number */
    char *id;       /* the line's id, or "line-N" when it gave none (never NULL once parsed) */
    char *prompt;   /* NULL when the line is bad */
    char *cwd;      /* NULL: the batch's own current directory */
    long timeout_s; /* the line's "timeout" (seconds); -1: not given */
    char **args;    /* the child's flags for the line's options, NULL-terminated (may be
                       NULL when there are none) */
    size_t nargs;
    char *error;    /* why the line is not a task, or NULL */
} batch_task;

/* True when the line holds only spaces, tabs and CRs (it is no task and gets no result). */
bool batch_line_blank(const char *s, size_t n);

/* Read line s[0..n) (no newline), number lineno, into *t (overwritten; release it after).
 * Fails only for want of memory (false; *t then holds what was made, to release). */
bool batch_line_parse(const char *s, size_t n, long lineno, batch_task *t);

void batch_task_release(batch_task *t);

/* The option keys a line may carry besides id, prompt and cwd, comma-separated, for
 * messages and docs (a static string). */
const char *batch_line_keys(void);

#endif
