/* text_clean — what the user sees of a text block (seed 000, "thinking tag strip" and
 * "partial tag trim"): <thinking>, <think> and <function_calls> tags removed with one
 * adjacent white-space character; while the block grows, a tag still being written at the
 * end (`<thin`, `</`) cut off together with the white space around; when final, a trailing
 * code-fence language tag (```bash) left by the model removed. Pure function. */
#ifndef HEW_TASK_TEXT_CLEAN_H
#define HEW_TASK_TEXT_CLEAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Append the cleaned form of s[0..n) to out. */
void text_clean(const char *s, size_t n, bool partial, buf *out);

#endif
