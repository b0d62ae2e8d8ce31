/* complete — Tab completion at the interactive prompt (a lined_complete_fn, lineedit.h):
 * slash command names, their arguments (/model: the model names hew's table knows;
 * /resume: stored task ids, newest first; /diff and /restore: the checkpoint numbers of
 * the task that ended last, and /restore's files|task|both; /mcp: reload), and file paths
 * after '@' (a mention: relative to the workspace, directories with a final '/', hidden
 * files only when the typed part starts with '.', and never a path the workspace's
 * .clineignore hides). It reads directories, the task store and the checkpoint list;
 * it never prints and never changes anything. */
#ifndef HEW_CLI_COMPLETE_H
#define HEW_CLI_COMPLETE_H

#include <stddef.h>

#include "hew.h"

typedef struct complete_ctx {
    const hew_options *base; /* the store (data_dir) for task ids and checkpoints */
    const char *cwd;         /* the workspace @paths are relative to (NULL: here) */
    const char *last_id;     /* the task /diff and /restore act on ("" or NULL: none) */
    /* the strings of the last answer (owned; kept until the next call) */
    char **pool;
    size_t npool, cappool;
} complete_ctx;

/* The completer: arg is a complete_ctx. See lined_complete_fn. */
size_t complete_line(void *arg, const char *line, size_t len, size_t *start, const char **out,
                     size_t cap);

/* Free the strings of the last answer. */
void complete_release(complete_ctx *c);

/* The entries of directory `dir` of the workspace (relative, "" the workspace itself,
 * else ending in '/') whose names start with the len bytes at prefix, as "dir/name"
 * (directories with a final '/'), sorted, .clineignore'd ones left out: up to cap into
 * out (strings kept in c's pool); returns how many were found. */
size_t complete_paths(complete_ctx *c, const char *dir, const char *prefix, size_t len,
                      const char **out, size_t cap);

/* Of the n words, those that start with the len bytes at prefix (in their order): up to
 * cap into out (borrowed); returns how many there are. */
size_t complete_words(const char *const *words, size_t n, const char *prefix, size_t len,
                      const char **out, size_t cap);

#endif
