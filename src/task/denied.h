/* denied — an action refused for want of approval, described for the user who reads why
 * a headless run did not do it: what it was (the tool, the path, the command, the MCP
 * server and tool) and what would have allowed it (the auto-approve words, and for a
 * command the narrowest allow rule that lets it run, checked with the command policy
 * itself). The words are hew_options' approvals as `--auto-approve` and the config file
 * name them; turning them into a flag is the front end's business. Never says anything,
 * never touches a task, never approves anything. */
#ifndef HEW_TASK_DENIED_H
#define HEW_TASK_DENIED_H

#include <jansson.h>
#include <stdbool.h>

#include "task/settings.h"

/* The entry of hew_task_outcome's denied list (include/hew.h) for an approval that was
 * refused: group and outside as tool_env.approve got them (NULL group: an ask that only
 * yolo skips, such as new_task), type the ask's type, data its data (borrowed), tool the
 * tool that asked (may be NULL). A new object, NULL when memory runs out. Group
 * "sandbox" (a command refused a run without the sandbox) gets no auto-approve word
 * ("allow": []) but "sandbox": "danger-full-access", the mode that would have run it. */
json_t *denied_entry(const task_settings *s, const char *group, bool outside, const char *type,
                     const json_t *data, const char *tool);

/* The allow rule that would let command run without asking under "commands": the program,
 * its options and its first other argument ("npm test", "make clean", "rm -rf build"), as
 * a prefix rule (cmdpolicy.h: it also matches the same with more arguments), and only
 * when every one of those words is plain (no quotes, globs or shell syntax), none names a
 * place outside the workspace (/, ~, ..), and the command policy then judges the whole
 * line safe with the user's rules — false when no such rule exists (a line of several
 * programs, a redirection, a path outside): nothing short of all-commands allows it. */
bool denied_command_rule(const task_settings *s, const char *command, char *rule, size_t n);

#endif
