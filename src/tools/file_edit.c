/* file_edit — loading, line endings, approval and atomic saving for the editing tools
 * (see file_edit.h). Never writes unapproved, never writes in place, never opens a path
 * other than the one ws_resolve checked. */
#include "tools/file_edit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/utf8.h"
#include "tools/udiff.h"

size_t file_edit_to_lf(char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')
            continue;
        s[o++] = s[i];
    }
    if (o < len)
        s[o] = '\0';
    return o;
}

bool file_before_load(tool_env *env, const ws_path *wp, const ignore *ig, file_before *fb,
                      tool_result *out)
{
    memset(fb, 0, sizeof *fb);
    struct stat st;
    int fd = -1;
    hew_err err = HEW_ERR_INIT;
    hew_code rc = ws_open_file(env->cwd, wp, &fd, &st, &err);
    if (rc == HEW_E_NOTFOUND) { /* a new file (a file on its path: the write says so) */
        fb->text = strdup("");
        if (!fb->text) {
            ws_error_result(env, out, "out of memory");
            return false;
        }
        return true;
    }
    if (rc != HEW_OK) {
        ws_error_result(env, out, "Cannot open %s: %s", wp->rel, err.msg);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        ws_error_result(env, out, "%s is a directory, not a file.", wp->rel);
        return false;
    }
    if (fd < 0) {
        ws_error_result(env, out, "%s is not a regular file and cannot be edited.", wp->rel);
        return false;
    }
    int link = ws_link_check(env->cwd, ig, &st);
    if (link != WS_LINK_OK) {
        close(fd);
        ws_link_blocked_result(env, wp->rel, link, out);
        return false;
    }
    size_t len = 0;
    /* the text: the front end's (an editor's unsaved buffer) when it gives file access */
    if (env->file_read)
        rc = env->file_read(env, wp->abs, FILE_EDIT_MAX, &fb->text, &len, &err);
    else
        rc = fs_read_fd(fd, wp->rel, FILE_EDIT_MAX, &fb->text, &len, &err);
    close(fd);
    if (rc != HEW_OK) {
        ws_error_result(env, out, "%s", err.msg);
        return false;
    }
    if (memchr(fb->text, '\0', len)) {
        ws_error_result(env, out, "%s is a binary file; hew edits text files only.", wp->rel);
        file_before_release(fb);
        return false;
    }
    size_t crlf = 0, lf = 0;
    for (const char *p = fb->text; (p = memchr(p, '\n', len - (size_t)(p - fb->text))); p++) {
        if (p > fb->text && p[-1] == '\r')
            crlf++;
        else
            lf++;
    }
    fb->crlf = crlf > lf;
    fb->exists = true;
    fb->len = fb->crlf ? file_edit_to_lf(fb->text, len) : len;
    return true;
}

void file_before_release(file_before *fb)
{
    free(fb->text);
    fb->text = NULL;
}

void file_edit_put_content(buf *out, const char *tag, const char *rel, const char *text,
                           size_t len)
{
    if (len && text[len - 1] == '\n')
        len--;
    buf_printf(out, "<%s path=\"%s\">\n", tag, rel);
    size_t show = len;
    if (show > FILE_EDIT_SHOW_MAX) {
        show = utf8_cut(text, len, FILE_EDIT_SHOW_MAX);
        const char *nl = memrchr(text, '\n', show);
        if (nl)
            show = (size_t)(nl - text);
    }
    utf8_sanitize(text, show, out);
    if (show < len) {
        size_t lines = 1;
        for (const char *p = text; (p = memchr(p, '\n', show - (size_t)(p - text))); p++)
            lines++;
        buf_printf(out, "\n[... the file goes on past line %zu (%zu more bytes); use "
                        "read_file with start_line=%zu to see the rest ...]",
                   lines, len - show, lines + 1);
    }
    buf_printf(out, "\n</%s>", tag);
}

hew_code file_edit_finish(tool_env *env, const ws_path *wp, const file_before *fb,
                          const char *new_lf, size_t new_len, tool_result *out)
{
    json_t *data = ws_tool_data(fb->exists ? "editedExistingFile" : "newFileCreated", wp->rel);
    buf diff = BUF_INIT((size_t)4 << 20);
    udiff_make(fb->text, fb->len, new_lf, new_len, &diff);
    if (diff.err) {
        buf_reset(&diff);
        buf_puts(&diff, "(the diff is too large to show)\n");
    }
    ws_data_put(data, "diff", diff.data ? diff.data : "");
    if (!fb->exists) {
        char *c = strndup(new_lf, new_len);
        ws_data_put(data, "content", c);
        free(c);
    }
    buf_release(&diff);

    /* hew's control files ask whatever the auto-approval (only yolo approves them). The
     * tool marked the path as given; the resolved path is checked here again. */
    const char *control = wp->control ? wp->control : ws_control(env->cwd, NULL, wp);
    ws_data_put(data, "controlFile", control);
    buf denied = BUF_INIT(0);
    buf_puts(&denied, fb->exists ? " The file was not updated, and keeps its original content."
                                 : " The file was not created.");
    if (control)
        buf_printf(&denied, " %s is one of hew's control files (%s): hew's control file %s "
                            "can only be changed with the user's approval.",
                   wp->rel, control, wp->rel);
    bool approved = false;
    hew_code rc = ws_approve(env, control ? "control" : "edit", wp->outside, data,
                             denied.data, out, &approved);
    buf_release(&denied);
    json_decref(data);
    if (rc != HEW_OK || !approved)
        return rc;

    /* Back to the file's line endings. */
    buf disk = BUF_INIT(FILE_EDIT_MAX * 2 + 16);
    if (fb->crlf) {
        const char *p = new_lf, *end = new_lf + new_len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) {
                buf_append(&disk, p, (size_t)(end - p));
                break;
            }
            buf_append(&disk, p, (size_t)(nl - p));
            buf_puts(&disk, "\r\n");
            p = nl + 1;
        }
    } else if (new_len) {
        buf_append(&disk, new_lf, new_len);
    }
    hew_err err = HEW_ERR_INIT;
    hew_code wrc = disk.err;
    if (wrc != HEW_OK) {
        ws_error_result(env, out, "The new content of %s is too large to write.", wp->rel);
        buf_release(&disk);
        return HEW_OK;
    }
    /* Beneath the root (or "/"), through no symlink: the file that was checked. */
    if (env->file_write) /* the front end's file access: the editor's buffer */
        wrc = ws_write_via(env, wp, disk.data ? disk.data : "", disk.len, &err);
    else
        wrc = ws_write(env->cwd, wp, disk.data ? disk.data : "", disk.len, 0666, &err);
    buf_release(&disk);
    if (wrc != HEW_OK) {
        ws_error_result(env, out, "Writing %s failed, the file was not changed: %s", wp->rel,
                        err.msg);
        return HEW_OK;
    }
    ws_read_cache_forget(env, wp->abs);
    env->mistake(env, false);
    buf_printf(&out->text, "The content was saved to %s.\n\nHere is the whole file as it is "
                           "now saved:\n\n", wp->rel);
    file_edit_put_content(&out->text, "final_file_content", wp->rel, new_lf, new_len);
    buf_puts(&out->text, "\n\nIMPORTANT: base any further change to this file on the "
                         "final_file_content above: it is the file's current state.");
    return HEW_OK;
}
