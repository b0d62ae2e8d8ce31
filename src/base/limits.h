/* limits — the size limits that two layers must agree on, in one place, each derived from
 * the one it serves. Header-only constants; it must never hold a limit only one module
 * uses (that one lives in its module's header).
 *
 * The chain: the largest file content a tool writes or edits (LIMITS_TOOL_CONTENT) decides
 * how long one line of a provider's stream may be (LIMITS_STREAM_LINE), because a native
 * tool call can arrive whole in one SSE line — Gemini sends every functionCall that way,
 * and so do some OpenAI-compatible servers (Ollama) with their tool_calls. A cap below
 * what a tool accepts makes a big write_to_file fail in the stream even though the tool
 * would take it. */
#ifndef HEW_BASE_LIMITS_H
#define HEW_BASE_LIMITS_H

#include <stddef.h>

/* The largest file content write_to_file / replace_in_file read or write (bytes). */
#define LIMITS_TOOL_CONTENT ((size_t)20 * 1000 * 1024)

/* The longest line (and the largest event) of a provider's SSE stream: a tool call whose
 * content is LIMITS_TOOL_CONTENT bytes, JSON-escaped at up to two bytes a byte (each
 * newline, tab, quote and backslash doubles), plus 1 MiB for the envelope around it (the
 * other arguments, ids, usage, a thought signature). About 40 MiB: the most one line can
 * make the stream decoder hold; a longer line is an error, never more memory. */
#define LIMITS_STREAM_LINE (LIMITS_TOOL_CONTENT * 2 + ((size_t)1 << 20))

#endif
