/* path — workspace confinement by real resolution, plus lexical helpers (see path.h).
 * Never decides containment on unresolved strings, never creates anything. */
#include "sys/path.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"

#define PATH_WORK_MAX ((size_t)64 * 1024) /* cap of the working buffers */
#define PATH_MAX_LINKS 40                   /* like the kernel's ELOOP limit */

/* Length of root without trailing slashes ("/" keeps its one slash). */
static size_t trimmed_len(const char *s)
{
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        n--;
    return n;
}

bool path_is_inside(const char *root, const char *p)
{
    if (!root || !p || !*root)
        return false;
    size_t rl = trimmed_len(root);
    if (rl == 1 && root[0] == '/')
        return p[0] == '/';
    return strncmp(p, root, rl) == 0 && (p[rl] == '\0' || p[rl] == '/');
}

char *path_relative_to(const char *root, const char *p)
{
    if (!path_is_inside(root, p))
        return strdup(p);
    const char *rest = p + trimmed_len(root);
    while (*rest == '/')
        rest++;
    if (!*rest)
        return strdup(".");
    size_t n = trimmed_len(rest);
    return strndup(rest, n);
}

char *path_join(const char *a, const char *b)
{
    if (!a || !*a || b[0] == '/')
        return strdup(b);
    size_t al = trimmed_len(a);
    if (!*b)
        return strndup(a, al);
    bool slash = !(al == 1 && a[0] == '/');
    size_t bl = strlen(b);
    char *out = malloc(al + (slash ? 1 : 0) + bl + 1);
    if (!out)
        return NULL;
    memcpy(out, a, al);
    if (slash)
        out[al++] = '/';
    memcpy(out + al, b, bl + 1);
    return out;
}

/* Drop the last component of an absolute path held in b ("" stands for "/"). */
static void drop_last(buf *b)
{
    size_t i = b->len;
    while (i > 0 && b->data[i - 1] != '/')
        i--;
    buf_truncate(b, i > 0 ? i - 1 : 0);
}

char *path_normalize(const char *path)
{
    bool abs = path[0] == '/';
    buf out = BUF_INIT(0);
    size_t kept = 0; /* components in out that are not ".." */
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *c = p;
        size_t n = strcspn(p, "/");
        p += n;
        if (n == 1 && c[0] == '.')
            continue;
        bool dotdot = n == 2 && c[0] == '.' && c[1] == '.';
        if (dotdot && kept > 0) {
            drop_last(&out);
            kept--;
            continue;
        }
        if (dotdot && abs)
            continue; /* above "/" is "/" */
        if (!dotdot)
            kept++;
        if (abs || out.len > 0)
            buf_putc(&out, '/');
        buf_append(&out, c, n);
    }
    if (out.len == 0)
        buf_puts(&out, abs ? "/" : ".");
    return buf_detach(&out, NULL);
}

static hew_code lookup_error(hew_err *err, int e, const char *at)
{
    switch (e) {
    case EACCES:
    case EPERM:
        return hew_err_set(err, HEW_E_IO, "cannot look at %s: permission denied — check the "
                           "mode of its directory", at);
    case ENAMETOOLONG:
        return hew_err_set(err, HEW_E_INVALID, "%s: the path is too long", at);
    case ENOMEM:
        return hew_err_set(err, HEW_E_NOMEM, "cannot look at %s: out of memory", at);
    default:
        return hew_err_set(err, HEW_E_IO, "cannot look at %s: %s", at, strerror(e));
    }
}

/* Resolve path (relative ones from base, an absolute real directory) one component at a
 * time into cur: existing symlinks replaced by their targets, ".." applied to what is
 * resolved so far, missing components kept as they are. cur holds "" for "/". */
static hew_code resolve(const char *base, const char *path, buf *cur, hew_err *err)
{
    buf rest = BUF_INIT(PATH_WORK_MAX);
    buf next = BUF_INIT(PATH_WORK_MAX);
    hew_code rc = HEW_OK;
    int links = 0;
    size_t pos = 0;
    buf_puts(&rest, path);
    if (path[0] != '/' && strcmp(base, "/") != 0)
        buf_puts(cur, base);
    while (rc == HEW_OK && pos < rest.len) {
        while (pos < rest.len && rest.data[pos] == '/')
            pos++;
        if (pos >= rest.len)
            break;
        const char *c = rest.data + pos;
        size_t n = strcspn(c, "/");
        size_t end = pos + n;
        if (n == 1 && c[0] == '.') {
            pos = end;
            continue;
        }
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            drop_last(cur);
            pos = end;
            continue;
        }
        size_t mark = cur->len;
        buf_putc(cur, '/');
        buf_append(cur, c, n);
        if (cur->err) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s: the path is too long", path);
            break;
        }
        struct stat st;
        if (lstat(cur->data, &st) != 0) {
            if (errno != ENOENT && errno != ENOTDIR) /* missing: taken as it is */
                rc = lookup_error(err, errno, cur->data);
            pos = end;
            continue;
        }
        if (!S_ISLNK(st.st_mode)) {
            pos = end;
            continue;
        }
        if (++links > PATH_MAX_LINKS) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s: too many levels of symbolic links "
                             "(a symlink loop?)", path);
            break;
        }
        char target[PATH_MAX];
        ssize_t tn = readlink(cur->data, target, sizeof target);
        if (tn < 0 && errno == EINVAL) { /* no longer a link (swapped since lstat): again */
            buf_truncate(cur, mark);
            continue;
        }
        if (tn < 0 && errno == ENOENT) { /* gone since lstat: taken as it is */
            pos = end;
            continue;
        }
        if (tn < 0 || (size_t)tn >= sizeof target) {
            rc = tn < 0 ? lookup_error(err, errno, cur->data)
                        : hew_err_set(err, HEW_E_INVALID, "%s: symlink target too long",
                                      cur->data);
            break;
        }
        /* Continue with the link's target followed by what was left after it. */
        buf_truncate(cur, mark);
        if (target[0] == '/')
            buf_truncate(cur, 0);
        buf_reset(&next);
        buf_append(&next, target, (size_t)tn);
        buf_putc(&next, '/');
        buf_append(&next, rest.data + end, rest.len - end);
        if (next.err) {
            rc = hew_err_set(err, HEW_E_INVALID, "%s: the path is too long", path);
            break;
        }
        buf tmp = rest;
        rest = next;
        next = tmp;
        pos = 0;
    }
    if (rc == HEW_OK && cur->len == 0)
        buf_putc(cur, '/');
    if (rc == HEW_OK && cur->err)
        rc = buf_check(cur, "resolved path", err);
    buf_release(&rest);
    buf_release(&next);
    return rc;
}

hew_code path_resolve_in(const char *root, const char *path, char **resolved_out,
                         hew_err *err)
{
    *resolved_out = NULL;
    if (!root || !*root)
        return hew_err_set(err, HEW_E_INVALID, "no workspace folder given");
    if (!path || !*path)
        return hew_err_set(err, HEW_E_INVALID, "the path is empty — give a file or folder "
                           "inside the workspace %s", root);
    char *real_root = realpath(root, NULL);
    if (!real_root) {
        if (errno == ENOENT || errno == ENOTDIR)
            return hew_err_set(err, HEW_E_NOTFOUND, "the workspace folder %s does not exist",
                               root);
        return lookup_error(err, errno, root);
    }
    struct stat st;
    if (stat(real_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(real_root);
        return hew_err_set(err, HEW_E_INVALID, "the workspace %s is not a folder", root);
    }
    buf cur = BUF_INIT(PATH_WORK_MAX);
    hew_code rc = resolve(real_root, path, &cur, err);
    if (rc == HEW_OK && !path_is_inside(real_root, cur.data))
        rc = hew_err_set(err, HEW_E_ESCAPE, "\"%s\" is outside the workspace %s (it resolves "
                         "to %s) — use a path inside it", path, real_root, cur.data);
    if (rc == HEW_OK) {
        *resolved_out = buf_detach(&cur, NULL);
        if (!*resolved_out)
            rc = hew_err_set(err, HEW_E_NOMEM, "out of memory resolving %s", path);
    }
    buf_release(&cur);
    free(real_root);
    return rc;
}
