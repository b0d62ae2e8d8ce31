/* checkpoints — a stored task's checkpoints on the command line: `hew checkpoints ID`,
 * `hew diff ID N [M]`, `hew restore ID N [files|task|both]`, and the same printing for
 * /checkpoints, /diff and /restore in the interactive session. Everything goes through
 * the "Checkpoints" part of include/hew.h. What it prints for a person is sanitised
 * (termsafe); the patch of `hew diff` is data, byte-exact when standard output is not a
 * terminal (so it can be applied), and --json prints the JSON. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "termsafe.h"

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int fail(const char *err)
{
    fprintf(stderr, "hew: %s\n", err);
    return 1;
}

int cli_checkpoints_print(const hew_options *o, const char *id, int as_json)
{
    char err[1024] = "";
    char *js = NULL;
    if (hew_checkpoints_json(o, id, &js, err, sizeof err) != HEW_OK)
        return fail(err);
    if (as_json) {
        printf("%s\n", js);
        hew_free(js);
        return 0;
    }
    json_t *arr = json_loads(js, 0, NULL);
    hew_free(js);
    termsafe_json(arr);
    if (!json_array_size(arr)) {
        printf("task %s has no checkpoints (checkpoints were off, or it made no request)\n", id);
        json_decref(arr);
        return 0;
    }
    printf("%3s  %-10s %-19s  %s\n", "N", "KIND", "TIME", "COMMIT");
    size_t i;
    json_t *c;
    json_array_foreach(arr, i, c) {
        char when[32] = "";
        time_t t = (time_t)(json_integer_value(json_object_get(c, "ts")) / 1000);
        struct tm tm;
        if (localtime_r(&t, &tm))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        const char *hash = jstr(c, "hash");
        const char *error = jstr(c, "error");
        printf("%3lld  %-10s %-19s  %s\n", (long long)json_integer_value(json_object_get(c, "n")),
               jstr(c, "kind"), when,
               *hash ? hash : *error ? error : "(no commit: not finished)");
    }
    printf("compare: hew diff %s N [M] · restore: hew restore %s N [files|task|both]\n", id, id);
    json_decref(arr);
    return 0;
}

int cli_checkpoint_diff_print(const hew_options *o, const char *id, const char *from,
                              const char *to, int as_json)
{
    char err[1024] = "";
    char *js = NULL;
    if (hew_checkpoint_diff(o, id, from, to, &js, err, sizeof err) != HEW_OK)
        return fail(err);
    if (as_json) {
        printf("%s\n", js);
        hew_free(js);
        return 0;
    }
    json_t *d = json_loads(js, 0, NULL);
    hew_free(js);
    json_t *files = json_object_get(d, "files");
    termsafe_json(files); /* the paths; the patch below is data */
    printf("changes from checkpoint %s to %s%s: %zu file%s\n", from,
           to && *to ? "checkpoint " : "", to && *to ? to : "now", json_array_size(files),
           json_array_size(files) == 1 ? "" : "s");
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        if (json_is_string(json_object_get(f, "old_path")))
            printf("  %s %s -> %s\n", jstr(f, "status"), jstr(f, "old_path"), jstr(f, "path"));
        else
            printf("  %s %s\n", jstr(f, "status"), jstr(f, "path"));
    }
    const char *patch = jstr(d, "patch");
    if (*patch) {
        fputc('\n', stdout);
        if (isatty(1)) /* the files' contents, read by a person */
            termsafe_fputs(patch, stdout);
        else
            fputs(patch, stdout);
        if (patch[strlen(patch) - 1] != '\n')
            fputc('\n', stdout);
    }
    if (json_is_true(json_object_get(d, "truncated")))
        printf("(the diff is cut here: too long)\n");
    json_decref(d);
    return 0;
}

static void list_paths(const char *label, const json_t *a)
{
    if (!json_array_size(a))
        return;
    printf("  %s:", label);
    size_t i;
    json_t *p;
    json_array_foreach(a, i, p)
        printf(" %s", json_string_value(p));
    printf("\n");
}

int cli_checkpoint_restore_print(const hew_options *o, const char *id, const char *target,
                                 const char *mode, int as_json)
{
    char err[1024] = "";
    char *js = NULL;
    if (hew_checkpoint_restore(o, id, target, mode, &js, err, sizeof err) != HEW_OK)
        return fail(err);
    if (as_json) {
        printf("%s\n", js);
        hew_free(js);
        return 0;
    }
    json_t *r = json_loads(js, 0, NULL);
    hew_free(js);
    termsafe_json(r);
    json_t *files = json_object_get(r, "files");
    json_t *task = json_object_get(r, "task");
    if (files) {
        printf("restored the files of task %s to checkpoint %s\n", id, target);
        list_paths("written", json_object_get(files, "written"));
        list_paths("deleted", json_object_get(files, "deleted"));
        list_paths("kept (never saved in a checkpoint, left alone)",
                   json_object_get(files, "kept"));
        if (!json_array_size(json_object_get(files, "written")) &&
            !json_array_size(json_object_get(files, "deleted")))
            printf("  (no file differed)\n");
        printf("  undo: hew restore %s %s files\n", id, jstr(files, "safety"));
    }
    if (task)
        printf("cut the conversation of task %s back to checkpoint %s: %lld -> %lld API "
               "messages; %lld events and %lld requests ($%.4f) removed\n",
               id, target, (long long)json_integer_value(json_object_get(task, "api_messages_before")),
               (long long)json_integer_value(json_object_get(task, "api_messages_after")),
               (long long)json_integer_value(json_object_get(task, "ui_messages_removed")),
               (long long)json_integer_value(json_object_get(task, "requests_removed")),
               json_number_value(json_object_get(task, "cost_removed")));
    json_decref(r);
    return 0;
}

static int usage_error(const char *msg)
{
    fprintf(stderr, "hew: %s\n"
                    "usage: hew checkpoints [--json] ID              a task's checkpoints\n"
                    "       hew diff [--json] ID N [M]               changes from checkpoint N to M (or now)\n"
                    "       hew restore [--json] ID N [files|task|both]   go back to checkpoint N\n"
                    "                                              (default files; N may be a commit hash)\n",
            msg);
    return 2;
}

/* Split argv into --json and at most `max` words. */
static int words_of(int argc, char **argv, int *as_json, const char **w, int max, int *nw)
{
    *as_json = 0;
    *nw = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            *as_json = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_error("checkpoints, diff and restore");
            return 3;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("unknown option");
        } else if (*nw < max) {
            w[(*nw)++] = argv[i];
        } else {
            return usage_error("too many words");
        }
    }
    return 0;
}

int cli_checkpoints(const char *cmd, int argc, char **argv)
{
    const char *w[3] = { NULL, NULL, NULL };
    int as_json, nw;
    int rc = words_of(argc, argv, &as_json, w, 3, &nw);
    if (rc)
        return rc == 3 ? 0 : rc;
    if (strcmp(cmd, "checkpoints") == 0) {
        if (nw != 1)
            return usage_error("checkpoints wants one task id");
        return cli_checkpoints_print(NULL, w[0], as_json);
    }
    if (strcmp(cmd, "diff") == 0) {
        if (nw < 2)
            return usage_error("diff wants a task id and a checkpoint");
        return cli_checkpoint_diff_print(NULL, w[0], w[1], w[2], as_json);
    }
    if (nw < 2)
        return usage_error("restore wants a task id and a checkpoint");
    const char *mode = w[2] ? w[2] : "files";
    if (strcmp(mode, "files") != 0 && strcmp(mode, "task") != 0 && strcmp(mode, "both") != 0)
        return usage_error("restore what? files, task or both");
    return cli_checkpoint_restore_print(NULL, w[0], w[1], mode, as_json);
}
