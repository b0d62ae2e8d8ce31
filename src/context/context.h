/* context — keeping the conversation inside the model's context window, Cline's way: the
 * history itself is never shortened; a deleted range [2, end] (inclusive) grows over it,
 * the first user/assistant pair is always kept, the range always ends on an assistant
 * message, and the view sent to the model drops the range (and the tool results whose
 * tool_use was dropped with it). Before a cut, repeated reads of the same file are
 * collapsed (all but the latest replaced by a short note): these "rewrites" change what
 * the model sees of a block without touching the history either.
 *
 * Everything here is a pure function over the jansson history (api/message.h): nothing
 * is modified in place, nothing is stored, nothing is done behind the caller's back. The
 * task keeps the deleted range and the rewrites, persists them the moment they change
 * (store/: store_task_update STORE_SET_DELETED, store_rewrite_add), and hands them back
 * here to build each request's view.
 *
 * One turn, as the task uses it:
 *     context_plan p;
 *     context_plan_make(history, range, &rewrites, last_total_tokens, window, &p);
 *     for each p.rewrites: persist, then context_rewrites_add(&rewrites, ...);
 *     if (p.truncate) { persist p.range; range = p.range; }
 *     context_plan_release(&p);
 *     view = context_view_rw(history, range, &rewrites);
 * Not thread-safe per object; functions share no state. */
#ifndef HEW_CONTEXT_CONTEXT_H
#define HEW_CONTEXT_CONTEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef enum context_keep {
    CONTEXT_KEEP_NONE,     /* remove everything after the first pair */
    CONTEXT_KEEP_LAST_TWO, /* keep the last two messages */
    CONTEXT_KEEP_HALF,
    CONTEXT_KEEP_QUARTER
} context_keep;

/* A deleted range; has == false means none. */
typedef struct context_range {
    bool has;
    size_t start, end; /* inclusive */
} context_range;

/* The next range after cur (Cline's getNextTruncationRange): start 2; of the N messages
 * after the current range, remove N (none), N-2 (last two), floor(N/4)*2 (half) or
 * floor(N*3/4/2)*2 (quarter); the end moves back one when it would not land on an
 * assistant message. Returns cur unchanged when nothing can be removed. */
context_range context_next_range(const json_t *history, context_range cur, context_keep keep);

/* The messages the model sees: the task message, the first answer replaced by the
 * truncation note (its tool calls lost their results with the range), then everything
 * after the range; tool_result blocks in the first kept message whose tool_use was removed
 * are dropped (a message left empty gets the note instead). Without a range: the history
 * as is. New reference. */
json_t *context_view(const json_t *history, context_range range);

/* How many messages the view holds. */
size_t context_view_count(const json_t *history, context_range range);

/* The usable part of a window (Cline's maxAllowedSize): 64k → 37k, 128k → 98k,
 * 200k → 160k, else max(window − 40k, 0.8·window). An unknown window (<= 0) is taken as
 * 128k, as Cline does. */
int64_t context_max_allowed(int64_t context_window);

/* The note added for the model when older messages were removed. */
extern const char CONTEXT_TRUNCATION_NOTE[];

/* ---- the trigger ------------------------------------------------------------------------ */

/* The size of the last request as Cline measures it: tokens in + out + cache reads +
 * cache writes, from the provider's usage (negative = unknown = 0). */
int64_t context_usage_total(int64_t tokens_in, int64_t tokens_out, int64_t cache_reads,
                            int64_t cache_writes);

/* Cut before the next request: total >= context_max_allowed(window). */
bool context_over(int64_t total, int64_t context_window);

/* How much to keep when cutting: a quarter when even half would not fit
 * (total / 2 > max allowed: a switch to a smaller model), else half. */
context_keep context_keep_for(int64_t total, int64_t context_window);

/* ---- rewrites ------------------------------------------------------------------------------
 * A rewrite says: block `block` of history message `msg` reads `text` from now on. For a
 * text block the text is replaced; for a tool_result block the content becomes that
 * string (tool_use_id and is_error kept); a message whose content is a plain string has
 * one block, 0. Rewrites of other block kinds, or of blocks that do not exist, are
 * ignored. Later rewrites of the same block win. The list owns its strings. */

typedef struct context_rewrite {
    size_t msg, block;
    char *text;
} context_rewrite;

typedef struct context_rewrites {
    context_rewrite *items;
    size_t len, cap;
} context_rewrites;

#define CONTEXT_REWRITES_INIT { NULL, 0, 0 }

void context_rewrites_release(context_rewrites *rw);

/* Append a rewrite (text copied). HEW_E_NOMEM leaves rw as it was. */
hew_code context_rewrites_add(context_rewrites *rw, size_t msg, size_t block, const char *text);

/* Append all of src to dst, in order. */
hew_code context_rewrites_append(context_rewrites *dst, const context_rewrites *src);

/* The text of the latest rewrite of (msg, block), or NULL. Borrowed. */
const char *context_rewrites_find(const context_rewrites *rw, size_t msg, size_t block);

/* Forget the rewrites of messages >= msg (the history was cut back). */
void context_rewrites_drop_from(context_rewrites *rw, size_t msg);

/* Append the rewrites of a JSON array of {"msg", "block", "text"} (store_loaded.rewrites).
 * HEW_E_INVALID (naming the entry) when one is malformed; nothing is added then. */
hew_code context_rewrites_from_json(context_rewrites *rw, const json_t *arr, hew_err *err);

/* The view with rewrites applied to the messages it shows (rw may be NULL: context_view). */
json_t *context_view_rw(const json_t *history, context_range range, const context_rewrites *rw);

/* ---- the file-read collapse (Cline's file-read dedup, cline-spec §6.3) --------------------
 * Looks at the messages the model still sees after the first pair: from range.end + 1
 * (or 2). A "view" of a file is
 *   - a read result: a text block or tool_result whose text starts with
 *     "[TOOL for 'PATH'] Result:" (task/executor.c's header) for a TOOL the caller's
 *     context_result_fn calls CONTEXT_RESULT_READ (hew: read_file); the rewrite keeps the
 *     header line and replaces the rest with CONTEXT_DUPLICATE_READ_NOTE;
 *   - the <final_file_content path="…">…</final_file_content> of an edit's result (same
 *     header rule, a TOOL it calls CONTEXT_RESULT_EDIT: write_to_file, replace_in_file);
 *     its body becomes " NOTE ";
 *   - a <file_content path="P">…</file_content> mention in any other user text block;
 *     its body becomes the note.
 * Results marked is_error are not views. Paths are compared after lexical normalisation
 * (./a//b = a/b). A view is collapsed when a later view of the same file covers it: a
 * later whole view (a whole read, a write's final content, a mention), or a later read of
 * the same line window (hew's read_file reads windows, which Cline's did not: a read of
 * lines 1-100 does not hide an earlier read of lines 200-300). Views already collapsed
 * (by existing rewrites) are skipped, so running it again adds nothing; a view whose
 * note would not be shorter than it is left alone.
 *
 * Savings: characters saved by the new rewrites over the characters the model sees of
 * the kept messages (the first pair and everything after the range, existing rewrites
 * applied): text, thinking, tool results, image data (base64 length) and tool_use
 * inputs (their string values) count, in bytes. */

extern const char CONTEXT_DUPLICATE_READ_NOTE[];

/* What a tool's results are to the collapse, asked by the tool's name (the len bytes at
 * name, not NUL-terminated). The caller answers from what its tools are (task/: the
 * registry's flags, tools/tool.h); context itself knows no tool by its name. */
typedef enum context_result_kind {
    CONTEXT_RESULT_OTHER, /* not a view of a file */
    CONTEXT_RESULT_READ,  /* after the header line, the content of the file PATH */
    CONTEXT_RESULT_EDIT,  /* holds the edited file's <final_file_content> */
} context_result_kind;

typedef context_result_kind (*context_result_fn)(const char *name, size_t len);

/* The collapse: *out gets the new rewrites (appended; each holds the whole new text of a
 * block), *ratio (may be NULL) the savings ratio (0 when nothing is saved). existing may
 * be NULL; kinds may be NULL (no tool result is a view: only mentions are). HEW_E_NOMEM. */
hew_code context_collapse_reads(const json_t *history, context_range range,
                                const context_rewrites *existing, context_result_fn kinds,
                                context_rewrites *out, double *ratio);

/* Truncation is skipped when the collapse saves at least this much (Cline: 30 %). */
#define CONTEXT_COLLAPSE_ENOUGH 0.30

/* ---- the decision (Cline's getNewContextMessagesAndMetadata, without auto-condense) --------
 * When the last request's total reached the window's usable part: collapse repeated
 * reads first; if that saves less than 30 %, also cut (context_next_range with
 * context_keep_for). Nothing happens below the threshold. */
typedef struct context_plan {
    bool over;                 /* the threshold was reached */
    context_keep keep;         /* when over: half or quarter */
    context_rewrites rewrites; /* new rewrites to persist and add (may be empty) */
    double savings;            /* their savings ratio */
    bool truncate;             /* cut: range is the new deleted range */
    context_range range;       /* the deleted range after the plan (== cur when no cut, or
                                  when nothing more can be cut) */
} context_plan;

hew_code context_plan_make(const json_t *history, context_range cur,
                           const context_rewrites *existing, context_result_fn kinds,
                           int64_t last_total_tokens, int64_t context_window,
                           context_plan *out);
void context_plan_release(context_plan *p);

#endif
