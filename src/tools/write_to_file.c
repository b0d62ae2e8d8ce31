/* write_to_file — create a file or replace its whole content with what the model wrote.
 * Missing directories are created, a code fence the model put around the content is
 * removed, the file's line-ending style is kept, and the write is atomic. It must never
 * write a path .clineignore blocks, never write without approval (hew's control files:
 * the user's, whatever the auto-approval), never write anywhere but the path it checked,
 * and never leave half a file behind. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/file_edit.h"
#include "tools/workspace.h"

static const tool_param params[] = {
    { "path", true,
      "The path of the file to write, relative to the current working directory.",
      "File path here", NULL },
    { "content", true,
      "The complete content of the file: every line, nothing left out or abbreviated, "
      "also the parts that do not change.",
      "Your file content here", NULL },
};

/* The path: "path", or "absolutePath" (Cline's native variant). */
static const char *path_param(const tool_call *call)
{
    const char *p = tool_call_param(call, "path");
    return p && *p ? p : tool_call_param(call, "absolutePath");
}

/* Drop a leading "```lang" line and then a trailing "```" line. The trailing fence alone
 * is kept: a Markdown file may well end with one. */
static void strip_fences(const char **s, size_t *n)
{
    const char *p = *s;
    size_t len = *n;
    if (len < 3 || memcmp(p, "```", 3) != 0)
        return;
    const char *first_nl = memchr(p, '\n', len);
    if (!first_nl)
        return;
    len -= (size_t)(first_nl + 1 - p);
    p = first_nl + 1;
    size_t end = len;
    while (end && (p[end - 1] == '\n' || p[end - 1] == '\r' || p[end - 1] == ' '))
        end--;
    if (end >= 3 && memcmp(p + end - 3, "```", 3) == 0) {
        size_t ls = end - 3;
        while (ls && p[ls - 1] != '\n')
            ls--;
        if (ls + 3 == end || (ls + 3 <= end && strspn(p + ls, " \t") == end - 3 - ls))
            len = ls;
    }
    *s = p;
    *n = len;
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
    struct stat st;
    bool resolved = ws_resolve(env->cwd, path, &wp, NULL) == HEW_OK;
    bool exists = resolved && ws_stat(env->cwd, &wp, &st, NULL) == HEW_OK;
    if (resolved)
        wp.control = ws_control(env->cwd, path, &wp);
    json_t *data = ws_tool_data(exists ? "editedExistingFile" : "newFileCreated",
                                wp.rel ? wp.rel : path);
    const char *content = tool_call_param(call, "content");
    ws_data_put(data, "content", content ? content : "");
    ws_data_put(data, "controlFile", wp.control);
    ws_show_partial(env, data);
    json_decref(data);
    ws_path_release(&wp);
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *path = path_param(call);
    const char *content = tool_call_param(call, "content");
    ws_path wp = WS_PATH_INIT;
    ignore *ig = NULL;
    file_before fb = { 0 };
    char *text = NULL;
    hew_code rc = HEW_OK;

    if (!path || !*path) {
        ws_error_result(env, out, "Missing value for the required parameter 'path'.");
        return HEW_OK;
    }
    if (!content) {
        ws_error_result(env, out, "Missing value for the required parameter 'content': give "
                                  "the complete content of the file.");
        return HEW_OK;
    }
    if (ws_target(env, path, false, "Cannot write", &wp, &ig, out) != WS_TARGET_OK)
        goto done;
    wp.control = ws_control(env->cwd, path, &wp);
    if (!file_before_load(env, &wp, ig, &fb, out))
        goto done;

    const char *c = content;
    size_t n = strlen(content);
    strip_fences(&c, &n);
    text = malloc(n + 2);
    if (!text) {
        ws_error_result(env, out, "out of memory");
        goto done;
    }
    memcpy(text, c, n);
    n = file_edit_to_lf(text, n);
    if (n && text[n - 1] != '\n')
        text[n++] = '\n';
    text[n] = '\0';
    rc = file_edit_finish(env, &wp, &fb, text, n, out);

done:
    free(text);
    file_before_release(&fb);
    ignore_free(ig);
    ws_path_release(&wp);
    return rc;
}

const tool_def tool_write_to_file = {
    .name = "write_to_file",
    .description =
        "Write a file: create it (with any missing directories) or replace all of its "
        "content. Give the complete content every time. For small changes to an existing "
        "file prefer replace_in_file.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_EDITS_FILES,
    .run = run,
    .partial = partial,
    .describe = describe,
};
