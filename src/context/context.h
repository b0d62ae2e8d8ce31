/* context — keeping the conversation inside the model's context window, Cline's way: the
 * history itself is never shortened; a deleted range [2, end] (inclusive) grows over it,
 * the first user/assistant pair is always kept, the range always ends on an assistant
 * message, and the view sent to the model drops the range (and the tool results whose
 * tool_use was dropped with it). Pure functions over the jansson history (api/message.h);
 * the task persists the range. The token-driven trigger, read dedup and condensing join
 * in the context issue. */
#ifndef HEW_CONTEXT_CONTEXT_H
#define HEW_CONTEXT_CONTEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * 200k → 160k, else max(window − 40k, 0.8·window). */
int64_t context_max_allowed(int64_t context_window);

/* The note added for the model when older messages were removed. */
extern const char CONTEXT_TRUNCATION_NOTE[];

#endif
