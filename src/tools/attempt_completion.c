/* attempt_completion — the model says the task is done and shows its result. The user
 * accepts (the task ends) or answers with feedback (the task goes on). Never runs the
 * optional `command` itself: that needs execute_command's approval and runner. */
#include <string.h>

#include "tools/tool.h"

static const tool_param params[] = {
    { "result", true,
      "The final result of the task: what was done, stated as finished (no question, no "
      "offer of further help).",
      "Your final result description here", "response" },
    { "command", false,
      "A command that demonstrates the result (e.g. opening a page); optional.",
      "Command to demonstrate the result (optional)", NULL },
};

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *result = tool_param_value(&params[0], call);
    env->say(env, "completion_result", result ? result : "", NULL, 0);
    if (env->yolo) {
        env->complete(env, result ? result : "");
        tool_result_printf(out, "The user accepted the result. The task is complete.");
        return HEW_OK;
    }
    tool_answer answer = { .kind = TOOL_ANSWER_YES };
    hew_code rc = env->ask(env, "completion_result", "", NULL, 0, &answer);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        return rc;
    }
    if (answer.kind == TOOL_ANSWER_YES && !tool_answer_has_message(&answer)) {
        env->complete(env, result ? result : "");
        tool_result_printf(out, "The user accepted the result. The task is complete.");
    } else if (tool_answer_has_message(&answer)) {
        tool_say_feedback(env, &answer);
        tool_result_printf(out,
                           "The user is not satisfied yet and sent feedback on the result. "
                           "Take it into account, continue the task, and use "
                           "attempt_completion again when it is done.\n<feedback>\n%s\n"
                           "</feedback>",
                           answer.text ? answer.text : "");
    } else {
        tool_result_printf(out, "The user did not accept the result and gave no reason. "
                                "Check the work again, continue the task, and use "
                                "attempt_completion again when it is done.");
    }
    tool_answer_release(&answer);
    return HEW_OK;
}

const tool_def tool_attempt_completion = {
    .name = "attempt_completion",
    .description =
        "Present the result of the task to the user once every step is done and confirmed "
        "by the results of the tools you used. The user may accept it or answer with "
        "feedback. Do not use it while a tool result you asked for is still unknown.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_ASKS_USER | TOOL_COMPLETES,
    .run = run,
};
