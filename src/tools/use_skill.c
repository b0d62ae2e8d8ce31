/* use_skill — load an Agent Skill (prompt/skills.h) when the task needs it: Cline's
 * use_skill, with its skill_name parameter. The system prompt lists only the skills'
 * names and descriptions; this tool gives the SKILL.md body and the list of the skill's
 * other files, or (with path) one of those files. The skills are the task's: the tool
 * asks env->use_skill, which task/ answers from the skills it found. Read-only: it
 * reads nothing outside the skill's folder, so it needs no approval. */
#include "tools/tool.h"

static const tool_param params[] = {
    { "skill_name", true, "The name of the skill, as the SKILLS section lists it.",
      "skill name here", "name" },
    { "path", false,
      "(optional) One of the skill's other files, relative to its folder, to read instead "
      "of its instructions.",
      "file of the skill (optional)", NULL },
};

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *name = tool_param_value(&params[0], call);
    const char *path = tool_call_param(call, "path");
    if (!name || !*name) {
        env->mistake(env, true);
        tool_result_error(out, "Missing value for required parameter 'skill_name'. Give the "
                               "name of one of the skills the SKILLS section lists.");
        return HEW_OK;
    }
    if (!env->use_skill) {
        tool_result_error(out, "No skills are available in this task.");
        return HEW_OK;
    }
    json_t *data = json_pack("{s:s,s:s,s:s?}", "tool", "useSkill", "skill", name, "path",
                             path && *path ? path : NULL);
    env->say(env, "tool", NULL, data, 0);
    json_decref(data);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = env->use_skill(env, name, path, &out->text, &err);
    if (rc != HEW_OK) {
        env->mistake(env, true);
        buf_reset(&out->text);
        tool_result_error(out, "%s", err.msg);
        return HEW_OK;
    }
    env->mistake(env, false);
    return HEW_OK;
}

const tool_def tool_use_skill = {
    .name = "use_skill",
    .description = "Load a skill: the instructions for a kind of task that the SKILLS section "
                   "lists by name and description. Use it as soon as the task matches a "
                   "skill's description, before other work, and follow what it says. The "
                   "result also lists the skill's other files; read one with this tool and "
                   "its path when the instructions refer to it.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY | TOOL_SKILLS,
    .run = run,
    .partial = NULL,
    .describe = NULL,
};
