/* bench/store — the store's two hot paths: appending messages one committed transaction
 * at a time (10 000 API messages of about 2 KB, each with its UI message), and loading
 * the whole task back for a resume (goal: under 50 ms). Exits non-zero when anything
 * read back differs from what was written. Uses a scratch database under $TMPDIR; never
 * touches the user's hew.db. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "tmpdir.h"

#define N 10000
#define TEXT 2000

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Message i: about 2 KB of text with the escapes real text has (newlines, quotes). */
static json_t *make_msg(long i)
{
    char text[TEXT + 1];
    unsigned long long st = (unsigned long long)i * 0x9E3779B97F4A7C15ULL + 7;
    for (size_t k = 0; k < TEXT; k++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned r = (unsigned)(st >> 33) % 80;
        text[k] = r == 0 ? '\n' : r == 1 ? '"' : r < 12 ? ' ' : (char)('a' + r % 26);
    }
    text[TEXT] = '\0';
    if (i % 2)
        return json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:s, s:s, s:{s:s}}]}", "role",
                         "assistant", "content", "type", "text", "text", text, "type",
                         "tool_use", "id", "toolu_x", "name", "read_file", "input", "path",
                         "src/main.c");
    return json_pack("{s:s, s:[{s:s, s:s}]}", "role", "user", "content", "type", "text", "text",
                     text);
}

int main(void)
{
    char *dir = tmpdir_make("bench-store");
    if (!dir)
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/hew.db", dir);
    store_options o = STORE_OPTIONS_INIT;
    o.path = path;
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    int rc = 1;
    json_t *want = json_array();
    char *id = NULL;
    if (store_open(&o, &s, &err) != HEW_OK)
        goto out;
    store_task init = STORE_TASK_INIT;
    init.title = "bench";
    init.workspace = "/w";
    if (store_task_create(s, &init, &id, &err) != HEW_OK)
        goto out;
    for (long i = 0; i < N; i++)
        json_array_append_new(want, make_msg(i));

    double t0 = now_s();
    size_t bytes = 0;
    for (long i = 0; i < N; i++) {
        json_t *m = json_array_get(want, (size_t)i);
        if (store_api_put(s, id, (size_t)i, m, &err) != HEW_OK)
            goto out;
        char ui[160];
        int n = snprintf(ui, sizeof ui,
                         "{\"v\":1,\"index\":%ld,\"ts\":1,\"kind\":\"say\",\"type\":\"text\","
                         "\"partial\":false,\"text\":\"message %ld\"}",
                         i, i);
        if (store_ui_put(s, id, i, ui, (size_t)n, false, &err) != HEW_OK)
            goto out;
        char *d = json_dumps(m, JSON_COMPACT);
        bytes += d ? strlen(d) : 0;
        free(d);
    }
    double t1 = now_s();
    store_free(s); /* resume in a fresh connection, as a new hew process would */
    s = NULL;
    if (store_open(&o, &s, &err) != HEW_OK)
        goto out;

    double best = 1e9;
    for (int round = 0; round < 5; round++) {
        store_loaded l;
        double a = now_s();
        if (store_task_load(s, id, &l, &err) != HEW_OK)
            goto out;
        double b = now_s();
        if (b - a < best)
            best = b - a;
        bool same = json_equal(l.history, want) && json_array_size(l.ui) == N &&
                    l.task.api_count == N;
        if (round == 0)
            printf("store: first load %.1f ms\n", (b - a) * 1e3);
        store_loaded_release(&l);
        if (!same) {
            fprintf(stderr, "store: what was loaded differs from what was written\n");
            goto out;
        }
    }
    double secs = t1 - t0;
    printf("store: appended %d API messages (%.1f MB, each with a UI message, one committed "
           "transaction each) in %.2f s: %.0f messages/s (%.0f commits/s)\n",
           N, (double)bytes / 1e6, secs, N / secs, 2 * N / secs);
    printf("store: resume (load %d messages) best of 5: %.1f ms (goal < 50 ms)\n", N,
           best * 1e3);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "store bench: %s\n", err.msg);
    json_decref(want);
    free(id);
    store_free(s);
    tmpdir_remove(dir);
    free(dir);
    return rc;
}
