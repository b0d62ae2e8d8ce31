/* skills — Agent Skills (Claude Code's and Cline's SKILL.md folders): instructions the
 * model loads only when a task needs them. A skill is a folder <dir>/<folder>/ holding a
 * SKILL.md whose front matter (prompt/frontmatter.h) gives `name` and `description`; its
 * body (the text after the front matter) and the other files of the folder are what the
 * model gets when it uses the skill (the use_skill tool). The system prompt lists only
 * each skill's name and description (skills_render).
 *
 * Sources, in this order (the first skill of a name wins; a later one of the same name is
 * left out with a notice):
 *   project  <cwd>/.hew/skills, <cwd>/.claude/skills, <cwd>/.agents/skills
 *   user     $XDG_CONFIG_HOME/hew/skills (default ~/.config/hew/skills), ~/.claude/skills
 * A project's skills are the workspace's files, read as hostile input: the skills folder
 * and each skill folder must resolve inside the workspace (a symlink out of it is left
 * out), and for every skill SKILL.md and the files use_skill hands out must resolve
 * inside the skill's own folder (sys/path: `..` and symlinks resolved first). They are
 * read like the rule files (AGENTS.md): no trust needed, since they only add
 * instructions, run nothing and reach nothing (hew never runs a skill's scripts itself;
 * the model may, through execute_command and its approvals).
 *
 * Caps: at most SKILLS_MAX skills; SKILL.md at most SKILL_FILE_MAX bytes (a larger one is
 * left out with a notice); a description at most SKILL_DESC_MAX bytes (cut at a
 * character); a skill's file listing at most SKILL_LIST_MAX entries, 4 levels deep; a file
 * read through use_skill at most SKILL_FILE_MAX bytes. A SKILL.md without front matter,
 * or without `name` or `description`, or with a name that is not 1..64 of [A-Za-z0-9._-],
 * is left out with a notice naming the file. Hidden folders (".x") are not skills. */
#ifndef HEW_PROMPT_SKILLS_H
#define HEW_PROMPT_SKILLS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define SKILLS_MAX 64
#define SKILL_FILE_MAX ((size_t)256 << 10)
#define SKILL_DESC_MAX 1024
#define SKILL_LIST_MAX 200
#define SKILL_NAME_MAX 64

typedef struct skill {
    char *name;
    char *description;
    char *dir;       /* the skill's folder, resolved (absolute, no symlinks) */
    char *file;      /* its SKILL.md, resolved */
    bool project;    /* from the workspace (else the user's) */
} skill;

typedef struct skills_set {
    skill *items;
    size_t n;
    buf notices;     /* one line per skill left out, naming its file and why */
} skills_set;

#define SKILLS_SET_INIT { NULL, 0, BUF_INIT(0) }

typedef struct skills_opts {
    bool project;           /* the workspace's skills */
    bool user;              /* the user's skills */
    const char *config_dir; /* NULL: $XDG_CONFIG_HOME/hew/skills, else ~/.config/hew/skills */
    const char *home;       /* for ~/.claude/skills and the default above; NULL: $HOME */
} skills_opts;

/* Find the skills of cwd and of the user into *out (released first by the caller: start
 * from SKILLS_SET_INIT). Missing folders are no error; what is left out is in notices.
 * HEW_E_NOMEM only. */
hew_code skills_load(const char *cwd, const skills_opts *o, skills_set *out, hew_err *err);

void skills_set_release(skills_set *s);

/* The skill of that name, or NULL. */
const skill *skills_find(const skills_set *s, const char *name);

/* The system prompt's list: one "- name: description" line per skill (nothing when there
 * are none). */
void skills_render(const skills_set *s, buf *out);

/* What the model gets when it uses the skill: path NULL or "": the SKILL.md body (after
 * its front matter), then the skill's folder and its other files (absolute paths, which
 * use_skill with `path` reads); else the file `path` names, relative to the skill's
 * folder (or absolute inside it). HEW_E_ESCAPE: the path leaves the skill's folder;
 * HEW_E_NOTFOUND, HEW_E_TOOBIG (over SKILL_FILE_MAX), HEW_E_IO: err says which file. */
hew_code skills_use(const skill *sk, const char *path, buf *out, hew_err *err);

#endif
