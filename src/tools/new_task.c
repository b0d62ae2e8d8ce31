/* new_task — the model proposes to start a fresh task carrying a summary of this one
 * (Cline's new_task). The user confirms or answers; the result says what happened.
 * Starting the new task itself (a fresh conversation from the context) lands with the
 * context work: until then the confirmed context is shown and this task goes on. It
 * never changes the conversation and never runs anything. */
#include <string.h>

#include "tools/tool.h"

static const tool_param params[] = {
    { "context", true,
      "The context the new task starts from: what was asked, what was done so far (files "
      "changed, decisions made, commands that worked), what is left to do, and anything the "
      "next task must know to continue without this conversation.",
      "context to preload new task with" },
};

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *context = tool_call_param(call, "context");
    if (!context)
        context = "";
    if (env->yolo) {
        env->say(env, "new_task", context, NULL, 0);
        tool_result_printf(out, "Nobody can confirm a new task in this mode (every action is "
                                "approved automatically and no user is watching), so no new "
                                "task was started. Go on with the current task here.");
        return HEW_OK;
    }
    tool_answer answer = { TOOL_ANSWER_YES, NULL };
    hew_code rc = env->ask(env, "new_task", context, NULL, 0, &answer);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        return rc;
    }
    if (answer.text && *answer.text) {
        env->say(env, "user_feedback", answer.text, NULL, 0);
        tool_result_printf(out, "The user did not create a new task and answered instead:\n"
                                "<feedback>\n%s\n</feedback>",
                           answer.text);
    } else if (answer.kind == TOOL_ANSWER_YES) {
        tool_result_printf(out, "The user confirmed the new task with the provided context. "
                                "(This version of hew cannot start it from here yet, so the "
                                "conversation goes on: continue the work in this task.)");
    } else {
        tool_result_printf(out, "The user declined to start a new task. Go on with the "
                                "current task here.");
    }
    tool_answer_release(&answer);
    return HEW_OK;
}

const tool_def tool_new_task = {
    .name = "new_task",
    .description =
        "Propose to the user to start a new task that carries over the context of this "
        "one, for instance when this conversation has grown long. The user confirms or "
        "answers. Give a complete, self-contained summary in `context`.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .read_only = false,
    .ends_turn_interaction = true,
    .run = run,
};
