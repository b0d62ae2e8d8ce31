/* mention — @path mentions attach workspace files to a message (see mention.h). Reads
 * only regular files below the workspace that .clineignore lets through: a path is
 * resolved (symlinks followed) and must still be below the workspace, and .clineignore is
 * asked about the path typed and the path it resolves to, so a hostile repository's
 * symlink ("notes.md" -> ~/.aws/credentials, or -> .env it ignores) attaches nothing.
 * The file is then opened by its resolved path beneath the workspace with no symlink
 * allowed (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so one swapped in meanwhile
 * is refused too. */
#include "mention.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hew.h"

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* The path of a mention at s (after '@'), n bytes long, cleaned into out: NULL when it
 * leaves the workspace (absolute after Cline's "/", "..") or is empty. */
static int clean(const char *s, size_t n, char *out, size_t cap)
{
    if (n && s[0] == '/') { /* Cline's @/path: relative to the workspace */
        s++;
        n--;
    }
    if (!n || n >= cap)
        return -1;
    memcpy(out, s, n);
    out[n] = '\0';
    for (char *p = out; *p; p++)
        if ((p == out || p[-1] == '/') && p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/'))
            return -1;
    return 0;
}

/* The mention's path resolved (symlinks followed) relative to the workspace (real path
 * wsreal) into out: 0, or -1 when it does not exist or resolves outside. */
static int resolve(const char *wsreal, const char *rel, char *out, size_t cap)
{
    char joined[PATH_MAX * 2], real[PATH_MAX];
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", wsreal, rel) >= sizeof joined ||
        !realpath(joined, real))
        return -1;
    size_t w = strlen(wsreal);
    if (strcmp(wsreal, "/") == 0)
        w = 0;
    if (strncmp(real, wsreal, w) != 0 || real[w] != '/' || !real[w + 1])
        return -1;
    if ((size_t)snprintf(out, cap, "%s", real + w + 1) >= cap)
        return -1;
    return 0;
}

/* Read the file (rel: resolved, beneath dirfd): 0 with its text, or -1 with why. */
static int read_text(int dirfd, const char *rel, sbuf *text, const char **why)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
    if (fd < 0 && errno == ENOSYS) /* before Linux 5.6: the last step at least */
        fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        *why = "not a file";
        return -1;
    }
    if ((size_t)st.st_size > MENTION_FILE_MAX) {
        close(fd);
        *why = "too large to attach (more than 1 MiB): ask the model to read it";
        return -1;
    }
    char buf[8192];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0 && text->len <= MENTION_FILE_MAX)
        sbuf_add(text, buf, (size_t)r);
    close(fd);
    if (r < 0 || text->err) {
        *why = "cannot be read";
        return -1;
    }
    if (text->len && memchr(text->data, '\0', text->len)) {
        *why = "a binary file: not attached";
        return -1;
    }
    return 0;
}

char *mention_expand(const char *cwd, const char *text, sbuf *notes, int *attached)
{
    if (attached)
        *attached = 0;
    const char *ws = cwd && *cwd ? cwd : ".";
    char wsreal[PATH_MAX];
    if (!realpath(ws, wsreal))
        return NULL;
    int dirfd = open(wsreal, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return NULL;
    sbuf out = SBUF_INIT, files = SBUF_INIT;
    int n = 0;
    const char *copied = text; /* text before this is in out */
    for (const char *p = text; *p; p++) {
        if (*p != '@' || (p > text && !is_blank(p[-1])))
            continue;
        size_t len = 0;
        while (p[1 + len] && !is_blank(p[1 + len]))
            len++;
        char rel[1024];
        const char *why = NULL;
        sbuf content = SBUF_INIT;
        int found = -1;
        /* the word, then without a final punctuation mark */
        for (int pass = 0; pass < 2 && found < 0; pass++) {
            size_t l = len;
            if (pass == 1) {
                if (!l || !strchr(",.;:!?)", p[l]))
                    break;
                l--;
            }
            struct stat st;
            if (clean(p + 1, l, rel, sizeof rel) != 0 || fstatat(dirfd, rel, &st, 0) != 0)
                continue;
            found = 1;
            len = l;
            char real[1024];
            int ignored = 0, ignored_real = 0;
            if (resolve(wsreal, rel, real, sizeof real) != 0)
                why = "it leads outside the workspace (a symbolic link) — not attached";
            else if (hew_path_ignored(wsreal, rel, &ignored, NULL, 0) != HEW_OK || ignored ||
                     hew_path_ignored(wsreal, real, &ignored_real, NULL, 0) != HEW_OK ||
                     ignored_real)
                why = ".clineignore hides it — not attached";
            else if (S_ISDIR(st.st_mode))
                why = "a folder: only files are attached";
            else
                (void)read_text(dirfd, real, &content, &why);
        }
        if (found < 0) {
            sbuf_release(&content);
            continue;
        }
        if (why) {
            sbuf_printf(notes, "@%s: %s\n", rel, why);
            sbuf_release(&content);
            continue;
        }
        sbuf_add(&out, copied, (size_t)(p - copied));
        sbuf_printf(&out, "'%s' (see below for file content)", rel);
        copied = p + 1 + len;
        sbuf_printf(&files, "\n\n<file_content path=\"%s\">\n", rel);
        sbuf_add(&files, content.data ? content.data : "", content.len);
        if (content.len && content.data[content.len - 1] != '\n')
            sbuf_putc(&files, '\n');
        sbuf_puts(&files, "</file_content>");
        sbuf_release(&content);
        n++;
        p += len;
    }
    close(dirfd);
    if (!n) {
        sbuf_release(&out);
        sbuf_release(&files);
        return NULL;
    }
    sbuf_puts(&out, copied);
    sbuf_add(&out, files.data, files.len);
    sbuf_release(&files);
    if (attached)
        *attached = n;
    return sbuf_detach(&out);
}
