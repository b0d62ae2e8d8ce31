/* bench/store_append — what one partial write of a growing UI message costs the task, at two
 * lengths of the message (100 KB and 10 MB), the two ways the task has had of writing it:
 *   whole:  the message's JSON built again (uimsg_to_json) and the row rewritten
 *           (store_ui_put), as task/persist.c did before issue #17;
 *   append: what was appended since the last write stored as a part (store_ui_append),
 *           as it does now.
 * Each write adds DELTA bytes (about a second of a model's text: the store writes a
 * partial message at most once a second) and commits, as a task's write does. Prints µs
 * per write and ns per appended byte; with writes that cost the append the two lengths
 * agree. Exits non-zero when the text loaded back differs from the message (so it cannot
 * measure a broken path). Uses a scratch database under $TMPDIR; never touches the
 * user's hew.db. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "store/store.h"
#include "task/uimsg.h"
#include "tmpdir.h"

#define DELTA 1024
#define WRITES 200     /* writes timed per run */
#define OLD_WRITES 30  /* the whole way is slow at 10 MB: fewer */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n bytes of prose with the escapes and characters real text has. */
static void prose(buf *b, size_t n)
{
    static const char *const words[] = { "the ", "parser ", "streams ", "\"every\" ", "byte\n",
                                         "once, ", "caf\xc3\xa9 ", "na\xc3\xafve ", "a\\b " };
    size_t w = 0;
    while (b->len < n) {
        const char *word = words[w++ % (sizeof words / sizeof words[0])];
        buf_append(b, word, strlen(word));
    }
}

/* One run: a message of `start` bytes grown by WRITES writes of DELTA bytes, each written
 * one way. Returns seconds per write, or -1 when the stored text is wrong; *first: the
 * first append, timed apart (it reads the length of the row's text, once per message). */
static double run(store *s, const char *id, long index, size_t start, bool append,
                  double *first)
{
    uimsg_list ui = UIMSG_LIST_INIT;
    for (long i = 0; i < index; i++) /* earlier messages, so `index` is the message's */
        uimsg_put(&ui, UIMSG_SAY, "text", "earlier", NULL, UIMSG_WHOLE);
    buf first_text = BUF_INIT(0);
    prose(&first_text, start);
    long at = uimsg_put_buf(&ui, UIMSG_SAY, "text", UIMSG_PARTIAL, &first_text);
    buf_release(&first_text);
    if (at < 0)
        return -1;
    buf line = BUF_INIT(0);
    uimsg_to_json(&ui, (size_t)at, &line);
    hew_err err = HEW_ERR_INIT;
    if (store_ui_put(s, id, at, line.data, line.len, false, &err) != HEW_OK) {
        fprintf(stderr, "store_ui_put: %s\n", err.msg);
        return -1;
    }
    buf more = BUF_INIT(0);
    prose(&more, DELTA);
    int writes = append || start < 1000000 ? WRITES : OLD_WRITES;
    double t0 = now_s();
    *first = 0;
    for (int k = 0; k < writes + append; k++) {
        if (append && k == 1) { /* the first append reads the row's text length: apart */
            *first = now_s() - t0;
            t0 = now_s();
        }
        buf *tb = uimsg_text_buf(&ui, (size_t)at);
        size_t from = tb->len;
        buf_append(tb, more.data, DELTA);
        uimsg_text_changed(&ui, (size_t)at, from, UIMSG_PARTIAL);
        hew_code rc;
        if (append) {
            rc = store_ui_append(s, id, at, from, tb->data + from, DELTA, &err);
        } else {
            buf_reset(&line);
            uimsg_to_json(&ui, (size_t)at, &line);
            rc = store_ui_put(s, id, at, line.data, line.len, true, &err);
        }
        if (rc != HEW_OK) {
            fprintf(stderr, "write: %s\n", err.msg);
            return -1;
        }
    }
    double per = (now_s() - t0) / writes;
    /* what a resume would read */
    store_loaded l = STORE_LOADED_INIT;
    double ok = per;
    if (store_task_load(s, id, &l, &err) != HEW_OK) {
        fprintf(stderr, "load: %s\n", err.msg);
        ok = -1;
    } else {
        const json_t *m = json_array_get(l.ui, (size_t)at);
        const json_t *t = json_object_get(m, "text");
        const buf *tb = uimsg_text_buf(&ui, (size_t)at);
        if (json_string_length(t) != tb->len || memcmp(json_string_value(t), tb->data, tb->len)) {
            fprintf(stderr, "the stored text differs from the message\n");
            ok = -1;
        }
    }
    store_loaded_release(&l);
    buf_release(&line);
    buf_release(&more);
    uimsg_list_release(&ui);
    return ok;
}

int main(void)
{
    char *dir = tmpdir_make("bench-store-append");
    if (!dir)
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/hew.db", dir);
    store_options o = STORE_OPTIONS_INIT;
    o.path = path;
    o.partial_interval_ms = -1; /* every write committed at once, as the task's are */
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    int rc = 0;
    if (store_open(&o, &s, &err) != HEW_OK) {
        fprintf(stderr, "store_open: %s\n", err.msg);
        return 1;
    }
    store_task init = STORE_TASK_INIT;
    init.title = "bench";
    init.workspace = "/bench";
    char *id = NULL;
    if (store_task_create(s, &init, &id, &err) != HEW_OK) {
        fprintf(stderr, "create: %s\n", err.msg);
        return 1;
    }
    static const size_t sizes[] = { 100 * 1000, 10 * 1000 * 1000 };
    static const char *const names[] = { "100 KB", "10 MB" };
    long index = 0;
    for (int way = 0; way < 2; way++) {
        bool append = way == 1;
        for (size_t i = 0; i < 2; i++) {
            double first = 0;
            double per = run(s, id, index++, sizes[i], append, &first);
            if (per < 0) {
                rc = 1;
                continue;
            }
            printf("%-6s %-6s message: %9.1f us per partial write of %d bytes, %8.1f ns per "
                   "appended byte",
                   append ? "append" : "whole", names[i], per * 1e6, DELTA, per * 1e9 / DELTA);
            if (append)
                printf(" (the first: %.1f us)", first * 1e6);
            printf("\n");
        }
    }
    free(id);
    store_free(s);
    tmpdir_remove(dir);
    free(dir);
    return rc;
}
