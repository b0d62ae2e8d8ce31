/* restore_view — the preview /restore shows before it asks (restore_view.h). */
#include "restore_view.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "termsafe.h"

#define MAX_FILES 20 /* more are counted, not listed */

/* What restoring does to a file the diff from the checkpoint to now lists. */
static const char *action_of(const char *status)
{
    static const struct {
        const char *status, *action;
    } actions[] = {
        { "A", "deleted (added since)" },      { "M", "written back (changed since)" },
        { "D", "written back (deleted since)" }, { "R", "renamed back" },
        { "T", "written back (type changed)" },  { "C", "deleted (copied since)" },
    };
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(status, actions[i].status) == 0)
            return actions[i].action;
    return "restored";
}

char *restore_preview(const hew_options *o, const char *id, const char *target,
                      const char *mode, int *changes, char *err, size_t errlen)
{
    *changes = 0;
    sbuf b = SBUF_INIT;
    if (strcmp(mode, "task") != 0) {
        char *js = NULL;
        if (hew_checkpoint_diff(o, id, target, NULL, &js, err, errlen) != HEW_OK) {
            sbuf_release(&b);
            return NULL;
        }
        json_t *d = json_loads(js, 0, NULL);
        hew_free(js);
        json_t *files = json_object_get(d, "files");
        termsafe_json(files);
        size_t n = json_array_size(files), i;
        json_t *f;
        if (!n)
            sbuf_printf(&b, "no file differs from checkpoint %s\n", target);
        else
            sbuf_printf(&b, "%zu file%s go%s back to checkpoint %s:\n", n, n == 1 ? "" : "s",
                        n == 1 ? "es" : "", target);
        json_array_foreach(files, i, f) {
            if (i == MAX_FILES) {
                sbuf_printf(&b, "  … and %zu more (/diff %s shows them all)\n", n - i, target);
                break;
            }
            const char *path = json_string_value(json_object_get(f, "path"));
            sbuf_printf(&b, "  %s  %s\n", path ? path : "?",
                        action_of(json_string_value(json_object_get(f, "status"))
                                      ? json_string_value(json_object_get(f, "status"))
                                      : ""));
        }
        *changes = n > 0;
        json_decref(d);
    }
    if (strcmp(mode, "files") != 0) {
        sbuf_printf(&b, "the conversation is cut back to checkpoint %s: what came after it "
                        "is removed from the stored task\n", target);
        *changes = 1;
    }
    return sbuf_detach(&b);
}
