/* log — hew's diagnostic log: one file in hew's state directory
 * ($XDG_STATE_HOME/hew/hew.log, default ~/.local/state/hew/hew.log), and the redaction of
 * secrets that every logged line passes through. It must never print to the terminal,
 * never crash or fail its caller (logging is best effort: before log_open, or after it
 * failed, hew_log does nothing), never change errno, and never write a secret it can
 * recognise: API keys, tokens and passwords are replaced by "[REDACTED]".
 *
 * Line format (one write(2) per line, so concurrent lines never interleave):
 *   2025-01-31T12:00:00.123Z INFO  net: message
 * The time is UTC. Newlines, carriage returns and other control characters in the message
 * are escaped (\n, \r, \xNN) and invalid UTF-8 is replaced by U+FFFD, so one call is
 * always one line and the log cannot carry terminal escape sequences. A message longer than
 * LOG_LINE_MAX bytes is cut at a character boundary and says how much was cut.
 *
 * Thread-safe: any thread may call hew_log at any time; log_open/log_close may race with
 * hew_log but not with each other. */
#ifndef HEW_BASE_LOG_H
#define HEW_BASE_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

typedef enum log_level {
    HEW_LOG_ERROR = 0,
    HEW_LOG_WARN,
    HEW_LOG_INFO,
    HEW_LOG_DEBUG
} log_level;

#define LOG_LINE_MAX ((size_t)16 * 1024) /* bytes of message per line before cutting */

/* Open (create) <dir>/hew.log for appending; dir NULL means the default state directory
 * (log_default_dir). Missing directories are created 0700, the file 0600 (an existing
 * file readable by others is tightened to 0600). The minimum level comes from the
 * environment variable HEW_LOG (error|warn|info|debug, case-insensitive; default info).
 * Opening again closes the previous file first. On failure logging is off and err says
 * why (the caller may show it once; hew works without a log). */
hew_code log_open(const char *dir, hew_err *err);

/* Close the log file; later hew_log calls do nothing. Safe to call when not open. */
void log_close(void);

/* The default log directory: $XDG_STATE_HOME/hew when XDG_STATE_HOME is an absolute path,
 * else $HOME/.local/state/hew. *out is a new string the caller frees. HEW_E_NOTFOUND when
 * neither variable is usable. */
hew_code log_default_dir(char **out, hew_err *err);

/* The path of the open log file, copied into dst (cap bytes); false when not open. */
bool log_file_path(char *dst, size_t cap);

/* Change the minimum level at run time (after log_open, which reads HEW_LOG). */
void log_set_level(log_level level);

/* True when a line at level would be written (skip building expensive messages). */
bool log_enabled(log_level level);

/* Log one line at level from part ("net", "task", ...; NULL gives "hew"). */
void hew_log(log_level level, const char *part, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void hew_logv(log_level level, const char *part, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Append in[0..n) to out with secrets replaced by "[REDACTED]". Recognised, all
 * case-insensitive:
 *   - header lines "Name: value" for Authorization, Proxy-Authorization, x-api-key,
 *     x-goog-api-key, api-key: the value up to the end of the line (or a '"' or '\'),
 *     keeping the scheme word of the two authorization headers ("Bearer [REDACTED]");
 *   - URL query parameters key=, api_key=, apikey=, access_token=, token= (after '?' or
 *     '&'): the value up to '&', '#', a quote, '<', '>', '\' or white space;
 *   - the password of "scheme://user:password@host" ("user:[REDACTED]@");
 *   - JSON string fields (also when the JSON is itself inside a JSON string, \"...\")
 *     named api_key, apiKey, api-key, x-api-key, x-goog-api-key, authorization,
 *     proxy-authorization, access_token, refresh_token, client_secret, password: the
 *     string's content ("Bearer [REDACTED]" for the authorization ones).
 * Everything else is copied unchanged. Errors are out's sticky error. */
void log_redact(const char *in, size_t n, buf *out);

/* True when a header of this name carries a secret (the header list above). */
bool log_header_is_secret(const char *name);

/* Append the value to show for header name: value itself, or its masked form when the
 * header is secret ("Bearer [REDACTED]" for Authorization, "[REDACTED]" otherwise). For
 * request recorders and HTTP debug output. */
void log_redact_header(const char *name, const char *value, buf *out);

#endif
