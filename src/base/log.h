/* log — hew's diagnostic log: one file in hew's state directory
 * ($XDG_STATE_HOME/hew/hew.log, default ~/.local/state/hew/hew.log), every line passed
 * through the redactor (base/redact.h). It must never print to the terminal, never crash
 * or fail its caller (logging is best effort: before log_open/log_open_lazy, or after an
 * open failed, hew_log does nothing), never change errno, and never write a secret it can
 * recognise.
 *
 * Line format (one write(2) per line, so concurrent lines never interleave):
 *   2025-01-31T12:00:00.123Z INFO  net: message
 * The time is UTC. Newlines, carriage returns and other control characters in the message
 * are escaped (\n, \r, \xNN) and invalid UTF-8 is replaced by U+FFFD, so one call is
 * always one line and the log cannot carry terminal escape sequences. A message longer than
 * LOG_LINE_MAX bytes is cut at a character boundary and says how much was cut.
 *
 * Rotation: when a line would take the file past LOG_ROTATE_BYTES, hew.log becomes
 * hew.log.1 (hew.log.1 becomes .2, …, up to hew.log.LOG_KEEP; the oldest is dropped) and a
 * new hew.log is started.
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
#define LOG_ROTATE_BYTES (5LL * 1024 * 1024) /* hew.log's size before it is rotated */
#define LOG_KEEP 3                         /* rotated files kept: hew.log.1 … .3 */

/* Open (create) <dir>/hew.log for appending; dir NULL means the default state directory
 * (log_default_dir). Missing directories are created 0700, the file 0600 (an existing
 * file readable by others is tightened to 0600). The minimum level comes from the
 * environment variable HEW_LOG (error|warn|info|debug, case-insensitive; default info).
 * Opening again closes the previous file first. On failure logging is off and err says
 * why (the caller may show it once; hew works without a log). */
hew_code log_open(const char *dir, hew_err *err);

/* Like log_open, but nothing is touched until the first line that is written (so a
 * command that logs nothing costs nothing): the folder and the file are made then; when
 * that fails, logging is off. HEW_LOG is read now. Errors: only a location that cannot
 * be named (no HOME, a path too long). */
hew_code log_open_lazy(const char *dir, hew_err *err);

/* Close the log file; later hew_log calls do nothing. Safe to call when not open. */
void log_close(void);

/* The default log directory: $HEW_DATA_DIR/log when HEW_DATA_DIR is set (everything hew
 * writes then lives under that one folder: sys/datadir.h), else $XDG_STATE_HOME/hew when
 * XDG_STATE_HOME is an absolute path, else $HOME/.local/state/hew. *out is a new string
 * the caller frees. HEW_E_NOTFOUND when no variable is usable. */
hew_code log_default_dir(char **out, hew_err *err);

/* The path of the log file (open, or to be opened at the first line), copied into dst
 * (cap bytes); false when logging is off. */
bool log_file_path(char *dst, size_t cap);

/* Rotate at this many bytes instead of LOG_ROTATE_BYTES (tests; <= 0 restores it). */
void log_set_rotate_bytes(long long bytes);

/* Change the minimum level at run time (after log_open, which reads HEW_LOG). */
void log_set_level(log_level level);

/* True when a line at level would be written (skip building expensive messages). */
bool log_enabled(log_level level);

/* Log one line at level from part ("net", "task", ...; NULL gives "hew"). */
void hew_log(log_level level, const char *part, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void hew_logv(log_level level, const char *part, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
