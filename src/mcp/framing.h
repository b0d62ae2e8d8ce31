/* framing — the stdio transport's message framing: one JSON-RPC message per line (MCP
 * stdio: newline-delimited, no Content-Length header). Bytes arrive in arbitrary pieces: a
 * message may be split across reads, several may come in one read. A line that does not
 * start (after blanks) with '{' or '[' is not a message (a server printing a banner on
 * stdout) and is reported as noise; a CR before the newline is dropped; blank lines are
 * skipped. A line longer than the cap is dropped whole (reported as noise with its first
 * bytes) and framing resumes after its newline. */
#ifndef HEW_MCP_FRAMING_H
#define HEW_MCP_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

#define MCP_LINE_MAX ((size_t)64 << 20) /* a message may carry a base64 image */

typedef struct mcp_lines {
    buf line;        /* the line being collected */
    bool skipping;   /* in an overlong line: dropping until its newline */
    size_t cap;
    void (*on_message)(void *ud, const char *json, size_t len);
    void (*on_noise)(void *ud, const char *text, size_t len);
    void *ud;
} mcp_lines;

/* cap 0: MCP_LINE_MAX. */
void mcp_lines_init(mcp_lines *l, size_t cap, void (*on_message)(void *, const char *, size_t),
                    void (*on_noise)(void *, const char *, size_t), void *ud);
void mcp_lines_release(mcp_lines *l);

/* Feed bytes; complete lines are delivered during the call. */
void mcp_lines_feed(mcp_lines *l, const char *data, size_t n);

/* The stream ended: a last line without a newline is delivered as if it had one. */
void mcp_lines_finish(mcp_lines *l);

#endif
