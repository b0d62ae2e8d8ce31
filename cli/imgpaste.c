/* imgpaste — image paths in a prompt line (see imgpaste.h). */
#include "imgpaste.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbuf.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int image_named(const char *path);

/* One word of the line from *pos: its extent [start, end) and its decoded form (quotes
 * and backslash escapes undone). Returns 0 at the end of the line. */
static int next_word(const char *line, size_t *pos, size_t *start, size_t *end, sbuf *word)
{
    size_t i = *pos;
    while (line[i] && is_space(line[i]))
        i++;
    if (!line[i])
        return 0;
    *start = i;
    sbuf_reset(word);
    char quote = 0;
    while (line[i] && (quote || !is_space(line[i]))) {
        char c = line[i];
        if (quote) {
            if (c == quote)
                quote = 0;
            else if (c == '\\' && quote == '"' && line[i + 1])
                sbuf_putc(word, line[++i]);
            else
                sbuf_putc(word, c);
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '\\' && line[i + 1]) {
            sbuf_putc(word, line[++i]);
        } else {
            sbuf_putc(word, c);
        }
        i++;
    }
    *end = *pos = i;
    return 1; /* word holds what it decoded to, NUL-terminated when not empty */
}

/* A file:// URL's path, percent-decoded, in place ("file:///a%20b.png" -> "/a b.png";
 * "file://localhost/x" -> "/x"). Other text is left alone. */
static void file_url_path(char *s)
{
    if (strncmp(s, "file://", 7) != 0)
        return;
    const char *p = s + 7;
    if (strncmp(p, "localhost/", 10) == 0)
        p += 9;
    if (*p != '/')
        return; /* another host: not ours */
    char *o = s;
    for (; *p; p++) {
        int h, l;
        if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
            *o++ = (char)(h * 16 + l);
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

static int image_named(const char *path)
{
    static const char *const exts[] = { ".png", ".jpg", ".jpeg", ".gif", ".webp" };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof exts / sizeof exts[0]; i++)
        if (strcasecmp(dot, exts[i]) == 0)
            return 1;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

int imgpaste_scan(const char *line, imgpaste *p)
{
    memset(p, 0, sizeof *p);
    sbuf out = SBUF_INIT, word = SBUF_INIT;
    size_t pos = 0, start, end, copied = 0;
    while (next_word(line, &pos, &start, &end, &word)) {
        if (word.len == 0 || word.err)
            continue;
        /* punctuation after a path ("what is shot.png?", "see shot.png.") is the sentence's, not the name's */
        while (word.len > 1 && end > start && strchr("?!,;:).", line[end - 1]) &&
               word.data[word.len - 1] == line[end - 1] && !image_named(word.data)) {
            word.data[--word.len] = '\0';
            end--;
        }
        file_url_path(word.data);
        int w = 0, h = 0;
        if (!image_named(word.data) || hew_image_probe(word.data, &w, &h, NULL, 0) != HEW_OK)
            continue;
        if (p->n == HEW_TASK_IMAGES_MAX) {
            p->dropped++;
            continue;
        }
        sbuf_add(&out, line + copied, start - copied);
        sbuf_printf(&out, "[image: %s]", base_name(word.data));
        copied = end;
        char label[512];
        snprintf(label, sizeof label, "[image: %s %dx%d]", base_name(word.data), w, h);
        p->paths[p->n] = strdup(word.data);
        p->labels[p->n] = strdup(label);
        if (!p->paths[p->n] || !p->labels[p->n]) {
            p->n++;
            sbuf_release(&out);
            sbuf_release(&word);
            imgpaste_release(p);
            return -1;
        }
        p->images[p->n] = (hew_image){ .path = p->paths[p->n] };
        p->n++;
    }
    sbuf_puts(&out, line + copied);
    sbuf_release(&word);
    p->text = sbuf_detach(&out);
    if (!p->text) {
        imgpaste_release(p);
        return -1;
    }
    return 0;
}

void imgpaste_release(imgpaste *p)
{
    free(p->text);
    for (int i = 0; i < p->n; i++) {
        free(p->paths[i]);
        free(p->labels[i]);
    }
    memset(p, 0, sizeof *p);
}
