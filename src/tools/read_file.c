/* read_file — show the model a text file as numbered lines ("N | text"), at most 1000
 * lines and 400 KiB at a time, with a notice saying where to continue; an image (PNG,
 * JPEG, GIF, WebP, known by its bytes) as an image block, checked and scaled down
 * (api/image.h), when the model in use reads images, else a refusal naming it. It must never
 * return half a UTF-8 character, never read a file larger than 20 MB, never return the
 * bytes of a binary file, never read a path that .clineignore blocks (nor a hard link of
 * one), and never open a path other than the one it checked (ws_open_file). With the front
 * end's file access (tool_env.file_read: an editor's unsaved buffer) a text file's text
 * comes from the front end, after the same checks; images and binary files (by the
 * disk's bytes) are still read from the disk. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/image.h"
#include "base/fs.h"
#include "base/image.h"
#include "base/utf8.h"
#include "tools/workspace.h"

#define READ_FILE_MAX ((size_t)20 * 1000 * 1024) /* larger files are refused */
#define READ_OUTPUT_MAX ((size_t)400 * 1024)     /* numbered text returned at most */
#define READ_WINDOW 1000                          /* lines per read by default */
#define BINARY_PROBE 8000                         /* NUL in the first bytes = binary */

static const tool_param params[] = {
    { "path", true,
      "The path of the file to read, relative to the current working directory.",
      "File path here", NULL },
    { "start_line", false,
      "The first line to show (1-based). Optional; defaults to 1.",
      "Starting line number (optional)", NULL },
    { "end_line", false,
      "The last line to show (inclusive). Optional; at most 1000 lines are shown per read.",
      "Ending line number (optional)", NULL },
};

/* Parse an optional positive line number; 0 when absent. -1 when malformed. */
static long parse_line(const char *s)
{
    if (!s || !*s)
        return 0;
    while (*s == ' ')
        s++;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    while (end && *end == ' ')
        end++;
    if (errno || !end || *end || v < 1)
        return -1;
    return v;
}

static const char *ext_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot && dot[1] ? dot : NULL;
}

static bool ext_is(const char *ext, const char *const *list)
{
    if (!ext)
        return false;
    for (; *list; list++)
        if (strcasecmp(ext, *list) == 0)
            return true;
    return false;
}

static const char *const image_exts[] = { ".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp",
                                          ".tif", ".tiff", ".heic", ".avif", ".ico", NULL };
static const char *const document_exts[] = { ".pdf", ".docx", ".xlsx", ".pptx", NULL };

/* Number of lines: pieces separated by '\n', a final newline does not start a new one. */
static size_t count_lines(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    size_t lines = 0;
    const char *p = s, *end = s + n;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        lines++;
        p++;
    }
    if (s[n - 1] != '\n')
        lines++;
    return lines;
}

/* With the front end's file access (tool_env.file_read): whether the file on the disk is
 * text — neither an image nor binary by its first bytes, nor a document — so its text is
 * asked of the front end (an editor's buffer); images and binary files are read from the
 * disk. */
static bool disk_text(int fd, const char *ext)
{
    char head[BINARY_PROBE];
    ssize_t n = pread(fd, head, sizeof head, 0);
    return n >= 0 && image_sniff(head, (size_t)n) == IMAGE_UNKNOWN &&
           !memchr(head, '\0', (size_t)n) && !ext_is(ext, document_exts);
}

/* A stamp of text for the read cache (FNV-1a): the same text, the same stamp. */
static int64_t text_stamp(const char *text, size_t len)
{
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211u;
    return (int64_t)(h >> 1);
}

static void describe(const tool_call *call, buf *out)
{
    const char *path = tool_call_param(call, "path");
    if (path && *path && !strchr(path, '\n') && strlen(path) <= 200)
        buf_printf(out, "[%s for '%s']", call->name, path);
    else
        buf_printf(out, "[%s]", call->name);
}

/* The answer to a model that does not read images, naming it. */
static void refuse_image(tool_env *env, const char *rel, tool_result *out)
{
    ws_error_result(env, out, "%s is an image, but the model in use (%s) does not read "
                              "images, so it was not read. Ask the user to describe it, or to "
                              "switch to a model that takes images.",
                    rel, env->model && *env->model ? env->model : "unknown");
}

/* The image in text[0..len) as the result's image block, with a line saying what it is;
 * a model that does not read images got its refusal before the file was read (but an
 * image under another name is found only by its bytes: refused here the same way). */
static void read_image(tool_env *env, const ws_path *wp, const char *text, size_t len,
                       tool_result *out)
{
    if (!env->model_images) {
        refuse_image(env, wp->rel, out);
        return;
    }
    json_t *block = NULL;
    api_image_info info;
    hew_err err = HEW_ERR_INIT;
    if (api_image_block(text, len, wp->rel, &block, &info, &err) != HEW_OK) {
        ws_error_result(env, out, "Cannot show %s to the model: %s", wp->rel, err.msg);
        return;
    }
    out->images = json_array();
    if (!out->images || json_array_append_new(out->images, block) != 0) {
        ws_error_result(env, out, "Cannot show %s to the model: out of memory", wp->rel);
        return;
    }
    char desc[512];
    api_image_describe(wp->rel, &info, desc, sizeof desc);
    buf_printf(&out->text, "[Image: %s, %zu bytes %s. The image follows.]", desc, info.bytes,
               info.resized ? "after scaling" : "as stored");
    env->mistake(env, false);
}

static hew_code run(tool_env *env, const tool_call *call, tool_result *out)
{
    const char *path = tool_call_param(call, "path");
    long start = parse_line(tool_call_param(call, "start_line"));
    long end = parse_line(tool_call_param(call, "end_line"));
    if (start < 0 || end < 0) {
        ws_error_result(env, out,
                        "start_line and end_line must be whole numbers of 1 or more "
                        "(got start_line=%s, end_line=%s).",
                        tool_call_param(call, "start_line") ? tool_call_param(call, "start_line") : "(none)",
                        tool_call_param(call, "end_line") ? tool_call_param(call, "end_line") : "(none)");
        return HEW_OK;
    }

    ws_path wp = WS_PATH_INIT;
    ignore *ig = NULL;
    int fd = -1;
    char *text = NULL;
    json_t *data = NULL;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = HEW_OK;

    if (ws_target(env, path, false, "Cannot read", &wp, &ig, out) != WS_TARGET_OK)
        goto done;
    /* Opened now, beneath the root, without following a symlink: what is approved and
     * read is the file that was checked (workspace.h). */
    struct stat st;
    hew_code orc = ws_open_file(env->cwd, &wp, &fd, &st, &err);
    if (orc == HEW_E_NOTFOUND) {
        ws_error_result(env, out, "File not found: %s", wp.abs);
        goto done;
    }
    if (orc != HEW_OK) {
        ws_error_result(env, out, "Cannot read %s: %s", wp.rel, err.msg);
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        ws_error_result(env, out, "%s is a directory, not a file. Use list_files to see what "
                                  "it contains.", wp.rel);
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        ws_error_result(env, out, "%s is not a regular file (a device, socket or pipe) and "
                                  "cannot be read.", wp.rel);
        goto done;
    }
    int link = ws_link_check(env->cwd, ig, &st);
    if (link != WS_LINK_OK) {
        ws_link_blocked_result(env, wp.rel, link, out);
        goto done;
    }

    data = ws_tool_data("readFile", wp.rel);
    ws_data_put(data, "content", wp.abs);
    bool approved = false;
    rc = ws_approve(env, "read", wp.outside, data, NULL, out, &approved);
    if (rc != HEW_OK || !approved)
        goto done;

    const char *ext = ext_of(wp.abs);
    bool named_image = ext_is(ext, image_exts);
    if (named_image && !env->model_images) {
        refuse_image(env, wp.rel, out);
        goto done;
    }
    if ((size_t)st.st_size > READ_FILE_MAX) {
        ws_error_result(env, out, "File is too large to read into context: %s is %lld bytes "
                                  "(the limit is %zu). Use search_files to find the parts you "
                                  "need.", wp.rel, (long long)st.st_size, READ_FILE_MAX);
        goto done;
    }
    size_t len = 0;
    bool via_front_end = !named_image && env->file_read && disk_text(fd, ext);
    hew_code frc = via_front_end ? env->file_read(env, wp.abs, READ_FILE_MAX, &text, &len, &err)
                                 : fs_read_fd(fd, wp.rel, READ_FILE_MAX, &text, &len, &err);
    if (frc != HEW_OK) {
        ws_error_result(env, out, "%s", err.msg);
        goto done;
    }
    if (named_image || image_sniff(text, len) != IMAGE_UNKNOWN) {
        read_image(env, &wp, text, len, out);
        goto done;
    }
    if (memchr(text, '\0', len < BINARY_PROBE ? len : BINARY_PROBE) ||
        ext_is(ext, document_exts)) {
        ws_error_result(env, out, "Cannot read text from %s: it is a binary file%s%s%s, not "
                                  "text.", wp.rel, ext ? " (" : "", ext ? ext : "",
                        ext ? ")" : "");
        goto done;
    }

    size_t total = count_lines(text, len);
    if (start == 0)
        start = 1;
    if (end == 0)
        end = start + READ_WINDOW - 1;
    if (end < start) {
        long t = start;
        start = end;
        end = t;
    }
    if (end - start + 1 > READ_WINDOW)
        end = start + READ_WINDOW - 1;
    if (total == 0) {
        start = 1;
        end = 0;
    } else if ((size_t)start > total) {
        ws_error_result(env, out, "start_line %ld is past the end of %s, which has %zu "
                                  "line%s.", start, wp.rel, total, total == 1 ? "" : "s");
        goto done;
    }
    if ((size_t)end > total)
        end = (long)total;

    /* The duplicate-read notice: same file, same window, unchanged since. */
    buf key = BUF_INIT(0);
    buf_printf(&key, "%s\n%ld-%ld", wp.abs, start, end);
    int64_t mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    int64_t size = (int64_t)st.st_size;
    if (via_front_end) { /* an unsaved buffer changes without the disk: its text is the stamp */
        mtime_ns = text_stamp(text, len);
        size = (int64_t)len;
    }
    int reads = key.data ? ws_read_cache_note(env, key.data, mtime_ns, size) : 1;
    buf_release(&key);
    if (reads == 2)
        buf_printf(&out->text, "[File already read] %s was already read earlier in this "
                               "conversation and has not changed. Here it is again:\n\n",
                   wp.rel);
    else if (reads >= 3)
        buf_printf(&out->text, "[DUPLICATE READ] %s has now been read %d times in this "
                               "conversation and has not changed since the last read. Use "
                               "what you already know and go on with the task.\n\n",
                   wp.rel, reads);

    /* Number the lines of the window, within the output cap. */
    size_t body_start = out->text.len;
    const char *p = text, *stop = text + len;
    long line = 1;
    while (line < start && p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        p = nl ? nl + 1 : stop;
        line++;
    }
    long last_shown = start - 1;
    bool cut = false;
    for (; line <= end && p < stop; line++) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        const char *eol = nl ? nl : stop;
        size_t n = (size_t)(eol - p);
        if (n && p[n - 1] == '\r')
            n--;
        size_t used = out->text.len - body_start;
        char label[32];
        int ln = snprintf(label, sizeof label, "%ld | ", line);
        if (used + (size_t)ln + n + 1 > READ_OUTPUT_MAX) {
            if (line == start) { /* one enormous line: show its head */
                buf_puts(&out->text, label);
                size_t room = READ_OUTPUT_MAX - used - (size_t)ln;
                size_t keep = utf8_cut(p, n, room);
                utf8_sanitize(p, keep, &out->text);
                last_shown = line;
            }
            cut = true;
            break;
        }
        buf_puts(&out->text, label);
        utf8_sanitize(p, n, &out->text);
        buf_putc(&out->text, '\n');
        last_shown = line;
        p = nl ? nl + 1 : stop;
    }
    if (out->text.len > body_start && out->text.data[out->text.len - 1] == '\n')
        buf_truncate(&out->text, out->text.len - 1);

    if (cut)
        buf_printf(&out->text,
                   "\n\n---\n\n[FILE TRUNCATED: the lines asked for are more than %zu KB; "
                   "only lines %ld-%ld of %zu are shown%s. Continue with start_line=%ld, or "
                   "use search_files to find what you need.]",
                   READ_OUTPUT_MAX / 1024, start, last_shown, total,
                   last_shown == start && line == start ? " (line cut short)" : "",
                   last_shown + 1);
    else if (total == 0)
        buf_puts(&out->text, "(The file is empty.)");
    else if (start > 1 || (size_t)end < total)
        buf_printf(&out->text, "\n\n(Showing lines %ld-%ld of %zu. Continue with "
                               "start_line=%ld to read more.)",
                   start, end, total, (size_t)end < total ? end + 1 : start);
    else
        buf_printf(&out->text, "\n\n(The file has %zu line%s.)", total, total == 1 ? "" : "s");
    env->mistake(env, false);

done:
    if (fd >= 0)
        close(fd);
    json_decref(data);
    free(text);
    ignore_free(ig);
    ws_path_release(&wp);
    return rc;
}

const tool_def tool_read_file = {
    .name = "read_file",
    .description =
        "Read a file and see its lines, numbered. Use it to examine a file you need to "
        "understand or change. At most 1000 lines are shown per call: use start_line and "
        "end_line to read other parts of a long file. An image (PNG, JPEG, GIF, WebP) is "
        "shown to you as an image if you can see images; other binary files cannot be read.",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .flags = TOOL_READ_ONLY | TOOL_RESULT_IS_FILE,
    .run = run,
    .describe = describe,
};
