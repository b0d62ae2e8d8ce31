/* frontmatter — the YAML front matter at the top of a rule file, read only as far as the
 * rules need: the `paths:` key (a list of globs that makes the rule conditional). It is
 * not a YAML parser and must never pretend to be one: every other key is skipped, and
 * anything it cannot read with certainty is reported as invalid, so that the caller
 * includes the rule as it is (Cline does the same with front matter it cannot parse).
 *
 * Accepted form (a UTF-8 byte order mark before the first line is skipped):
 *
 *     ---                          first line, exactly (trailing blanks allowed)
 *     description: anything        other keys: `name: value`, skipped with any indented
 *     paths:                       lines below them
 *       - "*.c"                    block list: one `- item` per line
 *       - docs/index.md
 *     ---                          closing line, exactly
 *
 * or `paths: [Makefile, "*.mk"]` (inline list), or `paths: "*.py"` (one glob).
 *
 * Cursor's rule files (.mdc) say the same with other keys, which are read too:
 * `globs:` (a list like `paths:`, or one plain value of comma-separated globs, which may
 * start with `*` — `globs: *.ts, *.tsx` — though YAML would take that for an alias),
 * `alwaysApply: true|false`, and `description:` (a plain or quoted one-line value, or a
 * block scalar — `description: >` or `|` with indented lines below — read folded into one
 * line). Agent Skills (SKILL.md) add `name:` (a plain or quoted one-line value).  Items may
 * be plain, 'single-quoted' ('' is a quote) or "double-quoted" (\" and \\ escapes); a
 * ` #` starts a comment after a plain item. Blank lines and `#` comment lines are
 * skipped. `paths:` with nothing after it is the same as no `paths:` key (the rule is
 * not conditional); `paths: []` is an empty list (the rule never applies).
 *
 * Invalid (HEW_E_INVALID): an opening line without a closing one, a line at the left
 * margin that is neither `key:` nor a list item, a list item outside a key, a tab used
 * for indentation, an unbalanced inline list or quote, a key given twice. */
#ifndef HEW_PROMPT_FRONTMATTER_H
#define HEW_PROMPT_FRONTMATTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef struct frontmatter {
    bool present;   /* the text opens with a front matter block */
    bool has_paths; /* it has a `paths:` or `globs:` list (possibly empty) */
    char **paths;   /* the globs, each a new string owned by the struct */
    size_t npaths;
    size_t body;    /* offset of the first byte after the block (0 when not present) */
    int always_apply;  /* `alwaysApply:` 1 true, 0 false, -1 not given */
    char *description; /* `description:`, or NULL */
    char *name;        /* `name:`, or NULL */
} frontmatter;

#define FRONTMATTER_INIT { false, false, NULL, 0, 0, -1, NULL, NULL }

/* Read the front matter of text[0..len). HEW_OK: *fm is filled (present false when the
 * text does not start with "---"). HEW_E_INVALID: the block is malformed (err says
 * where); *fm is left empty. HEW_E_NOMEM. */
hew_code frontmatter_parse(const char *text, size_t len, frontmatter *fm, hew_err *err);

/* Free the globs and strings; fm can be reused after. */
void frontmatter_release(frontmatter *fm);

#endif
