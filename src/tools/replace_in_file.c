/* replace_in_file — targeted edits of an existing file with SEARCH/REPLACE blocks
 * (diff_apply). All blocks apply or none: a block that does not match leaves the file as
 * it was, and the model gets the reason, the block, and the current file to retry with.
 * Line endings are kept. It must never write a path .clineignore blocks, never write
 * without approval (hew's control files: the user's, whatever the auto-approval), never
 * write anywhere but the path it checked, and never leave half a file behind. */
#include <stdlib.h>
#include <string.h>

#include "tools/diff_apply.h"
#include "tools/file_edit.h"
#include "tools/workspace.h"

static const tool_param params[] = {
    { "path", true,
      "The path of the file to change, relative to the current working directory.",
      "File path here", NULL },
    { "diff", true,
      "One or more SEARCH/REPLACE blocks:\n"
      "------- SEARCH\n[exact lines from the file, whole lines, with their indentation]\n"
      "=======\n[the lines to put instead]\n+++++++ REPLACE\n"
      "Blocks are applied in file order; each replaces the first match only. Keep SEARCH "
      "sections short but unique. To delete lines, leave the replacement empty.",
      "Search and replace blocks here", NULL },
};

static const char *path_param(const tool_call *call)
{
    const char *p = tool_call_param(call, "path");
    return p && *p ? p : tool_call_param(call, "absolutePath");
}

static void describe(const tool_call *call, buf *out)
{
    const char *path = path_param(call);
    if (path && *path && !strchr(path, '\n') && strlen(path) <= 200)
        buf_printf(out, "[%s for '%s']", call->name, path);
    else
        buf_printf(out, "[%s]", call->name);
}

static void partial(tool_env *env, const tool_call *call)
{
    const char *path = path_param(call);
    if (!path || !*path)
        return;
    ws_path wp = WS_PATH_INIT;
    if (ws_resolve(env->cwd, path, &wp, NULL) == HEW_OK)
        wp.control = ws_control(env->cwd, path, &wp);
    json_t *data = ws_tool_data("editedExistingFile", wp.rel ? wp.rel : path);
    const char *diff = tool_call_param(call, "diff");
    ws_data_put(data, "content", diff ? diff : "");
    ws_data_put(data, "controlFile", wp.control);
    ws_show_partial(env, data);
    json_decref(data);
    ws_path_release(&wp);
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *path = path_param(call);
    const char *diff = tool_call_param(call, "diff");
    ws_path wp = WS_PATH_INIT;
    ignore *ig = NULL;
    file_before fb = { 0 };
    char *d = NULL;
    buf updated = BUF_INIT(FILE_EDIT_MAX * 2);
    buf why = BUF_INIT(0);
    hew_code rc = HEW_OK;

    if (!path || !*path || !diff) {
        ws_error_result(env, out, "Missing value for the required parameter '%s'.",
                        !path || !*path ? "path" : "diff");
        return HEW_OK;
    }
    if (ws_target(env, path, false, "Cannot edit", &wp, &ig, out) != WS_TARGET_OK)
        goto done;
    wp.control = ws_control(env->cwd, path, &wp);
    if (!file_before_load(env, &wp, ig, &fb, out))
        goto done;
    if (!fb.exists) {
        ws_error_result(env, out, "File not found: %s\nreplace_in_file changes existing files; "
                                  "use write_to_file to create a new one.", wp.abs);
        goto done;
    }

    size_t dlen = strlen(diff);
    d = strndup(diff, dlen);
    if (!d) {
        ws_error_result(env, out, "out of memory");
        goto done;
    }
    dlen = file_edit_to_lf(d, dlen);
    diff_stats stats;
    hew_code arc = diff_apply(fb.text, fb.len, d, dlen, &updated, &why, &stats);
    if (arc == HEW_E_INVALID) {
        env->say(env, "diff_error", wp.rel, NULL, 0);
        buf_reset(&out->text);
        out->is_error = true;
        buf_printf(&out->text, "The tool execution failed with the following error:\n<error>\n"
                               "%s\n\nThe SEARCH text must match lines of the file exactly "
                               "(or differ only in leading and trailing whitespace), and "
                               "several blocks must come in the order they appear in the "
                               "file.\n\n",
                   why.data ? why.data : "");
        /* A file outside the workspace is shown only when reading it needs no approval:
         * a failed edit must not read what read_file would have asked about. */
        bool show = !wp.outside || (env->auto_approved && env->auto_approved(env, "read", true));
        if (show) {
            buf_puts(&out->text, "Nothing was changed; the file is still:\n\n");
            file_edit_put_content(&out->text, "file_content", wp.rel, fb.text, fb.len);
            buf_puts(&out->text, "\n\nTry again with this content as the reference, using "
                                 "fewer and more precise SEARCH blocks (for a large file, "
                                 "fewer than five per call). If this fails three times in a "
                                 "row, use write_to_file instead.\n</error>");
        } else {
            buf_puts(&out->text, "Nothing was changed. The file is outside the workspace, so "
                                 "its content is not shown here: read it with read_file (the "
                                 "user approves that) and try again.\n</error>");
        }
        env->mistake(env, true);
        goto done;
    }
    if (arc != HEW_OK) {
        ws_error_result(env, out, "Applying the diff to %s failed: %s", wp.rel,
                        arc == HEW_E_TOOBIG ? "the result is too large" : "out of memory");
        goto done;
    }
    rc = file_edit_finish(env, &wp, &fb, updated.data ? updated.data : "", updated.len, out);

done:
    free(d);
    buf_release(&updated);
    buf_release(&why);
    file_before_release(&fb);
    ignore_free(ig);
    ws_path_release(&wp);
    return rc;
}

const tool_def tool_replace_in_file = {
    .name = "replace_in_file",
    .description =
        "Change parts of an existing file with SEARCH/REPLACE blocks, each giving exact "
        "lines of the file and what replaces them. Use it for targeted edits; list several "
        "blocks in file order for several changes. The result shows the file as saved.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_EDITS_FILES,
    .run = run,
    .partial = partial,
    .describe = describe,
};
