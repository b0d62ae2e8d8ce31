/* http_url — the URL arithmetic of the MCP HTTP transports (transport_http.c): resolving
 * the legacy HTTP+SSE "endpoint" event (a URL reference relative to the event stream's
 * URL, RFC 3986 §5.2), checking that it stays on the stream's origin (a server must not
 * send our headers, which may carry credentials, to another host), and a form of a URL that
 * is safe to show (no user info, no query: both may hold keys).
 *
 * Pure string functions: no I/O, no allocation except the result. Only http:// and
 * https:// bases are accepted. */
#ifndef HEW_MCP_HTTP_URL_H
#define HEW_MCP_HTTP_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Resolve ref against the absolute URL base: an absolute URL ("https://h/p"), a
 * network-path ("//h/p"), an absolute path ("/messages?sessionId=1"), a query ("?x=1") or
 * a relative path ("messages", "../rpc"); dot segments are removed and a fragment is
 * dropped. Surrounding white space of ref is ignored. On success *out is a new string
 * the caller frees. HEW_E_INVALID when base is not an http(s) URL or ref is empty or
 * holds control characters or spaces; HEW_E_NOMEM. */
hew_code mcp_http_url_resolve(const char *base, const char *ref, char **out, hew_err *err);

/* True when a and b have the same scheme, host and port (case-insensitive; an omitted
 * port is the scheme's default; user info is ignored). */
bool mcp_http_url_same_origin(const char *a, const char *b);

/* Copy url into out (cap bytes, always NUL-terminated) without user info, query and
 * fragment: "https://user:key@h/mcp?token=x" shows as "https://h/mcp". */
void mcp_http_url_display(const char *url, char *out, size_t cap);

#endif
