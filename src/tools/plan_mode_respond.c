/* plan_mode_respond — in PLAN mode, the model answers the user (a plan, a question about
 * the plan) and waits for the user's reply, or for the switch to ACT mode. Never edits or
 * runs anything. */
#include <jansson.h>
#include <string.h>

#include "tools/tool.h"

static const tool_param params[] = {
    { "response", true,
      "Your answer to the user: the plan, the options you see, or a question about them.",
      "Your response here", NULL },
    { "needs_more_exploration", false,
      "\"true\" if you need to read more files or search before you can answer; you will "
      "be able to use tools again.",
      "true or false (optional)", NULL },
    { "options", false, "2 to 5 suggested replies as a JSON array of strings (optional).",
      "Array of options here (optional)", NULL },
};

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *response = tool_call_param(call, "response");
    const char *more = tool_call_param(call, "needs_more_exploration");
    if (more && strcmp(more, "true") == 0) {
        env->say(env, "text", response ? response : "", NULL, 0);
        tool_result_printf(out, "[You said you need to explore more. Go on with the tools "
                                "(read, list, search), then answer with plan_mode_respond "
                                "again.]");
        return HEW_OK;
    }
    if (env->yolo) {
        env->say(env, "text", response ? response : "", NULL, 0);
        env->set_mode(env, MODE_ACT);
        tool_result_printf(out, "[The task switched to ACT MODE: carry out the plan now.]");
        return HEW_OK;
    }
    json_t *data = json_object();
    json_object_set_new(data, "response", json_string(response ? response : ""));
    const char *options = tool_call_param(call, "options");
    json_t *opts = options ? json_loads(options, 0, NULL) : NULL;
    if (json_is_array(opts))
        json_object_set(data, "options", opts);
    json_decref(opts);
    tool_answer answer = { .kind = TOOL_ANSWER_YES };
    hew_code rc = env->ask(env, "plan_mode_respond", response, data, 0, &answer);
    json_decref(data);
    if (rc == HEW_OK) {
        if (env->mode_now(env) == MODE_ACT) {
            tool_result_printf(out, "[The user switched to ACT MODE: carry out the plan now.]");
        } else if (tool_answer_has_message(&answer)) {
            tool_say_feedback(env, &answer);
            tool_result_printf(out, "<user_message>\n%s\n</user_message>",
                               answer.text ? answer.text : "");
        } else { /* a yes or no with nothing typed: no empty message */
            tool_result_printf(out, answer.kind == TOOL_ANSWER_NO
                                        ? "[The user does not agree with this plan. Ask what "
                                          "to change, or propose another.]"
                                        : "[The user has nothing to add to the plan. The user "
                                          "switches to ACT MODE when it is agreed; until "
                                          "then refine it or explore more.]");
        }
    }
    tool_answer_release(&answer);
    return rc;
}

const tool_def tool_plan_mode_respond = {
    .name = "plan_mode_respond",
    .description =
        "PLAN MODE only: answer the user with your plan or your questions about it, and "
        "wait for their reply. The user switches to ACT MODE when the plan is agreed.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY | TOOL_ASKS_USER | TOOL_PLAN_ONLY,
    .run = run,
};
