/* condense — the model proposes a summary of the conversation so far to replace the
 * older messages (Cline's condense, /smol). The user accepts (or yolo does) and the task
 * drops the older messages from what the model sees (env->condense: the history itself is
 * never shortened, a deleted range grows over it); the summary stays, in the answer that
 * called this tool. Feedback instead of a yes keeps everything and passes the words on. */
#include <string.h>

#include "tools/tool.h"

static const tool_param params[] = {
    { "context", true,
      "A detailed summary of the conversation so far: the user's requests, the decisions "
      "taken, the files and code that matter (with the important snippets), the errors met "
      "and how they were fixed, and what is left to do next.",
      "Your detailed summary", NULL },
};

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *context = tool_call_param(call, "context");
    if (!context)
        context = "";
    tool_answer answer = { .kind = TOOL_ANSWER_YES };
    if (env->yolo) {
        env->say(env, "condense", context, NULL, 0);
    } else {
        hew_code rc = env->ask(env, "condense", context, NULL, 0, &answer);
        if (rc != HEW_OK) {
            tool_answer_release(&answer);
            return rc;
        }
    }
    if (tool_answer_has_message(&answer)) {
        tool_say_feedback(env, &answer);
        tool_result_printf(out, "The user provided feedback on the condensed conversation "
                                "summary:\n<feedback>\n%s\n</feedback>\nTake it into account "
                                "and go on with the task.",
                           answer.text ? answer.text : "");
    } else if (answer.kind == TOOL_ANSWER_YES) {
        size_t dropped = env->condense ? env->condense(env) : 0;
        if (dropped)
            tool_result_printf(out, "The summary was accepted%s and the conversation was "
                                    "condensed: %zu earlier messages were removed from what you "
                                    "see, and your summary above takes their place. Go on with "
                                    "the task from the summary.",
                               env->yolo ? " automatically" : " by the user", dropped);
        else
            tool_result_printf(out, "The summary was accepted%s; the conversation is already "
                                    "short, so nothing was removed. Go on with the task.",
                               env->yolo ? " automatically" : " by the user");
    } else {
        tool_result_printf(out, "The user declined to condense the conversation. Go on with "
                                "the task.");
    }
    tool_answer_release(&answer);
    return HEW_OK;
}

const tool_def tool_condense = {
    .name = "condense",
    .description =
        "Propose a detailed summary of the conversation so far to replace the older "
        "messages when the context is getting long. The user accepts it or answers.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_ASKS_USER,
    .run = run,
};
