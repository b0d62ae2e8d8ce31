/* search_files — regex search over the files of a directory (search.c), results grouped
 * by file with one line of context, at most 300 hits and 256 KiB of text. It must never
 * show a file .clineignore blocks (nor a hard link of one), never search binary files,
 * never read outside the directory it checked, and never return more than its caps
 * without saying so. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/utf8.h"
#include "tools/search.h"
#include "tools/workspace.h"

#define SEARCH_MAX_HITS 300
#define SEARCH_OUTPUT_MAX ((size_t)256 * 1024)
#define SEARCH_LINE_MAX 500 /* bytes of one line shown; longer lines are cut */

static const tool_param params[] = {
    { "path", true,
      "The directory to search, relative to the current working directory; its "
      "subdirectories are searched too.",
      "Directory path here", NULL },
    { "regex", true,
      "The regular expression to search for (PCRE2 syntax, case-sensitive, matched line "
      "by line).",
      "Your regex pattern here", NULL },
    { "file_pattern", false,
      "A glob that limits the files searched, e.g. '*.ts' or '*.{c,h}'. Optional; all "
      "files by default.",
      "file pattern here (optional)", NULL },
};

static void describe(const tool_call *call, buf *out)
{
    const char *regex = tool_call_param(call, "regex");
    const char *glob = tool_call_param(call, "file_pattern");
    if (!regex || strlen(regex) > 200 || strchr(regex, '\n')) {
        buf_printf(out, "[%s]", call->name);
        return;
    }
    buf_printf(out, "[%s for '%s'", call->name, regex);
    if (glob && *glob && strlen(glob) <= 200 && !strchr(glob, '\n'))
        buf_printf(out, " in '%s'", glob);
    buf_putc(out, ']');
}

/* One line of a result block: "│text", right-trimmed, cut at SEARCH_LINE_MAX. */
static void put_line(buf *out, const char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    buf_puts(out, "\xe2\x94\x82"); /* │ */
    if (n > SEARCH_LINE_MAX) {
        utf8_sanitize(s, utf8_cut(s, n, SEARCH_LINE_MAX), out);
        buf_puts(out, " [… line cut]");
    } else {
        utf8_sanitize(s, n, out);
    }
    buf_putc(out, '\n');
}

static void format_results(const search_result *r, const char *prefix, buf *out)
{
    if (r->more)
        buf_printf(out, "Showing the first %d results; there are more. Use a more specific "
                        "regex or file_pattern if you need the others.\n\n", SEARCH_MAX_HITS);
    else
        buf_printf(out, "Found %zu result%s.\n\n", r->nhits, r->nhits == 1 ? "" : "s");
    size_t limit_at = out->len + SEARCH_OUTPUT_MAX;
    bool truncated = false;
    for (size_t i = 0; i < r->nhits && !truncated;) {
        size_t f = r->hits[i].file;
        size_t mark = out->len;
        buf_printf(out, "%s%s\n\xe2\x94\x82----\n", prefix, r->files[f]);
        size_t last_printed = 0; /* line number of the last line printed in this file */
        size_t k = i;
        for (; k < r->nhits && r->hits[k].file == f; k++) {
            const search_hit *h = &r->hits[k];
            bool next_is_hit = k + 1 < r->nhits && r->hits[k + 1].file == f &&
                               r->hits[k + 1].line == h->line + 1;
            bool show_before = h->before && h->line - 1 > last_printed;
            size_t first = show_before ? h->line - 1 : h->line;
            if (last_printed && first > last_printed + 1)
                buf_puts(out, "\xe2\x94\x82----\n"); /* a gap between groups of lines */
            if (show_before)
                put_line(out, h->before);
            put_line(out, h->text);
            last_printed = h->line;
            if (h->after && !next_is_hit) {
                put_line(out, h->after);
                last_printed = h->line + 1;
            }
        }
        i = k;
        buf_puts(out, "\xe2\x94\x82----\n\n");
        if (out->len > limit_at || out->err) {
            buf_truncate(out, mark);
            truncated = true;
        }
    }
    while (out->len && out->data[out->len - 1] == '\n')
        buf_truncate(out, out->len - 1);
    if (truncated)
        buf_printf(out, "\n\n[Results cut here: they exceed %zu KB. Use a more specific regex "
                        "or file_pattern.]", SEARCH_OUTPUT_MAX / 1024);
}

/* A file with other hard links is searched only when none of them is ignored. */
static bool not_ignored_link(void *ud, const struct stat *st)
{
    return ws_links_check(ud, st) == WS_LINK_OK;
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *path = tool_call_param(call, "path");
    const char *regex = tool_call_param(call, "regex");
    const char *glob = tool_call_param(call, "file_pattern");
    ws_path wp = WS_PATH_INIT;
    ignore *ig = NULL;
    ws_links *links = NULL;
    json_t *data = NULL;
    search_result r = SEARCH_RESULT_INIT;
    buf text = BUF_INIT(SEARCH_OUTPUT_MAX + 64 * 1024);
    hew_err err = HEW_ERR_INIT;
    hew_code rc = HEW_OK;

    if (!path || !*path)
        path = ".";
    if (!regex || !*regex) {
        ws_error_result(env, out, "Missing value for the required parameter 'regex'.");
        return HEW_OK;
    }
    if (ws_target(env, path, true, "Cannot search", &wp, &ig, out) != WS_TARGET_OK)
        goto done;
    struct stat st;
    if (ws_stat(env->cwd, &wp, &st, &err) != HEW_OK) {
        if (err.code == HEW_E_NOTFOUND)
            ws_error_result(env, out, "Directory not found: %s", wp.abs);
        else
            ws_error_result(env, out, "Cannot search %s: %s", wp.rel, err.msg);
        goto done;
    }
    if (!S_ISDIR(st.st_mode)) {
        ws_error_result(env, out, "%s is a file, not a directory. Give search_files its "
                                  "directory (with file_pattern to pick the file), or use "
                                  "read_file.", wp.rel);
        goto done;
    }
    if (search_check_regex(regex, &err) != HEW_OK) {
        ws_error_result(env, out, "The regex '%s' is not valid: %s", regex, err.msg);
        goto done;
    }

    char *root_real = realpath(env->cwd, NULL);
    links = ws_links_new(root_real ? root_real : env->cwd, ig);
    search_opts so = {
        .dir = wp.abs,
        .root = wp.outside ? NULL : root_real,
        .dir_rel = wp.outside ? NULL : wp.rel,
        .regex = regex,
        .glob = glob,
        .cline = ig,
        .max_hits = SEARCH_MAX_HITS,
        .abort = env->abort,
        .file_ok = not_ignored_link,
        .file_ok_ud = links,
    };
    hew_code src = search_run(&so, &r, &err);
    free(root_real);
    if (src == HEW_E_ABORTED) {
        rc = src;
        goto done;
    }
    if (src != HEW_OK) {
        ws_error_result(env, out, "Searching %s failed: %s", wp.rel, err.msg);
        goto done;
    }
    /* File paths are shown relative to the working directory. */
    buf prefix = BUF_INIT(0);
    if (wp.outside)
        buf_printf(&prefix, "%s/", wp.abs);
    else if (strcmp(wp.rel, ".") != 0)
        buf_printf(&prefix, "%s/", wp.rel);
    format_results(&r, prefix.data ? prefix.data : "", &text);
    buf_release(&prefix);

    data = ws_tool_data("searchFiles", wp.rel);
    ws_data_put(data, "regex", regex);
    ws_data_put(data, "filePattern", glob && *glob ? glob : NULL);
    ws_data_put(data, "content", text.data ? text.data : "");
    bool approved = false;
    rc = ws_approve(env, "read", wp.outside, data, NULL, out, &approved);
    if (rc != HEW_OK || !approved)
        goto done;
    buf_append(&out->text, text.data ? text.data : "", text.len);
    env->mistake(env, false);

done:
    buf_release(&text);
    search_result_release(&r);
    json_decref(data);
    ws_links_free(links);
    ignore_free(ig);
    ws_path_release(&wp);
    return rc;
}

const tool_def tool_search_files = {
    .name = "search_files",
    .description =
        "Search the files of a directory (and its subdirectories) for a regular "
        "expression. Each matching line is shown with the line before and after it, "
        "grouped by file. Files ignored by .gitignore, hidden files and binary files are "
        "skipped. Use it to find where something is defined or used.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY,
    .run = run,
    .describe = describe,
};
