/* skills — finding Agent Skills (SKILL.md folders), listing them for the system prompt,
 * and what use_skill hands the model (see skills.h). */
#include "prompt/skills.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/utf8.h"
#include "prompt/frontmatter.h"
#include "sys/path.h"
#include "sys/walk.h"

/* The skills folders, in the order they are searched. */
static const char *const project_dirs[] = { ".hew/skills", ".claude/skills", ".agents/skills" };

static void note(skills_set *s, const char *file, const char *why)
{
    buf_printf(&s->notices, "skill %s left out: %s\n", file, why);
}

static bool name_ok(const char *n)
{
    size_t len = n ? strlen(n) : 0;
    if (len == 0 || len > SKILL_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = n[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* One line of text: control characters (line breaks included) become spaces, cut to max
 * bytes at a character. A new string, or NULL. */
static char *one_line(const char *s, size_t max)
{
    size_t n = strlen(s);
    n = utf8_cut(s, n, max);
    char *d = strndup(s, n);
    for (size_t i = 0; d && i < n; i++)
        if ((unsigned char)d[i] < 0x20 || d[i] == 0x7f)
            d[i] = ' ';
    return d;
}

/* Add the skill in folder `dir` (resolved) if its SKILL.md is good; else a notice. */
static hew_code add_skill(skills_set *s, const char *dir, bool project)
{
    char *file = NULL, *text = NULL;
    size_t len = 0;
    hew_err e = HEW_ERR_INIT;
    char *shown = path_join(dir, "SKILL.md");
    if (!shown)
        return HEW_E_NOMEM;
    hew_code rc = path_resolve_in(dir, "SKILL.md", &file, &e);
    if (rc == HEW_E_NOMEM)
        goto out;
    if (rc != HEW_OK) {
        note(s, shown, rc == HEW_E_ESCAPE ? "SKILL.md leads out of the skill's folder" : e.msg);
        rc = HEW_OK;
        goto out;
    }
    if (!fs_is_file(file)) {
        rc = HEW_OK; /* a folder without SKILL.md: not a skill (said when it is close) */
        if (fs_exists(file))
            note(s, shown, "SKILL.md is not a file");
        goto out;
    }
    if ((rc = fs_read_file(file, SKILL_FILE_MAX, &text, &len, &e)) != HEW_OK) {
        if (rc == HEW_E_NOMEM)
            goto out;
        note(s, shown, rc == HEW_E_TOOBIG ? "SKILL.md is larger than 256 KiB" : e.msg);
        rc = HEW_OK;
        goto out;
    }
    frontmatter fm = FRONTMATTER_INIT;
    rc = frontmatter_parse(text, len, &fm, &e);
    if (rc == HEW_E_NOMEM)
        goto out;
    if (rc != HEW_OK || !fm.present) {
        note(s, shown, rc != HEW_OK ? e.msg : "no front matter (--- name: … description: … ---)");
        frontmatter_release(&fm);
        rc = HEW_OK;
        goto out;
    }
    rc = HEW_OK;
    if (!fm.name || !fm.description || !*fm.description) {
        note(s, shown, "its front matter lacks `name` or `description`");
    } else if (!name_ok(fm.name)) {
        note(s, shown, "its name is not 1 to 64 letters, digits, '.', '_' or '-'");
    } else if (skills_find(s, fm.name)) {
        note(s, shown, "a skill of that name was found first");
    } else if (s->n >= SKILLS_MAX) {
        note(s, shown, "more than 64 skills");
    } else {
        skill *v = realloc(s->items, (s->n + 1) * sizeof *v);
        if (!v) {
            rc = HEW_E_NOMEM;
        } else {
            s->items = v;
            skill *k = &v[s->n];
            k->name = strdup(fm.name);
            k->description = one_line(fm.description, SKILL_DESC_MAX);
            k->dir = strdup(dir);
            k->file = file;
            k->project = project;
            file = NULL;
            s->n++;
            if (!k->name || !k->description || !k->dir)
                rc = HEW_E_NOMEM;
        }
    }
    frontmatter_release(&fm);
out:
    free(shown);
    free(file);
    free(text);
    return rc;
}

/* The skills of one skills folder. root: what every path must stay inside (the workspace
 * for a project's folder), or NULL (the user's own). */
static hew_code scan(skills_set *s, const char *folder, const char *root, bool project)
{
    char *real = NULL;
    hew_err e = HEW_ERR_INIT;
    if (!fs_is_dir(folder))
        return HEW_OK;
    hew_code rc = root ? path_resolve_in(root, folder, &real, &e)
                       : ((real = realpath(folder, NULL)) ? HEW_OK : HEW_E_NOTFOUND);
    if (rc != HEW_OK) {
        if (rc == HEW_E_NOMEM)
            return rc;
        note(s, folder, "the skills folder leads out of the workspace");
        return HEW_OK;
    }
    walk_ent *ents = NULL;
    size_t n = 0;
    if (walk_readdir(real, &ents, &n, NULL) != HEW_OK) {
        free(real);
        return HEW_OK;
    }
    for (size_t i = 0; rc == HEW_OK && i < n; i++) {
        if (ents[i].name[0] == '.' || (ents[i].kind != WALK_DIR && ents[i].kind != WALK_LINK))
            continue;
        char *sub = path_join(real, ents[i].name), *dir = NULL;
        if (!sub)
            rc = HEW_E_NOMEM;
        else if (project ? path_resolve_in(root, sub, &dir, &e) != HEW_OK
                         : !(dir = realpath(sub, NULL)))
            note(s, sub, project ? "the skill's folder leads out of the workspace"
                                 : "the skill's folder cannot be resolved");
        else if (fs_is_dir(dir))
            rc = add_skill(s, dir, project);
        free(sub);
        free(dir);
    }
    walk_ents_free(ents, n);
    free(real);
    return rc;
}

hew_code skills_load(const char *cwd, const skills_opts *o, skills_set *out, hew_err *err)
{
    hew_code rc = HEW_OK;
    char *root = cwd ? realpath(cwd, NULL) : NULL;
    for (size_t i = 0; rc == HEW_OK && o->project && root &&
                       i < sizeof project_dirs / sizeof project_dirs[0];
         i++) {
        char *f = path_join(root, project_dirs[i]);
        rc = f ? scan(out, f, root, true) : HEW_E_NOMEM;
        free(f);
    }
    free(root);
    const char *home = o->home ? o->home : getenv("HOME");
    if (rc == HEW_OK && o->user) {
        char *cfg = NULL;
        const char *xdg = getenv("XDG_CONFIG_HOME");
        if (o->config_dir)
            cfg = strdup(o->config_dir);
        else if (xdg && xdg[0] == '/')
            cfg = path_join(xdg, "hew/skills");
        else if (home && *home)
            cfg = path_join(home, ".config/hew/skills");
        if (cfg)
            rc = scan(out, cfg, NULL, false);
        free(cfg);
        char *claude = home && *home ? path_join(home, ".claude/skills") : NULL;
        if (rc == HEW_OK && claude)
            rc = scan(out, claude, NULL, false);
        free(claude);
    }
    if (rc == HEW_OK && out->notices.err)
        rc = out->notices.err;
    return rc == HEW_OK ? HEW_OK : hew_err_set(err, rc, "finding skills: out of memory");
}

void skills_set_release(skills_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].name);
        free(s->items[i].description);
        free(s->items[i].dir);
        free(s->items[i].file);
    }
    free(s->items);
    buf_release(&s->notices);
    *s = (skills_set)SKILLS_SET_INIT;
}

const skill *skills_find(const skills_set *s, const char *name)
{
    for (size_t i = 0; name && i < s->n; i++)
        if (strcmp(s->items[i].name, name) == 0)
            return &s->items[i];
    return NULL;
}

void skills_render(const skills_set *s, buf *out)
{
    for (size_t i = 0; i < s->n; i++)
        buf_printf(out, "- %s: %s\n", s->items[i].name, s->items[i].description);
}

/* The files below dir (relative names), at most SKILL_LIST_MAX, 4 levels deep; links
 * listed only when they stay inside the skill's folder. */
static void list_files(const char *top, const char *dir, int depth, buf *out, size_t *count)
{
    walk_ent *ents = NULL;
    size_t n = 0;
    if (depth > 4 || walk_readdir(dir, &ents, &n, NULL) != HEW_OK)
        return;
    for (size_t i = 0; i < n && *count < SKILL_LIST_MAX; i++) {
        if (ents[i].name[0] == '.')
            continue;
        char *p = path_join(dir, ents[i].name), *real = NULL;
        if (!p)
            break;
        if (path_resolve_in(top, p, &real, NULL) == HEW_OK) {
            if (fs_is_dir(real) && ents[i].kind == WALK_DIR) {
                list_files(top, p, depth + 1, out, count);
            } else if (fs_is_file(real) && strcmp(p + strlen(top), "/SKILL.md") != 0) {
                buf_printf(out, "- %s\n", p);
                (*count)++;
            }
        }
        free(real);
        free(p);
    }
    if (*count >= SKILL_LIST_MAX)
        buf_printf(out, "(the listing stops at %d files)\n", SKILL_LIST_MAX);
    walk_ents_free(ents, n);
}

hew_code skills_use(const skill *sk, const char *path, buf *out, hew_err *err)
{
    char *text = NULL, *real = NULL;
    size_t len = 0;
    hew_code rc;
    if (path && *path) {
        if ((rc = path_resolve_in(sk->dir, path, &real, err)) != HEW_OK)
            return rc;
        if ((rc = fs_read_file(real, SKILL_FILE_MAX, &text, &len, err)) == HEW_OK)
            utf8_sanitize(text, len, out);
        free(real);
        free(text);
        return rc;
    }
    if ((rc = fs_read_file(sk->file, SKILL_FILE_MAX, &text, &len, err)) != HEW_OK)
        return rc;
    frontmatter fm = FRONTMATTER_INIT;
    size_t body = frontmatter_parse(text, len, &fm, NULL) == HEW_OK ? fm.body : 0;
    frontmatter_release(&fm);
    while (body < len && (text[body] == '\n' || text[body] == '\r'))
        body++;
    buf_printf(out, "# Skill: %s\n\n", sk->name);
    utf8_sanitize(text + body, len - body, out);
    free(text);
    buf_printf(out, "\n\n# The skill's folder: %s\n", sk->dir);
    size_t before = out->len, count = 0;
    buf_puts(out, "Its other files (read one with use_skill and its path, relative to the "
                  "folder):\n");
    size_t header = out->len;
    list_files(sk->dir, sk->dir, 0, out, &count);
    if (out->len == header)
        out->len = before; /* no other files */
    return HEW_OK;
}
