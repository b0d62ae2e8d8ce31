/* mcp_common — approval and result text for the MCP tools (see mcp_common.h). */
#include "tools/mcp_common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "api/message.h"
#include "base/buf.h"
#include "base/hex.h"
#include "sys/ignore.h"
#include "tools/workspace.h"

hew_code mcp_tool_approve(tool_env *env, bool listed, json_t *data, tool_result *out,
                          bool *approved)
{
    tool_answer answer = { .kind = TOOL_ANSWER_NO };
    *approved = false;
    hew_code rc = env->approve(env, listed ? "mcp_listed" : "mcp", false, "use_mcp_server",
                               data, approved, &answer);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        *approved = false;
        return rc;
    }
    bool feedback = answer.text && *answer.text;
    if (*approved) {
        if (feedback)
            buf_printf(&out->text, "The user approved this operation and provided the "
                                   "following context:\n<feedback>\n%s\n</feedback>\n\n",
                       answer.text);
    } else {
        buf_reset(&out->text);
        out->is_error = true;
        buf_puts(&out->text, "The user denied this operation.");
        if (feedback)
            buf_printf(&out->text, "\nThe user provided the following feedback:\n<feedback>\n%s"
                                   "\n</feedback>",
                       answer.text);
    }
    tool_answer_release(&answer);
    return HEW_OK;
}

/* A resource content part as JSON without its (base64) blob. */
static void put_resource(const json_t *resource, buf *out)
{
    json_t *copy = json_deep_copy(resource);
    if (!copy)
        return;
    json_t *blob = json_object_get(copy, "blob");
    if (blob) {
        char note[64];
        snprintf(note, sizeof note, "(%zu bytes of base64 left out)", json_string_length(blob));
        json_object_set_new(copy, "blob", json_string(note));
    }
    char *s = json_dumps(copy, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s)
        buf_puts(out, s);
    free(s);
    json_decref(copy);
}

static void separate(buf *out, size_t start)
{
    if (out->len > start)
        buf_puts(out, "\n\n");
}

static bool image_type_ok(const char *mime)
{
    static const char *const ok[] = { "image/png", "image/jpeg", "image/gif", "image/webp" };
    for (size_t i = 0; mime && i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(mime, ok[i]) == 0)
            return true;
    return false;
}

/* An image part as a block for the model; false when it cannot be one. */
static bool take_image(const json_t *part, json_t **images)
{
    const char *mime = json_string_value(json_object_get(part, "mimeType"));
    const char *data = json_string_value(json_object_get(part, "data"));
    if (!data || !image_type_ok(mime))
        return false;
    if (!*images)
        *images = json_array();
    json_t *block = api_msg_image(mime, data);
    if (!*images || !block) {
        json_decref(block);
        return false;
    }
    json_array_append_new(*images, block);
    return true;
}

void mcp_format_tool_result(const json_t *result, buf *out, json_t **images)
{
    size_t start = out->len;
    bool is_error = json_is_true(json_object_get(result, "isError"));
    if (is_error)
        buf_puts(out, "Error:\n");
    size_t body = out->len;
    size_t images_left = 0;
    size_t i;
    json_t *part;
    json_array_foreach(json_object_get(result, "content"), i, part) {
        const char *type = json_string_value(json_object_get(part, "type"));
        if (!type)
            continue;
        if (strcmp(type, "text") == 0) {
            const char *text = json_string_value(json_object_get(part, "text"));
            if (text) {
                separate(out, body);
                buf_puts(out, text);
            }
        } else if (strcmp(type, "resource") == 0) {
            separate(out, body);
            put_resource(json_object_get(part, "resource"), out);
        } else if (strcmp(type, "resource_link") == 0) {
            separate(out, body);
            const char *uri = json_string_value(json_object_get(part, "uri"));
            const char *name = json_string_value(json_object_get(part, "name"));
            buf_printf(out, "[resource link: %s%s%s%s]", uri ? uri : "?", name ? " (" : "",
                       name ? name : "", name ? ")" : "");
        } else if (strcmp(type, "image") == 0 && take_image(part, images)) {
            continue;
        } else if (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0) {
            images_left++;
        }
    }
    /* Structured content without a text rendering: give the model the JSON. */
    json_t *structured = json_object_get(result, "structuredContent");
    if (structured && out->len == body) {
        char *s = json_dumps(structured, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (s)
            buf_puts(out, s);
        free(s);
    }
    if (images_left) {
        separate(out, body);
        buf_printf(out, "[%zu audio clip%s or image%s in a format the model cannot take %s "
                        "left out]",
                   images_left, images_left == 1 ? "" : "s", images_left == 1 ? "" : "s",
                   images_left == 1 ? "was" : "were");
    }
    if (out->len == body && !json_array_size(*images))
        buf_puts(out, "(No response)");
    if (out->len - start > MCP_RESULT_MAX) {
        buf_truncate(out, start + MCP_RESULT_MAX);
        buf_puts(out, "\n\n[the result was cut at 400 KiB]");
    }
}

void mcp_format_resource(const json_t *result, buf *out)
{
    size_t start = out->len;
    size_t i;
    json_t *part;
    json_array_foreach(json_object_get(result, "contents"), i, part) {
        const char *text = json_string_value(json_object_get(part, "text"));
        separate(out, start);
        if (text) {
            buf_puts(out, text);
        } else {
            const char *mime = json_string_value(json_object_get(part, "mimeType"));
            const char *uri = json_string_value(json_object_get(part, "uri"));
            buf_printf(out, "[binary content of %s%s%s, %zu bytes of base64, not shown]",
                       uri ? uri : "the resource", mime ? ", " : "", mime ? mime : "",
                       json_string_length(json_object_get(part, "blob")));
        }
    }
    if (out->len == start)
        buf_puts(out, "(Empty response)");
    if (out->len - start > MCP_RESULT_MAX) {
        buf_truncate(out, start + MCP_RESULT_MAX);
        buf_puts(out, "\n\n[the resource was cut at 400 KiB]");
    }
}

void mcp_no_servers(tool_env *env, tool_result *out)
{
    (void)env;
    out->is_error = true;
    buf_puts(&out->text, "No MCP servers are configured or connected. The user adds them in "
                         "~/.config/hew/mcp.json or .hew/mcp.json (or with `hew mcp add`).");
}

/* ---- .clineignore for MCP arguments ------------------------------------------------------ */

#define MCP_ARGS_DEPTH 32 /* nesting followed; deeper values are not looked at */

/* The path a string names, into path (PATH_MAX): a file:// URI's path (percent-decoded,
 * "localhost" host allowed), or the string itself. False when it cannot be a path. */
static bool string_path(const char *s, char *path)
{
    size_t n = strlen(s);
    if (n == 0 || n >= PATH_MAX || strpbrk(s, "\r\n"))
        return false;
    if (strncasecmp(s, "file://", 7) == 0) {
        const char *p = s + 7;
        if (strncasecmp(p, "localhost/", 10) == 0)
            p += 9;
        if (*p != '/')
            return false;
        size_t o = 0;
        for (; *p && *p != '?' && *p != '#'; p++) {
            int hi, lo;
            if (*p == '%' && (hi = hex_digit(p[1])) >= 0 && (lo = hex_digit(p[2])) >= 0) {
                path[o++] = (char)(hi * 16 + lo);
                p += 2;
            } else {
                path[o++] = *p;
            }
        }
        path[o] = '\0';
        return o > 0 && strlen(path) == o; /* an encoded NUL is no path */
    }
    if (strstr(s, "://"))
        return false; /* another scheme: not a file of this machine */
    memcpy(path, s, n + 1);
    return true;
}

/* The display path of the first ignored path in v, or NULL (a new string). A file inside
 * the workspace that is another name (a hard link) of an ignored file counts as ignored,
 * and so does one hew cannot tell about (too many files to compare: lk's cap). */
static char *find_ignored(const char *root, const ignore *ig, ws_links *lk, const json_t *v,
                          int depth)
{
    if (depth > MCP_ARGS_DEPTH)
        return NULL;
    if (json_is_string(v)) {
        char path[PATH_MAX];
        if (!string_path(json_string_value(v), path))
            return NULL;
        ws_path wp = WS_PATH_INIT;
        char *hit = NULL;
        if (ws_resolve(root, path, &wp, NULL) == HEW_OK) {
            struct stat st;
            bool have = stat(wp.abs, &st) == 0;
            bool dir = have && S_ISDIR(st.st_mode);
            if (ws_ignored(ig, &wp, dir) ||
                (have && !wp.outside && !dir && st.st_nlink > 1 && S_ISREG(st.st_mode) &&
                 (!lk || ws_links_check(lk, &st) != WS_LINK_OK)))
                hit = strdup(wp.rel);
        }
        ws_path_release(&wp);
        return hit;
    }
    if (json_is_object(v)) {
        const char *key;
        json_t *e;
        json_object_foreach((json_t *)v, key, e) {
            char *hit = find_ignored(root, ig, lk, e, depth + 1);
            if (hit)
                return hit;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            char *hit = find_ignored(root, ig, lk, e, depth + 1);
            if (hit)
                return hit;
        }
    }
    return NULL;
}

bool mcp_args_blocked(tool_env *env, const json_t *args, tool_result *out)
{
    if (!args || !env->cwd)
        return false;
    ignore *ig = NULL;
    hew_err err = HEW_ERR_INIT;
    if (ignore_load_cline(env->cwd, &ig, &err) != HEW_OK) {
        ws_error_result(env, out, "%s", err.msg);
        return true;
    }
    ws_links *lk = ws_links_new(env->cwd, ig);
    char *hit = find_ignored(env->cwd, ig, lk, args, 0);
    ws_links_free(lk);
    ignore_free(ig);
    if (!hit)
        return false;
    ws_blocked_result(env, hit, out);
    free(hit);
    return true;
}
