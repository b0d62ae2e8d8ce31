/* rules — the user's instructions for the model, found in files: the global rules folder,
 * the workspace's `.clinerules` (a file or a folder), `.cursorrules` and `.cursor/rules/`,
 * `.windsurfrules`, and the `AGENTS.md` files of the workspace (the root one and nested
 * ones, each scoped to its folder); and the text of `.clineignore`, which the model is
 * shown so that it knows which paths are off limits.
 *
 * Two steps, so that the reading (I/O) and the choosing (pure) are apart:
 *   rules_load   reads every enabled source once into a rules_set;
 *   rules_render writes the instructions for the paths in play (a rule whose front matter
 *                has `paths:` globs is included only when one of those paths matches),
 *                in this order: global rules, .clinerules, .cursorrules, .cursor/rules/,
 *                .windsurfrules, AGENTS.md, CLAUDE.md, GEMINI.md. The result goes into
 *                prompt_ctx.rules.
 * Call rules_load once per API request (rule files may change during a task; the walk for
 * nested AGENTS.md files is bounded, see below) or cache the set per user message.
 *
 * Sources (each one toggled in rules_opts):
 *   global       every file below $XDG_CONFIG_HOME/hew/rules/ (default ~/.config/hew/rules/)
 *   clinerules   <cwd>/.clinerules: a file, or a folder read recursively without its
 *                top-level workflows/, hooks/ and skills/ folders
 *   cursorrules  <cwd>/.cursorrules (file) and <cwd>/.cursor/rules/ (folder)
 *   windsurfrules <cwd>/.windsurfrules (file)
 *   agents       <cwd>/AGENTS.md and every AGENTS.md below cwd that the workspace walk
 *                reaches (.gitignore and .clineignore honoured, hidden and dependency
 *                folders skipped); at most RULES_MAX_AGENTS files, and the walk stops
 *                after RULES_WALK_MAX files
 *   claude       Claude Code's memory files: the user's ~/.claude/CLAUDE.md, then
 *                <cwd>/CLAUDE.md, <cwd>/.claude/CLAUDE.md, <cwd>/CLAUDE.local.md and every
 *                nested CLAUDE.md (scoped to its folder, found by the same walk as
 *                AGENTS.md); an `@path` in one (outside code) imports that file after it,
 *                as Claude Code does (relative to the importing file, `~/` for home; five
 *                levels deep at most, each file once) — a workspace's file imports only
 *                files inside the workspace, the user's own file anything it names
 *   gemini       Gemini CLI's: the user's ~/.gemini/GEMINI.md, then <cwd>/GEMINI.md and
 *                every nested GEMINI.md, with the same imports
 *   clineignore  the text of <cwd>/.clineignore
 * Cursor's .mdc rule files (.cursor/rules/) apply as Cursor applies them, from their
 * front matter: `alwaysApply: true` always; `globs:` when a path in play matches; a
 * `description:` alone makes the rule one the model is told of (its file and
 * description) and reads when it is relevant; none of these, a rule only for when the
 * user names it — left out. Other rule files without front matter always apply.
 * Folders are read recursively (at most 8 levels), files in byte order of their path
 * relative to the folder; hidden names (".x") and files holding NUL bytes are skipped;
 * symbolic links to files are followed, links to folders are not. A file that is not
 * valid UTF-8 is repaired (U+FFFD), never dropped.
 *
 * Caps: a rule file longer than max_file_bytes is cut (at a character boundary) and the
 * model is told so in a note that gives the file's size; when the rendered rules pass
 * max_total_bytes, the remaining files are left out and a note names them. Nothing is
 * cut silently. */
#ifndef HEW_PROMPT_RULES_H
#define HEW_PROMPT_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define RULES_MAX_AGENTS 64
#define RULES_WALK_MAX 100000

typedef struct rules_opts {
    bool global;
    bool clinerules;
    bool cursorrules;
    bool windsurfrules;
    bool agents;
    bool claude;
    bool gemini;
    bool clineignore;
    size_t max_file_bytes;   /* per rule file (default 64 KiB) */
    size_t max_total_bytes;  /* all rules rendered together (default 256 KiB) */
    const char *global_dir;  /* NULL: $XDG_CONFIG_HOME/hew/rules, else ~/.config/hew/rules */
    const char *home;        /* for ~/.claude/CLAUDE.md, ~/.gemini/GEMINI.md and `@~/`
                                imports; NULL: $HOME */
    /* Rule files turned off one by one: absolute paths, NULL-terminated; may be NULL. */
    const char *const *disabled;
} rules_opts;

/* Every source on, default caps, the default global folder. */
rules_opts rules_defaults(void);

typedef enum rules_source {
    RULES_SRC_GLOBAL,
    RULES_SRC_CLINERULES,
    RULES_SRC_CURSORRULES,
    RULES_SRC_CURSOR_DIR,
    RULES_SRC_WINDSURF,
    RULES_SRC_AGENTS,
    RULES_SRC_CLAUDE_USER,
    RULES_SRC_CLAUDE,
    RULES_SRC_GEMINI_USER,
    RULES_SRC_GEMINI,
} rules_source;

/* When a rule file applies (Cursor's rule types; every other file is ALWAYS or GLOBS). */
typedef enum rules_apply {
    RULES_ALWAYS,     /* every request */
    RULES_GLOBS,      /* when a path in play matches one of its globs */
    RULES_ON_REQUEST, /* the model is told of it (name, description) and reads it itself */
    RULES_MANUAL,     /* only when the user names it: not rendered */
} rules_apply;

typedef struct rules_file {
    rules_source source;
    char *path;         /* absolute */
    char *name;         /* shown to the model: relative to its folder (or to cwd) */
    char *scope;        /* AGENTS.md: the folder it applies to, relative to cwd ("" root) */
    char *text;         /* the body (front matter removed when it was valid) */
    size_t size;        /* the file's full size in bytes */
    size_t shown;       /* how many of them were read (all unless cut) */
    bool cut;           /* text holds only the first max_file_bytes */
    char **globs;       /* `paths:` globs; conditional is true when the key was there */
    size_t nglobs;
    bool conditional;
    rules_apply apply;
    char *description;  /* RULES_ON_REQUEST: what the rule is about */
    char *imported_by;  /* an `@path` import: the name of the file that imports it */
} rules_file;

typedef struct rules_set {
    rules_file *files;  /* in render order */
    size_t nfiles;
    char *cwd;
    char *global_dir;       /* the global folder used (absolute), for the header */
    bool clinerules_file;   /* .clinerules is a single file (not a folder) */
    char *clineignore;      /* the .clineignore text, or NULL (none, empty, or off) */
    char *notes;            /* "[hew: …]" lines about files not read (too many), or NULL */
    size_t max_total;
} rules_set;

#define RULES_SET_INIT { NULL, 0, NULL, NULL, false, NULL, NULL, 0 }

/* The global rules folder for o (o->global_dir, or from the environment); a new string
 * the caller frees, or NULL when neither XDG_CONFIG_HOME nor HOME is set. */
char *rules_global_dir(const rules_opts *o);

/* Read every enabled source for the workspace cwd (absolute). Missing files and folders
 * are not errors; unreadable ones are skipped. Errors: HEW_E_NOMEM only. */
hew_code rules_load(const char *cwd, const rules_opts *o, rules_set *out, hew_err *err);
void rules_set_release(rules_set *rs);


/* Append the rule blocks that apply (see above) to out, separated by blank lines; nothing
 * when none applies. Errors are out's sticky error. Does not include .clineignore
 * (prompt_build shows rs->clineignore in its own block). */
void rules_render(const rules_set *rs, const char *const *paths, size_t npaths, buf *out);

/* The file paths mentioned in a user message, for conditional rules: words that look like
 * paths (hold a '/' or end in a dotted extension; "@" mentions, quotes, backticks and
 * trailing punctuation stripped; URLs left out), at most cap, in order, without
 * duplicates. Each out[i] is a new string the caller frees. Returns the count. */
size_t rules_paths_in_text(const char *text, char **out, size_t cap);

#endif
