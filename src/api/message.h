/* message — hew's one conversation format, the API history every protocol's request
 * builder converts from. It is a jansson array of messages in the Anthropic Messages
 * shape, as Cline keeps it:
 *
 *   [{"role": "user" | "assistant", "content": [block, ...]}, ...]
 *
 * blocks:
 *   {"type":"text", "text"}
 *   {"type":"image", "source":{"type":"base64", "media_type", "data"}}
 *   {"type":"tool_use", "id", "name", "input": {object}}          (assistant)
 *       optional "thought_signature" (Gemini, echoed back on the functionCall part)
 *   {"type":"tool_result", "tool_use_id", "content": string | [text/image blocks],
 *    "is_error": bool}                                           (user)
 *   {"type":"thinking", "thinking", "signature"}                  (assistant)
 *       optional "hew_item_id"/"hew_encrypted" (Responses reasoning item),
 *       "hew_reasoning_details" (OpenRouter, sent back unchanged)
 *   {"type":"redacted_thinking", "data"}                          (assistant)
 * "content" may also be a plain string (read as one text block). Consecutive text blocks
 * read as one text: a long answer is kept as several of at most 1 MiB (api/turn.h), so
 * that it is never a second whole copy while it is made. Keys starting with
 * "hew_" are hew's own and never sent to Anthropic.
 *
 * The constructors build blocks with the right keys (strings copied; invalid UTF-8 is
 * repaired to U+FFFD, never sent raw); they return a NEW reference, or NULL when out of
 * memory. Arguments documented as "stolen" are consumed even on failure.
 * api_msg_validate checks a whole history before a request is built; builders may assume
 * a validated history. Nothing here does I/O. */
#ifndef HEW_API_MESSAGE_H
#define HEW_API_MESSAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

json_t *api_msg_text(const char *text, size_t len);
/* media_type: "image/png", "image/jpeg", "image/gif", "image/webp"; data: base64. */
json_t *api_msg_image(const char *media_type, const char *base64_data);
/* input is stolen (NULL means {}). */
json_t *api_msg_tool_use(const char *id, const char *name, json_t *input);
json_t *api_msg_tool_result(const char *tool_use_id, const char *content, bool is_error);
/* signature may be NULL (a thinking block that cannot be replayed to Anthropic). */
json_t *api_msg_thinking(const char *thinking, size_t len, const char *signature);
json_t *api_msg_redacted_thinking(const char *data);

/* {"role": role, "content": content} with content (an array of blocks) stolen. */
json_t *api_msg_new(const char *role, json_t *content);
/* A user message with one text block. */
json_t *api_msg_user_text(const char *text);

/* Check the history: an array of objects with role user/assistant and content a string
 * or an array of known blocks with their required keys and types; tool_use only in
 * assistant messages, tool_result and images only in user messages; every tool_result
 * answers a tool_use id of the nearest earlier assistant message, and tool_use ids are
 * unique. HEW_E_INVALID with the path of the first problem ("messages[3].content[1]:
 * tool_result for unknown tool_use_id \"toolu_x\""). */
hew_code api_msg_validate(const json_t *messages, hew_err *err);

/* The history for a request without native tools (XML tool mode, e.g. after a switch
 * from a model with native tools): every tool_use becomes the XML text a model writes for
 * it, every tool_result its text (images kept), so no provider sees tool blocks it was
 * given no tools for. The same history (a new reference) when it holds no tool blocks;
 * NULL when out of memory. */
json_t *api_msg_tools_as_text(const json_t *messages);

/* Helpers for builders: the blocks of a message's content (a string content becomes a
 * temporary one-block array: *tmp receives a reference to drop with json_decref; *tmp is
 * NULL otherwise). */
json_t *api_msg_blocks(const json_t *msg, json_t **tmp);
/* A block's type ("" if missing). */
const char *api_msg_block_type(const json_t *block);
/* A tool_result's content as one string (text blocks joined with "\n"; images become
 * "[image]"); a new malloc'd string, or NULL when out of memory. */
char *api_msg_tool_result_text(const json_t *block);

#endif
