/* url — the URLs hew decides things about, parsed by libcurl's URL API (curl_url_set /
 * curl_url_get, loaded with the rest of libcurl by net/curl_lib.c), and the one form of a
 * URL that is safe to show in a message.
 *
 * Why curl's parser: a URL that hew checks (is this endpoint on the server's origin?) is
 * then fetched by curl. Checking it with a parser of our own invites a differential — a
 * string our parser reads as one host and curl as another (`https:evil.com`,
 * `//evil.com`, `https://a\@b/`). Resolving and comparing with the parser that fetches
 * makes the checked URL the fetched URL: url_resolve hands out curl's own normalised
 * form, and that is what the caller requests.
 *
 * It must never: decide on a URL by string matching (only url_has_http_scheme, which only
 * says what the text starts with, and url_redact, which only hides); let user info, a query
 * or a fragment (where keys live) reach a message through url_redact; accept a result that
 * is not http:// or https:// with a host.
 *
 * Thread-safe (a CURLU handle per call). Every function that parses loads libcurl on first
 * use (curl_lib_get): call them where a request is about to be made anyway, never on a
 * path that must stay quick without the network (reading configuration, `hew --version`). */
#ifndef HEW_NET_URL_H
#define HEW_NET_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Resolve ref against the absolute http(s) URL base as libcurl does (RFC 3986 §5.2 with
 * curl's reading of the odd cases): an absolute URL ("https://h/p"), a network-path
 * ("//h/p"), an absolute path ("/messages?sessionId=1"), a query ("?x=1"), a relative path
 * ("messages", "../rpc"); dot segments are removed and a fragment is dropped (a ref that
 * is only a fragment gives the base). Surrounding white space of ref is ignored. A scheme
 * without slashes ("https:evil.com") is not a URL curl takes: refused, as is anything
 * else curl refuses. On success *out is curl's normalised form (percent-encoding as curl
 * writes it), a new string the caller frees with free(). HEW_E_INVALID when base is not
 * an http(s) URL with a host, when ref is empty or holds spaces or control characters,
 * when curl refuses ref, or when the result is not http(s) with a host; HEW_E_NOMEM; the
 * error of curl_lib_get when libcurl cannot be loaded. Messages show URLs only through
 * url_redact. */
hew_code url_resolve(const char *base, const char *ref, char **out, hew_err *err);

/* HEW_OK when url is an http:// or https:// URL with a host that curl accepts; else
 * HEW_E_INVALID saying why (or curl_lib_get's error). */
hew_code url_check_http(const char *url, hew_err *err);

/* True when a and b have the same scheme, host, port and IPv6 zone as curl reads them
 * (the host compared without regard to ASCII case; an omitted port is the scheme's
 * default; user info, path and query do not count). False when either is not an http(s)
 * URL curl accepts, or libcurl cannot be loaded. */
bool url_same_origin(const char *a, const char *b);

/* True when url starts with "http://" or "https://" (any case). Only a first look for
 * readers of configuration that must not load libcurl; url_check_http is the check. */
bool url_has_http_scheme(const char *url);

/* The one URL redactor. Copy url into out (cap bytes, always NUL-terminated, cut when
 * longer) as "scheme://host:port/path": user info, query and fragment left out
 * ("https://user:key@h:8/mcp?token=x#f" shows as "https://h:8/mcp"). A pure string
 * function that works on any text, also one curl refuses (a malformed base URL in an error
 * message) and without libcurl. When unsure it hides more: user info ends at the last '@'
 * before the first '/' after the authority begins, so an unencoded '#', '?' or '/'-free
 * password never shows; a URL without a scheme is read as starting with its authority
 * ("user:pw@h/x" shows as "h/x"). */
void url_redact(const char *url, char *out, size_t cap);

#endif
