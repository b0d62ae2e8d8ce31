/* prompt — the task's side of the system prompt: the prompt context of the task as it
 * stands (its mode now, the settings, the model's facts, the MCP servers of the last
 * request) and the system prompt of a request, with the rule files read again when older
 * than RULES_TTL_MS and rendered for the paths the latest user message names. Only this
 * file touches hew_task.rules. Task thread only; says nothing. */
#include <stdlib.h>
#include <string.h>

#include "mcp/hub.h"
#include "prompt/prompt.h"
#include "base/log.h"
#include "prompt/rules.h"
#include "prompt/skills.h"
#include "sys/clock.h"
#include "task/task.h"
#include "tools/registry.h"

#define RULES_TTL_MS 15000

static void rules_refresh(hew_task *t);

void task_prompt_ctx(hew_task *t, prompt_ctx *pc)
{
    prompt_ctx_init(pc);
    prompt_ctx_machine(pc);
    if (t->settings->machine_os) /* told as another machine (hew replay: the recorded one) */
        pc->os = t->settings->machine_os;
    if (t->settings->machine_shell)
        pc->shell = t->settings->machine_shell;
    if (t->settings->machine_home)
        pc->home = t->settings->machine_home;
    pc->cwd = t->settings->cwd;
    pc->provider = t->settings->provider;
    pc->model = t->session->provider.model;
    pc->images = t->session->model.images;
    pc->mode = task_mode_get(t);
    pc->native_tools = t->session->native_tools;
    pc->parallel_tools = t->settings->parallel_tool_calls;
    pc->yolo = t->settings->yolo;
    pc->strict_plan = t->settings->strict_plan;
    pc->condensing = task_condense_asked(t);
    pc->language = t->settings->language;
    pc->tools = registry_tools(&pc->ntools);
    rules_refresh(t);
    pc->skills = t->rules.skills_text.data; /* offers use_skill when there are skills */
    const mcp_snapshot *snap = task_mcp_snapshot(t);
    if (snap) {
        pc->mcp = snap->servers;
        pc->nmcp = snap->nservers;
    }
}

/* The paths in play for conditional rules: those named in the latest user message. */
static size_t paths_in_play(const hew_task *t, char **out, size_t cap)
{
    size_t n = json_array_size(t->history);
    const json_t *last = n ? json_array_get(t->history, n - 1) : NULL;
    const json_t *content = json_object_get(last, "content");
    size_t count = 0, i;
    const json_t *b;
    json_array_foreach(content, i, b) {
        const char *text = json_string_value(json_object_get(b, "text"));
        if (text && count < cap)
            count += rules_paths_in_text(text, out + count, cap - count);
    }
    return count;
}

/* The skills, found again with the rules: what is left out goes to the log once per
 * change of the list. */
static void skills_refresh(hew_task *t)
{
    task_rules_part *r = &t->rules;
    skills_set fresh = SKILLS_SET_INIT;
    skills_opts so = { .project = true, .user = true, .config_dir = NULL, .home = NULL };
    if (t->settings->skills && skills_load(t->settings->cwd, &so, &fresh, NULL) != HEW_OK)
        skills_set_release(&fresh); /* out of memory: none offered */
    if (fresh.notices.len && (!r->skills.notices.data ||
                              strcmp(fresh.notices.data, r->skills.notices.data) != 0))
        hew_log(HEW_LOG_WARN, "skills", "%s", fresh.notices.data);
    skills_set_release(&r->skills);
    r->skills = fresh;
    buf_reset(&r->skills_text);
    skills_render(&r->skills, &r->skills_text);
}

hew_code task_use_skill(hew_task *t, const char *name, const char *path, buf *out,
                        hew_err *err)
{
    const skill *sk = skills_find(&t->rules.skills, name);
    if (!sk) {
        buf names = BUF_INIT(0);
        for (size_t i = 0; i < t->rules.skills.n; i++)
            buf_printf(&names, "%s%s", i ? ", " : "", t->rules.skills.items[i].name);
        hew_code rc = hew_err_set(err, HEW_E_NOTFOUND, "There is no skill \"%s\". The skills "
                                  "are: %s.", name, names.data ? names.data : "(none)");
        buf_release(&names);
        return rc;
    }
    hew_code rc = skills_use(sk, path, out, err);
    if (rc == HEW_E_ESCAPE)
        hew_err_set(err, rc, "%s is not a file of the skill %s: use_skill reads only files "
                    "inside %s.", path, sk->name, sk->dir);
    return rc;
}

/* The rule files: read again when older than RULES_TTL_MS (reading walks the workspace
 * for AGENTS.md files, which a big tree makes slow). */
static void rules_refresh(hew_task *t)
{
    task_rules_part *r = &t->rules;
    if (r->loaded && clock_now_ms() - r->loaded_ms <= RULES_TTL_MS)
        return;
    rules_opts ro = rules_defaults();
    const task_settings *st = t->settings;
    ro.global = st->rules_global;
    ro.clinerules = st->rules_clinerules;
    ro.cursorrules = st->rules_cursorrules;
    ro.windsurfrules = st->rules_windsurfrules;
    ro.agents = st->rules_agents;
    ro.claude = st->rules_claude;
    ro.gemini = st->rules_gemini;
    ro.clineignore = st->rules_clineignore;
    if (r->loaded)
        rules_set_release(&r->set);
    r->loaded = rules_load(st->cwd, &ro, &r->set, NULL) == HEW_OK;
    r->loaded_ms = clock_now_ms();
    skills_refresh(t);
}

char *task_prompt_system(hew_task *t, prompt_ctx *pc)
{
    rules_refresh(t);
    buf rules_text = BUF_INIT(0);
    char *paths[64];
    size_t npaths = paths_in_play(t, paths, 64);
    if (t->rules.loaded) { /* rendered every time, for the paths in play */
        rules_render(&t->rules.set, (const char *const *)paths, npaths, &rules_text);
        pc->rules = rules_text.data;
        pc->clineignore = t->rules.set.clineignore;
    }
    buf prompt = BUF_INIT(0);
    prompt_build(pc, &prompt);
    pc->rules = NULL; /* rules_text goes now */
    buf_release(&rules_text);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    return buf_detach(&prompt, NULL);
}

void task_prompt_release(hew_task *t)
{
    if (t->rules.loaded)
        rules_set_release(&t->rules.set);
    t->rules.loaded = false;
    skills_set_release(&t->rules.skills);
    buf_release(&t->rules.skills_text);
}
