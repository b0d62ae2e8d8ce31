/* skills — the "Agent Skills" part of include/hew.h: the skills a task in a workspace
 * would be offered (prompt/skills.h), for front ends (`hew skills`, /skills). Never
 * prints or exits. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "hew.h"
#include "lib/lib_store.h"
#include "prompt/skills.h"

hew_code hew_skills_json(const hew_options *o, char **out, char *err, size_t errlen)
{
    if (!out)
        return lib_fail(HEW_E_INVALID, err, errlen, "no place for the answer (out is NULL)");
    *out = NULL;
    hew_options d;
    hew_options_init(&d);
    if (!o)
        o = &d;
    char here[PATH_MAX];
    const char *cwd = o->cwd && *o->cwd ? o->cwd : getcwd(here, sizeof here);
    if (!cwd)
        return lib_fail(HEW_E_IO, err, errlen, "the current directory cannot be read");
    skills_set s = SKILLS_SET_INIT;
    skills_opts so = { .project = true, .user = true, .config_dir = NULL, .home = NULL };
    hew_err e = HEW_ERR_INIT;
    if (o->skills && skills_load(cwd, &so, &s, &e) != HEW_OK) {
        skills_set_release(&s);
        return lib_fail(e.code, err, errlen, e.msg);
    }
    json_t *root = json_object(), *list = json_array(), *notes = json_array();
    for (size_t i = 0; list && i < s.n; i++)
        json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s}", "name", s.items[i].name,
                                              "description", s.items[i].description, "path",
                                              s.items[i].file, "scope",
                                              s.items[i].project ? "project" : "user"));
    const char *p = s.notices.data;
    while (notes && p && *p) {
        size_t n = strcspn(p, "\n");
        json_array_append_new(notes, json_stringn(p, n));
        p += n + (p[n] == '\n');
    }
    json_object_set_new(root, "enabled", json_boolean(o->skills != 0));
    json_object_set_new(root, "skills", list);
    json_object_set_new(root, "notices", notes);
    skills_set_release(&s);
    *out = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    return *out ? HEW_OK : lib_fail(HEW_E_NOMEM, err, errlen, "out of memory");
}
