/* new_task — the model proposes to start a fresh task carrying a summary of this one
 * (Cline's new_task). The user confirms (yolo: confirmed without asking) and this task
 * hands over: it ends, completed, and the front end starts the next task with the
 * context as its text (env->hand_over, hew_task_successor). Feedback instead of a yes,
 * or a no, keeps this task going. It never changes the conversation and never runs
 * anything. */
#include <string.h>

#include "tools/tool.h"

static const tool_param params[] = {
    { "context", true,
      "The context the new task starts from: what was asked, what was done so far (files "
      "changed, decisions made, commands that worked), what is left to do, and anything the "
      "next task must know to continue without this conversation.",
      "context to preload new task with", NULL },
};

#define HANDED_OVER_RESULT                                                                 \
    "Continued in a new task: the context the model prepared is the new task's text."

/* Confirmed: hand over, or say that this front end cannot start a new task. */
static void hand_over(tool_env *env, const char *context, tool_result *out)
{
    if (!env->hand_over) {
        tool_result_printf(out, "The new task was confirmed, but it cannot be started from "
                                "here, so the conversation goes on: continue the work in this "
                                "task.");
        return;
    }
    env->hand_over(env, context, HANDED_OVER_RESULT);
    tool_result_printf(out, "The user has created a new task with the provided context%s; "
                            "this task ends here.",
                       env->yolo ? " (approved automatically)" : "");
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *context = tool_call_param(call, "context");
    if (!context)
        context = "";
    if (env->yolo) {
        env->say(env, "new_task", context, NULL, 0);
        hand_over(env, context, out);
        return HEW_OK;
    }
    tool_answer answer = { .kind = TOOL_ANSWER_YES };
    hew_code rc = env->ask(env, "new_task", context, NULL, 0, &answer);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        return rc;
    }
    if (tool_answer_has_message(&answer)) {
        tool_say_feedback(env, &answer);
        tool_result_printf(out, "The user did not create a new task and answered instead:\n"
                                "<feedback>\n%s\n</feedback>",
                           answer.text ? answer.text : "");
    } else if (answer.kind == TOOL_ANSWER_YES) {
        hand_over(env, context, out);
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
    .flags = TOOL_ASKS_USER,
    .run = run,
};
