/* ignore — gitignore-syntax matching for `.gitignore` and `.clineignore` files. It answers
 * one question: "is this path, relative to the workspace root, ignored?" It must never touch
 * a file other than the ignore files it is asked to load, never follow `!include` outside
 * the workspace, and never decide on absolute or unnormalised paths: give it clean
 * relative paths with '/' separators ("src/a.c", no "./", no "..").
 *
 * Syntax (as git documents it): blank lines and `#` comments are skipped (`\#` is a
 * literal '#'); trailing spaces are dropped unless escaped; `!` negates (re-includes),
 * `\!` is a literal '!'; a trailing '/' makes the pattern match directories only; a
 * pattern with a '/' at the start or in the middle is anchored to the directory of its
 * ignore file, otherwise it matches a name at any depth below it; `*` `?` `[...]` never
 * match '/'; `**` in a segment of its own matches any number of directories (`**` alone,
 * a leading `**` segment, or a trailing one). The last matching line decides. A path below an
 * ignored directory is ignored whatever the later lines say (as in git: a parent that is
 * excluded cannot have children re-included).
 *
 * Several pattern sets form a chain: a set belongs to a directory (its base, relative to
 * the root, "" for the root) and has an optional parent set. A deeper set overrides its
 * parents, like git's per-directory .gitignore files. Sets are immutable once built and
 * may be shared between threads for matching.
 *
 * `.clineignore` (ignore_load_cline): the file at the workspace root, case-insensitive
 * like Cline's, with `!include <relpath>` lines that inline another file (inside the
 * workspace, one level per include, at most 16 deep); `.clineignore` itself is always
 * ignored. A workspace without the file gets an empty matcher (nothing ignored except
 * the file itself). */
#ifndef HEW_TOOLS_IGNORE_H
#define HEW_TOOLS_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef struct ignore ignore;

enum {
    IGNORE_ICASE = 1 << 0, /* compare letters case-insensitively (ASCII) */
};

/* A new empty pattern set for directory base (relative to the root, "" for the root),
 * below parent (may be NULL; borrowed: free children before their parent). NULL when
 * memory runs out. */
ignore *ignore_new(const ignore *parent, const char *base, int flags);
void ignore_free(ignore *ig);
/* Free ig and every parent set above it (for chains owned as a whole). */
void ignore_free_chain(ignore *ig);


/* A new set (ignore_new with flags 0; base NULL is "") holding the rules of text[0..len),
 * which it takes and frees in every case. *out is NULL on failure. */
hew_code ignore_new_text(const ignore *parent, const char *base, char *text, size_t len,
                         ignore **out, hew_err *err);

/* Add one pattern line. */
hew_code ignore_add_line(ignore *ig, const char *line, hew_err *err);


/* The workspace's .clineignore as a new matcher (see above). Never NULL on HEW_OK. */
hew_code ignore_load_cline(const char *root, ignore **out, hew_err *err);

/* True when the set has no patterns of its own and no parent (matching is a no-op). */
bool ignore_is_empty(const ignore *ig);

/* The number of pattern lines of the set and its parents (a .clineignore matcher always
 * has one: its own name). ig may be NULL (0). */
size_t ignore_rule_count(const ignore *ig);

/* What the chain says about exactly this path, without looking at its parents: 1 when
 * the last matching line ignores it, 0 when it re-includes it, -1 when nothing matches.
 * For walkers that do not descend into ignored directories. ig may be NULL (-1). */
int ignore_decide(const ignore *ig, const char *relpath, bool is_dir);

/* True when relpath (or one of its parent directories) is ignored. relpath "" or "." is
 * the root and never ignored. ig may be NULL (false). */
bool ignore_match(const ignore *ig, const char *relpath, bool is_dir);

/* Glob matching as the patterns use it: '/'-aware wildcards, `**`, classes, escapes.
 * Returns true when text matches pattern entirely. flags: IGNORE_ICASE. */
bool ignore_wildmatch(const char *pattern, const char *text, int flags);

#endif
