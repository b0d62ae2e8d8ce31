/* Crash test of store/: a child process writes a task in a loop (API messages, final and
 * partial UI messages, messages that grow through several appends, usage, rewrites) and
 * reports through a pipe each write the store said was committed; the parent kills it
 * with SIGKILL at seeded random moments (every other one counted from the moment the
 * child says it begins writing, so a slow start on a loaded machine still leaves kills in
 * the middle of writing), then reopens the database and checks that it
 * passes integrity_check, that every reported write is there, byte for byte, that a
 * message killed while it grew loads as the text so far (a prefix of what it would have
 * become, at least as long as the last append reported), that the history has no holes,
 * and that the dead child's task lock is free. The next child resumes the same task where the store says
 * it stopped. HEW_KILL_SEED and HEW_KILL_COUNT change the seed (default 20240601) and
 * the number of kills (default 60). It never kills anything but the children it forked,
 * and never touches the user's hew.db. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "store/store.h"
#include "tmpdir.h"

static char db_path[4096];

static unsigned long long lcg(unsigned long long *st)
{
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return *st >> 33;
}

/* API message i, always the same. */
static json_t *expected_msg(long i)
{
    unsigned long long st = (unsigned long long)i * 2654435761ULL + 1;
    size_t n = 100 + (size_t)(i * 37 % 3000);
    char *text = malloc(n + 64);
    int off = snprintf(text, 64, "msg %ld ", i);
    for (size_t k = 0; k < n; k++) {
        unsigned r = (unsigned)lcg(&st) % 64;
        text[off + (int)k] = r == 0 ? '\n' : r == 1 ? '"' : r == 2 ? '\\' : (char)('a' + r % 26);
    }
    text[off + (int)n] = '\0';
    json_t *m = json_pack("{s:s, s:[{s:s, s:s}]}", "role", i % 2 ? "assistant" : "user",
                          "content", "type", "text", "text", text);
    free(text);
    return m;
}

static void ui_final(long i, char *out, size_t cap)
{
    snprintf(out, cap,
             "{\"v\":1,\"index\":%ld,\"ts\":%ld,\"kind\":\"say\",\"type\":\"text\","
             "\"partial\":false,\"text\":\"final %ld\"}",
             i, 1000 + i, i);
}

/* What UI message i grows into by appends: "part 2" (its last whole partial version), then
 * text with escapes and characters of several bytes. */
#define GROW_STEPS 12
#define GROW_CHUNK 37
static const char *grown(long i, size_t *len)
{
    static char text[8 + GROW_STEPS * GROW_CHUNK + 8];
    static const char *const pieces[] = { "caf\xc3\xa9 ", "\"q\" ", "a\\b ", "line\n",
                                          "\xe2\x80\x94 ", "na\xc3\xafve ", "<b> " };
    size_t n = (size_t)snprintf(text, sizeof text, "part 2");
    unsigned long long st = (unsigned long long)i * 2654435761ULL + 3;
    while (n < 6 + GROW_STEPS * GROW_CHUNK) {
        const char *p = pieces[lcg(&st) % (sizeof pieces / sizeof pieces[0])];
        size_t k = strlen(p);
        if (n + k > 6 + GROW_STEPS * GROW_CHUNK)
            break;
        memcpy(text + n, p, k);
        n += k;
    }
    text[n] = '\0';
    *len = n;
    return text;
}

/* The end of step k's append (a character boundary of grown(i)). */
static size_t grow_end(const char *g, size_t glen, int k)
{
    size_t e = 6 + (size_t)(k + 1) * GROW_CHUNK;
    if (e >= glen)
        return glen;
    while (e > 6 && ((unsigned char)g[e] & 0xC0) == 0x80)
        e--;
    return e;
}

static void report(int fd, char kind, long n)
{
    char line[48];
    int len = snprintf(line, sizeof line, "%c %ld\n", kind, n);
    if (write(fd, line, (size_t)len) != len)
        _exit(9);
}

static void report2(int fd, char kind, long n, long m)
{
    char line[64];
    int len = snprintf(line, sizeof line, "%c %ld %ld\n", kind, n, m);
    if (write(fd, line, (size_t)len) != len)
        _exit(9);
}

/* The child: resume the task and write until killed. */
static void child(const char *id, int fd)
{
    store_options o = STORE_OPTIONS_INIT;
    o.path = db_path;
    o.partial_interval_ms = 5;
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    if (store_open(&o, &s, &err) != HEW_OK)
        _exit(2);
    store_lock *lock = NULL;
    if (store_task_lock(s, id, 5000, &lock, &err) != HEW_OK)
        _exit(3);
    store_task t;
    if (store_task_get(s, id, &t, &err) != HEW_OK)
        _exit(4);
    long next = t.api_count, ui = t.ui_count;
    store_task_release(&t);
    report(fd, 'B', next); /* open, locked, about to write */
    for (;;) {
        json_t *m = expected_msg(next);
        if (store_api_put(s, id, (size_t)next, m, &err) != HEW_OK)
            _exit(5);
        json_decref(m);
        report(fd, 'A', next);
        /* a streaming message: partials, then its final form */
        for (int k = 0; k < 3; k++) {
            char p[160];
            snprintf(p, sizeof p,
                     "{\"v\":1,\"index\":%ld,\"ts\":1,\"kind\":\"say\",\"type\":\"text\","
                     "\"partial\":true,\"text\":\"part %d\"}",
                     ui, k);
            if (store_ui_put(s, id, ui, p, strlen(p), true, &err) != HEW_OK)
                _exit(6);
        }
        /* then it grows by appends, now and then rewriting its end (offset inside the text) */
        size_t glen;
        const char *g = grown(ui, &glen);
        size_t have = 6;
        for (int k = 0; k < GROW_STEPS && have < glen; k++) {
            size_t off = have;
            if (k % 3 == 2) /* back to the character before the last few bytes */
                for (off = have - 3; off > 6 && ((unsigned char)g[off] & 0xC0) == 0x80;)
                    off--;
            size_t end = grow_end(g, glen, k);
            if (end < off)
                end = off;
            if (store_ui_append(s, id, ui, off, g + off, end - off, &err) != HEW_OK)
                _exit(10);
            have = end;
            report2(fd, 'G', ui, (long)have);
        }
        char f[160];
        ui_final(ui, f, sizeof f);
        if (store_ui_put(s, id, ui, f, strlen(f), false, &err) != HEW_OK)
            _exit(7);
        report(fd, 'U', ui);
        ui++;
        if (next % 7 == 0) {
            store_task u = STORE_TASK_INIT;
            u.id = (char *)id;
            u.tokens_in = next;
            u.cost = (double)next / 100;
            if (store_task_update(s, &u, STORE_SET_USAGE, &err) != HEW_OK)
                _exit(8);
            report(fd, 'S', next);
        }
        if (next % 11 == 0) {
            char text[64];
            snprintf(text, sizeof text, "rewrite of %ld", next);
            if (store_rewrite_add(s, id, (size_t)next, 0, text, &err) != HEW_OK)
                _exit(8);
            report(fd, 'R', next);
        }
        next++;
    }
}

static bool integrity_ok(void)
{
    sqlite3 *db;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        return false;
    sqlite3_stmt *q;
    bool ok = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, NULL) == SQLITE_OK &&
              sqlite3_step(q) == SQLITE_ROW &&
              strcmp((const char *)sqlite3_column_text(q, 0), "ok") == 0;
    sqlite3_finalize(q);
    sqlite3_close(db);
    return ok;
}

static void test_kill_loop(void)
{
    const char *seed_env = getenv("HEW_KILL_SEED");
    const char *count_env = getenv("HEW_KILL_COUNT");
    unsigned long long seed = seed_env ? strtoull(seed_env, NULL, 10) : 20240601ULL;
    long kills = count_env ? strtol(count_env, NULL, 10) : 60;
    unsigned long long rng = seed;

    store_options o = STORE_OPTIONS_INIT;
    o.path = db_path;
    store *s = NULL;
    hew_err err = HEW_ERR_INIT;
    REQUIRE(store_open(&o, &s, &err) == HEW_OK);
    store_task init = STORE_TASK_INIT;
    init.title = "crash me";
    init.workspace = "/w";
    char *id = NULL;
    REQUIRE(store_task_create(s, &init, &id, &err) == HEW_OK);
    store_free(s);

    long reported_a = -1, reported_u = -1, reported_s = -1, reported_r = -1;
    /* UI indexes reported final (a child killed between a partial and its final form
     * leaves that index partial; the next child goes on after it) */
    size_t ucap = 1 << 16, nfinal = 0;
    long nrewrites = 0;
    unsigned char *ufinal = calloc(ucap, 1);
    long *grew = calloc(ucap, sizeof *grew); /* the length reported grown, by index */
    REQUIRE(ufinal && grew);
    long ngrown = 0, killed_growing = 0;
    long total_delay_us = 0, mid_run_kills = 0, waited = 0, mid_after_begin = 0;
    /* Even rounds kill at a random moment from the fork (the child may still be opening
     * the store); odd rounds first wait for the child to say it is about to write, then
     * kill at a random moment of its writing, so a loaded machine that starts children
     * slowly still gets kills in the middle of writing. At least `kills` rounds, and more
     * (up to four times as many) until half of the odd ones landed mid-write. */
    long round = 0;
    for (; round < kills || (mid_after_begin < waited / 2 && round < kills * 4); round++) {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child(id, fds[1]);
            _exit(0);
        }
        close(fds[1]);
        bool wait_begin = round % 2 == 1;
        if (wait_begin) { /* the 'B' line, byte by byte (what follows is read below) */
            char c = 0;
            struct pollfd pf = { .fd = fds[0], .events = POLLIN };
            while (c != '\n' && poll(&pf, 1, 30000) == 1 && read(fds[0], &c, 1) == 1)
                ;
            waited++;
        }
        /* kill somewhere between "still opening" (or "begun") and "deep in the loop" */
        long delay = (long)(lcg(&rng) % 40000);
        total_delay_us += delay;
        usleep((useconds_t)delay);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
            check_fail(__FILE__, __LINE__, "round %ld: the child ended by itself (status %d)",
                       round, status);
            close(fds[0]);
            break;
        }
        /* what it said was committed */
        FILE *in = fdopen(fds[0], "r");
        char line[64];
        long before_a = reported_a;
        while (fgets(line, sizeof line, in)) {
            char kind;
            long n, m = 0;
            if (sscanf(line, "%c %ld %ld", &kind, &n, &m) < 2)
                continue;
            if (kind == 'G' && n >= 0 && (size_t)n < ucap) {
                grew[n] = m;
                ngrown++;
            } else if (kind == 'A')
                reported_a = n;
            else if (kind == 'U' && n >= 0 && (size_t)n < ucap) {
                reported_u = n;
                ufinal[n] = 1;
                nfinal++;
            }
            else if (kind == 'S')
                reported_s = n;
            else if (kind == 'R') {
                reported_r = n;
                nrewrites++;
            }
        }
        fclose(in);
        if (reported_a > before_a) {
            mid_run_kills++;
            mid_after_begin += wait_begin;
        }

        /* the database: readable, complete, exact */
        CHECK(integrity_ok());
        REQUIRE(store_open(&o, &s, &err) == HEW_OK);
        store_loaded l;
        REQUIRE(store_task_load(s, id, &l, &err) == HEW_OK);
        long have = (long)json_array_size(l.history);
        if (have < reported_a + 1)
            check_fail(__FILE__, __LINE__, "round %ld: %ld API messages, %ld reported", round,
                       have, reported_a + 1);
        check_count++;
        for (long i = 0; i < have; i++) {
            json_t *want = expected_msg(i);
            if (!json_equal(want, json_array_get(l.history, i))) {
                check_fail(__FILE__, __LINE__, "round %ld: API message %ld differs", round, i);
                json_decref(want);
                break;
            }
            json_decref(want);
        }
        for (long i = 0; i <= reported_u; i++) {
            if (!ufinal[i])
                continue;
            char f[160];
            ui_final(i, f, sizeof f);
            json_t *want = json_loads(f, 0, NULL);
            if (!json_equal(want, json_array_get(l.ui, (size_t)i)))
                check_fail(__FILE__, __LINE__, "round %ld: UI message %ld differs", round, i);
            json_decref(want);
        }
        /* a message killed while it grew: the text so far, a prefix of what it grows
         * into, at least what the last reported append made it */
        killed_growing = 0;
        for (long i = 0; i < (long)json_array_size(l.ui) && (size_t)i < ucap; i++) {
            const json_t *m = json_array_get(l.ui, (size_t)i);
            if (!json_is_true(json_object_get(m, "partial")) || !grew[i])
                continue;
            const json_t *tv = json_object_get(m, "text");
            size_t glen, tlen = json_string_length(tv);
            const char *g = grown(i, &glen);
            if (!json_is_string(tv) || tlen < (size_t)grew[i] || tlen > glen ||
                memcmp(json_string_value(tv), g, tlen) != 0)
                check_fail(__FILE__, __LINE__,
                           "round %ld: UI message %ld, killed while it grew, reads \"%.60s\" "
                           "(%zu bytes, %ld reported)",
                           round, i, json_string_value(tv), tlen, grew[i]);
            check_count++;
            killed_growing++;
        }
        CHECK(l.task.tokens_in >= reported_s);
        CHECK((long)json_array_size(l.rewrites) >= nrewrites);
        if (reported_r >= 0) {
            char want[64];
            snprintf(want, sizeof want, "rewrite of %ld", reported_r);
            bool found = false;
            for (size_t k = 0; k < json_array_size(l.rewrites); k++)
                found = found || strcmp(json_string_value(json_object_get(
                                            json_array_get(l.rewrites, k), "text")),
                                        want) == 0;
            CHECK(found);
        }
        store_loaded_release(&l);
        /* the dead child's lock is free */
        store_lock *lock = NULL;
        CHECK(store_task_lock(s, id, 0, &lock, &err) == HEW_OK);
        store_lock_free(lock);
        store_free(s);
        if (check_failures)
            break;
    }
    printf("store_kill: seed %llu, %ld kills (%ld in the middle of writing, %ld of the %ld "
           "after the child began), %ld API and %ld UI messages reported committed, all "
           "present; %ld appends reported, %ld messages killed while they grew read as their "
           "text so far; integrity_check ok every time; mean delay %ld us\n",
           seed, round, mid_run_kills, mid_after_begin, waited, reported_a + 1, (long)nfinal,
           ngrown, killed_growing, round ? total_delay_us / round : 0);
    CHECK(mid_after_begin >= waited / 2);
    CHECK(killed_growing > 0); /* the appends were killed in the middle, too */
    free(ufinal);
    free(grew);
    free(id);
}

int main(void)
{
    char *dir = tmpdir_make("store-kill");
    if (!dir)
        return 1;
    snprintf(db_path, sizeof db_path, "%s/hew.db", dir);
    RUN(test_kill_loop);
    tmpdir_remove(dir);
    free(dir);
    return check_report();
}
