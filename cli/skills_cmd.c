/* skills_cmd — the Agent Skills on the command line: `hew skills [--json] [options]` and
 * the list /skills prints in the interactive session, both from hew_skills_json. Names,
 * descriptions and paths are the workspace's text: sanitised (termsafe) for a person. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "sbuf.h"
#include "termsafe.h"

char *cli_skills_text(const hew_options *o, char *err, size_t errlen)
{
    char *js = NULL;
    if (hew_skills_json(o, &js, err, errlen) != HEW_OK)
        return NULL;
    json_t *root = json_loads(js, 0, NULL);
    hew_free(js);
    termsafe_json(root);
    sbuf b = SBUF_INIT;
    json_t *list = json_object_get(root, "skills"), *notes = json_object_get(root, "notices");
    size_t i;
    json_t *v;
    if (!json_is_true(json_object_get(root, "enabled")))
        sbuf_printf(&b, "skills are off (the skills setting)\n");
    else if (!json_array_size(list))
        sbuf_printf(&b, "no skills: put SKILL.md folders in .hew/skills, .claude/skills, "
                        ".agents/skills or ~/.config/hew/skills\n");
    json_array_foreach(list, i, v) {
        sbuf_printf(&b, "%s (%s)  %s\n    %s\n",
                    json_string_value(json_object_get(v, "name")),
                    json_string_value(json_object_get(v, "scope")),
                    json_string_value(json_object_get(v, "description")),
                    json_string_value(json_object_get(v, "path")));
    }
    json_array_foreach(notes, i, v)
        sbuf_printf(&b, "note: %s\n", json_string_value(v));
    json_decref(root);
    return sbuf_detach(&b);
}

int cli_skills(int argc, char **argv)
{
    if (argc > 0 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        fputs("usage: hew skills [--json] [--cwd DIR]   the Agent Skills (SKILL.md) a task in\n"
              "the workspace is offered, and those left out with why (docs/skills.md)\n",
              stdout);
        return 0;
    }
    cli_options co;
    if (cli_parse_options(argc, argv, &co) != 0)
        return 2;
    if (co.task) {
        fprintf(stderr, "hew: hew skills takes no task ('%s'; see hew skills --help)\n", co.task);
        return 2;
    }
    cli_config c;
    char err[1024] = "";
    if (cli_config_load(&c, &co, err, sizeof err) != 0) {
        fprintf(stderr, "hew: %s\n", err);
        return 2;
    }
    hew_options o;
    hew_options_init(&o);
    o.cwd = co.cwd;
    o.skills = c.num[CFG_SKILLS] != 0;
    int rc = 0;
    if (co.json) {
        char *js = NULL;
        if (hew_skills_json(&o, &js, err, sizeof err) == HEW_OK)
            printf("%s\n", js);
        else
            rc = 1;
        hew_free(js);
    } else {
        char *text = cli_skills_text(&o, err, sizeof err);
        if (text)
            fputs(text, stdout);
        else
            rc = 1;
        free(text);
    }
    if (rc)
        fprintf(stderr, "hew: %s\n", err);
    cli_config_release(&c);
    return rc;
}
