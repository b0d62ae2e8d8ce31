/* block — the blocks of one assistant message (text, tool_use, reasoning) and the list
 * that holds them, as the parser builds them and the agent loop reads them. It must never
 * remove, move or re-create a block: the list only grows.
 *
 * Invariants (what a reader may rely on):
 *   - a block keeps its index and its address for the life of the list;
 *   - while partial, a block may still change: a text or reasoning block only grows (its
 *     content so far is always a prefix of its final content); a tool_use block may gain
 *     parameters and its values grow, except that a repeated parameter starts over and
 *     write_to_file's content can be replaced at the end (see parse/xmlcall.h);
 *   - partial goes from true to false exactly once, and a complete block never changes
 *     (but for parser_drop_text and parser_release_text, which its reader asks for);
 *   - every change to block i sets its seq to a new, larger value of the list's counter
 *     and lowers the list's dirty mark to at most i.
 * So a reader that remembers blocklist_seq() (or calls blocklist_clean()) finds what
 * changed by looking at blocks from blocklist_dirty_from() on, or at seq values.
 *
 * Not thread-safe: the owner (the task) guards the list and its parser with its mutex.
 * Ownership: the list owns its blocks and everything in them; strings handed out are
 * borrowed until the next change of that block. */
#ifndef HEW_PARSE_BLOCK_H
#define HEW_PARSE_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "parse/tval.h"

typedef enum block_type { BLOCK_TEXT, BLOCK_TOOL_USE, BLOCK_REASONING } block_type;

typedef struct block_param {
    char *name;    /* NUL-terminated, owned */
    tval *val;     /* owned; what block_param_value shows */
    tval *shadow;  /* owned, internal to the XML parser (write_to_file content), or NULL */
    bool obs;      /* val is driven by the write_to_file rule, not by the tag scanner */
} block_param;

typedef struct block {
    block_type type;
    bool partial;
    bool native;          /* tool_use from a native tool call */
    size_t index;
    uint64_t seq;
    tval content;         /* text, reasoning */
    char *name;           /* tool_use */
    char *id;             /* tool_use: the provider's call id (native), NULL for XML */
    block_param *params;  /* tool_use, in order of first appearance */
    size_t nparams, capparams;
    char *args_error;     /* native tool_use whose arguments were invalid: a message for
                             the model; NULL when fine */
    buf args;             /* native tool_use: the raw arguments text as received */
} block;

typedef struct blocklist {
    block **v;
    size_t n, cap;
    uint64_t seq;
    size_t dirty_from;
    size_t max_bytes;     /* cap handed to every buffer of every block */
} blocklist;

void blocklist_init(blocklist *l, size_t max_bytes);
void blocklist_release(blocklist *l);

/* Append a new block (partial, empty); NULL when out of memory. */
block *blocklist_add(blocklist *l, block_type type);

/* Record that b changed (new seq, dirty mark). */
void blocklist_touch(blocklist *l, block *b);

/* Mark b complete (partial -> false) once; later calls do nothing. */
void blocklist_complete(blocklist *l, block *b);

/* The lowest index changed since the last blocklist_clean (n when none). */
size_t blocklist_dirty_from(const blocklist *l);
void blocklist_clean(blocklist *l);

/* ---- tool_use parameters ----------------------------------------------------------- */


/* Find or append the parameter; a new one gets an empty value of the given mode. NULL when
 * out of memory. */
block_param *block_param_get(block *b, const char *name, size_t len, enum tval_mode mode,
                             size_t max_bytes);

/* Append a parameter without looking for an existing one (the caller knows it is new). */
block_param *block_param_add(block *b, const char *name, size_t len, enum tval_mode mode,
                             size_t max_bytes);

/* Drop every parameter. */
void block_params_clear(block *b);

/* ---- reading (what the agent loop uses) ------------------------------------------------ */

/* Content of a text or reasoning block (never NULL; "" when empty), *len its length —
 * what is left of it when its reader dropped its start (parser_drop_text). */
const char *block_text(const block *b, size_t *len);
/* The same, and *from the position in the whole content where what is left starts. */
const char *block_text_from(const block *b, size_t *from, size_t *len);

/* Parameter i of a tool_use block: name, and value (never NULL) with its length. */
const char *block_param_name(const block *b, size_t i);
const char *block_param_value(const block *b, size_t i, size_t *len);

/* Value of the parameter called name, or NULL when the block has none. */
const char *block_param_lookup(const block *b, const char *name, size_t *len);


#endif
