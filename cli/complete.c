/* complete — what Tab offers at the interactive prompt (see complete.h): the word before
 * the cursor decides — "@…" a workspace path, the first word of a "/" line a command,
 * a later one that command's argument. */
#include "complete.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbuf.h"
#include "slashcmd.h"
#include "termsafe.h"

#define PATHS_MAX 2000 /* entries of one directory looked at, at most */

void complete_release(complete_ctx *c)
{
    for (size_t i = 0; i < c->npool; i++)
        free(c->pool[i]);
    free(c->pool);
    c->pool = NULL;
    c->npool = c->cappool = 0;
}

/* Keep s (owned from now on) in the pool; NULL when memory runs out (s is freed). */
static const char *keep(complete_ctx *c, char *s)
{
    if (!s)
        return NULL;
    if (c->npool == c->cappool) {
        size_t cap = c->cappool ? c->cappool * 2 : 32;
        char **p = realloc(c->pool, cap * sizeof *p);
        if (!p) {
            free(s);
            return NULL;
        }
        c->pool = p;
        c->cappool = cap;
    }
    c->pool[c->npool++] = s;
    return s;
}

size_t complete_words(const char *const *words, size_t n, const char *prefix, size_t len,
                      const char **out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!words[i] || strncmp(words[i], prefix, len) != 0)
            continue;
        if (k < cap)
            out[k] = words[i];
        k++;
    }
    return k;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t complete_paths(complete_ctx *c, const char *dir, const char *prefix, size_t len,
                      const char **out, size_t cap)
{
    const char *cwd = c->cwd && *c->cwd ? c->cwd : ".";
    sbuf full = SBUF_INIT;
    sbuf_printf(&full, "%s/%s", cwd, dir);
    DIR *d = full.err ? NULL : opendir(full.data);
    if (!d) {
        sbuf_release(&full);
        return 0;
    }
    size_t first = c->npool, looked = 0;
    struct dirent *e;
    while ((e = readdir(d)) && looked < PATHS_MAX) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (name[0] == '.' && !(len && prefix[0] == '.'))
            continue; /* hidden: only when asked for */
        if (strncmp(name, prefix, len) != 0)
            continue;
        char *safe = termsafe_dup(name, 1);
        int plain = safe && strcmp(safe, name) == 0;
        free(safe);
        if (!plain)
            continue; /* a name with controls (a hostile repository's): never on the screen */
        looked++;
        int is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
            sbuf p = SBUF_INIT;
            struct stat st;
            sbuf_printf(&p, "%s%s", full.data, name);
            is_dir = !p.err && stat(p.data, &st) == 0 && S_ISDIR(st.st_mode);
            sbuf_release(&p);
        }
        sbuf rel = SBUF_INIT;
        sbuf_printf(&rel, "%s%s%s", dir, name, is_dir ? "/" : "");
        int ignored = 0;
        if (rel.err || hew_path_ignored(cwd, rel.data, &ignored, NULL, 0) != HEW_OK ||
            ignored) {
            sbuf_release(&rel);
            continue; /* what .clineignore hides is never offered */
        }
        keep(c, sbuf_detach(&rel));
    }
    closedir(d);
    sbuf_release(&full);
    size_t n = c->npool - first;
    if (n > 1)
        qsort(c->pool + first, n, sizeof *c->pool, by_name);
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = c->pool[first + i];
    return n;
}

/* The stored tasks' ids, newest first, that start with prefix. */
static size_t task_ids(complete_ctx *c, const char *prefix, size_t len, const char **out,
                       size_t cap)
{
    char *text = NULL;
    if (hew_history_json(c->base, NULL, NULL, 200, &text, NULL, 0) != HEW_OK)
        return 0;
    json_t *a = json_loads(text, 0, NULL);
    hew_free(text);
    size_t i, k = 0;
    json_t *t;
    json_array_foreach(a, i, t) {
        const char *id = json_string_value(json_object_get(t, "id"));
        if (!id || strncmp(id, prefix, len) != 0)
            continue;
        if (k < cap)
            out[k] = keep(c, strdup(id));
        if (k < cap && !out[k])
            break;
        k++;
    }
    json_decref(a);
    return k;
}

/* The checkpoint numbers of the task that ended last that start with prefix. */
static size_t checkpoint_numbers(complete_ctx *c, const char *prefix, size_t len,
                                 const char **out, size_t cap)
{
    char *text = NULL;
    if (!c->last_id || !*c->last_id ||
        hew_checkpoints_json(c->base, c->last_id, &text, NULL, 0) != HEW_OK)
        return 0;
    json_t *a = json_loads(text, 0, NULL);
    hew_free(text);
    size_t i, k = 0;
    json_t *cp;
    json_array_foreach(a, i, cp) {
        if (json_is_null(json_object_get(cp, "hash")))
            continue; /* a checkpoint that failed cannot be diffed or restored */
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(json_object_get(cp, "n")));
        if (strncmp(num, prefix, len) != 0)
            continue;
        if (k < cap)
            out[k] = keep(c, strdup(num));
        if (k < cap && !out[k])
            break;
        k++;
    }
    json_decref(a);
    return k;
}

static size_t model_names(const char *prefix, size_t len, const char **out, size_t cap)
{
    size_t n = hew_model_names(NULL, 0);
    const char **all = calloc(n ? n : 1, sizeof *all);
    if (!all)
        return 0;
    hew_model_names(all, n);
    size_t k = complete_words(all, n, prefix, len, out, cap);
    free(all);
    return k;
}

size_t complete_line(void *arg, const char *line, size_t len, size_t *start, const char **out,
                     size_t cap)
{
    complete_ctx *c = arg;
    complete_release(c);
    size_t ws = len;
    while (ws > 0 && line[ws - 1] != ' ' && line[ws - 1] != '\t' && line[ws - 1] != '\n')
        ws--;
    const char *word = line + ws;
    size_t wlen = len - ws;
    if (wlen && word[0] == '@') { /* a mention: "@src/ma" or Cline's "@/src/ma" */
        size_t p = wlen > 1 && word[1] == '/' ? 2 : 1;
        size_t cut = wlen;
        while (cut > p && word[cut - 1] != '/')
            cut--;
        char dir[1024];
        if (cut - p >= sizeof dir || memmem(word + p, cut - p, "..", 2))
            return 0;
        memcpy(dir, word + p, cut - p);
        dir[cut - p] = '\0';
        *start = ws + p;
        return complete_paths(c, dir, word + cut, wlen - cut, out, cap);
    }
    if (len == 0 || line[0] != '/')
        return 0;
    if (ws == 0) { /* the command's name */
        *start = 1;
        return slashcmd_complete_line(NULL, line, len, start, out, cap);
    }
    char name[32];
    size_t n = strcspn(line + 1, " \t");
    if (n >= sizeof name)
        return 0;
    memcpy(name, line + 1, n);
    name[n] = '\0';
    size_t argno = 0; /* which argument the word is (0 = the first) */
    for (size_t i = 1 + n; i < ws; i++)
        if (line[i] != ' ' && line[i] != '\t' && (line[i - 1] == ' ' || line[i - 1] == '\t'))
            argno++;
    *start = ws;
    static const char *const restore_what[] = { "files", "task", "both" };
    static const char *const mcp_args[] = { "reload" };
    if (strcmp(name, "model") == 0 && argno == 0)
        return model_names(word, wlen, out, cap);
    if (strcmp(name, "resume") == 0 && argno == 0)
        return task_ids(c, word, wlen, out, cap);
    if ((strcmp(name, "diff") == 0 && argno < 2) || (strcmp(name, "restore") == 0 && argno == 0))
        return checkpoint_numbers(c, word, wlen, out, cap);
    if (strcmp(name, "restore") == 0 && argno == 1)
        return complete_words(restore_what, 3, word, wlen, out, cap);
    if (strcmp(name, "mcp") == 0 && argno == 0)
        return complete_words(mcp_args, 1, word, wlen, out, cap);
    return 0;
}
