/* slash — slash commands in a user message: built-in commands rewrite the message into
 * explicit instructions for the model (call new_task, call condense, write a rule file,
 * help report a bug); any other `/NAME` runs a workflow file, whose content is put in
 * front of the rest of the message. It must never run anything, never read outside the
 * two workflow folders, and never change a message that has no command it knows (unknown
 * commands are left alone, so "/usr/bin is empty" stays what it is).
 *
 * Where a command counts: only the first `/word` at the start of the message (after
 * blanks), or at the start of the content of the first <task>, <feedback>, <answer> or
 * <user_message> tag whose content starts with one (the tags are tried in that order, as
 * Cline does). The word is [A-Za-z0-9_.-]+ and must be followed by a blank, the end of
 * the text, or the tag's closing tag. Names are case-sensitive.
 *
 * Built-ins: newtask, smol, compact (= smol), newrule, reportbug. They win over a
 * workflow file of the same name. The rewritten text is
 *     <explicit_instructions type="KIND">…</explicit_instructions>\n + the message with
 * the command (and the blanks before it) taken out.
 *
 * Workflows: `/NAME` finds, in this order, .clinerules/workflows/NAME, then NAME.md
 * there, then the same in the global folder ($XDG_CONFIG_HOME/hew/workflows/, default
 * ~/.config/hew/workflows/). The file (at most SLASH_WORKFLOW_MAX bytes; a longer one is
 * cut with a note) becomes
 *     <explicit_instructions type="FILE_NAME">\n<content>\n</explicit_instructions>\n
 * followed by the message without the command. */
#ifndef HEW_PROMPT_SLASH_H
#define HEW_PROMPT_SLASH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define SLASH_WORKFLOW_MAX (64 * 1024)

typedef struct slash_opts {
    const char *cwd;              /* the workspace (absolute) */
    bool workflows;               /* look for workflow files (default true) */
    const char *global_dir;       /* NULL: $XDG_CONFIG_HOME/hew/workflows or
                                     ~/.config/hew/workflows */
    const char *const *disabled;  /* workflow files turned off: absolute paths,
                                     NULL-terminated; may be NULL */
    bool xml_tools;               /* tools are called as XML: built-ins show a usage
                                     example (default false: native tool calls) */
} slash_opts;

slash_opts slash_defaults(const char *cwd);

typedef enum slash_kind { SLASH_NONE, SLASH_BUILTIN, SLASH_WORKFLOW } slash_kind;

typedef struct slash_result {
    slash_kind kind;
    char *command;   /* the name typed, without '/' (new string); NULL for SLASH_NONE */
    char *path;      /* the workflow file read (new string), or NULL */
    char *text;      /* the rewritten message (new string); NULL for SLASH_NONE: use the
                        message as it was */
    bool newrule;    /* /newrule: the caller should make sure .clinerules is a folder */
} slash_result;

#define SLASH_RESULT_INIT { SLASH_NONE, NULL, NULL, NULL, false }

/* Rewrite text for the slash command it starts with, if any (see above). HEW_OK with
 * kind SLASH_NONE when there is none. Errors: HEW_E_NOMEM. A workflow file that cannot
 * be read is taken as absent. */
hew_code slash_rewrite(const char *text, const slash_opts *o, slash_result *out, hew_err *err);
void slash_result_release(slash_result *r);

/* True when `/name` (name without the slash) is a command slash_rewrite would act on: a
 * built-in or a workflow file found for o. */
bool slash_known(const slash_opts *o, const char *name);


/* The global workflow folder for o (o->global_dir or from the environment): a new string
 * the caller frees, or NULL when neither XDG_CONFIG_HOME nor HOME is set. */
char *slash_global_dir(const slash_opts *o);

#endif
