/* search — the engine behind search_files (and bench/search): a PCRE2 regex (JIT) over
 * every text file of a directory walk that respects .gitignore, .clineignore and hidden
 * names, like ripgrep's defaults. Files are searched in parallel, whole-buffer (not line
 * by line), and the hits come back in walk order (paths sorted), each with one line of
 * context before and after. It must never return more hits than asked (the rest is only
 * counted as "more"), never search binary files (a NUL byte anywhere), never follow
 * symlinks (files are opened beneath the walked directory's descriptor with base/fsat.h,
 * so a folder swapped for a symlink mid-search is not read through), and never report a
 * match that spans lines: like ripgrep, a hit is a line.
 *
 * Regex: PCRE2 syntax with UTF-8 (invalid UTF-8 in files is tolerated), multi-line
 * anchors (^ and $ match at line boundaries), case-sensitive. */
#ifndef HEW_TOOLS_SEARCH_H
#define HEW_TOOLS_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "sys/abort.h"
#include "base/err.h"
#include "sys/ignore.h"

typedef struct search_opts {
    const char *dir;       /* absolute directory to search (required); canonical (no
                            * symlinks, ws_resolve's) when root is NULL: it is opened
                            * beneath "/" (or beneath root) without following one */
    const char *root;      /* workspace root; NULL when dir is outside the workspace */
    const char *dir_rel;   /* dir relative to root ("" for the root); with root */
    const char *regex;     /* required */
    const char *glob;      /* file filter, ripgrep style: "*.ts", "*.{c,h}", "!*.min.js",
                            * or a pattern with '/' matched against the whole relative
                            * path; NULL or "" for every file */
    const ignore *cline;   /* .clineignore; may be NULL */
    size_t max_hits;       /* 0: no limit */
    int threads;           /* 0: one per CPU (at most 16) */
    hew_abort *abort;      /* may be NULL */
    /* May be NULL; else called (from the search's threads, so thread-safe) with the stat
     * of each file before it is read: false skips it (hard links of ignored files). */
    bool (*file_ok)(void *ud, const struct stat *st);
    void *file_ok_ud;
} search_opts;

typedef struct search_hit {
    size_t file;       /* index into files */
    size_t line;       /* 1-based line number */
    char *text;        /* the line, without its end of line ('\r' dropped); owned */
    char *before;      /* the line before (NULL at the first line); owned */
    char *after;       /* the line after (NULL at the last line); owned */
} search_hit;

typedef struct search_result {
    char **files;      /* paths relative to dir, for files with hits; owned */
    size_t nfiles;
    search_hit *hits;  /* in order: by file (walk order), then by line */
    size_t nhits;
    bool more;         /* there were more hits than max_hits */
    size_t files_searched;
    unsigned long long bytes_searched;
} search_result;

#define SEARCH_RESULT_INIT { NULL, 0, NULL, 0, false, 0, 0 }

/* Check that a regex compiles; HEW_E_INVALID with PCRE2's message and offset if not. */
hew_code search_check_regex(const char *regex, hew_err *err);

/* Run a search. HEW_E_INVALID: the regex or the glob is malformed (message for the
 * model); HEW_E_ABORTED; HEW_E_NOMEM. */
hew_code search_run(const search_opts *o, search_result *r, hew_err *err);
void search_result_release(search_result *r);

/* True when rel (relative to the searched directory) passes the ripgrep-style glob. */
bool search_glob_match(const char *glob, const char *rel);

#endif
