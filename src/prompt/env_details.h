/* env_details — the <environment_details> block hew appends to every user message: what
 * the model should know about the moment that is not in the conversation. In order:
 *
 *   # Running Commands           every command still running (so that the model does
 *                                not start a server twice), with its output since the
 *                                last message when there is some
 *   # Finished Commands          commands that ended since the last message, with the
 *                                output they gave since then
 *   # Recently Modified Files    files changed outside hew since hew read them
 *   # Current Time               "Sunday 2025-06-01 14:03:09 (Europe/Paris, UTC+02:00)"
 *   # Current Working Directory (cwd) Files     first message of a task only: the
 *                                workspace listing (the list_files listing, 200 entries)
 *   # Context Window Usage       "12,345 / 200,000 tokens used (6%)"
 *   # Current Mode               ACT MODE, or PLAN MODE and what it means
 *
 * Empty sections are left out. env_details_build is pure (no clock, no file system): the
 * caller passes the time, the listing and the lists. It must never show more than the
 * caps below of a command's output (the most recent part is kept, and the cut is said). */
#ifndef HEW_PROMPT_ENV_DETAILS_H
#define HEW_PROMPT_ENV_DETAILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "tools/mode.h"

#define ENV_DETAILS_OUTPUT_MAX (16 * 1024) /* bytes of one command's new output */

typedef struct env_details_command {
    const char *command;    /* the command line as the model gave it */
    const char *output;     /* its output since the last message; NULL or "" for none */
    bool running;           /* still running; false: it ended since the last message */
    int exit_code;          /* when it ended: the exit status (-1: unknown / signal) */
} env_details_command;

typedef struct env_details {
    const char *cwd;
    mode_kind mode;              /* MODE_ACT (0) or MODE_PLAN */
    bool yolo;                   /* plan mode: hew switches to act by itself */
    bool strict_plan;            /* plan mode: edits are refused */
    bool ask_tool;               /* ask_followup_question is offered (not in yolo) */
    long long now_epoch_s;
    const char *tz_name;         /* shown with the time; NULL: env_details_tz_name() */
    bool first_turn;
    const char *listing;         /* first turn: the workspace listing; NULL: left out */
    const env_details_command *commands;
    size_t ncommands;
    const char *const *changed_files; /* relative to cwd */
    size_t nchanged;
    int64_t tokens_used;         /* tokens of the last request (input + output) */
    int64_t context_window;      /* 0: unknown (no usage line) */
} env_details;

/* Append the whole <environment_details>…</environment_details> block to out (errors are
 * out's sticky error). The time is shown in the process's local time zone. */
void env_details_build(const env_details *e, buf *out);

/* The workspace listing for the first message: the same listing list_files gives for
 * cwd, recursively, 200 entries at most (it runs the list_files tool of the tool table
 * with a silent, auto-approving environment). The file system root and the home
 * directory are not listed: a note says so. Appends to out. Errors: HEW_E_NOTFOUND when
 * the table has no list_files; the tool's own problems (a missing cwd) come back as
 * text in out, as the model would see them. */
hew_code env_details_listing(const char *cwd, buf *out, hew_err *err);

/* The name of the local time zone: $TZ when it names a zone ("Europe/Paris",
 * ":Europe/Paris"), else the zoneinfo name /etc/localtime links to, else the first line
 * of /etc/timezone, else the abbreviation ("CET"), else "UTC". Static storage, computed
 * once per process (thread-safe); a later change of $TZ is not seen. */
const char *env_details_tz_name(void);

/* "12,345": n with thousands separators, into out. */
void env_details_count(int64_t n, buf *out);

/* details (a block env_details_build made) with its Current Mode section made anew
 * from e (mode, yolo, ask_tool, strict_plan), the rest kept, appended to out; false (out
 * untouched) when details has no such section. */
bool env_details_remode(const char *details, const env_details *e, buf *out);

#endif
