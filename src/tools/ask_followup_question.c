/* ask_followup_question — the model asks the user a question (with optional suggested
 * answers) and gets the answer as its result. In auto-approve-all (yolo) mode nobody can
 * answer: the model is told to decide for itself. */
#include <jansson.h>
#include <string.h>

#include "tools/tool.h"

static const tool_param params[] = {
    { "question", true, "The question to ask. Be specific: say what you need and why.",
      "Your question here", NULL },
    { "options", false,
      "2 to 5 suggested answers as a JSON array of strings, when the answer is a choice.",
      "Array of options here (optional), e.g. [\"Option 1\", \"Option 2\"]", NULL },
};

/* {"question": q, "options": [...]} — options only when they are a JSON array. */
static json_t *question_data(const char *question, const char *options)
{
    json_t *data = json_object();
    json_object_set_new(data, "question", json_string(question));
    json_t *opts = options ? json_loads(options, 0, NULL) : NULL;
    if (json_is_array(opts))
        json_object_set(data, "options", opts);
    json_decref(opts);
    return data;
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *question = tool_call_param(call, "question");
    if (env->yolo) {
        tool_result_printf(out, "Nobody can answer questions in this mode (every action is "
                                "approved automatically and no user is watching). Decide "
                                "with the information you have and go on with the task.");
        return HEW_OK;
    }
    json_t *data = question_data(question ? question : "", tool_call_param(call, "options"));
    tool_answer answer = { .kind = TOOL_ANSWER_YES };
    hew_code rc = env->ask(env, "followup", question, data, 0, &answer);
    json_decref(data);
    if (rc == HEW_OK && tool_answer_has_message(&answer)) {
        tool_say_feedback(env, &answer);
        tool_result_printf(out, "<answer>\n%s\n</answer>", answer.text ? answer.text : "");
    } else if (rc == HEW_OK) { /* a yes or no with nothing typed: no empty answer */
        tool_result_printf(out, answer.kind == TOOL_ANSWER_NO
                                    ? "[The user declined to answer this question. Go on "
                                      "without it, or ask in another way.]"
                                    : "[The user gave no answer and wants you to go on: "
                                      "decide with the information you have.]");
    }
    tool_answer_release(&answer);
    return rc;
}

static void partial(tool_env *env, const tool_call *call)
{
    const char *question = tool_call_param(call, "question");
    if (!question || env->yolo)
        return;
    json_t *data = question_data(question, NULL);
    env->ask(env, "followup", question, data, 1, NULL);
    json_decref(data);
}

const tool_def tool_ask_followup_question = {
    .name = "ask_followup_question",
    .description =
        "Ask the user a question when you cannot go on without information that the tools "
        "cannot find (an ambiguity, a preference, a missing detail). Use it sparingly: "
        "look things up yourself first.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY | TOOL_ASKS_USER | TOOL_NEEDS_ANSWER,
    .run = run,
    .partial = partial,
};
