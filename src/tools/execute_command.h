/* execute_command — the command tool's knobs and its background commands, for the parts of
 * hew outside the tool table: the limits (one place, settable before tasks start), the
 * "long command" rule, and the commands a user let go on in the background ("Proceed
 * While Running"), which belong to the task (its tool_env) and must be stopped when the
 * task ends. The tool itself is `tool_execute_command` in the registry.
 *
 * What the tool does (the manual for the model-facing behaviour):
 *   - runs `$SHELL -c COMMAND` (/bin/sh when SHELL is unset or not executable) in the
 *     workspace through sys/proc.h: its own process group, stdin /dev/null, pagers off,
 *     no API keys in the environment;
 *   - hew judges the command itself (tools/cmdpolicy.h) with the user's allow and deny
 *     rules (env->command_allow, command_deny): a command a deny rule matches is refused,
 *     never run (an "error" say with the data below, an error result naming the rule);
 *     otherwise approval through env->approve: group "safe_command" when hew judged it
 *     read-only (or allowed) and the model did not say requires_approval=true (outside:
 *     it reads outside the workspace), "command" otherwise; message type "command", data
 *     {"command": …, "requires_approval": bool, "policy": {"decision": "safe"|"ask"|
 *     "deny", "reason": …, "part": …, "outside": bool, "rule"?: …}};
 *   - output streamed as "command_output" messages (partial updates at most every
 *     update_ms, text = the output so far as the model will see it, valid UTF-8): an ask
 *     the user can answer while it runs (yes: go on in the background; a message: go on
 *     in the background and tell the model; no: stop the command), or a say in yolo mode;
 *   - the result keeps the first head_lines and last tail_lines lines (byte caps too)
 *     with a notice of what was left out, and says how it ended: exit code, signal,
 *     timeout (timeout_s, long_timeout_s for builds/installs/tests, or the model's
 *     `timeout` parameter in yolo mode), cancelled, or running in the background;
 *   - the timeout, an abort or a cancel kill the whole group (SIGTERM, SIGKILL after
 *     kill_grace_ms). An abort of the task returns HEW_E_ABORTED within 100 ms. */
#ifndef HEW_TOOLS_EXECUTE_COMMAND_H
#define HEW_TOOLS_EXECUTE_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "tools/tool.h"

typedef struct exec_limits {
    long timeout_s;      /* an ordinary command (30) */
    long long_timeout_s; /* installs, builds, tests (300) */
    long max_timeout_s;  /* cap on the model's `timeout` parameter (3600) */
    long kill_grace_ms;  /* SIGTERM → SIGKILL (2000) */
    size_t head_lines;   /* lines kept from the start (250) */
    size_t tail_lines;   /* lines kept from the end (250) */
    size_t head_bytes;   /* bytes kept from the start (32 KiB) */
    size_t tail_bytes;   /* bytes kept from the end (32 KiB) */
    long update_ms;      /* at most one output update per this many ms (100) */
} exec_limits;

/* The defaults above. */
void exec_limits_default(exec_limits *l);
/* Use l (copied; NULL: the defaults) for commands started from now on. Thread-safe. */
void execute_command_set_limits(const exec_limits *l);

/* True for commands known to take long (npm/pnpm/yarn/bun install/ci/build/test, pip
 * install, cargo/go/mvn/gradle build/test, make, pytest/jest/vitest, docker build, …),
 * looked for in every part of a `&&` / `;` / `|` chain. */
bool execute_command_is_long(const char *command);
/* The shell commands run in: $SHELL when it is an absolute path to a program, else
 * /bin/sh (the command policy judges lines for it). */
const char *execute_command_shell(void);

/* Background commands of a task (keyed by its tool_env). */
size_t execute_command_background_count(const tool_env *env);
/* For environment details: one paragraph per background command of env (running or how
 * it ended, and the output that came since the last report, tail-capped). Appends
 * nothing when there are none. */
void execute_command_background_report(const tool_env *env, buf *out);
/* Kill every background command of env (their whole groups) and forget them; blocks at
 * most about kill_grace_ms. The task calls it when it ends. */
void execute_command_stop_background(const tool_env *env);

#endif
