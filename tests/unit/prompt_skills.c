/* Unit tests of Agent Skills (prompt/skills, issue #22): discovery from the workspace's
 * and the user's folders (the first of a name wins), the front matter (name, a folded
 * description), hostile skills left out with a notice naming the file (no front matter,
 * no description, a bad name, a huge SKILL.md, SKILL.md or the skill's folder or the
 * skills folder a symlink out), what use_skill gives (the body without its front matter,
 * the other files; one file; nothing outside the skill's folder), and the system prompt:
 * names and descriptions in a SKILLS section with use_skill offered, never a body; no
 * section and no use_skill without skills. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "check.h"
#include "prompt/prompt.h"
#include "prompt/skills.h"
#include "sys/path.h"
#include "tmpdir.h"
#include "tools/registry.h"

static char *root;

static char *at(const char *rel)
{
    static char p[4][4096];
    static int next;
    char *o = p[next++ % 4];
    snprintf(o, sizeof p[0], "%s/%s", root, rel);
    return o;
}

static void put(const char *rel, const char *text)
{
    char *p = at(rel);
    char *dir = strdup(p);
    *strrchr(dir, '/') = '\0';
    CHECK(fs_mkdirs(dir, 0755, NULL) == HEW_OK);
    CHECK(fs_write_atomic(p, text, strlen(text), 0644, NULL) == HEW_OK);
    free(dir);
}

static const char good[] = "---\n"
                           "name: pdf-tools\n"
                           "description: |\n"
                           "  Fill and merge PDF forms.\n"
                           "  Use for any .pdf file.\n"
                           "allowed-tools: [read_file]\n"
                           "---\n"
                           "\n"
                           "# PDF\n"
                           "SECRET-BODY: run scripts/fill.py\n";

static skills_set load(bool project, bool user)
{
    skills_set s = SKILLS_SET_INIT;
    skills_opts o = { .project = project, .user = user, .config_dir = at("user/hew/skills"),
                      .home = at("home") };
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(skills_load(at("ws"), &o, &s, &err), HEW_OK);
    return s;
}

static void test_discovery_and_hostile(void)
{
    put("ws/.hew/skills/pdf/SKILL.md", good);
    put("ws/.hew/skills/pdf/scripts/fill.py", "print('fill')\n");
    put("ws/.hew/skills/pdf/forms.md", "FORMS-DOC\n");
    put("ws/.claude/skills/review/SKILL.md",
        "---\nname: review\ndescription: 'Review a change: the diff, then the tests'\n---\nR\n");
    put("ws/.agents/skills/nofm/SKILL.md", "no front matter here\n");
    put("ws/.agents/skills/nodesc/SKILL.md", "---\nname: nodesc\n---\nbody\n");
    put("ws/.agents/skills/badname/SKILL.md", "---\nname: ../evil\ndescription: x\n---\n");
    put("ws/.agents/skills/notaskill/README.md", "just a folder\n");
    /* huge: over the cap */
    buf big = BUF_INIT(0);
    buf_puts(&big, "---\nname: huge\ndescription: big\n---\n");
    while (big.len <= SKILL_FILE_MAX)
        buf_puts(&big, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n");
    put("ws/.agents/skills/huge/SKILL.md", big.data);
    buf_release(&big);
    /* symlinks out of the workspace */
    put("outside/SKILL.md", "---\nname: outfile\ndescription: OUTSIDE\n---\n");
    put("outside/dir/SKILL.md", "---\nname: outdir\ndescription: OUTSIDE\n---\n");
    CHECK(fs_mkdirs(at("ws/.agents/skills/linkfile"), 0755, NULL) == HEW_OK);
    CHECK(symlink(at("outside/SKILL.md"), at("ws/.agents/skills/linkfile/SKILL.md")) == 0);
    CHECK(symlink(at("outside/dir"), at("ws/.agents/skills/linkdir")) == 0);
    /* the user's: one new, one of a name the workspace has (the workspace's wins) */
    put("user/hew/skills/tea/SKILL.md", "---\nname: tea\ndescription: Brew tea\n---\nTEA\n");
    put("user/hew/skills/review2/SKILL.md", "---\nname: review\ndescription: USER\n---\n");
    put("home/.claude/skills/coffee/SKILL.md", "---\nname: coffee\ndescription: Coffee\n---\n");

    skills_set s = load(true, true);
    CHECK_INT(s.n, 4); /* pdf-tools, review, tea, coffee */
    const skill *pdf = skills_find(&s, "pdf-tools");
    REQUIRE(pdf);
    CHECK_STR(pdf->description, "Fill and merge PDF forms. Use for any .pdf file.");
    CHECK(pdf->project);
    CHECK(strstr(pdf->file, "/ws/.hew/skills/pdf/SKILL.md") != NULL);
    CHECK_STR(skills_find(&s, "review")->description, "Review a change: the diff, then the tests");
    CHECK(skills_find(&s, "tea") && !skills_find(&s, "tea")->project);
    CHECK(skills_find(&s, "coffee") != NULL);
    CHECK(!skills_find(&s, "huge") && !skills_find(&s, "outfile") && !skills_find(&s, "outdir"));
    const char *n = s.notices.data ? s.notices.data : "";
    CHECK(strstr(n, "skills/nofm/SKILL.md left out: no front matter") != NULL);
    CHECK(strstr(n, "skills/nodesc/SKILL.md left out") != NULL);
    CHECK(strstr(n, "skills/badname/SKILL.md left out: its name") != NULL);
    CHECK(strstr(n, "skills/huge/SKILL.md left out: SKILL.md is larger") != NULL);
    CHECK(strstr(n, "skills/linkfile/SKILL.md left out: SKILL.md leads out") != NULL);
    CHECK(strstr(n, "skills/linkdir left out: the skill's folder leads out of the workspace") !=
          NULL);
    CHECK(strstr(n, "review2/SKILL.md left out: a skill of that name was found first") != NULL);
    CHECK(strstr(n, "notaskill") == NULL); /* a folder without SKILL.md is no skill */

    buf list = BUF_INIT(0);
    skills_render(&s, &list);
    CHECK(strstr(list.data, "- pdf-tools: Fill and merge PDF forms. Use for any .pdf file.\n"));
    CHECK(strstr(list.data, "- tea: Brew tea\n"));
    CHECK(strstr(list.data, "SECRET-BODY") == NULL);
    buf_release(&list);
    skills_set_release(&s);

    /* the switches */
    s = load(false, true);
    CHECK(!skills_find(&s, "pdf-tools") && skills_find(&s, "tea"));
    CHECK_STR(skills_find(&s, "review")->description, "USER");
    skills_set_release(&s);
    s = load(true, false);
    CHECK(skills_find(&s, "pdf-tools") && !skills_find(&s, "tea"));
    skills_set_release(&s);

    /* a skills folder that is itself a link out of the workspace */
    CHECK(fs_mkdirs(at("ws2"), 0755, NULL) == HEW_OK);
    CHECK(fs_mkdirs(at("ws2/.hew"), 0755, NULL) == HEW_OK);
    put("outside2/x/SKILL.md", "---\nname: x\ndescription: OUT\n---\n");
    CHECK(symlink(at("outside2"), at("ws2/.hew/skills")) == 0);
    skills_set s2 = SKILLS_SET_INIT;
    skills_opts o = { .project = true, .user = false };
    CHECK_INT(skills_load(at("ws2"), &o, &s2, NULL), HEW_OK);
    CHECK_INT(s2.n, 0);
    CHECK(s2.notices.data && strstr(s2.notices.data, "the skills folder leads out"));
    skills_set_release(&s2);
}

static void test_use(void)
{
    skills_set s = load(true, false);
    const skill *pdf = skills_find(&s, "pdf-tools");
    REQUIRE(pdf);
    buf out = BUF_INIT(0);
    hew_err err = HEW_ERR_INIT;
    CHECK_INT(skills_use(pdf, NULL, &out, &err), HEW_OK);
    REQUIRE(out.data);
    CHECK(strstr(out.data, "# Skill: pdf-tools\n\n# PDF\nSECRET-BODY") == out.data);
    CHECK(strstr(out.data, "description:") == NULL);
    CHECK(strstr(out.data, "/ws/.hew/skills/pdf/forms.md\n") != NULL);
    CHECK(strstr(out.data, "/ws/.hew/skills/pdf/scripts/fill.py\n") != NULL);
    CHECK(strstr(out.data, "pdf/SKILL.md\n") == NULL);

    buf_reset(&out);
    CHECK_INT(skills_use(pdf, "forms.md", &out, &err), HEW_OK);
    CHECK_STR(out.data, "FORMS-DOC\n");
    buf_reset(&out);
    CHECK_INT(skills_use(pdf, at("ws/.hew/skills/pdf/scripts/fill.py"), &out, &err), HEW_OK);
    CHECK_STR(out.data, "print('fill')\n");
    buf_reset(&out);
    CHECK_INT(skills_use(pdf, "../../../../outside/SKILL.md", &out, &err), HEW_E_ESCAPE);
    CHECK_INT(skills_use(pdf, at("outside/SKILL.md"), &out, &err), HEW_E_ESCAPE);
    CHECK(symlink(at("outside/SKILL.md"), at("ws/.hew/skills/pdf/sneaky.md")) == 0);
    CHECK_INT(skills_use(pdf, "sneaky.md", &out, &err), HEW_E_ESCAPE);
    CHECK_INT(skills_use(pdf, "missing.md", &out, &err), HEW_E_NOTFOUND);
    /* the listing leaves the link out too */
    buf_reset(&out);
    CHECK_INT(skills_use(pdf, NULL, &out, &err), HEW_OK);
    CHECK(strstr(out.data, "sneaky") == NULL);
    buf_release(&out);
    skills_set_release(&s);
}

/* The system prompt: the SKILLS section lists names and descriptions and use_skill is
 * offered; the body is nowhere; without skills, neither. */
static void test_prompt(void)
{
    skills_set s = load(true, false);
    buf list = BUF_INIT(0);
    skills_render(&s, &list);
    prompt_ctx c;
    prompt_ctx_init(&c);
    c.cwd = at("ws");
    c.tools = registry_tools(&c.ntools);
    c.skills = list.data;
    buf p = BUF_INIT(0);
    prompt_build(&c, &p);
    REQUIRE(p.data);
    CHECK(strstr(p.data, "\nSKILLS\n") != NULL);
    CHECK(strstr(p.data, "- pdf-tools: Fill and merge PDF forms. Use for any .pdf file.") != NULL);
    CHECK(strstr(p.data, "## use_skill") != NULL);
    CHECK(strstr(p.data, "<skill_name>") != NULL);
    CHECK(strstr(p.data, "SECRET-BODY") == NULL);

    c.skills = NULL;
    buf_reset(&p);
    prompt_build(&c, &p);
    CHECK(strstr(p.data, "\nSKILLS\n") == NULL);
    CHECK(strstr(p.data, "use_skill") == NULL);

    /* native tools: the schema has skill_name */
    c.skills = list.data;
    c.native_tools = true;
    const tool_def *offered[64];
    size_t n = prompt_tools_offered(&c, offered, 64);
    bool found = false;
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(offered[i]->name, "use_skill") == 0) {
            found = true;
            json_t *schema = prompt_tool_schema(offered[i]);
            CHECK(json_object_get(json_object_get(schema, "properties"), "skill_name") != NULL);
            json_decref(schema);
        }
    CHECK(found);
    buf_release(&p);
    buf_release(&list);
    skills_set_release(&s);
}

int main(void)
{
    root = tmpdir_make("skills");
    if (!root)
        return 1;
    RUN(test_discovery_and_hostile);
    RUN(test_use);
    RUN(test_prompt);
    tmpdir_remove(root);
    free(root);
    return check_report();
}
