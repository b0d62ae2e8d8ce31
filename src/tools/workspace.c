/* workspace — path resolution, ignore checks, approval and the read cache shared by the
 * file tools (see workspace.h). Never decides containment itself: path_resolve_in does. */
#include "tools/workspace.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"
#include "base/path.h"
#include "base/utf8.h"

hew_code ws_resolve(const char *root, const char *path, ws_path *out, hew_err *err)
{
    out->abs = out->rel = NULL;
    out->outside = false;
    char *resolved = NULL;
    hew_err local = HEW_ERR_INIT;
    hew_code rc = path_resolve_in(root, path, &resolved, &local);
    if (rc == HEW_E_ESCAPE) {
        /* Outside: resolve against "/" so that the approval step sees the real target. */
        char *root_real = realpath(root, NULL);
        char *joined = root_real ? path_join(root_real, path) : NULL;
        free(root_real);
        if (!joined)
            return hew_err_set(err, HEW_E_NOMEM, "out of memory resolving %s", path);
        rc = path_resolve_in("/", joined, &resolved, &local);
        free(joined);
        out->outside = true;
    }
    if (rc != HEW_OK) {
        if (err)
            *err = local;
        return rc;
    }
    out->abs = resolved;
    if (out->outside) {
        out->rel = strdup(resolved);
    } else {
        char *root_real = realpath(root, NULL);
        out->rel = path_relative_to(root_real ? root_real : root, resolved);
        free(root_real);
    }
    if (!out->rel) {
        ws_path_release(out);
        return hew_err_set(err, HEW_E_NOMEM, "out of memory resolving %s", path);
    }
    return HEW_OK;
}

void ws_path_release(ws_path *p)
{
    free(p->abs);
    free(p->rel);
    p->abs = p->rel = NULL;
}

bool ws_ignored(const ignore *ig, const ws_path *p, bool is_dir)
{
    return !p->outside && ignore_match(ig, p->rel, is_dir);
}

void ws_blocked_result(tool_env *env, const char *display, tool_result *out)
{
    env->say(env, "clineignore_error", display, NULL, 0);
    buf_reset(&out->text);
    tool_result_error(out,
                      "The tool execution failed with the following error:\n<error>\n"
                      "Access to %s is blocked by the .clineignore file settings. Continue "
                      "the task without this file, or ask the user to update the "
                      ".clineignore file.\n</error>",
                      display);
}

void ws_error_result(tool_env *env, tool_result *out, const char *fmt, ...)
{
    buf_reset(&out->text);
    out->is_error = true;
    buf_puts(&out->text, "The tool execution failed with the following error:\n<error>\n");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&out->text, fmt, ap);
    va_end(ap);
    buf_puts(&out->text, "\n</error>");
    env->mistake(env, true);
}

void ws_data_put(json_t *data, const char *key, const char *value)
{
    if (!data || !value)
        return;
    json_t *s = json_string_lossy(value, strlen(value));
    if (s)
        json_object_set_new(data, key, s);
}

json_t *ws_tool_data(const char *tool, const char *path)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "tool", json_string(tool));
    ws_data_put(o, "path", path);
    return o;
}

static void put_feedback(buf *b, const char *text)
{
    buf_printf(b, "The user gave this feedback:\n<feedback>\n%s\n</feedback>", text);
}

hew_code ws_approve(tool_env *env, const char *group, bool outside, json_t *data,
                    const char *denied_extra, tool_result *out, bool *approved)
{
    tool_answer answer = { TOOL_ANSWER_NO, NULL };
    *approved = false;
    hew_code rc = env->approve(env, group, outside, "tool", data, approved, &answer);
    if (rc != HEW_OK) {
        tool_answer_release(&answer);
        *approved = false;
        return rc;
    }
    bool feedback = answer.text && *answer.text;
    if (*approved) {
        if (feedback) {
            put_feedback(&out->text, answer.text);
            buf_puts(&out->text, "\n\n");
        }
    } else {
        buf_reset(&out->text);
        out->is_error = true;
        buf_printf(&out->text, "The user denied this operation.%s", denied_extra ? denied_extra : "");
        if (feedback) {
            buf_puts(&out->text, "\n");
            put_feedback(&out->text, answer.text);
        }
    }
    tool_answer_release(&answer);
    return HEW_OK;
}

void ws_show_partial(tool_env *env, json_t *data)
{
    if (env->yolo)
        env->say(env, "tool", NULL, data, 1);
    else
        env->ask(env, "tool", NULL, data, 1, NULL);
}

/* ---- the read cache ------------------------------------------------------------------- */

typedef struct cache_entry {
    const tool_env *env;
    char *abs;
    int64_t mtime_ns, size;
    int count;
} cache_entry;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_entry *cache;
static size_t cache_len, cache_cap;

#define CACHE_MAX 4096 /* entries over all tasks; the oldest go first */

static void cache_remove_at(size_t i)
{
    free(cache[i].abs);
    memmove(&cache[i], &cache[i + 1], (cache_len - i - 1) * sizeof *cache);
    cache_len--;
}

int ws_read_cache_note(const tool_env *env, const char *abs, int64_t mtime_ns, int64_t size)
{
    pthread_mutex_lock(&cache_mu);
    int count = 1;
    size_t i;
    for (i = 0; i < cache_len; i++)
        if (cache[i].env == env && strcmp(cache[i].abs, abs) == 0)
            break;
    if (i < cache_len) {
        cache_entry *e = &cache[i];
        if (e->mtime_ns == mtime_ns && e->size == size)
            count = ++e->count;
        else {
            e->mtime_ns = mtime_ns;
            e->size = size;
            e->count = 1;
        }
    } else {
        if (cache_len == CACHE_MAX)
            cache_remove_at(0);
        if (cache_len == cache_cap) {
            size_t ncap = cache_cap ? cache_cap * 2 : 64;
            cache_entry *n = realloc(cache, ncap * sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&cache_mu);
                return 1;
            }
            cache = n;
            cache_cap = ncap;
        }
        char *copy = strdup(abs);
        if (copy)
            cache[cache_len++] = (cache_entry){ env, copy, mtime_ns, size, 1 };
    }
    pthread_mutex_unlock(&cache_mu);
    return count;
}

void ws_read_cache_forget(const tool_env *env, const char *abs)
{
    pthread_mutex_lock(&cache_mu);
    size_t n = abs ? strlen(abs) : 0;
    for (size_t i = cache_len; i-- > 0;)
        if (cache[i].env == env &&
            (!abs || (strncmp(cache[i].abs, abs, n) == 0 &&
                      (cache[i].abs[n] == '\0' || cache[i].abs[n] == '\n'))))
            cache_remove_at(i);
    if (cache_len == 0) {
        free(cache);
        cache = NULL;
        cache_cap = 0;
    }
    pthread_mutex_unlock(&cache_mu);
}

size_t ws_read_cache_changed(const tool_env *env, const char *root, char **out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&cache_mu);
    for (size_t i = 0; i < cache_len && n < cap; i++) {
        cache_entry *e = &cache[i];
        if (e->env != env)
            continue;
        size_t plen = strcspn(e->abs, "\n");
        char *path = strndup(e->abs, plen);
        if (!path)
            continue;
        struct stat st;
        bool changed = stat(path, &st) != 0 ||
                       (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec != e->mtime_ns ||
                       (int64_t)st.st_size != e->size;
        if (changed) {
            /* Report it once: the next read (or this note) starts from the new stamp. */
            e->mtime_ns = stat(path, &st) == 0
                              ? (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec
                              : -1;
            e->size = e->mtime_ns < 0 ? -1 : (int64_t)st.st_size;
            e->count = 0;
            char *rel = path_relative_to(root, path);
            bool dup = false;
            for (size_t k = 0; k < n && rel; k++)
                dup = dup || strcmp(out[k], rel) == 0;
            if (rel && !dup)
                out[n++] = rel;
            else
                free(rel);
        }
        free(path);
    }
    pthread_mutex_unlock(&cache_mu);
    return n;
}
