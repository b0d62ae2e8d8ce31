/* mention — @path mentions attach workspace files to a message (see mention.h). Reads
 * only regular files below the workspace that .clineignore lets through. */
#include "mention.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Read the file: 0 with its text, or -1 with why in *why. */
static int read_text(int dirfd, const char *rel, sbuf *text, const char **why)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
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
    int dirfd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
            int ignored = 0;
            if (hew_path_ignored(ws, rel, &ignored, NULL, 0) != HEW_OK || ignored)
                why = ".clineignore hides it — not attached";
            else if (S_ISDIR(st.st_mode))
                why = "a folder: only files are attached";
            else
                (void)read_text(dirfd, rel, &content, &why);
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
